"""promptfoo's assertion kinds, case by case, and how per-row assertions run over a column.

The verdicts in these tables are promptfoo 0.121.20's (its ``runAssertion``, as
``tests/files/promptfoo_assertions/make_golden.mjs`` runs it); ``e`` is where promptfoo
throws, and an invalid regex, which promptfoo fails, is an error row here (the README's
deliberate difference).
"""

from __future__ import annotations

import json
import random
import time

import pandas as pd
import pytest

from graders.config import RunConfig
from graders.pipeline import score_file
from graders.scoring.assertions import run_assertion, run_column
from graders.scoring.kinds import regex as kind_regex
from graders.scoring.kinds.json import extract_json_objects
from graders.scoring.kinds.text import levenshtein, rouge_1, treebank_tokens
from graders.scoring.parallel import score_frame

_CODE = {"pass": "p", "fail": "f", "error": "e", "not_judged": "e"}


def verdict(assertion, output, refs=(), fields=None):
    g, _ = run_assertion(assertion, refs, output, fields)
    return _CODE[g.status]


@pytest.mark.parametrize("assertion, output, want", [
    # new RegExp(value): no u flag, so an identity escape is valid and \p{L} is "p{L}"
    ({"type": "regex", "value": "A\\-\\d+"}, "ticket A-12", "p"),
    ({"type": "regex", "value": "A\\-\\d+"}, "a-12", "f"),
    ({"type": "regex", "value": "\\p{L}+"}, "p{L}", "p"),
    ({"type": "regex", "value": "\\p{L}+"}, "Zoë", "f"),
    ({"type": "regex", "value": "\\u{61}"}, "u" * 61, "p"),
    ({"type": "regex", "value": "\\k<x>"}, "k<x>", "p"),
    ({"type": "regex", "value": "^b"}, "a\nb", "f"),
    ({"type": "regex", "value": "Σ"}, "ς", "f"),
    ({"type": "not-regex", "value": "\\d"}, "no digits", "p"),
    ({"type": "regex", "value": "["}, "x", "e"),  # promptfoo: fail, "Invalid regex pattern"
    ({"type": "not-regex", "value": "a**"}, "x", "e"),  # promptfoo: fail too (inverse ignored)
    ({"type": "regex", "value": ""}, "x", "e"),
    ({"type": "regex", "value": 42}, "42", "e"),
    ({"type": "regex", "value": ["^a"]}, "a", "e"),
    ({"type": "regex"}, "x", "e"),  # no value, no expected answer
    # Gradeboard's extensions (promptfoo ignores these keys): flags, at
    ({"type": "regex", "value": "paris", "flags": "i"}, "PARIS", "p"),
    ({"type": "regex", "value": "\\p{L}+", "flags": "u", "at": "whole"}, "Zoë", "p"),
    ({"type": "regex", "value": "a", "flags": "x"}, "a", "e"),
    ({"type": "regex", "value": "^4$", "extract": "last_number"}, "it is 42, then 4", "p"),  # on the answer
])
def test_regex_as_promptfoo_compiles_it(assertion, output, want):
    assert verdict(assertion, output) == want


def test_a_regex_without_a_value_uses_the_expected_answer_and_fail_probes_case():
    assert verdict({"type": "regex"}, "ticket A-12", ("A\\-\\d+",)) == "p"
    g, meta = run_assertion({"type": "regex", "value": "PARIS"}, (), "paris")
    assert g.status == "fail" and g.near_miss == ("case_insensitive",)
    assert meta == {"kind": "regex", "grader": "regex", "flags": "", "at": "anywhere", "timeout": 1.0}


SCHEMA = {"type": "object", "required": ["name"]}


@pytest.mark.parametrize("assertion, output, want", [
    ({"type": "is-json"}, '{"a": 1}', "p"),
    ({"type": "is-json"}, ' {"a": 1} \n', "p"),
    ({"type": "is-json"}, "42", "p"),
    ({"type": "is-json"}, '```json\n{"a": 1}\n```', "f"),  # the whole output, no fence
    ({"type": "is-json"}, '\u00a0{"a": 1}', "f"),
    ({"type": "is-json"}, '\ufeff{"a": 1}', "f"),
    ({"type": "is-json"}, "{a: 1}", "f"),
    ({"type": "is-json"}, '{"a": NaN}', "f"),
    ({"type": "is-json", "value": ""}, '{"a": 1}', "p"),
    ({"type": "is-json", "value": SCHEMA}, '{"name": "Ada"}', "p"),
    ({"type": "is-json", "value": SCHEMA}, '{"age": 3}', "f"),
    ({"type": "is-json", "value": "{type: object, required: [a]}"}, '{"a": 1}', "p"),  # YAML text
    ({"type": "is-json", "value": {"type": "wrong"}}, '{"a": 1}', "e"),  # an invalid schema ...
    ({"type": "is-json", "value": {"type": "wrong"}}, "not json", "f"),  # ... only where there is JSON
    ({"type": "not-is-json", "value": SCHEMA}, "not json", "p"),
    ({"type": "is-json", "value": 5}, '{"a": 1}', "e"),
])
def test_is_json(assertion, output, want):
    assert verdict(assertion, output) == want


@pytest.mark.parametrize("assertion, output, want", [
    ({"type": "contains-json"}, 'Here: {"a": 1} ok', "p"),
    ({"type": "contains-json"}, "{a: 1}", "p"),  # js-yaml reads it
    ({"type": "contains-json"}, "{'a': 'b'}", "p"),
    ({"type": "contains-json"}, '{"a": 1, "b": 2', "p"),  # truncated: closed with the braces it lacks
    ({"type": "contains-json"}, '{"a": 1, "b": [1, 2', "f"),  # ... but not with the brackets
    ({"type": "contains-json"}, '{"a": 1, // note\n"b": 2}', "p"),
    ({"type": "contains-json"}, "function f() { return x; }", "p"),
    ({"type": "contains-json"}, "{a: [1, 2}", "f"),
    ({"type": "contains-json"}, "[1, 2, 3]", "f"),
    ({"type": "contains-json"}, '{"s": "}{"}', "f"),  # braces counted naively: "{\"s\": \"}" is no YAML
    ({"type": "contains-json"}, "ends with {", "f"),
    ({"type": "contains-json"}, "{[1, 2]: x}", "f"),  # an object key: js-yaml refuses it
    ({"type": "contains-json", "value": SCHEMA}, '{"age": 1} then {"name": "Ada"}', "p"),
    ({"type": "contains-json", "value": SCHEMA}, '{"age": 1}', "f"),
    ({"type": "not-contains-json"}, "no braces", "p"),
    ({"type": "contains-json", "value": {"type": "wrong"}}, "no braces", "f"),  # the schema is not looked at
    ({"type": "contains-json", "value": {"type": "wrong"}}, "{}", "e"),
])
def test_contains_json(assertion, output, want):
    assert verdict(assertion, output) == want


def test_contains_json_reads_deep_json_as_js_yaml_does():
    def deep(n):
        return "1" if n == 0 else '{"a": ' + deep(n - 1) + "}"
    assert len(extract_json_objects(deep(98))) == 1
    # 130 levels: js-yaml stops at 100, so the object found starts 31 levels in
    (found,) = extract_json_objects(deep(130))
    depth = 0
    while isinstance(found, dict):
        found, depth = found["a"], depth + 1
    assert depth == 98


@pytest.mark.parametrize("assertion, output, want", [
    ({"type": "is-xml"}, "<answer>42</answer>", "p"),
    ({"type": "is-xml"}, "  <a>padded</a>\n", "p"),
    ({"type": "is-xml"}, "```xml\n<a/>\n```", "f"),
    ({"type": "is-xml"}, "<a/><b/>", "f"),
    ({"type": "is-xml"}, "<p>Hello<br>world</p>", "f"),
    ({"type": "is-xml"}, "<p>caf&eacute;</p>", "f"),
    ({"type": "is-xml"}, "<ns:a>unbound</ns:a>", "f"),
    ({"type": "is-xml"}, '<ns:a xmlns:ns="urn:x"><ns:b/></ns:a>', "p"),
    ({"type": "is-xml"}, '<!DOCTYPE note SYSTEM "note.dtd"><note>&w;</note>', "p"),  # external DTD: undeclared ok
    ({"type": "is-xml"}, '<!DOCTYPE note [<!ENTITY w "x">]><note>&w;</note>', "f"),  # internal subset: unsupported
    ({"type": "is-xml"}, ' <?xml version="1.0"?><a/>', "f"),
    ({"type": "is-xml"}, "<constructor>x</constructor>", "f"),  # fast-xml-parser refuses the name
    ({"type": "is-xml"}, "<a😀>x</a😀>", "p"),  # XML 1.0 fifth edition names
    ({"type": "is-xml"}, "<d>" * 101 + "x" + "</d>" * 101, "p"),
    ({"type": "is-xml"}, "<d>" * 102 + "x" + "</d>" * 102, "f"),  # fast-xml-parser: too many nested tags
    ({"type": "is-xml", "value": "root.item.1"}, "<root><item>1</item><item>2</item></root>", "p"),
    ({"type": "is-xml", "value": "root.item.5"}, "<root><item>1</item><item>2</item></root>", "f"),
    ({"type": "is-xml", "value": "user.@_id, user.name"}, '<user id="7"><name>A</name></user>', "p"),
    ({"type": "is-xml", "value": ""}, "<a/>", "f"),  # "" splits to one required element, "", never found
    ({"type": "is-xml", "value": "a.constructor"}, "<a><b/></a>", "p"),  # inherited: always "present"
    ({"type": "is-xml", "value": {"requiredElements": ["a.b"]}}, "<a><b/></a>", "p"),
    ({"type": "is-xml", "value": {"other": 1}}, "<a/>", "e"),
    ({"type": "is-xml", "value": []}, "<a/>", "p"),
    ({"type": "contains-xml"}, "Sure! <answer>4</answer> Done.", "p"),
    ({"type": "contains-xml"}, "a < b and c > d", "f"),
    ({"type": "contains-xml"}, "<a><b></a></b>", "f"),
    ({"type": "contains-xml", "value": "user.name"}, "<user><name>A</name></user><user><name>B</name></user>", "f"),
    ({"type": "contains-xml", "value": "answer"}, "x <answer>unclosed", "f"),
    ({"type": "not-contains-xml"}, "plain text", "p"),
])
def test_xml_kinds(assertion, output, want):
    assert verdict(assertion, output) == want


@pytest.mark.parametrize("assertion, output, want", [
    ({"type": "levenshtein", "value": "kitten"}, "sitting", "p"),  # 3 <= 5
    ({"type": "levenshtein", "value": "kitten", "threshold": 2}, "sitting", "f"),
    ({"type": "levenshtein", "value": "ab", "threshold": 1}, "a😀b", "f"),  # an emoji is two UTF-16 units
    ({"type": "levenshtein", "value": "ab", "threshold": 2}, "a😀b", "p"),
    ({"type": "levenshtein", "value": 5}, "5", "e"),
    ({"type": "not-levenshtein", "value": "abc", "threshold": 0}, "abc", "f"),
    ({"type": "rouge-n", "value": "The cat sat."}, "the CAT sat.", "p"),
    ({"type": "rouge-n", "value": "the cat sat on the mat"}, "the dog", "f"),
    ({"type": "rouge-n", "value": "the cat sat on the mat", "threshold": 0.25}, "the dog", "p"),  # 0.25 exactly
    ({"type": "rouge-n", "value": ["a"]}, "a", "e"),
])
def test_text_kinds(assertion, output, want):
    assert verdict(assertion, output) == want


def test_text_kinds_count_as_promptfoo_does():
    assert levenshtein("a😀b", "ab") == 2 and levenshtein("", "abc") == 3 and levenshtein("flaw", "lawn") == 2
    assert treebank_tokens("I can't believe it's \"fine\"...") == ["I", "ca", "n't", "believe", "it", "'s", "``",
                                                                   "fine", "''", "..."]
    assert rouge_1("the cat sat on the mat", "the cat sat on the mat") == 1.0  # clipped counts
    g, _ = run_assertion({"type": "not-rouge-n", "value": "the cat", "threshold": 0.5}, (), "the cat sat")
    assert g.status == "fail" and g.score == pytest.approx(0.8)  # not- flips the verdict, not the measurement


@pytest.mark.parametrize("assertion, fields, want", [
    ({"type": "latency", "threshold": 500}, {"latency_ms": "499"}, "p"),
    ({"type": "latency", "threshold": 500}, {"latency_ms": "500"}, "p"),
    ({"type": "latency", "threshold": 500}, {"latency_ms": "501"}, "f"),
    ({"type": "not-latency", "threshold": 500}, {"latency_ms": "501"}, "p"),
    ({"type": "latency", "threshold": 500}, {}, "e"),  # no latency recorded: promptfoo throws
    ({"type": "latency"}, {"latency_ms": "1"}, "e"),  # a threshold is required
    ({"type": "cost", "threshold": 0.01}, {"cost": "0.005"}, "p"),
    ({"type": "cost", "threshold": 0}, {"cost": "0"}, "p"),
    ({"type": "cost", "threshold": 0.001}, {"cost": "0.005"}, "f"),
    ({"type": "cost", "threshold": 0.01}, {"cost": None}, "e"),
])
def test_latency_and_cost_read_the_rows_fields(assertion, fields, want):
    assert verdict(assertion, "anything", (), fields) == want


def test_latency_and_cost_come_from_a_promptfoo_results_file(tmp_path):
    results = [
        {"testIdx": i, "promptIdx": 0, "provider": {"id": "p"}, "response": {"output": "ok"},
         "testCase": {"description": f"t{i}", "assert": [{"type": "latency", "threshold": 1000},
                                                           {"type": "not-cost", "threshold": 0.002}]},
         "success": True, "score": 1, **extra}
        for i, extra in enumerate([{"latencyMs": 900, "cost": 0.001}, {"latencyMs": 1100, "cost": 0.003}, {}])
    ]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"evalId": "e", "results": {"version": 3, "results": results, "prompts": []}}))
    run = score_file(path, RunConfig.from_dict({"graders": []}))
    asserts = run.scored[run.scored["scorer"].str.startswith("assert:")]
    assert [_CODE[s] for s in asserts["status"]] == ["p", "f", "f", "p", "e", "e"]


def test_not_inverts_once_for_every_kind():
    """not-X passes where X fails and fails where X passes; X's errors stay errors."""
    cases = [
        ({"type": "regex", "value": "a"}, "a"), ({"type": "regex", "value": "a"}, "b"), ({"type": "regex", "value": "["}, "a"),
        ({"type": "is-json"}, "{}"), ({"type": "is-json"}, "x"), ({"type": "contains-json"}, "{a}"),
        ({"type": "is-xml"}, "<a/>"), ({"type": "contains-xml"}, "x"), ({"type": "levenshtein", "value": "a"}, "b"),
        ({"type": "rouge-n", "value": "a b"}, "a"), ({"type": "latency", "threshold": 5}, "x"),
        ({"type": "equals", "value": "x"}, "x"), ({"type": "contains", "value": "y"}, "x"),
    ]
    flip = {"p": "f", "f": "p", "e": "e"}
    for a, output in cases:
        fields = {"latency_ms": "3"}
        assert verdict({**a, "type": "not-" + a["type"]}, output, (), fields) == flip[verdict(a, output, (), fields)], a


def test_a_column_of_assertions_equals_each_row_judged_alone():
    """Grouped by assertion and run over their column: the same grades and metadata as
    one row at a time."""
    rng = random.Random(3)
    pool = [
        {"type": "regex", "value": "\\d+"}, {"type": "not-regex", "value": "^a"}, {"type": "regex"},
        {"type": "icontains", "value": "PARIS"}, {"type": "contains-any", "value": "x, Par"}, {"type": "exact"},
        {"type": "equals", "value": {"a": 1}}, {"type": "numeric", "value": "42", "read": "last"},
        {"type": "is-json"}, {"type": "contains-json", "value": SCHEMA}, {"type": "is-xml", "value": "a"},
        {"type": "levenshtein", "value": "Paris"}, {"type": "rouge-n"}, {"type": "json-schema"},
        {"type": "token-f1", "value": "Paris France", "threshold": 0.5}, {"type": "equals", "value": "42", "extract": "gsm8k"},
        {"type": "regex", "value": "^4\\d$", "extract": "last_number"}, {"type": "cost", "threshold": 0.5},
        {"type": "llm-rubric", "value": "polite"},
    ]
    outputs = ["Paris", "paris!", '{"name": "x"}', "<a/>", "#### 42", "a1", "it is 42", ""]
    refs_pool = [(), ("Paris",), ('{"type": "object"}',), ("4\\d",)]
    n = 300
    assertions = [tuple(rng.sample(pool, rng.randint(1, 4))) for _ in range(n)]
    outs = [rng.choice(outputs) for _ in range(n)]
    refs = [rng.choice(refs_pool) for _ in range(n)]
    costs = [rng.choice([None, "0.1", "0.9"]) for _ in range(n)]
    got = run_column(assertions, refs, outs, {"cost": costs})
    alone = [(i, j, *run_assertion(a, refs[i], outs[i], {"cost": costs[i]}))
             for i, row in enumerate(assertions) for j, a in enumerate(row)]
    assert len(got) == len(alone)
    for (i, scorer, g, meta), (i2, j, g2, meta2) in zip(got, alone):
        assert (i, scorer) == (i2, f"assert:{j}:{assertions[i][j]['type']}")
        assert (g, g.explanation, meta) == (g2, g2.explanation, meta2)


# --------------------------------------------------------------------------- time (issue 32, item 5)

CATASTROPHIC = "(a+)+$"
TEXT = "a" * 40 + "!"


def test_an_assertions_own_time_limit_is_capped():
    p = kind_regex.settings(CATASTROPHIC, None, None, 1e8)
    assert p.timeout == kind_regex.MAX_TIMEOUT == 5.0
    _, meta = run_assertion({"type": "regex", "value": "a", "timeout": 1e8}, (), "a")
    assert meta["timeout"] == 5.0
    start = time.monotonic()
    g, _ = run_assertion({"type": "regex", "value": CATASTROPHIC, "timeout": 1e8}, (), TEXT)
    assert g.status == "error" and g.details["reason"] == "timeout"
    assert time.monotonic() - start < 2 * kind_regex.MAX_TIMEOUT + 5  # not 10^8 seconds


@pytest.mark.timeout(300)
def test_a_catastrophic_pattern_on_10000_rows_costs_a_few_time_limits():
    """Before: every row paid the whole time limit (10,000 × 0.25 s, 42 minutes; at the
    default 1 s, about 3 hours). Now the run stops the pattern after three time-outs, over
    all its chunks (engines.budget)."""
    n = 10_000
    rows = pd.DataFrame({"record": range(1, n + 1), "item": [f"c{i}" for i in range(n)], "system": "v1", "repeat": "0",
                         "refs": [("x",)] * n, "output": [TEXT] * n,
                         "assertions": [({"type": "regex", "value": CATASTROPHIC, "timeout": 0.25},)] * n})
    start = time.monotonic()
    scored = score_frame(rows, RunConfig.from_dict({"graders": [{"name": "exact"}]}), workers=1)
    took = time.monotonic() - start
    asserts = scored[scored["scorer"].str.startswith("assert:")]
    reasons = [d.get("reason") for d in asserts["details"]]
    assert reasons.count("timeout") <= kind_regex.GROUP_TIMEOUTS  # in the run, not in each of its 3 chunks
    assert (asserts["status"] == "error").all() and "not run" in asserts["explanation"].iloc[-1].lower()
    assert took < 60, took


def test_distinct_catastrophic_patterns_share_one_budget_per_chunk():
    n = 40
    assertions = [({"type": "regex", "value": f"(?:x{{{i}}})?{CATASTROPHIC}", "timeout": 0.2},) for i in range(n)]
    start = time.monotonic()
    got = run_column(assertions, [()] * n, [TEXT] * n)
    reasons = [g.details.get("reason") for _, _, g, _ in got]
    assert reasons.count("timeout") <= kind_regex.RUN_TIMEOUTS
    assert reasons.count("budget") >= n - kind_regex.RUN_TIMEOUTS
    assert time.monotonic() - start < n * 0.2  # 40 patterns did not each pay their limit


@pytest.mark.timeout(300)
def test_the_run_budget_spans_chunks_for_assertions_and_schema_patterns():
    """Five chunks of 1,000 rows, each row a catastrophic regex assertion and a catastrophic
    schema pattern: the run spends at most three time-outs of each, not three a chunk; a
    second run starts afresh."""
    n = 5_000
    schema = {"type": "object", "properties": {"k": {"type": "string", "pattern": "^(a+)+$"}}}
    rows = pd.DataFrame({"record": range(1, n + 1), "item": [f"c{i}" for i in range(n)], "system": "v1", "repeat": "0",
                         "refs": [("x",)] * n, "output": [json.dumps({"k": "a" * (28 + i % 7) + f"!{i}"}) for i in range(n)],
                         "assertions": [({"type": "regex", "value": CATASTROPHIC, "timeout": 0.25},)] * n})
    config = RunConfig.from_dict({"graders": [{"name": "json_schema", "schema": schema}]})
    for _ in range(2):
        scored = score_frame(rows, config, workers=1, chunk_rows=1_000)
        asserts = scored[scored["scorer"].str.startswith("assert:")]
        assert [d.get("reason") for d in asserts["details"]].count("timeout") <= kind_regex.GROUP_TIMEOUTS
        schemas = scored[scored["scorer"] == "json_schema"]["explanation"]
        assert 1 <= sum("ran past its" in e for e in schemas) <= 3
        assert sum("was not run" in e for e in schemas) >= n - 3
