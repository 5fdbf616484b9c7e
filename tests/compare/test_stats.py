"""graders.stats: every figure of the A-versus-B comparison (SPEC §8).

References: hand arithmetic (in the comments), exact rational arithmetic (fractions),
scipy (a test dependency only), plain Python loops over the very same random draws, and
simulations with a known truth.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from graders import stats
from graders.compare.comparison import compare_file
from graders.compare.words import verdict_words
from graders.config import RunConfig
from graders.readers.files import read_results
from graders.stats import (
    PairedSummary,
    holm_adjust,
    mcnemar_exact,
    mcnemar_mdd,
    min_detectable_difference,
    normal_quantile,
    paired_bootstrap,
    sign_flip_test,
    summarize_pair,
    summarize_pairs,
    wilson_interval,
)
from graders.stats import bootstrap as stats_bootstrap
from graders.stats import tests as stats_tests

ROOT = Path(__file__).resolve().parents[2]
Z975 = 1.959963984540054  # Phi^-1(0.975)
Z80 = 0.8416212335729143  # Phi^-1(0.8)


def same(x, y) -> bool:
    """Bitwise-equal figures, NaN included (repr of a float round-trips exactly)."""
    return repr(x) == repr(y)


# ---------------------------------------------------------------------------------------
# normal_quantile


@pytest.mark.parametrize(
    "p, expected",
    [
        (0.5, 0.0),
        (0.975, Z975),
        (0.025, -Z975),
        (0.8, Z80),
        (0.995, 2.5758293035489004),
        (0.8413447460685429, 1.0),  # Phi(1)
        (1e-300, -37.0470962993612),  # the third AS 241 branch (r > 5)
    ],
)
def test_normal_quantile_known_values(p, expected):
    assert normal_quantile(p) == pytest.approx(expected, rel=1e-14, abs=1e-15)


def test_normal_quantile_matches_scipy_over_a_grid_with_tails():
    grid = np.concatenate([
        np.logspace(-300, -1, 400),
        np.linspace(0.0005, 0.9995, 1999),
        1 - np.logspace(-12, -1, 200),
        [1e-12, 0.075, 0.925, 0.5 - 1e-9, 0.5 + 1e-9],  # 0.075 / 0.925: the 0.425 split
    ])
    ours = np.array([normal_quantile(p) for p in grid])
    ref = scipy.stats.norm.ppf(grid)
    assert np.all(np.abs(ours - ref) <= 1e-12 * np.maximum(1.0, np.abs(ref)))


def test_normal_quantile_ends_and_bad_input():
    assert normal_quantile(0.0) == -math.inf
    assert normal_quantile(1.0) == math.inf
    for bad in (-0.1, 1.1, math.nan):
        with pytest.raises(ValueError, match="p must be in"):
            normal_quantile(bad)


@given(st.floats(min_value=1e-300, max_value=1 - 1e-16), st.floats(min_value=1e-300, max_value=1 - 1e-16))
def test_normal_quantile_is_monotone_and_antisymmetric(p, q):
    if p < q:
        assert normal_quantile(p) <= normal_quantile(q)
    if p in (0.25, 0.125, 0.0625):  # 1 - p exact
        assert normal_quantile(p) == -normal_quantile(1 - p)


# ---------------------------------------------------------------------------------------
# wilson_interval


def test_wilson_hand_computed():
    # k = 3, n = 10, z^2 = 1.9599639845400536^2 = 3.8414588206941236
    # center = (3 + z^2/2) / (10 + z^2) = 4.9207294103470618 / 13.841458820694124 = 0.3555065599725779
    # half   = z / (10 + z^2) * sqrt(3*7/10 + z^2/4) = 0.14160... * 1.7494... = 0.2477152925662768
    low, high = wilson_interval(3, 10)
    assert low == pytest.approx(0.3555065599725779 - 0.2477152925662768, rel=1e-14)
    assert high == pytest.approx(0.3555065599725779 + 0.2477152925662768, rel=1e-14)
    # k = 0: (0, z^2 / (n + z^2)) = (0, 3.84146 / 13.84146); k = n: (n / (n + z^2), 1)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(3.8414588206941236 / 13.841458820694124, rel=1e-15))
    assert wilson_interval(10, 10) == (pytest.approx(10 / 13.841458820694124, rel=1e-15), 1.0)


def _wilson_textbook(k, n, confidence):
    # Wilson (1927) in its usual form: (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
    z = scipy.stats.norm.ppf(0.5 + confidence / 2)
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


CASES_KN = [(k, n) for n in (1, 2, 3, 7, 10, 25, 100) for k in range(0, n + 1, max(1, n // 7))] + [
    (0, 1_000_000), (1, 1_000_000), (500_000, 1_000_000), (999_999, 1_000_000), (37, 41),
]


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99, 0.999])
def test_wilson_matches_scipy_and_the_textbook_formula(confidence):
    for k, n in CASES_KN:
        ours = wilson_interval(k, n, confidence)
        ref = scipy.stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
        assert ours == pytest.approx((ref.low, ref.high), rel=1e-12, abs=1e-14), (k, n)
        textbook = _wilson_textbook(k, n, confidence)
        assert ours == pytest.approx(textbook, rel=1e-10, abs=1e-12), (k, n)


def test_wilson_no_cases_and_bad_input():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="k must be <= n"):
        wilson_interval(3, 2)
    with pytest.raises(ValueError, match="whole number"):
        wilson_interval(1.5, 3)
    with pytest.raises(ValueError, match=">= 0"):
        wilson_interval(-1, 3)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        wilson_interval(1, 3, confidence=1.0)
    assert wilson_interval(np.int64(3), np.int64(10)) == wilson_interval(3, 10)


# ---------------------------------------------------------------------------------------
# mcnemar_exact


@pytest.mark.parametrize(
    "b, c, expected",
    [
        # n = 13, P(X <= 3) = (C(13,0)+C(13,1)+C(13,2)+C(13,3)) / 2^13 = (1+13+78+286)/8192 = 378/8192
        (3, 10, 2 * 378 / 8192),
        (10, 3, 2 * 378 / 8192),
        (0, 5, 2 / 32),  # P(X = 0) = 1/32, doubled
        (1, 7, 2 * 9 / 256),  # (1 + 8) / 2^8
        (3, 1, 2 * 5 / 16),  # n = 4: (1 + 4) / 16 = 0.3125, doubled = 0.625
        (0, 0, 1.0),  # no discordant pairs
        (5, 5, 1.0),
        (5, 6, 1.0),  # 2 P(X <= 5) with n = 11 is exactly 1
        (0, 1, 1.0),
    ],
)
def test_mcnemar_hand_computed(b, c, expected):
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-14)


def _mcnemar_fraction(b, c):
    n, m = b + c, min(b, c)
    return min(Fraction(1), Fraction(2 * sum(math.comb(n, i) for i in range(m + 1)), 2**n))


def test_mcnemar_equals_exact_rational_arithmetic():
    for n in range(0, 121):
        for b in range(0, n + 1):
            exact = float(_mcnemar_fraction(b, n - b))
            assert mcnemar_exact(b, n - b) == pytest.approx(exact, rel=1e-13, abs=0), (b, n - b)


LARGE_BC = [
    (0, 200_000), (1, 199_999), (100_000, 100_000), (99_999, 100_001), (99_900, 100_100),
    (99_800, 100_200), (99_500, 100_500), (99_000, 101_000), (95_000, 105_000),
    (50_000, 150_000), (12_345, 13_000), (1_000, 1_200), (5_000, 5_190), (60_000, 60_650),
]


def test_mcnemar_matches_scipy_binomtest_small_and_large():
    rng = np.random.default_rng(4)
    grid = [(b, c) for b in range(41) for c in range(41)] + LARGE_BC
    for total in rng.integers(50, 200_001, size=40):
        b = int(rng.binomial(total, 0.49))
        grid.append((b, int(total) - b))
    for b, c in grid:
        ours = mcnemar_exact(b, c)
        ref = scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue if b + c else 1.0
        assert abs(ours - ref) <= 1e-12, (b, c, ours, ref)
        if ref > 1e-290:
            assert ours == pytest.approx(ref, rel=1e-9), (b, c)
        assert mcnemar_exact(c, b) == ours


def test_mcnemar_large_counts_are_quick():
    import time

    start = time.perf_counter()
    for b, c in LARGE_BC:
        mcnemar_exact(b, c)
    assert time.perf_counter() - start < 2.0


def test_mcnemar_bad_input():
    with pytest.raises(ValueError, match="b must be >= 0"):
        mcnemar_exact(-1, 3)
    with pytest.raises(ValueError, match="whole number"):
        mcnemar_exact(2.0, 3)


def test_stirling_error_table_and_series():
    # log(n!) - log(sqrt(2 pi n) (n/e)^n) against lgamma, where lgamma still has the digits
    for n in list(range(1, 16)) + [16, 20, 35, 36, 50, 80, 81, 200, 500, 501, 1000]:
        ref = math.lgamma(n + 1) - (n + 0.5) * math.log(n) + n - 0.5 * math.log(2 * math.pi)
        assert stats_tests._stirlerr(np.array([n]))[0] == pytest.approx(ref, rel=1e-9, abs=1e-12), n


# ---------------------------------------------------------------------------------------
# The draws


def test_resample_indices_do_not_depend_on_chunking(monkeypatch):
    whole = np.random.default_rng(7).integers(0, 13, size=(50, 13))
    monkeypatch.setattr(stats_bootstrap, "_CHUNK", 40)  # 3 rows a chunk
    chunks = list(stats.resample_indices(13, 50, 7))
    assert len(chunks) > 10
    assert [start for start, _ in chunks] == list(range(0, 50, 3))
    assert np.array_equal(np.vstack([rows for _, rows in chunks]), whole)


def test_sign_flip_bits_do_not_depend_on_chunking(monkeypatch):
    words = np.random.PCG64(np.random.SeedSequence(7, spawn_key=(1,))).random_raw(50 * 2).reshape(50, 2)
    # row r: bit i of the little-endian words, i < 70
    whole = np.array([[(int(w[i // 64]) >> (i % 64)) & 1 for i in range(70)] for w in words], dtype=np.uint8)
    monkeypatch.setattr(stats_bootstrap, "_CHUNK", 300)  # 2 rows a chunk
    chunks = list(stats.sign_flip_bits(70, 50, 7))
    assert len(chunks) == 25
    assert np.array_equal(np.vstack([rows for _, rows in chunks]), whole)


# ---------------------------------------------------------------------------------------
# paired_bootstrap


def _units(diffs, clusters):
    """Per-case lists of row differences, cases in order of first appearance."""
    if clusters is None:
        return [[float(d)] for d in diffs]
    cases: dict = {}
    for case, d in zip(clusters, diffs):
        cases.setdefault(case, []).append(float(d))
    return list(cases.values())


def _type7(sorted_values, q):
    h = (len(sorted_values) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def loop_bootstrap(diffs, clusters, resamples, seed, confidence=0.95):
    """The bootstrap as a plain loop over the same draws."""
    units = _units(diffs, clusters)
    means = []
    for _, rows in stats.resample_indices(len(units), resamples, seed):
        for row in rows.tolist():
            total = sum(sum(units[i]) for i in row)
            size = sum(len(units[i]) for i in row)
            means.append(total / size)
    means.sort()
    tail = (1 - confidence) / 2
    return _type7(means, tail), _type7(means, 1 - tail)


def expanded_confidence(units, confidence=0.95):
    """The confidence whose percentile interval is the expanded one for ``units`` cases
    (Hesterberg 2015): levels Phi(+-sqrt(G / (G - 1)) t_{(1 - confidence) / 2, G - 1}), by scipy."""
    z = math.sqrt(units / (units - 1)) * scipy.stats.t.ppf((1 - confidence) / 2, units - 1)
    return 1 - 2 * scipy.stats.norm.cdf(z)


def test_bootstrap_hand_computed():
    # diffs (1, 0, 0); with draws (0,0,1), (1,2,2), (0,1,2), (0,0,0), (2,2,1) the means are
    # 2/3, 0, 1/3, 1, 0; sorted 0, 0, 1/3, 2/3, 1. Linear quantiles over 5 values sit at
    # 4q: 2.5% at 0.1 -> 0 + 0.1 (0 - 0) = 0; 97.5% at 3.9 -> 2/3 + 0.9 (1 - 2/3) = 0.9666...
    draws = np.array([[0, 0, 1], [1, 2, 2], [0, 1, 2], [0, 0, 0], [2, 2, 1]])
    means = np.array([1.0, 0.0, 0.0])[draws].mean(axis=1)
    low, high = stats_bootstrap._percentile_interval(means[:, None], 0.95)
    assert (low[0], high[0]) == (0.0, pytest.approx(2 / 3 + 0.9 / 3, rel=1e-15))
    # the seeded function: its draws replayed by hand give the same interval
    (_, rows), = list(stats.resample_indices(3, 5, 11))
    by_hand = np.sort(np.array([1.0, 0.0, 0.0])[rows].mean(axis=1))
    expected = (by_hand[0] + 0.1 * (by_hand[1] - by_hand[0]), by_hand[3] + 0.9 * (by_hand[4] - by_hand[3]))
    assert paired_bootstrap([1.0, 0.0, 0.0], resamples=5, seed=11) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 12345])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_bootstrap_equals_a_plain_loop_over_the_same_draws(seed, confidence):
    rng = np.random.default_rng(seed)
    diffs = rng.normal(0.05, 0.3, size=57)
    ours = paired_bootstrap(diffs, resamples=300, seed=seed, confidence=confidence)
    assert ours == pytest.approx(loop_bootstrap(diffs, None, 300, seed, confidence), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("seed", [0, 3])
def test_cluster_bootstrap_equals_a_plain_loop_over_the_same_draws(seed):
    rng = np.random.default_rng(seed)
    clusters = rng.choice([f"case-{i}" for i in range(23)], size=80)  # uneven repeats
    diffs = rng.normal(0.0, 1.0, size=80).round(3)
    ours = paired_bootstrap(diffs, clusters=clusters, resamples=300, seed=seed)
    assert ours == pytest.approx(loop_bootstrap(diffs, list(clusters), 300, seed), rel=1e-12, abs=1e-14)


def test_bootstrap_agrees_with_scipy_within_monte_carlo_error():
    # Different random draws, same method: the endpoints' Monte Carlo error at 4,000
    # resamples is about 1% of the interval's width each.
    rng = np.random.default_rng(40)
    a, b = rng.beta(2, 3, 500), rng.beta(2, 2.6, 500)
    ours = paired_bootstrap(a - b, resamples=4_000, seed=1)
    ref = scipy.stats.bootstrap(
        (a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis), paired=True, n_resamples=4_000,
        method="percentile", random_state=np.random.default_rng(2),
    ).confidence_interval
    width = ref.high - ref.low
    assert abs(ours[0] - ref.low) < 0.05 * width and abs(ours[1] - ref.high) < 0.05 * width


def test_bootstrap_is_deterministic_and_threading_does_not_change_it(monkeypatch):
    diffs = np.random.default_rng(5).normal(size=2_000)
    first = paired_bootstrap(diffs, resamples=400, seed=9)
    assert paired_bootstrap(diffs, resamples=400, seed=9) == first
    assert paired_bootstrap(diffs, resamples=400, seed=10) != first
    for module in (stats_bootstrap, stats_tests, stats.paired):  # each imported the name
        monkeypatch.setattr(module, "_large", lambda n, r: True)
    monkeypatch.setattr(stats_bootstrap, "_CHUNK", 5_000)  # many chunks through the worker thread
    assert paired_bootstrap(diffs, resamples=400, seed=9) == first


def test_bootstrap_without_repeats_is_the_plain_bootstrap():
    diffs = np.random.default_rng(2).normal(size=40)
    ids = np.array([f"id{i}" for i in range(40)])
    assert paired_bootstrap(diffs, clusters=ids, seed=4) == paired_bootstrap(diffs, seed=4)


def test_bootstrap_edges_and_bad_input():
    assert all(math.isnan(x) for x in paired_bootstrap([]))
    assert all(math.isnan(x) for x in paired_bootstrap([0.3]))  # one case: no spread
    assert all(math.isnan(x) for x in paired_bootstrap([0.3, 0.1], clusters=["a", "a"]))
    assert paired_bootstrap([0.25] * 10) == (0.25, 0.25)
    with pytest.raises(ValueError, match="finite"):
        paired_bootstrap([0.1, math.nan])
    with pytest.raises(ValueError, match="one-dimensional"):
        paired_bootstrap([[0.1, 0.2]])
    with pytest.raises(ValueError, match="one case id per row"):
        paired_bootstrap([0.1, 0.2], clusters=["a"])
    with pytest.raises(ValueError, match="resamples must be >= 1"):
        paired_bootstrap([0.1, 0.2], resamples=0)


def test_bootstrap_interval_covers_a_known_difference():
    # 300 seeded experiments, 60 cases each, skewed differences with true mean 0.2.
    rng = np.random.default_rng(2024)
    covered = 0
    for trial in range(300):
        diffs = rng.exponential(1.0, size=60) - 1.0 + 0.2
        low, high = paired_bootstrap(diffs, resamples=1_000, seed=trial)
        covered += low <= 0.2 <= high
    assert 0.90 <= covered / 300 <= 0.99


def _repeated_cases(rng, cases=30, repeats=4, mean=0.1):
    case_effect = rng.normal(mean, 1.0, size=cases)  # repeats of one case move together
    diffs = np.repeat(case_effect, repeats) + rng.normal(0.0, 0.3, size=cases * repeats)
    return diffs, np.repeat(np.arange(cases), repeats)


def test_cluster_bootstrap_is_wider_when_repeats_are_correlated():
    diffs, ids = _repeated_cases(np.random.default_rng(8))
    naive = paired_bootstrap(diffs, seed=1)
    cluster = paired_bootstrap(diffs, clusters=ids, seed=1)
    assert cluster[1] - cluster[0] > 1.5 * (naive[1] - naive[0])


def test_cluster_bootstrap_covers_where_the_naive_one_does_not():
    rng = np.random.default_rng(99)
    naive = cluster = 0
    for trial in range(200):
        diffs, ids = _repeated_cases(rng)
        lo, hi = paired_bootstrap(diffs, resamples=500, seed=trial)
        naive += lo <= 0.1 <= hi
        lo, hi = paired_bootstrap(diffs, clusters=ids, resamples=500, seed=trial)
        cluster += lo <= 0.1 <= hi
    assert 0.88 <= cluster / 200 <= 0.99
    assert naive / 200 < 0.80


# ---------------------------------------------------------------------------------------
# sign_flip_test


@pytest.mark.parametrize(
    "diffs, expected",
    [
        # T = 1+2+3 = 6; the 8 sign patterns give +-6, +-4, +-2, 0, 0: |T*| >= 6 twice -> 2/8
        ([1.0, 2.0, 3.0], 0.25),
        # T = 1-1+2 = 2; +-1 +-1 +-2 gives 4, 2, 2, 0, 0, -2, -2, -4: six of 8 reach |2|
        ([1.0, -1.0, 2.0], 0.75),
        ([0.0, 2.0, 0.0], 1.0),  # one nonzero case: both signs are as extreme
        ([0.0, 0.0], 1.0),
        ([0.5] * 10, 2 / 1024),  # only all-plus and all-minus reach |5|
    ],
)
def test_sign_flip_exact_hand_computed(diffs, expected):
    assert sign_flip_test(diffs) == pytest.approx(expected, rel=1e-15)


def loop_sign_flip(diffs, clusters, resamples, seed):
    sums = [sum(u) for u in _units(diffs, clusters)]
    observed, scale = abs(sum(sums)), sum(abs(s) for s in sums)
    hits = 0
    for _, rows in stats.sign_flip_bits(len(sums), resamples, seed):
        for row in rows.tolist():
            flipped = sum(s if keep else -s for s, keep in zip(sums, row))
            hits += abs(flipped) >= observed - 1e-9 * scale
    return (1 + hits) / (1 + resamples)


@pytest.mark.parametrize("shift", [0.0, 0.1, 0.4])
def test_sign_flip_monte_carlo_equals_a_plain_loop(shift):
    rng = np.random.default_rng(17)
    diffs = rng.normal(shift, 1.0, size=45)
    assert sign_flip_test(diffs, resamples=500, seed=3) == loop_sign_flip(diffs, None, 500, 3)
    clusters = np.arange(45) // 2  # 23 cases: past the exact enumeration
    assert sign_flip_test(diffs, clusters=clusters, resamples=500, seed=3) == pytest.approx(
        loop_sign_flip(diffs, list(clusters), 500, 3)
    )
    assert sign_flip_test(diffs[:20], clusters=np.arange(20) // 2, seed=1) == sign_flip_test(
        diffs[:20].reshape(10, 2).sum(axis=1), seed=1  # 10 cases: exact either way
    )


def test_sign_flip_monte_carlo_never_gives_zero():
    """100 cases all one way (differences of 0.5, not whole numbers: drawn at random): no
    random flip is as extreme, and 999 flips can show no p below 1/1000; Hoeffding's bound,
    2 exp(-50), is lower, and never below the exact 2 / 2**100."""
    p = sign_flip_test(np.full(100, 0.5), resamples=999)
    assert p == pytest.approx(2 * math.exp(-50), rel=1e-12) and 2 / 2**100 <= p < 1 / 1000
    assert sign_flip_test(np.full(100, 0.25), resamples=999, clusters=np.arange(100) // 2) == pytest.approx(
        2 * math.exp(-25), rel=1e-12)  # 50 cases of sum 0.5: t = 25, sum of squares 12.5
    # Whole-number differences (a pass-or-fail grader's) are exact however many: 2 / 2**100,
    # and with two repeats per case 2 / 2**50.
    assert sign_flip_test(np.full(100, 1.0), resamples=999) == pytest.approx(2 / 2**100, rel=1e-12)
    assert sign_flip_test(np.full(100, 1.0), resamples=999, clusters=np.arange(100) // 2) == pytest.approx(
        2 / 2**50, rel=1e-12)


def enumerated_sign_flip(sums: list[int]) -> float:
    """The two-sided sign-flip p by listing every sign pattern (the definition)."""
    s = [v for v in sums if v]
    hits = sum(abs(sum(e * v for e, v in zip(signs, s))) >= abs(sum(s))
               for signs in itertools.product((1, -1), repeat=len(s)))
    return hits / 2 ** len(s)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=1, max_size=14))
def test_whole_number_sign_flip_by_convolution_is_the_enumeration(sums):
    """Past 16 nonzero cases the convolution is the only exact route for whole-number sums;
    here, where both run, it is the enumeration of every sign pattern."""
    from graders.stats.tests import _sign_flip_exact_whole

    assert _sign_flip_exact_whole(np.array(sums, dtype=float)) == pytest.approx(enumerated_sign_flip(sums), rel=1e-12)


@pytest.mark.parametrize("b, c", [(1, 0), (5, 20), (100, 150), (900, 1000), (30, 0)])
def test_whole_number_sign_flip_without_repeats_is_mcnemar(b, c):
    p = sign_flip_test(np.array([1.0] * b + [-1.0] * c), resamples=99)
    assert p == pytest.approx(mcnemar_exact(b, c), rel=1e-9)


def test_pass_or_fail_with_repeats_is_exact_past_sixteen_cases():
    """The long sample's exact match: 27 of 40 cases differ; the p is exact (whole-number
    counts over the 2**27 sign patterns give 0.0113834...), not 2,000 random flips' estimate."""
    config = RunConfig.from_dict({"graders": [{"name": "exact"}]})
    c = compare_file(read_results(ROOT / "sample_data" / "returns_ab_long.jsonl"), config, resamples=2000)
    s = c.metrics["exact"].stats
    assert s.clustered and s.p_method == "cluster sign-flip, exact"
    assert s.p_value == pytest.approx(0.011383429169654846, rel=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 3).map(float), st.floats(-1, 1, allow_nan=False)), min_size=1, max_size=16))
def test_sign_flip_bound_is_never_below_the_exact_p(sums):
    """Hoeffding's bound stands in for random flips only because it is never below the
    exact p-value of all 2**m sign patterns."""
    s = np.array(sums)
    exact = sign_flip_test(s)  # at most 16 nonzero cases: enumerated exactly
    assert stats.sign_flip_bound(s) >= exact - 1e-12


def test_few_resamples_do_not_turn_a_large_change_into_noise():
    """Six metrics, a large drop over 300 cases of 2 repeats, 100 resamples: random flips
    show no p below 1/101, which Holm's adjustment over six would lift past 0.05; the
    bound shows the change for what it is (scores of 0.95 make the case sums fractional:
    whole-number sums are exact instead, as the last lines check)."""
    rng = np.random.default_rng(5)
    a = (rng.random(600) < 0.3).astype(float)
    b = (rng.random(600) < 0.9) * 0.95
    clusters = np.arange(600) // 2
    metrics = {f"m{k}": dict(score_a=a, score_b=b) for k in range(6)}
    got = summarize_pairs(metrics, clusters=clusters, resamples=100, seed=0)
    adjusted = holm_adjust([s.p_value for s in got.values()])
    assert all(p < 1e-20 for p in adjusted)
    assert all(s.p_method.startswith("cluster sign-flip, Hoeffding's bound") for s in got.values())
    whole = summarize_pairs({"m": dict(score_a=a, score_b=(b > 0).astype(float))}, clusters=clusters,
                            resamples=100, seed=0)["m"]
    assert whole.p_method == "cluster sign-flip, exact" and whole.p_value < 1e-20
    assert verdict_words(got["m0"], adjusted[0]).endswith("unlikely to be noise (Holm p < 0.001). "
                                                          "Each case's repeats were resampled together (300 cases, 600 rows).")


def test_a_p_value_past_what_a_float_holds_is_reported_as_its_bound():
    """McNemar on 60,000 against 40,000 discordant pairs: about 1e-875, which underflows to
    0; no test gives 0, so the summary reports the bound 1e-300 and says so."""
    a = np.array([1.0] * 60000 + [0.0] * 40000)
    s = summarize_pair(a, 1 - a, passed_a=a, passed_b=1 - a)
    assert mcnemar_exact(60000, 40000) == 0.0  # the tail itself, as scipy's binomtest gives it
    assert s.p_value == stats.P_FLOOR == 1e-300 and s.p_method == "McNemar exact; p below 1e-300"


@pytest.mark.parametrize("b, c", [(3, 10), (0, 5), (7, 7), (2, 9), (1, 15)])
def test_sign_flip_exact_is_mcnemar_on_pass_fail(b, c):
    diffs = [1.0] * b + [-1.0] * c + [0.0] * 20  # ties carry no sign
    assert sign_flip_test(diffs) == pytest.approx(mcnemar_exact(b, c), rel=1e-13)


def test_sign_flip_holds_its_level_under_the_null():
    rng = np.random.default_rng(31)
    pvalues = [sign_flip_test(rng.standard_t(3, size=40), resamples=400, seed=i) for i in range(300)]
    assert 0.02 <= np.mean(np.array(pvalues) < 0.05) <= 0.09


# ---------------------------------------------------------------------------------------
# holm_adjust


def test_holm_hand_computed():
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> max(0.06, 0.04)
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02], rel=1e-15)
    # None and NaN pass through and do not count: m = 2 -> 0.02 x 2 = 0.04, 0.04 x 1 -> 0.04
    out = holm_adjust([0.02, None, math.nan, 0.04])
    assert out[0] == pytest.approx(0.04) and out[1] is None and math.isnan(out[2]) and out[3] == pytest.approx(0.04)
    assert holm_adjust([0.5, 0.6]) == [1.0, 1.0]  # capped
    assert holm_adjust([0.2, 0.2]) == [0.4, 0.4]  # ties adjust alike
    assert holm_adjust([]) == []
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        holm_adjust([0.2, 1.5])


def _holm_rejects(pvalues, alpha):
    """Holm's step-down procedure run directly: reject while p_(i) <= alpha / (m - i)."""
    usable = sorted((p, i) for i, p in enumerate(pvalues) if p is not None and not math.isnan(p))
    m, rejected = len(usable), set()
    for rank, (p, i) in enumerate(usable):
        if (m - rank) * p > alpha:
            break
        rejected.add(i)
    return rejected


pvalue_lists = st.lists(
    st.one_of(st.floats(min_value=0.0, max_value=1.0), st.none(), st.just(math.nan)), max_size=12
)


@given(pvalue_lists, st.floats(min_value=0.0, max_value=1.0, exclude_max=True))  # at alpha = 1 the cap at 1 differs
@settings(max_examples=300)
def test_holm_adjusted_pvalues_reproduce_the_step_down_procedure(pvalues, alpha):
    adjusted = holm_adjust(pvalues)
    assert {i for i, a in enumerate(adjusted) if a is not None and not math.isnan(a) and a <= alpha} == (
        _holm_rejects(pvalues, alpha)
    )
    usable = [(p, a) for p, a in zip(pvalues, adjusted) if p is not None and not math.isnan(p)]
    m = len(usable)
    for p, a in usable:
        assert p <= a <= min(1.0, m * p) or a == 1.0
    for (_p, a), (_q, b) in zip(sorted(usable), sorted(usable)[1:]):
        assert a <= b  # monotone in p


# ---------------------------------------------------------------------------------------
# Minimum detectable difference


def test_min_detectable_difference_hand_computed():
    # (1.959964 + 0.841621) * 1 / sqrt(100) = 2.801585 / 10
    assert min_detectable_difference(1.0, 100) == pytest.approx((Z975 + Z80) / 10, rel=1e-15)
    # alpha 0.01, power 0.9: (2.575829 + 1.281552) * 0.5 / sqrt(25) = 0.3857381
    assert min_detectable_difference(0.5, 25, alpha=0.01, power=0.9) == pytest.approx(
        (2.5758293035489004 + 1.2815515655446004) * 0.5 / 5, rel=1e-14
    )
    assert min_detectable_difference(1.0, 1) == math.inf
    assert min_detectable_difference(0.0, 50) == 0.0


def test_min_detectable_difference_has_its_power():
    # A true difference of exactly the MDD is found about 80% of the time (z-test, n = 400).
    rng = np.random.default_rng(6)
    mdd = min_detectable_difference(1.0, 400)
    diffs = rng.normal(mdd, 1.0, size=(4_000, 400))
    z = diffs.mean(axis=1) / (diffs.std(axis=1, ddof=1) / 20)
    assert np.mean(np.abs(z) > Z975) == pytest.approx(0.8, abs=0.03)


def test_mcnemar_mdd_solves_connors_equation():
    for psi, n in [(0.2, 400), (0.05, 10_000), (0.5, 30), (0.01, 100_000)]:
        d = mcnemar_mdd(psi, n)
        connor = (Z975 * math.sqrt(psi) + Z80 * math.sqrt(psi - d * d)) ** 2 / (d * d)
        assert connor == pytest.approx(n, rel=1e-9)
        assert d == pytest.approx((Z975 + Z80) * math.sqrt(psi / n), rel=0.05 if n < 100 else 0.01)
    assert mcnemar_mdd(0.0, 100) == 0.0
    assert mcnemar_mdd(0.3, 3) == math.inf  # n <= z^2
    with pytest.raises(ValueError, match="discordance"):
        mcnemar_mdd(1.5, 10)


def test_mcnemar_mdd_has_its_power():
    # n = 400, discordance 0.2: a true difference of mdd = 0.0625 -> P(b-type) 0.13125, P(c) 0.06875
    rng = np.random.default_rng(12)
    d = mcnemar_mdd(0.2, 400)
    counts = rng.multinomial(400, [(0.2 + d) / 2, (0.2 - d) / 2, 0.8], size=1_500)
    power = np.mean([mcnemar_exact(int(b), int(c)) < 0.05 for b, c, _ in counts])
    assert 0.72 <= power <= 0.86  # the exact test is a little conservative


# ---------------------------------------------------------------------------------------
# summarize_pair / summarize_pairs


def test_summary_hand_computed():
    a = [1.0, 0.5, 0.2, 0.9, 0.7]
    b = [0.8, 0.5, 0.4, 0.6, 0.7]
    s = summarize_pair(a, b, resamples=500, seed=2)
    # differences 0.2, 0, -0.2, 0.3, 0: mean 0.3 / 5 = 0.06; A higher twice, B once, 2 ties
    assert (s.n, s.wins, s.losses, s.ties, s.dropped) == (5, 2, 1, 2, 0)
    assert s.mean_a == pytest.approx(3.3 / 5) and s.mean_b == pytest.approx(3.0 / 5)
    assert s.mean_diff == pytest.approx(0.06)
    # deviations 0.14, -0.06, -0.26, 0.24, -0.06; squares sum 0.152; / 4 = 0.038
    assert s.sd_diff == pytest.approx(math.sqrt(0.038))
    assert s.mdd == pytest.approx((Z975 + Z80) * math.sqrt(0.038) / math.sqrt(5))
    # nonzero 0.2, -0.2, 0.3: T = 0.3; +-0.2 +-0.2 +-0.3 = 0.7, 0.3, 0.3, -0.1, 0.1, -0.3, -0.3, -0.7
    assert s.p_value == pytest.approx(6 / 8) and s.p_method == "sign-flip, exact"
    # issue 34: a continuous grader's interval is the expanded percentile one
    assert s.ci_method == "expanded percentile bootstrap"
    assert (s.ci_low, s.ci_high) == pytest.approx(loop_bootstrap(np.subtract(a, b), None, 500, 2, expanded_confidence(5)))
    assert (s.clustered, s.n_cases, s.resamples, s.binary) == (False, 5, 500, False)
    assert s.pass_rate_a is None and s.b is None and s.c is None


def test_summary_pass_fail_hand_computed():
    a = [1, 1, 0, 1, 0, 1, 1, 0]
    b = [1, 0, 0, 0, 1, 0, 1, 0]
    s = summarize_pair(np.array(a, float), np.array(b, float), passed_a=a, passed_b=b)
    # b: A passes, B fails at rows 1, 3, 5; c: A fails, B passes at row 4
    assert (s.b, s.c, s.wins, s.losses, s.ties) == (3, 1, 3, 1, 4)
    # McNemar: n = 4, P(X <= 1) = 5/16, doubled 0.625
    assert s.p_value == pytest.approx(0.625) and s.p_method == "McNemar exact"
    assert (s.pass_rate_a, s.pass_rate_b) == (5 / 8, 3 / 8)
    assert s.pass_rate_a_ci == wilson_interval(5, 8) and s.pass_rate_b_ci == wilson_interval(3, 8)
    assert s.mean_diff == pytest.approx(2 / 8) and s.binary
    assert s.mdd == mcnemar_mdd(4 / 8, 8)


def test_summary_drops_missing_pairs_and_says_so():
    a = [0.9, math.nan, 0.4, 0.7, 0.2]
    b = [0.8, 0.5, math.nan, 0.7, 0.1]
    s = summarize_pair(a, b)
    assert (s.n, s.dropped, s.wins, s.ties) == (3, 2, 2, 1)
    assert same(summarize_pair([0.9, None, 0.4, 0.7, 0.2], [0.8, 0.5, None, 0.7, 0.1]), s)
    passed = summarize_pair(
        [1.0, 0.0, 1.0], [0.0, 0.0, 1.0], passed_a=[True, None, True], passed_b=[False, False, True]
    )
    assert (passed.n, passed.dropped, passed.b, passed.c) == (2, 1, 1, 0)


def test_summary_ties_are_exact_float_equality():
    s = summarize_pair([0.1 + 0.2, 0.5], [0.3, 0.5])
    assert (s.wins, s.ties) == (1, 1)  # 0.30000000000000004 > 0.3


def test_summary_with_repeats_is_a_cluster_summary():
    diffs, ids = _repeated_cases(np.random.default_rng(8))
    score_b = np.full(len(diffs), 0.5)
    s = summarize_pair(score_b + diffs, score_b, clusters=ids, resamples=500, seed=1)
    assert s.clustered and (s.n, s.n_cases) == (120, 30)
    assert s.ci_method == "cluster expanded percentile bootstrap (whole cases resampled)"
    assert (s.ci_low, s.ci_high) == pytest.approx(loop_bootstrap(diffs, list(ids), 500, 1, expanded_confidence(30)))
    assert s.p_method == "cluster sign-flip, 500 random flips"
    # the cluster-robust MDD is wider than the row-level one would be
    assert s.mdd > min_detectable_difference(s.sd_diff, s.n)
    plain = summarize_pair(score_b + diffs, score_b, clusters=np.arange(120), resamples=500, seed=1)
    assert not plain.clustered and plain.n_cases == 120


def test_summarize_pairs_equals_separate_calls():
    rng = np.random.default_rng(21)
    n = 300
    ids = np.repeat(np.arange(100), 3)
    pa = rng.random(n) < 0.7
    pb = np.where(rng.random(n) < 0.9, pa, ~pa)
    with_gaps = rng.random(n)
    with_gaps[rng.random(n) < 0.1] = math.nan
    metrics = {
        "exact": dict(score_a=pa.astype(float), score_b=pb.astype(float), passed_a=pa, passed_b=pb),
        "bleu": dict(score_a=rng.random(n), score_b=rng.random(n)),
        "chrf": dict(score_a=with_gaps, score_b=rng.random(n)),  # other rows: its own draws
        "rouge": dict(score_a=rng.random(n), score_b=rng.random(n), passed_a=pa, passed_b=pb),
    }
    for clusters in (None, ids):
        joint = summarize_pairs(metrics, clusters=clusters, resamples=300, seed=5)
        assert list(joint) == list(metrics)
        for name, arrays in metrics.items():
            alone = summarize_pair(**arrays, clusters=clusters, resamples=300, seed=5)
            assert same(joint[name], alone), name
    assert summarize_pairs({}) == {}


def test_summary_threading_does_not_change_figures(monkeypatch):
    rng = np.random.default_rng(3)
    a, b = rng.random(3_000), rng.random(3_000)
    serial = summarize_pair(a, b, resamples=300)
    for module in (stats_bootstrap, stats_tests, stats.paired):  # each imported the name
        monkeypatch.setattr(module, "_large", lambda n, r: True)
    monkeypatch.setattr(stats_bootstrap, "_CHUNK", 10_000)
    assert same(summarize_pair(a, b, resamples=300), serial)


def test_summary_no_pairs_and_one_pair():
    empty = summarize_pair([math.nan], [0.5])
    assert (empty.n, empty.dropped) == (0, 1) and math.isnan(empty.mean_diff) and math.isnan(empty.p_value)
    assert empty.mdd == math.inf
    one = summarize_pair([0.9], [0.5], passed_a=[1], passed_b=[0])
    assert one.n == 1 and math.isnan(one.ci_low) and one.pass_rate_a_ci == wilson_interval(1, 1)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(score_a=[0.1, 0.2], score_b=[0.1]), "same length"),
        (dict(score_a=[0.1], score_b=[0.1], passed_a=[True]), "for both sides"),
        (dict(score_a=[0.1], score_b=[0.1], passed_a=[True, False], passed_b=[True, True]), "one value per row"),
        (dict(score_a=[math.inf], score_b=[0.1]), "finite or NaN"),
        (dict(score_a=[0.1, 0.2], score_b=[0.1, 0.3], clusters=["a"]), "one case id per row"),
        (dict(score_a=[0.1], score_b=[0.1], resamples=0), "resamples"),
        (dict(score_a=[0.1], score_b=[0.1], confidence=95), "strictly between 0 and 1"),
    ],
)
def test_summary_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        summarize_pair(**kwargs)


def test_summarize_pairs_bad_input():
    with pytest.raises(ValueError, match="unknown arrays"):
        summarize_pairs({"m": dict(score_a=[0.1], score_b=[0.2], scores=[1])})
    with pytest.raises(ValueError, match="same rows"):
        summarize_pairs({"m": dict(score_a=[0.1], score_b=[0.2]), "k": dict(score_a=[0.1, 0.2], score_b=[0.2, 0.3])})


# ---------------------------------------------------------------------------------------
# verdict_words

BASE = PairedSummary(
    n=40, mean_a=0.6, mean_b=0.558, mean_diff=0.042, ci_low=0.011, ci_high=0.073, wins=20, losses=10,
    ties=10, sd_diff=0.1, mdd=0.12, clustered=False, resamples=2000, p_value=0.004,
    p_method="sign-flip, 2,000 random flips", n_cases=40,
)


@pytest.mark.parametrize(
    "changes, adjusted, words",
    [
        ({}, 0.01, "A is higher by 0.042 (95% CI 0.011 to 0.073); unlikely to be noise (Holm p = 0.01)."),
        ({}, None, "A is higher by 0.042 (95% CI 0.011 to 0.073); unlikely to be noise (p = 0.004)."),
        ({"p_value": 0.0001}, None, "A is higher by 0.042 (95% CI 0.011 to 0.073); unlikely to be noise (p < 0.001)."),
        ({}, 0.12, "A is higher by 0.042 (95% CI 0.011 to 0.073), but this may be noise: the interval is this "
                   "metric's alone, while the p-value allows for every metric compared beside it (Holm p = 0.12)."),
        (dict(p_value=0.12), None, "A is higher by 0.042 (95% CI 0.011 to 0.073), but this may be noise (p = 0.12)."),
        (dict(mean_diff=-0.042, ci_low=-0.073, ci_high=-0.011), 0.01,
         "B is higher by 0.042 (95% CI 0.011 to 0.073); unlikely to be noise (Holm p = 0.01)."),
        (dict(mean_diff=0.01, ci_low=-0.02, ci_high=0.04, p_value=0.5), 0.9,
         "No detectable difference: A minus B is 0.010, 95% CI -0.020 to 0.040, which includes 0 "
         "(Holm p = 0.9); with 40 cases a change smaller than 0.12 could not be detected reliably."),
        (dict(ci_low=-0.001), 0.04,
         "A is higher by 0.042 (95% CI -0.001 to 0.073); borderline: Holm p = 0.04, but the interval includes 0."),
        (dict(wins=0, losses=0, ties=40), None, "No difference: A and B score the same on all 40 cases."),
        (dict(wins=0, losses=0, ties=120, n=120, n_cases=40, clustered=True), None,
         "No difference: A and B score the same on all 120 pairs (40 cases)."),
        (dict(n=0), None, "No case has a score on both sides: nothing to compare."),
        (dict(n=1, n_cases=1), None, "Only one case: too few to tell a change from noise."),
        (dict(clustered=True, n=120, n_cases=40), 0.01,
         "A is higher by 0.042 (95% CI 0.011 to 0.073); unlikely to be noise (Holm p = 0.01). "
         "Each case's repeats were resampled together (40 cases, 120 rows)."),
        (dict(binary=True, pass_rate_a=0.8, pass_rate_b=0.758, mean_diff=0.042, ci_low=0.011, ci_high=0.073,
              p_method="McNemar exact"), 0.01,
         "A passes more often by 4.2 points (pass rate A 80.0%, B 75.8%; 95% CI 1.1 to 7.3); "
         "unlikely to be noise (Holm p = 0.01)."),
        (dict(binary=True, pass_rate_a=0.5, pass_rate_b=0.49, mean_diff=0.01, ci_low=-0.05, ci_high=0.07,
              mdd=0.123), 0.7,
         "No detectable difference: A minus B is 1.0 points, 95% CI -5.0 to 7.0, which includes 0 "
         "(Holm p = 0.7); with 40 cases a change smaller than 12 points could not be detected reliably."),

        # a detectable change past the largest there is, and one in plain decimals
        (dict(binary=True, pass_rate_a=0.5, pass_rate_b=0.25, mean_diff=0.25, ci_low=-0.5, ci_high=1.0,
              mdd=1.6, n=4, n_cases=4, p_value=0.6), None,
         "No detectable difference: A minus B is 25.0 points, 95% CI -50.0 to 100.0, which includes 0 (p = 0.6); "
         "with 4 cases not even a change of 100 points could be detected reliably."),
        (dict(mean_diff=0.0001, ci_low=-0.002, ci_high=0.002, mdd=0.0012, p_value=0.9), None,
         "No detectable difference: A minus B is 0.0001, 95% CI -0.0020 to 0.0020, which includes 0 (p = 0.9); "
         "with 40 cases a change smaller than 0.0012 could not be detected reliably."),
        # every case differing alike: a zero-width interval is no measured certainty
        (dict(binary=True, pass_rate_a=1.0, pass_rate_b=0.0, mean_diff=1.0, ci_low=1.0, ci_high=1.0, n=2,
              n_cases=2, p_value=0.5), 1.0,
         "A passes more often by 100.0 points (pass rate A 100.0%, B 0.0%; every case differs by the same "
         "amount, so the 95% CI has no width), but this may be noise (Holm p = 1)."),
    ],
)
def test_verdict_words(changes, adjusted, words):
    assert verdict_words(dataclasses.replace(BASE, **changes), adjusted) == words


def test_verdict_words_from_real_summaries():
    rng = np.random.default_rng(1)
    a = rng.random(400)
    summary = summarize_pair(a, a - 0.1 + rng.normal(0, 0.05, 400))
    assert verdict_words(summary, holm_adjust([summary.p_value, 0.5])[0]).startswith("A is higher by 0.10")
    small = summarize_pair(a[:10], a[:10] + rng.normal(0, 0.2, 10))
    assert verdict_words(small).startswith("No detectable difference")


@pytest.mark.parametrize("a, b", [(0.8, 0.5), (0.3, 0.0), (0.1, 0.7), (1 / 3, 0.0)])
def test_an_interval_without_width_holds_its_estimate_and_no_mdd_is_claimed(a, b):
    """Every pair differing alike: the bootstrap means and the mean round differently by a
    bit, and the interval still holds the estimate; with no spread the minimum detectable
    difference is unknown (NaN), not 0."""
    s = summarize_pair(np.full(10, a), np.full(10, b), resamples=300, seed=0)
    assert s.ci_low <= s.mean_diff <= s.ci_high and s.ci_high - s.ci_low < 1e-12
    assert math.isnan(s.mdd)
    assert "could not be detected" not in verdict_words(s)
    assert "no width" in verdict_words(s)


def test_differences_equal_up_to_rounding_claim_no_mdd():
    """0.7 - 0.5 and 0.9 - 0.7 are 0.2 apart from 1 ulp: no spread, no detectable difference
    of 1.6e-16."""
    s = summarize_pair(np.array([0.7, 0.9]), np.array([0.5, 0.7]))
    assert math.isnan(s.mdd)


def test_no_difference_on_one_case_reads_as_words():
    s = summarize_pair(np.array([1.0]), np.array([1.0]), resamples=100, seed=0)
    assert verdict_words(s) == "No difference: A and B score the same on the one case."
