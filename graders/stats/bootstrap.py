"""Resampling: the seeded draws every metric shares, and the paired bootstrap interval.

* ``resample_indices``      bootstrap draws of units (cases, or whole cases with repeats)
* ``sign_flip_bits``        random sign patterns for the sign-flip test
* ``paired_bootstrap``      percentile bootstrap interval of the mean difference

Randomness: the bootstrap draws from ``np.random.default_rng(seed)``; the sign flips from
an independent stream, ``SeedSequence(seed, spawn_key=(1,))``. Both depend only on
(number of units, resamples, seed). Large inputs draw in one thread while a second
reduces (numpy releases the GIL); the figures do not depend on it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from graders.stats.intervals import _check_confidence, _count

# The draws are exposed so a test can replay them with a plain loop.


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


def sign_flip_bits(n_units: int, resamples: int, seed: int, start: int = 0) -> Iterator[tuple[int, np.ndarray]]:
    """The sign-flip draws, as (first row, rows) chunks of a resamples x n_units 0/1 matrix.

    Bit 1 keeps a unit's difference, bit 0 flips it. Row r is the low n_units bits
    (little-endian) of ceil(n_units / 64) raw 64-bit words from
    ``PCG64(SeedSequence(seed, spawn_key=(1,)))``; chunking does not change the draws.
    ``start``: the rows from ``start`` on (the stream advanced past the rows before it),
    so that more flips continue the same sequence; the first row yielded is numbered 0.
    """
    bitgen = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(1,)))
    words = -(-n_units // 64)
    if start:
        bitgen.advance(start * words)
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
    drawn = resampled_means(diffs, clusters, resamples, confidence, seed)
    if drawn is None:
        return (math.nan, math.nan)
    low, high = _percentile_interval(drawn[2], _check_confidence(confidence))
    return (float(low[0]), float(high[0]))


def resampled_means(
    diffs: Any, clusters: Any, resamples: int, confidence: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The case sums, case sizes and ``resamples`` bootstrap means (one row) that
    ``paired_bootstrap`` draws, after checking the settings; None for fewer than two cases."""
    d = _as_diffs(diffs)
    resamples = _check_resamples(resamples)
    _check_confidence(confidence)
    if len(d) == 0:
        return None
    sums, sizes = _unit_sums(d, clusters)
    if len(sums) < 2:
        return None
    return sums, sizes, _bootstrap_means(sums[None, :], sizes, resamples, seed)
