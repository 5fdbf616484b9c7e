"""Two runs and segment files as uploads (issue 30): the Compare page compares two runs of
the same cases, each named after its file, A first; segment files (one segment a line, as
sacrebleu reads them) score and compare as the command line's --ref/--hyp; a bad pair is one
error, nothing lost."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from graders.compare.comparison import compare_file  # noqa: E402
from graders.readers.several import first_versions, read_segment_files, read_several  # noqa: E402

TIMEOUT = 120
RUN_A = b"id,expected,output\n1,Paris,Paris\n2,Rome,Rome\n3,Oslo,Bergen\n4,Bern,Bern\n"
RUN_B = (b'{"id": "1", "expected": "Paris", "output": "paris"}\n{"id": "2", "expected": "Rome", "output": "Rome"}\n'
         b'{"id": "3", "expected": "Oslo", "output": "Oslo"}\n{"id": "4", "expected": "Bern", "output": "Zurich"}\n')
REF = "The cat sat on the mat.\nA dog barked.\nIt rained all day.\n"
SYS1 = "The cat sat on a mat.\nA dog barked.\nIt rained all day long.\n"
SYS2 = "A cat is on the mat.\nThe dog barks.\nRain all day.\n"


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=TIMEOUT)
    return at.run()


def uploader(at, key):
    return next(u for u in at.file_uploader if u.key == key)


def errors(at):
    return [e.value for e in at.error]


def metric_rows(at):
    return next(d.value for d in at.dataframe if "Reading" in d.value.columns and "In words" in d.value.columns)


def test_two_runs_uploaded_compare_as_the_command_line_compares_them(tmp_path):
    at = page("compare.py")
    uploader(at, "compare_run_a").set_value(("model-a.csv", RUN_A, "text/csv"))
    uploader(at, "compare_run_b").set_value(("model-b.jsonl", RUN_B, "application/json"))
    at.run()
    assert not at.exception and errors(at) == []
    assert any("model-a.csv and model-b.jsonl" in m.value.replace("\\", "") for m in at.markdown)
    table = metric_rows(at).set_index("Metric")
    exact = table.loc["Exact match"]
    # the command line on the same two files: A = model-a, B = model-b
    (tmp_path / "model-a.csv").write_bytes(RUN_A)
    (tmp_path / "model-b.jsonl").write_bytes(RUN_B)
    paths = [str(tmp_path / "model-a.csv"), str(tmp_path / "model-b.jsonl")]
    file = read_several(paths)
    a, b = first_versions(file, paths)
    assert (a, b) == ("model-a", "model-b")
    want = compare_file(file, {"graders": [{"name": "exact"}]}, version_a=a, version_b=b).metrics["exact"].stats
    assert (exact["Paired n"], exact["Wins"], exact["Losses"], exact["Ties"]) == (want.n, want.wins, want.losses,
                                                                                  want.ties) == (4, 2, 1, 1)


def test_two_runs_with_one_name_are_one_clear_error():
    at = page("compare.py")
    uploader(at, "compare_run_a").set_value(("run.csv", RUN_A, "text/csv"))
    uploader(at, "compare_run_b").set_value(("run.csv", RUN_A, "text/csv"))
    at.run()
    assert not at.exception
    assert len(errors(at)) == 1 and "two files are named 'run.csv'" in errors(at)[0]


@pytest.mark.parametrize("name", ["score.py", "compare.py"])
def test_segment_files_read_as_the_command_lines_ref_and_hyp(tmp_path, name):
    at = page(name)
    prefix = "score" if name == "score.py" else "compare"
    uploader(at, f"{prefix}_seg_ref").set_value(("ref.txt", REF.encode(), "text/plain"))
    uploader(at, f"{prefix}_seg_hyp").set_value([("sys1.txt", SYS1.encode(), "text/plain"),
                                                 ("sys2.txt", SYS2.encode(), "text/plain")])
    at.run()
    assert not at.exception and errors(at) == []
    loaded = at.session_state["gb_file"]
    for path, text in (("ref.txt", REF), ("sys1.txt", SYS1), ("sys2.txt", SYS2)):
        (tmp_path / path).write_text(text, encoding="utf-8")
    want = read_segment_files([str(tmp_path / "ref.txt")], [str(tmp_path / "sys1.txt"), str(tmp_path / "sys2.txt")])
    assert loaded.frame.equals(want.frame) and loaded.records == want.records
    assert sorted(set(loaded.frame["version"])) == ["sys1", "sys2"]
    if name == "compare.py":
        assert "Exact match" in set(metric_rows(at)["Metric"])


def test_segment_files_of_different_lengths_are_one_clear_error():
    at = page("score.py")
    uploader(at, "score_seg_ref").set_value(("ref.txt", REF.encode(), "text/plain"))
    uploader(at, "score_seg_hyp").set_value([("sys1.txt", b"only one line\n", "text/plain")])
    at.run()
    assert not at.exception
    assert len(errors(at)) == 1 and "sys1.txt has 1 lines" in errors(at)[0]
