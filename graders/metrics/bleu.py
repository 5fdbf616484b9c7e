"""BLEU (Papineni et al., 2002) exactly as sacrebleu 2.x computes it.

Settings: BLEU-4 with uniform weights, mixed case, 13a tokenization after stripping
trailing whitespace, counts clipped by the per-n-gram maximum over the references,
the closest reference length for the brevity penalty (a tie goes to the shorter), and
exponential smoothing (Chen & Cherry method 3, mteval's NIST smoothing). Sentence BLEU
uses the effective order (orders the output is too short to have are left out);
corpus BLEU does not. Either is 0 when no n-gram of any order matches.

Sentence and corpus figures are one ``compute_bleu`` over sufficient statistics: a
sentence's own, or their sum over the corpus. The statistics come one of two ways, to the
same integers: sets and dicts of token tuples, or numpy-packed n-gram keys once the
output or a reference reaches ``PACK_FROM`` characters. Either way a reference's side is
cached (32 reference tuples: enough for the outputs compared on a row and its repeats, and
few enough that the garbage collector seldom has to walk the cached n-grams). A column
of rows with one reference each has a third way (``column_statistics``): every row's
tokens numbered in one vocabulary and all n-grams counted at once, to the same integers.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import chain, count, repeat
from typing import NamedTuple, Sequence

import numpy as np

from graders.metrics.base import BELOW_THRESHOLD_REACH, THRESHOLD, GraderSpec
from graders.result import Block, Grade, continuous, score_text
from graders.text.ngrams import (
    Counts,
    Packed,
    clipped_matches,
    column_matches,
    corpus_statistics,
    dense_ranks,
    pack,
    pack_max,
    packable,
    packed_matches,
    word_ngrams,
)
from graders.text.tokenizer_13a import tokens_13a

MAX_ORDER = 4  # word_ngrams gives orders 1-4
# Statistics layout (sacrebleu's): [hyp_len, ref_len, correct_1..4, total_1..4].
N_STATS = 2 + 2 * MAX_ORDER


@lru_cache(maxsize=None)
def signature(nrefs: int | str, effective_order: bool) -> str:
    eff = "yes" if effective_order else "no"
    return f"bleu|nrefs:{nrefs}|case:mixed|eff:{eff}|tok:13a|smooth:exp"


class BLEUResult(NamedTuple):
    """A BLEU figure and the numbers behind it (sacrebleu's ``BLEUScore``, scaled to [0, 1])."""

    score: float  # in [0, 1]
    precisions: tuple[float, ...]  # smoothed, in [0, 1]
    brevity_penalty: float
    hyp_len: int
    ref_len: int
    correct: tuple[int, ...]
    total: tuple[int, ...]


@lru_cache(maxsize=32)
def _reference_info(refs: tuple[str, ...]) -> tuple[tuple[int, ...], Counts]:
    """The references' lengths and their n-gram counts, the maximum over references."""
    if len(refs) == 1:
        tokens = tokens_13a(refs[0].rstrip())
        return (len(tokens),), Counts.of_words(tokens)
    token_lists = [tokens_13a(r.rstrip()) for r in refs]
    return tuple(map(len, token_lists)), Counts.merged([Counts.of_words(tokens) for tokens in token_lists])


# From this many characters in the output or a reference on, packed n-grams (numpy)
# beat dicts of token tuples; below it numpy's fixed cost per call dominates.
PACK_FROM = 400


@lru_cache(maxsize=32)
def _reference_packed(refs: tuple[str, ...]) -> tuple[tuple[int, ...], dict[str, int], Packed] | None:
    """The references' lengths, their vocabulary (token -> symbol number) and packed n-grams.

    A token's number is the position of its first occurrence over the references, 1 on
    (``setdefault`` numbers the tokens in the same pass that reads them, so numbers skip
    the repeats: the base is one more than the number of tokens, not of distinct ones).
    """
    token_lists = [tokens_13a(r.rstrip()) for r in refs]
    vocab: dict[str, int] = {}
    numbers = count(1)
    ids = [np.fromiter(map(vocab.setdefault, t, numbers), np.int64, len(t)) for t in token_lists]
    base = sum(map(len, token_lists)) + 2
    if not packable(base, MAX_ORDER):
        # Too many tokens for keys of these digits: number only the distinct ones.
        vocab = dict(zip(vocab, count(1)))
        base = len(vocab) + 2
        if not packable(base, MAX_ORDER):
            return None
        ids = [np.fromiter(map(vocab.__getitem__, t), np.int64, len(t)) for t in token_lists]
    packs = [pack(i, base, MAX_ORDER) for i in ids]
    return tuple(map(len, token_lists)), vocab, pack_max(packs)


def clear_caches() -> None:
    _reference_info.cache_clear()
    _reference_packed.cache_clear()


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``; a tie goes to the shorter."""
    if len(ref_lens) == 1:
        return ref_lens[0]
    return min(ref_lens, key=lambda r: (abs(hyp_len - r), r))


_TOTALS = [tuple(h - n if h > n else 0 for n in range(MAX_ORDER)) for h in range(MAX_ORDER)]


def _totals(hyp_len: int) -> tuple[int, ...]:
    if hyp_len >= MAX_ORDER:
        return (hyp_len, hyp_len - 1, hyp_len - 2, hyp_len - 3)
    return _TOTALS[hyp_len]


def _segment(refs: tuple[str, ...], output: str) -> tuple[int, int, list[int] | tuple[int, ...], tuple[int, ...]]:
    """One row's (hyp_len, ref_len, correct_1..4, total_1..4)."""
    packed = None
    if len(output) >= PACK_FROM or (len(refs[0]) if len(refs) == 1 else max(map(len, refs))) >= PACK_FROM:
        packed = _reference_packed(refs)
    if packed is not None:
        ref_lens, vocab, ref_ngrams = packed
    else:
        ref_lens, ref_counts = _reference_info(refs)
    if output in refs:  # every output n-gram is in that reference, at least as often
        hyp_len = ref_lens[refs.index(output)]
        total = _totals(hyp_len)
        return hyp_len, closest_ref_len(hyp_len, ref_lens), total, total
    tokens = tokens_13a(output.rstrip())
    hyp_len = len(tokens)
    if packed is not None:
        ids = np.fromiter(map(vocab.get, tokens, repeat(ref_ngrams.base - 1)), np.int64, hyp_len)
        correct = packed_matches(ids, ref_ngrams, MAX_ORDER)
    else:
        correct = clipped_matches(word_ngrams(tokens), ref_counts, hyp_len)
    ref_len = ref_lens[0] if len(ref_lens) == 1 else closest_ref_len(hyp_len, ref_lens)
    return hyp_len, ref_len, correct, _totals(hyp_len)


def segment_statistics(refs: tuple[str, ...], output: str) -> list[int]:
    """One row's sufficient statistics: [hyp_len, ref_len, correct_1..4, total_1..4]."""
    hyp_len, ref_len, correct, total = _segment(refs, output)
    return [hyp_len, ref_len, *correct, *total]


_ZEROS = (0.0,) * MAX_ORDER


def compute_bleu(stats: Sequence[int], effective_order: bool) -> BLEUResult:
    """BLEU from (summed) statistics: sacrebleu's ``BLEU.compute_bleu`` with ``exp`` smoothing."""
    return _bleu(stats[0], stats[1], tuple(stats[2 : 2 + MAX_ORDER]), tuple(stats[2 + MAX_ORDER : N_STATS]), effective_order)


def _bleu(hyp_len: int, ref_len: int, correct: tuple[int, ...], total: tuple[int, ...], effective_order: bool) -> BLEUResult:
    bp = 1.0
    if hyp_len < ref_len:
        bp = math.exp(1 - ref_len / hyp_len) if hyp_len > 0 else 0.0
    if not any(correct):
        return BLEUResult(0.0, _ZEROS, bp, hyp_len, ref_len, correct, total)
    # Precisions in percent as sacrebleu computes them (in [0, 1] in the result), up to
    # the first order the output is too short to have, and the sum of their logs.
    precisions = []
    log_sum = 0.0
    smooth = 1.0
    log = math.log
    for c, t in zip(correct, total):
        if not t:
            break
        if c:
            p = 100.0 * c / t
        else:
            smooth *= 2
            p = 100.0 / (smooth * t)
        precisions.append(p / 100)
        log_sum += log(p)
    order = len(precisions)
    if effective_order or order == MAX_ORDER:
        score = bp * math.exp(log_sum / order)
    else:
        score = 0.0  # sacrebleu: log(0) is -9999999999 for a missing order, exp(-huge) = 0
    if order < MAX_ORDER:
        precisions += _ZEROS[order:]
    return BLEUResult(min(score / 100, 1.0), tuple(precisions), bp, hyp_len, ref_len, correct, total)


def sentence_bleu(refs: tuple[str, ...], output: str) -> BLEUResult:
    """``sacrebleu.sentence_bleu(output, refs)``, score divided by 100."""
    return compute_bleu(segment_statistics(refs, output), effective_order=True)


def corpus_bleu(outputs: Sequence[str], references: Sequence[str | Sequence[str]]) -> float:
    """Corpus BLEU in [0, 1]: ``references[i]`` is row ``i``'s reference or list of references.

    Equals ``sacrebleu.corpus_bleu(outputs, streams).score / 100`` where the streams are
    the transposed references, shorter rows padded with ``None`` (sacrebleu drops a
    ``None`` reference; an empty string is a reference of length 0). No effective order.
    """
    stats = corpus_statistics("corpus_bleu", outputs, references, segment_statistics, N_STATS)
    return compute_bleu(stats, effective_order=False).score


def explain(r: BLEUResult, sig: str) -> str:
    hyp_len, correct, total = r.hyp_len, r.correct, r.total
    if hyp_len == 0:
        why = "the output has no tokens"
    elif not any(correct):
        why = "no output token matches a reference"
    elif hyp_len >= MAX_ORDER:  # every order: one format for the common case
        why = "n-gram precisions %d/%d, %d/%d, %d/%d, %d/%d%s" % (
            correct[0],
            total[0],
            correct[1],
            total[1],
            correct[2],
            total[2],
            correct[3],
            total[3],
            " (an order with no match is exp-smoothed)" if 0 in correct else "",
        )
    else:
        k = hyp_len  # the orders the output has
        why = "n-gram precisions %s%s" % (
            ", ".join(["%d/%d" % m for m in zip(correct[:k], total[:k])]),
            " (an order with no match is exp-smoothed)" if 0 in correct[:k] else "",
        )
    return "BLEU %s: %s; brevity penalty %.3f (tokens: output %d, closest reference %d). Settings %s." % (
        score_text(r.score),
        why,
        r.brevity_penalty,
        hyp_len,
        r.ref_len,
        sig,
    )


def column_statistics(refs: Sequence[str], outputs: Sequence[str]) -> list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]:
    """``_segment`` of every row of a column of one reference each: the tokens of all rows
    numbered in one vocabulary and their n-grams counted at once (``ngrams.column_matches``)."""
    hyp_tokens = [tokens_13a(o.rstrip()) for o in outputs]
    ref_tokens = [tokens_13a(r.rstrip()) for r in refs]
    # A token's number is where it first occurred (setdefault, as in _reference_packed);
    # ranking those makes them dense, 1..distinct, so the n-gram keys stay small.
    vocab: dict[str, int] = {}
    h_lens = [len(t) for t in hyp_tokens]
    r_lens = [len(t) for t in ref_tokens]
    every = chain.from_iterable((*hyp_tokens, *ref_tokens))
    first = np.fromiter(map(vocab.setdefault, every, count(1)), np.int64, sum(h_lens) + sum(r_lens))
    ids = dense_ranks(first)  # first occurrences lie in 1..the column's token count
    split = sum(h_lens)
    h_ids, r_ids = ids[:split], ids[split:]
    correct = column_matches(
        h_ids, np.asarray(h_lens, dtype=np.int64), r_ids, np.asarray(r_lens, dtype=np.int64), MAX_ORDER
    ).tolist()
    return [(h, r, tuple(c), _totals(h)) for h, r, c in zip(h_lens, r_lens, correct)]


def _grade_of(hyp_len: int, ref_len: int, correct: tuple[int, ...], total: tuple[int, ...], nrefs: int, threshold: float | None) -> Grade:
    r = _bleu(hyp_len, ref_len, correct, total, True)
    sig = signature(nrefs, True)
    return continuous(
        r.score,
        threshold,
        explain(r, sig),
        signature=sig,
        precisions=r.precisions,
        brevity_penalty=r.brevity_penalty,
        hyp_len=r.hyp_len,
        ref_len=r.ref_len,
        correct=r.correct,
        total=r.total,
    )


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], *, threshold: float | None = None) -> Block:
    """BLEU over a column (``run`` on each row, near-miss code included): rows with one
    reference counted at once (``column_statistics``), the others row by row."""
    from graders.metrics.base import run

    block = Block(len(outputs))
    single = [i for i, r in enumerate(refs) if len(r) == 1]
    found = column_statistics([refs[i][0] for i in single], [outputs[i] for i in single])
    grades = {i: _grade_of(*seg, 1, threshold) for i, seg in zip(single, found)}
    spec = SPEC
    for i in range(len(outputs)):
        g = grades.get(i)
        if g is None:
            g = run(spec, refs[i], outputs[i], {"threshold": threshold})
            block.set(i, g)
            continue
        block.set(i, g)
        if g.status == "fail" and g.score >= threshold - BELOW_THRESHOLD_REACH:
            block.near_miss[i] = ("below_threshold",)
    return block


def grade_bleu(refs: tuple[str, ...], output: str, *, threshold: float | None = None) -> Grade:
    hyp_len, ref_len, correct, total = _segment(refs, output)
    return _grade_of(hyp_len, ref_len, tuple(correct), total, len(refs), threshold)


SPEC = GraderSpec(
    name="bleu",
    func=grade_bleu,
    params=[THRESHOLD],
    binary=False,
    label="BLEU",
    summary="sentence BLEU-4 as sacrebleu computes it (13a tokens, effective order, exp smoothing)",
    batch=grade_many,
)
