"""ECMAScript regular expressions with a time limit: the client of the regex worker.

Semantics are JavaScript's, through ``regress`` (a Rust engine), with the ``u`` flag
always on: ``\\d``, ``\\w`` and ``\\b`` are ASCII, ``.`` is one code point and does not
match line terminators without ``s``, ``\\p{…}`` works, ``$`` is the very end without ``m``.

Flags (JavaScript's letters, each at most once):

* ``i`` ``m`` ``s`` change matching, as in JavaScript;
* ``u`` is always on, so writing it changes nothing; ``v`` (unicodeSets: set operations
  ``--`` ``&&``, ``\\q{…}``, string properties) replaces ``u``, and like JavaScript the
  two cannot be combined;
* ``g`` and ``d`` have no effect on one test from index 0 (``g`` only moves
  ``lastIndex`` between calls, ``d`` only adds match indices);
* ``y`` (sticky) pins the match to index 0, as ``RegExp.prototype.test`` does from a
  fresh ``lastIndex``: ``at="anywhere"`` then behaves as ``at="start"``.

Anything else is refused with a message (``check_pattern``). ``regress`` itself ignores
unknown flag letters, so this check is the only guard.

Where ``regress`` departs from JavaScript (tests/test_regex_node.py holds the grader to
Node.js on a few thousand cases), the pattern is checked or rewritten before the engine
sees it, keeping JavaScript's meaning (``_prepare``): a quantified ``\\b``/``\\B`` is a
SyntaxError; in v mode, what v mode lets through that JavaScript refuses (``\\k<n>`` and
``\\1`` without their group, lone ``{ } ]``, ``\\q`` or ``\\&`` outside a class, escapes
a class does not allow, a negated class that may contain strings) is refused; ``\\W``
inside a class under ``i``, ``\\b``/``\\B`` under ``v`` + ``i``, ``[\\b]`` under ``v``,
``\\q{a|b}`` (one code point per alternative) and ``\\uD83D\\u{…}`` are rewritten to
forms ``regress`` runs right. Left as they are (no faithful rewrite): ``v`` + ``i``
complements (``\\P{Lu}``, ``[^…]``, ``--``) follow u-mode case folding; the empty
string of ``\\q{}`` never matches; a counted repeat (``{2}`` and up) of a group that
repeats a greedy atom gives nothing back to its next round (``((a+)+){2}`` misses
``aa``); nested stars that can match empty (``(?:(?:a|)*)*x``) never end, so the time
limit makes them an error; a group's backreference to itself in an alternative
(``(a|\\1)a``) fails where JavaScript matches it as empty.

Matching runs in a persistent worker process (``graders._regex_worker``), started on
first use and shared by all threads behind a lock: ``regress`` holds the GIL for the
whole of a match, so a runaway match can only be stopped by killing its process. The
client sends a batch of texts per round trip and waits at most ``timeout`` seconds for
each next result; on a time-out it kills the worker, reports that text as timed out,
and resubmits the rest to a fresh worker.

Texts are UTF-8 for the engine, so lone surrogates (which UTF-8 cannot encode) are
matched as U+FFFD REPLACEMENT CHARACTER, one for one: code-point offsets still index the
original text. Offsets in results are code points of the original text.

POSIX only (``select.poll`` on pipes, ``SIGALRM`` backstop in the worker).
"""

from __future__ import annotations

import atexit
import functools
import os
import pickle
import re
import select
import struct
import subprocess
import sys
import threading
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import regress

from .text import describe_char, visible

__all__ = [
    "RegexError", "RegexSyntaxError", "RegexTimeout", "Flags", "parse_flags",
    "MatchResult", "TimeoutResult", "ErrorResult", "match_many", "ecma_search",
    "check_pattern", "python_pattern_hint", "literal", "replace_surrogates", "count_surrogates", "MODES",
    "ENGINE_VERSION",
    "engine_version",
]

MODES = ("anywhere", "start", "whole")
JS_FLAGS = "dgimsuvy"  # RegExp.prototype.flags order


@functools.cache
def engine_version() -> str:
    """regress's installed version, looked up on first use (importlib.metadata and the
    lookup cost the command's start 14 ms)."""
    from importlib import metadata

    try:
        return metadata.version("regress")
    except metadata.PackageNotFoundError:  # pragma: no cover - vendored or renamed
        return "unknown"


def __getattr__(name: str) -> str:  # ENGINE_VERSION, as before: computed when first read
    if name == "ENGINE_VERSION":
        return engine_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RegexError(Exception):
    """A pattern could not be run: bad syntax, time limit, or a failed matching engine."""


class RegexSyntaxError(RegexError, ValueError):
    """The pattern or its flags are not a valid JavaScript regular expression."""


class RegexTimeout(RegexError, TimeoutError):
    """A match ran past its time limit and was stopped."""


# --- Flags ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Flags:
    """A validated flags field. ``engine`` is what ``regress`` gets; ``js`` is the
    JavaScript ``flags`` string (``u`` included); ``signature`` reads ``u+i+m``."""

    given: str
    engine: str
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
    engine = mode + "".join(c for c in "ims" if c in seen)
    js = "".join(c for c in JS_FLAGS if c in seen or c == mode)
    others = [c for c in JS_FLAGS if c in seen and c not in "uv"]
    return Flags(flags, engine, js, "+".join([mode, *others]), "y" in seen, "i" in seen)


# --- Surrogates ----------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def count_surrogates(text: str) -> int:
    """Number of lone surrogate code points (they cannot be encoded as UTF-8)."""
    if text.isascii():
        return 0
    return len(_SURROGATE.findall(text))


def replace_surrogates(text: str) -> str:
    """``text`` with each surrogate code point replaced by U+FFFD (same length)."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


# --- Python-only syntax --------------------------------------------------------------

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


# --- Where regress departs from JavaScript -------------------------------------------
#
# Found by tests/test_regex_node.py (Node.js as the reference). Each rewrite below keeps
# JavaScript's meaning exactly; what cannot be rewritten is listed in that test.

# \W under i, spelt out: every code point but [0-9A-Za-z_], U+017F ſ and U+212A K (which
# fold into \w's letters). regress gets \W right alone but not inside a class.
_NOT_WORD_I = r"\u0000-\u002F\u003A-\u0040\u005B-\u005E\u0060\u007B-\u017E\u0180-\u2129\u212B-\u{10FFFF}"
# \b and \B by their definition (a word character on one side only / on both or neither):
# under v + i regress leaves ſ and K out of \b while its \w has them, as JavaScript's does.
_WORD_BOUNDARY = r"(?:(?<=\w)(?!\w)|(?<!\w)(?=\w))"
_NOT_WORD_BOUNDARY = r"(?:(?<=\w)(?=\w)|(?<!\w)(?!\w))"
_STRING_PROPERTIES = frozenset({
    "Basic_Emoji", "Emoji_Keycap_Sequence", "RGI_Emoji_Modifier_Sequence", "RGI_Emoji_Flag_Sequence",
    "RGI_Emoji_Tag_Sequence", "RGI_Emoji_ZWJ_Sequence", "RGI_Emoji",
})
# After \ inside a v-mode class: class escapes, \q, \b, character escapes, syntax
# characters, / and the reserved punctuators (ClassSetCharacter in ECMA-262).
_V_CLASS_ESCAPES = frozenset("dDsSwWpPqbfnrtvcxu0") | frozenset("^$\\.*+?()[]{}|/") | frozenset("&-!#%,:;<=>@`~")
# \uD83D right before \u{…}: regress wants a \uXXXX trail surrogate there and refuses the
# pattern; JavaScript reads two lone surrogates, as \u{D83D}\u{…} says to regress too.
_LEAD_ESCAPE = re.compile(r"\\u([dD][89abAB][0-9a-fA-F]{2})(?=\\u\{)")
_ESCAPE_LEN = re.compile(  # one escape inside \q{…}: how many characters it spans
    r"\\(?:u\{[^}]*\}|u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[A-Za-z]|.)",
    re.S,
)


@dataclass(frozen=True)
class _Prepared:
    """``syntax``: the pattern as regress must accept it (JavaScript's validity);
    ``engine``: what regress runs; ``shadow`` (v only): the pattern with every class and
    ``\\p{…}`` as ``[a]``, whose u-mode syntax check catches what regress's v mode lets
    through (outside classes u and v share one grammar); ``problem``: a SyntaxError
    JavaScript reports that regress does not."""

    syntax: str
    engine: str
    shadow: str | None
    problem: str | None


@dataclass
class _Class:
    text: str
    end: int
    strings: bool  # MayContainStrings (ECMA-262), v mode only
    problem: str | None = None


def _u_class(pattern: str, i: int, ignore_case: bool) -> _Class:
    n, j = len(pattern), i + 1
    out = ["["]
    if pattern.startswith("^", j):
        out.append("^")
        j += 1
    while j < n and pattern[j] != "]":
        if pattern[j] == "\\":
            esc = pattern[j + 1 : j + 2]
            if esc == "W" and ignore_case:
                out.append(_NOT_WORD_I)
            else:
                out.append(pattern[j : j + 2])
            j += 2
            continue
        out.append(pattern[j])
        j += 1
    out.append(pattern[j : j + 1])
    return _Class("".join(out), min(j + 1, n), False)


def _v_class(pattern: str, i: int, ignore_case: bool) -> _Class:
    n, j = len(pattern), i + 1
    out = ["["]
    negated = pattern.startswith("^", j)
    if negated:
        out.append("^")
        j += 1
    operands: list[bool] = []
    ops: set[str] = set()
    while j < n and pattern[j] != "]":
        c = pattern[j]
        if c == "[":
            inner = _v_class(pattern, j, ignore_case)
            if inner.problem:
                return inner
            out.append(inner.text)
            operands.append(inner.strings)
            j = inner.end
            continue
        if pattern.startswith(("&&", "--"), j):
            ops.add(pattern[j : j + 2])
            out.append(pattern[j : j + 2])
            j += 2
            continue
        if c != "\\":
            out.append(c)
            operands.append(False)
            j += 1
            continue
        esc = pattern[j + 1 : j + 2]
        if esc not in _V_CLASS_ESCAPES or (esc == "0" and pattern[j + 2 : j + 3].isdigit()):
            return _Class("", j, False, "Invalid class escape")
        if esc == "q" and pattern.startswith("{", j + 2):
            alts: list[list[str]] = [[]]
            k = j + 3
            while k < n and pattern[k] != "}":
                if pattern[k] == "|":
                    alts.append([])
                    k += 1
                    continue
                m = _ESCAPE_LEN.match(pattern, k) if pattern[k] == "\\" else None
                tok = m.group() if m else pattern[k]
                alts[-1].append(tok)
                k += len(tok)
            strings = any(len(a) != 1 for a in alts)
            if strings or k >= n:
                out.append(pattern[j : k + 1])
            else:  # one code point per alternative: a class of them (regress ignores \q{a} under [^…])
                out.append("[" + "".join(f"[{a[0]}]" for a in alts) + "]")
            operands.append(strings)
            j = k + 1
            continue
        if esc in "pP" and pattern.startswith("{", j + 2):
            close = pattern.find("}", j + 3)
            end = n if close == -1 else close + 1
            out.append(pattern[j:end])
            operands.append(esc == "p" and pattern[j + 3 : end - 1] in _STRING_PROPERTIES)
            j = end
            continue
        if esc == "W" and ignore_case:
            out.append(f"[{_NOT_WORD_I}]")
        elif esc == "b":
            out.append(r"\x08")  # backspace; regress's v mode reads [\b] as the letter b
        else:
            out.append(pattern[j : j + 2])
        operands.append(False)
        j += 2
    out.append(pattern[j : j + 1])
    if "&&" in ops:
        strings = bool(operands) and all(operands)
    elif "--" in ops:
        strings = bool(operands) and operands[0]
    else:
        strings = any(operands)
    if negated and strings:
        return _Class("", j, False, "Negated character class may contain strings")
    return _Class("".join(out), min(j + 1, n), strings and not negated)


# The head of a group whose letters are not literals: (?<name> and (?ims-ims: / (?i) style
# modifiers (a lookbehind (?<= (?<! is left to the main loop).
_GROUP_HEAD = re.compile(r"\(\?(?:<(?![=!])[^>]*>?|[a-zA-Z]*-?[a-zA-Z]*[:)])")


@functools.lru_cache(maxsize=512)
def _prepare(pattern: str, engine_flags: str) -> _Prepared:
    """The pattern for regress, with JavaScript's meaning (see the section comment)."""
    v, ignore_case = engine_flags[0] == "v", "i" in engine_flags
    syntax: list[str] = []
    engine: list[str] = []
    shadow: list[str] = []

    def emit(text: str, for_engine: str | None = None, for_shadow: str | None = None) -> None:
        syntax.append(text)
        engine.append(text if for_engine is None else for_engine)
        shadow.append(text if for_shadow is None else for_shadow)

    n, i = len(pattern), 0
    problem = None
    while i < n:
        c = pattern[i]
        if c == "[":
            cls = (_v_class if v else _u_class)(pattern, i, ignore_case)
            if cls.problem:
                problem = problem or cls.problem
                break
            emit(pattern[i : cls.end], cls.text, "[a]")
            i = cls.end
            continue
        if c == "(" and v and ignore_case:
            head = _GROUP_HEAD.match(pattern, i)  # a group name or modifiers: letters, not literals
            if head:
                emit(head.group())
                i = head.end()
                continue
        if c != "\\":
            # v mode with i: regress folds a literal letter otherwise than JavaScript (the
            # Kelvin sign is not k; dotless i is I), and a class of it as JavaScript does
            emit(c, f"[{c}]" if v and ignore_case and c.isalpha() else None)
            i += 1
            continue
        nxt = pattern[i + 1 : i + 2]
        m = _LEAD_ESCAPE.match(pattern, i)
        if m:
            emit(f"\\u{{{m.group(1)}}}")
            i = m.end()
        elif v and ignore_case and nxt == "k" and pattern.startswith("<", i + 2):
            close = pattern.find(">", i + 3)
            end = n if close == -1 else close + 1
            emit(pattern[i:end])  # \k<name>: the name stays as written
            i = end
        elif v and ignore_case and nxt in ("u", "x"):
            tok = _ESCAPE_LEN.match(pattern, i).group()  # one code point, in a class as a letter is
            emit(tok, f"[{tok}]" if len(tok) > 2 else None)
            i += len(tok)
        elif v and ignore_case and nxt == "c" and pattern[i + 2 : i + 3].isalpha():
            emit(pattern[i : i + 3])  # \cX: a control character, its letter no literal
            i += 3
        elif nxt in ("b", "B"):
            after = pattern[i + 2 : i + 3]
            if after and after in "*+?{":
                problem = problem or "Nothing to repeat"  # an assertion takes no quantifier
            boundary = _WORD_BOUNDARY if nxt == "b" else _NOT_WORD_BOUNDARY
            emit(pattern[i : i + 2], boundary if v and ignore_case else None)
            i += 2
        elif nxt in ("p", "P") and pattern.startswith("{", i + 2):
            close = pattern.find("}", i + 3)
            end = n if close == -1 else close + 1
            emit(pattern[i:end], None, "[a]")
            i = end
        else:
            emit(pattern[i : i + 2])
            i += 2
    if problem:
        return _Prepared(pattern, pattern, None, problem)
    return _Prepared("".join(syntax), "".join(engine), "".join(shadow) if v else None, None)


def _show(pattern: str, limit: int = 80) -> str:
    s = visible(pattern).replace("\n", "")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _compile_message(pattern: str, engine_flags: str) -> str | None:
    try:
        regress.Regex(pattern, engine_flags)
    except BaseException as e:  # RegressError, or a Rust panic (PyO3 PanicException)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return str(e) or type(e).__name__
    return None


def check_pattern(pattern: str, flags: str = "") -> str | None:
    """``None`` when ``pattern`` compiles as JavaScript with ``flags`` (u always on);
    otherwise one message for a person, with the JavaScript form of any Python syntax."""
    if not isinstance(pattern, str):
        return f"The pattern must be a string, not {type(pattern).__name__}."
    if not isinstance(flags, str):
        return f"Bad flags {flags!r}: flags must be a string of JavaScript flag letters."
    return _check_pattern(pattern, flags)


@functools.lru_cache(maxsize=512)
def _check_pattern(pattern: str, flags: str) -> str | None:
    try:
        fl = parse_flags(flags)
    except RegexSyntaxError as e:
        return f"Bad flags {flags!r}: {e}."
    if count_surrogates(pattern):
        ch = _SURROGATE.search(pattern).group()
        return (
            f"The pattern holds a lone surrogate U+{ord(ch):04X}, which is not valid Unicode text; "
            f"write it as the escape \\u{ord(ch):04X} if you mean it."
        )
    prep = _prepare(pattern, fl.engine)
    err = _compile_message(prep.syntax, fl.engine)
    if err is None and prep.problem is None and prep.shadow is not None:
        err = _compile_message(prep.shadow, "u" + fl.engine[1:])  # what v mode lets through
    if err is None and prep.problem is None:
        return None
    head = f"/{_show(pattern)}/{fl.js} is not a valid JavaScript regular expression ({err or prep.problem})."
    hint = python_pattern_hint(pattern)
    if hint:
        return f"{head} {hint}"
    if err is not None and _compile_message(pattern, fl.engine[1:]) is None:
        return (
            f"{head} It would compile without the {fl.engine[0]} flag, which this grader sets: in Unicode "
            "mode, lone { } ] must be escaped and characters that need no escape (such as \\-) must not be."
        )
    return head


# --- Results -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The text was searched: ``span`` is the match's ``[start, end)`` in code points, or None."""

    span: tuple[int, int] | None

    @property
    def matched(self) -> bool:
        return self.span is not None


@dataclass(frozen=True, slots=True)
class TimeoutResult:
    """The match ran past ``timeout`` seconds and was stopped."""

    timeout: float

    @property
    def message(self) -> str:
        return f"the match ran past the time limit of {self.timeout:g} s and was stopped"


@dataclass(frozen=True, slots=True)
class ErrorResult:
    """The text could not be matched: bad pattern or flags, or the engine failed."""

    message: str


Result = MatchResult | TimeoutResult | ErrorResult

# --- The worker client ---------------------------------------------------------------

_WORKER_FILE = Path(__file__).with_name("_regex_worker.py")
_LEN = struct.Struct("<Q")
_SPAN = struct.Struct("<QQ")
_MSG = struct.Struct("<I")
STARTUP_TIMEOUT = 30.0  # seconds for a fresh worker to import regress and say ready
ACCEPT_SLACK = 10.0  # extra seconds for the worker to unpickle a chunk and compile
BACKSTOP_SLACK = 30.0  # the worker kills itself this long past the limit if nobody else did
REPLY_PAUSE = 0.0005  # seconds to let replies accumulate between reads of a batch
CHUNK_TEXTS = 4096  # texts per round trip
CHUNK_CHARS = 4_000_000  # code points per round trip (at least one text)
_NO_MATCH = MatchResult(None)


class _Unavailable(Exception):
    pass


class _Died(Exception):
    pass


class _WorkerClient:
    """One worker process, shared by every thread of this process behind a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._owner = 0  # pid that started the worker (a forked child must not reuse it)
        self._buf = bytearray()
        self._poll: select.poll | None = None
        self.starts = 0  # workers started so far (tests read it)

    # -- process lifecycle --

    def _command(self) -> list[str]:
        if _WORKER_FILE.is_file():
            # -P: do not put graders/ on sys.path (its module names would shadow others);
            # the worker needs only regress and the standard library.
            return [sys.executable, "-P", str(_WORKER_FILE)]
        return [sys.executable, "-m", "graders._regex_worker"]  # pragma: no cover - zipped install

    def _start(self) -> None:
        if not hasattr(select, "poll"):
            raise _Unavailable("the regex time limit needs a POSIX system (select.poll on pipes)")
        try:
            proc = subprocess.Popen(
                self._command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
                close_fds=True,
                start_new_session=True,  # Ctrl-C in a terminal reaches the client, not the worker
            )
        except OSError as e:
            raise _Unavailable(f"the regex worker could not be started: {e}") from None
        self._proc, self._owner = proc, os.getpid()
        self._buf.clear()
        self._poll = select.poll()
        self._poll.register(proc.stdout.fileno(), select.POLLIN)
        self.starts += 1
        try:
            tag = self._read(1, time.monotonic() + STARTUP_TIMEOUT)
        except (_Died, TimeoutError):
            code = self._kill()
            raise _Unavailable(f"the regex worker did not start (exit status {code})") from None
        if tag != b"R":
            self._kill()
            raise _Unavailable("the regex worker sent an unexpected greeting")

    def _after_fork_in_child(self) -> None:
        """The pipes belong to the parent's worker and the lock may be held by a thread
        that does not exist here: drop both (without killing the parent's worker)."""
        self._lock = threading.Lock()
        self._proc, self._poll = None, None
        self._buf = bytearray()

    def _ensure(self) -> None:
        if self._proc is not None and self._owner != os.getpid():
            self._after_fork_in_child()  # forked without the at-fork hook (os.fork from C)
        if self._proc is not None and self._proc.poll() is not None:
            self._kill()
        if self._proc is None:
            self._start()

    def _kill(self) -> int | None:
        proc, self._proc, self._poll = self._proc, None, None
        self._buf.clear()
        if proc is None:
            return None
        try:
            proc.kill()
        except OSError:
            pass
        code = proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        return code

    def close(self) -> None:
        """Close the worker's stdin so it exits; wait briefly, then kill it."""
        with self._lock:
            proc = self._proc
            if proc is None or self._owner != os.getpid():
                return
            try:
                proc.stdin.close()
                proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._kill()

    # -- pipe I/O --

    def _fill(self, deadline: float) -> None:
        """Read whatever the worker has sent, waiting until ``deadline`` for at least a byte."""
        fd = self._proc.stdout.fileno()
        while True:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError
            if self._poll.poll(min(wait, 3600.0) * 1000.0):
                break
        data = os.read(fd, 1 << 16)
        if not data:
            raise _Died
        self._buf += data

    def _read(self, n: int, deadline: float) -> bytes:
        while len(self._buf) < n:
            self._fill(deadline)
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def _send(self, payload: bytes) -> None:
        fd = self._proc.stdin.fileno()
        view = memoryview(_LEN.pack(len(payload)) + payload)
        try:
            while view:
                view = view[os.write(fd, view):]
        except (BrokenPipeError, OSError):
            raise _Died from None

    # -- one chunk --

    def _chunk(self, pattern: str, flags: str, mode: str, texts: list[str], timeout: float, out: list[Result]) -> None:
        """Append one result per text to ``out``. On ``TimeoutError`` / ``_Died`` the
        results so far are in ``out`` and the next text is the one to blame."""
        backstop = min(timeout + BACKSTOP_SLACK, 1e8)
        self._send(pickle.dumps((pattern, flags, mode, texts, backstop), protocol=pickle.HIGHEST_PROTOCOL))
        tag = self._read(1, time.monotonic() + timeout + ACCEPT_SLACK)
        if tag == b"C":
            (size,) = _MSG.unpack(self._read(_MSG.size, time.monotonic() + ACCEPT_SLACK))
            msg = self._read(size, time.monotonic() + ACCEPT_SLACK).decode("utf-8", "replace")
            out.extend([ErrorResult(f"the pattern does not compile: {msg}")] * len(texts))
            return
        if tag != b"A":
            raise _Died
        buf = self._buf
        n = len(texts)
        deadline = time.monotonic() + timeout
        while len(out) < n:
            if not buf:
                self._fill(deadline)
            # Parse every complete reply in the buffer.
            pos, size = 0, len(buf)
            now = time.monotonic()
            while pos < size and len(out) < n:
                t = buf[pos]
                if t == 0x4E:  # N
                    out.append(_NO_MATCH)
                    pos += 1
                elif t == 0x4D:  # M
                    if size - pos < 1 + _SPAN.size:
                        break
                    out.append(MatchResult(_SPAN.unpack_from(buf, pos + 1)))
                    pos += 1 + _SPAN.size
                elif t == 0x45:  # E
                    if size - pos < 1 + _MSG.size:
                        break
                    (ln,) = _MSG.unpack_from(buf, pos + 1)
                    if size - pos < 1 + _MSG.size + ln:
                        break
                    start = pos + 1 + _MSG.size
                    out.append(ErrorResult(f"the engine failed: {bytes(buf[start:start + ln]).decode('utf-8', 'replace')}"))
                    pos = start + ln
                else:
                    raise _Died
            if pos:
                del buf[:pos]
                deadline = now + timeout
                if len(out) < n:
                    # Let replies pile up in the pipe: one read per many texts instead of
                    # a wake-up per text. Time-outs are unaffected (counted from here).
                    time.sleep(REPLY_PAUSE)
            elif buf:
                self._fill(deadline)  # a partial reply: wait for the rest

    def run(
        self, pattern: str, flags: str, mode: str, texts: Sequence[str], timeout: float, max_timeouts: int | None
    ) -> list[Result]:
        results: list[Result] = []
        n = len(texts)
        timeouts = 0
        with self._lock:
            try:
                i = 0
                while i < n:
                    if max_timeouts is not None and timeouts >= max_timeouts:
                        results.extend([ErrorResult(
                            f"not run: the pattern already ran past the time limit of {timeout:g} s "
                            f"on {timeouts} text{'s' if timeouts != 1 else ''} of this batch"
                        )] * (n - i))
                        break
                    j = _chunk_end(texts, i)
                    try:
                        self._ensure()
                    except _Unavailable as e:
                        results.extend([ErrorResult(str(e))] * (n - i))
                        break
                    got: list[Result] = []
                    try:
                        self._chunk(pattern, flags, mode, list(texts[i:j]), timeout, got)
                    except TimeoutError:
                        self._kill()
                        got.append(TimeoutResult(timeout))
                        timeouts += 1
                    except _Died:
                        code = self._kill()
                        got.append(ErrorResult(
                            f"the matching engine stopped unexpectedly (exit status {code}) on this text"
                        ))
                    results.extend(got)
                    i += len(got)
            except BaseException:
                # Interrupted mid-conversation (KeyboardInterrupt, ...): the pipe state is
                # unknown, so the worker must not be reused.
                self._kill()
                raise
        return results


def literal(pattern: str, flags: Flags) -> str:
    """The pattern as a JavaScript literal for messages, ``/…/iu``, shortened when long."""
    return f"/{_show(pattern) or '(?:)'}/{flags.js}"  # JavaScript shows an empty source as (?:)


def _chunk_end(texts: Sequence[str], i: int) -> int:
    """End of the round trip starting at ``i``: up to CHUNK_TEXTS texts and CHUNK_CHARS
    code points, at least one text."""
    j = min(len(texts), i + CHUNK_TEXTS)
    if sum(map(len, texts[i:j])) <= CHUNK_CHARS:
        return j
    k, chars = i + 1, len(texts[i])
    while k < j and chars + len(texts[k]) <= CHUNK_CHARS:
        chars += len(texts[k])
        k += 1
    return k


_CLIENT = _WorkerClient()
atexit.register(_CLIENT.close)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_CLIENT._after_fork_in_child)


def match_many(
    pattern: str,
    flags: str,
    mode: str,
    texts: Iterable[str],
    timeout: float = 1.0,
    *,
    max_timeouts: int | None = None,
) -> list[Result]:
    """Match ``pattern`` (JavaScript, u always on) against each text; one result per text.

    ``mode``: ``anywhere`` (a search), ``start`` (a match beginning at index 0) or
    ``whole`` (a match from index 0 to the end, alternatives backtracking). Each text has
    ``timeout`` seconds. A bad pattern or bad flags give an ``ErrorResult`` for every text
    (``check_pattern`` has the message). Never raises on any str; ``ValueError`` on a bad
    ``mode`` or ``timeout`` (programming errors).

    ``max_timeouts``: after that many time-outs in this call, the remaining texts are not
    run and get an ``ErrorResult`` saying so (a whole column of a catastrophic pattern
    would otherwise cost ``timeout`` plus a worker start per row). ``None``: run every text.
    """
    texts = list(texts)
    for t in texts:
        if not isinstance(t, str):
            raise TypeError(f"texts must be str, not {type(t).__name__}")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid modes: {', '.join(MODES)}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds > 0, not {timeout!r}")
    msg = check_pattern(pattern, flags)
    if msg is not None:
        return [ErrorResult(msg)] * len(texts)
    if not texts:
        return []
    fl = parse_flags(flags)
    mode = "start" if fl.sticky and mode == "anywhere" else mode
    clean = [replace_surrogates(t) for t in texts]
    return _CLIENT.run(_prepare(pattern, fl.engine).engine, fl.engine, mode, clean, float(timeout), max_timeouts)


def ecma_search(pattern: str, text: str, timeout: float = 1.0) -> bool:
    """True when ``pattern`` matches somewhere in ``text`` (JavaScript, u flag, unanchored),
    as JSON Schema's ``pattern`` keyword requires.

    Raises ``RegexSyntaxError`` for a pattern JavaScript refuses, ``RegexTimeout`` when the
    match runs past ``timeout`` seconds, ``RegexError`` when the engine fails.
    """
    msg = check_pattern(pattern, "")
    if msg is not None:
        raise RegexSyntaxError(msg)
    (r,) = match_many(pattern, "", "anywhere", [text], timeout)
    if isinstance(r, MatchResult):
        return r.matched
    if isinstance(r, TimeoutResult):
        raise RegexTimeout(f"/{_show(pattern)}/u: {r.message}")
    raise RegexError(f"/{_show(pattern)}/u: {r.message}")
