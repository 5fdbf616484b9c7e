"""`gradeboard score` on a file larger than a block scores it a block at a time
(``scoring.stream``) and writes what reading it whole writes, byte for byte: the scored
file and the summary (counts, intervals clustered by repeat, corpus BLEU and chrF, the
left-out report with duplicate keys named across blocks, the harness's agreement) — with
one process or a pool, to a path or to standard output. A failed run leaves the old file
and no spool behind."""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graders.readers.chunks as chunks
from graders.cli import main
from graders.config import as_run_config
from graders.pipeline import score_path, score_prepared
from graders.readers.several import read_several
from graders.scoring import parts as P
from graders.scoring import stream
from graders.scoring.stream import PartsRun

TWELVE = {"graders": [
    {"name": "exact"}, {"name": "normalized"}, {"name": "contains"},
    {"name": "regex", "pattern": "\\d+", "at": "anywhere"}, {"name": "numeric", "read": "last"},
    {"name": "json_schema", "schema": {"type": "object", "required": ["action"]}},
    {"name": "valid_json"}, {"name": "json_fields"}, {"name": "token_f1"},
    {"name": "bleu"}, {"name": "rouge_l"}, {"name": "chrf"},
], "overall": None}
WORDS = "the cat sat on a mat 42 3.5 refund order RT-12 yes no".split() + ['{"action": "refund"}']


def _rows(seed: int, n: int = 1500) -> tuple[list[dict], bool]:
    rng = random.Random(seed)
    repeats = seed % 2 == 0
    rows = []
    for i in range(n):
        r = {"id": str(rng.randrange(n // 2)), "version": rng.choice(["A", "B"]),
             "expected": " ".join(rng.choices(WORDS, k=rng.randint(1, 6))),
             "output": " ".join(rng.choices(WORDS, k=rng.randint(0, 7)))}
        if repeats:
            r["repeat"] = rng.choice(["1", "2", "3", "", "x"])
        if rng.random() < 0.5:
            r["harness.pass"] = rng.choice(["true", "false", ""])
        if rng.random() < 0.05:
            del r["output"]
        if i > n * 2 // 3 and rng.random() < 0.05:
            r["late"] = "1"
        rows.append(r)
    return rows, repeats


def _write(path, rows: list[dict], repeats: bool) -> None:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return
    cols = ["id", "version", "expected", "output"] + (["repeat"] if repeats else []) + ["harness.pass"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([r.get(c, "") for c in cols])


def _score(monkeypatch, tmp_path, path, block: int, *args: str) -> tuple[int, bytes, dict]:
    monkeypatch.setattr(chunks, "BLOCK_BYTES", block)
    out, summary = tmp_path / f"out{block}.csv", tmp_path / f"summary{block}.json"
    code = main(["score", str(path), "--out", str(out), "--summary", str(summary), *args])
    return code, out.read_bytes(), json.loads(summary.read_text())


@pytest.mark.parametrize("seed, suffix, workers", [(1, ".jsonl", "2"), (2, ".csv", "1"), (3, ".csv", "2"),
                                                   (4, ".jsonl", "1")])
def test_streamed_run_writes_what_the_whole_file_run_writes(monkeypatch, tmp_path, seed, suffix, workers):
    rows, repeats = _rows(seed)
    path = tmp_path / f"r{suffix}"
    _write(path, rows, repeats)
    (tmp_path / "c.json").write_text(json.dumps(TWELVE))
    args = ("--config", str(tmp_path / "c.json"), "--workers", workers) + (("--include-output",) if seed % 2 else ())
    whole = _score(monkeypatch, tmp_path, path, 1 << 40, *args)
    parts = []
    monkeypatch.setattr("graders.scoring.stream.PartsRun", _counting(parts))
    streamed = _score(monkeypatch, tmp_path, path, 4000, *args)
    assert parts and parts[0] > 10  # it was streamed, in many blocks
    assert streamed == whole
    summary = whole[2]
    assert summary["left_out"]["reasons"]["duplicate key"]["count"] > 0
    assert "harness.pass" in summary["harness_agreement"]
    assert summary["corpus"]["A"]["bleu"]["corpus"] is not None


def _counting(seen: list) -> type:
    class Counted(PartsRun):
        def __init__(self, *a):
            super().__init__(*a)
            seen.append(self.parts)
    return Counted


def test_several_files_stream_as_they_are_read_as_one(monkeypatch, tmp_path):
    """Two runs and a small third file: a version column named after each file where it
    has none, a file column, record numbers going on from file to file."""
    first, rep = _rows(7, 900)
    _write(tmp_path / "model-a.jsonl", first, rep)
    second, rep2 = _rows(9, 900)
    _write(tmp_path / "model-b.jsonl", [{k: v for k, v in r.items() if k != "version"} for r in second], rep2)
    (tmp_path / "small.csv").write_text("id,expected,output\n1,a,a\n")
    files = [str(tmp_path / n) for n in ("model-a.jsonl", "model-b.jsonl", "small.csv")]
    (tmp_path / "c.json").write_text(json.dumps(TWELVE))
    whole = score_prepared(read_several(files), as_run_config(TWELVE), write_to=tmp_path / "whole.csv", workers=2)
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 5000)
    run = score_path(files, tmp_path / "c.json", write_to=tmp_path / "blocks.csv", workers=2)
    assert isinstance(run, PartsRun) and run.parts > 10
    assert (tmp_path / "blocks.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert run.summary == whole.summary
    assert set(run.summary["systems"]) >= {"A", "B", "model-b", "small"}


def test_a_corpus_figure_from_the_outputs_as_written_takes_a_second_pass(monkeypatch, tmp_path):
    """BLEU with extraction: a row with nothing extracted has no sentence statistics, so the
    corpus figure is taken from the outputs as written, over the blocks again."""
    rng = random.Random(3)
    rows = [{"id": str(i), "expected": rng.choice(["42", "7"]), "version": rng.choice(["A", "B"]),
             "output": rng.choice(["The answer is #### 42", "no number here", "#### 7 apples", "so 3 + 4 = 7"])}
            for i in range(600)]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ("--grader", "bleu:extract=gsm8k", "--grader", "chrf:extract=gsm8k")
    whole = _score(monkeypatch, tmp_path, tmp_path / "r.jsonl", 1 << 40, *args)
    passes = []
    real = stream.raw_statistics
    monkeypatch.setattr(stream, "raw_statistics", lambda *a: passes.append(a[2:]) or real(*a))
    streamed = _score(monkeypatch, tmp_path, tmp_path / "r.jsonl", 3000, *args)
    assert streamed == whole and whole[2]["corpus"]["A"]["bleu"]["corpus"] is not None
    assert ("bleu", "A") in passes


def test_a_duplicate_in_a_later_block_is_named_with_its_first_row(monkeypatch, tmp_path):
    lines = ["id,expected,output"] + [f"{i},x,x" for i in range(1, 3001)] + ["7,x,y", "2999,x,y"]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    code, _, summary = _score(monkeypatch, tmp_path, tmp_path / "r.csv", 2000, "--grader", "exact")
    dup = summary["left_out"]["reasons"]["duplicate key"]
    assert code == 0 and dup["count"] == 2 and dup["rows"] == [3001, 3002]
    assert dup["notes"] == ["row 3001 has the same id as row 7", "row 3002 has the same id as row 2999"]
    assert summary["cases"] == 3000


def test_standard_output_gets_the_same_lines(monkeypatch, tmp_path, capfdbinary):
    rows, repeats = _rows(5, 800)
    _write(tmp_path / "r.csv", rows, repeats)
    code, whole, _ = _score(monkeypatch, tmp_path, tmp_path / "r.csv", 1 << 40, "--grader", "bleu")
    capfdbinary.readouterr()
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 3000)
    assert main(["score", str(tmp_path / "r.csv"), "--out", "-", "--grader", "bleu"]) == 0
    assert capfdbinary.readouterr().out == whole


def test_the_library_call_streams_and_returns_the_summary(monkeypatch, tmp_path):
    rows, repeats = _rows(6, 600)
    _write(tmp_path / "r.jsonl", rows, repeats)
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 5000)
    run = score_path(tmp_path / "r.jsonl", {"graders": [{"name": "exact"}]}, write_to=tmp_path / "o.csv", workers=2)
    assert isinstance(run, PartsRun) and run.parts > 5
    assert run.summary["graders"]["exact"]["graded"] == len((tmp_path / "o.csv").read_text().splitlines()) - 1


def test_a_run_that_fails_midway_leaves_the_old_file_and_no_spool(tmp_path):
    rows = "".join(f'{i},"{"the cat sat on the mat " * 8}{i}","{"a cat sat on a mat " * 8}{i}"\n' for i in range(30_000))
    (tmp_path / "big.csv").write_text("id,expected,output\n" + rows)
    (tmp_path / "s.csv").write_text("old\n")
    # a grader that fails on the 20,000th row's part: the whole run fails with one message
    code = (
        "import sys, graders.scoring.stream as s\n"
        "real = s.score_part\n"
        "def failing(part, *a, **k):\n"
        "    if len(part.prepared.rows) and part.prepared.rows['record'].iloc[0] > 20000: raise MemoryError\n"
        "    return real(part, *a, **k)\n"
        "s.score_part = failing\n"
        "from graders.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, "score", "big.csv", "--grader", "exact", "--workers", "2",
                           "--out", "s.csv"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and proc.stderr == "gradeboard: out of memory; try a smaller file or fewer --workers\n"
    assert (tmp_path / "s.csv").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.csv", "s.csv"]


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.integers(0, 30), min_size=1, max_size=120), cuts=st.lists(st.integers(1, 119), max_size=6),
       same_high=st.booleans())
def test_duplicates_found_part_by_part_are_the_first_occurrences(ids, cuts, same_high):
    """``DuplicateFinder`` over any split of the records into parts, against a dict of first
    occurrences; ``same_high``: every key shares its high 64 bits (the index's slow path)."""
    keys = np.array([[0 if same_high else i * 7919 + 1, i] for i in ids], dtype=np.uint64)
    records = np.arange(1, len(ids) + 1, dtype=np.int64)
    finder = P.DuplicateFinder({"id": "id"})
    finder.index.RUN = 8  # many small runs
    bounds = sorted({0, len(ids), *[c for c in cuts if c < len(ids)]})
    found = [finder.add(records[a:b], keys[a:b], np.ones(b - a, dtype=np.int64)) for a, b in zip(bounds, bounds[1:])]
    first: dict[int, int] = {}
    want, notes = [], []
    for r, i in zip(records.tolist(), ids):
        if i in first:
            want.append(r)
            notes.append(f"row {r} has the same id as row {first[i]}")
        else:
            first[i] = r
    got = finder.result(found)
    assert np.concatenate(found).tolist() == want and got.count == len(want) == got.outputs
    assert list(got.notes) == notes[:20] and list(got.rows) == want[:20]
