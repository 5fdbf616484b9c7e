"""Pass rate: k passes out of n cases -> the Wilson score interval at a chosen confidence.

Every count on the Score and Compare pages links here as a relative URL,
``pass_rate?k=34&n=40`` (optionally ``&confidence=0.95&label=exact%20·%20model-a``).

Session state: the four inputs are bound to those query parameters (``bind="query-params"``),
and Streamlit uses a bound widget's key as the parameter's name, so their keys are the
link's own names — ``k``, ``n``, ``confidence``, ``label`` — rather than ``gb_``-prefixed:
they are this page's public link contract. Editing an input rewrites the address, so the
page's URL can always be shared.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from urllib.parse import quote, urlencode

import pandas as pd
import streamlit as st

from graders.stats.paired import normal_quantile, plain_digits, wilson_interval
from ui import display, in_app

in_app()

DEFAULT_CONFIDENCE = "0.95"
OTHER_LEVELS = (0.8, 0.9, 0.95, 0.99)
_COUNT = re.compile(r"\d{1,3}(?:,\d{3})+|\d+", re.ASCII)


def parse_count(text: str, name: str) -> int:
    t = text.strip()
    if not t:
        raise ValueError(f"{name} is empty: enter the number of {'passes' if name == 'k' else 'cases'}.")
    if not _COUNT.fullmatch(t):
        if re.fullmatch(r"-\s*\d[\d,]*", t):
            raise ValueError(f"{name} cannot be negative (got {text.strip()!r}).")
        raise ValueError(f"{name} must be a whole number, like 34 (got {text.strip()!r}).")
    return int(t.replace(",", ""))


def parse_confidence(text: str) -> float:
    t = text.strip()
    percent = t.endswith("%")
    try:
        value = float(t[:-1] if percent else t) / (100 if percent else 1)
    except ValueError:
        raise ValueError(f"Confidence must be a number between 0 and 1, like 0.95 (got {t!r}).") from None
    if not 0 < value < 1:  # NaN fails too
        hint = " Write 95% as 0.95 or 95%." if 1 < value < 100 else ""
        raise ValueError(f"Confidence must be strictly between 0 and 1 (got {t!r}).{hint}")
    return value


def confidence_decimal(text: str) -> Decimal:
    """A valid confidence (``parse_confidence``) as the exact fraction typed: "99.9%" is
    0.999, not the float 0.9990000000000001 that dividing by 100 gives."""
    t = text.strip()
    return (Decimal(t[:-1]) / 100 if t.endswith("%") else Decimal(t)).normalize()


def level_words(confidence: Decimal) -> str:
    """The level as a percentage, as typed: 0.999999 is 99.9999%, never 100%."""
    return f"{(confidence * 100).normalize():f}%"


def _places(x: float) -> int:
    """Decimals of a percentage that show two significant digits of the share's distance
    from the nearer of 0% and 100%, and at least one: 85.0%, 99.9943%, 0.0057%."""
    distance = min(x, 1 - x) * 100
    if distance <= 0:
        return 1
    return max(1, 1 - math.floor(math.log10(distance) + 1e-9))  # 1 - 0.99999 is 0.0009999…


def pct(x: float, places: int | None = None) -> str:
    """A share as a percentage (``_places``): never 0% or 100% for a share that is not."""
    return f"{x:.{_places(x) if places is None else places}%}"


def pct_pair(low: float, high: float) -> tuple[str, str]:
    """An interval's ends with the same places, as many as each end needs and the two need
    to read as different (5,000,000 of 10,000,000: 49.97% to 50.03%, not 50.0% to 50.0%)."""
    places = max(_places(low), _places(high))
    while places < 15 and low != high and pct(low, places) == pct(high, places):
        places += 1
    return pct(low, places), pct(high, places)


st.title("Pass rate")
st.caption(
    "How sure can you be of a pass rate measured on n cases? The Wilson score interval gives "
    "the range of true rates consistent with what was seen."
)

c1, c2, c3 = st.columns(3)
k_text = c1.text_input("Passes (k)", key="k", bind="query-params", placeholder="e.g. 34")
n_text = c2.text_input("Cases (n)", key="n", bind="query-params", placeholder="e.g. 40")
conf_text = c3.text_input(
    "Confidence", value=DEFAULT_CONFIDENCE, key="confidence", bind="query-params",
    help="Strictly between 0 and 1: 0.95 for a 95% interval (95% is accepted too).",
)
label = st.text_input(
    "What was counted (optional)", key="label", bind="query-params",
    placeholder="e.g. exact · returns-assistant-v2",
)

if not (k_text or "").strip() and not (n_text or "").strip():
    st.info("Enter the number of passes (k) and of cases (n). Counts on the Score and Compare pages link here.")
    st.stop()

problems = []
k = n = confidence = None
for text, name in ((k_text or "", "k"), (n_text or "", "n")):
    try:
        value = parse_count(text, name)
    except ValueError as e:
        problems.append(str(e))
    else:
        k, n = (value, n) if name == "k" else (k, value)
try:
    confidence = parse_confidence(conf_text or DEFAULT_CONFIDENCE)
except ValueError as e:
    problems.append(str(e))
if not problems and k > n:
    problems.append(f"k ({k:,}) is larger than n ({n:,}): there cannot be more passes than cases.")
interval = None
if not problems:
    try:
        interval = wilson_interval(k, n, confidence)
    except ValueError as e:  # the library's own check; the parsing above should catch it first
        problems.append(str(e))
if problems:
    st.error("Cannot compute the interval. " + " ".join(problems))
    st.stop()

low, high = interval
typed = confidence_decimal(conf_text or DEFAULT_CONFIDENCE)
level = level_words(typed)
if label and label.strip():
    st.subheader(display.md(label.strip()))

if n == 0:
    st.metric("Pass rate", "—")
    st.markdown(f"With **no cases** there is nothing to go on: every rate from 0% to 100% is possible "
                f"({level} interval 0% to 100%).")
    st.stop()

rate = k / n
m1, m2, m3 = st.columns(3)
low_text, high_text = pct_pair(low, high)
m1.metric("Pass rate", pct(rate), help=f"{k:,} of {n:,}")
m2.metric(f"Lower end ({level})", low_text)
m3.metric(f"Upper end ({level})", high_text)
st.markdown(f"**{k:,} of {n:,} pass: {pct(rate)}.** {level} Wilson interval: **{low_text} to {high_text}**.")

# A short plain-English reading.
width = (high - low) * 100
reading = [
    f"If these {n:,} cases are a fair sample of the cases this grader will meet, the true pass rate "
    f"is plausibly anywhere from **{low_text}** to **{high_text}**; intervals made this way contain "
    f"the true rate {level} of the time."
]
if k == 0:
    reading.append(f"None of the cases passed, yet the true rate could be as high as {high_text}.")
elif k == n:
    reading.append(f"Every case passed, yet the true rate could be as low as {low_text}.")
reading.append(
    f"The interval is {plain_digits(width, min_places=1)} points wide. Its width shrinks with the square root of n: "
    f"halving it takes about four times the cases (≈{4 * n:,})."
)
reading.append(
    "Comparing two pass rates by eye is rough: intervals that do not overlap mean a clear difference, but "
    "two rates can differ clearly while their intervals still overlap a little. For model A against "
    "model B on the same cases, the Compare page's paired test (McNemar) is the right tool."
)
st.markdown("\n\n".join(reading))

z = normal_quantile(0.5 + confidence / 2)
with st.expander("The formula, in words", expanded=False):
    st.markdown(
        f"Take z, the normal quantile that leaves (1 − confidence) / 2 in each tail: **z = {z:.4f}** "
        f"for {level}. The Wilson interval is every true rate p for which the observed share k / n lies "
        f"within z standard errors of p, the standard error being worked out *at p*, √(p(1 − p) / n), "
        "rather than at the observed share. Solving that for p gives a centre pulled toward one half "
        "and a half-width:"
    )
    st.latex(r"\text{centre} = \frac{k + z^2/2}{n + z^2}, \qquad "
             r"\text{half-width} = \frac{z}{n + z^2}\sqrt{\frac{k\,(n-k)}{n} + \frac{z^2}{4}}")
    st.markdown(
        "The interval is centre ± half-width, and it always stays within 0% to 100%; with k = 0 its "
        "lower end is exactly 0, with k = n its upper end exactly 1. Unlike the textbook "
        "k / n ± z·√(p(1 − p) / n), it does not collapse to a single point when every case passes "
        "or every case fails, and its coverage stays close to the stated confidence even for small n."
    )

with st.expander("Other confidence levels"):
    rows = []
    levels = {c: f"{c * 100:g}%" for c in OTHER_LEVELS} | {confidence: level}
    for c in sorted(levels):
        lo, hi = wilson_interval(k, n, c)
        lo_text, hi_text = pct_pair(lo, hi)
        rows.append({"confidence": levels[c], "lower": lo_text, "upper": hi_text, "width (points)": plain_digits((hi - lo) * 100, min_places=1)})
    st.dataframe(pd.DataFrame(rows), hide_index=True)

params = {"k": k, "n": n}
if typed != Decimal(DEFAULT_CONFIDENCE):
    params["confidence"] = f"{typed:f}"  # the exact fraction typed: the link opens this figure
if label and label.strip():
    params["label"] = label.strip()
st.caption(f"Link to this figure: `pass_rate?{urlencode(params, quote_via=quote)}`")
