"""The number grammar of the numeric grader (SPEC §3), one compiled pattern.

A numeral is ASCII digits, optionally grouped by commas in exact groups of three, with an
optional ``.`` and digits. It is read only when the character before it is not a letter,
digit, ``_``, ``.`` or ``,``, and the text after it does not continue with a digit or
with ``.``/``,`` and a digit. A leading ``+``/``-`` belongs to it only at the start of the
text, after whitespace, or after ``(``. ``%`` is ignored (``50%`` reads 50). ``whole``
needs the entire trimmed text to be one numeral (a trailing ``%`` allowed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal

READ_MODES = ("whole", "first", "last")

# Numerals have no exponent, so the difference or product of two is exact within the
# largest precision and costs only the digits it has: one context for every comparison.
EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)

_NUMERAL = r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?"
# `\s` on str is exactly the 29 characters str.strip() removes; `\w` is letters, digits, _.
NUMBER = re.compile(
    rf"(?P<sign>(?<![^\s(])[+-])?(?<![\w.,])(?P<num>{_NUMERAL})(?!\d|[.,]\d)"
)
WHOLE = re.compile(rf"(?P<sign>[+-])?(?P<num>{_NUMERAL})%?")


@dataclass(frozen=True)
class Reading:
    """One number read from a text: its value, its spelling and where it stood."""

    value: Decimal
    text: str
    start: int


def _reading(m: re.Match[str], offset: int = 0) -> Reading:
    sign = m.group("sign") or ""
    num = m.group("num")
    value = Decimal(num.replace(",", ""))
    return Reading(-value if sign == "-" else value, sign + num, m.start() + offset)


_DIGIT = re.compile("[0-9]")  # every numeral has one: a text without is skipped at C speed


def read_number(text: str, mode: str) -> Reading | None:
    """The number ``text`` holds under ``mode`` ("whole", "first" or "last"), or None."""
    if mode in READ_MODES and _DIGIT.search(text) is None:
        return None
    if mode == "whole":
        stripped = text.strip()
        m = WHOLE.fullmatch(stripped)
        return _reading(m, len(text) - len(text.lstrip())) if m else None
    if mode == "first":
        m = NUMBER.search(text)
        return _reading(m) if m else None
    if mode == "last":
        last = None
        for last in NUMBER.finditer(text):
            pass
        return _reading(last) if last else None
    raise ValueError(f"unknown read mode {mode!r}; valid modes: {', '.join(READ_MODES)}")
