"""json_schema's fast path (issue 36) and its time budget for patterns (issue 32, 5).

* Differential: over seeded tables of random instances, for schemas of every dialect, the
  column grader's pass/fail equals the prebuilt jsonschema validator's (``validator_for``,
  built once), its violations are jsonschema's own (pointer, keyword, message), and each row
  of the column equals ``grade()`` on that row alone. Patterns are ones Python's ``re`` and
  ECMAScript read alike, so the stock validator is a fair judge of them too.
* The fast path covers these schemas (``compiled.fast``), and is left where it must be.
* Patterns run in a few batches, not one V8 call per string.
* A catastrophic pattern over 10,000 distinct rows: three time-outs, then the remaining
  rows are an error saying the run's budget is spent (seconds, where it took hours).
"""

from __future__ import annotations

import json
import random
import time

import jsonschema
import pytest

from graders import grade
from graders.engines import schema_patterns, schema_run
from graders.engines.jsonparse import pointer
from graders.metrics import json_schema as js

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"

KEYS = ["a", "b", "c", "name", "age", "tags", "x1", "Zed"]

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 4},
                                      "age": {"type": "integer", "minimum": 0, "maximum": 9}},
     "required": ["name", "age"], "additionalProperties": False},
    {"type": ["object", "array", "null"], "minProperties": 1, "maxProperties": 2, "minItems": 1, "maxItems": 3,
     "items": {"type": "number", "exclusiveMinimum": -1, "exclusiveMaximum": 5}},
    {"enum": ["a", "b", 1, None, [1], {"a": 1}]},
    {"properties": {"a": {"enum": ["x", "y", "z"]}, "b": {"const": [1, "1"]}, "c": {"const": 1}}},
    {"anyOf": [{"type": "string", "minLength": 2}, {"type": "integer", "multipleOf": 3}], "not": {"const": 9}},
    {"oneOf": [{"type": "number"}, {"type": "integer"}, {"type": "array", "uniqueItems": True}]},
    {"properties": {"a": {"pattern": "^[a-c]+$"}}, "patternProperties": {"^[a-c]$": {"type": "string"}, "1": False},
     "additionalProperties": {"type": "boolean"}},
    {"patternProperties": {"^x": {"maxLength": 1}}, "additionalProperties": False, "propertyNames": {"maxLength": 3}},
    {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False,
     "contains": {"type": "string"}, "minContains": 1, "maxContains": 1},
    {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}, "uniqueItems": True},
    {"if": {"type": "object", "required": ["a"]}, "then": {"required": ["b"]}, "else": {"type": "array"}},
    {"dependentRequired": {"a": ["b", "c"]}, "dependentSchemas": {"c": {"required": ["name"]}},
     "propertyNames": {"pattern": "^[a-z]+$"}},
    {"$defs": {"node": {"type": "object", "properties": {"a": {"$ref": "#/$defs/node"}, "b": {"type": "integer"}},
                        "additionalProperties": False}},
     "$ref": "#/$defs/node", "required": ["b"]},
    {"type": "array", "items": {"$ref": "#"}, "maxItems": 2},
    {"allOf": [{"required": ["a"]}, {"properties": {"a": {"type": "string", "pattern": "b"}}}], "not": {"required": ["c"]}},
    {"properties": {"a": False, "b": True, "tags": {"items": False}}},
    {"contains": {"type": "null"}, "minContains": 0, "maxContains": 0},
    {"$schema": D4, "type": "object", "properties": {"a": {"type": "integer", "minimum": 1, "exclusiveMinimum": True},
                                                     "b": {"maximum": 2, "exclusiveMaximum": True}, "c": {"type": "integer"}},
     "dependencies": {"a": ["b"], "b": {"required": ["c"]}}},
    {"$schema": D6, "type": "array", "items": [{"type": "integer"}, {"const": "x"}], "additionalItems": False,
     "contains": {"type": "integer"}},
    {"$schema": D7, "items": [{"type": "integer"}], "additionalItems": {"type": "string"},
     "dependencies": {"a": ["b"], "c": {"required": ["x1"]}}, "if": {"minItems": 2}, "then": {"maxItems": 3}},
    {"$schema": D7, "definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s"}}},
    {"$schema": D2019, "items": {"type": "integer"}, "contains": {"minimum": 3}, "maxContains": 2,
     "properties": {"a": {"$ref": "#/properties/b"}, "b": {"type": "integer", "minimum": 0}}},
    {"$schema": D2019, "$ref": "#/$defs/o", "properties": {"a": {"type": "string"}}, "$defs": {"o": {"minProperties": 2}}},
    False,
    True,
]

# Outside the fast path: jsonschema judges every row (still with batched patterns).
SLOW_SCHEMAS = [
    {"properties": {"a": {"type": "string"}}, "unevaluatedProperties": False},
    {"$dynamicAnchor": "n", "properties": {"a": {"$dynamicRef": "#n"}}},
    {"$defs": {"s": {"$anchor": "s", "type": "string"}}, "items": {"$ref": "#s"}},
]


BY_KEY = {"name": ["Ana", "", "Bo", "Maria", 5], "age": [0, 3, 9, 10, -1, "3", 2.0, True]}
SCALARS = [None, None, True, False, 0, 1, 1.0, 3, 9, -2, 2.5, 1e300, 10 ** 20, "", "a", "b", "ab", "abc", "x", "bb",
           "é", "1", "Zed", "toolong"]


def _value(rng: random.Random, depth: int = 0, key: str | None = None):
    if key in BY_KEY and rng.random() < 0.8:
        return rng.choice(BY_KEY[key])
    r = rng.random()
    if depth < 3 and r < 0.3:
        keys = rng.sample(KEYS, rng.randint(0, 4))
        return {k: _value(rng, depth + 1, k) for k in keys}
    if depth < 3 and r < 0.5:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return rng.choice(SCALARS + [[1], {"a": 1}])


NEAR = [{"name": "Ana", "age": 3}, {"name": "Ana", "age": 3, "x1": 1}, {"name": "", "age": 10}, {"a": "b", "b": 1},
        {"a": "b", "b": 1, "c": None, "name": "x"}, {"a": {"b": 2}, "b": 1}, {"a": {"a": {"b": "2"}}, "b": 1},
        ["a", 1], ["a"], [1, "x"], [1, "x", 2], [1, 1], [None], [3, 4, 5], {"a": 2, "b": 1, "c": 0},
        {"a": ["t", "t2"]}, {"x1": "a", "Zed": True}]


def _table(seed: int, n: int = 300) -> list:
    rng = random.Random(seed)
    return NEAR + [_value(rng) for _ in range(n)]


def _stock(schema):
    return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema)


def _stock_violations(validator, instance) -> list[tuple[str, str, str]]:
    return sorted((pointer(e.absolute_path), e.validator or "false", e.message) for e in validator.iter_errors(instance)
                  if e.validator is not None)  # stock drops the path of a `false` subschema


@pytest.mark.parametrize("k", range(len(SCHEMAS)))
def test_column_verdicts_equal_the_prebuilt_validator(k):
    schema = SCHEMAS[k]
    assert js.compile_schema(schema).fast is not None, "this schema should take the fast path"
    instances = _table(seed=k)
    outputs = [json.dumps(x) for x in instances]
    block = js.grade_many([("",)] * len(outputs), outputs, schema=schema)
    stock = _stock(schema)
    for i, instance in enumerate(instances):
        assert block.passed[i] is stock.is_valid(instance), (schema, instance)
        got = sorted((v["path"], v["keyword"], v["message"]) for v in block.details[i]["violations"]
                     if v["keyword"] != "false")
        want = _stock_violations(stock, instance)
        assert [(p, kw) for p, kw, _ in got] == [(p, kw) for p, kw, _ in want], (schema, instance)
        for (_, kw, message), (_, _, expected) in zip(got, want):
            if kw in ("anyOf", "oneOf") or len(expected) > js.MESSAGE_LIMIT:
                assert message.startswith(expected[:100])
            else:
                assert message == expected
    for i in range(0, len(outputs), 7):  # the column and one row at a time say the same
        one = grade("json_schema", output=outputs[i], schema=schema)
        assert (one.status, one.explanation, one.near_miss) == \
               (block.status[i], block.explanation[i], block.near_miss[i])
        assert one.details.get("violations") == block.details[i].get("violations")


@pytest.mark.parametrize("schema", SLOW_SCHEMAS)
def test_schemas_outside_the_fast_path_are_judged_by_jsonschema(schema):
    assert js.compile_schema(schema).fast is None
    instances = _table(seed=99, n=100)
    block = js.grade_many([("",)] * len(instances), [json.dumps(x) for x in instances], schema=schema)
    stock = _stock(schema)
    assert block.passed == [stock.is_valid(x) for x in instances]


def test_duplicates_spacing_and_fences_share_one_judgement():
    schema = SCHEMAS[0]
    outputs = ['{"name": "Ana", "age": 3}', '{"name":"Ana","age":3}', '{"name": "Ana", "age": 30}',
               '{"name":"Ana","age":30}', '```json\n{"name": "Ana", "age": 3}\n```', "nope"] * 3
    block = js.grade_many([("",)] * len(outputs), outputs, schema=schema)
    assert block.status == ["pass", "pass", "fail", "fail", "fail", "fail"] * 3
    assert block.explanation[2] == block.explanation[3]
    assert block.details[2]["violations"] == [
        {"path": "/age", "keyword": "maximum", "message": "30 is greater than the maximum of 9"}]
    assert block.near_miss[4] == ("strip_fence",) and block.near_miss[5] is None


def test_deep_outputs_are_left_to_jsonschema():
    schema = {"type": "array", "items": {"$ref": "#"}}
    deep = "[" * 40 + "]" * 40
    block = js.grade_many([("",)], [deep], schema=schema)
    assert block.status == [grade("json_schema", output=deep, schema=schema).status] == ["pass"]


def test_patterns_run_in_a_few_batches(monkeypatch):
    calls = []
    real = schema_patterns.match_many

    def counting(pattern, flags, mode, texts, *args, **kwargs):
        calls.append(len(texts))
        return real(pattern, flags, mode, texts, *args, **kwargs)

    monkeypatch.setattr(schema_patterns, "match_many", counting)
    schema_patterns.clear_kept()
    schema = {"type": "object", "properties": {"email": {"type": "string", "pattern": "^[a-z0-9]+@x\\.io$"},
                                               "tags": {"items": {"pattern": "^t"}}},
              "patternProperties": {"^k": {"type": "integer"}}}
    outputs = [json.dumps({"email": f"u{i}@x.io" if i % 3 else f"U{i}@x.io", "tags": [f"t{i}", f"t{i}x"], f"k{i % 5}": i})
               for i in range(3000)]
    block = js.grade_many([("",)] * len(outputs), outputs, schema=schema)
    assert block.passed == [i % 3 != 0 for i in range(3000)]
    assert len(calls) <= 3 * 3, calls  # a call per pattern per chunk of 4,096 distinct outputs
    assert sum(calls) >= 3000 * 2


CATASTROPHIC = {"type": "object", "properties": {"k": {"type": "string", "pattern": "^(a+)+$"}}}


def test_a_catastrophic_pattern_costs_seconds_not_the_limit_per_row():
    """10,000 distinct rows that each run past the 1 s limit: before, about 3 hours (one
    time-out per row); now three time-outs, then the run's budget is spent."""
    outputs = [json.dumps({"k": "a" * (28 + i % 7) + f"!{i}"}) for i in range(10_000)]
    outputs += ['{"k": 5}', '{"j": "x"}', "not json"]  # rows that need no pattern are still judged
    start = time.monotonic()
    block = js.grade_many([("",)] * len(outputs), outputs, schema=CATASTROPHIC)
    elapsed = time.monotonic() - start
    assert elapsed < 60, elapsed
    assert block.status[:10_000] == ["error"] * 10_000
    timed_out = [e for e in block.explanation[:10_000] if "ran past its 1 s time limit" in e]
    assert 1 <= len(timed_out) <= schema_patterns.MAX_TIMEOUTS
    spent = [e for e in block.explanation[:10_000] if "was not run" in e]
    assert len(spent) == 10_000 - len(timed_out)
    assert "3 times, the most a run allows" in spent[-1]
    assert block.status[10_000:] == ["fail", "pass", "fail"]


def test_one_row_still_reports_its_own_time_out():
    g = grade("json_schema", output=json.dumps({"k": "a" * 40 + "!"}), schema=CATASTROPHIC)
    assert g.status == "error" and "ran past its 1 s time limit" in g.explanation
    assert grade("json_schema", output='{"k": "aaa"}', schema=CATASTROPHIC).status == "pass"


def test_outside_a_run_the_keywords_match_at_once():
    validator = js.compile_schema({"pattern": "^a"}).validator
    assert validator.is_valid("ab") and not validator.is_valid("ba")


def test_the_private_jsonschema_helpers_the_fast_path_uses_are_there():
    from jsonschema._utils import equal, uniq

    assert equal(1, 1.0) and not equal(1, True) and not uniq([1, 1.0]) and uniq([1, True])
    assert schema_run.MAX_NESTING == 32


def test_the_budget_holds_where_jsonschema_judges_the_rows_too():
    schema = {**CATASTROPHIC, "unevaluatedProperties": False}
    assert js.compile_schema(schema).fast is None
    outputs = [json.dumps({"k": "a" * (28 + i % 7) + f"!{i}"}) for i in range(1_000)]
    start = time.monotonic()
    block = js.grade_many([("",)] * len(outputs), outputs, schema=schema)
    assert time.monotonic() - start < 60
    assert block.status == ["error"] * 1_000
    assert sum("was not run" in e for e in block.explanation) >= 1_000 - schema_patterns.MAX_TIMEOUTS
