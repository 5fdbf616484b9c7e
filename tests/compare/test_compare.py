"""A versus B: pairing, wins/losses/ties, filters, unpaired cases, the CLI and its gates."""

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import graders.scoring.parallel as par
from graders.cli import main
from graders.compare.comparison import COMPARISON_COLUMNS, CompareError, compare_file
from graders.config import GraderConfig, RunConfig
from graders.readers.files import read_results

ROOT = Path(__file__).resolve().parents[2]


def cfg(*names, overall=None):
    return RunConfig({}, tuple(GraderConfig.make(n) for n in names), overall)


WIDE = (
    "id,expected,output,output_b\n"
    "1,Paris,Paris,paris\n"      # A passes exact, B fails
    "2,Rome,Rome,Rome\n"         # tie
    "3,Oslo,oslo,Oslo\n"         # A fails, B passes
    "4,Bern,Bern,Bern.\n"        # A passes, B fails
    "5,Lima,Lim,Lim\n"           # both fail: tie
).encode()


def test_wide_hand_computed():
    c = compare_file(read_results(WIDE), cfg("exact", "token_f1"), resamples=500)
    assert (c.label_a, c.label_b, c.source) == ("output", "output_b", "wide")
    m = c.metrics["exact"].stats
    assert (m.n, m.wins, m.losses, m.ties) == (5, 2, 1, 2)
    assert m.mean_a == pytest.approx(3 / 5) and m.mean_b == pytest.approx(2 / 5)
    assert m.mean_diff == pytest.approx(1 / 5)
    assert (m.b, m.c) == (2, 1)
    # Exact McNemar: two-sided binomial on min(b, c) = 1 of 3 -> 2 * P(X <= 1) = 2 * 4/8 = 1.
    assert m.p_value == pytest.approx(1.0)
    assert m.ci_low <= m.mean_diff <= m.ci_high
    assert c.metrics["exact"].p_holm is not None
    drops = c.rows("a_passes_b_fails", "exact")
    assert list(drops["item"]) == ["1", "4"]
    assert list(c.rows("a_fails_b_passes", "exact")["item"]) == ["3"]
    assert set(c.rows("disagree", "exact")["item"]) == {"1", "3", "4"}
    # A drop is A scoring below B: only case 3. Under SQuAD normalization token F1 sees no drop.
    assert list(c.largest_drops("exact")["item"]) == ["3"]
    assert c.largest_drops("token_f1").empty


def test_comparison_csv_columns(tmp_path):
    c = compare_file(read_results(WIDE), cfg("exact"), resamples=200)
    from graders.compare.comparison import write_comparison

    out = tmp_path / "c.csv"
    write_comparison(c, out)
    back = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert tuple(back.columns) == COMPARISON_COLUMNS
    assert list(back["outcome"]) == ["win", "tie", "loss", "win", "tie"]
    assert list(back["difference"]) == ["1.0", "0.0", "-1.0", "1.0", "0.0"]


LONG = "\n".join(json.dumps(r) for r in [
    {"id": "a", "version": "v1", "repeat": 0, "expected": "x", "output": "x"},
    {"id": "a", "version": "v1", "repeat": 1, "expected": "x", "output": "y"},
    {"id": "a", "version": "v2", "repeat": 0, "expected": "x", "output": "x"},
    {"id": "a", "version": "v2", "repeat": 1, "expected": "x", "output": "x"},
    {"id": "b", "version": "v1", "repeat": 0, "expected": "z", "output": "z"},
    {"id": "b", "version": "v2", "repeat": 0, "expected": "z", "output": "q"},
    {"id": "c", "version": "v1", "repeat": 0, "expected": "w", "output": "w"},  # only in v1
    {"id": "d", "version": "v2", "repeat": 0, "expected": "w", "output": "w"},  # only in v2
]).encode()


def test_long_pairs_on_id_and_repeat_and_lists_unpaired():
    c = compare_file(read_results(LONG), cfg("exact"), resamples=300)
    assert (c.label_a, c.label_b, c.source) == ("v1", "v2", "long")
    m = c.metrics["exact"].stats
    assert m.n == 3 and (m.wins, m.losses, m.ties) == (1, 1, 1)
    assert m.clustered  # case a has two repeats
    assert c.unpaired["a_only"] == {"count": 1, "keys": ["c"]}
    assert c.unpaired["b_only"] == {"count": 1, "keys": ["d"]}
    outcomes = dict(zip(c.pairs["item"] + "/" + c.pairs["repeat"], c.pairs["outcome"]))
    assert outcomes["c/0"] == "a only" and outcomes["d/0"] == "b only"
    swapped = compare_file(read_results(LONG), cfg("exact"), version_a="v2", version_b="v1", resamples=300)
    assert swapped.metrics["exact"].stats.mean_diff == pytest.approx(-m.mean_diff)


def test_seeded_and_deterministic():
    one = compare_file(read_results(LONG), cfg("exact", "token_f1"), resamples=400, seed=3)
    two = compare_file(read_results(LONG), cfg("exact", "token_f1"), resamples=400, seed=3)
    assert one.summary() == two.summary()


@pytest.mark.parametrize(
    "content, kwargs, message",
    [
        (b"id,expected,output,version\n1,a,a,v1\n2,b,b,v1\n", {}, "only one version (v1)"),
        (LONG, {"version_a": "v1", "version_b": "v9"}, "unknown version 'v9'; the file has: v1, v2"),
        (LONG, {"version_a": "v1", "version_b": "v1"}, "the same version"),
        (b"id,expected,output,version\n1,a,a,v1\n2,b,b,v2\n", {}, "no case appears in both v1 and v2"),
        (b"id,expected,output\n1,a,a\n", {}, "compare needs two outputs"),
        (b"id,expected,output,version\n1,a,a,v1\n1,a,a,v2\n1,a,a,v3\n", {}, "choose two with --a and --b"),
        # every row left out: not "only one version (none)", and the reasons are named
        (b"id,expected,output,version\n1,a,,v1\n,a,a,v2\n", {},
         "no rows left to compare (2 rows left out: no id 1, no output 1)"),
        (b"id,expected,output,version\n1,a,,v1\n,a,a,v2\n", {"version_a": "v1", "version_b": "v2"},
         "no rows left to compare (2 rows left out"),
        # a version a message would not show as written: empty, an edge space, a line break
        (b"id,expected,output,version\n1,a,a,v1\n1,a,a,\n1,a,a,v1 \n", {},
         'the file has 3 versions (v1, "", "v1 "); choose two'),
        (b'id,expected,output,version\n1,a,a,v1\n1,a,a,"v\r2"\n2,a,a,v3\n', {"version_a": "v1", "version_b": "v2"},
         "unknown version 'v2'; the file has: v1, \"v\\r2\", v3"),
        (b"id,expected,output,version\n1,a,a,v1\n2,a,a,\n", {}, 'no case appears in both v1 and ""'),
        # issue 34: the file's versions count in file order, rows left out included
        (b"id,expected,output,version\n1,a,a,v1\n2,a,,v2\n", {},
         "every row of version v2 was left out (1 row left out: no output 1); compare needs rows of both versions"),
        # every B output empty: the left-out rows are why nothing pairs
        (b"id,expected,output,output_b\n1,a,a,\n2,b,b,\n", {},
         "no case appears in both output and output_b: nothing to pair on the same row (2 rows left out: no output 2)"),
        # output_b alone (no output column): no "None" side
        (b"id,expected,output_b\n1,a,a\n", {}, "a wide file needs an output column for A beside 'output_b' for B"),
    ],
)
def test_compare_errors(content, kwargs, message):
    with pytest.raises(CompareError) as e:
        compare_file(read_results(content), cfg("exact"), resamples=100, **kwargs)
    assert message in str(e.value)


def test_cli_compare_and_fail_if_worse(tmp_path, capsys):
    f = tmp_path / "w.csv"
    # A is clearly worse than B on 60 cases.
    rows = ["id,expected,output,output_b"] + [f"{i},x{i},wrong,x{i}" for i in range(60)]
    f.write_text("\n".join(rows) + "\n")
    out, summary = tmp_path / "c.csv", tmp_path / "s.json"
    code = main(["compare", str(f), "--grader", "exact", "--out", str(out), "--summary", str(summary)])
    assert code == 0
    s = json.loads(summary.read_text())
    assert s["metrics"]["exact"]["mean_diff"] == -1.0 and s["metrics"]["exact"]["mcnemar_c"] == 60
    code = main(["compare", str(f), "--grader", "exact", "--out", str(out), "--fail-if-worse", "exact"])
    assert code == 1
    assert "A is worse than B on exact" in capsys.readouterr().err
    code = main(["compare", str(f), "--grader", "exact", "--out", str(out), "--fail-if-worse", "bleu"])
    assert code == 2


@pytest.mark.parametrize(
    "content, extra, message",
    [
        (b"id,expected,output,version\n1,a,a,v1\n", [], "only one version"),
        (b"id,expected,output,version\n1,a,a,v1\n2,a,a,v2\n", [], "no case appears in both"),
        (b"id,expected,output,version\n1,a,a,v1\n1,a,a,v2\n", ["--a", "v1", "--b", "v3"], "unknown version 'v3'"),
        (b"expected,output,version\na,a,v1\na,a,v2\n", [],
         "a long file pairs its two versions on (id, repeat), and no column is mapped to id; "
         "map one, or put the two outputs side by side (output and output_b)"),
    ],
)
def test_cli_compare_bad_input(tmp_path, capsys, content, extra, message):
    f = tmp_path / "f.csv"
    f.write_bytes(content)
    code = main(["compare", str(f), *extra, "--out", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_sample_files_compare():
    c = compare_file(read_results(ROOT / "sample_data" / "returns_ab_long.jsonl"), cfg("exact", "normalized", overall="any"), resamples=300)
    assert c.metrics["exact"].stats.clustered and c.metrics["exact"].stats.n == 120
    assert math.isfinite(c.metrics["overall"].stats.mean_diff)


@pytest.mark.parametrize("start_method", ["fork", "forkserver"])
def test_worker_processes_give_the_same_comparison(monkeypatch, start_method):
    """The dashboard compares large files in forkserver workers; the command line forks.
    Either way the figures and the paired rows equal one process's."""
    import random

    from graders._testing import WORDS

    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 1)
    rng = random.Random(4)
    lines = ["id,expected,output,output_b"]
    for i in range(3 * par.CHUNK_ROWS // 2 + 1):  # three chunks of prepared rows (A and B)
        exp = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        lines.append(f"c{i},{exp},{rng.choice([exp, exp.upper(), 'x'])},{rng.choice([exp, exp + '.', 'y'])}")
    file = read_results("\n".join(lines).encode())
    config = cfg("exact", "normalized", "token_f1", overall="all")
    one = compare_file(file, config, resamples=300, seed=1)
    many = compare_file(file, config, resamples=300, seed=1, workers=2, start_method=start_method)
    assert many.summary() == one.summary()
    pd.testing.assert_frame_equal(many.pairs, one.pairs)
    cols = [c for c in one.scored.columns if c != "details"]
    pd.testing.assert_frame_equal(many.scored[cols], one.scored[cols])
    assert many.scored["details"].isna().all() and one.scored["details"].notna().all()  # the workers ran


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--resamples", "0"], "--resamples takes a whole number from 100 to 1,000,000, not 0"),
        (["--resamples", "-5"], "--resamples takes a whole number from 100 to 1,000,000, not -5"),
        (["--resamples", "1"], "--resamples takes a whole number from 100 to 1,000,000, not 1"),
        (["--resamples", "100000000000"], "--resamples takes a whole number from 100 to 1,000,000, not 100000000000"),
        (["--seed", "-1"], "--seed takes a whole number >= 0, not -1"),
        (["--grader", "nosuch"], "--grader: unknown grader 'nosuch'; valid graders: exact, normalized"),
        (["--resamples", "x"], "argument --resamples: invalid int value: 'x'"),
    ],
)
def test_cli_compare_bad_options_are_one_line(tmp_path, capsys, extra, message):
    f = tmp_path / "w.csv"
    f.write_bytes(WIDE)
    code = main(["compare", str(f), "--out", str(tmp_path / "o.csv"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert err.count("\n") == 1, err


def test_fail_if_worse_needs_more_than_an_interval_without_width(tmp_path, capsys):
    """Every pair differing alike: two cases where A fails and B passes are not "worse
    beyond noise" (exact McNemar p = 0.5). A bootstrap interval had no width there; Tango's
    score interval (issue 34) has, and holds 0."""
    from graders.stats.binary import tango_interval

    f = tmp_path / "w.csv"
    f.write_text("id,expected,output,output_b\n1,x,wrong,x\n2,y,wrong,y\n")
    args = ["compare", str(f), "--grader", "exact", "--out", str(tmp_path / "o.csv"), "--summary", str(tmp_path / "s.json")]
    assert main([*args, "--fail-if-worse", "exact"]) == 0
    s = json.loads((tmp_path / "s.json").read_text())["metrics"]["exact"]
    assert s["ci95"] == list(tango_interval(0, 2, 2)) and s["ci95"][0] == -1.0 and s["ci95"][1] > 0
    assert s["p_value"] == 0.5 and s["ci_method"] == "Tango score"
    assert s["min_detectable_difference"] is None  # no discordance in the other direction to estimate it from
    assert "No detectable difference" in s["verdict"] and "which includes 0" in s["verdict"]
    assert capsys.readouterr().err == ""


def test_a_wide_file_without_ids_pairs_each_row(tmp_path, capsys):
    """Seed 004: rows of expected, output and output_b, no id: each row is a case."""
    f = tmp_path / "w.csv"
    f.write_text("expected,output,output_b\nParis,Paris,paris\nRome,rome,Rome\nOslo,Oslo,Oslo\n")
    out, summary = tmp_path / "c.csv", tmp_path / "s.json"
    assert main(["compare", str(f), "--grader", "exact", "--out", str(out), "--summary", str(summary)]) == 0
    m = json.loads(summary.read_text())["metrics"]["exact"]
    assert (m["n"], m["wins"], m["losses"], m["ties"]) == (3, 1, 1, 1)
    assert pd.read_csv(out, dtype=str, keep_default_na=False)["item"].tolist() == ["1", "2", "3"]


NOTHING_PAIRED = "gradeboard: fail-if-worse: no pair has a {} score on both sides, so A cannot be shown not to be worse\n"


@pytest.mark.parametrize("rows, grader, n, code, err", [
    # no reference holds a number: numeric judges no row on either side (exact judges all)
    (["1,yes,yes,no", "2,no,no,yes"], "numeric", 0, 1, NOTHING_PAIRED.format("numeric")),
    # A's outputs are numbers and B's are not: B fails, which is a score, so both sides are paired
    (["1,4,4,four", "2,5,5,five"], "numeric", 2, 0, ""),
    # the same file gated on a grader that judges every pair
    (["1,yes,yes,no", "2,no,no,yes"], "exact", 2, 0, ""),
])
def test_fail_if_worse_with_nothing_paired_trips(tmp_path, capsys, rows, grader, n, code, err):
    """A gate with nothing to measure is not met (as --fail-under's): with no pair scored
    on both sides, A cannot be shown not to be worse, and CI must not pass in silence."""
    f = tmp_path / "w.csv"
    f.write_text("\n".join(["id,expected,output,output_b", *rows]) + "\n")
    args = ["compare", str(f), "--grader", "exact", "--grader", "numeric", "--out", str(tmp_path / "o.csv"),
            "--summary", str(tmp_path / "s.json")]
    assert main([*args, "--fail-if-worse", grader]) == code
    assert capsys.readouterr().err == err
    assert json.loads((tmp_path / "s.json").read_text())["metrics"][grader]["n"] == n


def test_a_comparison_with_no_pair_scored_by_any_grader_is_bad_input(tmp_path, capsys):
    """Pairs, but not one with a score on both sides for any grader: nothing was compared,
    which is bad input (exit 2, one line), as ids that never match are; no file is written."""
    f = tmp_path / "w.csv"
    f.write_text("id,expected,output,output_b\n1,yes,yes,no\n2,no,no,yes\n")
    out = tmp_path / "o.csv"
    assert main(["compare", str(f), "--grader", "numeric", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "gradeboard: nothing to compare: no pair has a score on both sides for numeric (each of the 2 pairs "
        "is not judged or an error on A's side or B's)\n")
    assert not out.exists()


def test_a_wide_file_with_versions_pairs_each_row_in_its_version(tmp_path):
    """The key is (id, version, repeat): one id per version is no duplicate, and each row
    pairs its own output with its own output_b."""
    content = (b"id,version,expected,output,output_b\n"
               b"1,v1,a,a,b\n1,v2,a,a,a\n2,v1,b,b,b\n2,v2,b,c,b\n")
    c = compare_file(read_results(content), cfg("exact"), resamples=200)
    assert c.prepared.left_out.total == 0 and c.metrics["exact"].stats.n == 4
    out = tmp_path / "c.csv"
    from graders.compare.comparison import write_comparison

    write_comparison(c, out)
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(got.columns) == ["item", "version", *COMPARISON_COLUMNS[1:]]
    assert got[["item", "version", "outcome"]].values.tolist() == [
        ["1", "v1", "win"], ["1", "v2", "tie"], ["2", "v1", "tie"], ["2", "v2", "loss"]]
    # one side missing: the other is listed under its version, not dropped
    c = compare_file(read_results(content + b"3,v2,c,c,\n"), cfg("exact"), resamples=200)
    assert c.unpaired["a_only"] == {"count": 1, "keys": ["3 (version v2)"]}
    assert c.prepared.left_out.counts == {"no output": 1}


def test_an_exported_null_mapping_keeps_a_file_long(tmp_path):
    """The dashboard's "set Second model output to none" survives the exported configuration:
    the command line then compares the versions, as the page did."""
    content = (b"id,version,expected,output,output_b\n"
               b"1,v1,a,a,x\n1,v2,a,b,x\n2,v1,b,b,x\n2,v2,b,b,x\n")
    config = RunConfig({"id": "id", "version": "version", "expected": "expected", "output": "output", "output_b": None},
                       (GraderConfig.make("exact"),), None)
    exported = json.loads(config.to_json())
    assert exported["columns"]["output_b"] is None
    f, cfile = tmp_path / "f.csv", tmp_path / "c.json"
    f.write_bytes(content)
    cfile.write_text(json.dumps(exported))
    out, summary = tmp_path / "o.csv", tmp_path / "s.json"
    assert main(["compare", str(f), "--config", str(cfile), "--a", "v1", "--b", "v2", "--out", str(out),
                 "--summary", str(summary)]) == 0
    s = json.loads(summary.read_text())
    assert (s["source"], s["a"], s["b"], s["metrics"]["exact"]["wins"]) == ("long", "v1", "v2", 1)
    assert s["config"]["columns"]["output_b"] is None


def test_the_report_names_rows_left_out_and_counts_in_words(tmp_path, capsys):
    f = tmp_path / "w.csv"
    f.write_text("id,expected,output,output_b\n1,a,a,a\n2,b,b,\n2,b,b,b\n")
    assert main(["compare", str(f), "--grader", "exact", "--out", str(tmp_path / "o.csv")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith("No difference: A and B score the same on the one case.")
    assert lines[2:] == [
        "  1 row only in output: 2",
        "left out, no output: 1 (row 2); row 2 has no output_b",
        # record 3 once, though both its outputs are left out: a reason counts rows
        "left out, duplicate key: 1 (row 3); row 3 has the same id as row 2",
    ]


def test_an_unpaired_id_with_a_line_break_prints_as_a_json_string(tmp_path, capsys):
    """One case per line: an id holding CR or LF would otherwise break the report's lines."""
    records = [{"id": "x", "version": "v1", "expected": "a", "output": "a"},
               {"id": "x", "version": "v2", "expected": "a", "output": "a"},
               {"id": "two\nlines", "version": "v1", "expected": "a", "output": "a"},
               {"id": "cr\r", "version": "v2", "expected": "a", "output": "a"}]
    f = tmp_path / "l.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in records))
    assert main(["compare", str(f), "--grader", "exact", "--out", str(tmp_path / "o.csv")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:] == ['  1 row only in v1: "two\\nlines"', '  1 row only in v2: "cr\\r"']


def test_the_summary_holds_each_sides_run_summary(tmp_path, capsys):
    """Beside the comparison, each side's counts as `gradeboard score` writes them (SPEC §7),
    corpus BLEU and chrF per side, and unknown assertion kinds (scored per side, not compared)."""
    import sacrebleu

    lines = [
        '{"id": "1", "version": "v1", "expected": "the cat sat", "output": "the cat sat", "assert": "[{\\"type\\": \\"llm-rubric\\"}]"}',
        '{"id": "2", "version": "v1", "expected": "a dog ran", "output": "a dog", "assert": ""}',
        '{"id": "1", "version": "v2", "expected": "the cat sat", "output": "the cat", "assert": ""}',
        '{"id": "2", "version": "v2", "expected": "a dog ran", "output": "a dog ran", "assert": "[{\\"type\\": \\"llm-rubric\\"}]"}',
    ]
    f = tmp_path / "l.jsonl"
    f.write_text("\n".join(lines) + "\n")
    summary = tmp_path / "s.json"
    assert main(["compare", str(f), "--grader", "exact", "--grader", "bleu", "--out", str(tmp_path / "o.csv"),
                 "--summary", str(summary)]) == 0
    assert "assertion kinds not run: llm-rubric ×2" in capsys.readouterr().out
    s = json.loads(summary.read_text())
    assert s["graders"]["v1"]["exact"] | {"pass_rate_ci95": None} == {
        "graded": 2, "passed": 1, "failed": 1, "not_judged": 0, "errors": 0, "scored": 0, "near_misses": 0,
        "mean_score": 0.5, "pass_rate": 0.5, "pass_rate_ci95": None}
    assert s["graders"]["v2"]["assert:0:llm-rubric"]["errors"] == 1
    assert s["unknown_assertions"] == {"llm-rubric": 2}
    corpus = sacrebleu.corpus_bleu(["the cat", "a dog ran"], [["the cat sat", "a dog ran"]]).score / 100
    assert s["corpus"]["v2"]["bleu"]["corpus"] == pytest.approx(corpus, abs=1e-9)


def test_the_difference_cell_has_no_last_bit_noise(tmp_path):
    exp = json.dumps({str(i): i for i in range(10)})
    part = json.dumps({str(i): i for i in range(7)})
    rows = pd.DataFrame({"id": ["1"], "expected": [exp], "output": [part], "output_b": [exp]})
    f = tmp_path / "w.csv"
    rows.to_csv(f, index=False)
    c = compare_file(read_results(f), cfg("json_fields"), resamples=100)
    from graders.compare.comparison import write_comparison

    write_comparison(c, tmp_path / "c.csv")
    got = pd.read_csv(tmp_path / "c.csv", dtype=str, keep_default_na=False)
    assert got[["score_a", "score_b", "difference", "outcome"]].values.tolist() == [["0.7", "1.0", "-0.3", "loss"]]


# Cells the comparison CSV must give back as written: line ends inside a cell, quotes,
# commas, spaces at the edges, what pandas would read as missing, an emoji; and a lone
# surrogate (valid in JSON, not in UTF-8), written as its backslash escape.
ODD_IDS = [
    ("bare CR", "x\ry", "x\ry"),
    ("CRLF", "x\r\ny", "x\r\ny"),
    ("LF", "x\ny", "x\ny"),
    ("quotes", 'say "hi"', 'say "hi"'),
    ("comma", "a,b", "a,b"),
    ("edge spaces", "  padded ", "  padded "),
    ("NA", "NA", "NA"),
    ("null", "null", "null"),
    ("emoji", "🦜 id", "🦜 id"),
    ("lone surrogate", "q\ud800", "q\\ud800"),
]


@pytest.mark.parametrize("source", ["wide", "long"])
@pytest.mark.parametrize("name,item,written", ODD_IDS, ids=[t[0] for t in ODD_IDS])
def test_the_comparison_csv_reads_back_cell_for_cell(tmp_path, source, name, item, written):
    from graders.compare.comparison import write_comparison

    if source == "wide":
        records = [{"id": item, "expected": "a", "output": "a", "output_b": "b"},
                   {"id": "plain", "expected": "a", "output": "b", "output_b": "a"}]
    else:  # "only-a" has no B: its score_b, difference cells are ""
        records = [{"id": i, "version": v, "expected": "a", "output": o} for i, v, o in
                   [(item, "v1", "a"), ("plain", "v1", "b"), ("only-a", "v1", "a"), (item, "v2", "b"), ("plain", "v2", "a")]]
    content = "\n".join(json.dumps(r) for r in records).encode()
    c = compare_file(read_results(content), cfg("exact"), resamples=100)
    out = tmp_path / "c.csv"
    write_comparison(c, out)
    back = pd.read_csv(out, dtype=str, keep_default_na=False)
    expected = c.pairs[list(COMPARISON_COLUMNS)].replace({item: written}).values.tolist()
    assert back.values.tolist() == expected
    assert back["item"].tolist()[0] == written and back["outcome"].tolist()[0] == "win"
    if source == "long":
        assert back.loc[back["item"] == "only-a", ["score_b", "difference", "outcome"]].values.tolist() == [["", "", "a only"]]


@pytest.mark.parametrize("ids", [
    ["\ud800", "\ud800x", "a"],           # a lone surrogate, alone and in a longer id
    ["\udfff", "\ud83d", "\U0001f600"],  # low, high, and the valid pair (JSON "\ud83d\ude00") they are not
], ids=["high surrogate", "low and high"])
def test_a_lone_surrogate_id_pairs_a_long_file_like_any_id(tmp_path, capsys, ids):
    """pandas' string dtype cannot hold a lone surrogate: pairing on the texts raised.
    Pairs are joined on integer codes of (id, repeat), so each id pairs with its own."""
    records = [{"id": i, "version": v, "repeat": r, "expected": "a", "output": "a" if v == "v1" or k else "b"}
               for v in ("v1", "v2") for k, i in enumerate(ids) for r in (0, 1)]
    f = tmp_path / "long.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    c = compare_file(read_results(f), cfg("exact"), resamples=100)
    m = c.metrics["exact"].stats
    assert (m.n, m.n_cases, m.wins, m.ties) == (6, 3, 2, 4)
    assert c.unpaired["pairs"] == 6 and c.unpaired["a_only"]["count"] == c.unpaired["b_only"]["count"] == 0
    assert c.pairs["item"].tolist() == [i for i in ids for _ in (0, 1)]
    out = tmp_path / "c.csv"
    code = main(["compare", str(f), "--grader", "exact", "--resamples", "100", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err, err
    back = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert back["item"].tolist() == [i.encode("utf-8", "backslashreplace").decode() for i in ids for _ in (0, 1)]
    assert back["outcome"].tolist() == ["win", "win", "tie", "tie", "tie", "tie"]


def test_unpaired_surrogate_ids_are_listed(tmp_path):
    records = [{"id": "\ud800", "version": "v1", "expected": "a", "output": "a"},
               {"id": "p", "version": "v1", "expected": "a", "output": "a"},
               {"id": "p", "version": "v2", "expected": "a", "output": "a"},
               {"id": "\udc00", "version": "v2", "expected": "a", "output": "a"}]
    c = compare_file(read_results("\n".join(json.dumps(r) for r in records).encode()), cfg("exact"), resamples=100)
    assert c.unpaired == {"a_only": {"count": 1, "keys": ["\ud800"]}, "b_only": {"count": 1, "keys": ["\udc00"]},
                          "pairs": 1}


def test_the_three_filters_are_outcomes_of_the_comparison_csv(tmp_path):
    """As the README says: for a pass-or-fail grader, A fails and B passes is a loss, the
    reverse a win, any disagreement every paired row that is not a tie; the CSV has them."""
    ab = compare_file(ROOT / "sample_data" / "returns_ab_wide.csv", {"graders": ["exact", "normalized"]})
    out = tmp_path / "c.csv"
    assert main(["compare", str(ROOT / "sample_data" / "returns_ab_wide.csv"), "--grader", "exact", "--grader",
                 "normalized", "--out", str(out)]) == 0
    csv = pd.read_csv(out, dtype=str, keep_default_na=False)
    for grader in ("exact", "normalized"):
        rows = csv[(csv["grader"] == grader) & csv["outcome"].isin(["win", "loss", "tie"])]
        for kind, outcomes in (("a_fails_b_passes", {"loss"}), ("a_passes_b_fails", {"win"}), ("disagree", {"win", "loss"})):
            want = sorted(rows.loc[rows["outcome"].isin(outcomes), "item"])
            assert sorted(ab.rows(kind, grader)["item"]) == want and want, (grader, kind)
