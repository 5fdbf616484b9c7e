"""``extract`` through a whole run (SPEC §9): the configuration and the command line's
``--grader NAME:KEY=VALUE``, per-row assertions, the scored file's metadata, and the
summary's ``no_answer`` counts (the same from the scored frame and from the file written
while scoring); a run without ``extract`` keeps every cell and key it had."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from graders.config import ConfigError, GraderConfig, RunConfig, command_line_config, parse_grader_option
from graders.pipeline import score_file
from graders.scoring.assertions import run_assertion
from graders.scoring.summary import report_text

CSV = (
    "id,expected,output,assert\n"
    '1,42,"She sold 48.\n#### 42",\n'
    '2,7,"The answer is 7.",\n'
    '3,5,"#### 6",\n'
    '4,B,"ANSWER: B","[{""type"": ""equals"", ""value"": ""B"", ""extract"": ""answer_letter""}, '
    '{""type"": ""not-equals"", ""value"": ""B"", ""extract"": ""gsm8k""}]"\n'
)
CONFIG = {
    "graders": [
        {"name": "exact", "extract": "gsm8k"},
        {"name": "numeric", "read": "last", "extract": "last_number"},
        {"name": "contains", "extract": {"regex": "ANSWER: (\\w)", "flags": "i"}},
        {"name": "normalized"},
    ],
    "overall": "all",
}


@pytest.fixture()
def source(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text(CSV, encoding="utf-8")
    return str(path)


def test_configuration_round_trip_and_bad_extract():
    config = RunConfig.from_dict(CONFIG)
    assert config.to_dict()["graders"] == [
        {"name": "exact", "extract": "gsm8k"},
        {"name": "numeric", "read": "last", "abs_tol": 0.0, "rel_tol": 0.0, "extract": "last_number"},
        {"name": "contains", "require": "any", "at": "anywhere", "extract": {"regex": "ANSWER: (\\w)", "flags": "i"}},
        {"name": "normalized", "pipeline": ["trim", "lower"]},
    ]
    assert RunConfig.from_dict(json.loads(config.to_json())) == config
    # unset: no key at all (configurations exported before extract are unchanged)
    assert GraderConfig.make("exact", {"extract": None}).to_dict() == {"name": "exact"}
    with pytest.raises(ConfigError) as info:
        RunConfig.from_dict({"graders": [{"name": "exact", "extract": {"regex": "(a)", "group": 3}}]})
    assert str(info.value) == ("parameter 'extract' of grader 'exact': the extract regex /(a)/ has no group 3: "
                               "it has 1 capture group")


@pytest.mark.parametrize("option,want", [
    ("exact", ("exact", {})),
    ("exact:extract=gsm8k", ("exact", {"extract": "gsm8k"})),
    ("numeric:read=last,extract=last_number", ("numeric", {"read": "last", "extract": "last_number"})),
    ("numeric:abs_tol=0.5,read=last", ("numeric", {"abs_tol": 0.5, "read": "last"})),
    ('exact:extract={"regex": "ANSWER: (\\\\w)", "flags": "i"}', ("exact", {"extract": {"regex": "ANSWER: (\\w)", "flags": "i"}})),
    ('regex:pattern="a{1,3}",flags=i', ("regex", {"pattern": "a{1,3}", "flags": "i"})),
    ("regex:pattern=^\\d+$", ("regex", {"pattern": "^\\d+$"})),
    ('normalized:pipeline=["trim","nfkc"]', ("normalized", {"pipeline": ["trim", "nfkc"]})),
    ("bleu:threshold=0.3", ("bleu", {"threshold": 0.3})),
    ("exact:extract=null", ("exact", {"extract": None})),
])
def test_grader_options(option, want):
    assert parse_grader_option(option) == want


@pytest.mark.parametrize("options,message", [
    (["exactly"], "--grader: unknown grader 'exactly'; valid graders: exact, normalized, contains, regex, numeric, "),
    (["exactly:extract=gsm8k"], "--grader 'exactly:extract=gsm8k': unknown grader 'exactly'; valid graders: exact, "),
    (["exact:"], "--grader 'exact:': expected KEY=VALUE after the colon, as in exact:extract=gsm8k"),
    (["exact:gsm8k"], "--grader 'exact:gsm8k': expected KEY=VALUE after the colon"),
    (["regex:pattern=a{1,3}"], "--grader 'regex:pattern=a{1,3}': expected KEY=VALUE after 'pattern=a{1,' "
                               "(a value that holds a comma is written as JSON, in double quotes)"),
    (["exact:extract=a,extract=b"], "--grader 'exact:extract=a,extract=b' gives 'extract' twice"),
    (["exact:extract=gsm8"], "--grader 'exact:extract=gsm8': parameter 'extract' of grader 'exact': unknown extract "
                             "form 'gsm8'; valid forms: answer_letter"),
    (["exact:extrct=gsm8k"], "--grader 'exact:extrct=gsm8k': unknown parameter 'extrct' for grader 'exact'; "
                             "valid parameters: extract"),
    (["exact:extract=gsm8k", "exact:extract=choice"], "--grader 'exact' is given twice with different parameters"),
])
def test_bad_grader_options_are_one_config_error(options, message):
    with pytest.raises(ConfigError) as info:
        command_line_config(None, options)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_command_line_graders_join_the_configuration(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"graders": [{"name": "numeric", "read": "last"}, {"name": "exact"}]}))
    config = command_line_config(str(path), ["numeric:extract=gsm8k", "exact", "contains:extract=choice", "exact"])
    assert [g.to_dict() for g in config.graders] == [
        {"name": "numeric", "read": "last", "abs_tol": 0.0, "rel_tol": 0.0, "extract": "gsm8k"},
        {"name": "exact"},
        {"name": "contains", "require": "any", "at": "anywhere", "extract": "choice"},
    ]
    assert command_line_config(None, ["exact:extract=gsm8k", "exact"]).graders[0].to_dict() == {
        "name": "exact", "extract": "gsm8k"}
    assert command_line_config(None, []).grader_names == ("exact", "normalized")


def test_assertions_extract():
    g, meta = run_assertion({"type": "equals", "value": "42", "extract": "gsm8k"}, ("x",), "so\n#### 42")
    assert g.passed and meta == {"kind": "equals", "grader": "exact", "extract": "gsm8k", "extracted": "42"}
    # nothing extracted: not- does not make it a pass
    g, meta = run_assertion({"type": "not-equals", "value": "42", "extract": "gsm8k"}, ("x",), "42")
    assert g.status == "fail" and g.near_miss == ("no_answer", "extracted_anywhere") and meta["extracted"] is None
    assert g.explanation.startswith("Not inverted (not-): no answer was extracted. No answer found by gsm8k")
    g, _ = run_assertion({"type": "not-equals", "value": "41", "extract": "gsm8k"}, ("x",), "#### 42")
    assert g.passed
    # icontains lowercases the answer, after extraction from the output as written
    g, meta = run_assertion({"type": "icontains", "value": "b", "extract": "choice"}, ("x",), "I pick (B).")
    assert g.passed and meta["extracted"] == "B"
    g, _ = run_assertion({"type": "equals", "value": {"a": 1}, "extract": {"json_path": "$.x"}}, (), '{"x": {"a": 1}}')
    assert g.passed
    g, meta = run_assertion({"type": "equals", "value": "1", "extract": "gsm9"}, ("x",), "1")
    assert g.status == "error" and "unknown extract form 'gsm9'" in g.explanation


def _cells(run):
    return {(r.item, r.scorer): r for r in run.scored.itertuples()}


def test_scored_file_metadata_and_summary(source, tmp_path):
    run = score_file(source, CONFIG)
    cells = _cells(run)
    assert run.scored["pass"].tolist()[:4] == ["true", "true", "false", "false"]  # row 1: exact, numeric, contains, normalized
    assert json.loads(cells[("1", "exact")].metadata) == {"extract": "gsm8k", "extracted": "42"}
    assert json.loads(cells[("2", "exact")].metadata) == {"extract": "gsm8k", "extracted": None}
    assert cells[("2", "exact")].near_miss == "no_answer;extracted_anywhere"
    assert json.loads(cells[("1", "normalized")].metadata) == {  # no extract: as before
        "pipeline": ["trim", "lower"], "signature": "normalized|pipeline:trim+lower"}
    assert json.loads(cells[("4", "assert:0:equals")].metadata)["extracted"] == "B"
    graders = run.summary["graders"]
    assert {k: graders[k].get("no_answer") for k in graders} == {
        "exact": 2, "numeric": 1, "contains": 3, "normalized": None, "overall": None,
        "assert:0:equals": None, "assert:1:not-equals": 1,
    }
    assert list(graders["exact"])[:4] == ["graded", "passed", "failed", "no_answer"]
    assert "exact        passed      1 failed      3 (no answer 2) not judged" in report_text(run.summary)
    assert "normalized   passed      0 failed      4 not judged" in report_text(run.summary)
    # the scored file written while scoring (a Tally) counts the same
    buf = io.BytesIO()
    from graders.pipeline import score_prepared

    written = score_prepared(run.file, RunConfig.from_dict(CONFIG), write_to=buf)
    assert written.summary["graders"] == graders
    assert written.summary["systems"] == run.summary["systems"]
    lines = buf.getvalue().decode("utf-8").splitlines()
    assert any('""extracted"": ""42""' in line for line in lines)


def test_a_grader_with_extract_and_every_answer_found_counts_zero(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("id,expected,output\n1,42,#### 42\n", encoding="utf-8")
    run = score_file(str(path), {"graders": [{"name": "exact", "extract": "gsm8k"}, {"name": "normalized"}]})
    assert run.summary["graders"]["exact"]["no_answer"] == 0
    assert "no_answer" not in run.summary["graders"]["normalized"]
    assert run.summary["config"]["graders"] == [{"name": "exact", "extract": "gsm8k"},
                                                {"name": "normalized", "pipeline": ["trim", "lower"]}]


def test_explanations_deferred_and_filled_in(source):
    from graders.pipeline import score_prepared
    from graders.scoring.batch import explain_rows

    run = score_file(source, CONFIG)
    config = RunConfig.from_dict(CONFIG)
    lazy = score_prepared(run.file, config, explain=False)
    filled = explain_rows(lazy.scored, lazy.prepared.rows, config)
    assert list(filled["explanation"]) == list(run.scored["explanation"])
    assert list(lazy.scored["metadata"]) == list(run.scored["metadata"])


def test_compare_counts_no_answer_per_side():
    from graders.compare import compare_file

    wide = Path(__file__).resolve().parents[2] / "sample_data" / "returns_ab_wide.csv"
    result = compare_file(str(wide), {"graders": [{"name": "exact", "extract": "first_line"},
                                                                          {"name": "token_f1", "extract": "gsm8k"}]})
    for side in result.summary()["graders"].values():
        assert side["exact"]["no_answer"] == 0  # every reply has a first line
        assert side["token_f1"]["no_answer"] == side["token_f1"]["graded"]  # and none a "#### " line
