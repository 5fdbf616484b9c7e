"""Per-row assertions (promptfoo style) run as extra graders on their row (SPEC §5).

An assertion is an object ``{"type": KIND, "value": ..., "threshold": ...}``. ``value``
is the reference (a string, or a list for the ``-any`` / ``-all`` kinds, or for them a
string of comma-separated values as promptfoo reads it; a schema for ``json-schema``, a
pattern for ``regex``); without one the row's expected answer is used. A number value is
its source spelling (``1e2`` stays ``1e2``); an object or array value of ``equals`` /
``exact`` is compared with the output parsed as JSON (deep, strict: ``true`` is not ``1``).
A ``not-`` prefix inverts pass and fail, once, here, for every kind (not judged and errors
stay); a continuous kind with a threshold keeps its score under ``not-`` (its verdict flips,
its measurement does not). Kinds Gradeboard does not implement (``llm-rubric``,
``javascript``, ``similar``, ...) are reported by kind, never counted as passes.

promptfoo's own kinds are decided as promptfoo 0.121 decides them (``graders.scoring.kinds``):
``regex`` is ``new RegExp(value)`` (no ``u`` flag), ``is-json`` parses the whole output,
``contains-json``, ``is-xml``, ``contains-xml``, ``levenshtein``, ``rouge-n``, ``latency``
and ``cost`` (the row's ``latency_ms`` and ``cost`` fields) as their handlers do.

Column speed: the assertions of a chunk are grouped by their whole object (kind, value,
flags, threshold, ...) and each group runs once over the column of rows that carry it
(a regex group is one batch in V8, a grader group its column form, each distinct pair
graded once); a chunk's regex assertions share one time-out budget (``kinds.regex``).

``"extract"`` (SPEC §9, any kind but ``latency`` and ``cost``) extracts the answer from the
output first, as the grader parameter does: the assertion judges the answer, nothing
extracted fails (near miss ``no_answer``, and ``not-`` does not turn it into a pass), and
the row's metadata keeps the ``extracted`` answer. ``icontains`` lowercases the answer,
not the output.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from graders.metrics.base import own_params
from graders.registry import get_spec, resolve_params, run
from graders.result import Block, Grade, error
from graders.scoring.kinds import FIELD_OF, PROMPTFOO_KINDS, Budget, Fields, Judge, promptfoo_plan

KNOWN_KINDS = (
    "exact", "equals", "normalized", "contains", "icontains", "contains-any", "contains-all",
    "icontains-any", "icontains-all", "starts-with", "regex", "is-json", "contains-json", "json-schema",
    "is-xml", "contains-xml", "numeric", "token-f1", "bleu", "rouge-l", "chrf", "rouge-n", "levenshtein",
    "latency", "cost",
)
_GRADER_OF = {
    "exact": "exact", "equals": "exact", "normalized": "normalized",
    "contains": "contains", "icontains": "contains", "contains-any": "contains", "contains-all": "contains",
    "icontains-any": "contains", "icontains-all": "contains", "starts-with": "contains",
    "json-schema": "json_schema", "numeric": "numeric",
    "token-f1": "token_f1", "bleu": "bleu", "rouge-l": "rouge_l", "chrf": "chrf",
}
# Assertion keys passed through as grader parameters when the grader has them.
_PASSTHROUGH = ("pipeline", "read", "abs_tol", "rel_tol", "flags", "at", "normalize", "pre_parse", "timeout", "extract")


# The "grader" of equals / exact with an object or array value (json_equals_grade).
JSON_EQUALS = "json"


class UnsupportedKind(Exception):
    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def split_kind(kind: str) -> tuple[str, bool]:
    """``"not-contains"`` -> ``("contains", True)``."""
    if kind.startswith("not-") and kind[4:] in KNOWN_KINDS:
        return kind[4:], True
    return kind, False


def plan(assertion: Mapping[str, Any], refs: tuple[str, ...]) -> tuple[str, dict[str, Any], tuple[str, ...], bool, bool]:
    """(grader, params, refs, invert, case_insensitive) for one assertion of a grader kind,
    or UnsupportedKind (promptfoo's own kinds are planned by ``kinds.promptfoo_plan``)."""
    kind, invert = split_kind(str(assertion.get("type", "")))
    if kind not in _GRADER_OF:
        raise UnsupportedKind(str(assertion.get("type", "")))
    grader = _GRADER_OF[kind]
    value = assertion.get("value")
    params: dict[str, Any] = {}
    spec = get_spec(grader)
    for key in _PASSTHROUGH:
        if key in assertion and key in spec.param_names:
            params[key] = assertion[key]
    if "threshold" in assertion and "threshold" in spec.param_names:
        params["threshold"] = assertion["threshold"]
    if kind in ("equals", "exact") and isinstance(value, (dict, list)):
        return JSON_EQUALS, {}, refs, invert, False  # compared as parsed JSON (json_equals_grade)
    if grader == "json_schema":
        params["schema"] = value if value is not None else (refs[0] if refs else "")
        return grader, params, refs, invert, False
    if value is not None:
        if isinstance(value, list):
            refs = tuple(map(value_text, value))
        elif isinstance(value, str) and kind.endswith(("-any", "-all")):
            refs = tuple(v.strip() for v in value.split(","))  # promptfoo's comma-separated values
        else:
            refs = (value_text(value),)
    if grader == "contains":
        params["require"] = "all" if kind.endswith("-all") else "any"
        if kind == "starts-with":
            params["at"] = "start"
    return grader, params, refs, invert, kind.startswith("icontains")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json_kind(value: Any) -> str:
    return {list: "an array", dict: "an object", bool: "true or false"}.get(type(value), type(value).__name__)


def value_text(value: Any) -> str:
    """An assertion value as the text it stands for: a string as it is, a number as spelled
    in the source (``rows`` reads them so: ``spelling``), anything else as compact JSON."""
    if isinstance(value, str):
        return value
    spelling = getattr(value, "spelling", None)
    if spelling is not None:
        return spelling
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _double(x: int | float) -> float:
    """A JSON number as JavaScript reads it: a double, and past its range infinite."""
    try:
        return float(x)
    except OverflowError:  # an integer of more than 309 digits
        return math.inf if x > 0 else -math.inf


def strict_json_equal(a: Any, b: Any) -> bool:
    """JSON values equal as JavaScript's deep strict equality sees parsed JSON: numbers by
    value as doubles (1 equals 1.0), true never 1, objects regardless of key order. Walked
    with a stack: a value nested as deep as the parser reads is compared."""
    todo = [(a, b)]
    while todo:
        a, b = todo.pop()
        if isinstance(a, bool) or isinstance(b, bool):
            if not (type(a) is type(b) and a == b):
                return False
        elif _is_number(a) and _is_number(b):
            if _double(a) != _double(b):
                return False
        elif isinstance(a, dict) and isinstance(b, dict):
            if a.keys() != b.keys():
                return False
            todo.extend((a[k], b[k]) for k in a)
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return False
            todo.extend(zip(a, b))
        elif not (type(a) is type(b) and a == b):
            return False
    return True


def json_equals_grade(value: Any, output: str) -> Grade:
    """``equals`` / ``exact`` with an object or array value: the output parsed as JSON and
    compared deeply (``strict_json_equal``)."""
    try:
        parsed = json.loads(output)
    except (ValueError, RecursionError):
        return Grade("fail", False, 0.0, f"The output is not JSON, so it cannot equal the {_json_kind(value)[3:]} "
                                         "value of the assertion.", None, {})
    if strict_json_equal(value, parsed):
        return Grade("pass", True, 1.0, "The output parsed as JSON deeply equals the assertion's value.", None, {})
    return Grade("fail", False, 0.0, "The output parsed as JSON differs from the assertion's value "
                                     f"({value_text(value)[:80]}).", None, {})


def invert_grade(g: Grade) -> Grade:
    if g.status not in ("pass", "fail"):
        return g
    if g.near_miss and g.near_miss[0] == "no_answer":  # nothing extracted: nothing to invert
        return replace(g, explanation=f"Not inverted (not-): no answer was extracted. {g.explanation}")
    passed = not g.passed
    score = g.score if g.score is not None and g.details.get("continuous") else (1.0 if passed else 0.0)
    return Grade(
        "pass" if passed else "fail", passed, score,
        f"Inverted (not-): the assertion {'passes' if passed else 'fails'} because the grader "
        f"{'failed' if passed else 'passed'}. {g.explanation}",
        None, g.details,
    )


def scorer_name(index: int, kind: str) -> str:
    return f"assert:{index}:{kind}"


# --------------------------------------------------------------------------- plans


@dataclass(frozen=True)
class _Plan:
    """One distinct assertion, ready to run over the column of rows that carry it."""

    kind: str
    invert: bool
    meta: dict[str, Any]
    judge: Judge | None = None  # None: ``problem`` is every row's grade
    problem: Grade | None = None
    extracts: bool = False  # the metadata keeps each row's extracted answer
    # A function of (refs, output) alone: each distinct pair judged once. Not latency and cost
    # (they read the rows' fields), nor regex (it runs in V8 over the chunk's whole column).
    pure: bool = True


def _plan_of(assertion: Mapping[str, Any]) -> _Plan:
    kind = str(assertion.get("type", ""))
    base, invert = split_kind(kind)
    if base in PROMPTFOO_KINDS:
        judge, meta, problem = promptfoo_plan(base, assertion)
        meta = {"kind": kind, "grader": base, **meta}
        return _Plan(kind, invert, meta, judge, None if problem is None else error(f"assertion {kind!r}: {problem}"),
                     extracts="extract" in meta, pure=base not in FIELD_OF and base != "regex")
    if base not in _GRADER_OF:
        return _Plan(kind, False, {"kind": kind, "unsupported": True},
                     problem=error(f"unsupported assertion kind {kind!r}: not run, not counted as a pass"))
    return _grader_plan(assertion, kind, invert)


def _grader_plan(assertion: Mapping[str, Any], kind: str, invert: bool) -> _Plan:
    """A kind one of Gradeboard's graders decides (exact, contains, numeric, bleu, ...)."""
    grader, params, value_refs, _, ci = plan(assertion, ())
    meta: dict[str, Any] = {"kind": kind, "grader": grader}
    if grader == JSON_EQUALS:
        return _json_equals_plan(assertion, kind, invert, meta)
    uses_value = assertion.get("value") is not None
    if grader == "json_schema" and not uses_value:  # each row's expected answer is its schema
        return _per_row_schema_plan(params, kind, invert, meta)
    try:
        resolved = resolve_params(grader, params)
    except ValueError as e:
        return _Plan(kind, invert, meta, problem=error(f"assertion {kind!r}: {e}"))
    meta.update({k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()})
    spec = get_spec(grader)
    ex = resolved.get("extract")
    plain = own_params(resolved)

    def judge(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], fields: Fields, budget: Budget) -> list[Grade]:
        grades = _column(spec, plain, [value_refs] * len(outputs) if uses_value else refs, outputs, ex, ci)
        if ci:
            grades = [replace(g, explanation="Case-insensitive (both sides lowercased): " + g.explanation) for g in grades]
        if not spec.binary:
            grades = [replace(g, details={**g.details, "continuous": True}) if g.status in ("pass", "fail") else g
                      for g in grades]
        return grades

    return _Plan(kind, invert, meta, judge, extracts=ex is not None)


def _per_row_schema_plan(params: dict[str, Any], kind: str, invert: bool, meta: dict[str, Any]) -> _Plan:
    """``json-schema`` without a value: each row's schema is its expected answer, so the
    rows are graded per distinct schema."""
    meta = {**meta, **{k: v for k, v in params.items() if k != "schema"}}

    def judge(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], fields: Fields, budget: Budget) -> list[Grade]:
        grades: list[Grade] = [None] * len(outputs)  # type: ignore[list-item]
        by_schema: dict[str, list[int]] = {}
        for i, r in enumerate(refs):
            by_schema.setdefault(r[0] if r else "", []).append(i)
        for schema, rows in by_schema.items():
            try:
                resolved = resolve_params("json_schema", {**params, "schema": schema})
            except ValueError as e:
                for i in rows:
                    grades[i] = error(f"assertion {kind!r}: {e}")
                continue
            got = _column(get_spec("json_schema"), own_params(resolved), [refs[i] for i in rows],
                          [outputs[i] for i in rows], resolved.get("extract"))
            for i, g in zip(rows, got):
                grades[i] = g
        return grades

    return _Plan(kind, invert, meta, judge, extracts=params.get("extract") is not None)


def _column(spec: Any, params: Mapping[str, Any], refs: Sequence[tuple[str, ...]], outputs: Sequence[str],
            ex: Any = None, lower: bool = False) -> list[Grade]:
    """The grader over a column as ``run`` grades each row (``run_column`` has made the pairs
    distinct); with ``extract``, on what is extracted from each output; ``lower``
    (icontains): the references and the output, or the extracted answer, lowercased."""
    if ex is None:
        if lower:
            refs, outputs = [tuple(x.lower() for x in r) for r in refs], [o.lower() for o in outputs]
        block = _plain(spec, params, refs, outputs)
    else:
        from graders.metrics.extraction import extracted_block

        def grade(rs: Sequence[tuple[str, ...]], answers: Sequence[str]) -> Block:
            if lower:
                rs, answers = [tuple(x.lower() for x in r) for r in rs], [a.lower() for a in answers]
            return _plain(spec, params, rs, answers)

        block = extracted_block(ex, refs, outputs, grade, uses_expected=spec.uses_expected)
    return [block.grade(k) for k in range(len(outputs))]


def _plain(spec: Any, params: Mapping[str, Any], refs: Sequence[tuple[str, ...]], outputs: Sequence[str]) -> Block:
    """The grader's column form (rows without the reference it needs: not judged, as ``run``)."""
    n = len(outputs)
    if spec.uses_expected and not all(refs):
        block = Block(n)
        have = [i for i in range(n) if refs[i]]
        for i in range(n):
            if not refs[i]:
                block.set(i, run(spec, refs[i], outputs[i], params))
        if have:
            sub = _plain(spec, params, [refs[i] for i in have], [outputs[i] for i in have])
            for j, i in enumerate(have):
                block.set(i, sub.grade(j))
        return block
    if spec.batch is not None:
        return spec.batch(list(refs), list(outputs), **params)
    return Block.from_grades([run(spec, r, o, params) for r, o in zip(refs, outputs)])


def _distinct(refs: Sequence[tuple[str, ...]], outputs: Sequence[str]) -> tuple[list, list, list[int]]:
    index: dict[tuple[tuple[str, ...], str], int] = {}
    inverse = [index.setdefault(key, len(index)) for key in zip(refs, outputs)]
    return [k[0] for k in index], [k[1] for k in index], inverse


def _json_equals_plan(assertion: Mapping[str, Any], kind: str, invert: bool, meta: dict[str, Any]) -> _Plan:
    """``equals`` / ``exact`` with an object or array value, on the extracted answer when
    the assertion has ``extract``."""
    value = assertion["value"]
    ex = None
    if assertion.get("extract") is not None:
        from graders.text.extract import parse_extract

        try:
            ex = parse_extract(assertion["extract"])
        except ValueError as e:
            return _Plan(kind, invert, meta, problem=error(f"assertion {kind!r}: parameter 'extract': {e}"))
        meta = {**meta, "extract": assertion["extract"]}

    def judge(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], fields: Fields, budget: Budget) -> list[Grade]:
        if ex is None:
            return [json_equals_grade(value, o) for o in outputs]
        from graders.metrics.extraction import extracted_block

        block = extracted_block(ex, [(value_text(value),)] * len(outputs), outputs,
                                lambda r, o: Block.from_grades([json_equals_grade(value, x) for x in o]))
        return [block.grade(k) for k in range(len(outputs))]

    return _Plan(kind, invert, meta, judge, extracts=ex is not None)


# --------------------------------------------------------------------------- columns


_CLOSE = object()


def _key(assertion: Mapping[str, Any]) -> tuple:
    """A hashable key for an assertion object (numbers by type and spelling, so that ``1e2``
    and ``100`` plan apart, as their texts differ)."""
    if not any(isinstance(v, (dict, list)) for v in assertion.values()):
        return tuple(sorted((k, v.__class__.__name__, getattr(v, "spelling", v)) for k, v in assertion.items()))
    return _deep_key(assertion)


def _deep_key(value: Any) -> tuple:
    """``_key`` of a value holding objects or arrays, walked with a stack (a value nests as
    deep as the parser reads)."""
    tokens: list[Any] = []
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            tokens.append("{")
            todo.append(_CLOSE)
            for k in sorted(v, reverse=True):
                todo.append(v[k])
                todo.append(("key", k))
        elif isinstance(v, list):
            tokens.append("[")
            todo.append(_CLOSE)
            todo.extend(reversed(v))
        elif v is _CLOSE:
            tokens.append("]")
        elif isinstance(v, tuple):
            tokens.append(v)
        elif isinstance(v, bool) or v is None or isinstance(v, str):
            tokens.append((type(v).__name__, v))
        else:
            tokens.append((type(v).__name__, getattr(v, "spelling", None) or repr(v)))
    return ("deep", tuple(tokens))


def run_column(
    assertions: Sequence[Sequence[Mapping[str, Any]] | None],
    refs: Sequence[tuple[str, ...]],
    outputs: Sequence[str],
    fields: Mapping[str, Sequence[Any]] | None = None,
) -> list[tuple[int, str, Grade, dict[str, Any]]]:
    """Every row's assertions: (row, scorer, grade, metadata), in row order and each row's
    assertions in their order. ``fields``: the rows' ``latency_ms`` / ``cost`` cells, when
    the file has them. Assertions are grouped by their whole object and each group is run
    once over the column of its rows; one time-out budget for the call's regex assertions."""
    plans: dict[Any, _Plan] = {}
    by_id: dict[int, Any] = {}  # rows of a cell share their parsed assertion objects
    groups: dict[Any, list[int]] = {}
    flat: list[tuple[int, int, str]] = []
    for i, row_assertions in enumerate(assertions):
        for j, a in enumerate(row_assertions or ()):
            key = by_id.get(id(a))
            if key is None:
                key = by_id[id(a)] = _key(a)
                if key not in plans:
                    plans[key] = _plan_of(a)
            groups.setdefault(key, []).append(len(flat))
            flat.append((i, j, str(a.get("type", ""))))
    out: list[tuple[int, str, Grade, dict[str, Any]] | None] = [None] * len(flat)
    budget = Budget()
    columns = {name: list(cells) for name, cells in (fields or {}).items()}  # latency_ms, cost
    for key, members in groups.items():
        p = plans[key]
        rows = [flat[m][0] for m in members]
        if p.judge is None:
            grades = [p.problem] * len(rows)
        elif p.pure:
            urefs, uouts, inverse = _distinct([refs[r] for r in rows], [outputs[r] for r in rows])
            judged = p.judge(urefs, uouts, Fields({}, ()), budget)
            grades = [judged[k] for k in inverse]
        else:
            grades = p.judge([refs[r] for r in rows], [outputs[r] for r in rows], Fields(columns, rows, outputs), budget)
        for m, g in zip(members, grades):
            meta = p.meta
            if p.extracts:
                meta = {**meta, "extracted": g.details.get("extracted")}
            i, j, kind = flat[m]
            out[m] = (i, scorer_name(j, kind), invert_grade(g) if p.invert else g, meta)
    return out  # type: ignore[return-value]


def run_assertion(assertion: Mapping[str, Any], refs: tuple[str, ...], output: str,
                  fields: Mapping[str, Any] | None = None) -> tuple[Grade, dict[str, Any]]:
    """Run one assertion on one row; return its grade and the metadata the scored file records."""
    (_, _, g, meta), = run_column([(assertion,)], [refs], [output],
                                  {k: [v] for k, v in (fields or {}).items()})
    return g, meta
