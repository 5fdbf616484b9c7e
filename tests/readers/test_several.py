"""Several files at once, two runs compared, segment files, and the harnesses' own files
through read_results and the command line (SPEC §10)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graders.readers import read_results
from graders.readers.several import first_versions, read_several

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "tests" / "files" / "harness"


def gradeboard(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders", *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("path, fmt, rows", [
    ("promptfoo/results.json", "promptfoo", 10),
    ("inspect/inspect_log.eval", "inspect-eval", 6),
    ("inspect/inspect_log.json", "inspect-json", 6),
    ("lm_eval/samples_gsm8k_mini.jsonl", "lm-eval", 6),
    ("parquet/results.parquet", "parquet", 3),
])
def test_harness_files_are_detected_and_read(path, fmt, rows):
    f = read_results(HARNESS / path)
    assert f.format == fmt and len(f.frame) == rows
    assert {"id", "output"} <= set(f.columns)


def test_two_runs_are_two_systems_named_after_their_files(tmp_path):
    a, b = tmp_path / "model-a.jsonl", tmp_path / "model-b.jsonl"
    a.write_text('{"id": "1", "expected": "x", "output": "x"}\n{"id": "2", "expected": "y", "output": "z"}\n')
    b.write_text('{"id": "1", "expected": "x", "output": "q"}\nnot json\n{"id": "2", "expected": "y", "output": "y"}\n')
    f = read_several([str(a), str(b)])
    assert f.frame["version"].tolist() == ["model-a", "model-a", "model-b", "model-b"]
    assert f.frame["file"].tolist() == ["model-a.jsonl"] * 2 + ["model-b.jsonl"] * 2
    assert f.records == (1, 2, 3, 5) and f.unreadable[0][0] == 4  # numbered on from file to file
    assert first_versions(f, [str(a), str(b)]) == ("model-a", "model-b")
    proc = gradeboard("compare", str(a), str(b), "--grader", "exact", "--out", "c.csv", "--summary", "s.json",
                      cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["metrics"]["exact"]["wins"] == 1 and summary["metrics"]["exact"]["losses"] == 1
    proc = gradeboard("score", str(a), str(b), "--out", "s.csv", cwd=tmp_path)
    assert proc.returncode == 0 and "[model-a]" in proc.stdout and "[model-b]" in proc.stdout


def test_segment_files_score_each_system_as_sacrebleu_reads_them(tmp_path):
    sacrebleu = pytest.importorskip("sacrebleu")
    seg = HARNESS / "segments"
    proc = gradeboard("score", "--ref", str(seg / "ref.txt"), "--hyp", str(seg / "sys_a.txt"),
                      "--hyp", str(seg / "sys_b.txt"), "--grader", "bleu", "--out", "s.csv", "--summary", "s.json",
                      cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "s.json").read_text())

    def lines(path: Path) -> list[str]:  # as sacrebleu's command line reads a file
        with open(path, encoding="utf-8", newline="\n") as f:
            return [line.rstrip() for line in f]

    for system in ("sys_a", "sys_b"):
        want = sacrebleu.corpus_bleu(lines(seg / f"{system}.txt"), [lines(seg / "ref.txt")]).score / 100
        assert summary["corpus"][system]["bleu"]["corpus"] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("args, message", [
    (["x.jsonl", "--ref", "r.txt", "--hyp", "h.txt"], "give results files or --ref/--hyp segment files, not both"),
    ([], "no results file given"),
    (["--ref", "r.txt"], "segment files need at least one --ref and one --hyp"),
])
def test_bad_inputs_are_one_line(tmp_path, args, message):
    proc = gradeboard("score", *args, "--out", "s.csv", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr == f"gradeboard: {message}\n"


def test_compare_takes_at_most_two_files(tmp_path):
    for name in "abc":
        (tmp_path / f"{name}.jsonl").write_text('{"id": "1", "output": "x"}\n')
    proc = gradeboard("compare", "a.jsonl", "b.jsonl", "c.jsonl", "--out", "c.csv", cwd=tmp_path)
    assert proc.returncode == 2 and "not 3 files" in proc.stderr
