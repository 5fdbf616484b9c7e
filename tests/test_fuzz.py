"""Fuzzing the three front doors (issue 32): random bytes, random JSON documents (deep and
wide), random CSV/TSV text, random regular expressions and flags and random JSON Schemas
through ``read_results``, ``grade`` (every grader, parameters drawn from the registry's own
parameter kinds) and ``score_file``.

Each call must give a result, or raise a ``ValueError`` (``ResultsFileError`` and
``ConfigError`` are ValueErrors) whose message is one non-empty line, or give a grade with
status ``error``: never another exception, never a hang (each test has a time limit, and
patterns run with short time limits). Examples are few enough for the file to run in well
under two minutes on a loaded two-core machine.

What the fuzzer found is kept at the end as plain examples (each failed before its fix).
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from graders import GRADER_NAMES, Grade, grade
from graders.engines.jsonparse import MAX_DEPTH
from graders.pipeline import ScoreRun, score_file
from graders.readers import FORMATS, ResultsFile, ResultsFileError, read_results
from graders.readers.frame import HARNESS_FORMATS
from graders.registry import REGISTRY
from graders.text.extract import NAMED_FORMS

STATUSES = ("pass", "fail", "not_judged", "error", "scored")
FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def one_line_value_error(e: BaseException) -> None:
    """The only exception a front door may raise: a ValueError with a one-line message."""
    assert isinstance(e, ValueError), f"{type(e).__name__} raised: {e!r}"
    message = str(e)
    assert message.strip(), f"{type(e).__name__} with an empty message"
    assert "\n" not in message and "\r" not in message, f"a message of several lines: {message!r}"


def call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, or the ValueError it raised (checked); anything else propagates.
    Under hypothesis, the outcome is counted (``--hypothesis-show-statistics``)."""
    try:
        result = fn(*args, **kwargs)
    except ValueError as e:
        one_line_value_error(e)
        result = e
    if currently_in_test_context():
        event(f"{fn.__name__}: {getattr(result, 'status', type(result).__name__)}")
    return result


def check_grade(g: Grade) -> None:
    assert isinstance(g, Grade)
    assert g.status in STATUSES, g.status
    assert isinstance(g.explanation, str) and g.explanation
    if g.score is not None:
        assert 0.0 <= g.score <= 1.0 and not math.isnan(g.score)
    if g.status == "error":
        assert g.passed is None and g.score is None


# --- Text, JSON, patterns, schemas ----------------------------------------------------------

ANY_CHAR = st.characters(exclude_categories=())  # lone surrogates included
TEXT = st.text(ANY_CHAR, max_size=30)
NEAR_TEXT = st.lists(st.sampled_from(list(' \t\n\r\u00a0\u3000\ufeff\x00"\',.;:!?()[]{}<>#$%^&*-+=_/\\|`~'
                                          'aAbBzZéß0123456789') + ["\ud800", "ANSWER: B", "####", "\\boxed{4}",
                                                                   "```json\n", "\n```", "1,234.5", "the"]),
                     max_size=20).map("".join)
TEXTS = TEXT | NEAR_TEXT


def deep_text(n: int, kind: str, core: str) -> str:
    return "[" * n + core + "]" * n if kind == "array" else '{"a":' * n + (core or "1") + "}" * n


JSON_SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(10**300, 10**320)
                | st.floats(allow_nan=False, allow_infinity=False) | TEXT)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(ANY_CHAR, max_size=4), inner, max_size=5), max_leaves=20)


def dumps(value, indent) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


JSON_DOCS = st.one_of(
    st.builds(dumps, JSON_VALUES, st.sampled_from([None, 0, 2, "\t"])),
    st.builds(deep_text, st.integers(0, 1_200) | st.sampled_from([499, 500, 501, 5_000, 20_000, MAX_DEPTH + 1]),
              st.sampled_from(["array", "object"]), st.sampled_from(["", "1", '"x"', "NaN", "1e999", "[1,]", '{"b": 2}'])),
    st.builds(lambda n, v: json.dumps([v] * n), st.integers(100, 3_000), JSON_SCALARS),  # wide
    st.builds(lambda doc, at, junk: doc[:at] + junk + doc[at:],  # broken
              st.builds(dumps, JSON_VALUES, st.none()), st.integers(0, 60),
              st.sampled_from(["", ",", "]", "{", '"', "\\", "\u00a0", "```", "NaN", "1e999", "\x00", "\ud800"])),
)
JSON_TEXTS = JSON_DOCS | st.builds(lambda d: "```json\n" + d + "\n```", JSON_DOCS)

PATTERNS = st.one_of(
    st.lists(st.sampled_from(list("ab.()[]{}|*+?^$\\-dDwWsSbBpPkuqn0123456789,:=!<>/&~ ")
                             + ["(?<n>", "\\k<n>", "(?P<n>", "(?i)", "\\p{L}", "[^", "\\u{1F600}", "(?=", "(?<!"]),
             max_size=14).map("".join),
    st.sampled_from([
        "(a+)+$", "^(a|aa)+$", "(?P<n>a)", "(?P=n)", "\\A\\Z", "(?>a)", "a++", "\\p{Lu}+", "(?<=a)b", "[\\q{abc}]",
        "[[a-z]--[aeiou]]", "a{2,1}", "(?<a>x)\\k<a>", "\\1(a)", "[", "(", ")", "*", "", "\\", "x" * 500,
        "(?:w0|w1|w2|w3)", "[" * 50 + "a" + "]" * 50, "(" * 300 + "a" + ")" * 300, "^\\d+(\\.\\d+)?$",
    ]),
)
FLAGS = st.text(alphabet=st.sampled_from(list("dgimsuvyxI")), max_size=4) | st.sampled_from(["", "i", "v", "uv", "gg"])

TYPES = st.sampled_from(["object", "array", "string", "number", "integer", "boolean", "null", "thing"])
SCHEMA_LEAF = st.booleans() | st.fixed_dictionaries({}, optional={
    "type": TYPES | st.lists(TYPES, max_size=3),
    "minimum": st.integers(-5, 5) | st.floats(allow_nan=False),
    "maxLength": st.integers(-1, 5),
    "pattern": PATTERNS,
    "enum": st.lists(JSON_SCALARS, max_size=3),
    "const": JSON_VALUES,
    "required": st.lists(st.text(max_size=3), max_size=3),
    "format": st.sampled_from(["email", "date-time", "regex", "nope"]),
    "uniqueItems": st.booleans(),
})
SCHEMAS = st.recursive(SCHEMA_LEAF, lambda inner: st.fixed_dictionaries({}, optional={
    "properties": st.dictionaries(st.text(ANY_CHAR, max_size=3), inner, max_size=3),
    "patternProperties": st.dictionaries(PATTERNS, inner, max_size=2),
    "items": inner,
    "prefixItems": st.lists(inner, max_size=2),
    "anyOf": st.lists(inner, min_size=1, max_size=3),
    "oneOf": st.lists(inner, min_size=1, max_size=2),
    "not": inner,
    "if": inner, "then": inner, "else": inner,
    "additionalProperties": inner,
    "unevaluatedProperties": inner,
    "$ref": st.sampled_from(["#", "#/$defs/x", "#/nope", "http://example.com/s.json", "other.json"]),
    "$defs": st.dictionaries(st.just("x"), inner, max_size=1),
    "$schema": st.sampled_from(["http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema",
                                "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-03/schema#",
                                "nonsense", "https://json-schema.org/draft/2020-12/schema"]),
    "frobnicate": JSON_SCALARS,
}), max_leaves=8)

EXTRACTS = st.one_of(
    st.none(), st.sampled_from(NAMED_FORMS), st.integers(0, 9).flatmap(
        lambda i: st.sampled_from(["nope", "", 3, ["choice"], {"regex": "a", "bogus": 1}]) if i == 0 else st.none()),
    st.fixed_dictionaries({"regex": PATTERNS}, optional={
        "group": st.integers(-1, 3) | st.sampled_from(["n", "x", 1.5, True]), "flags": FLAGS,
        "which": st.sampled_from(["first", "last", "middle"])}),
    st.fixed_dictionaries({"json_path": st.sampled_from(["$", "$.a", "$.a.b[0]", "$[0]", "$[-1]", "$['a']", "$..a",
                                                         "$[*]", "a.b", "$.", "$[", "$[99999999999999999999]"])}),
    st.builds(json.dumps, st.fixed_dictionaries({"json_path": st.just("$.a")})),
)


# --- Parameters from the registry's kinds -----------------------------------------------------

INVALID = st.sampled_from([None, "bogus", -1, float("nan"), float("inf"), True, [], {}, 10**400])


def param_strategy(name: str, p, invalid_one_in: int = 25) -> st.SearchStrategy:
    """A value for parameter ``p`` of grader ``name``, drawn by its kind; now and then
    (one time in ``invalid_one_in``) an invalid one, which must raise a ValueError."""
    kind = p.kind
    if kind == "choice":
        valid = st.sampled_from(p.choices)
    elif kind == "tolerance":
        valid = st.floats(0, 1e6) | st.integers(0, 10)
    elif kind == "threshold":
        valid = st.none() | st.floats(0, 1) | st.sampled_from([0, 1])
    elif kind == "seconds":
        # Short limits, so a catastrophic pattern costs little; the shortest ones race the end
        # of a match (test_a_time_limit_near_a_matchs_own_time_never_raises).
        valid = st.floats(1e-6, 0.25) | st.floats(1e-6, 1e-3)
    elif kind == "text":
        valid = PATTERNS if p.name == "pattern" else FLAGS if p.name == "flags" else TEXTS
    elif kind == "pipeline":
        valid = st.just("squad") | st.lists(st.sampled_from(p.choices), max_size=4)
    elif kind == "steps":
        valid = st.lists(st.sampled_from(p.choices), max_size=2, unique=True)
    elif kind == "schema":
        valid = SCHEMAS | SCHEMAS.map(json.dumps) | st.sampled_from(["{", "[]", "1", "null", '{"type": 5}'])
    elif kind == "extract":
        valid = EXTRACTS
    else:
        raise AssertionError(f"a parameter kind this fuzzer does not know: {kind!r} ({name}.{p.name})")
    return st.integers(1, invalid_one_in).flatmap(lambda i: INVALID if i == 1 else valid)


def params_strategy(name: str, invalid_one_in: int = 25) -> st.SearchStrategy:
    spec = REGISTRY[name]
    required = {p.name: param_strategy(name, p, invalid_one_in) for p in spec.params if p.required}
    optional = {p.name: param_strategy(name, p, invalid_one_in) for p in spec.all_params if not p.required}
    return st.fixed_dictionaries(required, optional=optional)


def test_the_fuzzer_knows_every_parameter_kind():
    for name in GRADER_NAMES:
        for p in REGISTRY[name].all_params:
            param_strategy(name, p)


EXPECTED = st.none() | TEXTS | JSON_TEXTS | st.lists(TEXTS | JSON_TEXTS, max_size=3) | st.just([])
OUTPUTS = TEXTS | JSON_TEXTS | st.text(max_size=2_000) | st.builds(lambda s, n: s * n, TEXTS, st.integers(1, 300))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", GRADER_NAMES)
@settings(FUZZ, max_examples=40)
@given(data=st.data())
def test_grade_gives_a_grade_or_a_value_error(name, data):
    params = data.draw(params_strategy(name), label="params")
    expected = data.draw(EXPECTED, label="expected")
    output = data.draw(OUTPUTS, label="output")
    result = call(grade, name, expected=expected, output=output, **params)
    if not isinstance(result, ValueError):
        check_grade(result)


@pytest.mark.timeout(300)
@settings(FUZZ, max_examples=60)
@given(st.sampled_from(["regex", "json_schema"]), PATTERNS, FLAGS, SCHEMAS, OUTPUTS)
def test_patterns_and_schemas_never_escape(name, pattern, flags, schema, output):
    params = {"pattern": pattern, "flags": flags, "timeout": 0.1} if name == "regex" else {"schema": schema}
    result = call(grade, name, output=output, **params)
    if not isinstance(result, ValueError):
        check_grade(result)


# --- Results files ------------------------------------------------------------------------------

HEADER_NAMES = ["id", "case_id", "expected", "reference", "answer", "output", "response", "output_b", "baseline",
                "version", "repeat", "expected_kind", "assert", "input", "metadata.x", "", "id ", "ID", "notes"]
CELLS = st.one_of(
    NEAR_TEXT, st.sampled_from(["", "NA", "null", "007", "3.10", "-1", "1e5", '""', '"', "a,b", "a\tb", "a\nb", "\r\n",
                                '["x", "y"]', "any-of", "exact", "label", "bogus", "0", "1", "2.5", "-0", "true"]),
    st.lists(st.fixed_dictionaries({"type": st.sampled_from(
        ["contains", "not-contains", "regex", "is-json", "json-schema", "equals", "numeric", "bleu", "llm-rubric",
         "icontains-any", "starts-with", "not-regex", "rouge-l", "javascript", ""])},
        optional={"value": PATTERNS | JSON_VALUES, "threshold": st.floats(-1, 2) | st.none(),
                  "timeout": st.floats(1e-6, 0.2) | st.sampled_from([-1, 0, "1", None]), "flags": FLAGS,
                  "extract": EXTRACTS}), max_size=3).map(json.dumps),
)


def delimited(header, rows, sep, newline, quote_all, bom) -> str:
    def cell(c: str) -> str:
        if quote_all or any(ch in c for ch in (sep, '"', "\n", "\r")):
            return '"' + c.replace('"', '""') + '"'
        return c
    lines = [sep.join(cell(c) for c in header)] + [sep.join(cell(c) for c in row) for row in rows]
    return ("\ufeff" if bom else "") + newline.join(lines) + newline


SEPARATORS = (st.sampled_from([",", "\t"]), st.sampled_from(["\n", "\r\n", "\n", "\r\n", "\r"]), st.booleans(), st.booleans())
CSV_TEXT = st.builds(  # anything: ragged rows, odd headers
    delimited,
    st.lists(st.sampled_from(HEADER_NAMES), min_size=1, max_size=6),
    st.lists(st.lists(CELLS, min_size=0, max_size=7), max_size=6),
    *SEPARATORS,
)
IDS = st.integers(0, 4).map(str) | st.sampled_from(["", "a", " 1", "1.0"])
RESULTS_HEADERS = st.lists(st.sampled_from([n for n in HEADER_NAMES if n not in ("id", "expected", "output")]),
                           max_size=3, unique=True).map(
    lambda extra: ["id", "expected", "output", *extra])
RESULTS_CSV = RESULTS_HEADERS.flatmap(lambda header: st.builds(  # a results table, each row as long as the header
    delimited, st.just(header),
    st.lists(st.tuples(IDS, st.lists(CELLS, min_size=len(header) - 1, max_size=len(header) - 1))
             .map(lambda row: [row[0], *row[1]]), min_size=1, max_size=6),
    *SEPARATORS))
ROW_OBJECTS = st.lists(st.dictionaries(st.sampled_from(HEADER_NAMES), CELLS | JSON_VALUES, max_size=6), max_size=5)
RESULT_OBJECTS = st.lists(st.fixed_dictionaries(
    {"id": IDS | st.integers(), "output": CELLS | JSON_TEXTS | JSON_VALUES},
    optional={"expected": CELLS | JSON_VALUES, "assert": CELLS.map(lambda c: json.loads(c) if c.startswith("[{") else c),
              "metadata": st.dictionaries(st.text(max_size=3), JSON_VALUES, max_size=3), "version": IDS,
              "repeat": IDS | st.integers(-1, 2), "output_b": CELLS}), min_size=1, max_size=5)
JSON_FILES = st.one_of(
    (ROW_OBJECTS | RESULT_OBJECTS).map(lambda rows: "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)),
    (ROW_OBJECTS | RESULT_OBJECTS).map(json.dumps),
    (ROW_OBJECTS | RESULT_OBJECTS).map(lambda rows: json.dumps({"rows": rows})),
    st.builds(lambda d: '{"id": "1", "expected": "x", "output": %s}' % d, JSON_DOCS),
    JSON_DOCS,
)


def encoded(text: str, how: str) -> bytes:
    """UTF-8 (lone surrogates written as they are, which is not UTF-8), UTF-8 with them
    replaced, or UTF-16 (which no reader takes)."""
    if how == "utf-16":
        return text.encode("utf-16", "surrogatepass")
    return text.encode("utf-8", "surrogatepass" if how == "raw" else "replace")


FILE_BYTES = st.one_of(
    st.binary(max_size=400),
    st.builds(encoded, CSV_TEXT | RESULTS_CSV | JSON_FILES, st.sampled_from(["utf-8", "raw", "utf-16"])),
    st.builds(lambda b, t: b + t.encode("utf-8", "surrogatepass"),
              st.sampled_from([b"PK\x03\x04", b"PAR1", b'{"version": 2, "eval": ', b"\xff\xfe", b'{"results": ']),
              TEXT),
)
NAMES = st.none() | st.sampled_from(["r.csv", "r.tsv", "r.jsonl", "r.json", "r.txt", "r.parquet", "r.eval",
                                     "samples_gsm8k.jsonl", "results.json", "", "r", "../r.csv"])


def check_results_file(result) -> None:
    if isinstance(result, ValueError):
        return
    assert isinstance(result, ResultsFile)
    assert list(result.frame.columns) == list(result.columns)


@pytest.mark.timeout(300)
@settings(FUZZ, max_examples=150)
@given(FILE_BYTES, NAMES, st.booleans())
def test_read_results_gives_a_file_or_a_value_error(data, name, header):
    check_results_file(call(read_results, data))
    check_results_file(call(read_results, data, name=name, header=header))
    for fmt in FORMATS + HARNESS_FORMATS + ("bogus",):
        check_results_file(call(read_results, data, format=fmt, name=name))


GRADER_CONFIGS = st.lists(st.sampled_from(GRADER_NAMES), min_size=1, max_size=3, unique=True).flatmap(
    lambda names: st.tuples(*(params_strategy(n, 80).map(lambda p, n=n: {"name": n, **p}) for n in names)).map(list))
COLUMNS = st.dictionaries(st.sampled_from(["id", "expected", "output", "output_b", "version", "assert", "x"]),
                          st.sampled_from(HEADER_NAMES) | st.none(), max_size=2)
CONFIGS = st.fixed_dictionaries({"graders": GRADER_CONFIGS}, optional={
    "overall": st.sampled_from([None, "all", "any", None, "all", "any", "most"]),
    "columns": st.integers(0, 4).flatmap(lambda i: COLUMNS if i == 0 else st.just({})),
})


@pytest.mark.timeout(300)
@settings(FUZZ, max_examples=100)
@given(st.one_of(*[st.builds(encoded, RESULTS_CSV, st.just("utf-8"))] * 3, st.builds(encoded, JSON_FILES, st.just("utf-8")),
                 st.builds(encoded, CSV_TEXT, st.just("utf-8")), st.binary(max_size=200)),
       CONFIGS,
       st.sampled_from([None, None, None, *FORMATS]))
def test_score_file_gives_a_run_or_a_value_error(data, config, fmt):
    result = call(score_file, data, config, format=fmt, workers=1)
    if isinstance(result, ValueError):
        return
    assert isinstance(result, ScoreRun)
    scored = result.scores()
    names = {g["name"] for g in config["graders"]} | {"overall"}
    assert all(s in names or s.startswith("assert:") for s in scored["scorer"])
    assert scored["score"].dropna().between(0, 1).all()
    json.dumps(result.summary, ensure_ascii=False, allow_nan=False)


# --- Bugs the fuzzer found ------------------------------------------------------------------


def test_found_read_results_edges():
    """Fixed in graders/readers/jsonfiles.py: a JSON line followed by U+00A0 (``str.strip``
    takes it for space, JSON does not) raised json's own JSONDecodeError for the whole file,
    as did a line nested at the C decoder's very depth limit (a RecursionError: the line
    was decoded again, deeper, to name its kind); a field named "\\r" broke a message in two
    (there and in readers/promptfoo.py and readers/inspect_log.py)."""
    e = read_results_error(b'{"": {}}\xc2\xa0')
    assert str(e) == "no readable rows: 1 line could not be read (line 1 is not JSON (Extra data at column 9))"
    f = read_results(b'["x"]\xc2\xa0\n{"id": "1"}', format="jsonl")
    assert f.records == (2,) and f.unreadable == ((1, "is not JSON (Extra data at column 6)"),)
    f = read_results(b'{"id": "1", "output": "x"}\xc2\xa0\n{"id": "2", "output": "y"}')
    assert f.records == (2,) and f.unreadable[0][0] == 1  # as a line starting with U+00A0 always was
    for n in range(900, 1_000):  # wherever the caller's stack puts the limit
        data = ("[" * n + "]" * n + "\n" + '{"id": "1"}').encode()
        f = call(read_results, data, format="jsonl")
        assert isinstance(f, ResultsFile) and f.unreadable[0][0] == 1, (n, f)
    for fmt, ending in [("json-rows", '(its fields: "\\r", a)'), ("promptfoo", '(its keys: "\\r", a)'),
                        ("inspect-json", '(its keys: "\\r", a)')]:  # also readers/promptfoo.py, inspect_log.py
        assert str(read_results_error(b'{"\\r": null, "a": 1}', format=fmt)).endswith(ending)


def read_results_error(data: bytes, **kwargs) -> ResultsFileError:
    with pytest.raises(ResultsFileError) as e:
        read_results(data, **kwargs)
    one_line_value_error(e.value)
    return e.value


@pytest.mark.timeout(300)
def test_a_time_limit_near_a_matchs_own_time_never_raises():
    """Found by this file: V8's time limit firing just as a match ended stopped the next call
    (JSTerminatedException escaped grade()); the isolate now runs that call again."""
    for _ in range(1_000):  # about 1 call in 70 failed: within a few hundred
        for timeout in (5e-5, 2e-5, 1e-4):
            check_grade(grade("regex", output="hello", pattern="a", timeout=timeout))
