"""Slices (issue 33): a run's and a comparison's figures by the value of one column.

Each slice is checked against the file filtered to that value and scored (or compared)
alone; Wilson's interval against statsmodels; the clustered interval against the
summary's own figure for a one-slice column; the command line's ``--by``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from graders import cli
from graders.compare.comparison import compare_file
from graders.pipeline import score_file
from graders.readers.files import read_results
from graders.scoring.slices import MAX_SLICES, SliceError, slice_codes
from graders.scoring.summary import report_text

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ("graded", "passed", "failed", "no_answer", "not_judged", "errors", "scored", "near_misses", "mean_score",
           "pass_rate", "pass_rate_ci95", "pass_rate_clustered")
TWO = {"graders": [{"name": "exact"}, {"name": "normalized"}]}


def jsonl(rows: list[dict]) -> bytes:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode()


def csv(header: str, rows: list[tuple]) -> bytes:
    return (header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)).encode()


# A plain CSV: a category and a difficulty beside expected and output.
CATEGORY_CSV = csv("id,expected,output,category,difficulty", [
    (f"c{i}", "Paris", ["Paris", "paris", "Rome", "Paris "][i % 4], ["geo", "history", "", "geo", "art"][i % 5],
     [1, 2, 10][i % 3]) for i in range(40)])

# JSON lines with a metadata object: metadata.category is absent on some rows, empty on one.
META_JSONL = jsonl([
    {"id": f"m{i}", "expected": "42", "output": ["42", "The answer is 42.", "41", "forty-two"][i % 4],
     "metadata": ({} if i % 6 == 0 else {"category": "" if i == 7 else ["math", "trivia", "ünïcode"][i % 3]})}
    for i in range(36)])

# A long file with repeats (three per case): the pass rates cluster by case.
REPEATS_JSONL = jsonl([
    {"id": f"r{i}", "repeat": k, "expected": "yes", "output": "yes" if (i + k * (i % 3)) % 4 else "no",
     "topic": ["alpha", "beta"][i % 2]}
    for i in range(24) for k in range(3)])

# Two versions (systems) in one long file: each slice has each system's figures.
VERSIONS_CSV = csv("id,version,expected,output,lang", [
    (f"v{i}", version, "ok", "ok" if (i + j) % 3 else "no", ["en", "fr", "de"][i % 3])
    for i in range(18) for j, version in enumerate(("v1", "v2"))])

CASES = [
    # (name, data, config, column)
    ("category", CATEGORY_CSV, TWO, "category"),
    ("numeric difficulty", CATEGORY_CSV, TWO, "difficulty"),
    ("metadata field, absent and empty", META_JSONL,
     {"graders": [{"name": "exact", "extract": "gsm8k"}, {"name": "numeric"}, {"name": "token_f1", "threshold": 0.5}]},
     "metadata.category"),
    ("repeats", REPEATS_JSONL, TWO, "topic"),
    ("versions", VERSIONS_CSV, {"graders": [{"name": "exact"}, {"name": "bleu"}]}, "lang"),
]


def filtered(data: bytes, column: str, value: str | None) -> bytes:
    """The file's rows whose ``column`` cell is ``value`` (None: absent or empty), in the file's own format."""
    file = read_results(data)
    cells = file.frame[column].to_numpy(dtype=object)
    keep = [i for i, c in enumerate(cells) if (c in (None, "") if value is None else c == value)]
    if data.lstrip().startswith(b"{"):
        return b"\n".join(data.splitlines()[i] for i in keep)
    lines = data.splitlines()
    return b"\n".join([lines[0]] + [lines[i + 1] for i in keep]) + b"\n"


def same(got: dict, want: dict) -> None:
    for key in FIGURES:
        assert (key in got) == (key in want), key
        if key in want:
            a, b = got[key], want[key]
            assert a == pytest.approx(b, abs=1e-12) if isinstance(b, (float, list)) else a == b, (key, a, b)


@pytest.mark.parametrize("name, data, config, column", CASES, ids=[c[0] for c in CASES])
def test_each_slice_is_the_file_filtered_to_it_and_scored_alone(name, data, config, column):
    by = score_file(data, config, by=column).summary["by"]
    assert by["column"] == column
    seen = 0
    for s in by["slices"]:
        alone = score_file(filtered(data, column, s["value"]), config).summary
        assert s["rows"] == alone["cases"]
        for scorer, want in alone["graders"].items():
            same(s["graders"][scorer], want)
        if "systems" in s:
            assert set(s["systems"]) == set(alone["systems"])
            for system, per in alone["systems"].items():
                for scorer, want in per.items():
                    same(s["systems"][system][scorer], want)
        else:
            assert len(alone["systems"]) == 1
        seen += s["rows"]
    assert seen == score_file(data, config).summary["cases"]  # every row in exactly one slice


def test_slices_are_in_value_order_with_missing_last_and_stated():
    by = score_file(CATEGORY_CSV, TWO, by="category").summary["by"]
    assert [s["value"] for s in by["slices"]] == ["art", "geo", "history", None]
    assert "absent or empty" in by["missing"]
    # numbers in numeric order, not as text ("10" after "2")
    assert [s["value"] for s in score_file(CATEGORY_CSV, TWO, by="difficulty").summary["by"]["slices"]] == ["1", "2", "10"]
    meta = score_file(META_JSONL, TWO, by="metadata.category").summary["by"]["slices"]
    assert [s["value"] for s in meta] == ["math", "trivia", "ünïcode", None]
    assert meta[-1]["rows"] == 7  # six rows without the field, one with it empty


def test_no_answer_is_counted_per_slice():
    config = {"graders": [{"name": "exact", "extract": "gsm8k"}]}
    by = score_file(META_JSONL, config, by="metadata.category").summary["by"]
    total = score_file(META_JSONL, config).summary["graders"]["exact"]["no_answer"]
    assert total > 0
    assert sum(s["graders"]["exact"]["no_answer"] for s in by["slices"]) == total


@pytest.mark.parametrize("k, n", [(0, 5), (1, 5), (3, 7), (9, 9), (13, 40), (37, 40)])
def test_a_slice_pass_rate_interval_is_statsmodels_wilson(k, n):
    statsmodels = pytest.importorskip("statsmodels.stats.proportion")
    rows = [("a" if i < k else "b", "one" if i < n else "two") for i in range(n + 3)]
    data = csv("id,expected,output,part", [(f"x{i}", "a", out, part) for i, (out, part) in enumerate(rows)])
    one = score_file(data, {"graders": [{"name": "exact"}]}, by="part").summary["by"]["slices"][0]
    assert one["value"] == "one"
    figures = one["graders"]["exact"]
    assert (figures["passed"], figures["passed"] + figures["failed"]) == (k, n)
    assert figures["pass_rate_ci95"] == pytest.approx(statsmodels.proportion_confint(k, n, alpha=0.05, method="wilson"),
                                                      abs=1e-12)


def test_with_repeats_a_one_slice_column_has_the_summarys_own_clustered_figures():
    data = jsonl([dict(r, everywhere="same") for r in map(json.loads, REPEATS_JSONL.splitlines())])
    summary = score_file(data, TWO, by="everywhere").summary
    (only,) = summary["by"]["slices"]
    assert only["value"] == "same" and only["rows"] == summary["cases"] == 72
    for scorer, want in summary["graders"].items():
        assert "pass_rate_clustered" in want  # the repeats do cluster
        assert only["graders"][scorer] == want


def test_a_slice_with_repeats_is_clustered_and_wider_than_its_rows_alone():
    by = score_file(REPEATS_JSONL, TWO, by="topic").summary["by"]
    for s in by["slices"]:
        figures = s["graders"]["exact"]
        assert figures["pass_rate_clustered"]["cases"] == 12
        from graders.stats.intervals import wilson_interval

        naive = wilson_interval(figures["passed"], figures["passed"] + figures["failed"])
        assert figures["pass_rate_ci95"][1] - figures["pass_rate_ci95"][0] >= naive[1] - naive[0]


@pytest.mark.parametrize("data, column", [(META_JSONL, "metadata.category"), (REPEATS_JSONL, "topic"),
                                          (VERSIONS_CSV, "lang")])
def test_the_tally_the_command_line_writes_with_slices_the_same(data, column, tmp_path):
    """``write_to`` (the command line's path) slices a Tally: the same figures as the frame's."""
    from graders.config import as_run_config
    from graders.pipeline import score_prepared

    file = read_results(data)
    config = as_run_config({"graders": [{"name": "exact", "extract": "gsm8k"}, {"name": "token_f1"}]})
    written = score_prepared(file, config, write_to=str(tmp_path / "s.csv"), by=column).summary["by"]
    kept = score_prepared(file, config, by=column).summary["by"]
    assert written == kept


def test_a_column_that_is_not_there_names_the_columns_there_are():
    with pytest.raises(SliceError, match=r"no column 'category' to slice by; the file's columns: id, expected, output, "
                                         r"metadata, metadata\.category"):
        score_file(META_JSONL, TWO, by="category")
    with pytest.raises(SliceError, match="no column 'nope'"):
        compare_file(read_results(ROOT / "sample_data" / "returns_ab_wide.csv"), TWO, by="nope")


def test_slice_codes_order_missing_last_and_refuse_too_many_values():
    codes, names = slice_codes(np.array(["b", None, "a", "", "b"], dtype=object))
    assert names == ["a", "b", None] and codes.tolist() == [1, 2, 0, 2, 1]
    codes, names = slice_codes(np.array(["10", "", "2", "1.5", None, "2"], dtype=object))  # numbers, some missing
    assert names == ["1.5", "2", "10", None] and codes.tolist() == [2, 3, 1, 0, 3, 1]
    assert slice_codes(np.array(["10", "2", "nan"], dtype=object))[1] == ["10", "2", "nan"]  # not all finite: text
    with pytest.raises(SliceError, match=f"1,001 distinct values; slices are for a column of at most {MAX_SLICES:,}"):
        slice_codes(np.array([str(i) for i in range(MAX_SLICES + 1)], dtype=object), "id")


def test_the_report_lists_the_slices():
    text = report_text(score_file(CATEGORY_CSV, TWO, by="category").summary)
    assert "by category: 4 slices; (missing): rows whose cell is absent or empty" in text
    assert "[category = geo] 16 rows" in text and "[category = (missing)] 8 rows" in text
    two = report_text(score_file(VERSIONS_CSV, TWO, by="lang").summary)
    assert "[lang = de] 12 rows\n · v1\n  exact" in two


# --------------------------------------------------------------------------- compare


WIDE_CSV = csv("id,expected,output,output_b,category", [
    (f"w{i}", "Paris", "Paris" if i % 3 else "Rome", "Paris" if i % 2 else "paris", ["geo", "art", ""][i % 3])
    for i in range(60)])

LONG_REPEATS = jsonl([
    {"id": f"q{i}", "version": version, "repeat": k, "expected": "yes",
     "output": "yes" if (i + k + j * (i % 4)) % 3 else "no", "topic": ["alpha", "beta", "gamma"][i % 3]}
    for i in range(30) for j, version in enumerate(("v1", "v2")) for k in range(2)])

COMPARE_CASES = [
    ("wide", WIDE_CSV, {"graders": [{"name": "exact"}, {"name": "token_f1"}]}, "category"),
    ("long with repeats", LONG_REPEATS, {"graders": [{"name": "exact"}, {"name": "token_f1"}]}, "topic"),
]
METRIC_FIGURES = ("n", "n_cases", "mean_a", "mean_b", "mean_diff", "ci95", "wins", "losses", "ties", "p_value",
                  "ci_method", "pass_rate_a", "pass_rate_a_ci95", "pass_rate_b", "pass_rate_b_ci95", "clustered")


@pytest.mark.parametrize("name, data, config, column", COMPARE_CASES, ids=[c[0] for c in COMPARE_CASES])
def test_each_compare_slice_is_the_file_filtered_to_it_and_compared_alone(name, data, config, column):
    """A − B per slice with its interval, as the whole comparison computes it (same resamples and seed)."""
    result = compare_file(read_results(data), config, by=column, resamples=500, seed=3)
    by = result.summary()["by"]
    assert by == dict(result.by) and "unadjusted" in by["p"]
    for s in by["slices"]:
        alone = compare_file(read_results(filtered(data, column, s["value"])), config, resamples=500, seed=3)
        assert s["pairs"] == alone.unpaired["pairs"]
        for metric, m in alone.summary()["metrics"].items():
            got = s["metrics"][metric]
            for key in METRIC_FIGURES:
                assert got[key] == pytest.approx(m[key], abs=1e-12) if isinstance(m[key], (float, list)) else \
                    got[key] == m[key], (s["value"], metric, key)
            assert got["holm"] == "unadjusted" and got["p_holm"] is None


def test_the_comparison_report_lists_the_slices():
    result = compare_file(read_results(WIDE_CSV), {"graders": [{"name": "exact"}]}, by="category", resamples=200)
    text = result.report()
    assert "by category: 3 slices; each slice's p is unadjusted" in text
    assert "[category = (missing)] 20 pairs" in text
    line = next(x for x in text.splitlines() if x.startswith("  exact") and "A - B" in x)
    assert math.isfinite(float(line.split("A - B ")[1].split()[0]))


# --------------------------------------------------------------------------- command line


def run_cli(*args: str, capsys) -> tuple[int, str]:
    """The exit code, and what the command printed (the report: standard output here)."""
    code = cli.main(list(args))
    printed = capsys.readouterr()
    return code, printed.out + printed.err


def test_score_by_writes_the_slices_to_the_summary_and_the_report(tmp_path, capsys):
    src = tmp_path / "run.jsonl"
    src.write_bytes(META_JSONL)
    out, summary = tmp_path / "scored.csv", tmp_path / "summary.json"
    code, err = run_cli("score", str(src), "--out", str(out), "--summary", str(summary), "--by", "metadata.category",
                        capsys=capsys)
    assert code == 0
    written = json.loads(summary.read_text())
    assert written["by"] == score_file(META_JSONL, TWO, by="metadata.category").summary["by"]
    assert "[metadata.category = ünïcode] 12 rows" in err and "[metadata.category = (missing)] 7 rows" in err


def test_compare_by_writes_the_slices(tmp_path, capsys):
    src = tmp_path / "wide.csv"
    src.write_bytes(WIDE_CSV)
    summary = tmp_path / "summary.json"
    code, err = run_cli("compare", str(src), "--out", str(tmp_path / "c.csv"), "--summary", str(summary),
                        "--by", "category", "--resamples", "200", capsys=capsys)
    assert code == 0
    by = json.loads(summary.read_text())["by"]
    assert [s["value"] for s in by["slices"]] == ["art", "geo", None]
    assert "[category = geo] 20 pairs" in err


@pytest.mark.parametrize("command", ["score", "compare"])
def test_by_a_column_that_is_not_there_exits_2_naming_the_columns(command, tmp_path, capsys):
    src = tmp_path / "wide.csv"
    src.write_bytes(WIDE_CSV)
    out = tmp_path / "out.csv"
    code, printed = run_cli(command, str(src), "--out", str(out), "--by", "metadata.category", capsys=capsys)
    assert code == 2
    assert printed == ("gradeboard: no column 'metadata.category' to slice by; the file's columns: "
                   "id, expected, output, output_b, category\n")
    assert not out.exists()  # checked before any row is scored or written
