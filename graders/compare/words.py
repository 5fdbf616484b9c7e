"""A comparison in words: the one-sentence reading of a metric, and numbers written plainly."""

from __future__ import annotations

import math

from graders.stats.paired import PairedSummary

# Below this many cases a continuous grader's bootstrap interval covers less often than it
# says (bench/coverage_sim.py: about 90% for a nominal 95% at 12 cases, 93% at 20).
FEW_CASES = 40


def plain_digits(x: float, *, min_places: int = 0) -> str:
    """``x`` (>= 0) to two significant digits, never in exponent form (100, not 1e+02;
    0.0012), with at least ``min_places`` decimals."""
    if x <= 0:
        return f"{0:.{min_places}f}"
    return f"{x:.{max(min_places, 1 - math.floor(math.log10(x) + 1e-9))}f}"  # 1 - 0.99999 is 0.0009999…


def _decimals(width: float) -> int:
    """Decimals that show a number to about a tenth of the interval's half-width."""
    if not math.isfinite(width) or width <= 0:
        return 3
    return min(6, max(1, 1 - math.floor(math.log10(width))))


def _p_words(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _cases(n: int) -> str:
    return "one case" if n == 1 else f"{n:,} cases"


def verdict_words(summary: PairedSummary, adjusted_p: float | None = None, *, alpha: float = 0.05,
                  unadjusted: bool = False) -> str:
    """A short plain-English reading of ``summary`` for the dashboard.

    ``adjusted_p`` is this metric's Holm-adjusted p-value (``holm_adjust`` over its Holm
    family); without it the unadjusted ``summary.p_value`` is used and called "p", or
    "p …, unadjusted" when ``unadjusted`` (a metric outside the Holm family). The minimum
    detectable difference is read at the level the metric is tested at
    (``summary.mdd_alpha``), which is named when it is below ``alpha``.
    A difference is called unlikely to be noise when that p-value is below ``alpha`` and
    the interval excludes 0. Pass-or-fail metrics are read in pass-rate points.
    """
    s = summary
    if s.n == 0:
        return "No case has a score on both sides: nothing to compare."
    cases = _cases(s.n_cases)
    if s.wins == 0 and s.losses == 0:
        if s.n == 1:
            where = "the one case"
        elif s.n_cases != s.n:  # repeats: the pairs are rows, several to a case
            where = f"all {s.n:,} pairs ({cases})"
        else:
            where = f"all {cases}"
        return f"No difference: A and B score the same on {where}."
    if s.n_cases < 2:
        return f"Only {cases}: too few to tell a change from noise."
    if adjusted_p is not None and not math.isnan(adjusted_p):
        p, label = adjusted_p, "Holm "
    else:
        p, label = s.p_value, ""
    scale, unit = (100.0, " points") if s.binary else (1.0, "")
    diff, low, high = s.mean_diff * scale, s.ci_low * scale, s.ci_high * scale
    flat = not high - low > 1e-9 * max(scale, abs(diff))  # every case differs alike: the resamples agree
    places = (1 if s.binary else 3) if flat else _decimals((high - low) / 2)
    level = f"{s.confidence:.0%} CI"
    note = f" Each case's repeats were resampled together ({cases}, {s.n:,} rows)." if s.clustered else ""
    if not s.binary and s.n_cases < FEW_CASES and not flat:  # bench/coverage_sim.py: about 90% at 12 cases
        note += f" With fewer than {FEW_CASES} cases a bootstrap interval covers the truth less often than {level} says."

    def interval(lo: float, hi: float) -> str:
        if flat:  # not a measured certainty: the cases gave no spread to resample
            return f"every case differs by the same amount, so the {level} has no width"
        return f"{level} {lo:.{places}f} to {hi:.{places}f}"

    if s.binary:
        rates = f"pass rate A {s.pass_rate_a:.1%}, B {s.pass_rate_b:.1%}"
        if diff >= 0:
            lead = f"A passes more often by {diff:.{places}f} points ({rates}; {interval(low, high)})"
        else:
            lead = f"B passes more often by {-diff:.{places}f} points ({rates}; {interval(-high, -low)})"
    elif diff >= 0:
        lead = f"A is higher by {diff:.{places}f} ({interval(low, high)})"
    else:
        lead = f"B is higher by {-diff:.{places}f} ({interval(-high, -low)})"
    excludes_zero = low > 0 or high < 0
    p_text = "" if math.isnan(p) else f"{label}{_p_words(p)}{', unadjusted' if unadjusted else ''}"
    if p_text and p < alpha:
        if excludes_zero:
            return f"{lead}; unlikely to be noise ({p_text}).{note}"
        return f"{lead}; borderline: {p_text}, but the interval includes 0.{note}"
    if excludes_zero and label and not flat:  # the interval is unadjusted; the p allows for the others
        return (f"{lead}, but this may be noise: the interval is this metric's alone, while the p-value "
                f"allows for every metric compared beside it ({p_text}).{note}")
    if excludes_zero:
        return f"{lead}, but this may be noise{f' ({p_text})' if p_text else ''}.{note}"
    words = (f"No detectable difference: A minus B is {diff:.{places}f}{unit}, {interval(low, high)}, "
             f"which includes 0{f' ({p_text})' if p_text else ''}")
    if math.isfinite(s.mdd):
        level = f" at the level it is tested at, {s.mdd_alpha:.2g}" if s.mdd_alpha < alpha * (1 - 1e-9) else ""
        if s.mdd >= 1.0:  # beyond the largest possible difference of scores in [0, 1]
            largest = "100 points" if s.binary else "the largest possible, 1"
            words += f"; with {cases} not even a change of {largest} could be detected reliably{level}"
        else:
            words += (f"; with {cases} a change smaller than {plain_digits(s.mdd * scale)}{unit} could not be "
                      f"detected reliably{level}")
    return f"{words}.{note}"
