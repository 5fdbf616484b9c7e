"""The harness's own verdict beside ours (issue 30): agreement per harness verdict column
and pass-or-fail grader, the same whether the scored rows are kept or written while scoring."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graders.pipeline import score_file
from graders.readers import read_results
from graders.scoring.agreement import verdict_columns

HARNESS = Path(__file__).resolve().parents[1] / "files" / "harness"


def test_only_verdict_columns_count():
    f = read_results(HARNESS / "inspect" / "inspect_log.json")
    assert set(verdict_columns(f)) == {"harness.match.value", "harness.includes.value"}
    p = read_results(HARNESS / "promptfoo" / "results.json")
    assert "harness.pass" in verdict_columns(p) and "harness.reason" not in verdict_columns(p)


def test_a_record_without_the_harness_field_is_undecided(tmp_path):
    """A JSON record that lacks the harness's field (an absent cell, not an empty one) is
    neither agreement nor not; it used to stop the run."""
    rows = [{"id": "1", "expected": "a", "output": "a", "harness.pass": "true"},
            {"id": "2", "expected": "b", "output": "b"},
            {"id": "3", "expected": "c", "output": "x", "harness.pass": "true"}]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    a = score_file(path, {"graders": [{"name": "exact"}]}).summary["harness_agreement"]["harness.pass"]["exact"]
    assert a["rows"] == 2 and a["agree"] == 1 and a["harness_pass_ours_fail"] == 1


def test_agreement_counts_by_hand(tmp_path):
    rows = [  # harness verdicts against exact: agree, agree, harness pass / ours fail, harness fail / ours pass
        {"id": "1", "expected": "a", "output": "a", "harness.pass": "true"},
        {"id": "2", "expected": "b", "output": "x", "harness.pass": "false"},
        {"id": "3", "expected": "c", "output": "C", "harness.pass": "true"},
        {"id": "4", "expected": "d", "output": "d", "harness.pass": "false"},
        {"id": "5", "expected": "e", "output": "e", "harness.pass": ""},  # the harness did not decide
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = score_file(path, {"graders": [{"name": "exact"}, {"name": "token_f1"}]})
    a = run.summary["harness_agreement"]["harness.pass"]
    assert set(a) == {"exact"}  # token_f1 without a threshold is not pass-or-fail
    assert a["exact"] == {"rows": 4, "agree": 2, "harness_pass_ours_fail": 1, "harness_fail_ours_pass": 1,
                          "first_disagreements": ["3", "4"]}
    proc = subprocess.run([sys.executable, "-m", "graders", "score", str(path), "--grader", "exact",
                           "--out", str(tmp_path / "s.csv"), "--summary", str(tmp_path / "s.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "s.json").read_text())["harness_agreement"] == {"harness.pass": {"exact": a["exact"]}}
    assert "harness.pass vs exact: 2 of 4 rows agree (harness pass, ours fail: 1; harness fail, ours pass: 1)" in proc.stdout


@pytest.mark.parametrize("path", ["inspect/inspect_log.eval", "promptfoo/results.json", "lm_eval/samples_gsm8k_mini.jsonl"])
def test_a_harness_file_gets_its_agreement(path):
    run = score_file(HARNESS / path, {"graders": [{"name": "exact"}, {"name": "contains"}]})
    agreement = run.summary["harness_agreement"]
    assert agreement and all(set(per) == {"exact", "contains"} for per in agreement.values())
    for per in agreement.values():
        for a in per.values():
            assert a["agree"] + a["harness_pass_ours_fail"] + a["harness_fail_ours_pass"] == a["rows"]


def test_a_file_without_harness_columns_has_no_agreement_key():
    run = score_file(Path(__file__).resolve().parents[2] / "sample_data" / "returns_desk.csv", {"graders": [{"name": "exact"}]})
    assert "harness_agreement" not in run.summary
