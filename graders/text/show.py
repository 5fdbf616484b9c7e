"""What a person needs to see in a text: invisible characters named and bracketed
(``visible``), one character described (``describe_char``), where two texts first differ
(``first_difference``, ``first_differences`` over columns) and a short window around a
place (``snippet``). Used by explanations and the dashboard; nothing here changes a text
that a grader compares.
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from typing import Sequence

import numpy as np

_CONTROL_NAMES = {
    0x00: "NULL", 0x07: "BELL", 0x08: "BACKSPACE", 0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED",
    0x0B: "LINE TABULATION", 0x0C: "FORM FEED", 0x0D: "CARRIAGE RETURN", 0x1B: "ESCAPE",
    0x1C: "INFORMATION SEPARATOR FOUR", 0x1D: "INFORMATION SEPARATOR THREE",
    0x1E: "INFORMATION SEPARATOR TWO", 0x1F: "INFORMATION SEPARATOR ONE", 0x7F: "DELETE",
    0x85: "NEXT LINE", 0xA0: "NO-BREAK SPACE", 0xFEFF: "BYTE ORDER MARK",
}


def char_name(ch: str) -> str:
    """The Unicode name of one character, with sensible names for controls and surrogates."""
    cp = ord(ch)
    if cp in _CONTROL_NAMES:
        return _CONTROL_NAMES[cp]
    if 0xD800 <= cp <= 0xDFFF:
        return "LONE SURROGATE"
    name = unicodedata.name(ch, "")
    if name:
        return name
    cat = unicodedata.category(ch)
    return {"Cc": "CONTROL CHARACTER", "Co": "PRIVATE USE CHARACTER", "Cn": "UNASSIGNED CODE POINT"}.get(
        cat, "UNNAMED CHARACTER"
    )


def is_invisible(ch: str) -> bool:
    """True for characters a reader cannot see or tell apart from a plain space."""
    if ch == " ":
        return False
    cat = unicodedata.category(ch)
    return cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me") or ch.isspace()


@lru_cache(maxsize=4096)
def describe_char(ch: str) -> str:
    """``'a' (U+0061)`` for a visible character; ``U+00A0 NO-BREAK SPACE`` for an invisible one."""
    code = f"U+{ord(ch):04X}"
    if is_invisible(ch):
        return f"{code} {char_name(ch)}"
    return f"{ch!r} ({code} {char_name(ch)})" if not ch.isalnum() else f"{ch!r} ({code})"


def visible(s: str) -> str:
    """The text with every invisible character replaced by a bracketed code: ``a⟨U+00A0⟩b``.

    Plain spaces stay; line feeds are shown and kept so multi-line text still reads as lines.
    Combining marks (Mn, Me, variation selectors among them) stay too: they show on the
    character before them, and bracketing them would break up every Devanagari or Arabic
    word (``marked`` shows one alone); so a text is bracketed the same with or without a
    tab in it (``str.isprintable`` is false exactly for the characters bracketed here).
    """
    if s.isprintable():
        return s
    out = []
    for ch in s:
        if ch == "\n":
            out.append("⟨LF⟩\n")
        elif ch == "\t":
            out.append("⟨TAB⟩")
        elif is_invisible(ch) and not ch.isprintable():
            out.append(f"⟨U+{ord(ch):04X}⟩")
        else:
            out.append(ch)
    return "".join(out)


def marked(ch: str) -> str:
    """One character as a highlight shows it: ``visible``, and a combining mark (which
    alone has no width to highlight) as its bracketed code."""
    return f"⟨U+{ord(ch):04X}⟩" if is_invisible(ch) and ch.isprintable() else visible(ch)


def first_difference(a: str, b: str) -> int | None:
    """0-based index of the first differing code point, or None when equal."""
    if a == b:
        return None
    n = min(len(a), len(b))
    # Binary search on prefix equality: fast on 10^6-character texts.
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


# Pairs compared as code-point arrays when their common length is at most this; longer
# ones by first_difference's binary search. A block of pairs holds at most _BLOCK_POINTS.
_VECTOR_MAX = 512


_BLOCK_POINTS = 1 << 22


def _code_points(texts: Sequence[str]) -> np.ndarray:
    # surrogatepass: a lone surrogate (JSON's "\ud800") is one code point like any other
    return np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype="<u4")


def first_differences(a: Sequence[str], b: Sequence[str]) -> list[int]:
    """``first_difference(a[i], b[i])`` for each pair of a column of pairs known to differ,
    the short ones compared at once as arrays of code points."""
    n = len(a)
    if n < 32:  # numpy's set-up costs more than a few searches
        return [first_difference(x, y) for x, y in zip(a, b)]  # type: ignore[misc]
    la = np.fromiter(map(len, a), dtype=np.int64, count=n)
    lb = np.fromiter(map(len, b), dtype=np.int64, count=n)
    common = np.minimum(la, lb)
    if common.max() <= _VECTOR_MAX and int(common.sum()) <= _BLOCK_POINTS:  # one block of every pair
        return _first_differences(_code_points(a), _code_points(b), la, lb, common).tolist()
    out = [0] * n
    short = np.flatnonzero(common <= _VECTOR_MAX).tolist()
    for i in np.flatnonzero(common > _VECTOR_MAX).tolist():
        out[i] = first_difference(a[i], b[i])  # type: ignore[assignment]
    start = 0
    while start < len(short):
        # as many pairs as fit in one block of code points
        take = short[start:start + max(1, _BLOCK_POINTS // (_VECTOR_MAX + 1))]
        start += len(take)
        pa, pb = _code_points([a[i] for i in take]), _code_points([b[i] for i in take])
        found = _first_differences(pa, pb, la[take], lb[take], common[take])
        for i, p in zip(take, found.tolist()):
            out[i] = p
    return out


def _first_differences(pa: np.ndarray, pb: np.ndarray, la: np.ndarray, lb: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The first differing index of each pair of texts joined end to end as code points
    (``pa``, ``pb``), of lengths ``la``, ``lb`` and common length ``m``."""
    oa = np.cumsum(la) - la  # where each text starts in the joined arrays
    ob = np.cumsum(lb) - lb
    seg = np.repeat(np.arange(len(m)), m)
    k = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)  # index within the pair
    hit = np.flatnonzero(pa[oa[seg] + k] != pb[ob[seg] + k])
    pos = m.copy()  # no difference in the common part: the shorter text ends first
    at = seg[hit]  # ascending: each pair's first hit is where its pair number changes
    first = np.flatnonzero(np.concatenate(([True], at[1:] != at[:-1]))) if len(at) else at
    pos[at[first]] = k[hit[first]]
    return pos


def snippet(s: str, at: int, width: int = 20) -> str:
    """A short window of ``s`` around index ``at``, invisible characters shown."""
    if len(s) <= width and s.isprintable():  # the whole text is the window, as is
        return s
    start = max(0, at - width)
    end = min(len(s), at + width)
    pre = "…" if start > 0 else ""
    post = "…" if end < len(s) else ""
    return pre + visible(s[start:end]).replace("\n", "") + post


def quoted_name(name: str) -> str:
    """A name (a column, a version, a case id) for a one-line message: as written, or as a
    JSON string when the text alone would not show it (empty, spaces at an edge, a line
    break or another unprintable character)."""
    if name and name.strip() == name and name.isprintable():
        return name
    return json.dumps(name, ensure_ascii=False)
