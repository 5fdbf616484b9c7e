"""``regex`` assertions as promptfoo compiles them: ``new RegExp(value)``, no flags.

promptfoo tests ``new RegExp(renderedValue).test(output)``: the pattern in JavaScript's
non-Unicode mode, so ``A\\-\\d+`` is valid (an identity escape) where the regex grader's
``u`` flag refuses it. Here the pattern runs in V8 (``graders.engines.regex``'s isolates and
batches) with exactly the flags the assertion gives (``"flags"``, default none: ``u`` only
when written), ``at`` as the regex grader's (default ``anywhere``, which is ``test``).

Time: each match has the assertion's ``timeout`` (default 1 s, at most ``MAX_TIMEOUT``); a
pattern stops after ``GROUP_TIMEOUTS`` time-outs, and a run's regex assertions together
after ``RUN_TIMEOUTS`` (``Budget``, kept across the run's chunks in each process by
``engines.budget``), the rest of their rows an error saying so: a catastrophic pattern over
10,000 rows costs a few time limits, not 10,000.

Statuses: ``pass`` / ``fail``; ``error`` for a pattern or flags JavaScript refuses
(promptfoo counts that as a fail, "Invalid regex pattern"), a value that is not a non-empty
string (promptfoo throws), a match past its time limit, or rows not run. Near miss on a
fail: ``case_insensitive`` when the pattern matches with ``i`` added.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

from graders.engines import budget as run_budget
from graders.engines import regex as engine
from graders.result import Grade, _grade, error, verdict
from graders.text.show import snippet, visible

MODES = engine.MODES
DEFAULT_TIMEOUT = 1.0
MAX_TIMEOUT = 5.0  # an assertion's own "timeout" is capped here (seconds)
GROUP_TIMEOUTS = 3  # time-outs after which a pattern's remaining rows are not run (as a configuration regex)
RUN_TIMEOUTS = 10  # time-outs after which a run runs no more regex assertions
RUN_KEY = "regex assertions"  # the run's count of them (engines.budget: across its chunks)


class Budget:
    """The time-outs a chunk's regex assertions may still spend (shared by their groups)."""

    def __init__(self, total: int = RUN_TIMEOUTS) -> None:
        self.left = total - run_budget.spent(RUN_KEY)  # what the run's earlier chunks spent

    def take(self, pattern: str, flags: str) -> int:
        """The time-outs the next group (one pattern) may spend."""
        return min(GROUP_TIMEOUTS - run_budget.spent((RUN_KEY, pattern, flags)), self.left)

    def spend(self, pattern: str, flags: str, n: int) -> None:
        self.left -= n
        run_budget.add(RUN_KEY, n)
        run_budget.add((RUN_KEY, pattern, flags), n)


@dataclass(frozen=True)
class Pattern:
    """A regex assertion's settings, checked: ``pattern`` None means each row's expected answer."""

    pattern: str | None
    flags: str
    at: str
    timeout: float


def settings(value: object, flags: object, at: object, timeout: object) -> Pattern | str:
    """The assertion's settings, or the message of its error."""
    if value is not None and (not isinstance(value, str) or value == ""):
        return '"regex" assertion type must have a string value (a non-empty pattern, as promptfoo requires)'
    if flags is None:
        flags = ""
    if not isinstance(flags, str):
        return f"flags must be a string of JavaScript flag letters, not {type(flags).__name__}"
    if at is None:
        at = "anywhere"
    if at not in MODES:
        return f"at must be one of {', '.join(MODES)}, not {at!r}"
    if timeout is None:
        timeout = DEFAULT_TIMEOUT
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        return f"timeout must be a number of seconds > 0, not {timeout!r}"
    return Pattern(value, flags, at, min(float(timeout), MAX_TIMEOUT))


@functools.lru_cache(maxsize=512)
def refusal(pattern: str, flags: str) -> str | None:
    """V8's reason for refusing ``new RegExp(pattern, flags)``, or None."""
    try:
        return engine._v8_reason(pattern, flags)
    except engine._EngineFailed as e:
        return str(e)


def _quote(s: str, limit: int = 60) -> str:
    v = visible(s[:limit + 1]).replace("\n", "")
    return '"' + (v if len(v) <= limit else v[:limit - 1] + "…") + '"'


def literal(pattern: str, flags: str) -> str:
    shown = visible(pattern).replace("\n", "") or "(?:)"
    return "/" + (shown if len(shown) <= 80 else shown[:79] + "…") + "/" + flags


def _match(pattern: str, flags: str, mode: str, texts: list[str], timeout: float, budget: list[int],
           only: list[int] | None = None) -> list[engine.Result]:
    """``match_many`` without the engine's ``u``: one result per text (of ``only``)."""
    wanted = list(range(len(texts))) if only is None else only
    results: list[engine.Result | None] = []
    i = 0
    while i < len(texts) and budget[0] > 0:
        j = engine._chunk_end(texts, i)
        rows = [k - i for k in wanted if i <= k < j] if only is not None else None
        if rows is None or rows:
            try:
                results += engine._run_batch(pattern, flags, mode, texts[i:j], rows, timeout, budget)
            except engine._EngineFailed as e:
                results += [engine.ErrorResult(str(e))] * (j - i if rows is None else len(rows))
        i = j
    spent = engine.ErrorResult(f"not run: the pattern already ran past its time limit {GROUP_TIMEOUTS} times in "
                               f"this run (or the run's regex assertions {RUN_TIMEOUTS} times)")
    results = [r if r is not None else spent for r in results]
    return results + [spent] * (len(wanted) - len(results))


def column(p: Pattern, texts: Sequence[str], patterns: Sequence[str], budget: Budget,
           rows: Sequence[int] | None = None) -> list[Grade]:
    """The grades of one group: each of its rows (``rows``: positions in ``texts``,
    ascending; None: every text) against its pattern (``patterns``, one per row), rows
    sharing a pattern matched in one batch. ``texts`` is the chunk's whole column, the same
    list for every group, so V8 receives it once (``engines.regex`` keeps it)."""
    texts = texts if isinstance(texts, list) else list(texts)
    rows = list(range(len(texts))) if rows is None else list(rows)
    grades: list[Grade | None] = [None] * len(rows)
    by_pattern: dict[str, list[int]] = {}
    for k, pat in enumerate(patterns):
        by_pattern.setdefault(pat, []).append(k)
    for pat, ks in by_pattern.items():
        for k, g in zip(ks, _one_pattern(p, pat, texts, [rows[k] for k in ks], budget)):
            grades[k] = g
    return grades  # type: ignore[return-value]


def _one_pattern(p: Pattern, pattern: str, texts: list[str], rows: list[int], budget: Budget) -> list[Grade]:
    lit = literal(pattern, p.flags)
    details = {"pattern": pattern, "flags": p.flags, "at": p.at, "timeout": p.timeout,
               "signature": f"regex|engine:ecmascript({engine.engine_version()})|flags:{p.flags or 'none'}|at:{p.at}"}
    why = refusal(pattern, p.flags)
    if why is not None:
        return [error(f"{lit} is not a valid JavaScript regular expression ({why}); promptfoo counts this "
                      "assertion as a fail (\"Invalid regex pattern\").", reason="syntax", **details)] * len(rows)
    start = budget.take(pattern, p.flags)
    allowed = [start]
    if start <= 0:
        return [error(f"Not run: the regex assertions of this run already ran past their time limit "
                      f"{RUN_TIMEOUTS} times (or this pattern {GROUP_TIMEOUTS} times).", reason="budget",
                      **details)] * len(rows)
    results = _match(pattern, p.flags, p.at, texts, p.timeout, allowed, only=rows)
    fails = [pos for pos, r in zip(rows, results) if isinstance(r, engine.MatchResult) and r.span is None]
    flips: set[int] = set()
    if fails and "i" not in p.flags and refusal(pattern, p.flags + "i") is None and allowed[0] > 0:
        found = _match(pattern, p.flags + "i", p.at, texts, p.timeout, allowed, only=fails)
        flips = {pos for pos, r in zip(fails, found) if isinstance(r, engine.MatchResult) and r.span is not None}
    budget.spend(pattern, p.flags, start - allowed[0])  # the time-outs this group spent (its probe's included)
    where = {"anywhere": "in the output", "start": "at the start of the output", "whole": "as the whole output"}[p.at]
    no_match = verdict(False, f"No match of {lit} {where}.", **details)  # one grade, shared by the rows it fits
    grades = []
    for pos, r in zip(rows, results):
        if isinstance(r, engine.TimeoutResult):
            grades.append(error(f"Matching {lit} {where} ran past the time limit of {p.timeout:g} s and was stopped "
                                "(a nested quantifier such as (a+)+ backtracks catastrophically).",
                                reason="timeout", **details))
        elif isinstance(r, engine.ErrorResult):
            grades.append(error(f"Could not match {lit}: {r.message}.", reason="engine", **details))
        elif r.span is None:
            g = no_match
            if pos in flips:
                g = Grade(g.status, g.passed, g.score, g.explanation, ("case_insensitive",), g.details)
            grades.append(g)
        else:
            s, e = r.span
            text = texts[pos]
            grades.append(_grade("pass", True, 1.0, f"{lit} matched {_quote(text[s:e])} at code points {s}–{e} "
                                                    f"(«{snippet(text, s)}»).", details))
    return grades
