"""Pass-or-fail intervals that hold their level at small n and with repeats (numpy and
``math`` only; tested against scipy).

* ``wilson_effective``        Wilson's interval of a rate observed on an effective number of cases
* ``rate_design``             the design effect and ICC of a pass rate's repeats (``RateDesign``)
* ``clustered_pass_rate``     a pass rate's interval clustered by case (Wilson at n / design effect)
* ``tango_interval``          Tango's score interval of a paired pass-rate difference
* ``difference_design``       the design effect of a paired difference's repeats
* ``paired_rate_interval``    Tango's interval, Rao-Scott adjusted when there are repeats

References: Wilson (1927); Kish (1965) for the design effect, deff = 1 + (m - 1) ICC;
Rao & Scott (1992), "A simple method for the analysis of clustered binary data",
Biometrics 48, 577-585 (divide the counts by the design effect, then use the method for
independent data); Tango (1998), "Equivalence test and confidence interval for the
difference in proportions for the paired-sample design", Statistics in Medicine 17,
891-908, as Fagerland, Lydersen & Laake (2014), Statistical Methods in Medical Research
23, recommend it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from graders.stats.intervals import _check_confidence, _z_two_sided, t_quantile


def wilson_effective(rate: float, n_eff: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of ``rate`` as if observed on ``n_eff`` independent cases
    (``n_eff`` need not be whole): ``wilson_interval(k, n)`` when rate = k / n_eff and
    n_eff = n. A rate of 0 has a lower end of exactly 0, a rate of 1 an upper end of 1;
    n_eff = 0 gives (0.0, 1.0)."""
    confidence = _check_confidence(confidence)
    p, n = float(rate), float(n_eff)
    if not 0.0 <= p <= 1.0 or not n >= 0.0 or not math.isfinite(n):
        raise ValueError(f"need a rate in [0, 1] and a finite n_eff >= 0, got {rate!r} and {n_eff!r}")
    if n == 0.0:
        return (0.0, 1.0)
    z2 = _z_two_sided(confidence) ** 2
    center = (p + z2 / (2 * n)) / (1 + z2 / n)
    delta = math.sqrt(z2) / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if p == 0.0 else max(0.0, center - delta)
    high = 1.0 if p == 1.0 else min(1.0, center + delta)
    return (low, high)


def _cases(clusters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row -> case number (0..G-1) and rows per case."""
    _, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    inverse = inverse.reshape(-1)
    return inverse, np.bincount(inverse)


@dataclass(frozen=True)
class RateDesign:
    """How repeats of a case shrink what a rate's rows say: ``cases`` (G), ``rows`` (n),
    ``design_effect`` (the variance of the rate over cases, as the ratio estimator's
    sum of (passes_g - rate * rows_g)**2 / n**2, over the binomial variance
    rate * (1 - rate) / n), ``icc`` (the intraclass correlation this implies,
    (design_effect - 1) / (m - 1) with m = sum of rows_g**2 / n, which makes
    design_effect = 1 + (m - 1) icc exact for a common correlation within cases; None
    when every row passes or every row fails). ``used``: the design effect the interval
    divides n by, at least 1 (repeats never count for more than independent cases); m,
    as if every case's repeats agreed, where nothing varies to measure it by (every row
    alike, or one case). ``divisor``: what n is divided by, ``used`` times
    (t_{G-1} / z)**2 at the interval's confidence, Korn & Graubard's (1998) allowance for a
    design effect estimated from G cases (the degrees of freedom of a cluster sample), 1
    for one case or where every case's repeats agree (then the rows are G case outcomes
    and no design effect is estimated)."""

    cases: int
    rows: int
    design_effect: float | None
    icc: float | None
    used: float
    divisor: float


def _design(cases: int, rows: int, deff: float | None, m: float, confidence: float,
            estimated: bool = True) -> RateDesign:
    used = m if deff is None else max(1.0, deff)
    allowance = 1.0
    if cases >= 2 and estimated:
        allowance = (t_quantile(0.5 + 0.5 * confidence, cases - 1) / _z_two_sided(confidence)) ** 2
    icc = None if deff is None or m <= 1 else (deff - 1) / (m - 1)
    return RateDesign(cases, rows, deff, icc, used, used * allowance)


def rate_design(values: np.ndarray, clusters: np.ndarray, confidence: float = 0.95) -> RateDesign:
    """``RateDesign`` of 0/1 ``values`` (one per row) grouped by ``clusters``."""
    y = np.asarray(values, dtype=float)
    inverse, sizes = _cases(clusters)
    n, g = len(y), len(sizes)
    m = float(sizes @ sizes) / n
    p = float(y.mean())
    if g < 2 or p in (0.0, 1.0):
        return _design(g, n, None, m, confidence)
    passes = np.bincount(inverse, weights=y, minlength=g)
    resid = passes - p * sizes
    # every case's repeats alike: the rows are exactly G case outcomes, nothing estimated
    alike = bool(np.all((passes == 0) | (passes == sizes)))
    return _design(g, n, float(resid @ resid) / (n * p * (1 - p)), m, confidence, estimated=not alike)


@dataclass(frozen=True)
class ClusteredRate:
    rate: float
    low: float
    high: float
    design: RateDesign
    method: str = "Wilson at n / design effect, with t on cases - 1 degrees of freedom (clustered by case)"


def clustered_pass_rate(passed: np.ndarray, clusters: np.ndarray, confidence: float = 0.95) -> ClusteredRate:
    """A pass rate over rows that repeat cases, with its interval clustered by case:
    Wilson's interval at the effective number of cases n / divisor (``RateDesign``: the
    design effect, the Rao-Scott way, with Korn & Graubard's degrees-of-freedom
    allowance where the design effect is estimated). 40 cases of 5 identical repeats are
    40 case outcomes: Wilson's interval over them, [0.375, 0.671] for 21 passing cases.
    ``passed``: 0/1 per row, at least one row."""
    y = np.asarray(passed, dtype=float)
    if y.ndim != 1 or not len(y):
        raise ValueError("passed must be a non-empty one-dimensional array")
    design = rate_design(y, clusters, confidence)
    rate = float(y.mean())
    low, high = wilson_effective(rate, len(y) / design.divisor, confidence)
    return ClusteredRate(rate, low, high, design)


def _tango_statistic(delta: float, b: float, c: float, n: float) -> float:
    """Tango's score statistic (b - c - n delta) / sqrt(n (2 q + delta (1 - delta))), q
    the constrained maximum-likelihood P(A fails, B passes) given the difference delta
    (the root of 2n q^2 + (-b - c + (2n - b + c) delta) q - c delta (1 - delta) = 0)."""
    qa = 2.0 * n
    qb = -b - c + (2.0 * n - b + c) * delta
    qc = -c * delta * (1.0 - delta)
    disc = math.sqrt(max(qb * qb - 4.0 * qa * qc, 0.0))
    if qb <= 0.0:
        q = (disc - qb) / (2.0 * qa)
    else:  # the same root without cancellation
        q = -2.0 * qc / (disc + qb) if disc + qb > 0.0 else 0.0
    var = n * (2.0 * q + delta * (1.0 - delta))
    num = b - c - n * delta
    if var <= 0.0:
        return 0.0 if num == 0.0 else math.copysign(math.inf, num)
    return num / math.sqrt(var)


def _root(f, lo: float, hi: float) -> float:
    """The crossing of a decreasing ``f`` in [lo, hi] (f(lo) >= 0 >= f(hi)), by bisection
    to the last bit."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if f(mid) >= 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def tango_interval(b: float, c: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Tango's asymptotic score interval of the paired difference of pass rates
    (b - c) / n: b pairs where A passes and B fails, c the reverse, n pairs in all.

    The differences delta whose score statistic (``_tango_statistic``) lies within
    +-z_{(1+confidence)/2}: it inverts the score test of "the difference is delta", which
    at delta = 0 is McNemar's asymptotic test. The counts need not be whole (the
    Rao-Scott adjustment divides them by a design effect). n = 0 gives (nan, nan)."""
    confidence = _check_confidence(confidence)
    b, c, n = float(b), float(c), float(n)
    if not (b >= 0 and c >= 0 and b + c <= n * (1 + 1e-12)) or not math.isfinite(n):
        raise ValueError(f"need 0 <= b, c and b + c <= n, got b = {b}, c = {c}, n = {n}")
    if n == 0:
        return (math.nan, math.nan)
    z = _z_two_sided(confidence)
    est = (b - c) / n
    low = -1.0
    if est > -1.0 and _tango_statistic(-1.0, b, c, n) > z:
        low = _root(lambda d: _tango_statistic(d, b, c, n) - z, -1.0, est)
    high = 1.0
    if est < 1.0 and _tango_statistic(1.0, b, c, n) < -z:
        high = _root(lambda d: _tango_statistic(d, b, c, n) + z, est, 1.0)
    return (min(low, est), max(high, est))


def difference_design(diffs: np.ndarray, clusters: np.ndarray, confidence: float = 0.95) -> RateDesign:
    """The design effect of the mean of paired differences over rows that repeat cases:
    the cluster (ratio-estimator) variance sum of (d_g - mean * rows_g)**2 over the
    row-level sum of (d_i - mean)**2; ``icc`` as in ``RateDesign``. ``used``: at least 1,
    and m where the rows have no spread to measure it by (every pair differs alike)."""
    d = np.asarray(diffs, dtype=float)
    inverse, sizes = _cases(clusters)
    n, g = len(d), len(sizes)
    m = float(sizes @ sizes) / n
    mean = float(d.mean())
    rows = float(((d - mean) ** 2).sum())
    if g < 2 or rows <= 1e-12 * n:
        return _design(g, n, None, m, confidence)
    resid = np.bincount(inverse, weights=d, minlength=g) - mean * sizes
    return _design(g, n, float(resid @ resid) / rows, m, confidence)


def paired_rate_interval(passed_a: np.ndarray, passed_b: np.ndarray, clusters: np.ndarray | None = None,
                         confidence: float = 0.95) -> tuple[float, float, RateDesign | None]:
    """The interval of pass rate A minus pass rate B over paired rows: Tango's score
    interval on the discordant counts; with ``clusters`` that repeat (cases with several
    rows), the Rao-Scott way, Tango's interval on b / D, c / D, n / D with D the
    ``difference_design``'s divisor (its design effect, with the degrees-of-freedom
    allowance). Returns (low, high, design or None)."""
    pa, pb = np.asarray(passed_a, dtype=float), np.asarray(passed_b, dtype=float)
    b = float(np.sum((pa == 1) & (pb == 0)))
    c = float(np.sum((pa == 0) & (pb == 1)))
    n = float(len(pa))
    design = None
    if clusters is not None and n:
        _, sizes = _cases(clusters)
        if len(sizes) < n:
            design = difference_design(pa - pb, clusters, confidence)
            b, c, n = b / design.divisor, c / design.divisor, n / design.divisor
    low, high = tango_interval(b, c, n, confidence)
    return low, high, design
