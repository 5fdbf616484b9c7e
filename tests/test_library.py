"""The library's file-level calls as a harness uses them: what they accept, the typed
scores, and one clear error for the wrong kind of argument."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders import GRADER_NAMES, Grade, grade
from graders.compare.comparison import compare_file
from graders.config import ConfigError, GraderConfig, RunConfig, load_config
from graders.pipeline import score_file, score_prepared
from graders.readers.files import read_results

SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"
DESK, DESK_CONFIG, WIDE = SAMPLES / "returns_desk.csv", SAMPLES / "returns_desk.config.json", SAMPLES / "returns_ab_wide.csv"


def test_a_configuration_is_a_run_config_its_dict_or_its_path():
    by_object = score_file(DESK, load_config(DESK_CONFIG)).summary
    by_dict = score_file(DESK, json.loads(DESK_CONFIG.read_text())).summary
    by_path = score_file(DESK, str(DESK_CONFIG)).summary
    assert by_object == by_dict == by_path
    assert by_path["graders"]["exact"]["pass_rate"] == 0.2


@pytest.mark.parametrize("config", [None, 3, ["exact"]])
def test_a_configuration_of_another_kind_is_one_clear_error(config):
    with pytest.raises(ConfigError, match="a RunConfig, its JSON form as a dict, or the path of its JSON file"):
        score_file(DESK, config)


def test_compare_file_takes_a_path_or_a_file_read():
    config = {"graders": ["exact", "token_f1"]}
    by_path = compare_file(str(WIDE), config)
    by_file = compare_file(read_results(WIDE), RunConfig.from_dict(config))
    assert by_path.report() == by_file.report()
    assert by_path.metrics["exact"].stats.n == 40
    with pytest.raises(TypeError, match="compare_file takes a file read by read_results, or its path, not int"):
        compare_file(3, config)


@pytest.mark.parametrize("graders, message", [
    (["exact"], r"graders\[0\] must be a GraderConfig \(GraderConfig.make\('exact'\), or RunConfig.from_dict"),
    ([{"name": "exact"}], r"graders\[0\] must be a GraderConfig \(GraderConfig.make\(name, params\)"),
    ("exact", "graders must be a list of GraderConfig"),
])
def test_run_config_names_a_grader_that_is_not_a_grader_config(graders, message):
    with pytest.raises(ConfigError, match=message):
        RunConfig(graders=graders)


def test_configurations_that_grade_alike_are_equal():
    config = load_config(DESK_CONFIG)
    assert RunConfig.from_dict(config.to_dict()) == config  # the defaults written out
    assert RunConfig.from_dict(json.loads(config.to_json())) == config
    assert GraderConfig.make("numeric") == GraderConfig.make("numeric", {"read": "whole", "abs_tol": 0})
    assert GraderConfig.make("numeric") != GraderConfig.make("numeric", {"read": "last"})
    assert RunConfig(graders=[GraderConfig.make("exact")]).graders == (GraderConfig.make("exact"),)  # a list kept as a tuple


def test_scores_are_typed_for_analysis():
    run = score_file(DESK, DESK_CONFIG)
    scores = run.scores()
    assert scores["score"].dtype == np.float64 and str(scores["pass"].dtype) == "boolean"
    means = scores.groupby("scorer")["score"].mean()
    for name, counts in run.summary["graders"].items():
        if counts["mean_score"] is not None:
            assert means[name] == pytest.approx(counts["mean_score"], abs=1e-12), name
    passes = scores.groupby("scorer")["pass"].sum()
    assert passes["exact"] == run.summary["graders"]["exact"]["passed"] == 8
    # the cells are kept: no score is NaN but the empty ones, and undecided is <NA>
    assert (scores["score"].isna() == (run.scored["score"] == "")).all()
    assert (scores["pass"].isna() == (run.scored["pass"] == "")).all()
    assert run.scored["score"].dtype == object  # the scored file's text, untouched


def test_scores_of_a_run_written_while_scoring_point_to_the_file():
    config = load_config(DESK_CONFIG)
    run = score_prepared(read_results(DESK), config, write_to=io.BytesIO())
    with pytest.raises(ValueError, match="wrote its scored rows to a file while scoring"):
        run.scores()


SETTINGS = {"regex": {"pattern": "a+"}, "json_schema": {"schema": {"type": "object", "required": ["a"]}},
            "json_fields": {"threshold": 0.5}, "bleu": {"threshold": 0.3}}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(GRADER_NAMES),
       st.one_of(st.text(max_size=30), st.lists(st.text(max_size=12), min_size=1, max_size=3),
                 st.sampled_from(['{"a": 1}', '{"a": "1", "b": [1, 2]}', "42", "Paris"])),
       st.one_of(st.text(max_size=30), st.sampled_from(['{"a": 1}', '```json\n{"a": 1.0}\n```', "about 41", "paris "])))
def test_a_grade_is_plain_data_for_json(name, expected, output):
    g = grade(name, expected, output, **SETTINGS.get(name, {}))
    d = json.loads(json.dumps(g.to_dict(), allow_nan=False))
    assert list(d) == ["status", "passed", "score", "explanation", "near_miss", "details"]
    assert (d["status"], d["passed"], d["score"], d["explanation"]) == (g.status, g.passed, g.score, g.explanation)
    assert d["near_miss"] == (None if g.near_miss is None else list(g.near_miss))
    assert Grade(**{**d, "near_miss": None if d["near_miss"] is None else tuple(d["near_miss"])}) == g


def test_a_grade_without_a_reference_is_not_judged_and_one_without_an_output_is_refused():
    """Leaving expected out is no reference (as None is), not a reference of ""; an empty
    string given is a reference. Leaving the output out is a mistake, said at once."""
    assert grade("bleu", output="the cat").status == "not_judged"
    assert grade("exact", output="").status == "not_judged"
    assert grade("exact", expected="", output="").status == "pass"
    assert grade("regex", output="abc", pattern="b").status == "pass"  # regex needs no reference
    with pytest.raises(ValueError, match="grade needs the output"):
        grade("exact", expected="a")


def test_one_configuration_reader_for_command_line_library_and_dashboard(tmp_path):
    """config.loads reads every configuration: the dashboard's upload once had its own copy,
    without the branch for an integer past Python's 4,300-digit limit (a traceback there)."""
    from graders.config import ConfigError, load_config, loads
    from ui.graders_form import parse_config

    text = '{"graders": [{"name": "numeric", "abs_tol": ' + "9" * 5001 + "}]}"
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    messages = []
    for read in (lambda: loads(text), lambda: loads(text.encode()), lambda: load_config(path),
                 lambda: parse_config(text.encode())):
        with pytest.raises(ConfigError) as e:
            read()
        messages.append(str(e.value))
    assert len(set(messages)) == 1 and "not valid JSON" in messages[0]


@pytest.mark.parametrize("call, message", [
    (lambda: compare_file(WIDE, {"graders": [{"name": "exact"}]}, resamples=1),
     "resamples must be a whole number from 100 to 1,000,000, not 1"),
    (lambda: compare_file(WIDE, {"graders": [{"name": "exact"}]}, resamples=10**9),
     "resamples must be a whole number from 100 to 1,000,000, not 1000000000"),
    (lambda: compare_file(WIDE, {"graders": [{"name": "exact"}]}, resamples=2000.0),
     "resamples must be a whole number from 100 to 1,000,000, not 2000.0"),
    (lambda: compare_file(WIDE, {"graders": [{"name": "exact"}]}, seed=-1), "seed must be a whole number >= 0, not -1"),
    (lambda: score_file(DESK, {"graders": [{"name": "exact"}]}, workers="2"), "workers must be a whole number >= 1, not '2'"),
    (lambda: score_file(DESK, {"graders": [{"name": "exact"}]}, workers=2.5), "workers must be a whole number >= 1, not 2.5"),
    (lambda: score_file(DESK, {"graders": [{"name": "exact"}]}, workers=True), "workers must be a whole number >= 1, not True"),
    (lambda: score_file(DESK, {"graders": [{"name": "exact"}]}, workers=0), "workers must be a whole number >= 1, not 0"),
    (lambda: score_file(DESK, {"graders": [{"name": "exact"}]}, workers=-1), "workers must be a whole number >= 1, not -1"),
    (lambda: score_file(DESK, {"graders": [{"name": "exact"}]}, max_bytes=1.5),
     "max_bytes must be a whole number >= 1, not 1.5"),
])
def test_library_parameters_are_checked_like_the_command_line(call, message):
    """Nonsense is refused with the valid range, not accepted silently (resamples=1 gave a
    95% interval from one resample; 10**9 ran out of memory)."""
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == message
