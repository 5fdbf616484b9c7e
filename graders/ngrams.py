"""N-gram counts and clipped matches shared by BLEU and chrF.

Counts are plain dicts, one per order, filled by ``Counter``'s C counting loop
(``collections._count_elements``) over ``zip`` or ``map`` iterators. Building a
``Counter`` goes through a Python-level ``__init__`` and a ``Mapping`` check that cost
more than counting a short sentence; the counts are the same. Long texts can use packed
n-grams instead (numpy integer keys, below): the same counts without a Python object
per n-gram.
"""

from __future__ import annotations

from collections import _count_elements  # type: ignore[attr-defined]
from operator import add
from typing import Iterable, NamedTuple, Sequence

import numpy as np


def count(items: Iterable) -> dict:
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
    """A reference's n-gram counts per order, and whether each of its n-grams of that
    order occurs once."""

    counts: list[dict]
    once: list[bool]

    @classmethod
    def of(cls, grams: Iterable[Iterable]) -> Counts:
        return cls.of_dicts([count(g) for g in grams])

    @classmethod
    def of_dicts(cls, counts: list[dict]) -> Counts:
        return cls(counts, [len(c) == sum(c.values()) for c in counts])


def clipped_matches(hyp: Sequence[Iterable], ref: Counts, length: int) -> list[int]:
    """Per order, the sum over the hypothesis n-grams of min(hypothesis count, reference count).

    ``hyp`` holds the n-grams of a sequence of ``length`` symbols, per order. Where each
    reference n-gram occurs once, the sum is the number of distinct hypothesis n-grams in
    the reference, and where each hypothesis n-gram does, the number of them in the
    reference: both counted in C. An order without a match leaves none for the orders
    above it (an n-gram's prefix is a lower-order n-gram), so those are not looked at.
    """
    matches = []
    for n, (grams, r, once) in enumerate(zip(hyp, ref.counts, ref.once)):
        if once:
            m = len(set(filter(r.__contains__, grams)))
        else:
            h = count(grams)
            if len(h) == length - n:
                m = sum(map(r.__contains__, h))
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
    return keys[starts], np.diff(starts, append=len(keys))


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


def corpus_statistics(
    name: str,
    outputs: Sequence[str],
    references: Sequence,
    segment_statistics,
    n_stats: int,
) -> list[int]:
    """Per-row sufficient statistics summed over a corpus: the one loop corpus BLEU and
    corpus chrF share. ``references[i]`` is row ``i``'s reference or list of references."""
    from .registry import as_refs

    if len(outputs) != len(references):
        raise ValueError(f"{name}: {len(outputs)} outputs but {len(references)} rows of references")
    stats = [0] * n_stats
    for i, (output, row) in enumerate(zip(outputs, references)):
        refs = as_refs(row)
        if not refs:
            raise ValueError(f"{name}: row {i} has no reference")
        for k, v in enumerate(segment_statistics(refs, output)):
            stats[k] += v
    return stats
