"""A paired bootstrap of a corpus-level score difference (Koehn 2004; sacrebleu's
``--paired-bs``), numpy and ``math`` only.

A corpus score (BLEU, chrF) is a function of the sentence statistics summed over the
corpus, not a mean of sentence scores. Each resample draws cases with replacement (the
draws of ``resample_indices``: with the same seed and resamples, the indices
``sacrebleu.significance`` draws, ``default_rng(seed).choice(n, (resamples, n))``), sums
both systems' statistics over the same draw, and scores each. With repeats, a case's rows
are summed first and whole cases are drawn.

The p-value is sacrebleu's (after Moses' ``bootstrap-hypothesis-difference-significance.pl``
and MultEval): the resampled absolute differences |A* - B*|, centred on their mean, are
compared with the observed |A - B|; p = (1 + #{centred > observed}) / (1 + resamples).
The interval is the percentile interval of the resampled differences A* - B*.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graders.stats.bootstrap import _check_resamples, _percentile_interval, _units, resample_indices
from graders.stats.intervals import _check_confidence


@dataclass(frozen=True)
class CorpusComparison:
    """``score_a``/``score_b``: the corpus scores; ``diff`` A - B; ``ci_low``/``ci_high``
    the percentile interval of the resampled differences; ``p_value`` sacrebleu's;
    ``mean_a``/``mean_b`` and ``half_width_a``/``half_width_b``: each system's bootstrap
    mean and 95% half-width as sacrebleu prints them ("mu +- ci"); ``n`` rows, ``cases``
    cases resampled."""

    score_a: float
    score_b: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    mean_a: float
    mean_b: float
    half_width_a: float
    half_width_b: float
    n: int
    cases: int
    resamples: int
    seed: int


def sacrebleu_interval(scores: np.ndarray) -> tuple[float, float]:
    """(mean, half-width) as ``sacrebleu.significance.estimate_ci``: the sorted scores'
    entries n // 40 and n - n // 40 - 1."""
    ordered = np.sort(scores)
    n = len(ordered)
    low = n // 40
    return float(ordered.mean()), 0.5 * float(ordered[n - low - 1] - ordered[low])


def _bootstrap_sums(per_case: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(resamples, q) sums of the (G, q) per-case statistics over each resample's cases
    (``resample_indices``' draws): one product per chunk of draws, in numpy's own loops (a
    threaded BLAS spin-waits badly on a busy machine). The statistics are whole numbers,
    summed exactly in floats below 2**53."""
    cases = len(per_case)
    out = np.empty((resamples, per_case.shape[1]))
    for start, idx in resample_indices(cases, resamples, seed):
        counts = np.empty((len(idx), cases))
        for r, row in enumerate(idx):
            counts[r] = np.bincount(row, minlength=cases)
        out[start:start + len(idx)] = np.einsum("rg,gq->rq", counts, per_case)  # numpy's loops, not a threaded BLAS
    return out


def paired_corpus_bootstrap(
    stats_a: Any, stats_b: Any, score: Callable[[np.ndarray], float], *, clusters: Any = None,
    resamples: int = 1000, seed: int = 12345, confidence: float = 0.95,
) -> CorpusComparison:
    """The paired bootstrap of ``score``(summed statistics of A) - ``score``(of B).

    ``stats_a``, ``stats_b``: (n, q) whole-number sentence statistics, row i of each the
    same case; ``score`` maps q summed statistics (whole numbers) to the corpus score.
    ``clusters``: one case id per row, for repeats."""
    resamples, confidence = _check_resamples(resamples), _check_confidence(confidence)
    sa, sb = np.asarray(stats_a, dtype=np.int64), np.asarray(stats_b, dtype=np.int64)
    if sa.ndim != 2 or sa.shape != sb.shape or not len(sa):
        raise ValueError(f"need two (n, q) statistics arrays of one shape with n >= 1, got {sa.shape} and {sb.shape}")
    n, q = sa.shape
    if clusters is not None:
        inverse, sizes = _units(clusters, n)
        per_case = np.zeros((len(sizes), 2 * q), dtype=np.int64)
        np.add.at(per_case, inverse, np.hstack([sa, sb]))
    else:
        per_case = np.hstack([sa, sb])
    cases = len(per_case)

    def scored(summed: np.ndarray) -> float:
        return float(score(np.rint(summed).astype(np.int64).tolist()))

    score_a, score_b = scored(sa.sum(axis=0)), scored(sb.sum(axis=0))
    totals = _bootstrap_sums(per_case.astype(float), resamples, seed)  # the same draws for both systems
    boot_a = np.array([scored(row[:q]) for row in totals])
    boot_b = np.array([scored(row[q:]) for row in totals])
    diffs = boot_a - boot_b
    low, high = _percentile_interval(diffs[:, None], confidence)
    observed = abs(score_b - score_a)
    spread = np.abs(diffs)
    centred = spread - spread.mean()
    p = (1 + int(np.sum(centred > observed))) / (1 + resamples)
    mean_a, half_a = sacrebleu_interval(boot_a)
    mean_b, half_b = sacrebleu_interval(boot_b)
    diff = score_a - score_b
    return CorpusComparison(score_a, score_b, diff, float(low[0]), float(high[0]), p, mean_a, mean_b, half_a, half_b, n, cases,
                            resamples, seed)
