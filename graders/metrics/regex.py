"""regex: the output matches a JavaScript regular expression (the expected text is unused).

Settings: ECMAScript semantics, run by V8 (``graders.engines.regex``), with the ``u`` flag always on;
``at="anywhere"`` (a search), ``"start"`` (a match beginning at index 0) or ``"whole"``
(a match from index 0 to the end, alternatives backtracking: ``a|ab`` matches ``ab``);
``flags`` are JavaScript's letters (see ``graders.engines.regex``: ``i m s v`` change matching,
``g d`` change nothing on one test, ``y`` pins the match to index 0); each match has
``timeout`` seconds (default 1); V8 stops a match that runs past it.

Statuses: ``pass`` / ``fail``; ``error`` for a pattern or flags JavaScript refuses
(Python-only syntax is named with its JavaScript form), for a match that ran past the
time limit, or for a failed engine. Near miss: ``case_insensitive`` when the fail
passes with ``i`` added. Positions in explanations are 0-based code points.
``grade_many`` grades a whole column in a few calls into V8, with the same grades as
``grade("regex", ...)`` row by row.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from graders.engines.regex import (
    MODES,
    ErrorResult,
    MatchResult,
    RegexSyntaxError,
    TimeoutResult,
    check_pattern,
    engine_version,
    literal,
    match_many,
    parse_flags,
    python_pattern_hint,
)
from graders.metrics.base import GraderSpec, Param, resolve
from graders.result import Block, Grade, error, verdict
from graders.text.show import snippet, visible

_WHERE = {
    "anywhere": "anywhere in the output",
    "start": "at the start of the output",
    "whole": "over the whole output",
}

PARAMS = (
    Param("pattern", "text", required=True,
          help="a JavaScript regular expression, without the surrounding slashes"),
    Param("at", "choice", "anywhere", choices=MODES,
          help="anywhere: a match anywhere; start: a match beginning at index 0; "
               "whole: a match from index 0 to the end"),
    Param("flags", "text", "",
          help="JavaScript flags: i ignore case, m ^ and $ at line breaks, s . matches line breaks, "
               "v unicodeSets; u is always on; g and d change nothing; y pins the match to the start"),
    Param("timeout", "seconds", 1.0,
          help="time limit for each match, in seconds (a fail's search elsewhere and its near-miss probe each have their own)"),
)


def signature(flags: str, at: str) -> str:
    """``regex|engine:ecmascript(v8 14.4.258.23)|flags:u+i|at:whole``."""
    try:
        shown = parse_flags(flags).signature
    except RegexSyntaxError:
        shown = repr(flags)
    return f"regex|engine:ecmascript({engine_version()})|flags:{shown}|at:{at}"


def _quote(s: str, limit: int = 60) -> str:
    if not s:
        return "an empty string"
    v = visible(s[: limit + 1]).replace("\n", "")  # visible maps each character alone: only a prefix shows
    return '"' + (v if len(v) <= limit else v[: limit - 1] + "…") + '"'


def _span_words(output: str, s: int, e: int) -> str:
    if s == e:
        return f"{_quote('')} at code point {s}"
    return f"{_quote(output[s:e])} at code points {s}–{e}"


def _grades(
    outputs: Sequence[str], pattern: str, at: str, flags: str, timeout: float, max_timeouts: int | None = None
) -> list[Grade]:
    """One grade per output, without the near-miss probe."""
    sig = signature(flags, at)
    base = {"signature": sig, "pattern": pattern, "flags": flags, "at": at, "timeout": timeout,
            "engine_version": engine_version()}
    msg = check_pattern(pattern, flags)
    if msg is not None:
        reason = "flags" if msg.startswith("Bad flags") else "syntax"
        g = error(f"{msg} ({sig})", reason=reason, hint=python_pattern_hint(pattern), **base)
        return [g] * len(outputs)
    fl = parse_flags(flags)
    lit = literal(pattern, fl)
    mode = "start" if fl.sticky and at == "anywhere" else at
    sticky = " (the y flag pins the match to the start)" if mode != at else ""
    results = match_many(pattern, flags, at, outputs, timeout, max_timeouts=max_timeouts)

    # Where a start / whole match failed, say where the pattern does match, if anywhere.
    elsewhere: dict[int, tuple[int, int]] = {}
    if mode != "anywhere":
        failed = [i for i, r in enumerate(results) if isinstance(r, MatchResult) and r.span is None]
        if failed:
            found = match_many(pattern, flags.replace("y", ""), "anywhere", outputs, timeout,
                               max_timeouts=max_timeouts, only=failed)
            elsewhere = {i: r.span for i, r in zip(failed, found) if isinstance(r, MatchResult) and r.span}

    grades: list[Grade] = []
    for i, (output, r) in enumerate(zip(outputs, results)):
        if isinstance(r, TimeoutResult):
            grades.append(error(
                f"Matching {lit} {_WHERE[mode]} ran past the time limit of {timeout:g} s and was stopped. "
                "The pattern probably backtracks catastrophically (a nested quantifier such as (a+)+, "
                f"or overlapping alternatives under a quantifier); simplify it or raise the time limit. ({sig})",
                reason="timeout", **base,
            ))
            continue
        if isinstance(r, ErrorResult):
            grades.append(error(f"Could not match {lit}: {r.message}. ({sig})", reason="engine", **base))
            continue
        if r.span is None:
            text = f"No match of {lit} {_WHERE[mode]}{sticky}."
            span = elsewhere.get(i)
            if span is not None:
                s, e = span
                if mode == "whole":
                    text += (f" It matches only part of it, {_span_words(output, s, e)}, "
                             "so the output holds other text as well.")
                else:
                    text += f" It does match {_span_words(output, s, e)} («{snippet(output, s)}»)."
            grades.append(verdict(False, f"{text} ({sig})", span=None, elsewhere=span, **base))
            continue
        s, e = r.span
        if mode == "whole":
            text = f"{lit} matched the whole output ({len(output)} code point{'s' if len(output) != 1 else ''})."
        elif mode == "start":
            text = f"{lit} matched {_quote(output[s:e])} at the start of the output (code points 0–{e}){sticky}."
        else:
            text = f"{lit} matched {_span_words(output, s, e)} of the output («{snippet(output, s)}»)."
        grades.append(verdict(True, f"{text} ({sig})", span=(s, e), matched=output[s:e], **base))
    return grades


def _case_insensitive(
    outputs: Sequence[str], pattern: str, at: str, flags: str, timeout: float, max_timeouts: int | None = None,
    only: Sequence[int] | None = None,
) -> list[bool]:
    """For each output (of ``only``, when given): does it pass with the i flag added?
    (False when i is already on.)"""
    if parse_flags(flags).ignore_case:
        return [False] * (len(outputs) if only is None else len(only))
    results = match_many(pattern, flags + "i", at, outputs, timeout, max_timeouts=max_timeouts, only=only)
    return [isinstance(r, MatchResult) and r.matched for r in results]


def _probe(refs: tuple[str, ...], output: str, *, pattern: str, at: str, flags: str, timeout: float):
    return ("case_insensitive",) if _case_insensitive([output], pattern, at, flags, timeout)[0] else None


def grade_regex(refs: tuple[str, ...], output: str, *, pattern: str, at: str, flags: str, timeout: float) -> Grade:
    return _grades([output], pattern, at, flags, timeout)[0]


SPEC = GraderSpec(
    name="regex",
    func=grade_regex,
    params=PARAMS,
    binary=True,
    uses_expected=False,
    label="Regex (JavaScript)",
    summary="the output matches a JavaScript regular expression (u flag on) anywhere, at the start, "
            "or over the whole text; each match has a time limit",
    probe=_probe,
    batch=lambda refs, outputs, **params: _column(outputs, **params),
)


def grade_many(
    outputs: Sequence[str], *, pattern: str, at: str = "anywhere", flags: str = "", timeout: float = 1.0,
    max_timeouts: int | None = None,
) -> list[Grade]:
    """``[grade("regex", "", o, pattern=..., ...) for o in outputs]``, near misses included,
    in a few calls into V8 instead of one per output. ``max_timeouts``: after
    that many time-outs the remaining rows are not run (an error says so)."""
    p = resolve(SPEC, {"pattern": pattern, "at": at, "flags": flags, "timeout": timeout})
    p["max_timeouts"] = max_timeouts
    outputs = list(outputs)
    for o in outputs:
        if not isinstance(o, str):
            raise ValueError(f"output must be a str, not {type(o).__name__}")
    grades = _grades(outputs, **p)
    failed = [i for i, g in enumerate(grades) if g.status == "fail"]
    if failed:
        flips = _case_insensitive(outputs, **p, only=failed)
        for i, flip in zip(failed, flips):
            if flip:
                grades[i] = replace(grades[i], near_miss=("case_insensitive",))
    return grades


# A column of a catastrophic pattern would cost the time limit per row:
# the batch layer stops running it after this many time-outs (the rest say so).
COLUMN_MAX_TIMEOUTS = 3


def _column(outputs: Sequence[str], *, pattern: str, at: str, flags: str, timeout: float) -> Block:
    return Block.from_grades(
        grade_many(outputs, pattern=pattern, at=at, flags=flags, timeout=timeout, max_timeouts=COLUMN_MAX_TIMEOUTS)
    )
