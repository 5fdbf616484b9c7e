"""Exact sums of float scores: a mean over parts of the rows, added up part by part, that
rounds once and equals the mean over all the rows however they were split (the run
summary's ``mean_score`` in one process and on a Dask cluster, SPEC §11)."""

from __future__ import annotations

import numpy as np

# A float is m * 2**e with a 53-bit whole m and e >= -1074: as a whole multiple of
# 2**-_UNIT every finite float is exact, so sums of them add exactly in any order.
_UNIT = 1074 + 53
_PIECE = 18  # a 53-bit mantissa in three 18-bit pieces: each piece's sum over 2**35 rows is exact in a float


def score_total(values: np.ndarray) -> tuple[int | float, int]:
    """(the exact sum of the scores that are not NaN, as a whole number of 2**-_UNIT, and
    how many they are): what a mean over parts of the rows adds up part by part and still
    rounds once (``total_mean``), the same however the rows were split. With an infinite
    score the sum is a float (inf or NaN), as a float sum would be."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not len(v) or not np.isfinite(v).all():
        return (float(v.sum()) if len(v) else 0), len(v)
    if np.array_equal(v, np.trunc(v)) and float(np.abs(v).max()) * len(v) <= 2.0 ** 53:
        return int(v.sum()) << _UNIT, len(v)  # whole numbers (0 and 1: pass or fail) sum exactly as floats
    m, e = np.frexp(v)  # v = m * 2**e, 0.5 <= |m| < 1: m * 2**53 is a whole number
    whole = np.abs(m * 2.0 ** 53).astype(np.int64)
    low = int(e.min())
    at = e - low  # the exponents as bins (a float's span fewer than 2,100)
    negative = m < 0
    total = 0
    for k in range(3):
        piece = ((whole >> (_PIECE * k)) & ((1 << _PIECE) - 1)).astype(np.float64)
        if negative.any():
            piece[negative] *= -1.0
        sums = np.bincount(at, weights=piece)
        total += sum(int(s) << (b + low - 53 + _UNIT + _PIECE * k) for b, s in enumerate(sums.tolist()) if s)
    return total, len(v)


def add_totals(a: tuple[int | float, int], b: tuple[int | float, int]) -> tuple[int | float, int]:
    """Two ``score_total``s as one."""
    if isinstance(a[0], float) or isinstance(b[0], float):
        return float(a[0] if isinstance(a[0], float) else 0.0) + float(b[0] if isinstance(b[0], float) else 0.0), a[1] + b[1]
    return a[0] + b[0], a[1] + b[1]


def total_mean(total: tuple[int | float, int]) -> float | None:
    """The mean of a ``score_total``, rounded once (None for no scores)."""
    s, n = total
    if not n:
        return None
    return s / n if isinstance(s, float) else s / (n << _UNIT)
