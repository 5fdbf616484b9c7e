"""The Pass rate page's inputs and figures: k, n, the confidence and a label read from the
page's link, parsed with one clear message per bad input, and the Wilson interval drawn
as metrics, a formula in words, other confidence levels and a link back to the figure.

Session state: the four inputs are bound to the query parameters of the page's link
(``bind="query-params"``), and Streamlit uses a bound widget's key as the parameter's
name, so their keys are the link's own names — ``k``, ``n``, ``confidence``, ``label`` —
rather than ``gb_``-prefixed: they are the page's public link contract
(``ui.present.links.pass_rate_link`` builds the links).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

import streamlit as st

from graders.stats import normal_quantile, wilson_interval
from ui.present.links import pass_rate_link
from ui.present.rates import level_words, other_levels, pct, pct_pair

DEFAULT_CONFIDENCE = "0.95"
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


class Inputs(NamedTuple):
    """The four inputs as typed: k and n ("" when empty), the confidence (the default when
    empty) and the label, stripped."""

    k: str
    n: str
    confidence: str
    label: str


@dataclass(frozen=True)
class Figure:
    """k passes of n at a confidence (``typed``: as typed; ``confidence``: as a float),
    with the interval's ends and the level in words."""

    k: int
    n: int
    confidence: float
    typed: Decimal
    low: float
    high: float

    @property
    def level(self) -> str:
        return level_words(self.typed)


def inputs() -> Inputs:
    """The four inputs, bound to the link's query parameters."""
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
    return Inputs(k_text or "", n_text or "", conf_text or DEFAULT_CONFIDENCE, (label or "").strip())


def figure(typed: Inputs) -> Figure | str:
    """The figure, or one message naming every bad input."""
    problems = []
    k = n = confidence = None
    for text, name in ((typed.k, "k"), (typed.n, "n")):
        try:
            value = parse_count(text, name)
        except ValueError as e:
            problems.append(str(e))
        else:
            k, n = (value, n) if name == "k" else (k, value)
    try:
        confidence = parse_confidence(typed.confidence)
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
        return "Cannot compute the interval. " + " ".join(problems)
    low, high = interval
    return Figure(k, n, confidence, confidence_decimal(typed.confidence), low, high)


def no_cases(fig: Figure) -> None:
    """n = 0: no rate, and every rate possible."""
    st.metric("Pass rate", "—")
    st.markdown(f"With **no cases** there is nothing to go on: every rate from 0% to 100% is possible "
                f"({fig.level} interval 0% to 100%).")


def figures_section(fig: Figure) -> None:
    """The rate and the interval's ends as metrics, and in one sentence."""
    rate = fig.k / fig.n
    m1, m2, m3 = st.columns(3)
    low_text, high_text = pct_pair(fig.low, fig.high)
    m1.metric("Pass rate", pct(rate), help=f"{fig.k:,} of {fig.n:,}")
    m2.metric(f"Lower end ({fig.level})", low_text)
    m3.metric(f"Upper end ({fig.level})", high_text)
    st.markdown(f"**{fig.k:,} of {fig.n:,} pass: {pct(rate)}.** {fig.level} Wilson interval: "
                f"**{low_text} to {high_text}**.")


def formula_section(fig: Figure) -> None:
    """The Wilson interval's formula, in words, with this confidence's z."""
    z = normal_quantile(0.5 + fig.confidence / 2)
    with st.expander("The formula, in words", expanded=False):
        st.markdown(
            f"Take z, the normal quantile that leaves (1 − confidence) / 2 in each tail: **z = {z:.4f}** "
            f"for {fig.level}. The Wilson interval is every true rate p for which the observed share k / n lies "
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


def other_levels_section(fig: Figure) -> None:
    with st.expander("Other confidence levels"):
        st.dataframe(other_levels(fig.k, fig.n, fig.confidence, fig.level), hide_index=True)


def figure_link(fig: Figure, label: str) -> str:
    """This figure's own link: the confidence as typed, and only when it is not the default."""
    confidence = fig.typed if fig.typed != Decimal(DEFAULT_CONFIDENCE) else None
    return pass_rate_link(fig.k, fig.n, confidence=confidence, label=label, space="%20")
