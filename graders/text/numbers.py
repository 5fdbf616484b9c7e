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
# Python's `\w` on str is letters, every Unicode number and `_`; SPEC's "letter or digit"
# leaves out the numbers that are neither, Nl and No (½, ², Ⅻ, ①): after one, a numeral is
# read ("½2" reads 2). Their code points in Unicode 14.0.0 (Python 3.11), as ranges; a newer
# Unicode's new ones stay in `\w` (tests/test_numeric.py checks the list against unicodedata).
NUMBERS_NOT_DIGITS_UNICODE = "14.0.0"
NUMBERS_NOT_DIGITS = (
    (0x00B2, 0x00B3), (0x00B9, 0x00B9), (0x00BC, 0x00BE), (0x09F4, 0x09F9), (0x0B72, 0x0B77),
    (0x0BF0, 0x0BF2), (0x0C78, 0x0C7E), (0x0D58, 0x0D5E), (0x0D70, 0x0D78), (0x0F2A, 0x0F33),
    (0x1369, 0x137C), (0x16EE, 0x16F0), (0x17F0, 0x17F9), (0x19DA, 0x19DA), (0x2070, 0x2070),
    (0x2074, 0x2079), (0x2080, 0x2089), (0x2150, 0x2182), (0x2185, 0x2189), (0x2460, 0x249B),
    (0x24EA, 0x24FF), (0x2776, 0x2793), (0x2CFD, 0x2CFD), (0x3007, 0x3007), (0x3021, 0x3029),
    (0x3038, 0x303A), (0x3192, 0x3195), (0x3220, 0x3229), (0x3248, 0x324F), (0x3251, 0x325F),
    (0x3280, 0x3289), (0x32B1, 0x32BF), (0xA6E6, 0xA6EF), (0xA830, 0xA835), (0x10107, 0x10133),
    (0x10140, 0x10178), (0x1018A, 0x1018B), (0x102E1, 0x102FB), (0x10320, 0x10323),
    (0x10341, 0x10341), (0x1034A, 0x1034A), (0x103D1, 0x103D5), (0x10858, 0x1085F),
    (0x10879, 0x1087F), (0x108A7, 0x108AF), (0x108FB, 0x108FF), (0x10916, 0x1091B),
    (0x109BC, 0x109BD), (0x109C0, 0x109CF), (0x109D2, 0x109FF), (0x10A40, 0x10A48),
    (0x10A7D, 0x10A7E), (0x10A9D, 0x10A9F), (0x10AEB, 0x10AEF), (0x10B58, 0x10B5F),
    (0x10B78, 0x10B7F), (0x10BA9, 0x10BAF), (0x10CFA, 0x10CFF), (0x10E60, 0x10E7E),
    (0x10F1D, 0x10F26), (0x10F51, 0x10F54), (0x10FC5, 0x10FCB), (0x11052, 0x11065),
    (0x111E1, 0x111F4), (0x1173A, 0x1173B), (0x118EA, 0x118F2), (0x11C5A, 0x11C6C),
    (0x11FC0, 0x11FD4), (0x12400, 0x1246E), (0x16B5B, 0x16B61), (0x16E80, 0x16E96),
    (0x1D2E0, 0x1D2F3), (0x1D360, 0x1D378), (0x1E8C7, 0x1E8CF), (0x1EC71, 0x1ECAB),
    (0x1ECAD, 0x1ECAF), (0x1ECB1, 0x1ECB4), (0x1ED01, 0x1ED2D), (0x1ED2F, 0x1ED3D),
    (0x1F100, 0x1F10C),
)
_NOT_DIGITS = "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in NUMBERS_NOT_DIGITS)
# `\s` on str is exactly the 29 characters str.strip() removes; before the numeral: not a
# letter, an Nd digit, `_`, `.` or `,` (no `\w`, `.` or `,`, or one of NUMBERS_NOT_DIGITS).
# The lookahead first: a position that starts no numeral fails before the lookbehinds run.
NUMBER = re.compile(
    rf"(?=[+-]?[0-9])(?P<sign>(?<![^\s(])[+-])?(?:(?<![\w.,])|(?<=[{_NOT_DIGITS}]))"
    rf"(?P<num>{_NUMERAL})(?!\d|[.,]\d)"
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
    for last in NUMBER.finditer(text, start):  # noqa: B007  (the loop keeps the last match)
        pass
    return _reading(last) if last else None
