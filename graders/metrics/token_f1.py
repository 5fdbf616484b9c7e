"""Token F1: bag-of-tokens precision, recall and F1, as in SQuAD.

Settings: ``normalize="squad"`` applies the SQuAD v1.1 script's ``normalize_answer``
(lowercase, drop ASCII punctuation, drop the words a/an/the, collapse whitespace);
``"none"`` leaves the text as is. Tokens are ``str.split()`` (runs of the 29 whitespace
characters). Counts are clipped (``Counter & Counter``). Both sides empty after
normalization: 1 (the SQuAD v2 convention; the v1.1 script gives 0); one side empty: 0.
Several references: the maximum. Otherwise equal to the v1.1 script's ``f1_score``.

The explanation gives the shared count, precision and recall and, below a perfect score,
names the tokens each side lacks.
"""

from __future__ import annotations

import re
import string
from collections import _count_elements  # type: ignore[attr-defined]
from functools import lru_cache
from itertools import filterfalse, islice

from graders.metrics.base import THRESHOLD, GraderSpec, Param
from graders.result import Grade, continuous, score_text
from graders.text.show import visible

NORMALIZE = Param(
    "normalize",
    "choice",
    "squad",
    choices=("squad", "none"),
    help="squad: the SQuAD v1.1 answer normalization before splitting; none: split the text as is",
)

# text.remove_articles's ``\b(a|an|the)\b``, reordered so that the search can skip to an
# `a` or a `t` before it tests a boundary: the same matches, a third faster. The article's
# first letter is a word character, so "a boundary before it" means "no word character
# before it": (?<!\w\w) right after the `a`, (?<!\w\w\w\w) right after `the`.
_ARTICLES = re.compile(r"(?:a(?<!\w\w)n?|the(?<!\w\w\w\w))(?!\w)")
_PUNCT_BYTES = string.punctuation.encode("ascii")
_SHOWN_TOKENS = 8
_SHOWN_CHARS = 30


def _remove_punctuation(s: str) -> str:
    """``text.remove_punctuation``, several times faster.

    ``str.translate`` looks every character up in a dict. The punctuation is ASCII and
    UTF-8 never uses an ASCII byte inside a multi-byte character, so deleting those bytes
    from the UTF-8 form is the same operation (``surrogatepass`` carries lone surrogates).
    """
    data = s.encode("utf-8", "surrogatepass").translate(None, _PUNCT_BYTES)
    return data.decode("utf-8", "surrogatepass")


def tokenize(text: str, normalize: str = "squad") -> list[str]:
    """Token F1 tokens: the normalized text split on whitespace.

    With ``"squad"``: ``text.squad_normalize(text).split()`` (its final
    ``" ".join(....split())`` changes no token), computed faster.
    """
    if normalize == "squad":
        return _ARTICLES.sub(" ", _remove_punctuation(text.lower())).split()
    return text.split()


def _bag(tokens: list[str]) -> dict[str, int]:
    """How often each token occurs, in order of first occurrence (``Counter`` as a plain
    dict, counted in C: cheaper to build than a set, and its keys view intersects in C)."""
    counts: dict[str, int] = {}
    _count_elements(counts, tokens)
    return counts


def common_count(a: list[str], b: list[str], a_bag: dict[str, int], b_bag: dict[str, int]) -> int:
    """``sum((Counter(a) & Counter(b)).values())``: the clipped number of shared tokens.

    ``a_bag`` and ``b_bag`` are ``_bag(a)`` and ``_bag(b)``.
    """
    shared = a_bag.keys() & b_bag.keys()
    if not shared:
        return 0
    if len(a_bag) == len(a) or len(b_bag) == len(b):
        return len(shared)  # one side has no repeats: each shared token counts once
    same = 0
    for t in shared:
        x, y = a_bag[t], b_bag[t]
        same += x if x < y else y
    return same


def _f1(same: int, n_out: int, n_ref: int) -> tuple[float, float, float]:
    """Precision, recall and F1. F1 is 2·same / (n_out + n_ref), one rounding of a quotient
    of integers, so a score that is exactly 4/5 is 0.8 and meets a threshold of 0.8 (the
    SQuAD script's 2PR / (P + R) rounds three times: 0.7999999999999999); the two differ
    by a few units in the last place."""
    if same == 0:
        return 0.0, 0.0, 0.0
    return same / n_out, same / n_ref, 2 * same / (n_out + n_ref)


@lru_cache(maxsize=None)
def signature(nrefs: int, normalize: str) -> str:
    return f"token_f1|nrefs:{nrefs}|norm:{normalize}|split:whitespace29"


def _quote(t: str) -> str:
    if len(t) > _SHOWN_CHARS:
        return f"“{visible(t[:_SHOWN_CHARS])}…”"
    return f"“{visible(t)}”"


def _absent(distinct: dict[str, int], other: dict[str, int], n_absent: int) -> str:
    """The ``n_absent`` distinct tokens of one side that the other lacks, the first few
    quoted in order of first occurrence (a bag's order)."""
    if not n_absent:
        return ""
    first = list(islice(filterfalse(other.__contains__, distinct), _SHOWN_TOKENS))
    shown = "”, “".join(first)
    if shown.isprintable() and max(map(len, first)) <= _SHOWN_CHARS:
        shown = f"“{shown}”"  # nothing to show as a code (``visible``) or to shorten: the common case
    else:
        shown = ", ".join(map(_quote, first))
    more = n_absent - len(first)
    return shown + (f" and {more:,} more" if more else "")


def grade_token_f1(
    refs: tuple[str, ...], output: str, *, normalize: str = "squad", threshold: float | None = None
) -> Grade:
    """Token F1, the maximum over references."""
    sig = signature(len(refs), normalize)
    squad = normalize == "squad"
    if squad:  # tokenize and _bag, written out: this is the per-row path
        out_tokens = _ARTICLES.sub(" ", _remove_punctuation(output.lower())).split()
    else:
        out_tokens = output.split()
    out_bag: dict[str, int] = {}
    _count_elements(out_bag, out_tokens)
    n_out = len(out_tokens)
    out_once = len(out_bag) == n_out  # no output token repeats

    best = None  # (f1, precision, recall, same, k, ref_tokens, ref_bag, distinct tokens shared)
    for k, ref in enumerate(refs):
        if ref == output:  # common in real runs: nothing to tokenize or count again
            ref_tokens, ref_bag, same, n_shared = out_tokens, out_bag, n_out, len(out_bag)
        else:
            if squad:
                ref_tokens = _ARTICLES.sub(" ", _remove_punctuation(ref.lower())).split()
            else:
                ref_tokens = ref.split()
            ref_bag = {}
            _count_elements(ref_bag, ref_tokens)
            shared = out_bag.keys() & ref_bag.keys()
            n_shared = len(shared)
            if out_once or not shared or len(ref_bag) == len(ref_tokens):
                same = n_shared  # one side has no repeats: each shared token counts once
            else:  # common_count
                same = 0
                for t in shared:
                    x, y = out_bag[t], ref_bag[t]
                    same += x if x < y else y
        if not same:
            if not ref_tokens and not out_tokens:
                best = (1.0, 1.0, 1.0, 0, k, ref_tokens, ref_bag, 0)
                break
            p = r = f = 0.0
        else:  # _f1
            p = same / n_out
            r = same / len(ref_tokens)
            f = 2 * same / (n_out + len(ref_tokens))
        if best is None or f > best[0]:
            best = (f, p, r, same, k, ref_tokens, ref_bag, n_shared)
            if f == 1.0:
                break
    f, p, r, same, k, ref_tokens, ref_bag, n_shared = best
    n_ref = len(ref_tokens)

    after = " after SQuAD normalization" if normalize == "squad" else ""
    best_of = f", best of {len(refs)} references (reference {k + 1})" if len(refs) > 1 else ""
    if n_out == 0 and n_ref == 0:
        text = (
            f"Token F1 1{best_of}: both the output and the reference are empty{after}, "
            "which counts as agreement (the SQuAD v2 convention)."
        )
    elif n_out == 0 or n_ref == 0:
        side = "the output is" if n_out == 0 else "the reference is"
        text = f"Token F1 0{best_of}: {side} empty{after}, so no token can match."
    else:
        tokens = "token" if same == 1 else "tokens"
        text = (
            f"Token F1 {score_text(f)}{best_of}: {same or 'no'} {tokens} in common{after}, "
            f"precision {same}/{n_out} of the output's tokens, recall {same}/{n_ref} of the reference's."
        )
        if f < 1.0:  # name what differs (whatever the threshold, so thresholds can change later)
            missing = _absent(ref_bag, out_bag, len(ref_bag) - n_shared)
            extra = _absent(out_bag, ref_bag, len(out_bag) - n_shared)
            if missing:
                text += f" Reference tokens the output lacks: {missing}."
            if extra:
                text += f" Output tokens the reference lacks: {extra}."
    return continuous(
        f,
        threshold,
        f"{text} Signature: {sig}.",
        signature=sig,
        precision=p,
        recall=r,
        common=same,
        output_tokens=n_out,
        reference_tokens=n_ref,
        best_reference=k,
    )


SPEC = GraderSpec(
    name="token_f1",
    func=grade_token_f1,
    params=[NORMALIZE, THRESHOLD],
    binary=False,
    label="Token F1",
    summary="SQuAD-style F1 of the shared words, after answer normalization",
)
