"""Statistics for comparing model A with model B (SPEC §8), in numpy and ``math`` only.

Every difference is A minus B, over the pairs where both sides have a score.

* ``normal_quantile``       the standard normal quantile (Wichura's AS 241, ~1e-16)
* ``wilson_interval``       Wilson score interval of a pass rate
* ``mcnemar_exact``         exact McNemar test on the discordant pairs
* ``paired_bootstrap``      percentile bootstrap interval of the mean difference,
                            resampling cases, or whole cases with their repeats
* ``sign_flip_test``        paired randomization test ("A and B are interchangeable"),
                            exact for whole-number differences
* ``sign_flip_bound``       Hoeffding's bound on its p-value, where random flips cannot reach
* ``holm_adjust``           Holm's step-down adjustment across the metrics on screen
* ``min_detectable_difference``, ``mcnemar_mdd``   what this n detects with 80% power
* ``summarize_pair``        all of the above for one metric -> ``PairedSummary``
* ``summarize_pairs``       the same for many metrics, drawing the resamples once
* ``verdict_words``         a one-sentence reading for the dashboard

Randomness: the bootstrap draws from ``np.random.default_rng(seed)``; the sign flips from
an independent stream, ``SeedSequence(seed, spawn_key=(1,))``. Both depend only on
(number of cases, resamples, seed), so every metric over the same cases is resampled
the same way, and results are identical run to run. Large inputs draw in one thread
while a second reduces (numpy releases the GIL); the figures do not depend on it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal, localcontext
from functools import cache
from typing import Any

import numpy as np

__all__ = [
    "PairedSummary",
    "holm_adjust",
    "mcnemar_exact",
    "mcnemar_mdd",
    "min_detectable_difference",
    "normal_quantile",
    "paired_bootstrap",
    "resample_indices",
    "sign_flip_bits",
    "sign_flip_bound",
    "sign_flip_test",
    "summarize_pair",
    "summarize_pairs",
    "verdict_words",
    "wilson_interval",
]

# ---------------------------------------------------------------------------------------
# Normal quantile: Wichura (1988), Algorithm AS 241 PPND16, Appl. Statist. 37(3) 477-484.
# Coefficients lowest order first; each denominator's constant term is 1.

_AS241_A = (3.3871328727963666080e0, 1.3314166789178437745e2, 1.9715909503065514427e3,
            1.3731693765509461125e4, 4.5921953931549871457e4, 6.7265770927008700853e4,
            3.3430575583588128105e4, 2.5090809287301226727e3)
_AS241_B = (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
            2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4,
            5.2264952788528545610e3)
_AS241_C = (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
            3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
            2.27238449892691845833e-2, 7.74545014278341407640e-4)
_AS241_D = (1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
            1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4,
            1.05075007164441684324e-9)
_AS241_E = (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
            2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
            2.71155556874348757815e-5, 2.01033439929228813265e-7)
_AS241_F = (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
            7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7,
            2.04426310338993978564e-15)


def _horner(coefs: tuple[float, ...], x: float) -> float:
    acc = 0.0
    for c in reversed(coefs):
        acc = acc * x + c
    return acc


def normal_quantile(p: float) -> float:
    """Standard normal quantile, the x with Phi(x) = p (AS 241 PPND16, ~1e-16 relative).

    p = 0 gives -inf and p = 1 gives inf; p outside [0, 1] or NaN raises ValueError.
    """
    p = float(p)
    if not 0.0 <= p <= 1.0:  # NaN fails too
        raise ValueError(f"p must be in [0, 1], got {p!r}")
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _horner(_AS241_A, r) / _horner(_AS241_B, r)
    r = math.sqrt(-math.log(p if q < 0.0 else 1.0 - p))
    if r <= 5.0:
        r -= 1.6
        x = _horner(_AS241_C, r) / _horner(_AS241_D, r)
    else:
        r -= 5.0
        x = _horner(_AS241_E, r) / _horner(_AS241_F, r)
    return -x if q < 0.0 else x


def _z_two_sided(confidence: float) -> float:
    """z with P(|Z| <= z) = confidence (as scipy: ndtri(0.5 + 0.5 * confidence))."""
    return normal_quantile(0.5 + 0.5 * confidence)


def _check_confidence(confidence: float, name: str = "confidence") -> float:
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {confidence!r}")
    return confidence


def _count(value: Any, name: str) -> int:
    try:
        value = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


# ---------------------------------------------------------------------------------------
# Pass rates


MAX_COUNT = 2**53  # the largest n of a pass rate: every count up to it is a float exactly


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of k passes out of n, without continuity correction.

    The interval scipy gives as ``binomtest(k, n).proportion_ci(method="wilson")``
    (Newcombe 1998, method 3); k = 0 gives a lower end of exactly 0 and k = n an upper
    end of exactly 1. n = 0 gives (0.0, 1.0): with no cases every rate is possible.
    """
    k, n = _count(k, "k"), _count(n, "n")
    if n > MAX_COUNT:  # past 2**53 a float no longer holds every count, and past 1e308 none
        shown = f"{n:,}" if n < 10**24 else f"a number of {len(str(n))} digits"
        raise ValueError(f"n must be at most {MAX_COUNT:,} (2**53), got {shown}")
    if k > n:
        raise ValueError(f"k must be <= n, got k = {k}, n = {n}")
    confidence = _check_confidence(confidence)
    if n == 0:
        return (0.0, 1.0)
    z2 = _z_two_sided(confidence) ** 2
    center = (k + z2 / 2) / (n + z2)
    delta = math.sqrt(z2) / (n + z2) * math.sqrt(k * (n - k) / n + z2 / 4)
    low = 0.0 if k == 0 else max(0.0, center - delta)
    high = 1.0 if k == n else min(1.0, center + delta)
    return (low, high)


# ---------------------------------------------------------------------------------------
# Exact McNemar: the binomial(n, 1/2) tail, with Loader's (2000) saddle-point pmf, which
# keeps ~1e-15 relative accuracy where lgamma differences lose digits (n up to 10**7+).


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


_S0, _S1, _S2, _S3, _S4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188


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


# ---------------------------------------------------------------------------------------
# Resampling. The draws are exposed so a test can replay them with a plain loop.

_CHUNK = 1 << 19  # random values held at once (4 MB of int64 indices)


def resample_indices(n_units: int, resamples: int, seed: int) -> Iterator[tuple[int, np.ndarray]]:
    """The bootstrap draws, as (first row, rows) chunks of a resamples x n_units matrix.

    Row r holds the n_units unit indices of resample r, drawn with replacement. All rows
    come from one ``np.random.default_rng(seed).integers(0, n_units, size=(rows, n_units))``
    stream, so the chunking, which only bounds memory, does not change the draws.
    """
    rng = np.random.default_rng(seed)
    step = max(1, _CHUNK // max(n_units, 1))
    for start in range(0, resamples, step):
        yield start, rng.integers(0, n_units, size=(min(step, resamples - start), n_units))


def sign_flip_bits(n_units: int, resamples: int, seed: int) -> Iterator[tuple[int, np.ndarray]]:
    """The sign-flip draws, as (first row, rows) chunks of a resamples x n_units 0/1 matrix.

    Bit 1 keeps a unit's difference, bit 0 flips it. Row r is the low n_units bits
    (little-endian) of ceil(n_units / 64) raw 64-bit words from
    ``PCG64(SeedSequence(seed, spawn_key=(1,)))``; chunking does not change the draws.
    """
    bitgen = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(1,)))
    words = -(-n_units // 64)
    step = max(1, _CHUNK // max(64 * words, 1))
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        raw = bitgen.random_raw(rows * words).astype("<u8", copy=False).reshape(rows, words)
        yield start, np.unpackbits(raw.view(np.uint8), axis=1, count=n_units, bitorder="little")


def _units(clusters: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row -> unit number, units ordered by first appearance; and rows per unit."""
    clusters = np.asarray(clusters)
    if clusters.shape != (n,):
        raise ValueError(f"clusters must hold one case id per row: {n} rows, got shape {clusters.shape}")
    _, first, inverse = np.unique(clusters, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    inverse = rank[inverse.reshape(-1)]
    return inverse, np.bincount(inverse, minlength=len(first))


def _large(n_units: int, resamples: int) -> bool:
    """Worth a second thread: more than a few chunks of draws."""
    return n_units * resamples > 4 * _CHUNK


def _pipelined(chunks: Iterator[tuple[int, np.ndarray]], work: Any, threaded: bool) -> None:
    """Run ``work(start, chunk)`` on every chunk; when ``threaded``, in a worker thread
    while this thread draws the next chunk (numpy releases the GIL in the random fill,
    ``bincount`` and ``einsum``), the draws staying one sequential stream."""
    if not threaded:
        for start, chunk in chunks:
            work(start, chunk)
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending: list[Any] = []
        for start, chunk in chunks:
            pending.append(pool.submit(work, start, chunk))
            if len(pending) > 2:  # bound the chunks held in memory
                pending.pop(0).result()
        for done in pending:
            done.result()


def _weighted_totals(weights: np.ndarray, columns: np.ndarray, out: np.ndarray) -> None:
    """out[:, j] = weights @ columns[j], with numpy's own loops: a threaded BLAS spin-waits
    badly on a busy two-core machine, and per-column sums keep every metric's figures
    independent of which other metrics are computed with it."""
    for j, column in enumerate(columns):
        out[:, j] = np.einsum("rg,g->r", weights, column)


def _bootstrap_totals(columns: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(resamples, q) totals over resampled units; columns is (q, G), a value per unit.

    Each resample's draws become counts per unit (``bincount``), so q metrics share one
    set of draws and pay one dot product each, not one gather each.
    """
    n_units = columns.shape[1]
    out = np.empty((resamples, len(columns)))
    buffer: list[np.ndarray] = []  # the worker's counts matrix, reused across chunks

    def reduce(start: int, idx: np.ndarray) -> None:
        if not buffer or len(buffer[0]) < len(idx):
            buffer[:] = [np.empty((len(idx), n_units))]
        counts = buffer[0][: len(idx)]
        for r, row in enumerate(idx):
            counts[r] = np.bincount(row, minlength=n_units)
        _weighted_totals(counts, columns, out[start : start + len(idx)])

    _pipelined(resample_indices(n_units, resamples, seed), reduce, _large(n_units, resamples))
    return out


def _bootstrap_means(sums: np.ndarray, sizes: np.ndarray | None, resamples: int, seed: int) -> np.ndarray:
    """(resamples, k) means of resampled units: sums is (k, G) per-unit difference sums,
    sizes (G,) rows per unit (None: one row each). A cluster resample's mean is over all
    its rows, the ratio of the summed sums to the summed sizes."""
    k, n_units = sums.shape
    if sizes is None:
        return _bootstrap_totals(np.ascontiguousarray(sums, dtype=float), resamples, seed) / n_units
    totals = _bootstrap_totals(np.vstack([sums, sizes]).astype(float), resamples, seed)
    return totals[:, :k] / totals[:, k:]


def _percentile_interval(means: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)  # linear interpolation
    return low, high


def _as_diffs(diffs: Any) -> np.ndarray:
    d = np.asarray(diffs, dtype=float)
    if d.ndim != 1:
        raise ValueError(f"diffs must be one-dimensional, got shape {d.shape}")
    if not np.isfinite(d).all():
        raise ValueError("diffs must be finite; drop the pairs with a missing score first")
    return d


def _check_resamples(resamples: Any) -> int:
    resamples = _count(resamples, "resamples")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    return resamples


def _unit_sums(d: np.ndarray, clusters: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-unit sums and sizes; sizes is None when every unit is one row (no repeats)."""
    if clusters is None:
        return d, None
    inverse, sizes = _units(clusters, len(d))
    if len(sizes) == len(d):  # no repeats: the units are the rows, in row order
        return d, None
    return np.bincount(inverse, weights=d, minlength=len(sizes)), sizes


def paired_bootstrap(
    diffs: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean paired difference.

    Resamples the cases with replacement ``resamples`` times (draws: ``resample_indices``)
    and takes the (1 - confidence) / 2 and (1 + confidence) / 2 quantiles of the
    resampled means (numpy's linear interpolation). With ``clusters`` (one case id per
    row, for repeats) whole cases are resampled with all their rows and each resample's
    mean is over all its rows (a cluster bootstrap); ids that never repeat give exactly the
    plain bootstrap. ``diffs`` must be finite; fewer than two cases gives (nan, nan).
    """
    d = _as_diffs(diffs)
    resamples, confidence = _check_resamples(resamples), _check_confidence(confidence)
    if len(d) == 0:
        return (math.nan, math.nan)
    sums, sizes = _unit_sums(d, clusters)
    if len(sums) < 2:
        return (math.nan, math.nan)
    low, high = _percentile_interval(_bootstrap_means(sums[None, :], sizes, resamples, seed), confidence)
    return (float(low[0]), float(high[0]))


# ---------------------------------------------------------------------------------------
# Sign-flip (paired randomization) test

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


def _sign_flip_monte_carlo(sums: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(k,) Monte Carlo p-values for the (k, G) unit sums, one set of flips for all k."""
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

    _pipelined(sign_flip_bits(sums.shape[1], resamples, seed), count, _large(sums.shape[1], resamples))
    return (1 + hits) / (1 + resamples)


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


def _sign_flip_pvalues(sums: np.ndarray, resamples: int, seed: int) -> list[tuple[float, str]]:
    out: list[tuple[float, str] | None] = [None] * len(sums)
    monte_carlo = []
    for j, s in enumerate(sums):
        exact = _sign_flip_exact_whole(s) if _is_whole(s) else None
        if exact is None and np.count_nonzero(s) <= _EXACT_FLIP_UNITS:
            exact = _sign_flip_exact(s)
        if exact is None:
            monte_carlo.append(j)
        else:
            out[j] = (exact, "exact")
    if monte_carlo:
        for j, p in zip(monte_carlo, _sign_flip_monte_carlo(sums[monte_carlo], resamples, seed)):
            bound = sign_flip_bound(sums[j])
            if bound < p:  # the exact p is below what the flips can show
                out[j] = (bound, f"Hoeffding's bound, below what {resamples:,} random flips show")
            else:
                out[j] = (float(p), f"{resamples:,} random flips")
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
    return _sign_flip_pvalues(sums[None, :], resamples, seed)[0][0]


# ---------------------------------------------------------------------------------------
# Multiple comparisons and power


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


def _check_power(alpha: float, power: float) -> tuple[float, float]:
    return _check_confidence(alpha, "alpha"), _check_confidence(power, "power")


def min_detectable_difference(sd_diff: float, n: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """(z_{1-alpha/2} + z_power) * sd_diff / sqrt(n): the smallest true mean difference a
    two-sided level-alpha test on n paired cases detects with the given power (normal
    approximation, plug-in sd). n < 2 gives inf."""
    n = _count(n, "n")
    alpha, power = _check_power(alpha, power)
    if n < 2:
        return math.inf
    return (normal_quantile(1 - alpha / 2) + normal_quantile(power)) * float(sd_diff) / math.sqrt(n)


def mcnemar_mdd(discordance: float, n: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest pass-rate difference (a fraction; x100 for points) McNemar's test detects.

    Connor (1987): n = (z_a sqrt(psi) + z_b sqrt(psi - d**2))**2 / d**2, with psi the
    discordance rate (b + c) / n, z_a = z_{1-alpha/2}, z_b = z_power, solved for d:
    d = sqrt(psi) (z_a sqrt(n) + z_b sqrt(n - z_a**2 + z_b**2)) / (n + z_b**2). For large n
    this is (z_a + z_b) sqrt(psi / n). psi = 0 gives 0.0; n <= z_a**2 (n < 4 at 5%) inf.
    """
    n = _count(n, "n")
    alpha, power = _check_power(alpha, power)
    psi = float(discordance)
    if not 0.0 <= psi <= 1.0:
        raise ValueError(f"discordance must be in [0, 1], got {discordance!r}")
    z_a, z_b = normal_quantile(1 - alpha / 2), normal_quantile(power)
    if n <= z_a * z_a:
        return math.inf
    if psi == 0.0:
        return 0.0
    return math.sqrt(psi) * (z_a * math.sqrt(n) + z_b * math.sqrt(n - z_a * z_a + z_b * z_b)) / (n + z_b * z_b)


# ---------------------------------------------------------------------------------------
# One metric, A versus B


@dataclass(frozen=True)
class PairedSummary:
    """The SPEC §8 figures for one metric; differences are A minus B.

    ``n`` counts the pairs where both sides have a score (``dropped`` the others) and
    ``n_cases`` the units resampled: distinct case ids when ``clustered`` (repeats were
    resampled together), else ``n``. ``ci_low``/``ci_high``: percentile bootstrap
    interval of ``mean_diff`` at ``confidence`` (stretched by rounding's last bit, where
    needed, to hold ``mean_diff``). ``mdd``: minimum detectable difference at this n (80%
    power, two-sided 5%), NaN when the differences have no spread to estimate it from
    (every pair differs alike or there are no discordant pairs). ``p_value`` tests "A and B are interchangeable"
    by ``p_method``; apply ``holm_adjust`` across metrics. Pass-rate fields, ``b`` (A
    passes, B fails) and ``c`` (A fails, B passes) are None unless pass/fail was given;
    ``binary`` says the scores are the pass indicators (a pass-or-fail grader), so the
    differences are pass-rate differences.
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
    metrics: list[_Metric], clusters: Any, resamples: int, seed: int, confidence: float, total_rows: int
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
    tests: list[tuple[float, str] | None] = [None] * len(metrics)
    flip = []
    for j, m in enumerate(metrics):
        if n == 0:
            tests[j] = (math.nan, "none (no pairs)")
        elif m.binary and not clustered:
            tests[j] = (mcnemar_exact(*m.discordant()), "McNemar exact")
        else:
            flip.append(j)

    def intervals() -> tuple[np.ndarray, np.ndarray]:
        if n_cases < 2:  # one case (or none) says nothing about spread
            return np.full(len(metrics), math.nan), np.full(len(metrics), math.nan)
        return _percentile_interval(_bootstrap_means(sums, sizes, resamples, seed), confidence)

    def flip_tests() -> list[tuple[float, str]]:
        return _sign_flip_pvalues(sums[flip], resamples, seed) if flip else []

    if flip and _large(n_cases, resamples):  # the flips run beside the bootstrap
        with ThreadPoolExecutor(max_workers=1) as pool:
            flipped = pool.submit(flip_tests)
            lows, highs = intervals()
            flip_results = flipped.result()
    else:
        (lows, highs), flip_results = intervals(), flip_tests()
    prefix = "cluster sign-flip" if clustered else "sign-flip"
    for j, (p, how) in zip(flip, flip_results):
        tests[j] = (p, f"{prefix}, {how}")
    for j, (p, how) in enumerate(tests):  # type: ignore[misc]
        if p < P_FLOOR:  # a tail past what a float holds: reported as its upper bound
            tests[j] = (P_FLOOR, f"{how}; p below {P_FLOOR:g}")

    out = []
    for j, m in enumerate(metrics):
        d = diffs[j]
        mean_diff = float(d.mean()) if n else math.nan
        sd = float(d.std(ddof=1)) if n >= 2 else math.nan
        extra: dict[str, Any] = {}
        if m.passed_a is not None:
            ka, kb = int(m.passed_a.sum()), int(m.passed_b.sum())
            bb, cc = m.discordant()
            extra = dict(
                pass_rate_a=ka / n if n else math.nan, pass_rate_a_ci=wilson_interval(ka, n, confidence),
                pass_rate_b=kb / n if n else math.nan, pass_rate_b_ci=wilson_interval(kb, n, confidence),
                b=bb, c=cc,
            )
        if clustered:
            z = normal_quantile(1 - _ALPHA / 2) + normal_quantile(_POWER)
            mdd = z * _cluster_se(sums[j], sizes, mean_diff)
        elif m.binary and n:
            mdd = mcnemar_mdd(extra["b"] / n + extra["c"] / n, n, alpha=_ALPHA, power=_POWER)
        else:
            mdd = min_detectable_difference(sd if n >= 2 else 0.0, n, alpha=_ALPHA, power=_POWER)
        if mdd == 0.0 or (n >= 2 and _no_spread(d)):  # no spread to estimate it from: unknown, not 0
            mdd = math.nan
        low, high = float(lows[j]), float(highs[j])
        if n and low <= high:  # the bootstrap means and d.mean() round differently: keep the estimate inside
            low, high = min(low, mean_diff), max(high, mean_diff)
        p, how = tests[j]
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
            p_value=p,
            p_method=how,
            n_cases=n_cases,
            binary=m.binary,
            dropped=total_rows - n,
            confidence=confidence,
            **extra,
        ))
    return out


def summarize_pairs(
    metrics: Mapping[str, Mapping[str, Any]],
    *,
    clusters: np.ndarray | None = None,
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, PairedSummary]:
    """``summarize_pair`` for several metrics over the same rows, drawing resamples once.

    ``metrics`` maps a name to summarize_pair's arrays, ``{"score_a": ..., "score_b": ...,
    "passed_a": ..., "passed_b": ...}`` (pass/fail optional). Each result equals the
    separate ``summarize_pair`` call: metrics that keep the same rows share one set of
    bootstrap and sign-flip draws, which is what separate calls with one seed draw.
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
        found = _summaries_for_rows([prepared[k] for k in names], clusters, resamples, seed, confidence, rows)
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
) -> PairedSummary:
    """Every SPEC §8 figure for one metric, A minus B, as a ``PairedSummary``.

    Pairs with a missing score (NaN or None) or a missing pass/fail on either side are
    dropped and counted in ``dropped``. Wins: A higher; losses: B higher; ties: exactly equal.
    Interval: ``paired_bootstrap`` (clustered when ``clusters`` repeat). p-value: exact
    McNemar on b and c when pass/fail is given and each score is its pass indicator
    (pass-or-fail graders, scored 1.0/0.0) without repeats; otherwise ``sign_flip_test``
    on the score differences (whole cases flipped with repeats). mdd: ``mcnemar_mdd`` in
    the McNemar case, the cluster-robust standard error times (z_0.975 + z_0.8) with
    repeats, else ``min_detectable_difference``. Pass rates get Wilson intervals, which
    treat rows as independent.
    """
    arrays = {"score_a": score_a, "score_b": score_b, "passed_a": passed_a, "passed_b": passed_b}
    return summarize_pairs({"metric": arrays}, clusters=clusters, resamples=resamples, seed=seed,
                           confidence=confidence)["metric"]


# ---------------------------------------------------------------------------------------
# Words for the dashboard


def _no_spread(d: np.ndarray) -> bool:
    """Every difference the same, up to rounding (0.9 - 0.7 and 0.7 - 0.5 differ by 1 ulp)."""
    return float(np.ptp(d)) <= 1e-9 * max(1.0, float(np.abs(d).max()))


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


def verdict_words(summary: PairedSummary, adjusted_p: float | None = None, *, alpha: float = 0.05) -> str:
    """A short plain-English reading of ``summary`` for the dashboard.

    ``adjusted_p`` is this metric's Holm-adjusted p-value (``holm_adjust`` over the metrics
    on screen); without it the unadjusted ``summary.p_value`` is used and called "p".
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
    p_text = "" if math.isnan(p) else f"{label}{_p_words(p)}"
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
        if s.mdd >= 1.0:  # beyond the largest possible difference of scores in [0, 1]
            largest = "100 points" if s.binary else "the largest possible, 1"
            words += f"; with {cases} not even a change of {largest} could be detected reliably"
        else:
            words += f"; with {cases} a change smaller than {plain_digits(s.mdd * scale)}{unit} could not be detected reliably"
    return f"{words}.{note}"
