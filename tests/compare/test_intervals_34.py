"""Issue 34's intervals: Tango's score interval (plain and Rao-Scott clustered), Wilson at
an effective n, the design effect, Student's t quantile, the expanded percentile and BCa
bootstraps. Oracles: published values (Fagerland, Lydersen & Laake 2014, as the R package
contingencytables prints them), scipy (its binomtest, t, norm, optimize and bootstrap,
a test dependency only), and plain loops."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.optimize
import scipy.stats

from graders.stats import bootstrap as stats_bootstrap
from graders.stats.bca import bca_levels, bootstrap_interval, expanded_levels, jackknife_means
from graders.stats.binary import (
    clustered_pass_rate,
    difference_design,
    paired_rate_interval,
    rate_design,
    tango_interval,
    wilson_effective,
)
from graders.stats.intervals import t_quantile, wilson_interval
from graders.stats.paired import summarize_pair

# ---------------------------------------------------------------------------------------
# Tango's score interval


def scipy_tango(b, c, n, confidence=0.95):
    """Tango's interval from first principles: the constrained maximum-likelihood P(A fails,
    B passes) found numerically (scipy.optimize), the score statistic, its roots (brentq)."""
    z = scipy.stats.norm.ppf(0.5 + confidence / 2)

    def q_hat(delta):
        lo, hi = max(0.0, -delta), min(1.0, (1 - delta) / 2)
        if hi - lo < 1e-15:
            return lo

        def nll(q):
            terms = [(b, q + delta), (c, q), (n - b - c, 1 - 2 * q - delta)]
            return -sum(k * math.log(max(p, 1e-300)) for k, p in terms if k)
        return scipy.optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded",
                                              options={"xatol": 1e-14}).x

    def stat(delta):
        var = n * (2 * q_hat(delta) + delta * (1 - delta))
        return (b - c - n * delta) / math.sqrt(var)

    est = (b - c) / n
    inner = min(max(est, -1 + 1e-9), 1 - 1e-9)
    low = -1.0 if est == -1 or stat(-1 + 1e-9) <= z else scipy.optimize.brentq(
        lambda d: stat(d) - z, -1 + 1e-9, inner, xtol=1e-13)
    high = 1.0 if est == 1 or stat(1 - 1e-9) >= -z else scipy.optimize.brentq(
        lambda d: stat(d) + z, inner, 1 - 1e-9, xtol=1e-13)
    return low, high


def test_tango_reproduces_the_published_examples():
    # Cavo et al. (2012): n12 = 6, n21 = 16 of 161. contingencytables prints
    # "Tango asymptotic score CI: estimate = -0.0621 (95% CI -0.1240 to -0.0054)".
    low, high = tango_interval(6, 16, 161)
    assert (round(low, 4), round(high, 4)) == (-0.1240, -0.0054)


@pytest.mark.parametrize("b, c, n", [(6, 16, 161), (1, 7, 21), (0, 2, 2), (3, 0, 12), (5, 5, 40), (0, 0, 12),
                                     (30, 0, 30), (0, 30, 30), (12, 3, 100), (1, 1, 2), (40, 60, 100)])
def test_tango_matches_the_numerical_maximum_likelihood(b, c, n):
    ours = tango_interval(b, c, n)
    assert ours == pytest.approx(scipy_tango(b, c, n), abs=1e-7)


def test_tango_is_mcnemars_score_test_at_zero_and_handles_edges():
    # 0 lies in the interval exactly when McNemar's asymptotic z = (b - c) / sqrt(b + c) is within +-1.96
    for b, c in [(2, 0), (4, 0), (10, 3), (9, 3), (3, 10)]:
        low, high = tango_interval(b, c, 50)
        assert (low <= 0 <= high) == (abs(b - c) / math.sqrt(b + c) <= 1.959963984540054)
    assert tango_interval(0, 0, 0) == (math.nan, math.nan) or all(map(math.isnan, tango_interval(0, 0, 0)))
    assert tango_interval(12, 0, 12)[1] == 1.0 and tango_interval(0, 12, 12)[0] == -1.0
    assert tango_interval(2.5, 0.5, 7.3) == pytest.approx(scipy_tango(2.5, 0.5, 7.3), abs=1e-7)  # Rao-Scott counts
    with pytest.raises(ValueError):
        tango_interval(5, 6, 10)


# ---------------------------------------------------------------------------------------
# Wilson at an effective n, the design effect, the clustered pass rate


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (21, 40), (105, 200), (1, 1)])
def test_wilson_effective_is_wilson_at_whole_counts(k, n):
    assert wilson_effective(k / n, n) == pytest.approx(wilson_interval(k, n), abs=1e-15)
    ref = scipy.stats.binomtest(k, n).proportion_ci(method="wilson")
    assert wilson_effective(k / n, n) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_the_issues_example_forty_cases_of_five_identical_repeats():
    """Rows that are 40 cases repeated 5 times alike carry 40 cases' worth: the interval is
    Wilson's over the cases ([0.375, 0.671] for 21 passing; repeats that all agree leave no
    design effect to estimate, so no degrees-of-freedom allowance), not Wilson's over the
    200 rows ([0.456, 0.593], 2.2x too narrow)."""
    passed = np.repeat(np.r_[np.ones(21), np.zeros(19)], 5)
    ids = np.repeat(np.arange(40), 5)
    rate = clustered_pass_rate(passed, ids)
    assert (rate.design.cases, rate.design.design_effect, rate.design.icc) == (40, pytest.approx(5.0), pytest.approx(1.0))
    rows = wilson_interval(105, 200)
    assert rows == pytest.approx((0.456, 0.593), abs=5e-4)
    assert (rate.low, rate.high) == pytest.approx((0.375, 0.671), abs=5e-4)
    ref = scipy.stats.binomtest(21, 40).proportion_ci(method="wilson")
    assert (rate.low, rate.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert (rate.high - rate.low) / (rows[1] - rows[0]) == pytest.approx(2.2, abs=0.05)
    # one case's repeats disagreeing: the design effect is estimated, and the allowance returns
    passed[0] = 0
    mixed = clustered_pass_rate(passed, ids)
    allowance = (scipy.stats.t.ppf(0.975, 39) / scipy.stats.norm.ppf(0.975)) ** 2
    assert mixed.design.divisor == pytest.approx(mixed.design.used * allowance, rel=1e-12)


def test_the_design_effect_is_the_cluster_variance_over_the_binomial():
    rng = np.random.default_rng(4)
    ids = rng.integers(0, 30, 150)  # uneven repeats
    y = (rng.random(150) < np.repeat(rng.random(30), 1)[ids]).astype(float)
    d = rate_design(y, ids)
    p, n = y.mean(), len(y)
    per_case = {g: (y[ids == g].sum(), (ids == g).sum()) for g in np.unique(ids)}
    cluster_var = sum((s - p * m) ** 2 for s, m in per_case.values()) / n**2
    assert d.design_effect == pytest.approx(cluster_var / (p * (1 - p) / n), rel=1e-12)
    m_tilde = sum(m * m for _, m in per_case.values()) / n
    assert d.icc == pytest.approx((d.design_effect - 1) / (m_tilde - 1), rel=1e-12)
    assert d.used == max(1.0, d.design_effect) and d.cases == len(per_case)
    # every row alike: nothing to measure it by, so each case counts once (m = rows per case)
    same = rate_design(np.ones(20), np.repeat(np.arange(4), 5))
    assert (same.design_effect, same.icc, same.used) == (None, None, 5.0)


def test_rao_scott_tango_without_repeats_is_tango_and_with_identical_repeats_counts_cases():
    rng = np.random.default_rng(2)
    pa, pb = (rng.random(50) < 0.6).astype(float), (rng.random(50) < 0.5).astype(float)
    b, c = int(((pa == 1) & (pb == 0)).sum()), int(((pa == 0) & (pb == 1)).sum())
    low, high, design = paired_rate_interval(pa, pb, np.arange(50))
    assert design is None and (low, high) == tango_interval(b, c, 50)
    low, high, design = paired_rate_interval(np.repeat(pa, 4), np.repeat(pb, 4), np.repeat(np.arange(50), 4))
    assert design.design_effect == pytest.approx(4.0)
    allowance = (scipy.stats.t.ppf(0.975, 49) / scipy.stats.norm.ppf(0.975)) ** 2
    k = 50 / allowance
    assert (low, high) == pytest.approx(scipy_tango(b * k / 50, c * k / 50, k), abs=1e-7)
    assert difference_design(np.zeros(8), np.repeat(np.arange(4), 2)).design_effect is None


def test_pass_rates_in_a_paired_summary_cluster_with_repeats():
    rng = np.random.default_rng(9)
    ids = np.repeat(np.arange(30), 4)
    pa = np.repeat(rng.random(30) < 0.6, 4).astype(float)
    pb = (rng.random(120) < 0.5).astype(float)
    s = summarize_pair(pa, pb, passed_a=pa, passed_b=pb, clusters=ids)
    a = clustered_pass_rate(pa, ids)
    assert s.pass_rate_a_ci == (a.low, a.high) and s.pass_rate_a_design == a.design
    assert s.ci_method.startswith("Tango score, Rao-Scott")
    plain = summarize_pair(pa, pb, passed_a=pa, passed_b=pb)
    assert plain.pass_rate_a_ci == wilson_interval(int(pa.sum()), 120) and plain.pass_rate_a_design is None


# ---------------------------------------------------------------------------------------
# Student's t quantile (no scipy at run time)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 7, 11, 19, 39, 99, 500, 1000, 1001, 10**6])
def test_t_quantile_matches_scipy(df):
    for p in (0.001, 0.025, 0.05, 0.3, 0.7, 0.9, 0.975, 0.999):
        assert t_quantile(p, df) == pytest.approx(scipy.stats.t.ppf(p, df), rel=1e-11, abs=1e-12)
    assert t_quantile(0.5, df) == 0.0 and t_quantile(1.0, df) == math.inf
    with pytest.raises(ValueError):
        t_quantile(0.5, 0)


# ---------------------------------------------------------------------------------------
# The expanded percentile and BCa bootstraps, on the same draws as scipy's


@pytest.mark.parametrize("seed", [0, 7, 12345])
def test_bca_equals_scipys_on_the_same_draws(seed):
    rng = np.random.default_rng(seed)
    d = rng.exponential(1.0, 35) - 0.8
    ours = bootstrap_interval(d, resamples=2000, seed=seed, method="bca")
    ref = scipy.stats.bootstrap((d,), np.mean, method="BCa", n_resamples=2000,
                                rng=np.random.default_rng(seed)).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("n", [5, 12, 40, 100])
def test_the_expanded_percentile_is_scipys_percentile_at_the_expanded_level(n):
    rng = np.random.default_rng(n)
    d = rng.beta(2, 5, n) - rng.beta(2, 4, n)
    z = math.sqrt(n / (n - 1)) * scipy.stats.t.ppf(0.025, n - 1)
    levels = expanded_levels(n, 0.95)
    assert levels == pytest.approx((scipy.stats.norm.cdf(z), scipy.stats.norm.cdf(-z)), rel=1e-11)
    ref = scipy.stats.bootstrap((d,), np.mean, method="percentile", confidence_level=levels[1] - levels[0],
                                n_resamples=1500, rng=np.random.default_rng(3)).confidence_interval
    assert bootstrap_interval(d, resamples=1500, seed=3) == pytest.approx((ref.low, ref.high), rel=1e-12, abs=1e-14)


def test_cluster_bca_equals_a_plain_loop():
    rng = np.random.default_rng(11)
    ids = rng.integers(0, 20, 70)
    d = rng.normal(0.1, 1.0, 70) + rng.normal(0, 1, 20)[ids]
    units = [d[ids == g] for g in dict.fromkeys(ids.tolist())]  # cases in order of first appearance
    means = []
    for _, rows in stats_bootstrap.resample_indices(len(units), 800, 4):
        for row in rows:
            means.append(sum(units[i].sum() for i in row) / sum(len(units[i]) for i in row))
    means = np.array(means)
    theta = d.mean()
    jack = np.array([(d.sum() - u.sum()) / (len(d) - len(u)) for u in units])
    share = (np.sum(means < theta) + np.sum(means <= theta)) / (2 * len(means))
    z0 = scipy.stats.norm.ppf(share)
    u = (len(jack) - 1) * (jack.mean() - jack)
    a = (u**3).sum() / (6 * (u @ u) ** 1.5)
    z = scipy.stats.norm.ppf(0.025)
    levels = [scipy.stats.norm.cdf(z0 + (z0 + zz) / (1 - a * (z0 + zz))) for zz in (z, -z)]
    expected = tuple(np.quantile(means, levels))
    assert bootstrap_interval(d, clusters=ids, resamples=800, seed=4, method="bca") == pytest.approx(expected, rel=1e-10)
    sums = np.array([[x.sum() for x in units]])
    sizes = np.array([len(x) for x in units])
    assert jackknife_means(sums, sizes)[0] == pytest.approx(jack)


def test_bca_falls_back_where_it_is_undefined():
    assert bca_levels(np.full(100, 0.3), 0.3, np.full(10, 0.3), 0.95) is None  # no spread
    assert bca_levels(np.linspace(1, 2, 100), 0.5, np.linspace(0, 1, 10), 0.95) is None  # every resample above
    assert bootstrap_interval([0.25] * 10, method="bca") == (0.25, 0.25)
    assert all(math.isnan(x) for x in bootstrap_interval([0.3], method="expanded"))
    with pytest.raises(ValueError, match="method"):
        bootstrap_interval([0.1, 0.2], method="studentized")


def test_a_continuous_summary_uses_the_expanded_interval():
    rng = np.random.default_rng(1)
    a, b = rng.random(40), rng.random(40)
    s = summarize_pair(a, b, resamples=700, seed=5)
    assert s.ci_method == "expanded percentile bootstrap"
    assert (s.ci_low, s.ci_high) == pytest.approx(bootstrap_interval(a - b, resamples=700, seed=5), rel=1e-12)


def test_the_words_warn_where_a_bootstrap_interval_covers_less_than_it_says():
    from graders.compare.words import FEW_CASES, verdict_words

    rng = np.random.default_rng(4)
    a = rng.random(FEW_CASES)
    few = summarize_pair(a[:12], a[:12] - 0.2 + rng.normal(0, 0.1, 12))
    assert "With fewer than 40 cases a bootstrap interval covers the truth less often than 95% CI says." in verdict_words(few)
    enough = summarize_pair(a, a - 0.2 + rng.normal(0, 0.1, FEW_CASES))
    assert "fewer than" not in verdict_words(enough)
    binary = summarize_pair(np.ones(12), np.zeros(12), passed_a=np.ones(12), passed_b=np.zeros(12))
    assert "fewer than" not in verdict_words(binary)  # Tango's interval holds its level there
