"""What a JavaScript pattern's flags and syntax say before V8 runs it: the flags field
checked letter by letter (``parse_flags``), the errors raised, and the JavaScript form of
each Python-only construct (``python_pattern_hint``).

Flags (JavaScript's letters, each at most once): ``i`` ``m`` ``s`` change matching; ``u``
is always on; ``v`` (unicodeSets) replaces it, and like JavaScript the two cannot be
combined; ``g`` and ``d`` change nothing on one test from index 0; ``y`` pins the match to
index 0.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from graders.text.show import describe_char

JS_FLAGS = "dgimsuvy"  # RegExp.prototype.flags order


class RegexError(Exception):
    """A pattern could not be run: bad syntax, time limit, or a failed matching engine."""


class RegexSyntaxError(RegexError, ValueError):
    """The pattern or its flags are not a valid JavaScript regular expression."""


class RegexTimeout(RegexError, TimeoutError):
    """A match ran past its time limit and was stopped."""


@dataclass(frozen=True)
class Flags:
    """A validated flags field. ``js`` is the JavaScript ``flags`` string (``u`` or ``v``
    included, in ``RegExp.prototype.flags`` order); ``signature`` reads ``u+i+m``."""

    given: str
    js: str
    signature: str
    sticky: bool
    ignore_case: bool


def parse_flags(flags: str) -> Flags:
    """Validate a JavaScript flags string; raise ``RegexSyntaxError`` naming the problem."""
    if not isinstance(flags, str):
        raise RegexSyntaxError(f"flags must be a string of JavaScript flag letters, not {type(flags).__name__}")
    return _parse_flags(flags)


@functools.lru_cache(maxsize=256)
def _parse_flags(flags: str) -> Flags:
    seen: list[str] = []
    for ch in flags:
        if ch not in JS_FLAGS:
            extra = ""
            if ch.lower() in JS_FLAGS:
                extra = f" (flags are case-sensitive: use {ch.lower()!r})"
            elif ch == "x":
                extra = " (JavaScript has no verbose mode)"
            shown = repr(ch) if ch.isprintable() and not ch.isspace() else describe_char(ch)
            raise RegexSyntaxError(
                f"{shown} is not a JavaScript regex flag{extra}; valid flags: {' '.join(JS_FLAGS)}"
            )
        if ch in seen:
            raise RegexSyntaxError(f"flag {ch!r} is given twice in {flags!r}")
        seen.append(ch)
    if "u" in seen and "v" in seen:
        raise RegexSyntaxError(
            "flags u and v cannot be combined (JavaScript refuses it); u is always on, "
            "and v (unicodeSets) already implies Unicode mode"
        )
    mode = "v" if "v" in seen else "u"
    js = "".join(c for c in JS_FLAGS if c in seen or c == mode)
    others = [c for c in JS_FLAGS if c in seen and c not in "uv"]
    return Flags(flags, js, "+".join([mode, *others]), "y" in seen, "i" in seen)


_QUANT_BRACE = re.compile(r"\{\d+(?:,\d*)?\}")


_INLINE_FLAGS = re.compile(r"\(\?([aiLmsux]+)(?:-([imsx]*))?([:)])")


_NAMED = re.compile(r"\(\?P<([^>)]*)>?")


_NAMED_REF = re.compile(r"\(\?P=([^)]*)\)?")


_HEX8 = re.compile(r"\\U([0-9A-Fa-f]{8})")


_LOWER_BRACE = re.compile(r"\{,(\d+)\}")


_FLAG_HINTS = {
    "x": "JavaScript has no verbose mode, so remove the spaces and comments",
    "a": "JavaScript's \\d \\w \\b are ASCII already, so drop it",
    "u": "the u flag is always on here, so drop it",
    "L": "JavaScript has no locale mode, so drop it",
}


def python_pattern_hint(pattern: str) -> str | None:
    """A hint naming the JavaScript form of each Python-only construct in ``pattern``.

    Scans escape-aware and skips character classes. ``None`` when nothing Python-only is
    seen. ``check_pattern`` is the authority on validity; this only words the advice.
    """
    if not isinstance(pattern, str):
        return None
    hints: list[str] = []

    def add(h: str) -> None:
        if h not in hints:
            hints.append(h)

    n = len(pattern)
    i = 0
    in_class = False
    prev = "none"  # the last token: "atom" (can be quantified), "quant", or "none"
    quant = ""
    while i < n:
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if nxt == "N" and pattern[i + 2 : i + 3] == "{":
                close = pattern.find("}", i + 3)
                name = pattern[i + 3 : close] if close != -1 else ""
                try:
                    js = f"\\u{{{ord(unicodedata.lookup(name)):X}}}"
                except KeyError:
                    js = "\\u{…}"
                add(f"\\N{{{name or '…'}}} is written {js} in JavaScript")
                i = close + 1 if close != -1 else n
                prev = "atom"
                continue
            m = _HEX8.match(pattern, i)
            if m:
                add(f"{m.group()} is written \\u{{{int(m.group(1), 16):X}}} in JavaScript")
                i = m.end()
                prev = "atom"
                continue
            if not in_class:
                if nxt == "A":
                    add("\\A (start of text) is written ^ in JavaScript (without the m flag)")
                elif nxt in ("Z", "z"):
                    add(f"\\{nxt} (end of text) is written $ in JavaScript (without the m flag)")
                prev = "atom"
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
                prev = "atom"
            i += 1
            continue
        if c == "[":
            in_class = True
            i += 1
            if pattern.startswith("^", i):
                i += 1
            continue
        if c == "(":
            prev = "none"
            if pattern.startswith("(?", i):
                rest = i + 2
                if pattern.startswith("P<", rest):
                    m = _NAMED.match(pattern, i)
                    name = m.group(1) if m and m.group(1) else "name"
                    add(f"(?P<{name}>…) is written (?<{name}>…) in JavaScript")
                elif pattern.startswith("P=", rest):
                    m = _NAMED_REF.match(pattern, i)
                    name = m.group(1) if m and m.group(1) else "name"
                    add(f"(?P={name}) is written \\k<{name}> in JavaScript")
                elif pattern.startswith("P>", rest) or pattern.startswith("R)", rest):
                    add("recursion (?P>…)/(?R) has no JavaScript form")
                elif pattern.startswith(">", rest):
                    add("the atomic group (?>…) has no JavaScript form (emulate it with (?=(…))\\1)")
                elif pattern.startswith("#", rest):
                    add("the comment (?#…) has no JavaScript form: remove it")
                    close = pattern.find(")", rest)
                    i = close + 1 if close != -1 else n
                    prev = "none"
                    continue
                elif pattern.startswith("(", rest):
                    add("the conditional (?(…)…|…) has no JavaScript form")
                else:
                    m = _INLINE_FLAGS.match(pattern, i)
                    if m:
                        on, off, end = m.group(1), m.group(2) or "", m.group(3)
                        if end == ")":
                            js = [f for f in dict.fromkeys(on) if f in "ims"]
                            advice = [f"put {' and '.join(js)} in the flags field"] if js else []
                            advice += [_FLAG_HINTS[f] for f in dict.fromkeys(on) if f not in "ims"]
                            add(f"the inline flag {m.group()} has no JavaScript form: {'; '.join(advice)}")
                        elif set(on + off) - set("ims"):
                            add(f"{m.group()}…) uses flags JavaScript modifier groups lack: only i, m and s work there")
            i += 1
            continue
        if c == ")":
            prev = "atom"
            i += 1
            continue
        if c in "|^$":
            prev = "none"
            i += 1
            continue
        if c in "*+?":
            if prev == "atom":
                prev, quant = "quant", c
            elif prev == "quant" and c == "+":
                add(f"the possessive quantifier {quant}+ has no JavaScript form (emulate x{quant}+ with (?=(x{quant}))\\1)")
                prev = "none"
            else:
                prev = "none"  # lazy ?, or an error both dialects report
            i += 1
            continue
        if c == "{":
            m = _LOWER_BRACE.match(pattern, i)
            if m and prev == "atom":
                add(f"{m.group()} is written {{0,{m.group(1)}}} in JavaScript")
            m = m or _QUANT_BRACE.match(pattern, i)
            if m:
                if prev == "atom":
                    prev, quant = "quant", m.group()
                else:
                    prev = "none"
                i = m.end()
                continue
        prev = "atom"
        i += 1
    if not hints:
        return None
    return "It looks like Python regex syntax: " + "; ".join(hints) + "."
