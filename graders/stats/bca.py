"""Bootstrap intervals of a mean difference beyond the plain percentile one (numpy and
``math`` only; tested against scipy's ``bootstrap``).

* ``expanded_levels``     Hesterberg's expanded percentile levels, for small n
* ``bca_levels``          Efron's bias-corrected and accelerated (BCa) levels
* ``bootstrap_interval``  the mean difference's interval by "percentile", "expanded" or "bca"

Every method reads the same draws (``resample_indices``), and with repeats resamples whole
cases, the mean of a resample being over all its rows. The percentile interval is too
narrow at small n: the bootstrap spread is the plug-in one (divisor n, not n - 1) and a
normal quantile stands where Student's would. The expanded percentile interval
(Hesterberg 2015, "What teachers should know about the bootstrap", The American
Statistician 69(4), section 4.3) reads the bootstrap distribution at
Phi(+-sqrt(G / (G - 1)) t_{(1 - confidence) / 2, G - 1}), G the cases resampled, which
tends to the percentile interval as G grows. BCa (Efron 1987; Efron & Tibshirani 1993,
section 14.3) reads it at Phi(z0 + (z0 + z) / (1 - a (z0 + z))), z0 from the share of
resampled means below the estimate (ties count half), a from the jackknife over cases.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from graders.stats.bootstrap import resampled_means
from graders.stats.intervals import _check_confidence, normal_quantile, t_quantile

METHODS = ("percentile", "expanded", "bca")


def normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def expanded_levels(units: int, confidence: float) -> tuple[float, float]:
    """The expanded percentile interval's levels for ``units`` cases (at least 2)."""
    tail = (1.0 - confidence) / 2
    z = math.sqrt(units / (units - 1)) * t_quantile(tail, units - 1)
    return normal_cdf(z), normal_cdf(-z)


def jackknife_means(sums: np.ndarray, sizes: np.ndarray | None) -> np.ndarray:
    """(k, G) leave-one-case-out means of the (k, G) per-case difference sums: with
    ``sizes`` (rows per case) the ratio (S - s_g) / (N - m_g), else (S - s_g) / (G - 1)."""
    total = sums.sum(axis=1, keepdims=True)
    if sizes is None:
        return (total - sums) / (sums.shape[1] - 1)
    return (total - sums) / (float(sizes.sum()) - sizes)


def bca_levels(boot: np.ndarray, theta: float, jack: np.ndarray, confidence: float) -> tuple[float, float] | None:
    """BCa levels from one metric's (R,) resampled means, its estimate and its (G,)
    jackknife means, as scipy's ``bootstrap(method="BCa")`` computes them; None where
    they are undefined (every resample on one side of the estimate, or no spread)."""
    below = np.count_nonzero(boot < theta) + np.count_nonzero(boot <= theta)
    share = below / (2.0 * len(boot))
    if not 0.0 < share < 1.0:
        return None
    z0 = normal_quantile(share)
    if not float(np.ptp(jack)) > 1e-12 * max(1.0, float(np.abs(jack).max())):  # no spread, up to rounding
        return None
    u = (len(jack) - 1) * (jack.mean() - jack)
    spread = float(u @ u)
    a = float((u**3).sum()) / (6.0 * spread**1.5)
    z = normal_quantile((1.0 - confidence) / 2)
    levels = []
    for zz in (z, -z):
        shifted = z0 + zz
        denominator = 1.0 - a * shifted
        if denominator <= 0.0:
            return None
        levels.append(normal_cdf(z0 + shifted / denominator))
    low, high = levels
    return (low, high) if 0.0 <= low <= high <= 1.0 and math.isfinite(low + high) else None


def read_levels(boot: np.ndarray, levels: tuple[float, float]) -> tuple[float, float]:
    """The resampled means at two levels (numpy's linear interpolation, as scipy's)."""
    low, high = np.quantile(boot, list(levels))
    return float(low), float(high)


def intervals_by(method: str, means: np.ndarray, sums: np.ndarray, sizes: np.ndarray | None,
                 confidence: float) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per metric, the interval of ``method`` from its (R, k) resampled means and (k, G)
    per-case sums; and the method each used: BCa falls back to the percentile interval
    where its levels are undefined (and says so)."""
    k, units = sums.shape
    lows, highs, used = np.empty(k), np.empty(k), []
    tail = (1.0 - confidence) / 2
    if method == "expanded":
        levels = expanded_levels(units, confidence)
    jack = jackknife_means(sums, sizes) if method == "bca" else None
    for j in range(k):
        boot = means[:, j]
        if method == "percentile":
            lows[j], highs[j] = read_levels(boot, (tail, 1.0 - tail))
            used.append("percentile bootstrap")
        elif method == "expanded":
            lows[j], highs[j] = read_levels(boot, levels)
            used.append("expanded percentile bootstrap")
        else:
            theta = float(sums[j].sum() / (units if sizes is None else sizes.sum()))
            found = bca_levels(boot, theta, jack[j], confidence)
            if found is None:
                lows[j], highs[j] = read_levels(boot, (tail, 1.0 - tail))
                used.append("percentile bootstrap (BCa undefined here)")
            else:
                lows[j], highs[j] = read_levels(boot, found)
                used.append("BCa bootstrap")
    return lows, highs, used


def bootstrap_interval(
    diffs: Any, *, clusters: Any = None, resamples: int = 2000, confidence: float = 0.95, seed: int = 0,
    method: str = "expanded",
) -> tuple[float, float]:
    """The interval of the mean paired difference by ``method`` ("percentile": as
    ``paired_bootstrap``; "expanded"; "bca"), over the draws ``paired_bootstrap`` uses.
    Fewer than two cases give (nan, nan)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    drawn = resampled_means(diffs, clusters, resamples, confidence, seed)
    if drawn is None:
        return (math.nan, math.nan)
    sums, sizes, means = drawn
    lows, highs, _ = intervals_by(method, means, sums[None, :], sizes, _check_confidence(confidence))
    return float(lows[0]), float(highs[0])
