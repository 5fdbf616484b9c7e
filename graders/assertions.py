"""Per-row assertions (promptfoo style) run as extra graders on their row (SPEC §5).

An assertion is an object ``{"type": KIND, "value": ..., "threshold": ...}``. ``value``
is the reference (a string, or a list for the ``-any`` / ``-all`` kinds, a schema for
``json-schema``, a pattern for ``regex``); without one the row's expected answer is used.
A ``not-`` prefix inverts pass and fail (not judged and errors stay). Kinds Gradeboard
does not implement (``llm-rubric``, ``javascript``, ``similar``, ...) are reported by
kind, never counted as passes.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Mapping

from .registry import get_spec, resolve_params, run
from .result import Grade, error

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
_PASSTHROUGH = ("pipeline", "read", "abs_tol", "rel_tol", "flags", "at", "normalize", "pre_parse", "timeout")


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
    if kind == "is-json" and value is not None:
        grader, kind = "json_schema", "json-schema"
    if grader == "regex":
        if not isinstance(value, str) and not refs:  # no pattern at all: never the empty one, which matches anything
            raise NoPattern("no pattern: give the assertion a \"value\", or the row an expected answer")
        params["pattern"] = value if isinstance(value, str) else refs[0]
        return grader, params, refs, invert, False
    if grader == "json_schema":
        params["schema"] = value if value is not None else (refs[0] if refs else "")
        return grader, params, refs, invert, False
    if value is not None:
        if isinstance(value, list):
            refs = tuple(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value)
        elif isinstance(value, str):
            refs = (value,)
        else:
            refs = (json.dumps(value, ensure_ascii=False),)
    if grader == "contains":
        params["require"] = "all" if kind.endswith("-all") else "any"
        if kind == "starts-with":
            params["at"] = "start"
    return grader, params, refs, invert, kind.startswith("icontains")


def invert_grade(g: Grade) -> Grade:
    if g.status not in ("pass", "fail"):
        return g
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
    try:
        resolved = resolve_params(grader, params)
    except ValueError as e:
        return error(f"assertion {kind!r}: {e}"), meta
    meta.update({k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()})
    spec = get_spec(grader)
    if ci:
        g = run(spec, tuple(r.lower() for r in arefs), output.lower(), resolved)
        g = replace(g, explanation="Case-insensitive (both sides lowercased): " + g.explanation)
    else:
        g = run(spec, arefs, output, resolved)
    if not spec.binary and g.status in ("pass", "fail"):
        g = replace(g, details={**g.details, "continuous": True})
    return (invert_grade(g) if invert else g), meta


def scorer_name(index: int, kind: str) -> str:
    return f"assert:{index}:{kind}"
