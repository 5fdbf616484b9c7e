"""Exact match: code-point equality, no normalization.

A fail names the first differing position (0-based), both characters with their
``U+XXXX`` codes (invisible ones by name), and flags a difference that is only leading or
trailing whitespace, only case, only NFC or only NFKC. Several references: passes when
any is equal; a fail is explained against the closest (longest common prefix).
"""

from __future__ import annotations

import unicodedata
from typing import Sequence

from graders.metrics.base import GraderSpec
from graders.metrics.nearmiss import probe_many, screen_equal_many
from graders.result import Block, Grade
from graders.text.normalize import nfc, nfkc
from graders.text.show import describe_char, first_difference, first_differences, visible


def difference_flags(expected: str, output: str) -> tuple[str, ...]:
    """Which kinds of difference alone separate two unequal texts."""
    flags = []
    if expected.strip() == output.strip():
        flags.append("whitespace")
    if expected.lower() == output.lower():
        flags.append("case")
    # Two texts already in a normal form (ASCII always is) are equal in it only if equal.
    if expected.isascii() and output.isascii():
        return tuple(flags)
    if not (unicodedata.is_normalized("NFC", expected) and unicodedata.is_normalized("NFC", output)) and nfc(
        expected
    ) == nfc(output):
        flags.append("nfc")
    elif not (unicodedata.is_normalized("NFKC", expected) and unicodedata.is_normalized("NFKC", output)) and nfkc(
        expected
    ) == nfkc(output):
        flags.append("nfkc")
    return tuple(flags)


_FLAG_WORDS = {
    "whitespace": "only leading or trailing whitespace differs",
    "case": "only letter case differs",
    "nfc": "the texts are equal after NFC normalization (different Unicode composition)",
    "nfkc": "the texts are equal after NFKC normalization (compatibility characters differ)",
}


_NOTES: dict[tuple[str, ...], str] = {}


# Each character's (words, code) in a fail explanation: ("'a' (U+0061)", "U+0061").
_CHAR_WORDS: dict[str, tuple[str, str]] = {}
_END_WORDS = ("end of text", None)


def _char_words(ch: str) -> tuple[str, str]:
    if len(_CHAR_WORDS) >= 4096:
        _CHAR_WORDS.clear()
    words = _CHAR_WORDS[ch] = (describe_char(ch), f"U+{ord(ch):04X}")
    return words


def _window(s: str, at: int) -> str:
    """``snippet(s, at)`` for a text longer than 20 characters or not printable."""
    start = at - 20 if at > 20 else 0
    w = s[start:at + 20]
    if not w.isprintable():
        w = visible(w).replace("\n", "")
    return ("…" if start else "") + w + ("…" if at + 20 < len(s) else "")


def explain_differences(
    expected: Sequence[str], outputs: Sequence[str], what: str = "reference", other: str = "output", lead: str = "",
    tail: str = "",
) -> tuple[list[str], list[dict]]:
    """For each unequal pair of a column, one paragraph on where and how the texts differ
    (position, both characters, whitespace / case / NFC / NFKC flags), between ``lead`` and
    ``tail``, and the facts behind it; the first differences are found at once
    (``first_differences``)."""
    positions = first_differences(expected, outputs)
    head = f". {what.capitalize()}: “"
    start, has, then, theirs = f"{lead}First difference at position ", f" (0-based): the {what} has ", f", the {other} has ", f"”; {other}: “"
    sentences: list[str] = []
    facts: list[dict] = []
    add_sentence, add_facts = sentences.append, facts.append
    get = _CHAR_WORDS.get
    for e, o, pos in zip(expected, outputs, positions):
        if pos < len(e):
            de, ue = get(e[pos]) or _char_words(e[pos])
        else:
            de, ue = _END_WORDS
        if pos < len(o):
            do, uo = get(o[pos]) or _char_words(o[pos])
        else:
            do, uo = _END_WORDS
        se = e if len(e) <= 20 and e.isprintable() else _window(e, pos)
        so = o if len(o) <= 20 and o.isprintable() else _window(o, pos)
        flags = difference_flags(e, o)
        note = _NOTES.get(flags)
        if note is None:
            note = _NOTES[flags] = (" Note: " + "; ".join(_FLAG_WORDS[f] for f in flags) + ".") if flags else ""
        add_sentence(f"{start}{pos}{has}{de}{then}{do}{head}{se}{theirs}{so}”.{note}{tail}")
        add_facts({"position": pos, "expected_char": ue, "output_char": uo, "flags": list(flags)})
    return sentences, facts


def closest_reference(refs: tuple[str, ...], output: str) -> int:
    """Index of the reference sharing the longest prefix with the output."""
    if len(refs) == 1:
        return 0
    best, best_len = 0, -1
    for i, r in enumerate(refs):
        p = first_difference(r, output)
        p = len(r) if p is None else p
        if p > best_len:
            best, best_len = i, p
    return best


def check_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str]) -> list[bool]:
    return [o in r for r, o in zip(refs, outputs)]


def pass_text(refs: tuple[str, ...], output: str) -> str:
    which = "" if len(refs) == 1 else f" (reference {refs.index(output) + 1} of {len(refs)})"
    n = len(output)
    return f"The output equals the reference{which}, code point for code point ({n} code point{'' if n == 1 else 's'})."


_NOT_EQUAL = "The output is not equal to the reference. "


def fail_texts(refs: Sequence[tuple[str, ...]], outputs: Sequence[str]) -> tuple[list[str], list[dict]]:
    """The fail explanations of a column of failing pairs, each against its closest reference."""
    if all(len(r) == 1 for r in refs):
        return explain_differences([r[0] for r in refs], outputs, lead=_NOT_EQUAL)
    closest = [0 if len(r) == 1 else closest_reference(r, o) for r, o in zip(refs, outputs)]
    texts, facts = explain_differences([r[k] for r, k in zip(refs, closest)], outputs)
    for j, (r, k) in enumerate(zip(refs, closest)):
        if len(r) == 1:
            texts[j] = _NOT_EQUAL + texts[j]
        else:
            facts[j]["reference"] = k
            texts[j] = f"None of the {len(r)} references is equal; against the closest, reference {k + 1}: " + texts[j]
    return texts, facts


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], *, explain: bool = True) -> Block:
    """Exact match over a column; the probe runs on the fails only, step by step over the
    column. ``explain=False``: verdicts and near misses only (explanations None, no facts)."""
    n = len(outputs)
    block = Block(n)
    hits = check_many(refs, outputs)
    fails = [i for i, hit in enumerate(hits) if not hit]
    if not explain:
        block.explanation = [None] * n  # type: ignore[list-item]
    status, passed, score = block.status, block.passed, block.score
    for i, (r, o, hit) in enumerate(zip(refs, outputs, hits)):
        if hit:
            status[i], passed[i], score[i] = "pass", True, 1.0
            if explain:
                block.explanation[i] = pass_text(r, o)
    if fails:
        frefs, fouts = [refs[i] for i in fails], [outputs[i] for i in fails]
        codes = probe_many(check_many, frefs, fouts, screen=screen_equal_many)
        near_miss = block.near_miss
        for i, c in zip(fails, codes):  # status, passed, score: a fail's defaults
            near_miss[i] = c
        if explain:
            texts, facts = fail_texts(frefs, fouts)
            explanation, details = block.explanation, block.details
            for i, t, f in zip(fails, texts, facts):
                explanation[i], details[i] = t, f
    return block


def grade_exact(refs: tuple[str, ...], output: str) -> Grade:
    return grade_many([refs], [output]).grade(0)


SPEC = GraderSpec(
    name="exact",
    func=grade_exact,
    binary=True,
    label="Exact match",
    summary="code-point equality, no normalization",
    batch=grade_many,
    defers_explanations=True,
)
