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

from .ngrams import (
    Alphabet,
    Counts,
    Packed,
    char_ngrams,
    clipped_matches,
    code_points,
    corpus_statistics,
    pack,
    packable,
    packed_matches,
)
from .registry import THRESHOLD, register
from .result import Grade, continuous

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
        why = "character n-gram precision %.3f, recall %.3f, averaged over %d orders%s" % (
            r.precision,
            r.recall,
            r.orders,
            best,
        )
    elif not r.stats[1]:
        why = "the reference has no characters besides whitespace"
    else:
        why = "the output has no characters besides whitespace"
    return "chrF %.4f: %s. Settings %s." % (r.score, why, sig)


@register(
    "chrf",
    params=[THRESHOLD],
    binary=False,
    label="chrF",
    summary="character n-gram F-score (orders 1-6, beta 2) as sacrebleu computes it",
)
def grade_chrf(refs: tuple[str, ...], output: str, *, threshold: float | None = None) -> Grade:
    stats, index = best_statistics(refs, output)
    r = compute_chrf(stats)
    sig = signature(len(refs))
    best = f", against reference {index + 1} of {len(refs)} (the best)" if len(refs) > 1 else ""
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
