"""Scoring and comparing on a Dask cluster (SPEC §11, issue 35): on a LocalCluster of two
workers, the scored file, the summary and the comparison equal the single-process run's,
cell for cell, byte for byte; across parts the record numbers, the left-out report and the
duplicate keys are the file's; a worker killed mid-run changes nothing; without Dask,
--scheduler says how to install it."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

import dask  # noqa: E402
import pandas as pd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from graders._testing import mutate, sentence  # noqa: E402
from graders.cli import main  # noqa: E402
from graders.compare.comparison import compare_file, write_comparison  # noqa: E402
from graders.distributed import ClusterError, compare_files, score_ddf, score_files  # noqa: E402
from graders.pipeline import score_prepared  # noqa: E402
from graders.readers.several import first_versions, read_several  # noqa: E402
from graders.scoring.summary import summary_text  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_data"
pytestmark = pytest.mark.timeout(300)

# graders that take every path: extraction (no answer), a threshold, corpus statistics summed
# (chrF) and, where rows have none (BLEU's with no answer), read again from the outputs
CONFIG = {"graders": [{"name": "exact"}, {"name": "normalized", "extract": "last_number"}, {"name": "contains"},
                      {"name": "token_f1", "threshold": 0.5}, {"name": "chrf"},
                      {"name": "bleu", "extract": "last_number"}],  # rows without statistics: the corpus from the outputs
          "overall": "any"}


@pytest.fixture(scope="module")
def client():
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                          silence_logs=40) as cluster, Client(cluster) as c:
            yield c


def single(paths, config, tmp, include_output=False):
    """The single-process run, as ``gradeboard score`` makes it: (scored bytes, summary text)."""
    file = read_several([str(p) for p in paths])
    out = tmp / "single.csv"
    run = score_prepared(file, config, include_output=include_output, workers=1, write_to=str(out))
    return out.read_bytes(), summary_text(run.summary)


def on_cluster(client, paths, config, tmp, **kw):
    out = tmp / "cluster.csv"
    run = score_files([str(p) for p in paths], config, client=client, write_to=str(out), **kw)
    return out.read_bytes(), summary_text(run.summary)


def write_rows(path: Path, rows: list[dict]) -> None:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    else:
        pd.DataFrame(rows).to_csv(path, index=False)


def many_files(tmp: Path, n: int = 50_000, files: int = 5) -> list[Path]:
    """``n`` rows in ``files`` files (JSON lines and CSV), with repeats, rows left out for
    several reasons, duplicate keys far apart (in other parts), per-row assertions (an
    unknown kind too), lone surrogates and numbers to extract."""
    rng = random.Random(35)
    paths = []
    per = n // files
    for f in range(files):
        rows = []
        for i in range(per):
            expected = sentence(rng, 1, 8)  # short texts: the run's time goes to the parts, not to BLEU
            row = {"id": f"c{i // 3}", "repeat": str(i % 3), "expected": expected, "output": mutate(rng, expected)}
            r = rng.random()
            if r < 0.01:
                row["output"] = ""  # no output
            elif r < 0.015:
                row["repeat"] = "x"  # bad repeat
            elif r < 0.02 and i > per // 2:
                row["id"], row["repeat"] = f"c{rng.randrange(per // 6)}", str(rng.randrange(3))  # a duplicate, far back
            elif r < 0.05:
                row["output"] = f"It costs {rng.randrange(100)} dollars"
                row["expected"] = str(rng.randrange(100))
            if rng.random() < 0.03:
                row["assert"] = json.dumps([{"type": "contains", "value": expected[:3]}] +
                                           ([{"type": "llm-rubric", "value": "kind"}] if rng.random() < 0.5 else []))
            elif rng.random() < 0.002:
                row["assert"] = "[not json"
            if f == 1 and i == 7:
                row["output"] = "lone \ud800 surrogate"
            rows.append(row)
        path = tmp / (f"run{f}.jsonl" if f % 2 == 0 else f"run{f}.csv")
        if path.suffix == ".csv":
            for row in rows:
                row["output"] = row["output"].replace("\ud800", "?")
        write_rows(path, rows)
        paths.append(path)
    return paths


@pytest.mark.parametrize("name, config", [
    ("returns_desk.csv", SAMPLES / "returns_desk.config.json"),
    ("returns_assertions.jsonl", {"graders": [{"name": "exact"}, {"name": "contains"}], "overall": "all"}),
    ("returns_ab_long.jsonl", {"graders": [{"name": "exact"}, {"name": "bleu"}, {"name": "chrf"}]}),
    ("returns_ab_wide.csv", {"graders": [{"name": "normalized"}, {"name": "token_f1"}]}),
])
def test_bundled_samples_score_the_same_on_a_cluster(client, tmp_path, name, config):
    config = json.loads(Path(config).read_text()) if isinstance(config, Path) else config
    want = single([SAMPLES / name], config, tmp_path, include_output=True)
    got = on_cluster(client, [SAMPLES / name], config, tmp_path, include_output=True, partition_rows=7)
    assert got[0] == want[0]
    assert got[1] == want[1]


def test_fifty_thousand_rows_in_five_files_score_the_same_in_many_parts(client, tmp_path):
    paths = many_files(tmp_path)
    want_csv, want_summary = single(paths, CONFIG, tmp_path)
    got_csv, got_summary = on_cluster(client, paths, CONFIG, tmp_path, partition_rows=4000)
    summary = json.loads(want_summary)
    # the set reaches what the test is for: rows left out for several reasons, duplicates
    # named with their first row, clustered intervals, no answers, unknown assertion kinds
    reasons = summary["left_out"]["reasons"]
    assert {"no output", "bad repeat", "duplicate key", "malformed assertions"} <= set(reasons)
    assert reasons["duplicate key"]["count"] > 20
    assert any("pass_rate_clustered" in st for st in summary["graders"].values())
    assert summary["graders"]["normalized"]["no_answer"] > 0
    assert summary["unknown_assertions"] == {"llm-rubric": summary["unknown_assertions"]["llm-rubric"]}
    assert got_summary == want_summary
    assert got_csv == want_csv


def test_a_duplicate_in_another_part_is_named_with_its_first_row(client, tmp_path):
    path = tmp_path / "dups.csv"
    rows = [{"id": str(i), "expected": "a", "output": "a"} for i in range(1, 40)] + [{"id": "3", "expected": "a", "output": "b"}]
    write_rows(path, rows)
    run = score_files([str(path)], {"graders": [{"name": "exact"}]}, client=client, partition_rows=10)
    lo = run.summary["left_out"]["reasons"]["duplicate key"]
    assert lo == {"count": 1, "rows": [40], "notes": ["row 40 has the same id as row 3"]}
    assert run.parts == 4


def test_a_dask_dataframe_scores_as_its_file(client, tmp_path):
    import dask.dataframe as dd

    path = SAMPLES / "returns_desk.csv"
    config = json.loads((SAMPLES / "returns_desk.config.json").read_text())
    want_csv, want_summary = single([path], config, tmp_path)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    out = tmp_path / "ddf.csv"
    run = score_ddf(dd.from_pandas(frame, npartitions=3), config, client=client, write_to=str(out))
    assert out.read_bytes() == want_csv
    assert summary_text(run.summary) == want_summary


def compared(client, tmp_path, paths, config, **kw):
    """The comparison in one process and on the cluster: (CSV bytes, summary text, report) each."""
    paths = [str(p) for p in paths]
    file = read_several(paths)
    a, b = first_versions(file, paths)
    want = compare_file(file, config, version_a=a, version_b=b, resamples=1000, seed=3, workers=1)
    write_comparison(want, str(tmp_path / "want.csv"), spreadsheet_safe=kw.get("spreadsheet_safe", False))
    got = compare_files(paths, config, client=client, resamples=1000, seed=3, write_to=str(tmp_path / "got.csv"), **kw)
    assert got.pairs is None  # the pairs stayed in the buckets
    return ([(tmp_path / n).read_bytes() for n in ("want.csv", "got.csv")], [summary_text(want.summary()),
            summary_text(got.summary())], [want.report(), got.report()])


def test_a_dask_dataframe_compares_as_its_file(client, tmp_path):
    import dask.dataframe as dd

    import graders

    path = SAMPLES / "returns_ab_long.jsonl"
    config = {"graders": [{"name": "exact"}, {"name": "chrf"}], "overall": "any"}
    want = compare_file(str(path), config, resamples=1000, seed=3, workers=1)
    write_comparison(want, str(tmp_path / "want.csv"))
    frame = pd.read_json(path, lines=True, dtype=False).astype(str)
    got = graders.compare_ddf(dd.from_pandas(frame, npartitions=3), config, client=client, resamples=1000, seed=3,
                              write_to=str(tmp_path / "got.csv"))
    assert (tmp_path / "got.csv").read_bytes() == (tmp_path / "want.csv").read_bytes()
    assert summary_text(got.summary()) == summary_text(want.summary())
    assert got.report() == want.report()


@pytest.mark.parametrize("files", [["returns_ab_long.jsonl"], ["returns_ab_wide.csv"]])
def test_the_bundled_samples_compare_the_same_on_a_cluster(client, tmp_path, files):
    config = {"graders": [{"name": "exact"}, {"name": "token_f1"}, {"name": "bleu"}, {"name": "chrf"}], "overall": "any"}
    csvs, summaries, reports = compared(client, tmp_path, [SAMPLES / f for f in files], config, partition_rows=7)
    assert csvs[1] == csvs[0] and summaries[1] == summaries[0] and reports[1] == reports[0]


def test_fifty_thousand_rows_in_two_runs_compare_the_same_paired_in_buckets(client, tmp_path):
    """Two runs of 25,000 rows each (A and B, in order), in parts of 4,000 rows paired in
    buckets across the cluster: repeats (whole cases resampled), rows left out on one side
    (keys on one side only), duplicates, extraction, corpus BLEU and chrF (a paired bootstrap
    of sentence statistics), assertions; every figure, line and report line as one process's."""
    paths = many_files(tmp_path, n=50_000, files=2)
    csvs, summaries, reports = compared(client, tmp_path, paths, CONFIG, partition_rows=4000)
    summary = json.loads(summaries[0])
    assert summary["unpaired"]["a_only"]["count"] > 20 and summary["unpaired"]["b_only"]["count"] > 20
    assert summary["clustered"] and set(summary["corpus_paired"]) == {"bleu", "chrf"}
    assert summary["metrics"]["exact"]["n"] > 20_000
    assert "Per-row assertions" in reports[0]
    assert csvs[1] == csvs[0]
    assert summaries[1] == summaries[0]
    assert reports[1] == reports[0]


def test_a_wide_file_with_versions_compares_the_same_and_spreadsheet_safe(client, tmp_path):
    rng = random.Random(7)
    rows = []
    for i in range(3000):
        expected = sentence(rng, 1, 6)
        rows.append({"id": f"=c{i % 700}" if i % 5 == 0 else f"c{i % 700}", "version": f"v{i // 700}",
                     "expected": expected, "output": mutate(rng, expected),
                     "output_b": "" if i % 97 == 0 else mutate(rng, expected)})
    path = tmp_path / "wide.csv"
    write_rows(path, rows)
    config = {"graders": [{"name": "exact"}, {"name": "chrf"}], "overall": "all"}
    csvs, summaries, reports = compared(client, tmp_path, [path], config, partition_rows=250, spreadsheet_safe=True)
    assert b"'=c0" in csvs[0] and b",version," in csvs[0].split(b"\n")[0]
    assert csvs[1] == csvs[0] and summaries[1] == summaries[0] and reports[1] == reports[0]


def test_parts_with_every_row_left_out_and_empty_buckets_compare_the_same(client, tmp_path):
    rows = [{"id": "x", "version": "a", "expected": "1", "output": "1"}, {"id": "x", "version": "b", "expected": "1", "output": "2"},
            {"id": "y", "version": "a", "expected": "", "output": ""}, {"id": "y", "version": "b", "expected": "", "output": ""},
            {"id": "y", "version": "a", "expected": "", "output": ""}, {"id": "x", "version": "b", "expected": "1", "output": "1"}]
    path = tmp_path / "tiny.jsonl"
    write_rows(path, rows)
    config = {"graders": [{"name": "exact"}, {"name": "bleu"}], "overall": "all"}
    csvs, summaries, reports = compared(client, tmp_path, [path], config, partition_rows=1)
    assert "duplicate key" in summaries[0] and "no output" in summaries[0]
    assert csvs[1] == csvs[0] and summaries[1] == summaries[0] and reports[1] == reports[0]


def test_two_runs_without_a_shared_case_fail_as_one_process_does(client, tmp_path):
    from graders.compare.comparison import CompareError

    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    for k, path in enumerate(paths):
        write_rows(path, [{"id": f"{k}-{i}", "expected": "a", "output": "a"} for i in range(30)])
    with pytest.raises(CompareError) as want:
        compare_file(read_several([str(p) for p in paths]), {"graders": [{"name": "exact"}]}, version_a="a",
                     version_b="b")
    with pytest.raises(CompareError) as got:
        compare_files([str(p) for p in paths], {"graders": [{"name": "exact"}]}, client=client, partition_rows=10)
    assert str(got.value) == str(want.value)


def test_the_command_line_compares_on_a_local_cluster(tmp_path):
    path = str(SAMPLES / "returns_ab_long.jsonl")
    args = ["compare", path, "--grader", "exact", "--grader", "chrf", "--resamples", "1000"]
    assert main(args + ["--out", str(tmp_path / "a.csv"), "--summary", str(tmp_path / "a.json")]) == 0
    assert main(args + ["--out", str(tmp_path / "b.csv"), "--summary", str(tmp_path / "b.json"),
                        "--scheduler", "local", "--workers", "2"]) == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


@pytest.mark.parametrize("command, task", [("score", "score_part"), ("compare", "part_rows"), ("compare", "pair_bucket")])
def test_a_worker_killed_mid_run_changes_nothing(client, tmp_path, command, task):
    paths = many_files(tmp_path, n=12_000, files=2)
    config = {"graders": [{"name": "exact"}, {"name": "chrf"}]}
    if command == "score":
        want = single(paths, config, tmp_path)
    else:
        want = compared(client, tmp_path, paths, config, partition_rows=500)
        assert all(one == cluster for one, cluster in want)
    result = {}

    def run():
        try:
            if command == "score":
                result["got"] = on_cluster(client, paths, config, tmp_path, partition_rows=500)
            else:
                result["got"] = compared(client, tmp_path, paths, config, partition_rows=500)
        except BaseException as e:  # noqa: BLE001 - reported below
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.time() + 60
    while time.time() < deadline and not any(task in key for keys in client.processing().values() for key in keys):
        time.sleep(0.02)
    pid = next(iter(client.run(os.getpid).values()))
    os.kill(pid, signal.SIGKILL)
    thread.join(240)
    assert "error" not in result, result.get("error")
    assert result["got"] == want


def test_a_worker_that_dies_every_time_fails_with_one_message_and_keeps_the_old_file(client, tmp_path):
    import dask.dataframe as dd
    from dask import delayed

    out = tmp_path / "scored.csv"
    out.write_text("old\n")
    meta = pd.DataFrame({"id": pd.Series(dtype=object), "output": pd.Series(dtype=object)})
    ddf = dd.from_delayed([delayed(os._exit)(3)], meta=meta, verify_meta=False)
    with pytest.raises(ClusterError, match="worker died"):
        score_ddf(ddf, {"graders": [{"name": "exact"}]}, client=client, write_to=str(out))
    assert out.read_text() == "old\n"
    assert [p for p in os.listdir(tmp_path) if p.endswith(".part")] == []


def test_the_command_line_scores_on_a_local_cluster(tmp_path, capsys):
    path = SAMPLES / "returns_desk.csv"
    config = str(SAMPLES / "returns_desk.config.json")
    args = ["score", str(path), "--config", config]
    assert main(args + ["--out", str(tmp_path / "a.csv"), "--summary", str(tmp_path / "a.json")]) == 0
    assert main(args + ["--out", str(tmp_path / "b.csv"), "--summary", str(tmp_path / "b.json"),
                        "--scheduler", "local", "--workers", "2"]) == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_the_command_line_joins_a_running_cluster_by_its_address(client, tmp_path):
    address = client.scheduler.address  # the module's cluster, started apart from the command
    for command, name, extra in (("score", "returns_desk.csv", []),
                                 ("compare", "returns_ab_wide.csv", ["--spreadsheet-safe", "--resamples", "1000"])):
        args = [command, str(SAMPLES / name), "--grader", "exact", "--grader", "token_f1", *extra]
        assert main(args + ["--out", str(tmp_path / "a.csv"), "--summary", str(tmp_path / "a.json")]) == 0
        assert main(args + ["--out", str(tmp_path / "b.csv"), "--summary", str(tmp_path / "b.json"),
                            "--scheduler", address]) == 0
        assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
        assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert client.scheduler_info()["workers"]  # the cluster is still there: the command only left it


def test_an_address_with_no_scheduler_is_one_message_and_no_file(tmp_path, capsys):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "ab.csv"
    code = main(["compare", str(SAMPLES / "returns_ab_long.jsonl"), "--grader", "exact", "--out", str(out),
                 "--scheduler", f"tcp://127.0.0.1:{port}"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gradeboard: cannot reach the Dask scheduler at 'tcp://127.0.0.1:{port}'") and err.count("\n") == 1
    assert not out.exists() and os.listdir(tmp_path) == []


def test_without_dask_the_scheduler_flag_says_how_to_install_it(tmp_path):
    code = ("import sys; sys.modules['distributed'] = None; from graders.cli import main; "
            f"sys.exit(main(['score', {str(SAMPLES / 'returns_desk.csv')!r}, '--out', {str(tmp_path / 'x.csv')!r}, "
            "'--scheduler', 'local']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert done.stderr == "gradeboard: --scheduler needs Dask: pip install 'gradeboard[dask]'\n"
    assert not (tmp_path / "x.csv").exists()


HARNESS = ROOT / "tests" / "files" / "harness"


@pytest.mark.parametrize("path", [HARNESS / "promptfoo" / "results.json", HARNESS / "inspect" / "inspect_log.eval",
                                  HARNESS / "inspect" / "inspect_log.json"])
def test_a_harness_file_with_its_own_verdicts_scores_the_same_on_a_cluster(client, tmp_path, path):
    """The harness's verdict beside ours (summary's harness_agreement) adds up over parts:
    counts add, the first disagreements run on in file order."""
    pytest.importorskip("zstandard")
    config = {"graders": [{"name": "exact"}, {"name": "contains"}], "overall": "any"}
    want = single([path], config, tmp_path)
    got = on_cluster(client, [path], config, tmp_path, partition_rows=2)
    assert "harness_agreement" in json.loads(want[1])
    assert got == want


def test_slices_are_refused_on_a_cluster_with_one_message(tmp_path, capsys):
    out = tmp_path / "x.csv"
    code = main(["score", str(SAMPLES / "returns_desk.csv"), "--out", str(out), "--by", "id", "--scheduler", "local"])
    assert code == 2
    assert "--by slices the rows in one process" in capsys.readouterr().err
    assert not out.exists()


@pytest.fixture(scope="module")
def threads():
    """An in-process cluster (threads): fast enough for many small comparisons."""
    with Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0") as c:
        yield c


_row = st.fixed_dictionaries({
    "id": st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "=h", "i,j", "k\nl", "\ud800m"]),
    "version": st.sampled_from(["v1", "v2", "v1", "v2", "v3"]),
    "repeat": st.sampled_from(["0", "1", "01", "2", "", "x"]),
    "expected": st.sampled_from(["cat sat", "12", "a b c", ""]),
    "output": st.sampled_from(["cat sat", "the cat sat", "12", "13", "a b", "", "\ud800 a"]),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_row, min_size=2, max_size=60), part=st.integers(1, 12), wide=st.booleans())
def test_any_small_file_compares_the_same_whatever_the_parts_and_buckets(threads, tmp_path, rows, part, wide):
    """Property: every figure, line and report line of a comparison paired in buckets equals
    the single-process one, or both refuse with the same message; ids, versions, repeats
    (bad, duplicate, "01" beside "1"), empty outputs and parts of any size drawn at random."""
    from graders.compare.comparison import CompareError

    path = tmp_path / "rows.jsonl"
    if wide:
        rows = [{**r, "output_b": r["expected"] + " " + r["output"]} for r in rows]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # a lone surrogate as its escape
    config = {"graders": [{"name": "exact"}, {"name": "token_f1"}, {"name": "bleu"}], "overall": "any"}
    try:
        want = compare_file(str(path), config, version_a="v1" if not wide else None,
                            version_b="v2" if not wide else None, resamples=1000, seed=3, workers=1)
    except CompareError as e:
        with pytest.raises(CompareError) as got:
            compare_files([str(path)], config, client=threads, version_a=None if wide else "v1",
                          version_b=None if wide else "v2", resamples=1000, seed=3, partition_rows=part)
        assert str(got.value) == str(e)
        event("refused alike")
        return
    event("compared")
    out = tmp_path / "got.csv"
    got = compare_files([str(path)], config, client=threads, version_a=None if wide else "v1",
                        version_b=None if wide else "v2", resamples=1000, seed=3, partition_rows=part, write_to=str(out))
    write_comparison(want, str(tmp_path / "want.csv"))
    assert out.read_bytes() == (tmp_path / "want.csv").read_bytes()
    assert summary_text(got.summary()) == summary_text(want.summary())
    assert got.report() == want.report()
