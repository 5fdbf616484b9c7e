"""chrF (Popović 2015) exactly as sacrebleu 2.x computes it.

Settings: character n-grams of orders 1-6 over code points, word order 0, beta 2, mixed
case, all whitespace removed (the 29 ``str.split`` characters), no epsilon smoothing:
precision and recall are averaged over the orders where both the output and the
reference have n-grams (sacrebleu's "effective order", ``eff:yes``), then combined as
F-beta. With several references, a row takes the statistics of the reference with the
best F score (the first on a tie). An empty side scores 0.

Sentence and corpus figures are one ``compute_chrf`` over per-order statistics: a row's
own, or their sum over the corpus. Matches come from sets and dicts of n-gram strings,
or from numpy-packed keys once either side has ``PACK_FROM`` characters (the same
integers); a reference's side is cached (32 references each way).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Sequence

import numpy as np

from graders.metrics.base import BELOW_THRESHOLD_REACH, THRESHOLD, GraderSpec
from graders.result import Block, Grade, continuous, score_text
from graders.text.ngrams import (
    Alphabet,
    Counts,
    Packed,
    char_ngrams,
    clipped_matches,
    code_points,
    column_code_points,
    column_matches,
    corpus_statistics,
    pack,
    packable,
    packed_matches,
)

CHAR_ORDER = 6
BETA = 2
# Statistics layout (sacrebleu's): [hyp_count, ref_count, matches] per order, flattened.
N_STATS = 3 * CHAR_ORDER


@lru_cache(maxsize=None)
def signature(nrefs: int | str) -> str:
    return f"chrf|nrefs:{nrefs}|case:mixed|eff:yes|nc:{CHAR_ORDER}|nw:0|space:no|beta:{BETA}"


class CHRFResult(NamedTuple):
    """A chrF figure and the statistics behind it (scaled to [0, 1])."""

    score: float  # in [0, 1]
    precision: float  # averaged over the effective orders
    recall: float
    orders: int  # effective orders
    stats: tuple[int, ...]


def _f_percent(stats: Sequence[int]) -> tuple[float, float, float, int]:
    """sacrebleu's ``CHRF._compute_f_score`` (eps_smoothing off), operation for operation.

    Returns the score in percent (on which the best reference is chosen, as sacrebleu
    does), the averaged precision and recall, and the number of effective orders.
    """
    factor = BETA**2
    avg_prec = avg_rec = 0.0
    orders = 0
    for i in range(CHAR_ORDER):
        n_hyp, n_ref, n_match = stats[3 * i : 3 * i + 3]
        if n_hyp > 0 and n_ref > 0:
            avg_prec += n_match / n_hyp
            avg_rec += n_match / n_ref
            orders += 1
    if orders:
        avg_prec /= orders
        avg_rec /= orders
    if not avg_prec + avg_rec:
        return 0.0, avg_prec, avg_rec, orders
    score = (1 + factor) * avg_prec * avg_rec
    score /= (factor * avg_prec) + avg_rec
    return 100 * score, avg_prec, avg_rec, orders


def compute_chrf(stats: Sequence[int]) -> CHRFResult:
    """chrF from (summed) statistics."""
    percent, prec, rec, orders = _f_percent(stats)
    return CHRFResult(min(percent / 100, 1.0), prec, rec, orders, tuple(stats))


# From this many characters (whitespace removed) on either side, packed n-grams (numpy)
# beat dicts of n-gram strings; below it numpy's fixed cost per call dominates.
PACK_FROM = 64


@lru_cache(maxsize=32)
def _ref_counts(text: str) -> Counts:
    grams = char_ngrams(text, CHAR_ORDER)
    return Counts.of(lambda: grams, len(text))


@lru_cache(maxsize=32)
def _ref_packed(text: str) -> tuple[Alphabet, Packed] | None:
    """The reference's alphabet and packed n-grams; None when the alphabet is too large."""
    codes = code_points(text)
    alphabet = Alphabet.of(codes)
    if not packable(alphabet.base, CHAR_ORDER):
        return None
    return alphabet, pack(alphabet.number(codes), alphabet.base, CHAR_ORDER)


def clear_caches() -> None:
    _ref_counts.cache_clear()
    _ref_packed.cache_clear()


class _Hypothesis:
    """The output with whitespace removed, its n-grams built once in the form a reference needs."""

    __slots__ = ("text", "_grams", "_codes")

    def __init__(self, output: str) -> None:
        self.text = "".join(output.split())
        self._grams: list | None = None
        self._codes = None

    def matches(self, ref: str) -> list[int]:
        if self.text == ref:
            return [max(len(ref) - n, 0) for n in range(CHAR_ORDER)]
        if max(len(self.text), len(ref)) >= PACK_FROM:
            packed = _ref_packed(ref)
            if packed is not None:
                if self._codes is None:
                    self._codes = code_points(self.text)
                alphabet, ngrams = packed
                return packed_matches(alphabet.number(self._codes), ngrams, CHAR_ORDER)
        if self._grams is None:
            self._grams = char_ngrams(self.text, CHAR_ORDER)
        return clipped_matches(self._grams, _ref_counts(ref), len(self.text))


def _statistics(hyp: _Hypothesis, ref: str) -> list[int]:
    hyp_len, ref_len = len(hyp.text), len(ref)
    stats = []
    for n, matches in enumerate(hyp.matches(ref)):
        ref_total = ref_len - n if ref_len > n else 0
        # sacrebleu counts no output n-grams of an order the reference lacks.
        hyp_total = hyp_len - n if hyp_len > n and ref_total else 0
        stats += (hyp_total, ref_total, matches)
    return stats


def best_statistics(refs: tuple[str, ...], output: str) -> tuple[list[int], int]:
    """A row's statistics against its best reference (highest F; the first on a tie), and
    that reference's index."""
    hyp = _Hypothesis(output)
    if len(refs) == 1:
        return _statistics(hyp, "".join(refs[0].split())), 0
    best, best_index, best_score = [], 0, -1.0
    for i, ref in enumerate(refs):
        stats = _statistics(hyp, "".join(ref.split()))
        score = _f_percent(stats)[0]
        if score > best_score:
            best, best_index, best_score = stats, i, score
    return best, best_index


def segment_statistics(refs: tuple[str, ...], output: str) -> list[int]:
    """One row's statistics: [hyp_count, ref_count, matches] per order, best reference."""
    return best_statistics(refs, output)[0]


def sentence_chrf(refs: tuple[str, ...], output: str) -> CHRFResult:
    """``sacrebleu.sentence_chrf(output, refs)``, score divided by 100."""
    return compute_chrf(segment_statistics(refs, output))


def corpus_chrf(outputs: Sequence[str], references: Sequence[str | Sequence[str]]) -> float:
    """Corpus chrF in [0, 1]: ``references[i]`` is row ``i``'s reference or list of references.

    Equals ``sacrebleu.corpus_chrf(outputs, streams).score / 100`` where the streams are
    the transposed references, shorter rows padded with ``None``.
    """
    stats = corpus_statistics("corpus_chrf", outputs, references, segment_statistics, N_STATS)
    return compute_chrf(stats).score


def explain(r: CHRFResult, sig: str, best: str = "") -> str:
    if r.orders:
        why = "character n-gram precision %.3f, recall %.3f, %s%s" % (
            r.precision,
            r.recall,
            "of order 1 alone" if r.orders == 1 else "averaged over %d orders" % r.orders,
            best,
        )
    elif not r.stats[1]:
        why = "the reference has no characters besides whitespace"
    else:
        why = "the output has no characters besides whitespace"
    return "chrF %s: %s. Settings %s." % (score_text(r.score), why, sig)


def _f_columns(stats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``_f_percent`` of each row of a statistics array: the same float operations in
    the same order, elementwise (so the same doubles)."""
    factor = BETA**2
    zero = np.zeros(len(stats))
    prec, rec, orders = zero.copy(), zero.copy(), np.zeros(len(stats), dtype=np.int64)
    for i in range(CHAR_ORDER):
        n_hyp, n_ref, n_match = stats[:, 3 * i], stats[:, 3 * i + 1], stats[:, 3 * i + 2]
        eff = (n_hyp > 0) & (n_ref > 0)
        prec = np.where(eff, prec + n_match / np.where(eff, n_hyp, 1), prec)
        rec = np.where(eff, rec + n_match / np.where(eff, n_ref, 1), rec)
        orders += eff
    some = orders > 0
    prec = np.where(some, prec / np.maximum(orders, 1), prec)
    rec = np.where(some, rec / np.maximum(orders, 1), rec)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = (1 + factor) * prec * rec
        score = score / ((factor * prec) + rec)
    percent = np.where(prec + rec != 0, 100 * score, 0.0)
    return percent, prec, rec, orders


def column_results(refs: Sequence[tuple[str, ...]], outputs: Sequence[str]) -> list[tuple[CHRFResult, int]]:
    """``compute_chrf(best_statistics(...))`` and the best reference's index for every row
    of a column (rows with at least one reference), the n-grams of all rows counted at once
    (``ngrams.column_matches``)."""
    hyps = ["".join(o.split()) for o in outputs]
    pair_hyps: list[str] = []
    pair_refs: list[str] = []
    for rs, hyp in zip(refs, hyps):
        for ref in rs:
            pair_hyps.append(hyp)
            pair_refs.append("".join(ref.split()))
    h_ids, h_lens, r_ids, r_lens = column_code_points(pair_hyps, pair_refs)
    matches = column_matches(h_ids, h_lens, r_ids, r_lens, CHAR_ORDER)
    stats = np.empty((len(pair_hyps), N_STATS), dtype=np.int64)
    for n in range(CHAR_ORDER):
        ref_total = np.maximum(r_lens - n, 0)
        # sacrebleu counts no output n-grams of an order the reference lacks.
        stats[:, 3 * n] = np.where((h_lens > n) & (ref_total > 0), h_lens - n, 0)
        stats[:, 3 * n + 1] = ref_total
        stats[:, 3 * n + 2] = matches[:, n]
    percent, prec, rec, orders = _f_columns(stats)
    score = np.minimum(percent / 100, 1.0).tolist()
    percent, prec, rec, orders = percent.tolist(), prec.tolist(), rec.tolist(), orders.tolist()
    stats_rows = list(map(tuple, stats.tolist()))
    out: list[tuple[CHRFResult, int]] = []
    at = 0
    for rs in refs:
        best = at
        for j in range(at + 1, at + len(rs)):  # the highest F, the first on a tie
            if percent[j] > percent[best]:
                best = j
        out.append((CHRFResult(score[best], prec[best], rec[best], orders[best], stats_rows[best]), best - at))
        at += len(rs)
    return out


def _grade_of(r: CHRFResult, index: int, nrefs: int, threshold: float | None) -> Grade:
    sig = signature(nrefs)
    best = f", against reference {index + 1} of {nrefs} (the best)" if nrefs > 1 else ""
    return continuous(
        r.score,
        threshold,
        explain(r, sig, best),
        signature=sig,
        precision=r.precision,
        recall=r.recall,
        effective_orders=r.orders,
        best_reference=index,
        stats=r.stats,
    )


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], *, threshold: float | None = None) -> Block:
    """chrF over a column (``run`` on each row, near-miss code included): the statistics of
    every row at once, then each row's grade from its statistics."""
    from graders.metrics.base import run

    block = Block(len(outputs))
    some = [i for i, r in enumerate(refs) if r]
    found = column_results([refs[i] for i in some], [outputs[i] for i in some])
    for i, (r, index) in zip(some, found):
        g = _grade_of(r, index, len(refs[i]), threshold)
        block.set(i, g)
        if g.status == "fail" and g.score >= threshold - BELOW_THRESHOLD_REACH:
            block.near_miss[i] = ("below_threshold",)
    if len(some) < len(refs):
        spec = SPEC
        for i in sorted(set(range(len(refs))) - set(some)):
            block.set(i, run(spec, refs[i], outputs[i], {"threshold": threshold}))
    return block


def grade_chrf(refs: tuple[str, ...], output: str, *, threshold: float | None = None) -> Grade:
    stats, index = best_statistics(refs, output)
    return _grade_of(compute_chrf(stats), index, len(refs), threshold)


SPEC = GraderSpec(
    name="chrf",
    func=grade_chrf,
    params=[THRESHOLD],
    binary=False,
    label="chrF",
    summary="character n-gram F-score (orders 1-6, beta 2) as sacrebleu computes it",
    batch=grade_many,
)
