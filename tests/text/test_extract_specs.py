"""Spec parsing (good and bad), the regex form on V8 (graders.engines.regex_groups), and
the json_path form."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.engines.regex import ErrorResult, TimeoutResult
from graders.engines.regex_groups import group_info, group_problem, groups_many
from graders.text import extract as E

# --- good specs ------------------------------------------------------------------------


def test_none_is_none():
    assert E.parse_extract(None) is None


@pytest.mark.parametrize("form", E.NAMED_FORMS)
def test_named_forms(form):
    ex = E.parse_extract(form)
    assert ex.form == form
    assert ex.describe() == form
    assert ex.to_json() == form
    assert E.parse_extract(ex) is ex
    hash(ex)  # frozen and hashable


def test_regex_spec_round_trip_and_describe():
    spec = {"regex": r"ANSWER:\s*(\w+)", "flags": "i", "which": "last"}
    ex = E.parse_extract(spec)
    assert ex.form == "regex" and ex.group == 1 and ex.which == "last" and ex.flags == "i"
    assert ex.describe() == r"the regex /ANSWER:\s*(\w+)/i"
    assert ex.to_json() == spec and ex.to_json() is not spec
    hash(ex)
    assert E.parse_extract(json.dumps(spec)) == ex  # a config may carry the dict as JSON text
    assert E.parse_extract(json.dumps(spec)).to_json() == json.dumps(spec)


def test_default_group():
    assert E.parse_extract({"regex": "a(b)"}).group == 1
    assert E.parse_extract({"regex": "ab"}).group == 0
    assert E.parse_extract({"regex": "a(?:b)"}).group == 0


def test_json_path_spec():
    ex = E.parse_extract({"json_path": "$.a['b c'][0][-1][\"d\\\"e\"]"})
    assert ex.path == ("a", "b c", 0, -1, 'd"e')
    assert ex.describe() == "the JSON path $.a['b c'][0][-1][\"d\\\"e\"]"
    assert E.parse_extract({"json_path": "$"}).path == ()


# --- bad specs: one message each -------------------------------------------------------

BAD = [
    ("gsm8", "unknown extract form 'gsm8'; valid forms: answer_letter, answer_word, answer_line, choice, gsm8k, last_number, boxed, first_line, {\"regex\""),
    ("GSM8K", "unknown extract form 'GSM8K'; valid forms:"),
    ("", "unknown extract form ''; valid forms:"),
    (42, "extract must be a form name, a dict or None, not int; valid forms:"),
    (["gsm8k"], "extract must be a form name, a dict or None, not list"),
    ({}, "an extract dict needs a 'regex' or a 'json_path' key (it has no keys); valid forms:"),
    ({"regx": "a"}, "an extract dict needs a 'regex' or a 'json_path' key (it has 'regx')"),
    ({"regex": "a", "json_path": "$"}, "an extract dict takes 'regex' or 'json_path', not both"),
    ({"regex": "(a)", "grp": 1}, "unknown key 'grp' in a regex extract; valid keys: regex, group, flags, which"),
    ({"regex": "a", "x": 1, "y": 2}, "unknown keys 'x', 'y' in a regex extract; valid keys:"),
    ({"json_path": "$.a", "group": 1}, "unknown key 'group' in a json_path extract; valid keys: json_path"),
    ({"regex": 5}, "the extract regex must be a string, not int"),
    ({"regex": "(", "flags": ""}, "the extract regex is refused: /(/u is not a valid JavaScript regular expression (Unterminated group)."),
    ({"regex": "a{2,1}"}, "the extract regex is refused: /a{2,1}/u is not a valid JavaScript regular expression (numbers out of order in {} quantifier)."),
    ({"regex": "(?P<n>a)"}, "/(?P<n>a)/u is not a valid JavaScript regular expression (Invalid group). It looks like Python regex syntax: (?P<n>…) is written (?<n>…) in JavaScript."),
    ({"regex": "(?i)a"}, "the inline flag (?i) has no JavaScript form: put i in the flags field."),
    ({"regex": r"a\Z"}, "\\Z (end of text) is written $ in JavaScript"),
    ({"regex": "a", "flags": "x"}, "the extract regex is refused: Bad flags 'x': 'x' is not a JavaScript regex flag (JavaScript has no verbose mode)"),
    ({"regex": "a", "flags": "ii"}, "the extract regex is refused: Bad flags 'ii': flag 'i' is given twice in 'ii'."),
    ({"regex": "a", "flags": "uv"}, "the extract regex is refused: Bad flags 'uv': flags u and v cannot be combined"),
    ({"regex": "a", "flags": 1}, "the extract regex's flags must be a string like \"i\", not 1"),
    ({"regex": "(a)", "group": 2}, "the extract regex /(a)/ has no group 2: it has 1 capture group"),
    ({"regex": "a", "group": 1}, "the extract regex /a/ has no group 1: it has 0 capture groups"),
    ({"regex": "(?<x>a)", "group": "y"}, "the extract regex /(?<x>a)/ has no group named 'y': its named groups are x"),
    ({"regex": "(a)", "group": "y"}, "the extract regex /(a)/ has no group named 'y': it has no named groups"),
    ({"regex": "(a)", "group": -1}, "the extract regex's group must be 0 or more, not -1"),
    ({"regex": "(a)", "group": True}, "the extract regex's group must be a number or a group name, not True"),
    ({"regex": "(a)", "group": 1.0}, "the extract regex's group must be a number or a group name, not 1.0"),
    ({"regex": "a", "which": "middle"}, "the extract regex's which must be 'first' or 'last', not 'middle'"),
    ({"json_path": 3}, "the extract json_path must be a string like \"$.a.b[0]\", not 3"),
    ({"json_path": "a.b"}, "malformed JSON path 'a.b': it must start with $"),
    ({"json_path": "$.a["}, "malformed JSON path '$.a[': expected .name, ['name'] or [index] at position 3"),
    ({"json_path": "$a"}, "malformed JSON path '$a': expected .name, ['name'] or [index] at position 1"),
    ({"json_path": "$..a"}, "malformed JSON path '$..a': wildcards, recursive descent, slices and filters are not supported"),
    ({"json_path": "$.a[*]"}, "malformed JSON path '$.a[*]': wildcards, recursive descent, slices and filters are not supported"),
    ({"json_path": "$[0:2]"}, "malformed JSON path '$[0:2]': wildcards, recursive descent, slices and filters are not supported"),
    ({"json_path": "$['a]"}, "malformed JSON path \"$['a]\": expected .name, ['name'] or [index] at position 1"),
    ('{"regex": "(a)", ', "extract '{\"regex\": \"(a)\", ' is not valid JSON: Expecting property name enclosed in double quotes"),
]


@pytest.mark.parametrize("spec,message", BAD, ids=[repr(b[0])[:40] for b in BAD])
def test_bad_spec_message(spec, message):
    with pytest.raises(ValueError) as info:
        E.parse_extract(spec)
    text = str(info.value)
    assert message in text, text
    assert "\n" not in text  # one message


# --- the regex form (V8) ---------------------------------------------------------------


def rx(text, **spec):
    return E.extract(E.parse_extract(spec), text)


def test_regex_first_last_and_groups():
    t = "ANSWER: A\nnot this\nANSWER: C"
    assert rx(t, regex=r"ANSWER: (\w)") == "A"
    assert rx(t, regex=r"ANSWER: (\w)", which="last") == "C"
    assert rx(t, regex=r"ANSWER: (\w)", group=0, which="last") == "ANSWER: C"
    assert rx(t, regex=r"ANSWER: (?<letter>\w)", group="letter", which="last") == "C"
    assert rx(t, regex=r"answer: (\w)") is None
    assert rx(t, regex=r"answer: (\w)", flags="i") == "A"
    assert rx(t, regex=r"(x)|(ANSWER)", group=1) is None  # group did not take part
    assert rx(t, regex=r"(x)|(ANSWER)", group=2) == "ANSWER"


def test_regex_ecmascript_semantics():
    # u always on: `.` is one code point; \d and \w are ASCII; $ is the very end without m.
    assert rx("a😀b", regex="a(.)b") == "😀"
    assert rx("٣ and 7", regex=r"(\d)") == "7"
    assert rx("é x", regex=r"(\w)") == "x"
    assert rx("line1\nline2\n", regex=r"(\w+)$") is None
    assert rx("line1\nline2\n", regex=r"(\w+)$", flags="m") == "line1"
    assert rx("line1\nline2\n", regex=r"(\w+)$", flags="m", which="last") == "line2"
    assert rx("x\u2028y", regex=r"^(y)", flags="m") == "y"  # U+2028 ends a line in JS
    assert rx("a\nb", regex=r"a.b") is None
    assert rx("a\nb", regex=r"a.b", flags="s", group=0) == "a\nb"
    assert rx("ab", regex=r"(?<=a)b", group=0) == "b"
    assert rx("aXbX", regex=r"(?<x>X)\k<x>") is None
    assert rx("\\p: Ωmega", regex=r"(\p{Lu})") == "Ω"
    assert rx("baa", regex="a*", group=0, which="last") == ""  # matchAll's last (empty) match
    assert rx("baa", regex="a+", group=0, which="last") == "aa"
    assert rx("xab", regex="a", flags="y", group=0) is None  # sticky: at index 0 only
    assert rx("ab", regex="a", flags="gy", group=0) == "a"
    assert rx("abc", regex="[\\p{L}--[b]]+", flags="v", group=0) == "a"


def test_regex_lone_surrogates_round_trip():
    t = "x\ud800y\udfffz"
    assert rx(t, regex="x(.)y") == "\ud800"
    assert rx(t, regex="(.)z") == "\udfff"
    assert rx(t, regex=".*", group=0) == t


def test_regex_column_and_none():
    ex = E.parse_extract({"regex": r"#### (\d+)"})
    texts = ["#### 1", "no", "", "#### 22 #### 3"] * 3000  # several chunks
    assert E.extract_many(ex, texts) == ["1", None, None, "22"] * 3000
    assert E.extract_many(ex, ["#### 5", None]) == ["5", None]
    with pytest.raises(TypeError, match="row 1 is int"):
        E.extract_many(ex, ["#### 5", 7])


def test_regex_time_limit():
    t0 = time.monotonic()
    got = groups_many("(a+)+$", "", ["ok", "a" * 40 + "b", "ok"], 0, "first", timeout=0.2)
    assert got == [None, TimeoutResult(0.2), None]
    assert time.monotonic() - t0 < 5
    # the engine works again afterwards
    assert groups_many("(a)", "", ["a"], 1, "first") == ["a"]
    # over a column, after MAX_TIMEOUTS time-outs the rows left are not run (they say so)
    ex = E.parse_extract({"regex": "(a+)+$", "group": 0})
    got = E.extract_many(ex, ["a" * 40 + "b"] * (E.MAX_TIMEOUTS + 2) + ["ok"])
    assert got[: E.MAX_TIMEOUTS] == [TimeoutResult(1.0)] * E.MAX_TIMEOUTS
    assert all(isinstance(g, ErrorResult) and g.message.startswith("not run") for g in got[E.MAX_TIMEOUTS:])


def test_groups_engine_api():
    assert group_info(r"ANSWER: (?<l>\w)(x)?") == (2, ("l",))
    assert group_info("a|(b)", "iy") == (1, ())
    assert group_problem("(a)", "", 1) is None and group_problem("(?<x>a)", "", "x") is None
    assert group_problem("(a)", "", 2) == "/(a)/ has no group 2: it has 1 capture group"
    assert group_problem("(", "", 0).startswith("/(/u is not a valid JavaScript regular expression")
    assert groups_many("(", "", ["a", "b"], 0) == [ErrorResult(group_problem("(", "", 0))] * 2
    assert groups_many(r"(\d)", "", ["a1b2", "x", "3"], 1, "last", only=[2, 0]) == ["3", "2"]
    # a high and a low surrogate side by side are one code point in JavaScript; the group's
    # text is the Python text's own code points all the same
    assert groups_many("a(.)b", "", ["a\ud83d\ude00b", "a😀b"], 1) == ["\ud83d\ude00", "😀"]
    with pytest.raises(ValueError, match="which must be 'first' or 'last'"):
        groups_many("a", "", ["a"], 0, "middle")
    with pytest.raises(ValueError, match="group must be a number >= 0 or a group name"):
        groups_many("a", "", ["a"], -1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.one_of(st.characters(exclude_categories=()), st.sampled_from("ab\n"))), max_size=6))
def test_regex_results_derive_from_output(texts):
    for spec in ({"regex": "(a.)", "which": "last"}, {"regex": "[^\\n]+", "group": 0}, {"regex": "(?<w>\\w+)", "group": "w"}):
        ex = E.parse_extract(spec)
        got = E.extract_many(ex, texts)
        assert got == [E.extract(ex, t) for t in texts]
        for g, t in zip(got, texts):
            assert g is None or g in t


# --- the json_path form ----------------------------------------------------------------


def jp(text, path):
    return E.extract(E.parse_extract({"json_path": path}), text)


DOC = '{"answer": "B", "score": 0.90, "n": 12, "ok": true, "none": null, "list": [1, "two", {"k": [3]}], "a b": {"c": 1e2}, "nested": {"x": {"y": "é"}}}'


@pytest.mark.parametrize(
    "path,want",
    [
        ("$.answer", "B"),
        ("$['answer']", "B"),
        ('$["answer"]', "B"),
        ("$.score", "0.90"),  # numbers as written
        ("$.n", "12"),
        ("$.ok", "true"),
        ("$.none", "null"),
        ("$.list", '[1,"two",{"k":[3]}]'),
        ("$.list[1]", "two"),
        ("$.list[-1].k[0]", "3"),
        ("$.list[-3]", "1"),
        ("$.list[3]", None),
        ("$.list[-4]", None),
        ("$['a b'].c", "1e2"),
        ("$.nested", '{"x":{"y":"é"}}'),
        ("$.missing", None),
        ("$.answer.x", None),
        ("$.list.k", None),
        ("$.nested[0]", None),
    ],
)
def test_json_path_values(path, want):
    assert jp(DOC, path) == want


def test_json_path_whole_and_fence():
    assert jp('```json\n{"a": [1, 2]}\n```', "$.a") == "[1,2]"
    assert jp('  ```\n{"a": 1}\n```  \n', "$.a") == "1"
    assert jp('```JSON\n"just text"\n```', "$") == "just text"
    assert jp('```python\n{"a": 1}\n```', "$.a") is None  # only a json (or bare) fence
    assert jp('Here it is: {"a": 1}', "$.a") is None
    assert jp("[10, 20]", "$[1]") == "20"
    assert jp('{"a": 1', "$") is None
    assert jp('{"a": NaN}', "$") is None
    assert jp('{"a": 1, "a": 2}', "$.a") == "2"  # last duplicate wins, as JSON.parse
    assert jp('{"s": "line\\nbreak \\"q\\""}', "$") == '{"s":"line\\nbreak \\"q\\""}'
    assert jp('{"s": "\\ud800"}', "$.s") == "\ud800"
    assert jp("[" * 5000 + "]" * 5000, "$") == "[" * 5000 + "]" * 5000  # past Python's decoder: read without recursion
    assert jp("", "$") is None


@settings(max_examples=200)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3),
    max_leaves=10,
))
def test_json_path_root_is_compact_json(value):
    text = json.dumps(value, indent=2)
    got = jp(text, "$")
    if isinstance(value, str):
        assert got == value
    else:
        assert got == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_json_text_specs_describe():
    ex = E.parse_extract('{"json_path": "$.a"}')
    assert ex.describe() == "the JSON path $.a" and ex.to_json() == '{"json_path": "$.a"}'
    assert ex == E.parse_extract({"json_path": "$.a"})
    ex = E.parse_extract('{"regex": "(a)", "flags": "i"}')
    assert ex.describe() == "the regex /(a)/i"


def test_regex_in_a_forked_child():
    import multiprocessing

    ex = E.parse_extract({"regex": "(b)"})
    assert E.extract(ex, "abc") == "b"  # the parent has a V8 context now
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        assert pool.apply(E.extract_many, (ex, ["abc", "xyz"]), ) == ["b", None]
