"""N-gram statistics shared by BLEU and chrF: a reference's n-grams per order, a
hypothesis's clipped matches against them, and a packed numpy form for long texts.

A reference order whose n-grams each occur once is kept as a set (cheaper to build than
counts, and all that matching needs); any other as a dict of counts, filled by
``Counter``'s C counting loop (``collections._count_elements``): ``Counter``'s own
``__init__`` costs more than counting a short sentence. Matching runs in C wherever an
order's n-grams are distinct on one side. Long texts use packed n-grams instead (numpy
integer keys, below): the same counts without a Python object per n-gram.
"""

from __future__ import annotations

from collections import _count_elements  # type: ignore[attr-defined]
from operator import add
from typing import Callable, Iterable, NamedTuple, Sequence

import numpy as np


def tally(items: Iterable) -> dict:
    """How often each item occurs (``Counter(items)`` as a plain dict)."""
    counts: dict = {}
    _count_elements(counts, items)
    return counts


def word_ngrams(tokens: Sequence[str]) -> list[Iterable]:
    """The word n-grams of orders 1-4 (BLEU-4), as iterators: tokens, then token tuples."""
    t1, t2, t3 = tokens[1:], tokens[2:], tokens[3:]
    return [tokens, zip(tokens, t1), zip(tokens, t1, t2), zip(tokens, t1, t2, t3)]


def char_ngrams(text: str, max_order: int) -> list[Sequence[str]]:
    """The character n-grams of orders 1..``max_order`` of ``text``, as sequences."""
    grams: list[Sequence[str]] = [text]
    for _ in range(1, max_order):
        # The (n+1)-gram at i is the character at i followed by the n-gram at i + 1.
        grams.append(list(map(add, text, grams[-1][1:])))
    return grams


class Counts(NamedTuple):
    """A reference's n-grams per order: a set where each occurs once (``once``), else a
    dict of counts. A set is cheaper to build, and all that matching needs there."""

    counts: list[set | dict]
    once: list[bool]

    @classmethod
    def of(cls, make: Callable[[], Sequence[Iterable]], length: int) -> Counts:
        """The counts of a sequence of ``length`` symbols; ``make()`` gives its n-grams per
        order (called again for an order whose n-grams are not all distinct)."""
        counts: list[set | dict] = []
        once = []
        for n, grams in enumerate(make()):
            total = max(length - n, 0)
            if not total:
                counts.append(set())
                once.append(True)
                continue
            if n:  # unigrams repeat too often to try a set first
                distinct = set(grams)
                if len(distinct) == total:
                    counts.append(distinct)
                    once.append(True)
                    continue
                grams = make()[n]
            c = tally(grams)
            counts.append(c)
            once.append(len(c) == total)
        return cls(counts, once)

    @classmethod
    def of_words(cls, tokens: Sequence[str]) -> Counts:
        """The counts of the word n-grams of orders 1-4 (BLEU-4) of ``tokens``: ``of``
        written out, as for a short sentence the loop costs about as much as the counts."""
        n = len(tokens)
        t1, t2, t3 = tokens[1:], tokens[2:], tokens[3:]
        c1 = tally(tokens)
        c2: set | dict = set(zip(tokens, t1))
        c3: set | dict = set(zip(tokens, t1, t2))
        c4: set | dict = set(zip(tokens, t1, t2, t3))
        once = [len(c1) == n, len(c2) >= n - 1, len(c3) >= n - 2, len(c4) >= n - 3]
        if not once[1]:
            c2 = tally(zip(tokens, t1))
        if not once[2]:
            c3 = tally(zip(tokens, t1, t2))
        if not once[3]:
            c4 = tally(zip(tokens, t1, t2, t3))
        return cls([c1, c2, c3, c4], once)

    @classmethod
    def merged(cls, each: Sequence[Counts]) -> Counts:
        """Per n-gram, the maximum count over several references (BLEU's clipping)."""
        counts: list[set | dict] = []
        once = []
        for n in range(len(each[0].counts)):
            if all(c.once[n] for c in each):
                counts.append(set().union(*[c.counts[n] for c in each]))
                once.append(True)
            else:
                dicts = [dict.fromkeys(c.counts[n], 1) if c.once[n] else c.counts[n] for c in each]
                m = max_counts(dicts)
                counts.append(m)
                once.append(len(m) == sum(m.values()))
        return cls(counts, once)


def clipped_matches(hyp: Sequence[Iterable], ref: Counts, length: int) -> list[int]:
    """Per order, the sum over the hypothesis n-grams of min(hypothesis count, reference count).

    ``hyp`` holds the n-grams of a sequence of ``length`` symbols, per order. Where each
    reference n-gram occurs once, the sum is the number of distinct hypothesis n-grams in
    the reference, and where each hypothesis n-gram does, the number of them in it: both
    one C-level intersection. An order without a match leaves none for the orders above
    it (an n-gram's prefix is a lower-order n-gram), so those are not looked at.
    """
    matches = []
    distinct = None  # no symbol twice (then no n-gram of any order twice either)
    for n, (grams, r, once) in enumerate(zip(hyp, ref.counts, ref.once)):
        if once:
            m = len(r.intersection(grams)) if type(r) is set else len(r.keys() & grams)
        else:
            if distinct is None:
                distinct = len(set(hyp[0])) == length
            if distinct:
                m = len(r.keys() & grams)
            else:
                h = tally(grams)
                if len(h) == length - n:
                    m = len(r.keys() & h.keys())
                else:
                    m = 0
                    get = r.get
                    for gram, c in h.items():
                        k = get(gram)
                        if k:
                            m += c if c < k else k
        matches.append(m)
        if not m:
            break
    return matches + [0] * (len(ref.counts) - len(matches))


def max_counts(counters: Sequence[dict]) -> dict:
    """Per-n-gram maximum over several counts (BLEU's multi-reference clipping); read only."""
    merged = counters[0]
    for other in counters[1:]:
        union = {**other, **merged}  # merged's count wins where both have the n-gram
        if sum(other.values()) != len(other):  # only an n-gram seen twice can beat merged's
            for gram in [g for g, c in other.items() if c > 1]:
                if other[gram] > union[gram]:
                    union[gram] = other[gram]
        merged = union
    return merged


# Packed n-grams, for long texts, where building and hashing one Python object per
# n-gram is most of the work: numpy arrays of integer keys. The reference's symbols
# (characters, or tokens) are numbered 1..base-2 and any other symbol base-1; an
# n-gram's key is its symbol numbers as digits in that base. No digit is 0, so the keys
# of order n lie in [base**(n-1), base**n), and a key holding the digit base-1 matches
# nothing. Keys are exact, so the counts equal the dict counts.


class Packed(NamedTuple):
    """A reference's n-grams of every order: sorted distinct keys and their counts."""

    base: int
    keys: np.ndarray
    counts: np.ndarray


def packable(base: int, max_order: int) -> bool:
    """Whether keys of ``max_order`` digits in ``base`` fit in int64."""
    return base**max_order < 2**63


def _keys(ids: np.ndarray, base: int, max_order: int) -> np.ndarray:
    parts = [ids]
    k = ids
    for n in range(1, max_order):
        k = k[:-1] * base + ids[n:]
        parts.append(k)
    return np.concatenate(parts)


def _counted(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys and their counts (``np.unique`` without its generality)."""
    keys = np.sort(keys)
    if not len(keys):
        return keys, keys
    first = np.empty(len(keys), dtype=bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = len(keys)
    return keys[starts], ends - starts


def pack(ids: np.ndarray, base: int, max_order: int) -> Packed:
    """The packed n-grams of a reference given as symbol numbers (int64, 1..base-2)."""
    return Packed(base, *_counted(_keys(ids, base, max_order)))


def pack_max(packs: Sequence[Packed]) -> Packed:
    """Per-n-gram maximum count over several references packed in one base."""
    if len(packs) == 1:
        return packs[0]
    keys = np.concatenate([p.keys for p in packs])
    counts = np.concatenate([p.counts for p in packs])
    if not len(keys):
        return Packed(packs[0].base, keys, counts)
    order = np.lexsort((counts, keys))  # by key, then count: a key's last is its maximum
    keys, counts = keys[order], counts[order]
    last = np.append(keys[1:] != keys[:-1], True)
    return Packed(packs[0].base, keys[last], counts[last])


def packed_matches(ids: np.ndarray, ref: Packed, max_order: int) -> list[int]:
    """Clipped matches per order between hypothesis symbol numbers and a packed reference."""
    if not len(ids) or not len(ref.keys):
        return [0] * max_order
    keys, counts = _counted(_keys(ids, ref.base, max_order))
    at = np.searchsorted(ref.keys, keys)
    np.minimum(at, len(ref.keys) - 1, out=at)
    hit = ref.keys[at] == keys
    clipped = np.minimum(counts[hit], ref.counts[at[hit]])
    bounds = ref.base ** np.arange(1, max_order, dtype=np.int64)
    order = np.searchsorted(bounds, keys[hit], side="right")
    return [int(m) for m in np.bincount(order, weights=clipped, minlength=max_order)]


class Alphabet(NamedTuple):
    """A reference's sorted distinct code points: symbol number i + 1 is ``symbols[i]``."""

    symbols: np.ndarray

    @classmethod
    def of(cls, codes: np.ndarray) -> Alphabet:
        return cls(np.unique(codes))

    @property
    def base(self) -> int:
        return len(self.symbols) + 2

    def number(self, codes: np.ndarray) -> np.ndarray:
        """Symbol numbers of ``codes``: 1..base-2, or base-1 for a code point not in the alphabet."""
        symbols = self.symbols
        if not len(symbols):
            return np.ones(len(codes), dtype=np.int64)
        pos = np.searchsorted(symbols, codes)
        np.minimum(pos, len(symbols) - 1, out=pos)
        return np.where(symbols[pos] == codes, pos + 1, len(symbols) + 1).astype(np.int64)


def code_points(text: str) -> np.ndarray:
    """The code points of ``text`` (lone surrogates included) as a uint32 array."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def corpus_statistics(
    name: str,
    outputs: Sequence[str],
    references: Sequence,
    segment_statistics,
    n_stats: int,
) -> list[int]:
    """Per-row sufficient statistics summed over a corpus: the one loop corpus BLEU and
    corpus chrF share. ``references[i]`` is row ``i``'s reference or list of references.
    ``outputs`` and ``references`` are any sequences or iterables (a list, a tuple, a
    pandas Series, a NumPy array, a generator), but not one text: each value that is not
    text raises ``ValueError`` naming it."""
    from graders.metrics.base import as_refs

    for arg, value in (("outputs", outputs), ("references", references)):
        if isinstance(value, (str, bytes)) or value is None:
            raise ValueError(f"{name}: {arg} must be a list with one entry per row, not {type(value).__name__}")
    outputs, references = list(outputs), list(references)
    if len(outputs) != len(references):
        raise ValueError(
            f"{name}: {_count(len(outputs), 'output')} but {_count(len(references), 'row')} of references (references[i] is row i's "
            "reference or list of references; sacrebleu takes reference streams instead, the transpose)")
    stats = [0] * n_stats
    for i, (output, row) in enumerate(zip(outputs, references)):
        if not isinstance(output, str):
            raise ValueError(f"{name}: outputs[{i}] must be a str, not {type(output).__name__}")
        if not isinstance(row, (str, list, tuple)) and hasattr(row, "__array__"):
            row = list(row)  # a row of a NumPy array of references
        refs = as_refs(row, f"{name}: references[{i}]")
        if not refs:
            raise ValueError(f"{name}: row {i} has no reference")
        for k, v in enumerate(segment_statistics(refs, output)):
            stats[k] += v
    return stats


# Column matching: the clipped matches of many (hypothesis, reference) pairs at once, for
# the batch layer. Both sides' symbols are numbered 1..S over the whole column; the n-grams
# of order k of every row are integer keys (row, symbols as digits in base S + 1), counted
# by sorting, and the two sides' counts meet in one searchsorted per order. Keys are exact:
# when the next order's keys would not fit in int64, the current ones are replaced by their
# rank among the column's distinct n-grams (equal n-grams, equal ranks).

_KEY_LIMIT = 2**62


def _row_positions(lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each symbol of the concatenated rows: its row, and the symbols left in its row
    from it on (itself included)."""
    rows = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
    ends = np.cumsum(lens)
    return rows, ends[rows] - np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64)


def dense_ranks(values: np.ndarray) -> np.ndarray:
    """Each value's rank among the distinct values, from 1 (``np.unique``'s inverse + 1) for
    non-negative integers of at most a few million: a table lookup, no sort."""
    if not len(values):
        return values.astype(np.int64)
    present = np.zeros(int(values.max()) + 1, dtype=np.int64)
    present[values] = 1
    return np.cumsum(present)[values]


def _distinct_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # The keys come in row order (the row is their high part), sorted within no row: runs
    # that timsort ("stable") merges in far fewer steps than quicksort would take.
    keys = np.sort(keys, kind="stable")
    if not len(keys):
        return keys, keys
    first = np.empty(len(keys), dtype=bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return keys[starts], np.diff(np.append(starts, len(keys)))


def column_matches(
    hyp_ids: np.ndarray, hyp_lens: np.ndarray, ref_ids: np.ndarray, ref_lens: np.ndarray, max_order: int
) -> np.ndarray:
    """Clipped matches per order, an (n, max_order) int64 array, of n pairs of symbol
    sequences given concatenated (``hyp_ids`` holds row 0's symbols, then row 1's, …;
    ids >= 1, ``hyp_lens[i]`` symbols in row i). Row i's entries equal
    ``clipped_matches`` on row i's n-grams."""
    n = len(hyp_lens)
    matches = np.zeros((n, max_order), dtype=np.int64)
    if not n or not len(hyp_ids) or not len(ref_ids):
        return matches
    base = int(max(hyp_ids.max(), ref_ids.max())) + 1
    h_rows, h_left = _row_positions(hyp_lens)
    r_rows, r_left = _row_positions(ref_lens)
    hk, rk = hyp_ids.astype(np.int64), ref_ids.astype(np.int64)
    bound = base  # keys of the current order lie in [0, bound)
    for k in range(max_order):
        if k:
            if bound * base * n >= _KEY_LIMIT:  # rank the current n-grams, both sides together
                distinct, inverse = np.unique(np.concatenate([hk, rk]), return_inverse=True)
                hk, rk = inverse[: len(hk)], inverse[len(hk):]
                bound = len(distinct)
            hk = hk[:-1] * base + hyp_ids[k:]
            rk = rk[:-1] * base + ref_ids[k:]
            bound *= base
        h_ok = h_left[: len(hk)] > k  # the n-gram ends inside its row
        r_ok = r_left[: len(rk)] > k
        h_keys, hc = _distinct_counts(h_rows[: len(hk)][h_ok] * bound + hk[h_ok])
        r_keys, rc = _distinct_counts(r_rows[: len(rk)][r_ok] * bound + rk[r_ok])
        if not len(h_keys) or not len(r_keys):
            break
        at = np.searchsorted(r_keys, h_keys)
        np.minimum(at, len(r_keys) - 1, out=at)
        hit = r_keys[at] == h_keys
        if not hit.any():  # no match of this order leaves none above it
            break
        clipped = np.minimum(hc[hit], rc[at[hit]])
        matches[:, k] = np.bincount(h_keys[hit] // bound, weights=clipped, minlength=n)
    return matches


def column_code_points(
    hyps: Sequence[str], refs: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``column_matches``'s input for character n-grams: each side's code points
    concatenated and numbered 1..S by rank among both sides' S distinct ones, and each
    text's length."""
    h_lens = np.fromiter(map(len, hyps), dtype=np.int64, count=len(hyps))
    r_lens = np.fromiter(map(len, refs), dtype=np.int64, count=len(refs))
    h_codes, r_codes = code_points("".join(hyps)), code_points("".join(refs))
    ids = dense_ranks(np.concatenate([h_codes, r_codes]))  # code points: a table of at most 0x110000
    return ids[: len(h_codes)], h_lens, ids[len(h_codes):], r_lens
