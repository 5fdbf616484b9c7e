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
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal
from typing import NamedTuple

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


class Reading(NamedTuple):
    """One number read from a text: its value, its spelling and where it stood."""

    value: Decimal
    text: str
    start: int


_new_reading = tuple.__new__  # Reading(...) without its keyword handling: half the cost of a read


def _reading(m: re.Match[str], offset: int = 0) -> Reading:
    sign, num = m.group(1, 2)  # the sign and num groups
    value = Decimal(num.replace(",", "") if "," in num else num)
    if sign is None:
        return _new_reading(Reading, (value, num, m.start() + offset))
    # EXACT.minus, not -value: unary minus rounds to the default context's 28 digits.
    return _new_reading(Reading, (EXACT.minus(value) if sign == "-" else value, sign + num, m.start() + offset))


# Every numeral has a digit: a text without is skipped at C speed, and no match starts
# before the character ahead of the first digit (its sign), so the search starts there.
# NUMBER tries its lookbehinds at every position it passes (about 0.1 µs each), and the
# lookbehinds still see the text before where the search starts.
_DIGIT = re.compile("[0-9]")


def read_number(text: str, mode: str) -> Reading | None:
    """The number ``text`` holds under ``mode`` ("whole", "first" or "last"), or None."""
    if mode not in READ_MODES:
        raise ValueError(f"unknown read mode {mode!r}; valid modes: {', '.join(READ_MODES)}")
    digit = _DIGIT.search(text)
    if digit is None:
        return None
    if mode == "whole":
        stripped = text.strip()
        m = WHOLE.fullmatch(stripped)
        return _reading(m, len(text) - len(text.lstrip())) if m else None
    start = digit.start() - 1 if digit.start() else 0
    if mode == "first":
        m = NUMBER.search(text, start)
        return _reading(m) if m else None
    last = None
    for last in NUMBER.finditer(text, start):
        pass
    return _reading(last) if last else None
