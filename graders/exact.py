"""Exact match: code-point equality, no normalization.

A fail names the first differing position (0-based), both characters with their
``U+XXXX`` codes (invisible ones by name), and flags a difference that is only leading or
trailing whitespace, only case, only NFC or only NFKC. Several references: passes when
any is equal; a fail is explained against the closest (longest common prefix).
"""

from __future__ import annotations

import unicodedata
from typing import Sequence

from .block import Block
from .nearmiss import probe_many, screen_equal
from .registry import register
from .result import Grade
from .text import describe_char, first_difference, nfc, nfkc, snippet


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


def explain_difference(expected: str, output: str, what: str = "reference", other: str = "output") -> tuple[str, dict]:
    """One paragraph on where and how two unequal texts differ, and the facts behind it."""
    pos = first_difference(expected, output)
    assert pos is not None
    exp_ch = describe_char(expected[pos]) if pos < len(expected) else "end of text"
    out_ch = describe_char(output[pos]) if pos < len(output) else "end of text"
    flags = difference_flags(expected, output)
    sentence = (
        f"First difference at position {pos} (0-based): the {what} has {exp_ch}, the {other} has {out_ch}. "
        f"{what.capitalize()}: “{snippet(expected, pos)}”; {other}: “{snippet(output, pos)}”."
    )
    if flags:
        sentence += " Note: " + "; ".join(_FLAG_WORDS[f] for f in flags) + "."
    facts = {
        "position": pos,
        "expected_char": None if pos >= len(expected) else f"U+{ord(expected[pos]):04X}",
        "output_char": None if pos >= len(output) else f"U+{ord(output[pos]):04X}",
        "flags": list(flags),
    }
    return sentence, facts


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
    return f"The output equals the reference{which}, code point for code point ({len(output)} code points)."


def fail_text(refs: tuple[str, ...], output: str) -> tuple[str, dict]:
    i = closest_reference(refs, output)
    sentence, facts = explain_difference(refs[i], output)
    if len(refs) == 1:
        return "The output is not equal to the reference. " + sentence, facts
    facts["reference"] = i
    return f"None of the {len(refs)} references is equal; against the closest, reference {i + 1}: " + sentence, facts


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str]) -> Block:
    """Exact match over a column; the probe runs on the fails only, step by step over the column."""
    block = Block(len(outputs))
    hits = check_many(refs, outputs)
    fails = []
    for i, (r, o, hit) in enumerate(zip(refs, outputs, hits)):
        if hit:
            block.set_verdict(i, True, pass_text(r, o))
        else:
            text, facts = fail_text(r, o)
            block.set_verdict(i, False, text, facts)
            fails.append(i)
    if fails:
        codes = probe_many(check_many, [refs[i] for i in fails], [outputs[i] for i in fails], screen=screen_equal)
        for i, c in zip(fails, codes):
            block.near_miss[i] = c
    return block


@register(
    "exact",
    binary=True,
    label="Exact match",
    summary="code-point equality, no normalization",
    batch=grade_many,
)
def grade_exact(refs: tuple[str, ...], output: str) -> Grade:
    return grade_many([refs], [output]).grade(0)
