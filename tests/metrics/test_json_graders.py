"""The JSON graders (json_schema, valid_json, json_fields) and their shared parser.

Golden comparisons call jsonschema's stock validators directly; ECMAScript pattern
semantics come from graders.engines.regex (V8), checked on patterns Python's re reads
differently or refuses.
"""

import json
import string

import jsonschema
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders import grade
from graders.config import RunConfig
from graders.engines import jsonparse
from graders.engines.jsonparse import (
    C_DEPTH,
    MAX_DEPTH,
    JSONParseError,
    json_equal,
    loads,
    parse,
    pointer,
    shared_parses,
    strip_fence,
)
from graders.metrics import json_schema as js
from graders.registry import REGISTRY
from graders.scoring.batch import JSON_PARSERS
from graders.scoring.parallel import score_frame

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
    "additionalProperties": False,
}


def schema_grade(output, schema=PERSON, **params):
    return grade("json_schema", output=output, schema=schema, **params)


# --- The parser -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"a": 1 "b": 2}', "Expecting ',' delimiter: line 1 column 9 (char 8)"),
        ('{"name": "Maria" "age": 34}', "Expecting ',' delimiter: line 1 column 18 (char 17)"),
        ("", "Expecting value: line 1 column 1 (char 0)"),
        ('{"a": 1}\nthanks', "Extra data: line 2 column 1 (char 9)"),
        ("{'a': 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ("[1, 2,]", "Expecting value: line 1 column 7 (char 6)"),
        ("1e999999", "the number 1e999999 is outside the range of a 64-bit float (it would be Infinity): line 1 column 1 (char 0)"),
        ('{"x": "1e999", "y": -1e999}', "the number -1e999 is outside the range of a 64-bit float (it would be -Infinity): line 1 column 21 (char 20)"),
        ("[NaN]", "NaN is not a JSON value (JSON has no NaN or Infinity): line 1 column 2 (char 1)"),
        ('{"a": -Infinity}', "-Infinity is not a JSON value (JSON has no NaN or Infinity): line 1 column 7 (char 6)"),
        ("[1, " + "9" * 5000 + "]", "an integer has more than 4300 digits, the most this parser reads: line 1 column 5 (char 4)"),
        ("\ufeff{}", "Unexpected byte order mark U+FEFF before the JSON: line 1 column 1 (char 0)"),
        ("[" * 100_000, "Expecting value: line 1 column 100001 (char 100000)"),
        ("[" * 100_001, "nesting deeper than 100,000 levels: line 1 column 100001 (char 100000)"),
        ('{"a":' * 100_001 + "1" + "}" * 100_001, "nesting deeper than 100,000 levels: line 1 column 500001 (char 500000)"),
        ("\u00a0{}", "Expecting value: line 1 column 1 (char 0)"),
    ],
)
def test_parse_errors_read_like_the_parser(text, message):
    with pytest.raises(JSONParseError) as e:
        loads(text)
    assert str(e.value) == message


@pytest.mark.parametrize(
    "text, value",
    [
        ('{"a": 1, "a": 2}', {"a": 2}),  # duplicate keys: the last wins, as JSON.parse
        ("[" * C_DEPTH + "]" * C_DEPTH, json.loads("[" * C_DEPTH + "]" * C_DEPTH)),
        ('["[[[[", "\\"[[["]', ["[[[[", '"[[[']),  # brackets inside strings do not nest
        ("1e-999999", 0.0),  # underflow is fine, as in JavaScript
        ("9" * 4300, int("9" * 4300)),
        ('"\\ud800"', "\ud800"),
        ('"\ud800 raw"', "\ud800 raw"),
        (' \t\n\r{"a":null}\r\n', {"a": None}),
    ],
)
def test_parse_accepts(text, value):
    assert loads(text) == value


def test_brackets_in_strings_do_not_count_toward_depth():
    text = json.dumps(["[" * 10_000, {"k": "{" * 10_000}])
    assert loads(text)[1]["k"] == "{" * 10_000


def test_fifty_megabyte_string_parses_quickly():
    import time

    text = '"' + "x" * 50_000_000 + '"'
    start = time.perf_counter()
    assert grade("valid_json", output=text).status == "pass"
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(
    "text, body",
    [
        ('```json\n{"a": 1}\n```', '{"a": 1}'),
        ('```JSON\r\n{"a": 1}\r\n```', '{"a": 1}\r'),
        ('```\n[1]\n```', "[1]"),
        ('  \n```json\n[1]\n```\n\u00a0', "[1]"),
        ('```json\n[1]```', "[1]"),
        ('```python\n[1]\n```', None),
        ('```json [1]```', None),
        ("[1]", None),
        ("```", None),
    ],
)
def test_strip_fence(text, body):
    assert strip_fence(text) == (text if body is None else body)


@pytest.mark.parametrize(
    "a, b, equal",
    [
        (1, 1.0, True),
        (34, "34", False),
        (True, 1, False),
        (False, 0, False),
        (None, None, True),
        ({"a": 1, "b": [1, 2]}, {"b": [1.0, 2], "a": 1}, True),
        ([1, 2], [2, 1], False),
        ({"a": True}, {"a": 1}, False),
        ([[True]], [[1]], False),
        ({"a": 1}, {"a": 1, "b": None}, False),
        ("é", "e\u0301", False),  # code points, no normalization
        (2**53 + 1, float(2**53), False),  # exact comparison of big integers
        (-0.0, 0, True),
    ],
)
def test_json_equal(a, b, equal):
    assert json_equal(a, b) is equal
    assert json_equal(b, a) is equal


@pytest.mark.parametrize(
    "path, ptr",
    [((), ""), (("a",), "/a"), (("a", 0, "b"), "/a/0/b"), (("a/b",), "/a~1b"), (("m~n",), "/m~0n"),
     (("~/",), "/~0~1"), (("",), "/"), (("x", ""), "/x/")],
)
def test_pointer_rfc6901(path, ptr):
    assert pointer(path) == ptr


# --- json_schema --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "output, status, near_miss",
    [
        ('{"name": "Maria", "age": 34}', "pass", None),
        ('{"name": "Maria", "age": "34"}', "fail", None),
        ('```json\n{"name": "Maria", "age": 34}\n```', "fail", ("strip_fence",)),
        ('\u00a0{"name": "Maria", "age": 34}\u3000', "fail", ("trim",)),
        ('  {"name": "Maria", "age": 34}\n', "pass", None),  # JSON's own whitespace
        ('```json\n\u00a0{"name": "Maria", "age": 34}\n```', "fail", None),  # needs both steps
        ('```json\n{"name": "Maria", "age": "34"}\n```', "fail", None),  # unwrapped, still wrong
        ('{"name": "Maria", "age": 34', "fail", None),
        ("", "fail", None),
    ],
)
def test_json_schema_table(output, status, near_miss):
    g = schema_grade(output)
    assert (g.status, g.near_miss) == (status, near_miss)
    assert g.details["signature"].startswith("json_schema|draft:2020-12|pattern:ecmascript")


@pytest.mark.parametrize(
    "pre_parse, output, status, near_miss",
    [
        (["strip_fence"], '```json\n{"name": "Maria", "age": 34}\n```', "pass", None),
        (["strip_fence", "trim"], '```json\n\u00a0{"name": "Maria", "age": 34}\n```', "pass", None),
        (["strip_fence"], '```json\n\u00a0{"name": "Maria", "age": 34}\n```', "fail", ("trim",)),
        (["trim"], '\u00a0```json\n{"name": "Maria", "age": 34}\n```', "fail", ("strip_fence",)),
        (["trim"], '{"name": "Maria", "age": 34}', "pass", None),
    ],
)
def test_json_schema_pre_parse(pre_parse, output, status, near_miss):
    g = schema_grade(output, pre_parse=pre_parse)
    assert (g.status, g.near_miss) == (status, near_miss)
    assert f"pre_parse:{'+'.join(pre_parse)}|" in g.details["signature"]


def test_pre_parse_rejects_unknown_steps():
    with pytest.raises(ValueError, match="unknown step 'lower'"):
        schema_grade("{}", pre_parse=["lower"])


def test_parse_failure_gives_the_parser_message():
    g = schema_grade('{"name": "Maria" "age": 34}')
    assert g.status == "fail"
    assert "Expecting ',' delimiter: line 1 column 18 (char 17)" in g.explanation
    assert g.details["parse_error"] == {
        "message": "Expecting ',' delimiter: line 1 column 18 (char 17)", "line": 1, "column": 18, "char": 17,
    }


def test_fence_hint_in_the_explanation():
    g = schema_grade('```json\n{"name": "Maria", "age": 34}\n```')
    assert "strip_fence" in g.explanation


def test_every_violation_is_listed_with_pointer_keyword_message():
    schema = {
        "type": "object",
        "properties": {
            "a/b": {"type": "integer"},
            "m~n": {"type": "string"},
            "items": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["id"],
    }
    g = schema_grade('{"a/b": "x", "m~n": 5, "items": [1, "two", 3, "four", 5, 6, 7, 8, 9, 10, "eleven"]}', schema)
    assert g.status == "fail"
    got = [(v["path"], v["keyword"]) for v in g.details["violations"]]
    assert got == [
        ("", "required"),
        ("/a~1b", "type"),
        ("/items/1", "type"),
        ("/items/3", "type"),
        ("/items/10", "type"),  # indices sort numerically
        ("/m~0n", "type"),
    ]
    assert g.details["violation_count"] == 6
    assert "at /a~1b (type): 'x' is not of type 'integer'" in g.explanation
    assert "at the root (required): 'id' is a required property" in g.explanation


def test_the_root_and_a_member_named_empty_are_told_apart():
    schema = {"properties": {"": {"type": "string"}}, "required": ["x"]}
    g = schema_grade('{"": 1}', schema)
    assert [(v["path"], v["keyword"]) for v in g.details["violations"]] == [("", "required"), ("/", "type")]
    assert "at the root (required)" in g.explanation and "at / (type): 1 is not of type 'string'" in g.explanation


def test_violations_match_jsonschema_itself():
    instance = {"name": 5, "age": -1, "extra": True}
    ours = schema_grade(json.dumps(instance)).details["violations"]
    stock = jsonschema.Draft202012Validator(PERSON).iter_errors(instance)
    expected = sorted((pointer(e.absolute_path), e.validator, e.message) for e in stock)
    assert sorted((v["path"], v["keyword"], v["message"]) for v in ours) == expected


def test_false_subschema_keeps_its_path():
    # jsonschema itself reports the root for this; the grader reports where the value is.
    g = schema_grade('{"a": 1, "b": 2}', {"properties": {"a": False}})
    assert [(v["path"], v["keyword"]) for v in g.details["violations"]] == [("/a", "false")]
    assert schema_grade("1", False).details["violations"][0]["path"] == ""
    assert schema_grade("1", True).status == "pass"


def test_many_violations_are_capped_and_counted():
    g = schema_grade(json.dumps(list(range(20_000))), {"items": {"type": "string"}})
    assert g.status == "fail"
    assert len(g.details["violations"]) == js.MAX_LISTED
    assert g.details["violation_count"] == js.MAX_COUNTED
    assert "at least 10,000 violations" in g.explanation
    assert g.explanation.count("at /") == js.MAX_SHOWN == js.MAX_LISTED
    assert g.explanation.endswith("; … and 9,000 more.")


def test_a_fail_names_every_violation():
    """SPEC §3: "A fail names every violation" (a dozen: all twelve paths written out)."""
    g = schema_grade(json.dumps(list(range(12))), {"items": {"type": "string"}})
    assert [f"at /{i} (type): {i} is not of type 'string'" in g.explanation for i in range(12)] == [True] * 12
    assert "more" not in g.explanation


def test_long_values_are_cut_in_the_middle():
    g = schema_grade(json.dumps("x" * 1_000_000), {"maxLength": 3})
    (v,) = g.details["violations"]
    assert len(v["message"]) <= js.MESSAGE_LIMIT and v["message"].endswith("is too long")


@pytest.mark.parametrize(
    "schema, keyword, location",
    [
        ({"type": "object", "nullable": True}, "nullable", "/nullable"),
        ({"properties": {"age": {"type": "integer", "x-order": 1}}}, "x-order", "/properties/age/x-order"),
        ({"items": {"anyOf": [{"type": "string"}, {"typo": 1}]}}, "typo", "/items/anyOf/1/typo"),
        ({"$defs": {"a": {"example": 1}}}, "example", "/$defs/a/example"),
        ({"dependencies": {"a": ["b"]}}, "dependencies", "/dependencies"),  # not 2020-12
        ({"properties": {"a~b/c": {"discriminator": {}}}}, "discriminator", "/properties/a~0b~1c/discriminator"),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "prefixItems": [{}]}, "prefixItems", "/prefixItems"),
        ({"$schema": "http://json-schema.org/draft-04/schema#", "const": 1}, "const", "/const"),
    ],
)
def test_unsupported_keyword_is_not_judged_and_named(schema, keyword, location):
    g = schema_grade("{}", schema)
    assert g.status == "not_judged"
    assert keyword in g.explanation and location in g.explanation
    assert {"keyword": keyword, "location": location} in g.details["unsupported"]


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"nullable": {"type": "string"}, "x-order": {}}},  # names, not keywords
        {"enum": [{"nullable": True}], "const": {"x-foo": 1}, "default": {"bogus": 1}, "examples": [{"y": 2}]},
        {"required": ["nullable"], "dependentRequired": {"x-a": ["x-b"]}},
        {"title": "t", "description": "d", "$comment": "c", "deprecated": True, "readOnly": True,
         "writeOnly": False, "format": "email", "contentMediaType": "text/plain", "contentEncoding": "base64"},
        {"definitions": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/definitions/a"}}},
    ],
)
def test_data_and_names_are_not_keywords(schema):
    g = schema_grade("{}", schema)
    assert g.status in ("pass", "fail"), g.explanation


def test_format_is_an_annotation_and_says_so():
    g = schema_grade('{"email": "not an email"}', {"properties": {"email": {"type": "string", "format": "email"}}})
    assert g.status == "pass" and "format is an annotation" in g.explanation


@pytest.mark.parametrize(
    "schema, fragment",
    [
        ({"type": "int"}, "at /type"),
        ({"properties": {"a": {"minimum": "0"}}}, "at /properties/a/minimum"),
        ({"required": "name"}, "at /required"),
        ({"items": [{"type": "string"}]}, "at /items"),  # the array form is not 2020-12
        ({"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 0, "exclusiveMinimum": 0}, "at /exclusiveMinimum"),
        ({"$schema": "http://json-schema.org/draft-04/schema#", "exclusiveMinimum": True}, "'minimum' is a dependency"),
    ],
)
def test_invalid_schema_is_an_error(schema, fragment):
    g = schema_grade("{}", schema)
    assert g.status == "error"
    assert "is not a valid" in g.explanation and fragment in g.explanation


def test_invalid_schema_as_text_is_refused_by_the_registry():
    with pytest.raises(ValueError, match="is not valid JSON"):
        schema_grade("{}", '{"type": "object",}')


@pytest.mark.parametrize(
    "ref",
    ["https://example.com/person.json", "http://example.com/s#/defs/a", "person.json", "../common.json#/a"],
)
def test_remote_ref_is_not_judged(ref):
    g = schema_grade("{}", {"properties": {"a": {"$ref": ref}}})
    assert g.status == "not_judged"
    assert "remote references are not fetched" in g.explanation and "/properties/a/$ref" in g.explanation


@pytest.mark.parametrize(
    "schema, output, status",
    [
        ({"$defs": {"n": {"type": "integer"}}, "items": {"$ref": "#/$defs/n"}}, "[1, 2]", "pass"),
        ({"$defs": {"n": {"type": "integer"}}, "items": {"$ref": "#/$defs/n"}}, '[1, "2"]', "fail"),
        ({"$defs": {"n": {"$anchor": "num", "type": "integer"}}, "$ref": "#num"}, '"x"', "fail"),
        ({"$id": "https://ex.com/root.json", "$defs": {"a": {"$id": "other.json", "type": "string"}},
          "$ref": "https://ex.com/other.json"}, "1", "fail"),
        ({"$id": "https://ex.com/root.json", "$defs": {"a": {"$id": "other.json", "type": "string"}},
          "$ref": "other.json"}, '"s"', "pass"),
        ({"$ref": "https://json-schema.org/draft/2020-12/schema"}, '{"type": "string"}', "pass"),
        ({"$ref": "https://json-schema.org/draft/2020-12/schema"}, '{"type": 5}', "fail"),
        ({"type": "array", "items": {"$ref": "#"}}, "[[[]], []]", "pass"),
        ({"$ref": "#/$defs/missing"}, "{}", "error"),
        ({"$defs": {"a": {}}, "$ref": "#nowhere"}, "{}", "error"),
    ],
)
def test_local_refs(schema, output, status):
    assert schema_grade(output, schema).status == status


@pytest.mark.parametrize(
    "schema_uri, draft",
    [
        ("http://json-schema.org/draft-07/schema#", "draft-07"),
        ("http://json-schema.org/draft-07/schema", "draft-07"),
        ("https://json-schema.org/draft-07/schema#", "draft-07"),
        ("http://json-schema.org/draft-06/schema#", "draft-06"),
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
        ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
    ],
)
def test_dialect_from_schema_keyword(schema_uri, draft):
    g = schema_grade("{}", {"$schema": schema_uri, "type": "object"})
    assert g.status == "pass"
    assert g.details["draft"] == draft and f"draft:{draft}|" in g.details["signature"]


def test_draft07_semantics_differ_from_2020_12():
    tuple_schema = {"items": [{"type": "integer"}, {"type": "string"}], "additionalItems": False}
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#", **tuple_schema}
    assert schema_grade('[1, "a"]', d7).status == "pass"
    g = schema_grade('[1, "a", 3]', d7)
    assert g.status == "fail" and g.details["violations"][0]["keyword"] == "additionalItems"
    # Draft 7 ignores keywords beside $ref: refused rather than silently skipped.
    beside = {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"s": {"type": "string"}},
              "properties": {"x": {"$ref": "#/definitions/s", "maxLength": 2}}}
    g = schema_grade('{"x": "abc"}', beside)
    assert g.status == "not_judged" and "maxLength" in g.explanation
    # Draft 4's boolean exclusiveMinimum.
    d4 = {"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 0, "exclusiveMinimum": True}
    assert schema_grade("0", d4).status == "fail" and schema_grade("0.5", d4).status == "pass"
    # Draft 4 does not count 1.0 as an integer; later drafts do.
    assert schema_grade("1.0", {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}).status == "fail"
    assert schema_grade("1.0", {"type": "integer"}).status == "pass"


@pytest.mark.parametrize(
    "uri", ["http://json-schema.org/draft-03/schema#", "https://spec.openapis.org/oas/3.1/dialect/base", "nonsense"]
)
def test_unknown_dialect_is_not_judged(uri):
    g = schema_grade("{}", {"$schema": uri})
    assert g.status == "not_judged" and "$schema" in g.explanation


@pytest.mark.parametrize(
    "pattern, text, matches",
    [
        (r"^\d$", "3", True),
        (r"^\d$", "٣", False),  # ECMAScript \d is ASCII; Python's re matches Arabic-Indic digits
        (r"^\w+$", "café", False),  # \w is ASCII too
        (r"^\p{Lu}", "Ábc", True),  # Unicode property escapes: Python's re refuses \p
        (r"^\p{Lu}", "ábc", False),
        (r"^(?<n>x)\k<n>$", "xx", True),  # named groups, JavaScript spelling
        (r"^(?<n>x)\k<n>$", "xy", False),
        (r"^[a-z]+$", "abc\n", False),  # $ is the very end: Python's re lets a final \n through
        (r"^.$", "😀", True),  # u flag: . is one code point
        (r"^\u{1F600}$", "😀", True),
        (r"colou?r", "my favourite colour", True),  # unanchored search
    ],
)
def test_pattern_is_ecmascript(pattern, text, matches):
    g = schema_grade(json.dumps(text), {"type": "string", "pattern": pattern})
    assert g.status == ("pass" if matches else "fail"), g.explanation
    if not matches:
        assert g.details["violations"][0]["keyword"] == "pattern"


def test_pattern_properties_are_ecmascript_everywhere():
    pp = {"^\\p{Lu}": {"type": "integer"}}
    out = '{"Ábc": 1, "b": 2}'
    g = schema_grade(out, {"patternProperties": pp})
    assert g.status == "pass"
    g = schema_grade('{"Ábc": "x"}', {"patternProperties": pp})
    assert [(v["path"], v["keyword"]) for v in g.details["violations"]] == [("/Ábc", "type")]
    g = schema_grade(out, {"patternProperties": pp, "additionalProperties": False})
    assert g.status == "fail" and "'b' does not match any of the regexes" in g.explanation
    g = schema_grade(out, {"patternProperties": pp, "unevaluatedProperties": False})
    assert g.status == "fail" and "('b' was unexpected)" in g.explanation
    g = schema_grade(out, {"allOf": [{"patternProperties": pp}], "unevaluatedProperties": False,
                           "$schema": "https://json-schema.org/draft/2019-09/schema"})
    assert g.status == "fail" and "('b' was unexpected)" in g.explanation
    assert schema_grade('{"Ábc": 1}', {"patternProperties": pp, "unevaluatedProperties": False}).status == "pass"
    assert schema_grade('{"٣": 1}', {"propertyNames": {"pattern": "^\\d$"}}).status == "fail"


@pytest.mark.parametrize(
    "schema, location",
    [
        ({"pattern": "(?P<n>x)"}, "/pattern"),
        ({"properties": {"a": {"pattern": "[a-"}}}, "/properties/a/pattern"),
        ({"patternProperties": {"(?i)^a": {}}}, "/patternProperties/(?i)^a"),
        ({"$schema": "http://json-schema.org/draft-04/schema#", "patternProperties": {"\\Z": {}}}, "/patternProperties/\\Z"),
    ],
)
def test_bad_pattern_is_an_error_with_javascript_hint(schema, location):
    g = schema_grade('"x"', schema)
    assert g.status == "error"
    assert location in g.explanation and "JavaScript" in g.explanation


def test_regex_time_limit_is_an_error():
    g = schema_grade(json.dumps("a" * 40 + "!"), {"type": "string", "pattern": "^(a+)+$"})
    assert g.status == "error"
    assert "time limit" in g.explanation


def test_validator_is_built_once_per_schema():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 7}}}
    text = json.dumps(schema)
    js._compile_key.cache_clear()
    js._compile_marshalled.cache_clear()
    for i in range(50):
        assert schema_grade(f'{{"n": {i}}}', schema).passed is (i >= 7)
        assert schema_grade(f'{{"n": {i}}}', text).passed is (i >= 7)
    assert js._compile_key.cache_info().misses == 1


def test_a_mutated_schema_is_seen_as_new():
    schema = {"type": "object", "properties": {"n": {"const": 1}}}
    assert schema_grade('{"n": 1}', schema).status == "pass"
    schema["properties"]["n"]["const"] = True  # equal to 1 in Python, not in JSON
    assert schema_grade('{"n": 1}', schema).status == "fail"
    schema["properties"]["n"]["const"] = 1.0
    assert schema_grade('{"n": 1}', schema).status == "pass"


def test_schema_that_is_not_json_is_an_error():
    g = schema_grade("{}", {"enum": [{1, 2}]})
    assert g.status == "error" and "not JSON" in g.explanation
    deep: dict = {}
    node = deep
    for _ in range(100_000):
        node["not"] = {}
        node = node["not"]
    assert schema_grade("{}", deep).status == "error"


@pytest.mark.parametrize(
    "output",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        "[" * 100_000,
        "1e999999",
        "[-1e400]",
        "NaN",
        "Infinity",
        "1" * 10_000,
        '"\ud800"',
        '{"\ud800": "\udfff"}',
        "\x00",
        '"\x00"',
        "\ud800",
    ],
)
@pytest.mark.parametrize("grader", ["json_schema", "valid_json", "json_fields"])
def test_hostile_json_never_crashes(grader, output):
    if grader == "json_schema":
        g = schema_grade(output, {"type": "object", "properties": {"\ud800": {"type": "string", "pattern": "x"}}})
    else:
        g = grade(grader, expected='{"a": 1}', output=output)
    # A deep output parses now (up to 100,000 levels); jsonschema, which recurses, says so.
    too_deep = g.status == "error" and "too deeply to validate" in g.explanation
    assert g.status in ("pass", "fail", "scored") or (grader == "json_schema" and too_deep)
    g.explanation.encode("utf-8")  # every explanation encodes: no raw lone surrogates
    json.dumps(dict(g.details), ensure_ascii=False).encode("utf-8")


def test_recursive_schema_on_deep_output_is_an_error_not_a_crash():
    g = schema_grade("[" * 450 + "]" * 450, {"items": {"$ref": "#"}})
    assert g.status == "error" and "recursion" in g.explanation
    assert schema_grade("[" * 100 + "]" * 100, {"items": {"$ref": "#"}}).status == "pass"


def test_an_evaluator_failure_is_an_error_row_not_a_crash():
    """jsonschema's 2019-09 unevaluatedItems takes len() of a boolean items schema."""
    schema = {"$schema": "https://json-schema.org/draft/2019-09/schema", "items": True, "unevaluatedItems": False}
    for output in ("[1]", "[]"):
        g = schema_grade(output, schema)
        assert g.status == "error" and "the schema evaluator (jsonschema) failed" in g.explanation
        assert "TypeError" in g.explanation


def test_a_self_referencing_if_is_an_error_every_time():
    """The recursion trips inside the Rust core of `referencing` on a second call, which
    panics instead of raising RecursionError."""
    schema = {"definitions": {"D": {"if": {"$ref": "#/definitions/D"}}}, "if": {"$ref": "#/definitions/D"}}
    for _ in range(3):
        g = schema_grade("1", schema)
        assert g.status == "error" and "recursion limit" in g.explanation


def test_lone_surrogates_in_keys_and_values():
    g = schema_grade('{"\\ud800": 1}', {"properties": {"\ud800": {"type": "string", "pattern": "."}}})
    assert g.status == "fail"
    (v,) = g.details["violations"]
    assert v["path"] == "/\\ud800" and v["keyword"] == "type"
    assert schema_grade('"\\ud800"', {"type": "string", "pattern": "^.$"}).status in ("pass", "fail")


# --- The keyword sets ----------------------------------------------------------------------

NON_ASSERTING = {
    "$schema", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary", "$comment",
    "$defs", "definitions", "then", "else", "minContains", "maxContains", "title", "description",
    "default", "examples", "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding",
    "contentSchema",
}


@pytest.mark.parametrize("name", list(js.DIALECTS))
def test_keyword_set_matches_what_jsonschema_implements(name):
    implemented = set(js.DIALECTS[name].base.VALIDATORS)
    supported = js.KEYWORDS[name]
    assert implemented <= supported, implemented - supported
    extra = supported - implemented - NON_ASSERTING
    if name == "draft-04":
        extra -= {"exclusiveMaximum", "exclusiveMinimum"}  # modifiers read by maximum/minimum
    assert not extra


@pytest.mark.parametrize("name", ["2019-09", "2020-12"])
def test_keyword_set_covers_the_vocabularies(name):
    # Every keyword the dialect's vocabulary meta-schemas define, less the compatibility
    # leftovers jsonschema does not implement for this dialect.
    from jsonschema_specifications import REGISTRY

    base = js.DIALECTS[name].uri.rsplit("/", 1)[0]
    defined = set()
    for vocab in ("core", "applicator", "validation", "meta-data", "content", "unevaluated",
                  "format-annotation" if name == "2020-12" else "format"):
        try:
            defined |= set(REGISTRY.contents(f"{base}/meta/{vocab}").get("properties", {}))
        except LookupError:
            continue
    assert defined and defined <= js.KEYWORDS[name], defined - js.KEYWORDS[name]


# --- valid_json ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "output, status, near_miss, fragment",
    [
        ('{"a": 1}', "pass", None, "an object with 1 member"),
        ("[1, 2]", "pass", None, "an array of 2 items"),
        ('"text"', "pass", None, "a string"),
        ("42", "pass", None, "a number"),
        ("null", "pass", None, "null"),
        ("true", "pass", None, "true"),
        ('```json\n{"a": 1}\n```', "pass", None, "code fence"),
        ('```\n[1]\n```', "pass", None, "code fence"),
        ('\n\n```json\n{"a": 1}\n```  \n', "pass", None, "code fence"),
        ('\u00a0{"a": 1}', "fail", ("trim",), "Expecting value: line 1 column 1 (char 0)"),
        ('{"a": 1}\u3000', "fail", ("trim",), "Extra data: line 1 column 9 (char 8)"),
        ('```json\n\u00a0{"a": 1}\n```', "fail", ("trim",), "Expecting value"),
        ('```json\n```json\n{"a": 1}\n```\n```', "fail", ("strip_fence",), "Expecting value"),
        ('{"a": 1,}', "fail", None, "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"),
        ('Sure! {"a": 1}', "fail", None, "Expecting value: line 1 column 1 (char 0)"),
        ("", "fail", None, "empty"),
        ('{"a": NaN}', "fail", None, "NaN is not a JSON value"),
        ("[" * 1000 + "]" * 1000, "pass", None, "an array of 1 item"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "fail", None, "nesting deeper than 100,000 levels"),
    ],
)
def test_valid_json_table(output, status, near_miss, fragment):
    g = grade("valid_json", output=output)
    assert (g.status, g.near_miss) == (status, near_miss)
    assert fragment in g.explanation
    assert g.details["signature"] == "valid_json|fence:tolerated|numbers:finite|max_depth:100000"


def test_valid_json_ignores_expected():
    assert grade("valid_json", expected="anything", output="[]").status == "pass"
    assert grade("valid_json", output="[]").details["type"] == "array"


# --- json_fields ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, output, score",
    [
        ('{"name": "Maria", "age": 34}', '{"name": "Maria", "age": "34"}', 0.5),  # the seed example
        ('{"name": "Maria", "age": 34}', '{"age": 34.0, "name": "Maria"}', 1.0),
        ('{"name": "Maria", "age": 34}', '```json\n{"name": "Maria", "age": 34}\n```', 1.0),
        ('```json\n{"name": "Maria", "age": 34}\n```', '{"name": "Maria", "age": 34}', 1.0),
        ('{"ok": true}', '{"ok": 1}', 0.0),
        ('{"ok": false}', '{"ok": 0}', 0.0),
        ('{"x": null}', "{}", 0.0),
        ('{"x": null}', '{"x": null}', 1.0),
        ('{"a": 1, "b": 2, "c": 3}', '{"a": 1, "c": 3, "d": 4}', 2 / 3),
        ('{"a": {"b": [1, {"c": true}]}}', '{"a": {"b": [1.0, {"c": true}]}}', 1.0),
        ('{"a": {"b": [1, {"c": true}]}}', '{"a": {"b": [1, {"c": 1}]}}', 0.0),
        ('{"a": {"b": 1}}', '{"a": {"b": 1, "extra": 2}}', 0.0),  # nested objects compare whole
        ('{"tags": ["x", "y"]}', '{"tags": ["y", "x"]}', 0.0),  # arrays keep their order
        ('{"name": "Maria"}', '{"name": "maria"}', 0.0),
        ('{"a": 1}', "not json", 0.0),
        ('{"a": 1}', "[1]", 0.0),
        ('{"a": 1}', '"{\\"a\\": 1}"', 0.0),  # a JSON string holding JSON is a string
        ("{}", "{}", 1.0),
        ("{}", '{"a": 1}', 1.0),
        ("{}", "[]", 0.0),
        ("{}", "nope", 0.0),
        # numbers are the decimals they are written as, past a 64-bit float's 53 bits too
        ('{"id": 9007199254740993}', '{"id": 9007199254740993.0}', 1.0),
        ('{"id": 9007199254740993.0}', '{"id": 9007199254740992.0}', 0.0),
        ('{"id": 9007199254740993}', '{"id": 9007199254740992}', 0.0),
        ('{"id": 1234567890123456789}', '{"id": 1.234567890123456789e18}', 1.0),
        ('{"n": 1e2}', '{"n": 100}', 1.0),
        ('{"n": 2.50}', '{"n": 2.5}', 1.0),
        ('{"n": -0.0}', '{"n": 0}', 1.0),
        ('{"n": 0.1}', '{"n": 0.10000000000000001}', 0.0),  # one double, two decimals
        ('{"n": [1, {"x": 2.50}]}', '{"n": [1.0, {"x": 25e-1}]}', 1.0),
    ],
)
def test_json_fields_table(expected, output, score):
    g = grade("json_fields", expected=expected, output=output)
    assert g.status == "scored"
    assert g.score == pytest.approx(score, abs=1e-12)
    assert g.details["signature"] == "json_fields|nrefs:1|fence:tolerated|equal:json-typed"


def test_json_fields_explains_matches_and_differences():
    g = grade("json_fields", expected='{"name": "Maria", "age": 34, "city": "Lyon"}',
              output='{"name": "Maria", "age": "34"}')
    assert g.score == pytest.approx(1 / 3)
    assert '1 of 3 expected fields matches: "name"' in g.explanation
    assert '"age": expected 34 (number), output "34" (string)' in g.explanation
    assert '"city" is missing (expected "Lyon" (string))' in g.explanation
    assert g.details["matched"] == ["name"]
    assert g.details["differed"] == [
        {"field": "age", "expected": "34", "output": '"34"', "reason": "type"},
        {"field": "city", "expected": '"Lyon"', "output": None, "reason": "missing"},
    ]


def test_json_fields_shows_numbers_as_written():
    g = grade("json_fields", expected='{"id": 9007199254740993.0}', output='{"id": 9007199254740992.0}')
    assert g.explanation.endswith('"id": expected 9007199254740993.0 (number), output 9007199254740992.0 (number).')


def test_json_fields_truncates_long_values():
    g = grade("json_fields", expected=json.dumps({"a": "x" * 10_000}), output=json.dumps({"a": "y" * 10_000}))
    assert len(g.explanation) < 400
    assert len(g.details["differed"][0]["expected"]) <= 200


@pytest.mark.parametrize(
    "expected, fragment",
    [
        ("[1, 2]", "an array of 2 items, not an object"),
        ('"Maria"', "a string, not an object"),
        ("34", "a number, not an object"),
        ("Maria", "not valid JSON"),
        ("", "empty"),
        ('{"a": 1', "not valid JSON: Expecting ',' delimiter"),
    ],
)
def test_json_fields_expected_not_an_object_is_not_judged(expected, fragment):
    g = grade("json_fields", expected=expected, output='{"a": 1}')
    assert g.status == "not_judged" and g.score is None
    assert fragment in g.explanation


def test_json_fields_multiple_references_take_the_best():
    g = grade("json_fields", expected=['{"a": 1, "b": 2}', "[1]", '{"a": 1, "b": 3}'], output='{"a": 1, "b": 3}')
    assert g.score == 1.0 and g.details["reference"] == 2
    assert "Best of 3 references (reference 3)" in g.explanation
    g = grade("json_fields", expected=["[1]", "nope"], output="{}")
    assert g.status == "not_judged"


def test_json_fields_threshold_and_near_miss():
    g = grade("json_fields", expected='{"name": "Maria", "age": 34}', output='{"name": "Maria", "age": "34"}',
              threshold=0.55)
    assert (g.status, g.near_miss) == ("fail", ("below_threshold",))
    g = grade("json_fields", expected='{"name": "Maria", "age": 34}', output='{"name": "Maria", "age": "34"}',
              threshold=0.5)
    assert g.status == "pass"


# --- Registry facts ------------------------------------------------------------------------


def test_registry_entries():
    assert [p.name for p in REGISTRY["json_schema"].params] == ["schema", "pre_parse"]
    assert REGISTRY["json_schema"].params[0].required
    assert REGISTRY["json_schema"].binary and not REGISTRY["json_schema"].uses_expected
    assert REGISTRY["valid_json"].params == () and REGISTRY["valid_json"].binary
    assert [p.name for p in REGISTRY["json_fields"].params] == ["threshold"]
    assert not REGISTRY["json_fields"].binary
    with pytest.raises(ValueError, match="needs the parameter 'schema'"):
        grade("json_schema", output="{}")


# --- Properties ----------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)

# Patterns that Python's re and ECMAScript read alike on any text (no $, \d, \w, \s, \b).
GOLDEN_SCHEMAS = [
    PERSON,
    {"type": ["object", "array"], "minProperties": 1, "maxItems": 2, "items": {"type": "number", "maximum": 10}},
    {"anyOf": [{"type": "string", "minLength": 2}, {"type": "integer", "multipleOf": 3}], "not": {"const": 9}},
    {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    {"properties": {"a": {"enum": [1, "1", None]}}, "patternProperties": {"^[a-c]": {"type": "string"}},
     "additionalProperties": {"type": "boolean"}},
    {"patternProperties": {"[0-9]": {}}, "unevaluatedProperties": False, "properties": {"k": True}},
    {"prefixItems": [{"type": "string"}], "items": False, "contains": {"type": "string"}, "uniqueItems": True},
    {"if": {"type": "object", "required": ["a"]}, "then": {"required": ["b"]}, "else": {"type": "array"}},
    {"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}, "propertyNames": {"maxLength": 1}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "integer"}], "additionalItems": {"type": "string"},
     "dependencies": {"a": ["b"], "c": {"required": ["x"]}}},
    {"$schema": "https://json-schema.org/draft/2019-09/schema", "unevaluatedItems": False, "items": [{}],
     "allOf": [{"patternProperties": {"^x": {}}}], "unevaluatedProperties": False},
]


@pytest.mark.parametrize("schema", GOLDEN_SCHEMAS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=json_values)
def test_golden_against_jsonschema(schema, instance):
    stock = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema)
    expected = sorted((pointer(e.absolute_path), e.validator or "false", e.message) for e in stock.iter_errors(instance)
                      if e.validator is not None)  # stock loses the path of `false` subschemas
    g = schema_grade(json.dumps(instance), schema)
    got = sorted((v["path"], v["keyword"], v["message"]) for v in g.details.get("violations", [])
                 if v["keyword"] != "false")
    # Messages are jsonschema's own words, cut in the middle past 300 characters; anyOf /
    # oneOf add "(closest alternative: …)".
    assert [(p, k) for p, k, _ in got] == [(p, k) for p, k, _ in expected]
    for (_, kw, m), (_, _, want) in zip(got, expected):
        if kw in ("anyOf", "oneOf") or len(want) > js.MESSAGE_LIMIT:
            assert m.startswith(want[:100])
        else:
            assert m == want
    assert g.passed is stock.is_valid(instance)


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_no_grader_raises_on_any_text(text):
    for name, kwargs in [("valid_json", {}), ("json_fields", {}), ("json_schema", {"schema": PERSON}),
                         ("json_schema", {"schema": {"pattern": "^a", "items": {"$ref": "#"}}, "pre_parse": ["strip_fence", "trim"]})]:
        g = grade(name, expected=text, output=text, **kwargs)
        g.explanation.encode("utf-8")
        if g.score is not None:
            assert 0.0 <= g.score <= 1.0


json_texts = json_values.map(json.dumps) | st.builds(
    lambda v, junk, i: (lambda s: s[:i] + junk + s[i:])(json.dumps(v)),
    json_values, st.sampled_from(["", ",", "]", "{", '"', "\\", "\u00a0", "```", "NaN", "1e999"]), st.integers(0, 40),
)


@settings(max_examples=150, deadline=None)
@given(json_texts, json_texts)
def test_no_grader_raises_on_json_like_text(a, b):
    for name, kwargs in [("valid_json", {}), ("json_fields", {}), ("json_schema", {"schema": PERSON})]:
        g = grade(name, expected=a, output=b, **kwargs)
        assert g.status in ("pass", "fail", "scored", "not_judged")


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=6))
def test_json_fields_identity_scores_one(obj):
    text = json.dumps(obj)
    assert grade("json_fields", expected=text, output=text).score == 1.0
    assert grade("json_fields", expected=text, output=json.dumps(obj, indent=2, ensure_ascii=False)).score == 1.0


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_valid_json_accepts_every_json_dump(value):
    text = json.dumps(value)
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        assert grade("valid_json", output=text).status == "pass"
        assert json_equal(loads(text), value)


ASCII_KEYS = st.text(string.ascii_letters + "~/", max_size=4)


@settings(max_examples=100, deadline=None)
@given(st.lists(ASCII_KEYS, min_size=1, max_size=4))
def test_pointer_round_trips(path):
    parts = pointer(path).split("/")[1:]
    assert [p.replace("~1", "/").replace("~0", "~") for p in parts] == path


# --- The parse that does not raise, its shortcut for prose, and the memo a chunk shares ----

PROSE_AND_JSON = st.text(alphabet=st.sampled_from(list(' \t\n\r\u00a0\u3000\ufeff{}[]",:0123456789-+.eEtrufalsnNIybc\\x`')))


def decoder_verdict(text):
    """What Python's decoder (with jsonparse's number hooks) says, as (value, msg, pos)."""
    try:
        return jsonparse._DECODER.decode(text), None, None
    except json.JSONDecodeError as e:
        return None, e.msg, e.pos
    except ValueError:  # a number the hooks refuse (jsonparse words that message itself)
        return None, "refused", None


@settings(max_examples=400, deadline=None)
@given(PROSE_AND_JSON | st.text())
def test_parse_says_what_the_decoder_says(text):
    value, err = parse(text)
    if text.startswith("\ufeff"):
        assert err is not None and err.pos == 0
        return
    want_value, want_msg, want_pos = decoder_verdict(text)
    if want_msg is None:
        assert err is None and json_equal(value, want_value)
    else:
        assert err is not None
        if want_msg != "refused":
            assert (err.msg, err.pos) == (want_msg, want_pos)
        with pytest.raises(JSONParseError) as raised:
            loads(text)
        assert str(raised.value) == str(err)


@pytest.mark.parametrize("text, pos", [
    ("", 0), ("   ", 3), ("\n\t x", 3), ("Hello", 0), ("\u00a0{}", 0), ("—1", 0), ("The answer is 4", 0),
    ("  x{}", 2), ("'a'", 0), ("+1", 0), (".5", 0),
])
def test_prose_is_expecting_value_where_it_starts(text, pos):
    value, err = parse(text)
    assert (err.msg, err.pos) == ("Expecting value", pos) == decoder_verdict(text)[1:]


def test_shared_parses_gives_the_same_objects_within_the_block_only():
    text = '{"a": [1, 2]}'
    assert parse(text)[0] is not parse(text)[0]
    with shared_parses():
        first = parse(text)
        assert parse(text)[0] is first[0]
        assert parse("nope")[1] is parse("nope")[1]
        with shared_parses():  # nested: the outer memo stays
            assert parse(text)[0] is first[0]
        assert parse(text)[0] is first[0]
    assert parse(text)[0] is not first[0]
    assert jsonparse._shared.memo is None


def test_json_graders_together_score_as_each_alone():
    outputs = ['{"a": 1}', '```json\n{"a": 1}\n```', "prose", ' {"a": "x"} ', "[1, 2]", '{"b": 2', "", "\u00a0{}"]
    refs = ['{"a": 1}', "prose", '{"a": 1}', '{"a": "x"}', "[1]", '{"b": 2}', "{}", "{}"]
    rows = pd.DataFrame({"record": range(1, 9), "item": [f"c{i}" for i in range(8)], "system": "v1", "repeat": "",
                         "refs": [(r,) for r in refs], "output": outputs})
    graders = [{"name": "json_schema", "schema": {"type": "object", "required": ["a"]}, "pre_parse": ["strip_fence"]},
               {"name": "valid_json"}, {"name": "json_fields"}]
    assert {g["name"] for g in graders} == JSON_PARSERS
    together = score_frame(rows, RunConfig.from_dict({"graders": graders}))
    for g in graders:
        alone = score_frame(rows, RunConfig.from_dict({"graders": [g]}))
        mine = together[together["scorer"] == g["name"]].reset_index(drop=True)
        cols = ["item", "score", "pass", "error", "near_miss", "explanation", "metadata"]
        assert mine[cols].equals(alone[cols]), g["name"]
        assert list(mine["details"]) == list(alone["details"])


def test_json_schema_column_form_with_a_broken_schema_is_the_problem_on_every_row():
    schema = {"type": "object", "$ref": "#/nowhere"}
    block = REGISTRY["json_schema"].batch([("x",), ("y",)], ["{}", "nope"], schema=schema, pre_parse=())
    for i, out in enumerate(["{}", "nope"]):
        want = schema_grade(out, schema=schema)
        assert (block.grade(i).status, block.grade(i).explanation) == (want.status, want.explanation)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(_JSON_VALUES, st.integers(0, 100))
def test_compact_is_the_encoders_text_cut_at_the_limit(value, limit):
    """compact's shortcut for strings and the literals gives the encoder's own text."""
    text = json.dumps(value[:limit] if isinstance(value, str) else value, ensure_ascii=False, separators=(", ", ": "))
    assert jsonparse.compact(value, limit) == jsonparse.shorten(jsonparse.encodable(text), limit)


@pytest.mark.parametrize("value, limit, want", [
    ("A-6841", 60, '"A-6841"'), ("x" * 100, 10, '"xxxxxxxx…'), ('a"b\n', 60, '"a\\"b\\n"'),
    ("\ud800", 60, '"\\ud800"'), (None, 60, "null"), (True, 60, "true"), (False, 3, "fa…"), (None, 0, "…"),
    pytest.param(10 ** 5000, 60, "…", id="an int too long to print"), (float("inf"), 60, "Infinity"),
    ([1, "é"], 60, '[1, "é"]'),
])
def test_compact_table(value, limit, want):
    assert jsonparse.compact(value, limit) == want


@pytest.mark.parametrize("kept, threshold", [(7, 0.8), (3, 0.4), (5, 0.6), (6, 0.7), (9, 1.0), (1, 0.2)])
def test_below_threshold_includes_a_score_exactly_a_tenth_below(kept, threshold):
    """SPEC §4 "within 0.1 below": the boundary itself counts, whichever way threshold - 0.1
    rounds (0.8 - 0.1 is 0.7000000000000001); the batch path and apply_thresholds agree."""
    from graders.config import GraderConfig, RunConfig
    from graders.scoring.parallel import score_frame
    from graders.scoring.thresholds import apply_thresholds

    exp = json.dumps({str(i): i for i in range(10)})
    out = json.dumps({str(i): i for i in range(kept)})
    g = grade("json_fields", expected=exp, output=out, threshold=threshold)
    assert g.score == kept / 10 and (g.status, g.near_miss) == ("fail", ("below_threshold",))
    just_outside = json.dumps({str(i): i for i in range(kept - 1)})
    assert grade("json_fields", expected=exp, output=just_outside, threshold=threshold).near_miss is None
    rows = pd.DataFrame({"record": [1, 2], "item": ["a", "b"], "system": ["s", "s"], "repeat": ["", ""],
                         "refs": [(exp,), (exp,)], "output": [out, just_outside]})
    with_t = score_frame(rows, RunConfig({}, (GraderConfig.make("json_fields", {"threshold": threshold}),)), workers=1)
    later = apply_thresholds(score_frame(rows, RunConfig({}, (GraderConfig.make("json_fields"),)), workers=1),
                             {"json_fields": threshold})
    assert with_t["near_miss"].tolist() == later["near_miss"].tolist() == ["below_threshold", ""]


def test_the_private_jsonschema_name_we_use_is_there():
    """engines/schema.py reads a validator's ``_resolver`` (no public accessor in jsonschema
    4.x; pyproject.toml pins it below 5): this fails loudly when a release moves it."""
    from jsonschema import Draft202012Validator
    from referencing._core import Resolver

    validator = Draft202012Validator({"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}})
    assert isinstance(validator._resolver, Resolver)
    assert validator._resolver.lookup("#/$defs/a").contents == {"type": "string"}
