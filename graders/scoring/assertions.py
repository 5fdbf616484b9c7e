"""Per-row assertions (promptfoo style) run as extra graders on their row (SPEC §5).

An assertion is an object ``{"type": KIND, "value": ..., "threshold": ...}``. ``value``
is the reference (a string, or a list for the ``-any`` / ``-all`` kinds, or for them a
string of comma-separated values as promptfoo reads it; a schema for ``json-schema``, a
pattern for ``regex``); without one the row's expected answer is used. A number value is
its source spelling (``1e2`` stays ``1e2``); an object or array value of ``equals`` /
``exact`` is compared with the output parsed as JSON (deep, strict: ``true`` is not ``1``).
A ``not-`` prefix inverts pass and fail (not judged and errors stay); a continuous kind
with a threshold keeps its score under ``not-`` (its verdict flips, its measurement does
not). Kinds Gradeboard does not implement (``llm-rubric``, ``javascript``, ``similar``,
...) are reported by kind, never counted as passes.

``"extract"`` (SPEC §9, any kind) extracts the answer from the output first, as the
grader parameter does: the assertion judges the answer, nothing extracted fails (near miss
``no_answer``, and ``not-`` does not turn it into a pass), and the row's metadata keeps
the ``extracted`` answer. ``icontains`` lowercases the answer, not the output.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any, Mapping

from graders.metrics.base import own_params
from graders.registry import get_spec, resolve_params, run
from graders.result import Grade, error

KNOWN_KINDS = (
    "exact", "equals", "normalized", "contains", "icontains", "contains-any", "contains-all",
    "icontains-any", "icontains-all", "starts-with", "regex", "is-json", "json-schema",
    "numeric", "token-f1", "bleu", "rouge-l", "chrf",
)
_GRADER_OF = {
    "exact": "exact", "equals": "exact", "normalized": "normalized",
    "contains": "contains", "icontains": "contains", "contains-any": "contains", "contains-all": "contains",
    "icontains-any": "contains", "icontains-all": "contains", "starts-with": "contains",
    "regex": "regex", "is-json": "valid_json", "json-schema": "json_schema", "numeric": "numeric",
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


class NoPattern(Exception):
    """A regex assertion with neither a value nor an expected answer to use as its pattern."""


def split_kind(kind: str) -> tuple[str, bool]:
    """``"not-contains"`` -> ``("contains", True)``."""
    if kind.startswith("not-") and kind[4:] in KNOWN_KINDS:
        return kind[4:], True
    return kind, False


def plan(assertion: Mapping[str, Any], refs: tuple[str, ...]) -> tuple[str, dict[str, Any], tuple[str, ...], bool, bool]:
    """(grader, params, refs, invert, case_insensitive) for one assertion, or UnsupportedKind."""
    kind, invert = split_kind(str(assertion.get("type", "")))
    if kind not in KNOWN_KINDS:
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
    if kind == "is-json" and value not in (None, ""):  # "": no schema, a plain JSON check
        grader, kind = "json_schema", "json-schema"
    if grader == "regex":
        if value is None and not refs:  # no pattern at all: never the empty one, which matches anything
            raise NoPattern("no pattern: give the assertion a \"value\", or the row an expected answer")
        if value is not None and not isinstance(value, str) and not _is_number(value):
            raise NoPattern(f"the \"value\" of a regex assertion is a pattern string, not {_json_kind(value)}")
        params["pattern"] = refs[0] if value is None else value_text(value)
        return grader, params, refs, invert, False
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


def run_assertion(assertion: Mapping[str, Any], refs: tuple[str, ...], output: str) -> tuple[Grade, dict[str, Any]]:
    """Run one assertion; return its grade and the metadata the scored file records."""
    kind = str(assertion.get("type", ""))
    try:
        grader, params, arefs, invert, ci = plan(assertion, refs)
    except UnsupportedKind:
        return error(f"unsupported assertion kind {kind!r}: not run, not counted as a pass"), {"kind": kind, "unsupported": True}
    except NoPattern as e:
        return error(f"assertion {kind!r}: {e}"), {"kind": kind, "grader": "regex"}
    meta: dict[str, Any] = {"kind": kind, "grader": grader}
    if grader == JSON_EQUALS:
        return _json_equals(assertion, refs, output, kind, invert, meta)
    try:
        resolved = resolve_params(grader, params)
    except ValueError as e:
        return error(f"assertion {kind!r}: {e}"), meta
    meta.update({k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()})
    spec = get_spec(grader)
    ex = resolved.get("extract")
    if ci:
        plain = own_params(resolved)

        def lowered(r: tuple[str, ...], o: str) -> Grade:
            return run(spec, tuple(x.lower() for x in r), o.lower(), plain)

        g = lowered(arefs, output) if ex is None else _extract_then(ex, arefs, output, lowered, spec.uses_expected)
        g = replace(g, explanation="Case-insensitive (both sides lowercased): " + g.explanation)
    else:
        g = run(spec, arefs, output, resolved)
    if ex is not None:
        meta["extracted"] = g.details.get("extracted")
    if not spec.binary and g.status in ("pass", "fail"):
        g = replace(g, details={**g.details, "continuous": True})
    return (invert_grade(g) if invert else g), meta


def _extract_then(*args: Any) -> Grade:
    from graders.metrics.extraction import extract_then

    return extract_then(*args)


def _json_equals(assertion: Mapping[str, Any], refs: tuple[str, ...], output: str, kind: str, invert: bool,
                 meta: dict[str, Any]) -> tuple[Grade, dict[str, Any]]:
    """``equals`` / ``exact`` with an object or array value, on the extracted answer when
    the assertion has ``extract``."""
    value = assertion["value"]
    if assertion.get("extract") is None:
        g = json_equals_grade(value, output)
        return (invert_grade(g) if invert else g), meta
    from graders.text.extract import parse_extract

    try:
        ex = parse_extract(assertion["extract"])
    except ValueError as e:
        return error(f"assertion {kind!r}: parameter 'extract': {e}"), meta
    meta["extract"] = assertion["extract"]
    g = _extract_then(ex, (value_text(value),), output, lambda _r, o: json_equals_grade(value, o), True)
    meta["extracted"] = g.details.get("extracted")
    return (invert_grade(g) if invert else g), meta


def scorer_name(index: int, kind: str) -> str:
    return f"assert:{index}:{kind}"
