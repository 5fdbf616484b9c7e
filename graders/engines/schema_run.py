"""The json_schema grader over a column of outputs (``grade_many``) and over one
(``grade_output``, ``probe_output``): the schema compiled once (``schema.compile_schema``),
each distinct output parsed and judged once, and in stages:

1. validity by the compiled fast check (``schema_fast``), for every row it covers;
2. the violations, only for the rows that fail, by the compiled check (once per distinct
   parsed value: outputs that differ only in spacing or escapes share them);
3. jsonschema itself (``schema.violations``) for the rest: a schema outside the fast path,
   a row nested deeper than ``schema_fast.MAX_NESTING``, a failing ``anyOf``/``oneOf``.

The schema's ``pattern``s run through ``schema_patterns`` at every stage: batched into V8
per round, one time-out budget for the run. The near-miss probe (SPEC §4) of the failing
rows is judged the same way, all its candidate texts together.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Iterable, Iterator, Sequence

from graders.engines import schema as S
from graders.engines.jsonparse import (
    PRE_PARSE_CHOICES,
    PRE_PARSE_STEPS,
    apply_steps,
    depth,
    explain_parse_error,
    parse,
    pre_parse_hint,
)
from graders.engines.schema_fast import MAX_NESTING
from graders.engines.schema_patterns import Oracle, PatternProblem, settle
from graders.result import Block, Grade, error, verdict

_PASS = ("pass",)
CHUNK = 4096  # distinct texts judged together: the rows waiting on a round of patterns are at most these


def _shallow(text: str, instance: Any) -> bool:
    return text.count("{") + text.count("[") <= MAX_NESTING or depth(instance) <= MAX_NESTING


class Run:
    """One run of one compiled schema: the outcomes of the texts judged so far, and the
    run's pattern results and time-out budget (``Oracle``). An outcome is ``("pass",)``,
    ``("fail", violations, count)``, ``("parse", JSONParseError)`` or ``("error", message)``."""

    def __init__(self, compiled: S.Compiled):
        self.compiled = compiled
        self.oracle = Oracle()
        self.by_text: dict[str, tuple] = {}
        self.by_value: dict[str, tuple] = {}

    def judge(self, texts: Iterable[str]) -> None:
        """Judge each text not judged yet (``by_text``), streamed: a row's parsed value is
        held only while it waits for a pattern result or for jsonschema."""
        fast = self.compiled.fast
        slow: list[tuple[str, Any]] = []
        by_text = self.by_text

        def parsed(chunk: list[str]) -> Iterator[tuple[str, Any]]:
            for t in chunk:
                instance, e = parse(t)
                if e is not None:
                    by_text[t] = ("parse", e)
                elif fast is not None and _shallow(t, instance):
                    yield t, instance
                else:
                    slow.append((t, instance))

        new = [t for t in dict.fromkeys(texts) if t not in by_text]
        for start in range(0, len(new), CHUNK):  # a chunk's pattern rounds end before the next chunk
            chunk = new[start:start + CHUNK]
            if fast is None:
                slow.extend(parsed(chunk))
            elif fast.collect is None:
                settle(self.oracle, parsed(chunk), self._fast, partial(self._fast_done, slow))
            else:  # a row waits, held, only for pattern pairs its validation meets whatever happens
                waiting: list[str] = []
                settle(self.oracle, self._ready(parsed(chunk), waiting), self._fast, partial(self._fast_done, slow))
                self.oracle.resolve()  # the chunk's waiting pairs, one V8 call per pattern
                again = ((t, parse(t)[0]) for t in waiting)  # parsed anew: cheaper than holding the values
                settle(self.oracle, again, self._fast, partial(self._fast_done, slow))
        settle(self.oracle, slow, self._slow, self._slow_done)

    def _ready(self, items: Iterable[tuple[str, Any]], waiting: list[str]) -> Iterator[tuple[str, Any]]:
        """The items whose unconditional pattern pairs (``Fast.collect``) are all known; the
        others' texts go to ``waiting``, their pairs recorded for the next ``resolve``."""
        oracle, collect = self.oracle, self.compiled.fast.collect
        for item in items:
            before = oracle.wanted
            collect(item[1], oracle.want)
            if oracle.wanted == before:
                yield item
            else:
                waiting.append(item[0])

    def _fast(self, item: tuple[str, Any]) -> tuple[tuple, str | None]:
        """(the outcome, the value's key when it is a fail): validity by the compiled check,
        then the violations of a fail, once per distinct value."""
        fast = self.compiled.fast
        instance = item[1]
        before = self.oracle.misses
        if fast.valid(instance):
            return _PASS, None
        if self.oracle.misses != before:  # it waits for a pattern result: no violations yet
            return _PASS, None
        try:
            key = repr(instance)  # tells 1 from 1.0 and true, keeps key order: the words of a fail depend on both
        except RecursionError:
            key = None
        got = None if key is None else self.by_value.get(key)
        if got is not None:
            return got, None
        return ("fail", *S.listed(fast.errors(instance))), key

    def _fast_done(self, slow: list, item: tuple[str, Any], ok: bool, value: Any) -> None:
        if ok:
            outcome, key = value
            if key is not None:
                self.by_value[key] = outcome
        elif isinstance(value, PatternProblem):
            outcome = ("error", f"Validation stopped: {value}.")
        else:  # Delegate (a failing anyOf/oneOf, …), or the fast path's own trouble: jsonschema judges
            slow.append(item)
            return
        self.by_text[item[0]] = outcome

    def _slow(self, item: tuple[str, Any]) -> tuple[list, int]:
        return S.violations(self.compiled, item[1])

    def _slow_done(self, item: tuple[str, Any], ok: bool, value: Any) -> None:
        """jsonschema's own verdict on a row (its patterns still batched)."""
        if ok:
            found, count = value
            self.by_text[item[0]] = ("fail", found, count) if found else _PASS
            return
        message = S.stopped(value, item[1], self.compiled)
        if message is None:
            raise value
        self.by_text[item[0]] = ("error", message)

    def passes(self, text: str) -> bool:
        return self.by_text[text] is _PASS


class _Grades:
    """The grade of each judged text under one set of pre-parse steps: ``(status, passed,
    explanation, details)`` built once per outcome (texts with the same outcome share it)."""

    def __init__(self, run: Run, steps: tuple[str, ...]):
        self.run = run
        self.steps = steps
        self.details = S.details_of(run.compiled, steps)
        self.by_outcome: dict[int, tuple] = {}

    def parts(self, text: str) -> tuple[str, bool | None, str, dict[str, Any]]:
        outcome = self.run.by_text[text]
        kind = outcome[0]
        if kind == "parse":
            e = outcome[1]
            return ("fail", False, explain_parse_error(e, text) + pre_parse_hint(text, self.steps),
                    {**self.details, "parse_error": e.as_dict(), "violations": []})
        got = self.by_outcome.get(id(outcome))
        if got is None:
            compiled = self.run.compiled
            if kind == "pass":
                got = ("pass", True, S.passed_explanation(compiled), {**self.details, "violations": []})
            elif kind == "fail":
                _, found, count = outcome
                got = ("fail", False, S.failed_explanation(compiled, found, count),
                       {**self.details, "violations": found, "violation_count": count})
            else:
                got = ("error", None, outcome[1], dict(self.details))
            self.by_outcome[id(outcome)] = got
        return got

    def __call__(self, text: str) -> Grade:
        status, passed, explanation, details = self.parts(text)
        if status == "error":
            return error(explanation, **details)
        return verdict(passed, explanation, **details)


def _candidates(text: str, steps: tuple[str, ...]) -> list[tuple[str, str]]:
    """(step, text after it) for each pre-parse step not taken that changes the text."""
    out = []
    for step in PRE_PARSE_CHOICES:
        if step not in steps:
            after = PRE_PARSE_STEPS[step](text)
            if after is not text and after != text:
                out.append((step, after))
    return out


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], *, schema: Any,
               pre_parse: tuple[str, ...] = ()) -> Block:
    """The grader over a column (verdict, then the probe on each fail), the schema compiled once."""
    steps = tuple(pre_parse or ())
    compiled = S.compile_schema(schema)
    if compiled.problem is not None:
        return Block.from_grades([compiled.problem] * len(outputs))
    run = Run(compiled)
    texts = [apply_steps(o, steps) for o in outputs] if steps else list(outputs)
    run.judge(texts)
    grades = _Grades(run, steps)
    probes: dict[str, list[tuple[str, str]]] = {}
    for t in dict.fromkeys(texts):
        if run.by_text[t][0] in ("fail", "parse"):
            probes[t] = _candidates(t, steps)
    run.judge(after for cands in probes.values() for _, after in cands)
    block = Block(len(texts))
    scores = {"pass": 1.0, "fail": 0.0, "error": None}
    handed: set[int] = set()  # details dicts already in the block: a second row gets a copy
    for i, t in enumerate(texts):  # the block's columns set directly: no Grade per row
        status, passed, explanation, details = grades.parts(t)
        block.status[i], block.passed[i], block.score[i] = status, passed, scores[status]
        if id(details) in handed:
            details = dict(details)
        else:
            handed.add(id(details))
        block.explanation[i], block.details[i] = explanation, details
        if t in probes:
            codes = tuple(step for step, after in probes[t] if run.passes(after))
            block.near_miss[i] = codes or None
    return block


def grade_output(output: str, schema: Any, pre_parse: tuple[str, ...]) -> Grade:
    """One output (after ``pre_parse``) against ``schema``: the grader's ``Grade``."""
    steps = tuple(pre_parse or ())
    compiled = S.compile_schema(schema)
    if compiled.problem is not None:
        return compiled.problem
    run = Run(compiled)
    text = apply_steps(output, steps) if steps else output
    run.judge([text])
    return _Grades(run, steps)(text)


def probe_output(output: str, schema: Any, pre_parse: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The pre-parse steps not already taken that alone turn a fail into a pass (SPEC §4)."""
    steps = tuple(pre_parse or ())
    compiled = S.compile_schema(schema)
    if compiled.problem is not None:
        return ()
    run = Run(compiled)
    cands = _candidates(apply_steps(output, steps), steps)
    run.judge(after for _, after in cands)
    return tuple(step for step, after in cands if run.passes(after))
