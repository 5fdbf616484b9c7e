r"""JavaScript's string semantics, where promptfoo's results depend on them: its whitespace
(``\s``, what ``trim()`` removes), its strings as UTF-16 units, and ``String(value)``.
"""

from __future__ import annotations

import math
from typing import Any

# JavaScript's \s: WhiteSpace and LineTerminator, as characters (WHITESPACE) and as the body
# of a character class (WHITESPACE_CLASS).
WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
              "\u2028\u2029\u202f\u205f\u3000\ufeff")
WHITESPACE_CLASS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def to_units(text: str) -> str:
    """``text`` with each character past U+FFFF as its two UTF-16 surrogates."""
    if text.isascii() or max(text) < "\U00010000":
        return text
    return "".join(chr(c) if c < 0x10000 else chr(0xD800 + ((c - 0x10000) >> 10)) + chr(0xDC00 + ((c - 0x10000) & 0x3FF))
                   for c in map(ord, text))


def from_units(text: str) -> str:
    """Surrogate pairs joined back into characters (lone surrogates stay)."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` for a scalar mapping key."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):  # parseInt's double
        return str(value) if abs(value) <= 2 ** 53 else js_number(float(value))
    if isinstance(value, float):
        return js_number(value)
    return value


def js_number(x: float) -> str:
    """ECMAScript's Number::toString(10): Python's shortest round-trip digits, laid out as
    JavaScript lays them out."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mantissa, _, e = repr(abs(x)).partition("e")
    whole, _, frac = mantissa.partition(".")
    run = whole + frac
    zeros = len(run) - len(run.lstrip("0"))
    n = len(whole) - zeros + (int(e) if e else 0)  # the value is 0.<digits> x 10^n
    s = run.lstrip("0").rstrip("0") or "0"
    k = len(s)
    if k <= n <= 21:
        return sign + s + "0" * (n - k)
    if 0 < n <= 21:
        return sign + s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + s
    exp = n - 1
    return sign + s[0] + ("." + s[1:] if k > 1 else "") + "e" + ("+" if exp > 0 else "-") + str(abs(exp))
