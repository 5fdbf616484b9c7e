"""``extract`` on every grader (SPEC §9): the grader and its near-miss probe see only the
extracted answer; nothing extracted is a fail with near miss ``no_answer`` (and
``extracted_anywhere``); the column form equals ``grade`` row by row; bad specs are one
``ValueError``."""

from __future__ import annotations

import pytest

import graders
from graders import GRADER_NAMES, grade
from graders.config import GraderConfig
from graders.registry import REGISTRY, resolve_params
from graders.scoring import batch
from graders.text import extract as E

# Each grader's required parameters: with them, every grader passes the answer "42" of
# "Reasoning first.\n#### 42" against "42" (json_fields, which compares JSON objects: below).
REQUIRED = {
    "regex": {"pattern": "^42$"},
    "json_schema": {"schema": {"type": "integer"}},
}


def test_the_issue_example():
    g = grade("exact", expected="42", output="Natalia sold 48/2 = 24 clips in May… #### 42", extract="gsm8k")
    assert g.status == "pass" and g.passed and g.score == 1.0
    assert g.explanation.startswith("Answer extracted by gsm8k (the number after “#### ”")
    assert "“42”. The output equals the reference" in g.explanation
    assert g.details["extracted"] == "42"


@pytest.mark.parametrize("name", [n for n in GRADER_NAMES if n != "json_fields"])
def test_every_grader_grades_the_answer(name):
    params = {**REQUIRED.get(name, {}), "extract": "gsm8k"}
    if REGISTRY[name].binary is False:
        params["threshold"] = 0.5
    g = grade(name, expected="42", output="Reasoning first.\n#### 42", **params)
    assert g.status == "pass", (name, g.explanation)
    assert g.details["extracted"] == "42"
    assert g.explanation.startswith("Answer extracted by gsm8k")


def test_json_fields_and_json_path():
    out = '```json\n{"answer": {"a": 1, "b": 2}, "why": "…"}\n```'
    g = grade("json_fields", expected='{"a": 1, "b": 2}', output=out, extract={"json_path": "$.answer"})
    assert g.score == 1.0 and g.details["extracted"] == '{"a":1,"b":2}'
    assert grade("exact", expected="B", output='{"answer": "B"}', extract={"json_path": "$.answer"}).passed


@pytest.mark.parametrize("name", GRADER_NAMES)
def test_no_answer_is_a_fail_scoring_zero(name):
    params = {**REQUIRED.get(name, {}), "extract": "gsm8k"}
    g = grade(name, expected="42", output="I think it is 42.", **params)
    assert (g.status, g.passed, g.score) == ("fail", False, 0.0)  # continuous graders too, threshold or not
    assert g.explanation.startswith("No answer found by gsm8k (the number after “#### ”")
    assert g.details["extracted"] is None
    assert g.near_miss == ("no_answer", "extracted_anywhere")
    assert "The expected answer “42” does occur in the output" in g.explanation
    g = grade(name, expected="42", output="I cannot tell.", **params)
    assert g.near_miss == ("no_answer",) and g.status == "fail"


def test_extracted_anywhere_needs_a_non_empty_reference_in_the_raw_output():
    assert grade("exact", expected=["7", "42"], output="maybe 42", extract="gsm8k").near_miss == (
        "no_answer", "extracted_anywhere")
    assert grade("exact", expected="", output="maybe 42", extract="gsm8k").near_miss == ("no_answer",)
    # a grader that needs no reference: nothing to look for
    assert grade("valid_json", output="no fence here", extract="boxed").near_miss == ("no_answer",)


def test_the_probe_runs_on_the_answer():
    g = grade("exact", expected="paris", output="Thinking…\nANSWER: Paris", extract="answer_word")
    assert g.status == "fail" and g.near_miss == ("lowercase",)
    assert g.details["extracted"] == "Paris"
    assert "First difference at position 0" in g.explanation  # positions in the answer
    g = grade("numeric", expected="41", output="#### 42", extract="gsm8k", read="last")
    assert g.near_miss is None and "Read 42 from the output" in g.explanation


def test_not_judged_without_a_reference_comes_first():
    g = grade("exact", expected=None, output="#### 42", extract="gsm8k")
    assert g.status == "not_judged" and "extracted" not in g.details


def test_signature_names_the_extractor():
    g = grade("bleu", expected="the cat sat", output="ANSWER: the cat sat", extract="answer_line")
    assert g.details["signature"] == "bleu|nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|extract:answer_line"
    g = grade("chrf", expected="a", output="x", extract={"regex": "(a)"})
    assert g.status == "fail" and "signature" not in g.details  # nothing extracted: the grader did not run


def test_regex_extractor_time_limit_is_an_error():
    g = grade("exact", expected="a", output="a" * 40 + "b", extract={"regex": "(a+)+$", "group": 0})
    assert g.status == "error" and g.score is None
    assert g.explanation.startswith("Answer extraction by the regex /(a+)+$/ ran past the time limit of 1 s")


def test_extract_is_a_parameter_of_every_grader_but_not_a_widget():
    for name, spec in REGISTRY.items():
        assert "extract" in spec.param_names and spec.all_params[-1].name == "extract"
        assert "extract" not in [p.name for p in spec.params]  # the dashboard's form: its own parameters
        assert "extract" not in resolve_params(name, REQUIRED.get(name, {}))  # unset: not there at all
    assert resolve_params("exact", {"extract": None}) == {}
    assert resolve_params("exact", {"extract": "choice"})["extract"] == E.parse_extract("choice")
    assert "Every grader also takes:\n\n    extract=None: answer extraction" in graders.grade.__doc__


BAD = [
    ("gsm8", "parameter 'extract' of grader 'exact': unknown extract form 'gsm8'; valid forms: answer_letter, "),
    ({"regex": "(?P<n>\\d+)"}, "parameter 'extract' of grader 'exact': the extract regex is refused: /(?P<n>\\d+)/u is "
                               "not a valid JavaScript regular expression (Invalid group). It looks like Python regex syntax"),
    ({"regex": "(a"}, "the extract regex is refused: /(a/u is not a valid JavaScript regular expression (Unterminated group)."),
    ({"regex": "(\\d+)", "group": 2}, "the extract regex /(\\d+)/ has no group 2: it has 1 capture group"),
    ({"regex": "(?<n>\\d+)", "group": "m"}, "has no group named 'm': its named groups are n"),
    ({"json_path": "$.a[0"}, "malformed JSON path '$.a[0': expected .name, ['name'] or [index] at position 3"),
    ({"json_path": "a"}, "malformed JSON path 'a': it must start with $"),
    (3, "extract must be a form name, a dict or None, not int"),
]


@pytest.mark.parametrize("spec,message", BAD, ids=[str(b[0])[:30] for b in BAD])
def test_bad_extract_is_one_value_error(spec, message):
    with pytest.raises(ValueError) as info:
        grade("exact", expected="1", output="1", extract=spec)
    assert message in str(info.value) and "\n" not in str(info.value)


CASES = [
    ("42", "So #### 42"), ("42", "#### 42.0"), ("7", "I'd say 7"), ("B", "ANSWER: b"), ("B", "ANSWER: B"),
    ("x", ""), ("42", "#### 4,2"), ("42", "#### 42"), ("3.5", "Step.\n#### 3.50"), ("B", "The answer is (B)."),
]


@pytest.mark.parametrize("extract", ["gsm8k", "answer_letter", "choice", "last_number", "first_line",
                                     {"regex": "#### (\\S+)", "which": "last"}])
@pytest.mark.parametrize("name", ["exact", "normalized", "contains", "numeric", "token_f1", "bleu", "regex"])
def test_column_equals_grade_row_by_row(name, extract):
    params = {**REQUIRED.get(name, {}), "extract": extract}
    gc = GraderConfig.make(name, params)
    refs = [(e,) for e, _ in CASES]
    outputs = [o for _, o in CASES]
    block = batch.grade_column(gc, refs, outputs)
    for i, (e, o) in enumerate(CASES):
        want = grade(name, expected=e, output=o, **params)
        got = block.grade(i)
        assert got == want, (i, got, want)
        assert got.explanation == want.explanation
        assert got.details.get("extracted", "-") == want.details.get("extracted", "-")


def test_a_chunk_extracts_once_per_extractor(monkeypatch):
    import pandas as pd

    from graders.config import RunConfig

    calls = []
    real = E.extract_many

    def counting(ex, outputs):
        calls.append(ex.form)
        return real(ex, outputs)

    monkeypatch.setattr(E, "extract_many", counting)
    config = RunConfig.from_dict({"graders": [{"name": "exact", "extract": "gsm8k"}, {"name": "numeric", "extract": "gsm8k"},
                                              {"name": "contains", "extract": "choice"}, {"name": "normalized"}]})
    rows = pd.DataFrame({"refs": [("42",), ("B",)] * 50, "output": ["#### 42", "ANSWER: B"] * 50})
    blocks = batch._chunk_blocks(rows, config)
    assert sorted(calls) == ["choice", "gsm8k"]  # once each, over the chunk's distinct pairs
    assert [b.status[:2] for _, b, _ in blocks] == [["pass", "fail"], ["pass", "fail"], ["fail", "pass"], ["fail", "fail"]]
