"""All of A versus B's statistics for one metric (``summarize_pair``) or many
(``summarize_pairs``, drawing the resamples once) -> ``PairedSummary``.

Every difference is A minus B, over the pairs where both sides have a score. Randomness:
the bootstrap draws from ``np.random.default_rng(seed)``; the sign flips from an
independent stream, ``SeedSequence(seed, spawn_key=(1,))``. Both depend only on (number
of cases, resamples, seed), so every metric over the same cases is resampled the same way,
and results are identical run to run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from graders.stats.bca import intervals_by
from graders.stats.binary import RateDesign, clustered_pass_rate, paired_rate_interval
from graders.stats.bootstrap import _bootstrap_means, _check_resamples, _large, _units
from graders.stats.intervals import (
    _check_confidence,
    mcnemar_mdd,
    min_detectable_difference,
    normal_quantile,
    wilson_interval,
)
from graders.stats.tests import P_FLOOR, FlipTest, _sign_flip_pvalues, mcnemar_exact

# The interval of a continuous grader's mean difference (``bca.METHODS``): the expanded
# percentile bootstrap, which held 95% best at 12 to 100 cases in bench/coverage_sim.py.
CONTINUOUS_INTERVAL = "expanded"


@dataclass(frozen=True)
class PairedSummary:
    """The SPEC §8 figures for one metric; differences are A minus B.

    ``n`` counts the pairs where both sides have a score (``dropped`` the others) and
    ``n_cases`` the units resampled: distinct case ids when ``clustered`` (repeats were
    resampled together), else ``n``. ``ci_low``/``ci_high``: the interval of
    ``mean_diff`` at ``confidence`` by ``ci_method`` (Tango's score interval for a
    pass-or-fail grader, Rao-Scott adjusted by ``design_effect`` with repeats; else the
    bootstrap, ``CONTINUOUS_INTERVAL``), stretched by rounding's last bit, where needed, to
    hold ``mean_diff``. ``mdd``: minimum detectable difference at this n (80% power,
    two-sided at ``mdd_alpha``, the level the metric is tested at: 0.05 over its Holm
    family's size), NaN when the differences have no spread to estimate it from (every
    pair differs alike or there are no discordant pairs). ``p_value`` tests "A and B are
    interchangeable" by ``p_method``; apply ``holm_adjust`` across metrics; random flips
    give ``p_flips`` (how many) and ``p_mc_error`` (the Monte Carlo standard error), and
    ``p_undecided`` the threshold the p could not be told from, if any. Pass-rate fields,
    ``b`` (A passes, B fails) and ``c`` (A fails, B passes) are None unless pass/fail was
    given; with repeats each side's ``pass_rate_*_design`` holds its design effect and
    ICC (the interval is then clustered by case). ``binary`` says the scores are the pass
    indicators (a pass-or-fail grader), so the differences are pass-rate differences.
    """

    n: int
    mean_a: float
    mean_b: float
    mean_diff: float
    ci_low: float
    ci_high: float
    wins: int
    losses: int
    ties: int
    sd_diff: float
    mdd: float
    clustered: bool
    resamples: int
    pass_rate_a: float | None = None
    pass_rate_a_ci: tuple[float, float] | None = None
    pass_rate_b: float | None = None
    pass_rate_b_ci: tuple[float, float] | None = None
    b: int | None = None
    c: int | None = None
    p_value: float = math.nan
    p_method: str = ""
    n_cases: int = 0
    binary: bool = False
    dropped: int = 0
    confidence: float = 0.95
    ci_method: str = ""
    design_effect: float | None = None
    pass_rate_a_design: RateDesign | None = None
    pass_rate_b_design: RateDesign | None = None
    mdd_alpha: float = 0.05
    p_flips: int = 0
    p_mc_error: float | None = None
    p_undecided: float | None = None


_ALPHA, _POWER = 0.05, 0.8


@dataclass
class _Metric:
    keep: np.ndarray  # rows used
    a: np.ndarray
    b: np.ndarray
    passed_a: np.ndarray | None
    passed_b: np.ndarray | None

    @property
    def binary(self) -> bool:
        """Pass-or-fail scores: each score is its pass indicator (1.0 pass, 0.0 fail)."""
        return (self.passed_a is not None and np.array_equal(self.a, self.passed_a)
                and np.array_equal(self.b, self.passed_b))

    def discordant(self) -> tuple[int, int]:
        """(b, c): A passes and B fails, A fails and B passes."""
        return (int(np.sum((self.passed_a == 1) & (self.passed_b == 0))),
                int(np.sum((self.passed_a == 0) & (self.passed_b == 1))))


def _floats(values: Any) -> np.ndarray:
    """Scores or pass/fail (True/False) as floats, missing (None or NaN) as NaN."""
    try:
        return np.asarray(values, dtype=float)
    except TypeError:  # None among the values
        return np.asarray([math.nan if v is None else v for v in values], dtype=float)


def _prepare(score_a: Any, score_b: Any, passed_a: Any, passed_b: Any) -> _Metric:
    a, b = _floats(score_a), _floats(score_b)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"score_a and score_b must be 1-D and the same length, got {a.shape} and {b.shape}")
    keep = ~(np.isnan(a) | np.isnan(b))
    if (passed_a is None) != (passed_b is None):
        raise ValueError("give pass/fail for both sides (passed_a and passed_b) or for neither")
    pa = pb = None
    if passed_a is not None:
        pa, pb = _floats(passed_a), _floats(passed_b)
        if pa.shape != a.shape or pb.shape != a.shape:
            raise ValueError("passed_a and passed_b must have one value per row, like the scores")
        keep &= ~(np.isnan(pa) | np.isnan(pb))
        pa, pb = (pa[keep] != 0).astype(float), (pb[keep] != 0).astype(float)
    if np.isinf(a[keep]).any() or np.isinf(b[keep]).any():
        raise ValueError("scores must be finite or NaN (missing)")
    return _Metric(keep, a[keep], b[keep], pa, pb)


def _cluster_se(sums: np.ndarray, sizes: np.ndarray, mean: float) -> float:
    """Cluster-robust standard error of the ratio mean sum(sums) / sum(sizes)."""
    g = len(sums)
    if g < 2:
        return math.inf
    resid = sums - mean * sizes
    return math.sqrt(g / (g - 1) * float(resid @ resid)) / float(sizes.sum())


def _summaries_for_rows(
    metrics: list[_Metric], clusters: Any, resamples: int, seed: int, confidence: float, total_rows: int,
    family_sizes: list[int], alpha: float,
) -> list[PairedSummary]:
    """Summaries for metrics that use the same rows: one set of draws for all of them."""
    keep = metrics[0].keep
    n = int(keep.sum())
    diffs = np.stack([m.a - m.b for m in metrics])
    sizes = inverse = None
    if clusters is not None and n:
        inverse, sizes = _units(np.asarray(clusters)[keep], n)
        if len(sizes) == n:
            inverse = sizes = None
    clustered = sizes is not None
    n_cases = len(sizes) if clustered else n
    if clustered:
        sums = np.stack([np.bincount(inverse, weights=d, minlength=n_cases) for d in diffs])
    else:
        sums = diffs
    # p-values: McNemar for pass-or-fail scores without repeats, else sign flips (shared).
    tests: list[FlipTest | None] = [None] * len(metrics)
    flip = []
    for j, m in enumerate(metrics):
        if n == 0:
            tests[j] = FlipTest(math.nan, "none (no pairs)")
        elif m.binary and not clustered:
            tests[j] = FlipTest(mcnemar_exact(*m.discordant()), "McNemar exact")
        else:
            flip.append(j)
    # Random flips go on near the levels Holm's procedure may compare a p-value with.
    levels = [sorted(alpha / k for k in range(1, max(1, size) + 1)) for size in family_sizes]
    # Intervals: Tango's score interval for pass-or-fail scores (Rao-Scott adjusted with
    # repeats), the bootstrap (``CONTINUOUS_INTERVAL``) for the others.
    resampled = [j for j, m in enumerate(metrics) if not m.binary]

    def intervals() -> tuple[np.ndarray, np.ndarray, list[str]]:
        lows, highs = np.full(len(metrics), math.nan), np.full(len(metrics), math.nan)
        how = [""] * len(metrics)
        if n_cases < 2 or not resampled:  # one case (or none) says nothing about spread
            return lows, highs, how
        means = _bootstrap_means(sums[resampled], sizes, resamples, seed)
        low, high, used = intervals_by(CONTINUOUS_INTERVAL, means, sums[resampled], sizes, confidence)
        lows[resampled], highs[resampled] = low, high
        for j, u in zip(resampled, used):
            how[j] = f"cluster {u} (whole cases resampled)" if clustered else u
        return lows, highs, how

    def flip_tests() -> list[FlipTest]:
        return _sign_flip_pvalues(sums[flip], resamples, seed, [levels[j] for j in flip]) if flip else []

    if flip and _large(n_cases, resamples):  # the flips run beside the bootstrap
        with ThreadPoolExecutor(max_workers=1) as pool:
            flipped = pool.submit(flip_tests)
            lows, highs, ci_how = intervals()
            flip_results = flipped.result()
    else:
        (lows, highs, ci_how), flip_results = intervals(), flip_tests()
    prefix = "cluster sign-flip" if clustered else "sign-flip"
    for j, found in zip(flip, flip_results):
        tests[j] = found._replace(method=f"{prefix}, {found.method}")
    for j, found in enumerate(tests):  # type: ignore[misc]
        if found.p < P_FLOOR:  # a tail past what a float holds: reported as its upper bound
            tests[j] = found._replace(p=P_FLOOR, method=f"{found.method}; p below {P_FLOOR:g}")

    out = []
    for j, m in enumerate(metrics):
        d = diffs[j]
        mean_diff = float(d.mean()) if n else math.nan
        sd = float(d.std(ddof=1)) if n >= 2 else math.nan
        extra: dict[str, Any] = {}
        if m.passed_a is not None:
            extra = _pass_rates(m, inverse if clustered else None, confidence)
        design = None
        if m.binary and n:
            lows[j], highs[j], design = paired_rate_interval(m.passed_a, m.passed_b, inverse if clustered else None,
                                                             confidence)
            ci_how[j] = ("Tango score, Rao-Scott adjusted for repeats (Rao & Scott 1992)" if design is not None
                         else "Tango score")
        test_alpha = alpha / max(1, family_sizes[j])
        if clustered:
            z = normal_quantile(1 - test_alpha / 2) + normal_quantile(_POWER)
            mdd = z * _cluster_se(sums[j], sizes, mean_diff)
        elif m.binary and n:
            mdd = mcnemar_mdd(extra["b"] / n + extra["c"] / n, n, alpha=test_alpha, power=_POWER)
        else:
            mdd = min_detectable_difference(sd if n >= 2 else 0.0, n, alpha=test_alpha, power=_POWER)
        if mdd == 0.0 or (n >= 2 and _no_spread(d)):  # no spread to estimate it from: unknown, not 0
            mdd = math.nan
        low, high = float(lows[j]), float(highs[j])
        if n and low <= high:  # the bootstrap means and d.mean() round differently: keep the estimate inside
            low, high = min(low, mean_diff), max(high, mean_diff)
        test = tests[j]
        out.append(PairedSummary(
            n=n,
            mean_a=float(m.a.mean()) if n else math.nan,
            mean_b=float(m.b.mean()) if n else math.nan,
            mean_diff=mean_diff,
            ci_low=low,
            ci_high=high,
            wins=int(np.sum(m.a > m.b)),
            losses=int(np.sum(m.a < m.b)),
            ties=int(np.sum(m.a == m.b)),
            sd_diff=sd,
            mdd=mdd,
            clustered=clustered,
            resamples=resamples,
            p_value=test.p,
            p_method=test.method,
            n_cases=n_cases,
            binary=m.binary,
            dropped=total_rows - n,
            confidence=confidence,
            ci_method=ci_how[j],
            design_effect=None if design is None else design.design_effect,
            mdd_alpha=test_alpha,
            p_flips=test.flips,
            p_mc_error=test.mc_error,
            p_undecided=test.undecided,
            **extra,
        ))
    return out


def _pass_rates(m: _Metric, inverse: np.ndarray | None, confidence: float) -> dict[str, Any]:
    """Each side's pass rate with its interval (clustered by case with repeats: Wilson at
    n / design effect), and McNemar's b and c."""
    n = len(m.passed_a)
    bb, cc = m.discordant()
    out: dict[str, Any] = dict(b=bb, c=cc)
    for side, passed in (("a", m.passed_a), ("b", m.passed_b)):
        k = int(passed.sum())
        out[f"pass_rate_{side}"] = k / n if n else math.nan
        if inverse is None or not n:
            out[f"pass_rate_{side}_ci"] = wilson_interval(k, n, confidence)
        else:
            rate = clustered_pass_rate(passed, inverse, confidence)
            out[f"pass_rate_{side}_ci"] = (rate.low, rate.high)
            out[f"pass_rate_{side}_design"] = rate.design
    return out


def summarize_pairs(
    metrics: Mapping[str, Mapping[str, Any]],
    *,
    clusters: np.ndarray | None = None,
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    family_sizes: Mapping[str, int] | None = None,
    alpha: float = 0.05,
) -> dict[str, PairedSummary]:
    """``summarize_pair`` for several metrics over the same rows, drawing resamples once.

    ``metrics`` maps a name to summarize_pair's arrays, ``{"score_a": ..., "score_b": ...,
    "passed_a": ..., "passed_b": ...}`` (pass/fail optional). ``family_sizes``: each
    metric's Holm family size m (missing: 1), so that its minimum detectable difference is
    at alpha / m and its random flips go on near alpha / m, ..., alpha / 1 (the levels
    Holm's procedure may compare it with). Each result equals the separate
    ``summarize_pair`` call with its family size: metrics that keep the same rows share
    one set of bootstrap and sign-flip draws, which is what separate calls with one seed draw.
    """
    resamples, confidence = _check_resamples(resamples), _check_confidence(confidence)
    prepared: dict[str, _Metric] = {}
    rows = None
    for name, arrays in metrics.items():
        unknown = set(arrays) - {"score_a", "score_b", "passed_a", "passed_b"}
        if unknown:
            raise ValueError(f"unknown arrays for {name!r}: {sorted(unknown)}")
        m = _prepare(arrays["score_a"], arrays["score_b"], arrays.get("passed_a"), arrays.get("passed_b"))
        if rows is not None and len(m.keep) != rows:
            raise ValueError(f"every metric must have the same rows: {name!r} has {len(m.keep)}, not {rows}")
        rows = len(m.keep)
        prepared[name] = m
    if clusters is not None and rows is not None and np.shape(clusters) != (rows,):
        raise ValueError(f"clusters must hold one case id per row: {rows} rows, got shape {np.shape(clusters)}")
    groups: dict[bytes, list[str]] = {}
    for name, m in prepared.items():
        groups.setdefault(np.packbits(m.keep).tobytes(), []).append(name)
    out: dict[str, PairedSummary] = {}
    for names in groups.values():
        sizes = [int((family_sizes or {}).get(k, 1)) for k in names]
        found = _summaries_for_rows([prepared[k] for k in names], clusters, resamples, seed, confidence, rows,
                                    sizes, _check_confidence(alpha, "alpha"))
        out.update(zip(names, found))
    return {name: out[name] for name in prepared}


def summarize_pair(
    score_a: np.ndarray,
    score_b: np.ndarray,
    *,
    passed_a: np.ndarray | None = None,
    passed_b: np.ndarray | None = None,
    clusters: np.ndarray | None = None,
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    family_size: int = 1,
    alpha: float = 0.05,
) -> PairedSummary:
    """Every SPEC §8 figure for one metric, A minus B, as a ``PairedSummary``.

    Pairs with a missing score (NaN or None) or a missing pass/fail on either side are
    dropped and counted in ``dropped``. Wins: A higher; losses: B higher; ties: exactly equal.
    Interval: for pass-or-fail scores Tango's score interval (``binary.tango_interval``;
    with repeats Rao-Scott adjusted, ``binary.paired_rate_interval``), else the bootstrap
    of ``CONTINUOUS_INTERVAL`` (``bca.bootstrap_interval``, whole cases resampled when
    ``clusters`` repeat). p-value: exact McNemar on b and c when pass/fail is given and
    each score is its pass indicator (pass-or-fail graders, scored 1.0/0.0) without
    repeats; otherwise ``sign_flip_test`` on the score differences (whole cases flipped
    with repeats), its random flips extended near alpha / family_size, ..., alpha. mdd:
    at alpha / family_size, ``mcnemar_mdd`` in the McNemar case, the cluster-robust
    standard error times (z_{1-level/2} + z_0.8) with repeats, else
    ``min_detectable_difference``. Pass rates get Wilson intervals; with repeats at the
    effective number of cases n / design effect (``binary.clustered_pass_rate``).
    """
    arrays = {"score_a": score_a, "score_b": score_b, "passed_a": passed_a, "passed_b": passed_b}
    return summarize_pairs({"metric": arrays}, clusters=clusters, resamples=resamples, seed=seed,
                           confidence=confidence, family_sizes={"metric": family_size}, alpha=alpha)["metric"]


# ---------------------------------------------------------------------------------------
# Words for the dashboard


def _no_spread(d: np.ndarray) -> bool:
    """Every difference the same, up to rounding (0.9 - 0.7 and 0.7 - 0.5 differ by 1 ulp)."""
    return float(np.ptp(d)) <= 1e-9 * max(1.0, float(np.abs(d).max()))

