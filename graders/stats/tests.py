"""Tests of A against B: exact McNemar, the paired sign-flip test and its bound, and
Holm's adjustment across metrics (numpy and ``math`` only).

* ``mcnemar_exact``         exact McNemar test on the discordant pairs
* ``sign_flip_test``        paired randomization test ("A and B are interchangeable"),
                            exact for whole-number differences
* ``sign_flip_bound``       Hoeffding's bound on its p-value, where random flips cannot reach
* ``holm_adjust``           Holm's step-down adjustment across the metrics on screen
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal, localcontext
from functools import cache
from typing import NamedTuple

import numpy as np

from graders.stats.bootstrap import (
    _as_diffs,
    _check_resamples,
    _large,
    _pipelined,
    _unit_sums,
    _weighted_totals,
    sign_flip_bits,
)
from graders.stats.intervals import _count

# Exact McNemar: the binomial(n, 1/2) tail, with Loader's (2000) saddle-point pmf, which
# keeps ~1e-15 relative accuracy where lgamma differences lose digits (n up to 10**7+).
_S0, _S1, _S2, _S3, _S4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188


@cache
def _stirlerr_table() -> np.ndarray:
    # log(n!) - log(sqrt(2 pi n) (n/e)^n) for n = 0..15, in 40-digit decimal arithmetic;
    # made on first use (8 ms: every command would pay it at start-up).
    with localcontext() as ctx:
        ctx.prec = 40
        half_log_2pi = (2 * Decimal("3.141592653589793238462643383279502884197")).ln() / 2
        table = [0.0]  # n = 0 is never used (x = 0 and x = n are handled apart)
        for n in range(1, 16):
            dn = Decimal(n)
            value = Decimal(math.factorial(n)).ln() - (dn + Decimal("0.5")) * dn.ln() + dn - half_log_2pi
            table.append(float(value))
    return np.array(table)


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """Stirling's error log(n!) - log(sqrt(2 pi n) (n/e)^n) for whole n >= 0 (as R's)."""
    n = np.asarray(n, dtype=float)
    out = np.empty_like(n)
    small = n <= 15
    out[small] = _stirlerr_table()[n[small].astype(np.intp)]
    big = n[~small]
    nn = big * big
    out[~small] = np.where(
        big > 500, (_S0 - _S1 / nn) / big,
        np.where(big > 80, (_S0 - (_S1 - _S2 / nn) / nn) / big,
                 np.where(big > 35, (_S0 - (_S1 - (_S2 - _S3 / nn) / nn) / nn) / big,
                          (_S0 - (_S1 - (_S2 - (_S3 - _S4 / nn) / nn) / nn) / nn) / big)))
    return out


def _bd0(x: np.ndarray, mean: float) -> np.ndarray:
    """The deviance term x log(x / mean) + mean - x, by series where x is near mean."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x * np.log(x / mean) + mean - x
    near = np.abs(x - mean) < 0.1 * (x + mean)
    if near.any():
        xn = x[near]
        v = (xn - mean) / (xn + mean)
        s = (xn - mean) * v
        term = 2 * xn * v
        v2 = v * v  # < 0.01, so 15 terms are past double precision
        for j in range(1, 16):
            term = term * v2
            s = s + term / (2 * j + 1)
        out[near] = s
    return out


def _binom_half_pmf(x: np.ndarray, n: int) -> np.ndarray:
    """P(X = x) for X ~ Binomial(n, 1/2), x whole numbers in [0, n] (Loader 2000)."""
    x = np.asarray(x, dtype=float)
    out = np.full(x.shape, math.ldexp(1.0, -n))  # x = 0 or n: 2**-n (0.0 once it underflows)
    inner = (x > 0) & (x < n)
    xi = x[inner]
    lc = _stirlerr(np.array([n]))[0] - _stirlerr(xi) - _stirlerr(n - xi) - _bd0(xi, n / 2) - _bd0(n - xi, n / 2)
    lf = math.log(2 * math.pi) + np.log(xi) + np.log1p(-xi / n)
    out[inner] = np.exp(lc - 0.5 * lf)
    return out


def _binom_half_cdf(m: int, n: int) -> float:
    """P(X <= m) for X ~ Binomial(n, 1/2) and m <= n / 2."""
    # Below m - 40 sqrt(n) every term is under exp(-3200) of the largest: leave them out.
    start = max(0, m - int(40 * math.sqrt(n)) - 10)
    return float(np.sum(_binom_half_pmf(np.arange(start, m + 1), n)))


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value on the discordant pairs b (A passes, B fails), c.

    min(1, 2 P(X <= min(b, c))) with X ~ Binomial(b + c, 1/2): what
    ``scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue`` gives, since the null
    distribution is symmetric. b + c = 0 gives 1.0.
    """
    b, c = _count(b, "b"), _count(c, "c")
    n, m = b + c, min(b, c)
    if 2 * m + 1 >= n:  # b == c, or |b - c| == 1: the two tails cover everything
        return 1.0
    return min(1.0, 2.0 * _binom_half_cdf(m, n))


_EXACT_FLIP_UNITS = 16  # enumerate all 2**m sign patterns up to m = 16 nonzero units


# The smallest p-value a summary reports: an exact tail below it (McNemar's on 100,000
# discordant pairs is about 1e-875) underflows to 0, which no test gives; it is reported
# as this bound, and its method says so.
P_FLOOR = 1e-300


def _tolerance(sums: np.ndarray) -> np.ndarray:
    # A flipped total equal to the observed one up to rounding counts as "as extreme".
    return 1e-9 * np.abs(sums).sum(axis=-1)


def _sign_flip_exact(unit_sums: np.ndarray) -> float:
    s = unit_sums[unit_sums != 0]
    m = len(s)
    if m == 0:
        return 1.0
    keep = ((np.arange(2**m)[:, None] >> np.arange(m)) & 1).astype(float)
    flipped = 2 * np.einsum("pm,m->p", keep, s) - s.sum()
    return float(np.mean(np.abs(flipped) >= abs(s.sum()) - _tolerance(s)))


# The exact null distribution of whole-number unit sums is built by convolution while the
# work (multiply-adds) stays under this; beyond it the flips are drawn at random.
_EXACT_CONVOLUTION_WORK = 100_000_000


def _log_binomial_pmf(k: int) -> np.ndarray:
    """log P(j heads in k fair tosses), j = 0..k, from log factorials (no overflow)."""
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, k + 1, dtype=float)))])
    return log_fact[k] - log_fact - log_fact[::-1] - k * math.log(2.0)


def _sign_flip_exact_whole(unit_sums: np.ndarray) -> float | None:
    """The exact two-sided sign-flip p-value of whole-number unit sums (a pass-or-fail
    grader's: each case's passes of A minus B over its repeats), or None when the
    convolution would cost more than ``_EXACT_CONVOLUTION_WORK``.

    With random signs, sum e_i s_i = 2X - S, S = sum |s_i| and X the sum of a random half of
    the |s_i|; units of the same size v contribute v times a Binomial(k, 1/2), and the
    distribution of X is their convolution. p = P(|2X - S| >= |sum s_i|), summed from the
    tail (no cancellation; a tail past what a float holds is 0, which ``P_FLOOR``
    catches). Without repeats (every |s_i| = 1) it is McNemar's exact test."""
    sizes, counts = np.unique(np.abs(unit_sums[unit_sums != 0]).astype(np.int64), return_counts=True)
    if not len(sizes):
        return 1.0
    total = int(sizes @ counts)
    work, length = 0, 1
    for v, k in zip(sizes.tolist(), counts.tolist()):
        work += length * (k + 1)
        length += v * k
    if work > _EXACT_CONVOLUTION_WORK:
        return None
    pmf = np.ones(1)
    for v, k in zip(sizes.tolist(), counts.tolist()):
        part = np.zeros(v * k + 1)
        part[::v] = np.exp(_log_binomial_pmf(k))
        pmf = np.convolve(pmf, part)
    observed = abs(int(round(float(unit_sums.sum()))))
    extreme = np.abs(2 * np.arange(total + 1) - total) >= observed
    return min(1.0, float(pmf[extreme].sum()))


def _is_whole(unit_sums: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(unit_sums)) and np.all(unit_sums == np.round(unit_sums)))


def _sign_flip_hits(sums: np.ndarray, resamples: int, seed: int, start: int = 0) -> np.ndarray:
    """(k,) counts of random flips as extreme as the observed totals of the (k, G) unit
    sums, over flips ``start`` to ``start + resamples`` of the stream, shared by all k."""
    columns = np.ascontiguousarray(sums, dtype=float)
    total = columns.sum(axis=1)
    bar = np.abs(total) - _tolerance(columns)
    hits = np.zeros(len(columns), dtype=np.int64)
    buffer: list[np.ndarray] = []

    def count(start: int, keep: np.ndarray) -> None:
        if not buffer or buffer[0].shape != keep.shape:
            buffer[:] = [np.empty(keep.shape), np.empty((len(keep), len(columns)))]
        weights, kept = buffer
        weights[...] = keep
        _weighted_totals(weights, columns, kept)
        hits[:] += (np.abs(2 * kept - total) >= bar).sum(axis=0)  # kept minus flipped

    _pipelined(sign_flip_bits(sums.shape[1], resamples, seed, start), count, _large(sums.shape[1], resamples))
    return hits


def _sign_flip_monte_carlo(sums: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(k,) Monte Carlo p-values for the (k, G) unit sums, one set of flips for all k."""
    return (1 + _sign_flip_hits(sums, resamples, seed)) / (1 + resamples)


# Near a threshold the flips go on, doubling, until the p-value's 99.9% interval (Wilson's,
# on the share of flips as extreme) leaves it, up to this many times the resamples given
# and at most MAX_FLIPS flips in all.
_BAND_Z = 3.2905267314918945  # z_{0.9995}
FLIP_GROWTH = 64
MAX_FLIPS = 1_000_000


def _band(hits: int, flips: int) -> tuple[float, float]:
    """Wilson's 99.9% interval of the exact p-value from ``hits`` of ``flips`` random flips."""
    p, z2 = hits / flips, _BAND_Z * _BAND_Z
    center = (p + z2 / (2 * flips)) / (1 + z2 / flips)
    half = _BAND_Z / (1 + z2 / flips) * math.sqrt(p * (1 - p) / flips + z2 / (4 * flips * flips))
    return center - half, center + half


def _near(hits: int, flips: int, thresholds: Sequence[float]) -> float | None:
    """The first threshold within the p-value's band, or None when the band clears them all."""
    low, high = _band(hits, flips)
    return next((t for t in thresholds if low <= t <= high), None)


class FlipTest(NamedTuple):
    """A sign-flip p-value and how it was reached: ``flips`` random flips (0: exact or a
    bound), ``mc_error`` the Monte Carlo standard error sqrt(p (1 - p) / flips) (None when
    exact), ``undecided`` a threshold the p-value could not be told from at ``flips``."""

    p: float
    method: str
    flips: int = 0
    mc_error: float | None = None
    undecided: float | None = None


def _sequential_flips(sums: np.ndarray, resamples: int, seed: int, thresholds: Sequence[Sequence[float]],
                      max_flips: int) -> list[tuple[int, int]]:
    """(hits, flips) per row of ``sums``: ``resamples`` flips, then as many again while a
    row's p-value cannot be told from one of its ``thresholds``, up to ``max_flips``. Each
    row reads the first flips of the one stream, so its figures do not depend on the others'."""
    hits = _sign_flip_hits(sums, resamples, seed)
    flips = np.full(len(sums), resamples)
    while True:
        going = [j for j in range(len(sums))
                 if flips[j] < max_flips and _near(int(hits[j]), int(flips[j]), thresholds[j]) is not None]
        if not going:
            break
        done = int(flips[going[0]])  # rows still going have all drawn the same number
        more = min(done, max_flips - done)
        hits[going] += _sign_flip_hits(sums[going], more, seed, start=done)
        flips[going] += more
    return [(int(h), int(f)) for h, f in zip(hits, flips)]


def sign_flip_bound(unit_sums: np.ndarray) -> float:
    """Hoeffding's bound on the exact two-sided sign-flip p-value of these unit sums:
    P(|sum of e_i s_i| >= |sum of s_i|) <= 2 exp(-t^2 / (2 sum of s_i^2)) for random signs
    e_i, t the observed |total| (less the rounding tolerance). Never below the exact
    p-value, so it stands in for a Monte Carlo estimate that cannot go as low: random
    flips show no p below 1 / (1 + resamples)."""
    s = np.asarray(unit_sums, dtype=float)
    t = abs(float(s.sum())) - float(_tolerance(s))
    spread = float(s @ s)
    if t <= 0 or spread == 0:
        return 1.0
    return min(1.0, 2.0 * math.exp(-t * t / (2.0 * spread)))


def _sign_flip_pvalues(sums: np.ndarray, resamples: int, seed: int,
                       thresholds: Sequence[Sequence[float]] | None = None, max_flips: int | None = None) -> list[FlipTest]:
    """The sign-flip test of each row of the (k, G) unit sums: exact where it can be
    (``_sign_flip_exact_whole``, or every sign pattern of at most 16 nonzero units), else
    random flips (``_sequential_flips`` near a row's ``thresholds``; none: no flips are
    added), or Hoeffding's bound where that is lower than the flips can show."""
    out: list[FlipTest | None] = [None] * len(sums)
    monte_carlo = []
    for j, s in enumerate(sums):
        exact = _sign_flip_exact_whole(s) if _is_whole(s) else None
        if exact is None and np.count_nonzero(s) <= _EXACT_FLIP_UNITS:
            exact = _sign_flip_exact(s)
        if exact is None:
            monte_carlo.append(j)
        else:
            out[j] = FlipTest(exact, "exact")
    if monte_carlo:
        if max_flips is None:
            max_flips = max(resamples, min(FLIP_GROWTH * resamples, MAX_FLIPS))
        wanted = [tuple(thresholds[j]) if thresholds is not None else () for j in monte_carlo]
        counted = _sequential_flips(sums[monte_carlo], resamples, seed, wanted, max_flips)
        for j, near, (hits, flips) in zip(monte_carlo, wanted, counted):
            p = (1 + hits) / (1 + flips)
            bound = sign_flip_bound(sums[j])
            if bound < p:  # the exact p is below what the flips can show
                out[j] = FlipTest(bound, f"Hoeffding's bound, below what {flips:,} random flips show")
                continue
            how = f"{flips:,} random flips"
            if flips > resamples:
                how += f" ({resamples:,} given, more near the threshold)"
            undecided = _near(hits, flips, near)
            if undecided is not None:
                how += f"; p cannot be told from {undecided:.3g} at {flips:,} flips"
            out[j] = FlipTest(float(p), how, flips, math.sqrt(p * (1 - p) / flips), undecided)
    return out  # type: ignore[return-value]


def sign_flip_test(
    diffs: np.ndarray, *, clusters: np.ndarray | None = None, resamples: int = 2000, seed: int = 0
) -> float:
    """Two-sided paired sign-flip (randomization) test of "A and B are interchangeable".

    Under the null each case's difference (with ``clusters``, each case's summed difference
    over its repeats) is as likely to have either sign; the statistic is |sum of
    differences|. Exact when every case's difference is a whole number (pass-or-fail
    graders: by convolution, ``_sign_flip_exact_whole``, within ``_EXACT_CONVOLUTION_WORK``)
    or at most 16 cases have a nonzero difference (all 2**m sign patterns); otherwise Monte
    Carlo over ``resamples`` random flips (draws: ``sign_flip_bits``) with p = (1 + #{as
    extreme}) / (1 + resamples), never 0 (Phipson & Smyth 2010; sacrebleu's paired
    approximate randomization), or Hoeffding's bound (``sign_flip_bound``) where that is
    lower: the flips cannot show a p below 1 / (1 + resamples), and a Holm adjustment over
    several metrics would otherwise turn a large change into noise when the resamples are
    few. For 0/1 scores without repeats the exact version is McNemar's test. No rows gives
    nan.
    """
    d = _as_diffs(diffs)
    resamples = _check_resamples(resamples)
    if len(d) == 0:
        return math.nan
    sums, _ = _unit_sums(d, clusters)
    return _sign_flip_pvalues(sums[None, :], resamples, seed)[0].p


def holm_adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values, in the input order.

    Sorted ascending, the i-th of m p-values becomes max over j <= i of
    min(1, (m - j + 1) p_(j)): monotone in p and capped at 1. None and NaN entries are
    passed through unchanged and do not count towards m.
    """
    values = list(pvalues)
    usable = []
    for i, p in enumerate(values):
        if p is None or math.isnan(p):
            continue
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must be in [0, 1], got {p!r} at position {i}")
        usable.append(i)
    out: list[float | None] = [None if p is None else float(p) for p in values]
    m = len(usable)
    running = 0.0
    for rank, i in enumerate(sorted(usable, key=lambda i: values[i])):
        running = max(running, min(1.0, (m - rank) * float(values[i])))
        out[i] = running
    return out
