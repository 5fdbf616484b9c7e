"""The command line: `gradeboard score` / `python -m graders`, exit codes and messages."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from graders.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"
SAMPLE = SAMPLES / "returns_desk.csv"
CONFIG = ROOT / "sample_data" / "returns_desk.config.json"


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_sample_with_its_configuration(tmp_path, capsys):
    out, summary = tmp_path / "scored.csv", tmp_path / "summary.json"
    code, stdout, err = run(["score", SAMPLE, "--config", CONFIG, "--out", out, "--summary", summary], capsys)
    assert code == 0, err
    scored = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(scored.columns) == ["item", "system", "repeat", "scorer", "score", "pass", "error", "near_miss", "explanation", "metadata"]
    config = json.loads(CONFIG.read_text())
    assert len(scored) == 40 * (len(config["graders"]) + 1)
    assert set(scored["system"]) == {"returns-assistant-v2"}
    s = json.loads(summary.read_text())
    exact = s["graders"]["exact"]
    assert exact["graded"] == 40 and exact["passed"] + exact["failed"] == 40
    assert s["graders"]["normalized"]["passed"] > exact["passed"]  # the sample's formatting gaps
    for key in ("graded", "passed", "failed", "not_judged", "errors", "near_misses", "mean_score", "pass_rate_ci95"):
        assert key in exact
    assert set(s["corpus"]["returns-assistant-v2"]) == {"bleu", "chrf"}
    assert "40 rows scored" in stdout


def test_python_dash_m_and_console_script_agree(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    r1 = subprocess.run([sys.executable, "-m", "graders", "score", str(SAMPLE), "--out", str(a)], capture_output=True, text=True)
    assert r1.returncode == 0, r1.stderr
    exe = Path(sys.executable).with_name("gradeboard")
    if exe.exists():
        r2 = subprocess.run([str(exe), "score", str(SAMPLE), "--out", str(b)], capture_output=True, text=True)
        assert r2.returncode == 0, r2.stderr
        assert a.read_bytes() == b.read_bytes()


def test_include_output_and_grader_flags(tmp_path, capsys):
    out = tmp_path / "s.csv"
    code, _, err = run(["score", SAMPLE, "--grader", "exact", "--grader", "numeric", "--include-output", "--out", out], capsys)
    assert code == 0, err
    scored = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert scored.columns[-1] == "output" and set(scored["scorer"]) == {"exact", "numeric"}


def test_fail_under_gates(tmp_path, capsys):
    out = tmp_path / "s.csv"
    code, _, err = run(["score", SAMPLE, "--grader", "exact", "--fail-under", "exact=0.9", "--out", out], capsys)
    assert code == 1 and "fail-under: exact pass rate" in err
    code, _, _ = run(["score", SAMPLE, "--grader", "exact", "--fail-under", "exact=0.1", "--out", out], capsys)
    assert code == 0
    # A continuous grader with a threshold has a pass rate (the sample's rouge_l: 0.75 at 0.6).
    code, _, err = run(["score", SAMPLE, "--config", CONFIG, "--fail-under", "rouge_l=0.8", "--out", out], capsys)
    assert code == 1 and "fail-under: rouge_l pass rate 0.7500 < 0.8" in err


@pytest.mark.parametrize(
    "content, message",
    [
        # numeric cannot judge a row whose expected answer holds no number: no pass rate to gate on
        (b"id,expected,output\n1,no number,42\n2,none here,7\n", "fail-under: numeric has no pass rate: no row judged (output)"),
        # every row left out: nothing was measured
        (b"id,expected,output\n1,,42\n2,,7\n", "fail-under: numeric: no rows scored"),
    ],
)
def test_fail_under_with_nothing_judged_is_not_met(tmp_path, capsys, content, message):
    path = write(tmp_path / "f.csv", content)
    code, _, err = run(["score", path, "--grader", "numeric", "--fail-under", "numeric=0.5", "--out", tmp_path / "s.csv"], capsys)
    assert code == 1 and message in err, err


@pytest.mark.parametrize("max_mb", ["30000", "1e300", "1e308"])
def test_a_huge_max_mb_reads_a_small_file(tmp_path, capsys, max_mb):
    """A limit far above the file is no limit to reach (it once reserved the limit's bytes:
    "out of memory" at 30000, a traceback at 1e300 and 1e308)."""
    f = write(tmp_path / "tiny.csv", b"id,expected,output\n1,a,a\n")
    code, stdout, err = run(["score", f, "--grader", "exact", "--max-mb", max_mb, "--out", tmp_path / "o.csv"], capsys)
    assert (code, err) == (0, "") and stdout.startswith("1 row scored\n")


def test_rows_without_an_id_column_are_numbered(tmp_path, capsys):
    """Seed 004's rows of expected and output alone: each row's id is its row number."""
    f = write(tmp_path / "pairs.tsv", b"expected\toutput\nCanberra\tCanberra is the capital\nParis\tParis\n")
    out = tmp_path / "s.csv"
    code, stdout, err = run(["score", f, "--grader", "exact", "--grader", "contains", "--out", out], capsys)
    assert code == 0, err
    assert stdout.splitlines()[:2] == [
        "2 rows scored",
        "no column is mapped to id: each row's id is its row number (map one with the configuration's columns)",
    ]
    scored = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert scored[["item", "scorer", "pass"]].values.tolist() == [
        ["1", "exact", "false"], ["1", "contains", "true"], ["2", "exact", "true"], ["2", "contains", "true"]]


def test_no_header_reads_two_columns_as_expected_and_output(tmp_path, capsys):
    f = write(tmp_path / "pairs.tsv", b"Canberra\tCanberra is the capital\nParis\tParis\n")
    out = tmp_path / "s.csv"
    code, stdout, err = run(["score", f, "--no-header", "--grader", "exact", "--out", out], capsys)
    assert code == 0 and stdout.startswith("2 rows scored"), err
    scored = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert scored[["item", "pass"]].values.tolist() == [["1", "false"], ["2", "true"]]
    # without the flag the first row is the header, whose names say what it is
    code, _, err = run(["score", f, "--grader", "exact", "--out", out], capsys)
    assert code == 2 and "no column is mapped to output; choose one of: Canberra, Canberra is the capital" in err


def test_version(capsys):
    from importlib import metadata

    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out == f"gradeboard {metadata.version('gradeboard')}\n"


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    "name, content, extra, message",
    [
        ("empty.csv", b"", [], "the file is empty"),
        ("bin.csv", b"\x00\x01\x02\x03", [], "binary file"),
        ("bad.json", b'[{"id": 1,', [], "malformed JSON at line 1"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--config", "CFG:{\"graders\": [{\"name\": \"exact\", \"x\": 1}]}"],
         "unknown parameter 'x' for grader 'exact'"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--config", "CFG:{\"graders\": [{\"name\": \"exactly\"}]}"],
         "unknown grader 'exactly'"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--config", "CFG:{\"columns\": {\"output\": \"resp\"}}"],
         "the column 'resp' mapped to output is not in the file"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--config", "CFG:{not json"], "configuration is not valid JSON"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--fail-under", "exact"], "--fail-under takes GRADER=RATE"),
        ("ok.csv", b"id,expected,output\n1,a,a\n",
         ["--config", "CFG:{\"graders\": [{\"name\": \"numeric\", \"abs_tol\": 1" + "0" * 400 + "}]}"],
         "parameter 'abs_tol' of grader 'numeric' must be a finite number, not an integer of 401 digits"),
        ("ok.csv", b"id,expected,output\n1,a,a\n",
         ["--config", "CFG:{\"graders\": [{\"name\": \"json_schema\", \"schema\": " + "{\"items\": " * 3000 + "{}" + "}" * 3000 + "}]}"],
         "nests too deeply"),
        ("ok.csv", b"id,expected,output\n1,a,a\n",
         ["--config", "CFG:{\"graders\": [{\"name\": \"regex\", \"pattern\": \"a\", \"flags\": \"zz\"}]}"],
         "parameter 'flags' of grader 'regex': 'z' is not a JavaScript regex flag"),
        ("ok.csv", b"id,expected,output\n1,a,a\n",
         ["--config", "CFG:{\"graders\": [{\"name\": \"json_schema\", \"schema\": {\"type\": \"nope\"}}]}"],
         "the schema of grader 'json_schema' cannot be used: The schema is not a valid Draft 2020-12 schema"),
        ("ok.csv", b"id,expected,output\n1,a,a\n",
         ["--config", "CFG:{\"graders\": [{\"name\": \"regex\", \"pattern\": \"(?P<x>a)\"}]}"],
         "(?P<x>…) is written (?<x>…) in JavaScript"),
        ("ok.csv", b"id,expected,output\n1,a,a\n",
         ["--config", "CFG:{\"graders\": [{\"name\": \"regex\", \"pattern\": \"\"}]}"], "grader 'regex' needs a pattern"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--grader", "exact", "--max-mb", "nan"], "--max-mb takes a number of MB > 0, not nan"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--grader", "exact", "--max-mb", "inf"], "--max-mb takes a number of MB > 0, not inf"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--grader", "exactly"],
         "gradeboard: configuration: --grader: unknown grader 'exactly'; valid graders: exact, normalized, contains, "),
        # A gate with no pass rate to read would never trip: refused before scoring.
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--grader", "bleu", "--fail-under", "bleu=0.9"],
         "--fail-under: grader 'bleu' has no pass rate without a threshold; give it one in the configuration"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--grader", "exact", "--fail-under", "numeric=0.9"],
         "--fail-under: grader 'numeric' is not run; run: exact (add it with --grader)"),
        ("ok.csv", b"id,expected,output\n1,a,a\n", ["--grader", "exact", "--fail-under", "overall=0.9"],
         "--fail-under: overall needs an overall rule ('all' or 'any') in the configuration"),
        # a column name with a line break is shown as a JSON string: the message stays one line
        ("nl.csv", b'id,"exp\nected",output\n1,a,a\n', ["--grader", "exact"],
         'a selected grader needs the expected answer, and no column is mapped to expected; choose one of: id, "exp\\nected", output'),
        ("nl.jsonl", b'{"i\\nd":"1","outpu\\nt":"x"}\n', ["--grader", "valid_json"],
         'no column is mapped to output; choose one of: "i\\nd", "outpu\\nt"'),
        ("nl.jsonl", b'{"i\\nd":"1","output":"x"}\n', ["--config", 'CFG:{"columns": {"id": " id"}, "graders": [{"name": "valid_json"}]}'],
         "the column ' id' mapped to id is not in the file (its columns: \"i\\nd\", output)"),
        # from an audit: structural faults that lost or merged rows without a word
        ("dup.json", b'{"rows": [{"id": 1, "expected": "a", "output": "a"}], "rows": [{"id": 2, "expected": "b", "output": "b"}]}',
         ["--grader", "exact"], 'the document has "rows" more than once'),
        ("clash.csv", b"id,version,expected,output,output_b\n1,x,a,a,b\n1,x/output_b,a,c,d\n", ["--grader", "exact"],
         "the version 'x/output_b' is also the name of another version's output_b system"),
        ("quote.csv", b'id,expected,output\n1,a,"a\n', ["--grader", "exact"],
         "malformed CSV: a quoted field in record 1 is never closed"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, name, content, extra, message):
    f = write(tmp_path / name, content)
    args = []
    for a in extra:
        if a.startswith("CFG:"):
            cfg = tmp_path / "cfg.json"
            cfg.write_text(a[4:])
            a = str(cfg)
        args.append(a)
    code, _, err = run(["score", f, *args, "--out", tmp_path / "o.csv"], capsys)
    assert code == 2
    assert message in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_missing_file(tmp_path, capsys):
    code, _, err = run(["score", tmp_path / "nope.csv", "--out", tmp_path / "o.csv"], capsys)
    assert code == 2 and "no such file" in err


def test_no_traceback_from_a_subprocess(tmp_path):
    f = write(tmp_path / "bad.jsonl", b"\xff\xfe\x00garbage")
    r = subprocess.run([sys.executable, "-m", "graders", "score", str(f), "--out", str(tmp_path / "o.csv")], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.startswith("gradeboard: ")


def test_a_closed_pipe_ends_the_report_not_the_run(tmp_path):
    """`gradeboard score ... | head -1`: no traceback, the files written, the gate still decides."""
    out = tmp_path / "scored.csv"
    proc = subprocess.Popen(
        [sys.executable, "-m", "graders", "score", str(SAMPLE), "--grader", "exact", "--fail-under", "exact=0.9",
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader goes away before anything is printed
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "fail-under" in err
    assert out.exists() and out.read_text(encoding="utf-8").startswith("item,system,repeat,scorer")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("entry", [["-m", "graders"], ["-c", "from graders.cli import run; run()"]])
def test_a_full_stdout_is_one_line_and_the_run_goes_on(tmp_path, entry):
    """The report cannot be printed (stdout is a full disk): one line says so, the files
    are written, and the exit code is the run's (the entry point's own final flush too)."""
    out = tmp_path / "scored.csv"
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, *entry, "score", str(SAMPLE), "--grader", "exact", "--out", str(out)],
                           stdout=full, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert r.stderr == "gradeboard: could not print the report: No space left on device\n"
    assert out.read_text(encoding="utf-8").startswith("item,system,repeat,scorer")


def gradeboard(*args, **kwargs):
    """``python -m graders`` in a subprocess, with bytes on stdout and text on stderr."""
    r = subprocess.run([sys.executable, "-m", "graders", *map(str, args)], capture_output=True, **kwargs)
    return r.returncode, r.stdout, r.stderr.decode()


AB_LONG = SAMPLES / "returns_ab_long.jsonl"


@pytest.mark.parametrize("command, source, extra", [
    ("score", SAMPLE, ["--config", CONFIG]),
    ("score", SAMPLE, ["--config", CONFIG, "--include-output", "--workers", "2"]),
    ("compare", AB_LONG, ["--grader", "exact", "--grader", "token_f1"]),
])
def test_out_dash_writes_the_file_to_stdout_and_the_report_to_stderr(tmp_path, command, source, extra):
    """``--out -``: standard output carries the very bytes ``--out FILE`` writes, and
    nothing else; the report moves to stderr."""
    path = tmp_path / "file.csv"
    code, stdout, err = gradeboard(command, source, *extra, "--out", path)
    assert code == 0, err
    report = stdout.decode()
    code, stdout, err = gradeboard(command, source, *extra, "--out", "-")
    assert code == 0, err
    assert stdout == path.read_bytes()
    assert err == report


def test_summary_dash_writes_the_summary_to_stdout(tmp_path):
    summary = tmp_path / "s.json"
    code, _, err = gradeboard("score", SAMPLE, "--config", CONFIG, "--out", tmp_path / "a.csv", "--summary", summary)
    assert code == 0, err
    code, stdout, err = gradeboard("score", SAMPLE, "--config", CONFIG, "--out", tmp_path / "b.csv", "--summary", "-")
    assert code == 0 and "rows scored" in err
    assert stdout == summary.read_bytes()
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_out_and_summary_cannot_both_be_stdout(tmp_path, capsys):
    code, stdout, err = run(["score", SAMPLE, "--out", "-", "--summary", "-"], capsys)
    assert code == 2 and stdout == ""
    assert err == "gradeboard: --out and --summary cannot both go to standard output\n"


@pytest.mark.parametrize("command, source", [("score", SAMPLE), ("compare", AB_LONG)])
def test_out_and_summary_cannot_be_one_file(tmp_path, capsys, command, source):
    (tmp_path / "o.csv").write_text("before")
    code, _, err = run([command, source, "--out", tmp_path / "o.csv", "--summary", tmp_path / "." / "o.csv"], capsys)
    assert code == 2 and err == f"gradeboard: --out and --summary name the same file ({tmp_path / 'o.csv'}); one would replace the other\n"
    assert (tmp_path / "o.csv").read_text() == "before"
    code, _, _ = run([command, source, "--out", os.devnull, "--summary", os.devnull], capsys)
    assert code == 0  # a device takes both


def test_no_header_with_a_huge_first_cell(tmp_path, capsys):
    f = write(tmp_path / "big.csv", ("x" * 200_000 + "," + "x" * 200_000 + "\nb,b\n").encode())
    code, _, err = run(["score", f, "--no-header", "--grader", "exact", "--out", tmp_path / "o.csv"], capsys)
    assert code == 0 and "Traceback" not in err
    assert pd.read_csv(tmp_path / "o.csv", dtype=str, keep_default_na=False)["pass"].tolist() == ["true", "true"]


def test_an_assert_object_in_every_record_is_left_out_not_ignored(tmp_path, capsys):
    f = write(tmp_path / "a.jsonl", b'{"id":1,"expected":"a","output":"a","assert":{"type":"contains","value":"z"}}\n'
                                     b'{"id":2,"expected":"a","output":"a"}\n')
    code, out, _ = run(["score", f, "--grader", "exact", "--out", tmp_path / "o.csv"], capsys)
    assert code == 0 and "1 row scored, 1 row left out" in out
    assert "malformed assertions: 1 (row 1); row 1: the assertions must be a JSON list of objects, not an object" in out


def test_a_wide_file_reports_outputs_scored_and_rows_left_out(tmp_path, capsys):
    """Each row of a wide file gives two outputs; a row left out is one row, counted once
    under its reason though both its outputs are out (summary and report alike)."""
    f = write(tmp_path / "w.csv", b"id,expected,output,output_b\n1,x,x,y\n,x,x,x\n2,x,x,\n1,x,x,x\n")
    summary = tmp_path / "s.json"
    code, out, _ = run(["score", f, "--grader", "exact", "--out", tmp_path / "o.csv", "--summary", summary], capsys)
    assert code == 0 and out.startswith("3 outputs scored, 3 rows left out\n")
    reasons = json.loads(summary.read_text())["left_out"]
    assert reasons["total"] == 3
    assert {k: (v["count"], v["rows"]) for k, v in reasons["reasons"].items()} == {
        "no id": (1, [2]), "no output": (1, [3]), "duplicate key": (1, [4])}
    assert "left out, duplicate key: 1 (row 4); row 4 has the same id as row 1" in out


def test_whitespace_only_lines_before_the_header_are_skipped(tmp_path, capsys):
    f = write(tmp_path / "lead.csv", b"   \n\t\n\nid,expected,output\n1,a,a\n")
    code, out, _ = run(["score", f, "--grader", "exact", "--out", tmp_path / "o.csv"], capsys)
    assert code == 0 and "1 row scored" in out


def test_a_link_to_stdout_is_written_through_not_replaced(tmp_path):
    """``--out /dev/stdout`` as root: /dev/stdout is a symbolic link, and renaming a finished
    file over it replaced the link (the system's) with a regular file, while the pipe got
    nothing. A link of the same kind in tmp_path stands in for it."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    if not os.path.exists("/proc/self/fd/1"):
        pytest.skip("needs /proc")
    code, stdout, err = gradeboard("score", SAMPLE, "--grader", "exact", "--out", link)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    assert stdout.startswith(b"item,system,repeat,scorer") and b"rows scored" not in stdout
    assert "40 rows scored" in err  # the same file as stdout: the report goes to stderr


def test_a_link_to_a_file_keeps_the_link(tmp_path, capsys):
    real = tmp_path / "runs" / "today.csv"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "latest.csv"
    link.symlink_to(real)
    code, _, err = run(["score", SAMPLE, "--grader", "exact", "--out", link], capsys)
    assert code == 0, err
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text(encoding="utf-8").startswith("item,system,repeat,scorer")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_named_pipe_gets_the_file(tmp_path, workers):
    import threading

    fifo = tmp_path / "scored.pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    ref = tmp_path / "ref.csv"
    code, _, err = gradeboard("score", SAMPLE, "--config", CONFIG, "--workers", workers, "--out", fifo)
    reader.join(timeout=60)
    assert code == 0, err
    gradeboard("score", SAMPLE, "--config", CONFIG, "--out", ref)
    assert got == [ref.read_bytes()] and fifo.is_fifo()


def test_a_reader_that_stops_early_is_one_line(tmp_path):
    """``--out - | head``: the scored file cannot be written whole, which is said in one
    line, and the run does not pass."""
    proc = subprocess.Popen([sys.executable, "-m", "graders", "score", str(SAMPLE), "--config", str(CONFIG), "--out", "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 2
    assert err == "gradeboard: cannot write standard output: Broken pipe\n"


@pytest.mark.parametrize("command", ["score", "compare"])
def test_an_unwritable_output_is_one_line(tmp_path, capsys, command):
    source = SAMPLE if command == "score" else str(SAMPLES / "returns_ab_long.jsonl")
    code, _, err = run([command, source, "--grader", "exact", "--out", tmp_path / "missing" / "out.csv"], capsys)
    assert code == 2 and err.startswith("gradeboard: cannot write") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command, source", [("score", SAMPLE), ("compare", AB_LONG)])
def test_a_summary_that_cannot_be_written_leaves_the_old_files(tmp_path, capsys, command, source):
    """The summary's path is opened before anything is scored: a run that exits 2 on it
    has not replaced the old scored (or comparison) file."""
    out = tmp_path / "out.csv"
    out.write_text("OLD\n")
    missing = tmp_path / "missing" / "s.json"
    code, _, err = run([command, source, "--grader", "exact", "--out", out, "--summary", missing], capsys)
    assert code == 2 and err == f"gradeboard: cannot write {str(missing)!r}: No such file or directory\n"
    assert out.read_text() == "OLD\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_a_failed_comparison_leaves_the_old_file(tmp_path, capsys):
    out, summary = tmp_path / "c.csv", tmp_path / "s.json"
    out.write_text("OLD\n")
    summary.write_text("{}\n")
    code, _, err = run(["compare", AB_LONG, "--grader", "exact", "--a", "nope", "--out", out, "--summary", summary], capsys)
    assert code == 2 and "unknown version" in err
    assert out.read_text() == "OLD\n" and summary.read_text() == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv", "s.json"]  # no temporary file left


def test_a_lone_surrogate_in_a_cell_prints_and_writes_as_its_escape(tmp_path):
    """A JSON cell may hold "\\ud800" (valid JSON, not encodable as UTF-8): the report prints
    it, the summary writes it as the JSON escape it came from, the run exits 0."""
    import subprocess
    import sys

    f = write(tmp_path / "s.jsonl", b'{"id": "1", "expected": "a", "output": "a", "version": "v\\ud800"}\n')
    summary = tmp_path / "s.json"
    r = subprocess.run([sys.executable, "-m", "graders", "score", str(f), "--grader", "exact",
                        "--out", str(tmp_path / "o.csv"), "--summary", str(summary)], capture_output=True, text=True)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "[v\\ud800]" in r.stdout
    assert list(json.loads(summary.read_text(encoding="utf-8"))["systems"]) == ["v\ud800"]


@pytest.mark.parametrize("body", [
    b'{"id": "a", "output": "x", "k\\ud800": "x"}\n',                       # JSON lines
    b'[{"id": "a", "output": "x", "k\\ud800": "x"}]',                        # a JSON array
    b'{"rows": [{"id": "a", "output": "x", "meta": {"k\\ud800": "x"}}]}',   # a dotted column
])
def test_a_lone_surrogate_in_a_column_name(tmp_path, capsys, body):
    """A JSON key may hold "\\ud800" too: the column's name is kept (pandas' string dtype
    cannot hold it, so the names are objects), it can be mapped, and it prints escaped."""
    f = write(tmp_path / "s.json", body)
    name = "meta.k\ud800" if b"meta" in body else "k\ud800"
    cfg = write(tmp_path / "c.json", json.dumps({"graders": [{"name": "exact"}], "columns": {"expected": name}}).encode())
    out = tmp_path / "o.csv"
    code, stdout, err = run(["score", f, "--config", cfg, "--out", out], capsys)
    assert code == 0 and "Traceback" not in err, err
    assert pd.read_csv(out, dtype=str, keep_default_na=False)["pass"].tolist() == ["true"]
    code, _, err = run(["score", f, "--grader", "exact", "--out", out], capsys)  # expected left unmapped
    assert code == 2 and name.encode("utf-8", "backslashreplace").decode() in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["score", "compare"])
@pytest.mark.parametrize("field", ["version", "id"])
def test_a_lone_surrogate_with_corpus_graders(tmp_path, capsys, command, field):
    """BLEU's and chrF's corpus figures are per system: grouping the rows by system put a
    version "\\ud800" into pandas' string dtype, which cannot hold it (a traceback)."""
    records = [{"id": "1", "version": "v\ud800", "expected": "the cat sat on the mat", "output": "the cat sat on the mat"},
               {"id": "1", "version": "v2", "expected": "the cat sat on the mat", "output": "a cat sat"}]
    if field == "id":
        records = [dict(r, id="\udc00", version=v) for r, v in zip(records, ("v1", "v2"))]
    f = write(tmp_path / "s.jsonl", "\n".join(json.dumps(r) for r in records).encode())
    summary, out = tmp_path / "s.json", tmp_path / "o.csv"
    code, _, err = run([command, f, "--grader", "bleu", "--grader", "chrf", "--out", out, "--summary", summary,
                        *(["--resamples", "100"] if command == "compare" else [])], capsys)
    assert code == 0 and "Traceback" not in err, err
    s = json.loads(summary.read_text(encoding="utf-8"))
    first = "v\ud800" if field == "version" else "v1"
    assert list(s["corpus"]) == [first, "v2"]
    assert s["corpus"][first]["bleu"]["corpus"] == pytest.approx(1.0)
    assert len(pd.read_csv(out, dtype=str, keep_default_na=False)) == (4 if command == "score" else 2)


def test_an_expected_object_in_json_lines_is_graded_by_json_fields(tmp_path):
    """ "expected": {...} is the expected answer as JSON text (its fields are dotted columns
    as well): json_fields grades it (it was read as dotted columns alone, so the row was
    left out as "no expected")."""
    src = tmp_path / "r.jsonl"
    src.write_text('{"id": "a", "expected": {"x": 1, "y": "z"}, "output": "{\\"x\\": 1.0, \\"y\\": \\"w\\"}"}\n'
                   '{"id": "b", "expected": "{\\"x\\": 2}", "output": "{\\"x\\": 2}"}\n', encoding="utf-8")
    out, summary = tmp_path / "s.csv", tmp_path / "s.json"
    assert main(["score", str(src), "--grader", "json_fields", "--out", str(out), "--summary", str(summary)]) == 0
    rows = {r["item"]: r for r in pd.read_csv(out, dtype=str, keep_default_na=False).to_dict("records")}
    assert rows["a"]["score"] == "0.5" and rows["b"]["score"] == "1.0"
    assert json.loads(summary.read_text())["left_out"]["total"] == 0


# Robustness, from a fuzz of the command line: each once a traceback (or a refusal).
HUGE = "1" * 4301  # past int()'s 4,300-digit conversion limit


@pytest.mark.parametrize("name, data", [
    # a repeat of 4,301 digits: a whole number, paired by its digits
    ("repeat.csv", f"id,expected,output,repeat\n1,a,a,{HUGE}\n2,a,a,{HUGE}\n2,a,a,{HUGE}\n".encode()),
    # an equals assertion against an output holding an integer past a double's range
    ("big.csv", b'id,expected,output,assert\n1,a,[1' + b"0" * 309 + b'],"[{""type"":""equals"",""value"":[1]}]"\n'),
    # ... and nested deeper than Python's recursion limit for a recursive comparison
    ("deep.csv", b"id,expected,output,assert\n1,a," + b"[" * 900 + b"]" * 900
     + b',"[{""type"":""equals"",""value"":' + b"[" * 900 + b"]" * 900 + b'}]"\n'),
    # a cell past Python's csv limit beside a quote inside an unquoted cell
    ("long.csv", b'id,expected,output\n1,a"b,' + b"x" * 131073 + b"\n"),
])
def test_hostile_cells_score_without_a_traceback(tmp_path, capsys, name, data):
    src = tmp_path / name
    src.write_bytes(data)
    out, summary = tmp_path / "s.csv", tmp_path / "s.json"
    code, _, err = run(["score", src, "--grader", "exact", "--out", out, "--summary", summary], capsys)
    assert code == 0, err
    scored = pd.read_csv(out, dtype=str, keep_default_na=False)
    s = json.loads(summary.read_text())
    if name == "repeat.csv":
        assert set(scored["repeat"]) == {HUGE} and s["left_out"]["reasons"]["duplicate key"]["count"] == 1
    elif name == "big.csv":
        assert scored.set_index("scorer").loc["assert:0:equals", "pass"] == "false"
    elif name == "deep.csv":
        assert scored.set_index("scorer").loc["assert:0:equals", "pass"] == "true"
    else:
        assert s["left_out"]["total"] == 0


def test_a_configuration_with_a_huge_integer_is_one_line(tmp_path, capsys):
    cfg = tmp_path / "c.json"
    cfg.write_text(f'{{"version": {HUGE}}}')
    code, _, err = run(["score", SAMPLE, "--config", cfg, "--out", tmp_path / "s.csv"], capsys)
    assert code == 2 and err.startswith("gradeboard: configuration: the configuration is not valid JSON")
    assert len(err.strip().splitlines()) == 1


def test_a_grader_named_twice_runs_once_and_a_path_with_a_line_break_is_one_line(tmp_path, capsys):
    out = tmp_path / "s.csv"
    code, _, err = run(["score", SAMPLE, "--grader", "exact", "--grader", "exact", "--out", out], capsys)
    assert code == 0, err
    assert set(pd.read_csv(out, dtype=str, keep_default_na=False)["scorer"]) == {"exact"}
    code, _, err = run(["score", tmp_path / "no\nsuch.csv", "--out", out], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no\\nsuch.csv" in err



def test_spreadsheet_safe_copies_prefix_formulas_and_keep_the_exact_file_the_default(tmp_path):
    """OWASP's advice (issue 32, 8): a cell starting with = + - @, a tab or a CR gets a ' in
    front; a plain number (-1, the differences) does not; without the flag every cell is as written."""
    import csv as csv_module

    rows = [{"id": "=HYPERLINK(\"http://x\")", "expected": "a", "output": "+1+1"},
            {"id": "-1", "expected": "b", "output": "@SUM(A1)"}, {"id": "\tq", "expected": "c", "output": "-x"}]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for flag in ([], ["--spreadsheet-safe"]):
        code = subprocess.run([sys.executable, "-m", "graders", "score", "r.jsonl", "--grader", "exact",
                               "--include-output", "--out", "s.csv", *flag], cwd=tmp_path, capture_output=True).returncode
        assert code == 0
        with open(tmp_path / "s.csv", newline="", encoding="utf-8") as f:
            got = [(r["item"], r["output"]) for r in csv_module.DictReader(f)]
        if flag:
            assert got == [("'=HYPERLINK(\"http://x\")", "'+1+1"), ("-1", "'@SUM(A1)"), ("'\tq", "'-x")]
        else:
            assert got == [(r["id"], r["output"]) for r in rows]
    wide = [{"id": "=a", "output": "x", "output_b": "y", "expected": "x"}, {"id": "b", "output": "y", "output_b": "y", "expected": "x"}]
    (tmp_path / "w.jsonl").write_text("".join(json.dumps(r) + "\n" for r in wide))
    proc = subprocess.run([sys.executable, "-m", "graders", "compare", "w.jsonl", "--grader", "exact", "--out", "c.csv",
                           "--spreadsheet-safe"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "c.csv", newline="", encoding="utf-8") as f:
        got = list(csv_module.DictReader(f))
    assert [r["item"] for r in got] == ["'=a", "b"] and got[0]["difference"] in ("1.0", "1")


GSM = b'id,expected,output\n1,42,"Reasoning.\n#### 42"\n2,7,"I think 7."\n3,B,"ANSWER: B"\n'


def test_score_with_extract_on_the_command_line(tmp_path, capsys):
    f, out, summary = tmp_path / "g.csv", tmp_path / "o.csv", tmp_path / "s.json"
    f.write_bytes(GSM)
    code, stdout, err = run(["score", f, "--grader", "exact:extract=gsm8k", "--grader",
                             "numeric:read=last,extract=last_number", "--grader",
                             'contains:extract={"regex": "answer: (\\\\w)", "flags": "i"}',
                             "--out", out, "--summary", summary], capsys)
    assert code == 0, err
    scored = pd.read_csv(out, dtype=str, keep_default_na=False)
    exact = scored[scored["scorer"] == "exact"]
    assert list(exact["pass"]) == ["true", "false", "false"]
    assert list(exact["near_miss"]) == ["", "no_answer;extracted_anywhere", "no_answer;extracted_anywhere"]
    assert [json.loads(m)["extracted"] for m in exact["metadata"]] == ["42", None, None]
    contains = scored[scored["scorer"] == "contains"]
    assert json.loads(contains["metadata"].iloc[2]) == {
        "at": "anywhere", "extract": {"flags": "i", "regex": "answer: (\\w)"}, "extracted": "B", "require": "any"}
    s = json.loads(summary.read_text())
    assert [s["graders"][g]["no_answer"] for g in ("exact", "numeric", "contains")] == [2, 1, 2]
    assert "(no answer 2)" in stdout


@pytest.mark.parametrize("grader,message", [
    ("exact:extract=gsm9", "parameter 'extract' of grader 'exact': unknown extract form 'gsm9'; valid forms: "),
    ('exact:extract={"regex": "(?P<n>\\\\d+)"}', "the extract regex is refused: /(?P<n>\\d+)/u is not a valid "
                                                 "JavaScript regular expression (Invalid group)"),
    ('exact:extract={"regex": "(\\\\d+)", "group": 2}', "the extract regex /(\\d+)/ has no group 2: it has 1 capture group"),
    ('exact:extract={"json_path": "$.a[x]"}', "malformed JSON path '$.a[x]': expected .name, ['name'] or [index] at position 3"),
    ("exact:extract", "--grader 'exact:extract': expected KEY=VALUE after the colon, as in exact:extract=gsm8k"),
    ("nosuch:extract=gsm8k", "unknown grader 'nosuch'; valid graders: exact, normalized, "),
])
def test_bad_extract_exits_2_with_one_line(tmp_path, capsys, grader, message):
    f = tmp_path / "g.csv"
    f.write_bytes(GSM)
    for args in (["--grader", grader], ["--config", tmp_path / "c.json"]):
        if args[0] == "--config":
            if grader.startswith("nosuch") or "=" not in grader:
                continue
            name, _, param = grader.partition(":extract=")
            value = json.loads(param) if param.startswith("{") else param
            (tmp_path / "c.json").write_text(json.dumps({"graders": [{"name": name, "extract": value}]}))
        code, _, err = run(["score", f, *args, "--out", tmp_path / "o.csv"], capsys)
        assert code == 2 and message in err, err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert not (tmp_path / "o.csv").exists()
