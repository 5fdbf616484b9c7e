"""ROUGE-L: F1 (beta 1) of the longest common subsequence of word tokens.

Settings: lowercase (``str.lower``), then tokens are the runs of Unicode letters and
numbers (``regex`` ``[^\\p{L}\\p{N}]+`` splits, empty pieces dropped); on ASCII text that
is rouge_score's tokenizer without a stemmer, and the score equals its rougeL
F-measure. One side without tokens scores 0. Several references: the maximum.
A pair whose token counts multiply to more than ``MAX_CELLS`` is not judged.

The LCS length is computed bit-parallel over Python integers (Allison & Dix 1986,
Hyyrö 2004): the same number as the dynamic-programming table, in about
``len(longer) * len(shorter) / 64`` word operations instead of one per cell.
"""

from __future__ import annotations

import re
from typing import Sequence

import regex

from graders.metrics.base import THRESHOLD, GraderSpec
from graders.result import Grade, continuous, not_judged, score_text

# The seed's limit for its dynamic-programming table, kept so results agree.
MAX_CELLS = 25_000_000

_NOT_LETTER_OR_NUMBER = regex.compile(r"[^\p{L}\p{N}]+")
# On lowercased ASCII text the letters and numbers are a-z and 0-9: the same split, and
# the stdlib engine is faster.
_NOT_ASCII_ALNUM = re.compile(r"[^a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """ROUGE-L tokens: lowercase, then the runs of Unicode letters and numbers."""
    text = text.lower()
    tokens = (_NOT_ASCII_ALNUM if text.isascii() else _NOT_LETTER_OR_NUMBER).split(text)
    # A split on runs leaves empty pieces only at the two ends.
    if tokens and not tokens[-1]:
        tokens.pop()
    if tokens and not tokens[0]:
        del tokens[0]
    return tokens


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (bit-parallel)."""
    if len(a) > len(b):
        a, b = b, a
    # Bit i of masks[t] is set when a[i] == t.
    masks: dict[str, int] = {}
    get = masks.get
    for i, t in enumerate(a):
        masks[t] = get(t, 0) | (1 << i)
    m = 0
    # A token of `b` absent from `a` (mask 0) leaves m unchanged: skip it.
    for u in filter(None, map(get, b)):
        x = m | u
        m = x & ((x - ((m << 1) | 1)) ^ x)
    return m.bit_count()


def _f1(lcs: int, n_out: int, n_ref: int) -> tuple[float, float, float]:
    """Precision, recall and F1 (beta 1). F1 is 2·lcs / (n_out + n_ref), one rounding of a
    quotient of integers, so a score that is exactly 3/4 is 0.75 and meets a threshold of
    0.75 (rouge_score's 2PR / (P + R) rounds three times: 0.7499999999999999); the two
    differ by a few units in the last place."""
    if lcs == 0:
        return 0.0, 0.0, 0.0
    return lcs / n_out, lcs / n_ref, 2 * lcs / (n_out + n_ref)


def signature(nrefs: int) -> str:
    return f"rouge_l|nrefs:{nrefs}|tok:unicode-letters-numbers|case:lower|beta:1"


def grade_rouge_l(refs: tuple[str, ...], output: str, *, threshold: float | None = None) -> Grade:
    """ROUGE-L F1 (beta 1), the maximum over references."""
    sig = signature(len(refs))
    out_tokens = tokenize(output)
    ref_tokens = [tokenize(r) for r in refs]
    n_out = len(out_tokens)

    for k, toks in enumerate(ref_tokens):
        cells = n_out * len(toks)
        if cells > MAX_CELLS:
            which = "the reference" if len(refs) == 1 else f"reference {k + 1} of {len(refs)}"
            return not_judged(
                f"ROUGE-L not computed: the output has {n_out:,} tokens and {which} "
                f"has {len(toks):,}; their product {cells:,} exceeds the limit of {MAX_CELLS:,}. "
                f"Signature: {sig}.",
                signature=sig,
                output_tokens=n_out,
                reference_tokens=len(toks),
                reference=k,
                max_cells=MAX_CELLS,
            )

    best = None  # (f1, precision, recall, lcs, k)
    for k, toks in enumerate(ref_tokens):
        if not (n_out and toks):
            lcs = 0
        elif toks == out_tokens:  # common in real runs, and the LCS is then the whole
            lcs = n_out
        else:
            lcs = lcs_length(toks, out_tokens)
        p, r, f = _f1(lcs, n_out, len(toks))
        if best is None or f > best[0]:
            best = (f, p, r, lcs, k)
            if f == 1.0:
                break
    f, p, r, lcs, k = best
    n_ref = len(ref_tokens[k])

    details = {
        "signature": sig,
        "precision": p,
        "recall": r,
        "lcs": lcs,
        "output_tokens": n_out,
        "reference_tokens": n_ref,
        "best_reference": k,
    }
    best_of = f", best of {len(refs)} references (reference {k + 1})" if len(refs) > 1 else ""
    if n_out == 0 or n_ref == 0:
        if n_out == 0 and n_ref == 0:
            side = "neither the output nor the reference has any tokens"
        else:
            side = ("the output has" if n_out == 0 else "the reference has") + " no tokens"
        text = f"ROUGE-L 0{best_of}: {side} (no letters or numbers), so nothing can match."
    else:
        text = (
            f"ROUGE-L F1 {score_text(f)}{best_of}: the longest common subsequence has {lcs} "
            f"{'token' if lcs == 1 else 'tokens'}, precision {lcs}/{n_out} of the output's tokens, "
            f"recall {lcs}/{n_ref} of the reference's."
        )
    text += f" Signature: {sig}."
    return continuous(f, threshold, text, **details)


SPEC = GraderSpec(
    name="rouge_l",
    func=grade_rouge_l,
    params=[THRESHOLD],
    binary=False,
    label="ROUGE-L",
    summary="F1 of the longest common subsequence of lowercased letter-and-number tokens",
)
