"""json_fields: the share of the expected object's top-level fields the output gets right.

Settings (``details["signature"]``, e.g. ``json_fields|nrefs:1|fence:tolerated|equal:json-typed``):

* both sides are parsed with ``graders.engines.jsonparse`` (one surrounding ```` ```json ```` fence
  tolerated on each side).
* expected must be a JSON object, else ``not_judged``. A reference that is not one is
  skipped when another reference is.
* score = matched fields / expected fields, where a field matches when the output object
  has it with a JSON-equal value (``jsonparse.json_equal``): same JSON type and value at
  every level, so ``"34" != 34`` and ``true != 1`` while ``1 == 1.0``; numbers are the
  decimals they are written as (``9007199254740993 == 9007199254740993.0``, and neither
  equals ``9007199254740992.0``, which a 64-bit float would confuse); key order is
  ignored; fields the expected object does not name are ignored.
* expected ``{}``: nothing to get wrong, so 1.0 when the output is a JSON object, else 0.
* output not JSON, or JSON but not an object: 0.
* several references: the best score (the first reference on a tie).
* depth: both sides parse up to 100,000 levels of nesting (``jsonparse.MAX_DEPTH``); JSON
  equality walks values with a stack and the explanation's renderings stop at their
  length, so values of any depth the parser reads are compared in full (no error grade).
"""

from __future__ import annotations

from typing import Any

from graders.engines.jsonparse import (
    compact,
    describe_value,
    encodable,
    explain_parse_error,
    json_equal,
    json_type,
    parse_fenced,
)
from graders.metrics.base import THRESHOLD, GraderSpec
from graders.result import Grade, continuous, not_judged

MAX_SHOWN = 10  # differing fields written out in the explanation
VALUE_LIMIT = 60  # characters of a value in the explanation
DETAIL_LIMIT = 200  # characters of a value in details


def _name(key: str) -> str:
    return compact(key, 80)


def _compare(expected: dict[str, Any], actual: dict[str, Any]) -> tuple[list[str], list[tuple[str, str]]]:
    """(matched keys, [(key, reason)] for the others; reason is missing, type or value)."""
    matched, differed = [], []
    for key, want in expected.items():
        if key not in actual:
            differed.append((key, "missing"))
        elif json_equal(want, actual[key]):
            matched.append(key)
        else:
            differed.append((key, "type" if json_type(want) != json_type(actual[key]) else "value"))
    return matched, differed


def _differed_details(expected: dict[str, Any], actual: dict[str, Any], differed: list[tuple[str, str]]) -> list[dict]:
    return [
        {
            "field": encodable(key),
            "expected": compact(expected[key], DETAIL_LIMIT),
            "output": None if reason == "missing" else compact(actual[key], DETAIL_LIMIT),
            "reason": reason,
        }
        for key, reason in differed
    ]


def _explain_fields(expected: dict[str, Any], actual: dict[str, Any], matched: list[str],
                    differed: list[tuple[str, str]]) -> str:
    n = len(expected)
    if n == 0:
        return "The expected object has no fields and the output is a JSON object, so nothing differs."
    head = f"{len(matched)} of {n} expected field{'s' * (n != 1)} {'matches' if len(matched) == 1 else 'match'}"
    if matched:
        head += ": " + ", ".join(_name(k) for k in matched[:MAX_SHOWN])
        if len(matched) > MAX_SHOWN:
            head += f" and {len(matched) - MAX_SHOWN} more"
    parts = [head + "."]
    if differed:
        items = []
        for key, reason in differed[:MAX_SHOWN]:
            want = f"{compact(expected[key], VALUE_LIMIT)} ({json_type(expected[key])})"
            if reason == "missing":
                items.append(f"{_name(key)} is missing (expected {want})")
            else:
                got = f"{compact(actual[key], VALUE_LIMIT)} ({json_type(actual[key])})"
                items.append(f"{_name(key)}: expected {want}, output {got}")
        more = f"; and {len(differed) - MAX_SHOWN} more" if len(differed) > MAX_SHOWN else ""
        parts.append("Mismatched: " + "; ".join(items) + more + ".")
    return " ".join(parts)


def _signature(nrefs: int) -> str:
    return f"json_fields|nrefs:{nrefs}|fence:tolerated|equal:json-typed"


def grade_json_fields(refs: tuple[str, ...], output: str, *, threshold: float | None = None) -> Grade:
    """Score = matched top-level fields / expected fields (typed JSON equality); max over refs."""
    sig = _signature(len(refs))
    objects: list[tuple[int, dict[str, Any]]] = []
    first_problem = ""
    for i, ref in enumerate(refs):
        value, e, body = parse_fenced(ref)
        if e is not None:
            first_problem = first_problem or explain_parse_error(e, body, "The expected answer")
            continue
        if isinstance(value, dict):
            objects.append((i, value))
        else:
            first_problem = first_problem or f"The expected answer is JSON but {describe_value(value)}, not an object."
    if not objects:
        which = "" if len(refs) == 1 else f"; none of the {len(refs)} references is one"
        return not_judged(
            f"{first_problem} This grader compares the fields of an expected JSON object{which}.", signature=sig
        )

    empty = {"signature": sig, "matched": [], "differed": [], "fields": len(objects[0][1])}
    actual, e, body = parse_fenced(output)
    if e is not None:
        text = explain_parse_error(e, body) + " No field can match."
        return continuous(0.0, threshold, text, **empty, parse_error=e.as_dict())
    if not isinstance(actual, dict):
        text = f"The output is JSON but {describe_value(actual)}, not an object, so no field can match."
        return continuous(0.0, threshold, text, **empty, output_type=json_type(actual))

    best = None
    for i, expected in objects:
        matched, differed = _compare(expected, actual)
        score = len(matched) / len(expected) if expected else 1.0
        if best is None or score > best[0]:
            best = (score, i, expected, matched, differed)
        if score == 1.0:
            break
    score, i, expected, matched, differed = best
    text = _explain_fields(expected, actual, matched, differed)
    if len(refs) > 1:
        text = f"Best of {len(refs)} references (reference {i + 1}): {text}"
    return continuous(
        score, threshold, text, signature=sig, reference=i, fields=len(expected),
        matched=[encodable(k) for k in matched], differed=_differed_details(expected, actual, differed),
    )


SPEC = GraderSpec(
    name="json_fields",
    func=grade_json_fields,
    params=[THRESHOLD],
    binary=False,
    label="JSON fields",
    summary="share of the expected JSON object's top-level fields whose value in the output is JSON-equal",
)
