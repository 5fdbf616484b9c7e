"""A pass rate and its Wilson interval as text (no streamlit here): percentages with the
places they need, the confidence level as typed, the plain-English reading and the
table of other confidence levels, for the Pass rate page."""

from __future__ import annotations

import math
from decimal import Decimal

import pandas as pd

from graders.compare.words import plain_digits
from graders.stats import wilson_interval

OTHER_LEVELS = (0.8, 0.9, 0.95, 0.99)


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


def reading(k: int, n: int, low: float, high: float, level: str) -> str:
    """A short plain-English reading of k of n (n > 0) and its interval, paragraphs in Markdown."""
    low_text, high_text = pct_pair(low, high)
    width = (high - low) * 100
    paragraphs = [
        f"If these {n:,} cases are a fair sample of the cases this grader will meet, the true pass rate "
        f"is plausibly anywhere from **{low_text}** to **{high_text}**; intervals made this way contain "
        f"the true rate {level} of the time."
    ]
    if k == 0:
        paragraphs.append(f"None of the cases passed, yet the true rate could be as high as {high_text}.")
    elif k == n:
        paragraphs.append(f"Every case passed, yet the true rate could be as low as {low_text}.")
    paragraphs.append(
        f"The interval is {plain_digits(width, min_places=1)} points wide. Its width shrinks with the square root of n: "
        f"halving it takes about four times the cases (≈{4 * n:,})."
    )
    paragraphs.append(
        "Comparing two pass rates by eye is rough: intervals that do not overlap mean a clear difference, but "
        "two rates can differ clearly while their intervals still overlap a little. For model A against "
        "model B on the same cases, the Compare page's paired test (McNemar) is the right tool."
    )
    return "\n\n".join(paragraphs)


def other_levels(k: int, n: int, confidence: float, level: str) -> pd.DataFrame:
    """The interval at each of ``OTHER_LEVELS`` and at ``confidence`` (written ``level``)."""
    rows = []
    levels = {c: f"{c * 100:g}%" for c in OTHER_LEVELS} | {confidence: level}
    for c in sorted(levels):
        lo, hi = wilson_interval(k, n, c)
        lo_text, hi_text = pct_pair(lo, hi)
        rows.append({"confidence": levels[c], "lower": lo_text, "upper": hi_text,
                     "width (points)": plain_digits((hi - lo) * 100, min_places=1)})
    return pd.DataFrame(rows)
