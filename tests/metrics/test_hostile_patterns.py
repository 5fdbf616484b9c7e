"""Patterns that crashed or hung the process before V8 (issue 32, 2): a 60,000-alternative
regex as a configuration regex, a schema pattern and a per-row assertion; a character class
nested 990 deep under the v flag. Each is now run as JavaScript runs it, or refused with a
message; never a crash, a RecursionError or a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

from graders import grade

BIG = "(?:" + "|".join(f"w{i}" for i in range(60_000)) + ")"
DEEP_V = "[" * 990 + "a" + "]" * 990


def test_a_huge_alternation_is_a_pattern_like_any_other():
    g = grade("regex", output="id w59999", pattern=BIG + "$")
    assert g.status == "pass" and g.details["span"] == (3, 9)
    schema = {"type": "object", "properties": {"k": {"type": "string", "pattern": "^" + BIG + "$"}}}
    assert grade("json_schema", output='{"k": "w42"}', schema=schema).status == "pass"
    assert grade("json_schema", output='{"k": "x42"}', schema=schema).status == "fail"


def test_a_class_nested_990_deep_under_v_is_run_not_a_recursion_error():
    g = grade("regex", output="a", pattern=DEEP_V, flags="v")
    assert g.status == "pass"
    deeper = "[" * 20_000 + "a" + "]" * 20_000
    g = grade("regex", output="a", pattern=deeper, flags="v")
    assert g.status in ("pass", "error") and g.explanation


def test_the_command_line_scores_them_in_a_configuration_and_as_assertions(tmp_path):
    rows = [{"id": str(i), "expected": "x", "output": f"w{i * 997}",
             "assert": json.dumps([{"type": "regex", "value": BIG}, {"type": "regex", "value": DEEP_V}])}
            for i in range(5)]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "c.json").write_text(json.dumps({"graders": [{"name": "regex", "pattern": "^" + BIG + "$"}]}))
    proc = subprocess.run([sys.executable, "-m", "graders", "score", "r.jsonl", "--config", "c.json", "--out", "s.csv"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and not list(tmp_path.glob("*.part"))
    assert "regex        passed      5" in proc.stdout
