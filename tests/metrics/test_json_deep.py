"""JSON nested deeper than Python's C decoder goes (issue 32): parsed without recursion up
to ``jsonparse.MAX_DEPTH`` (100,000 levels), refused clearly past it, and every JSON
grader safe on deep values.

node's ``JSON.parse`` is the reference for what is JSON: its answers are asked of node when
it is on PATH, else taken from the table below (node 20 reads every depth here; it has no
limit short of memory). Python's own C decoder, given room to recurse (a thread with a
large stack and a raised recursion limit), is the reference for the messages of malformed
deep texts: ``jsonparse._read`` must say what it says, where it says it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders import grade
from graders.config import RunConfig
from graders.engines import jsonparse
from graders.engines.jsonparse import (
    C_DEPTH,
    MAX_DEPTH,
    compact,
    depth,
    json_equal,
    parse,
    pointer,
    shared_parses,
)
from graders.registry import REGISTRY
from graders.scoring.parallel import score_frame

DEPTHS = (499, 500, 501, 600, 1_000, 10_000, 100_000)
KINDS = ("array", "object")


def nest(n: int, kind: str, core: str | None = None) -> str:
    """``n`` levels: ``[[…]]`` (the innermost ``[]``, or ``[core]``) or ``{"a":{"a":…1}}``."""
    if kind == "array":
        return "[" * n + (core or "") + "]" * n
    return '{"a":' * n + (core or "1") + "}" * n


def nested_value(n: int, kind: str):
    value = [] if kind == "array" else 1
    for _ in range(n - 1 if kind == "array" else n):
        value = [value] if kind == "array" else {"a": value}
    return value


# node 20's JSON.parse on nest(n, kind): it reads them all (10,000,000 levels read too).
NODE_TABLE = {(n, kind): "ok" for n in DEPTHS for kind in KINDS}
NODE_SCRIPT = """
const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(texts.map(t => { try { JSON.parse(t); return "ok"; } catch (e) { return "error"; } })));
"""


@pytest.fixture(scope="module")
def node_answers() -> dict[tuple[int, str], str]:
    node = shutil.which("node")
    if node is None:
        return NODE_TABLE
    cases = [(n, kind) for n in DEPTHS for kind in KINDS]
    run = subprocess.run([node, "-e", NODE_SCRIPT], input=json.dumps([nest(n, k) for n, k in cases]),
                         capture_output=True, text=True, timeout=120, check=True)
    answers = dict(zip(cases, json.loads(run.stdout)))
    assert answers == NODE_TABLE  # the table above is what node says
    return answers


# --- valid_json: as deep as node reads, up to the bound ------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", DEPTHS)
def test_valid_json_passes_deep_json_as_node_does(n, kind, node_answers):
    assert node_answers[(n, kind)] == "ok"
    text = nest(n, kind)
    g = grade("valid_json", output=text)
    assert g.status == "pass", g.explanation
    assert g.details["type"] == kind
    assert g.details["signature"] == f"valid_json|fence:tolerated|numbers:finite|max_depth:{MAX_DEPTH}"
    value, err = parse(text)
    assert err is None and depth(value) == n
    assert json_equal(value, nested_value(n, kind))


def test_the_bound_is_at_least_as_deep_as_the_issue_asks():
    assert MAX_DEPTH == 100_000 and C_DEPTH == 500
    assert grade("valid_json", output="```json\n" + nest(MAX_DEPTH, "array") + "\n```").status == "pass"


@pytest.mark.parametrize("text, message", [
    (nest(MAX_DEPTH + 1, "array"), "nesting deeper than 100,000 levels: line 1 column 100001 (char 100000)"),
    ("[" * (MAX_DEPTH + 1), "nesting deeper than 100,000 levels: line 1 column 100001 (char 100000)"),
    (nest(MAX_DEPTH + 1, "object"), "nesting deeper than 100,000 levels: line 1 column 500001 (char 500000)"),
    ("[\n" * (MAX_DEPTH + 5), "nesting deeper than 100,000 levels: line 100001 column 1 (char 200000)"),
    ('[{"a": [' * 40_000, "nesting deeper than 100,000 levels: line 1 column 266666 (char 266665)"),
    # Read in order: what fails first is what is said, as a parser that stops there says it.
    ("[1 2" + "[" * (MAX_DEPTH + 1), "Expecting ',' delimiter: line 1 column 4 (char 3)"),
    ("[" * MAX_DEPTH + "x" + "[" * 10, "Expecting value: line 1 column 100001 (char 100000)"),
])
def test_past_the_bound_is_a_clear_fail(text, message):
    value, err = parse(text)
    assert value is None and str(err) == message
    g = grade("valid_json", output=text)
    assert g.status == "fail" and message in g.explanation


def test_brackets_inside_strings_do_not_nest():
    text = json.dumps(["[" * (MAX_DEPTH + 10), {"k": "{" * (MAX_DEPTH + 10)}, '\\"[[[' * 1000])
    assert grade("valid_json", output=text).status == "pass"
    text = "[" * 600 + json.dumps("]" * 700 + '\\"' + "[" * 700) + "]" * 600
    value, err = parse(text)
    assert err is None and depth(value) == 600


def test_deep_text_parses_without_recursion_on_a_nearly_full_stack():
    """With about 40 frames left before Python's recursion limit, 100,000 levels still
    parse (the C decoder would need a frame per level: the reader has none to spare)."""
    def at(frames_left: int, fn):
        frame, used = sys._getframe(), 0
        while frame is not None:
            frame, used = frame.f_back, used + 1
        def down(k):
            return fn() if k <= 0 else down(k - 1)
        return down(sys.getrecursionlimit() - used - frames_left)

    for text in (nest(MAX_DEPTH, "array"), nest(400, "object"), nest(MAX_DEPTH, "object")):
        value, err = at(40, lambda t=text: parse(t))
        assert err is None and depth(value) == depth(parse(text)[0])


# --- The iterative reader says what the C decoder says -------------------------------------


def c_decoder(text: str):
    """Python's C decoder with jsonparse's hooks, given room to recurse: (kind, …)."""
    out = {}

    def work():
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 250_000))
        try:
            out["v"] = ("ok", jsonparse._DECODER.decode(text))
        except json.JSONDecodeError as e:
            out["v"] = ("error", e.msg, e.pos)
        except ValueError as e:  # a number the hooks refuse, or too many digits for int()
            out["v"] = ("refused", jsonparse._TOO_MANY_DIGITS if "integer string" in str(e) else str(e))
        finally:
            sys.setrecursionlimit(limit)

    if not jsonparse._deeper_than(text, 200):
        work()
        return out["v"]
    size = threading.stack_size(256 * 1024 * 1024)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(size)
    return out["v"]


def reader(text: str, read=jsonparse._read):
    try:
        return ("ok", read(text))
    except jsonparse.JSONParseError as e:
        if e.msg == jsonparse._TOO_MANY_DIGITS or "64-bit float" in e.msg or "is not a JSON value" in e.msg:
            assert text[e.pos] in "-0123456789NI"  # at the number or constant refused
            return ("refused", e.msg)
        return ("error", e.msg, e.pos)


def same_values(a, b) -> bool:
    """Equal, with the same Python types at every place (int, float, JsonFloat, …)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y) or (not isinstance(x, (list, dict)) and repr(x) != repr(y)):
            return False
        if isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
    return True


def assert_same(text: str) -> None:
    want, got = c_decoder(text), reader(text)
    if want[0] == "ok":
        assert got[0] == "ok" and same_values(got[1], want[1]), text[:200]
    else:
        assert got == want, text[:200]


CORES = [
    "", "1", "-0", "0.5", "2.50", "1e2", "1E+2", "-1.5e-3", "9007199254740993", "9007199254740993.0",
    "1" + "0" * 400, "1e999", "-1e999", "9" * 4301, "NaN", "Infinity", "-Infinity", "-", "01", "1.", "1e", "1e+",
    "true", "false", "null", "nul", "tru", '"x"', '"\\ud800"', '"\ud800"', '"\\x"', '"\\u12"', '"\x01"', '"abc',
    '{"a": 1, "a": 2, "b": 3}', '{"a" 1}', '{"a": 1,}', '{,}', "{'a': 1}", "[1,]", "[1 2]", "[,1]", '{"a":}',
    " \t\n\r1 \t\n\r", "\u00a0", "1 2", '{"k": [1, {"z": null}], "": ""}', "[[[]]]", "]", "}", '"\\"]"',
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(CORES) | st.text(alphabet='[]{}",:0123456789-+.eEtrufalsnNIy\\ \n\x01', max_size=8),
                max_size=4).map(" ,".join))
def test_reader_matches_the_c_decoder_on_shallow_texts(text):
    assert_same(text)
    assert_same("[" + text + "]")
    assert_same('{"k": ' + text + "}")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from((499, 500, 501, 600, 1_000, 5_000)), st.sampled_from(KINDS), st.sampled_from(CORES),
       st.sampled_from(("keep", "cut", "insert", "delete", "extra")), st.integers(0, 10**9),
       st.sampled_from(list(",:]}[{\"x 1")))
def test_malformed_deep_texts_say_what_the_c_decoder_says(n, kind, core, how, where, junk):
    text = nest(n, kind, core if kind == "array" else (core or "1"))
    at = where % (len(text) + 1)
    text = {"keep": text, "cut": text[:at], "insert": text[:at] + junk + text[at:],
            "delete": text[:at] + text[at + 1:], "extra": text + " " + junk}[how]
    assert_same(text)
    value, err = parse(text)  # the grader's entry: the same answer as the reader's
    got = reader(text)
    assert (got[0] == "ok") == (err is None)
    if err is not None and got[0] == "error":
        assert (err.msg, err.pos) == got[1:]


def test_numbers_deep_down_are_the_c_paths_numbers():
    core = '[0, -0, 1.5, 2.50, 1e2, 9007199254740993, 9007199254740993.0, 1e-999, "\\ud800", true, null, {"a": 1, "a": 2}]'
    deep, shallow = parse(nest(1_000, "array", core))[0], parse(core)[0]
    for _ in range(1_000):  # the 1,000 arrays around the core
        (deep,) = deep
    assert same_values(deep, shallow)
    assert [type(x).__name__ for x in deep[:7]] == ["int", "int", "float", "JsonFloat", "JsonFloat", "int", "JsonFloat"]


# --- The JSON graders on deep values --------------------------------------------------------

STATUSES = ("pass", "fail", "scored", "not_judged", "error")


def graded(name: str, **kw):
    g = grade(name, **kw)  # never raises: no RecursionError, no other exception
    assert g.status in STATUSES
    g.explanation.encode("utf-8")
    json.dumps(dict(g.details), ensure_ascii=False)
    return g


@pytest.mark.parametrize("n", (600, 1_000, 10_000, MAX_DEPTH - 1))
@pytest.mark.parametrize("kind", KINDS)
def test_json_fields_compares_deep_values_in_full(n, kind):
    deep = nest(n, kind)
    other = nest(n, kind, "1" if kind == "array" else "2")  # differs only at the bottom
    doc = '{"deep": %s, "x": 1}'
    assert graded("json_fields", expected=doc % deep, output=doc % deep).score == 1.0
    g = graded("json_fields", expected=doc % deep, output=doc % other)
    assert g.score == 0.5 and g.details["differed"][0]["reason"] == "value"
    assert len(g.details["differed"][0]["expected"]) <= 200
    g = graded("json_fields", expected=doc % deep, output='{"deep": "flat", "x": 1}', threshold=0.4)
    assert (g.score, g.status) == (0.5, "pass")
    assert graded("json_fields", expected='{"x": 1}', output=doc % deep).score == 1.0


def test_json_fields_on_deep_expected_values_that_are_not_objects_or_too_deep():
    assert graded("json_fields", expected=nest(MAX_DEPTH, "array"), output="{}").status == "not_judged"
    g = graded("json_fields", expected='{"a": %s}' % nest(MAX_DEPTH, "array"), output='{"a": 1}')
    assert g.status == "not_judged" and "nesting deeper than 100,000 levels" in g.explanation
    g = graded("json_fields", expected='{"a": 1}', output='{"a": %s}' % nest(MAX_DEPTH, "array"))
    assert g.score == 0.0 and "nesting deeper than 100,000 levels" in g.explanation


TOO_DEEP = "too deeply to validate"


@pytest.mark.parametrize("n", (600, 1_000, 10_000, MAX_DEPTH))
def test_json_schema_on_deep_outputs(n):
    arrays, objects = nest(n, "array"), nest(n, "object")
    # A schema that does not descend judges any depth.
    assert graded("json_schema", output=arrays, schema={"type": "array"}).status == "pass"
    assert graded("json_schema", output=objects, schema={"type": "object", "required": ["a"]}).status == "pass"
    g = graded("json_schema", output=objects, schema={"additionalProperties": False, "required": ["b"]})
    assert g.status == "fail" and "'a' was unexpected" in g.explanation and "'b' is a required" in g.explanation
    g = graded("json_schema", output=objects, schema={"maxProperties": 0})  # its message quotes the value
    assert g.status == "fail" or (g.status == "error" and TOO_DEEP in g.explanation)
    # One that descends all the way, or quotes the deep value in its message: an error
    # saying the output is nested too deeply to validate, never an exception.
    quoted = max(n, 1_000)  # repr() of a value 1,000 deep passes the recursion limit
    for schema, output, levels in [
        ({"items": {"$ref": "#"}}, arrays, n),
        ({"properties": {"a": {"$ref": "#"}}}, objects, n),
        ({"type": "object"}, nest(quoted, "array"), quoted),
        ({"properties": {"a": {"type": "string"}}}, nest(quoted, "object"), quoted),
    ]:
        g = graded("json_schema", output=output, schema=schema)
        assert g.status == "error" and f"the output is nested {levels:,} levels deep, {TOO_DEEP}" in g.explanation
    g = graded("json_schema", output=nest(MAX_DEPTH + 1, "array"), schema={"type": "array"})
    assert g.status == "fail" and "nesting deeper than 100,000 levels" in g.explanation


def test_json_schema_on_deep_schema_values():
    """The schema's own deep values (``const``, ``enum``) against deep and shallow outputs."""
    for n in (300, 600, 2_000, 10_000):
        for output in (nest(n, "array"), "[1]", nest(n // 2, "array")):
            for schema in ({"const": nested_value(n, "array")}, {"enum": [1, nested_value(n, "array")]}):
                g = graded("json_schema", output=output, schema=schema)
                if g.status == "error":
                    assert TOO_DEEP in g.explanation or "The schema nests too deeply to check" in g.explanation
    assert graded("json_schema", output="[1]", schema={"const": nested_value(20, "array")}).status == "fail"
    g = graded("json_schema", output="[1]", schema={"const": nested_value(1_000, "array")})
    assert (g.status, g.explanation) == ("error", "The schema nests too deeply to check.")
    with pytest.raises(ValueError, match="nested too deeply to read"):  # the parameter's own check
        grade("json_schema", output="1", schema='{"const": %s}' % nest(MAX_DEPTH, "array"))


def test_a_deep_schema_that_stops_validation_is_named():
    """Where the output is shallow and the schema deep (it passed its meta-schema, then
    validation ran out of recursion), the message names the schema's depth."""
    from graders.engines import schema as engine

    assert engine._too_deep(1, nested_value(150, "array")).startswith(
        f"Validation stopped: the schema is nested 150 levels deep, {TOO_DEEP}")
    assert engine._too_deep(nested_value(150, "object"), {}).startswith(
        f"Validation stopped: the output is nested 150 levels deep, {TOO_DEEP}")
    assert "schema's recursive references" in engine._too_deep([1], {"items": {"$ref": "#"}})


def test_json_schema_column_form_and_the_batch_layer_on_deep_rows():
    outputs = [nest(n, kind) for n in (10, 600, 10_000, MAX_DEPTH, MAX_DEPTH + 1) for kind in KINDS]
    schema = {"anyOf": [{"type": "array", "maxItems": 1, "items": {"$ref": "#"}}, {"type": "object", "required": ["a"]}]}
    block = REGISTRY["json_schema"].batch([("",)] * len(outputs), outputs, schema=schema, pre_parse=())
    statuses = [grade("json_schema", output=out, schema=schema).status for out in outputs]
    assert [block.grade(i).status for i in range(len(outputs))] == statuses
    assert statuses[:2] == ["pass", "pass"] and "error" in statuses and statuses[-2:] == ["fail", "fail"]
    rows = pd.DataFrame({"record": range(1, len(outputs) + 1), "item": [f"c{i}" for i in range(len(outputs))],
                         "system": "v1", "repeat": "", "refs": [('{"a": %s}' % nest(600, "array"),)] * len(outputs),
                         "output": outputs})
    graders = [{"name": "json_schema", "schema": schema}, {"name": "valid_json"}, {"name": "json_fields"}]
    scored = score_frame(rows, RunConfig.from_dict({"graders": graders}), workers=1)
    column = {name: scored[scored["scorer"] == name]["pass"].tolist() for name in ("json_schema", "valid_json")}
    assert column["valid_json"] == ["true"] * 8 + ["false"] * 2
    assert column["json_schema"] == [{"pass": "true", "fail": "false", "error": ""}[st] for st in statuses]
    assert len(scored[scored["scorer"] == "json_fields"]) == len(outputs)


def test_deep_values_in_the_helpers():
    value = nested_value(MAX_DEPTH, "object")
    assert depth(value) == MAX_DEPTH and depth(1) == 0 and depth([]) == 1 and depth([[], {"a": [1]}]) == 3
    assert json_equal(value, nested_value(MAX_DEPTH, "object"))
    assert not json_equal(value, nested_value(MAX_DEPTH - 1, "object"))
    shallow = json.dumps(nested_value(30, "object"), ensure_ascii=False, separators=(", ", ": "))
    assert compact(value, 60) == jsonparse.shorten(shallow, 60)
    assert pointer(["a"] * MAX_DEPTH) == "/a" * MAX_DEPTH
    with shared_parses():
        text = nest(MAX_DEPTH, "array")
        assert parse(text)[0] is parse(text)[0]


# --- answer extraction over deep outputs (SPEC §9 json_path) -----------------------------


@pytest.mark.parametrize("depth", [600, 1_000, 10_000])
def test_json_path_extraction_reads_deep_outputs(depth):
    """A valid output nested past Python's decoder: the path's value is found and written
    as compact JSON, numbers as written, as on a shallow output."""
    g = grade("exact", expected=nest(depth - 1, "array"), output=nest(depth, "array"), extract={"json_path": "$[0]"})
    assert g.status == "pass", g.explanation
    deep = '{"a": ' + "[" * depth + "1.50, -0e0" + "]" * depth + "}"
    g = grade("exact", expected="[1.50,-0e0]", output=deep, extract={"json_path": "$.a" + "[0]" * (depth - 1)})
    assert g.status == "pass", g.explanation
    fenced = "```json\n" + '{"k": ' + nest(depth, "object") + "}\n```"
    assert grade("exact", expected=nest(depth, "object"), output=fenced, extract={"json_path": "$.k"}).status == "pass"


def test_json_path_on_deep_invalid_json_finds_no_answer():
    g = grade("exact", expected="x", output="[" * 5_000 + "]" * 4_999, extract={"json_path": "$[0]"})
    assert g.status == "fail" and "No answer found" in g.explanation
