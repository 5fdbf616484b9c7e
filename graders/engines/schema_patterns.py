"""A schema's ECMAScript ``pattern``s over a run of outputs: batched into V8, cached, and
under one time-out budget per run.

JSON Schema's ``pattern`` and ``patternProperties`` are ECMAScript (``graders.engines.regex``,
V8). One call into V8 per (pattern, string) costs about as much as validating a row, so a
run evaluates its rows in rounds: a row is checked with what is already known; a pair
(pattern, string) not yet known is recorded, guessed as a match (so that the rest of the
row is explored and its other pairs recorded in the same round) and the row is checked
again once the round's pairs have been matched, all strings of one pattern in one
``match_many`` call. A row's result counts only from a check that met no unknown pair, so
the guesses never reach a verdict.

Time limit: each match has ``REGEX_TIMEOUT``; a run (``Oracle``: one ``grade_many`` call,
as for the ``regex`` grader's column) allows ``MAX_TIMEOUTS`` time-outs in all, after which
its remaining pairs are not run and the rows that need them are an error that says so
(a catastrophic pattern over 10,000 rows costs a few seconds, not the limit per row).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, TypeVar

from graders.engines import budget
from graders.engines.jsonparse import encodable, shorten
from graders.engines.regex import ErrorResult, MatchResult, TimeoutResult, match_many

REGEX_TIMEOUT = 1.0  # seconds, per pattern match
MAX_TIMEOUTS = 3  # time-outs one run allows before its remaining pattern matches are not run
BUDGET_KEY = "json_schema patterns"  # the run's count of them (engines.budget: across its chunks)
SHORT = 256  # strings up to this length have their results kept across runs (enums, ids, dates)
_KEPT_LIMIT = 100_000  # (pattern, short string) results kept across runs; cleared past it

_KEPT: dict[str, dict[str, bool]] = {}  # pattern -> short string -> matched, across runs
_kept_count = [0]
_local = threading.local()
T = TypeVar("T")


class PatternProblem(Exception):
    """A pattern could not be run on an instance string (time limit, budget, engine failure)."""


def show(s: str, limit: int = 80) -> str:
    return encodable(shorten(repr(s), limit))


class Oracle:
    """The pattern results of one run. ``search`` answers from what is known; an unknown
    pair is recorded (``misses`` counts them) and guessed True, or, with ``direct``, matched
    at once. ``resolve`` matches the recorded pairs, one V8 call per pattern."""

    def __init__(self, *, direct: bool = False, timeout: float = REGEX_TIMEOUT, max_timeouts: int = MAX_TIMEOUTS):
        self.direct = direct
        self.timeout = timeout
        self.max_timeouts = max_timeouts
        self.timeouts = budget.spent(BUDGET_KEY)  # what the run's earlier chunks spent (engines.budget)
        self.misses = 0
        self.wanted = 0  # pairs recorded by ``want`` (not yet known when recorded)
        self.known: dict[str, dict[str, bool | str]] = {}  # pattern -> string -> matched, or a problem
        self.missing: dict[str, dict[str, None]] = {}  # pattern -> strings to match (ordered)

    def search(self, pattern: str, text: str) -> bool:
        got = self.known.get(pattern)
        r = None if got is None else got.get(text)
        if r is None:
            kept = _KEPT.get(pattern)
            r = None if kept is None else kept.get(text)
            if r is None:
                self.misses += 1
                self.missing.setdefault(pattern, {})[text] = None
                if not self.direct:
                    return True
                self.resolve()
                r = self.known[pattern][text]
        if r is True or r is False:
            return r
        raise PatternProblem(r)

    def want(self, pattern: str, text: str) -> None:
        """Record a pair the run will need (matched at the next ``resolve``), unless known;
        ``wanted`` counts the calls that recorded one."""
        got = self.known.get(pattern)
        if got is not None and text in got:
            return
        kept = _KEPT.get(pattern)
        if kept is not None and text in kept:
            return
        self.wanted += 1
        self.missing.setdefault(pattern, {})[text] = None

    def resolve(self) -> None:
        """Match every recorded pair (within the budget); each becomes known."""
        missing, self.missing = self.missing, {}
        for pattern, wanted in missing.items():
            texts = list(wanted)
            known = self.known.setdefault(pattern, {})
            left = self.max_timeouts - self.timeouts
            if left <= 0:
                for t in texts:
                    known[t] = self._spent(pattern, t)
                continue
            results = match_many(pattern, "", "anywhere", texts, self.timeout, max_timeouts=left)
            for t, r in zip(texts, results):
                known[t] = self._result(pattern, t, r)

    def _result(self, pattern: str, text: str, r: Any) -> bool | str:
        if isinstance(r, MatchResult):
            if len(text) <= SHORT:
                _keep(pattern, text, r.matched)
            return r.matched
        if isinstance(r, TimeoutResult):
            self.timeouts += 1
            budget.add(BUDGET_KEY)
            return (f"the schema pattern {show(pattern)} ran past its {self.timeout:g} s time limit "
                    f"on a string of {len(text):,} characters and was stopped")
        if isinstance(r, ErrorResult) and r.message.startswith("not run:"):
            return self._spent(pattern, text)
        return f"the schema pattern {show(pattern)} could not run: {r.message}"

    def _spent(self, pattern: str, text: str) -> str:
        return (f"the schema pattern {show(pattern)} was not run on a string of {len(text):,} characters: "
                f"this run's schema patterns already ran past their {self.timeout:g} s time limit "
                f"{self.max_timeouts} times, the most a run allows (a pattern that backtracks "
                "catastrophically would otherwise cost the time limit on every row)")


def _keep(pattern: str, text: str, matched: bool) -> None:
    if _kept_count[0] >= _KEPT_LIMIT:
        _KEPT.clear()
        _kept_count[0] = 0
    _KEPT.setdefault(pattern, {})[text] = matched
    _kept_count[0] += 1


def clear_kept() -> None:
    """Forget the pattern results kept across runs (for benchmarks that time a cold run)."""
    _KEPT.clear()
    _kept_count[0] = 0


def search(pattern: str, text: str) -> bool:
    """``pattern`` (ECMAScript, u flag) matches somewhere in ``text``, as the current run
    knows it (``PatternProblem`` when it could not be run); outside a run, matched at once."""
    oracle = getattr(_local, "oracle", None)
    if oracle is None:
        return Oracle(direct=True).search(pattern, text)
    return oracle.search(pattern, text)


@contextmanager
def running(oracle: Oracle) -> Iterator[Oracle]:
    """``search`` answers from ``oracle`` in this thread within the block."""
    outer = getattr(_local, "oracle", None)
    _local.oracle = oracle
    try:
        yield oracle
    finally:
        _local.oracle = outer


def settle(oracle: Oracle, items: Iterable[T], job: Callable[[T], Any], done: Callable[[T, bool, Any], None]) -> None:
    """``job(item)`` for each item, streamed: ``done(item, True, value)`` or ``done(item,
    False, exception)`` once a run of the job met no unknown pattern pair. An item whose job
    met one is kept for the next round; a round's recorded pairs are matched together (one
    V8 call per pattern) before it. Only the items waiting on patterns are held."""
    pending = _round(oracle, items, job, done)
    while pending:
        oracle.resolve()
        pending = _round(oracle, pending, job, done)


def _round(oracle: Oracle, items: Iterable[T], job: Callable[[T], Any], done: Callable[[T, bool, Any], None]) -> list[T]:
    again = []
    with running(oracle):
        for item in items:
            before = oracle.misses
            try:
                value, ok = job(item), True
            except (KeyboardInterrupt, SystemExit, GeneratorExit):
                raise
            except BaseException as e:  # noqa: BLE001 - the Rust core of `referencing` panics as a BaseException
                value, ok = e, False
            if oracle.misses != before:
                again.append(item)
            else:
                done(item, ok, value)
    return again
