"""The batch layer: column forms equal grade() row by row, the overall row, per-row
assertions, the scored file's cells, and the summary."""

import io
import json
import os
import stat
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import graders.scoring.output as outp
import graders.scoring.parallel as par
from graders import GRADER_NAMES, grade
from graders._testing import pairs
from graders.config import ConfigError, GraderConfig, RunConfig
from graders.scoring.batch import grade_column, overall_grade
from graders.scoring.output import SCORED_COLUMNS, write_scored
from graders.scoring.parallel import Cancelled, score_frame
from graders.scoring.summary import summarize

PARAMS = {
    "regex": {"pattern": "(?:^|\\s)the\\b", "flags": ""},
    "json_schema": {"schema": {"type": "object", "required": ["a"]}},
    "numeric": {"read": "last", "rel_tol": 0.01},
    "token_f1": {"threshold": 0.5},
    "rouge_l": {"threshold": 0.4},
}


def rows_of(pairs_list, system="v1"):
    n = len(pairs_list)
    return pd.DataFrame({
        "record": list(range(1, n + 1)),
        "item": [f"c{i}" for i in range(n)],
        "system": [system] * n,
        "repeat": ["0"] * n,
        "refs": [tuple(r) for r, _ in pairs_list],
        "output": [o for _, o in pairs_list],
    })


def mixed_pairs(n, seed):
    out = list(pairs(n, seed=seed))
    extra = [
        (["42"], "The refund is $42.00."), (["3.11"], "About 3.1 miles"), (['{"a": 1}'], '```json\n{"a": 1}\n```'),
        (['{"a": 1, "b": "x"}'], '{"a": 1, "b": 2}'), (["Paris"], " paris. "), (["the cat"], "The cat"),
        ([""], ""), (["x"], ""), (["", "y"], "y"),
    ]
    return out + extra + out[:40] + extra  # repeated pairs: graded once, scattered back


@pytest.mark.parametrize("name", GRADER_NAMES)
def test_column_form_equals_grade_row_by_row(name):
    data = mixed_pairs(400, seed=hash(name) % 1000)
    gc = GraderConfig.make(name, PARAMS.get(name, {}))
    block = grade_column(gc, [tuple(r) for r, _ in data], [o for _, o in data])
    for i, (refs, out) in enumerate(data):
        want = grade(name, expected=refs, output=out, **PARAMS.get(name, {}))
        got = block.grade(i)
        assert (got.status, got.passed, got.score, got.explanation, got.near_miss) == (
            want.status, want.passed, want.score, want.explanation, want.near_miss), (name, refs, out)


@pytest.mark.parametrize(
    "statuses, rule, status",
    [
        (["pass", "pass"], "all", "pass"),
        (["pass", "fail"], "all", "fail"),
        (["pass", "not_judged"], "all", "not_judged"),
        (["fail", "not_judged"], "all", "fail"),
        (["pass", "error"], "all", "not_judged"),
        (["fail", "pass"], "any", "pass"),
        (["fail", "fail"], "any", "fail"),
        (["fail", "not_judged"], "any", "not_judged"),
        (["pass", "not_judged"], "any", "pass"),
    ],
)
def test_overall_rules(statuses, rule, status):
    assert overall_grade(statuses, rule).status == status


def config_of(*names, overall=None, **params):
    return RunConfig({}, tuple(GraderConfig.make(n, params.get(n, {})) for n in names), overall)


def test_scored_frame_columns_and_order():
    rows = rows_of([(["Paris"], "Paris"), (["Paris"], "paris"), (["n/a"], "3")])
    scored = score_frame(rows, config_of("exact", "numeric", overall="all"))
    assert tuple(scored.columns[: len(SCORED_COLUMNS)]) == SCORED_COLUMNS
    assert list(scored["scorer"]) == ["exact", "numeric", "overall"] * 3
    assert list(scored["item"]) == ["c0"] * 3 + ["c1"] * 3 + ["c2"] * 3
    first = scored.iloc[0]
    assert (first["score"], first["pass"], first["error"], first["near_miss"]) == ("1.0", "true", "", "")
    second = scored.iloc[3]
    assert (second["pass"], second["near_miss"]) == ("false", "lowercase")
    nj = scored[(scored["item"] == "c0") & (scored["scorer"] == "numeric")].iloc[0]
    assert (nj["score"], nj["pass"], nj["error"]) == ("", "", "not-judged")
    overall = scored[scored["scorer"] == "overall"]
    # c0: exact passes, numeric not judged -> undecided; c2: exact fails -> fail.
    assert list(overall["pass"]) == ["", "false", "false"]
    assert list(overall["error"]) == ["not-judged", "", ""]
    assert json.loads(overall.iloc[0]["metadata"]) == {"rule": "all", "graders": ["exact", "numeric"]}
    meta = json.loads(scored.iloc[1]["metadata"])
    assert meta == {"read": "whole", "abs_tol": 0.0, "rel_tol": 0.0}


def test_no_binary_grader():
    rows = rows_of([(["a b"], "a c")])
    scored = score_frame(rows, config_of("token_f1", overall="any"))
    row = scored[scored["scorer"] == "overall"].iloc[0]
    assert (row["score"], row["pass"], row["error"]) == ("", "", "no-binary-grader")
    assert json.loads(row["metadata"])["rule"] == "any"


def test_signature_in_metadata():
    rows = rows_of([(["the cat sat"], "the cat sat down"), (["a", "b"], "a")])
    scored = score_frame(rows, config_of("bleu", "chrf", "rouge_l", "token_f1"))
    sigs = [json.loads(m)["signature"] for m in scored["metadata"]]
    assert sigs[0].startswith("bleu|nrefs:1") and sigs[4].startswith("bleu|nrefs:2")
    assert all(sig for sig in sigs)


@pytest.mark.parametrize(
    "assertion, output, status",
    [
        ({"type": "equals", "value": "Paris"}, "Paris", "pass"),
        ({"type": "exact"}, "Paris", "pass"),  # no value: the row's expected
        ({"type": "not-equals", "value": "Paris"}, "Paris", "fail"),
        ({"type": "contains", "value": "ari"}, "Paris", "pass"),
        ({"type": "icontains", "value": "PARIS"}, "paris!", "pass"),
        ({"type": "not-icontains", "value": "PARIS"}, "paris!", "fail"),
        ({"type": "contains-any", "value": ["x", "Par"]}, "Paris", "pass"),
        ({"type": "contains-all", "value": ["x", "Par"]}, "Paris", "fail"),
        ({"type": "icontains-all", "value": ["PAR", "is"]}, "Paris", "pass"),
        ({"type": "icontains-any", "value": ["zz", "RIS"]}, "Paris", "pass"),
        ({"type": "starts-with", "value": "Pa"}, "Paris", "pass"),
        ({"type": "starts-with", "value": "ri"}, "Paris", "fail"),
        ({"type": "regex", "value": "^P\\w+$"}, "Paris", "pass"),
        ({"type": "not-regex", "value": "\\d"}, "Paris", "pass"),
        ({"type": "is-json"}, '{"a": 1}', "pass"),
        ({"type": "is-json"}, "{a: 1}", "fail"),
        ({"type": "is-json", "value": {"type": "array"}}, '{"a": 1}', "fail"),
        ({"type": "json-schema", "value": {"type": "object"}}, '{"a": 1}', "pass"),
        ({"type": "numeric", "value": "42", "read": "last"}, "it is 42", "pass"),
        ({"type": "token-f1", "value": "Paris France", "threshold": 0.5}, "Paris", "pass"),
        ({"type": "rouge-l", "value": "Paris France", "threshold": 0.9}, "Paris", "fail"),
        ({"type": "bleu", "value": "Paris"}, "Paris", "scored"),
        ({"type": "chrf", "value": "Paris", "threshold": 0.5}, "Paris", "pass"),
        ({"type": "normalized", "value": " PARIS "}, "paris", "pass"),
        ({"type": "llm-rubric", "value": "is polite"}, "Paris", "error"),
        ({"type": "not-llm-rubric", "value": "is polite"}, "Paris", "error"),
        ({"type": "numeric", "value": "1", "abs_tol": -1}, "1", "error"),  # a bad parameter
        # from an audit, with promptfoo's semantics where SPEC is silent
        # promptfoo 0.121 throws on a regex value that is not a string (tests/files/promptfoo_assertions)
        ({"type": "regex", "value": 42}, "Paris", "error"),
        ({"type": "regex", "value": 42}, "a42", "error"),
        ({"type": "regex", "value": "A\\-\\d+"}, "A-12", "pass"),  # new RegExp(value): no u flag
        ({"type": "regex", "value": ["^P"]}, "Paris", "error"),  # a list is no pattern
        ({"type": "contains-any", "value": "London, Paris"}, "Paris", "pass"),  # comma-separated
        ({"type": "contains-all", "value": "Par,is"}, "Paris", "pass"),
        ({"type": "icontains-all", "value": "PAR, xyz"}, "Paris", "fail"),
        ({"type": "equals", "value": {"b": [True], "a": 1}}, '{"a": 1.0, "b": [true]}', "pass"),  # deep, strict
        ({"type": "equals", "value": {"a": 1, "b": [1]}}, '{"a": 1.0, "b": [true]}', "fail"),
        ({"type": "not-equals", "value": [1, 2]}, "[1, 2]", "fail"),
        ({"type": "equals", "value": {"a": 1}}, "not json", "fail"),
        # numbers as JavaScript reads them: doubles, past their range infinite
        ({"type": "equals", "value": [10**400]}, "[1e400]", "pass"),
        ({"type": "equals", "value": [1]}, "[1" + "0" * 309 + "]", "fail"),
        ({"type": "equals", "value": [9007199254740993]}, "[9007199254740992]", "pass"),
        ({"type": "is-json", "value": ""}, '{"a": 1}', "pass"),  # no schema: a plain JSON check
    ],
)
def test_assertion_kinds(assertion, output, status):
    rows = rows_of([(["Paris"], output)])
    rows["assertions"] = [(assertion,)]
    scored = score_frame(rows, config_of("exact"))
    row = scored[scored["scorer"].str.startswith("assert:")].iloc[0]
    assert row["scorer"] == f"assert:0:{assertion['type']}"
    assert row["status"] == status, row["explanation"]
    if status == "error":
        assert row["pass"] == "" and row["error"]


def test_an_assertion_number_keeps_its_source_spelling(tmp_path):
    """SPEC §5: JSON numbers keep their source spelling. 1e2 is the text 1e2 (not 100.0),
    while a threshold stays a number."""
    from graders.config import RunConfig
    from graders.pipeline import score_file

    path = tmp_path / "a.jsonl"
    path.write_text(
        '{"id": "1", "expected": "x", "output": "1e2", "assert": [{"type": "equals", "value": 1e2}]}\n'
        '{"id": "2", "expected": "x", "output": "100", "assert": [{"type": "equals", "value": 1e2}]}\n'
        '{"id": "3", "expected": "x", "output": "0.50", "assert": [{"type": "token-f1", "value": 0.50, "threshold": 0.5}]}\n',
        encoding="utf-8")
    run = score_file(path, RunConfig.from_dict({"graders": [{"name": "exact"}]}))
    asserted = run.scored[run.scored["scorer"].str.startswith("assert:")]
    assert asserted["status"].tolist() == ["pass", "fail", "pass"]


@pytest.mark.parametrize("kind", ["regex", "not-regex"])
def test_a_regex_assertion_without_a_pattern_is_an_error_not_a_match_of_anything(kind):
    """No value and no expected answer: no pattern at all, never the empty one (which
    matches every output); not- leaves the error as it is."""
    from graders.scoring.assertions import run_assertion

    g, meta = run_assertion({"type": kind}, (), "anything")
    assert (g.status, g.passed) == ("error", None) and "no pattern" in g.explanation
    assert run_assertion({"type": kind}, ("^any",), "anything")[0].status == ("pass" if kind == "regex" else "fail")
    # An empty pattern is no pattern either: promptfoo throws ("must have a string value").
    assert run_assertion({"type": kind, "value": ""}, (), "x")[0].status == "error"


def test_unknown_assertion_kinds_are_counted_never_passed():
    rows = rows_of([(["a"], "a"), (["b"], "b")])
    rows["assertions"] = [({"type": "llm-rubric"}, {"type": "javascript"}), ({"type": "llm-rubric"},)]
    scored = score_frame(rows, config_of("exact"))
    summary = summarize(scored, rows, graders=("exact",))
    assert summary["unknown_assertions"] == {"llm-rubric": 2, "javascript": 1}
    asserts = scored[scored["scorer"].str.startswith("assert:")]
    assert (asserts["pass"] == "").all()
    # Assertion rows follow their own case's grader rows.
    assert list(scored["item"]) == ["c0", "c0", "c0", "c1", "c1"]


def test_scored_csv_reads_back_cell_for_cell():
    data = mixed_pairs(150, seed=5) + [(["NA"], "null"), (["007"], "3.10"), ([" x "], 'quote " and\nnewline\r\n')]
    rows = rows_of(data)
    scored = score_frame(rows, config_of("exact", "numeric", "token_f1", "json_schema", overall="any",
                                         json_schema={"schema": {"type": "object"}}), include_output=True)
    buf = io.StringIO()
    write_scored(scored, buf, include_output=True)
    back = pd.read_csv(io.StringIO(buf.getvalue()), dtype=str, keep_default_na=False)
    assert list(back.columns) == [*SCORED_COLUMNS, "output"]
    expect = scored[[*SCORED_COLUMNS, "output"]].astype(str).reset_index(drop=True)
    pd.testing.assert_frame_equal(back.astype(object), expect.astype(object), check_dtype=False)


@pytest.mark.parametrize("cell", ["lone\rcarriage return", "a,b", 'say "hi"', "two\nlines", "", " padded ", "\ufeffbom"])
def test_scored_csv_quotes_what_a_reader_would_split(cell):
    """A bare CR is quoted too (csv.writer with LF line ends leaves it bare, and a reader
    then splits the row there); every cell reads back as written."""
    rows = rows_of([([cell or "x"], cell)])
    scored = score_frame(rows, config_of("exact"), include_output=True)
    buf = io.StringIO()
    write_scored(scored, buf, include_output=True)
    back = pd.read_csv(io.StringIO(buf.getvalue()), dtype=str, keep_default_na=False)
    assert back["output"].tolist() == [cell]
    assert back["explanation"].tolist() == scored["explanation"].tolist()


@pytest.mark.parametrize("cells,back", [
    (["", "x"], ["", "x"]),                     # one column: an empty cell is "", not a skipped blank line
    ([None, float("nan")], ["", ""]),           # no value is an empty cell, not "None" / "nan"
    (["x\ry", "a\r\nb"], ["x\ry", "a\r\nb"]),  # line ends inside a cell stay in it
    (["q\ud800"], ["q\\ud800"]),               # a lone surrogate, to a path, as its escape
], ids=["empty in one column", "None and NaN", "CR and CRLF", "lone surrogate"])
def test_write_csv_one_column_reads_back(tmp_path, cells, back):
    from graders.scoring.output import write_csv

    out = tmp_path / "one.csv"
    write_csv(pd.DataFrame({"cell": pd.Series(cells, dtype=object)}), out, ["cell"])
    assert pd.read_csv(out, dtype=str, keep_default_na=False)["cell"].tolist() == back


def test_parallel_equals_serial_and_progress_reports():
    data = mixed_pairs(1200, seed=9)
    rows = rows_of(data)
    cfg = config_of("exact", "normalized", "numeric", "token_f1", overall="all")
    seen = []
    serial = score_frame(rows, cfg, workers=1, chunk_rows=500, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, len(rows)) and seen[-1] == (len(rows), len(rows))

    old = par.PARALLEL_MIN_ROWS
    par.PARALLEL_MIN_ROWS = 1
    try:
        parallel = score_frame(rows, cfg, workers=2, chunk_rows=300)
    finally:
        par.PARALLEL_MIN_ROWS = old
    cols = list(SCORED_COLUMNS) + ["status"]
    pd.testing.assert_frame_equal(serial[cols], parallel[cols])


def test_forkserver_workers_equal_serial_and_never_run_the_parents_main(monkeypatch, tmp_path):
    # Inside Streamlit the parent's __main__ is the page script: a forkserver worker that
    # re-ran it would score the page again. Here that script would leave a file behind.
    import sys
    import types


    marker = tmp_path / "ran"
    script = tmp_path / "page.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    fake_main = types.ModuleType("__main__")
    fake_main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 1)
    rows = rows_of(mixed_pairs(900, seed=12))
    cfg = config_of("exact", "numeric", "json_schema", "chrf", overall="any",
                    json_schema={"schema": {"type": "object", "required": ["a"]}})
    serial = score_frame(rows, cfg, workers=1, chunk_rows=200)
    seen = []
    parallel = score_frame(rows, cfg, workers=2, chunk_rows=200, details=False, start_method="forkserver",
                           progress=lambda d, t: seen.append(d))
    cols = list(SCORED_COLUMNS) + ["status"]
    pd.testing.assert_frame_equal(serial[cols], parallel[cols])
    assert seen[-1] == len(rows) and not marker.exists()
    # details=False keeps what the summary and the charts read, and only that
    kept = parallel["details"].notna().to_numpy()
    assert set(parallel.loc[kept, "scorer"]) <= set(par.CHART_SCORERS)
    assert parallel.loc[parallel["scorer"].isin(["json_schema", "chrf"]), "details"].tolist() == \
        serial.loc[serial["scorer"].isin(["json_schema", "chrf"]), "details"].tolist()
    with pytest.raises(ValueError, match="start method"):
        score_frame(rows, cfg, workers=2, start_method="spawn")


@pytest.mark.parametrize("workers", [1, 2])
def test_score_to_csv_writes_the_bytes_write_scored_writes(monkeypatch, workers):
    """Formatting each chunk's lines straight from its graders' results gives the file of
    the scored frame, and the Tally it returns holds the frame's scorers, systems, statuses,
    scores and near misses in the frame's order, so the summaries are equal. The first
    chunks hold assertions (one of a kind no grader knows); the others are grids (each
    row's scorers in turn), whose row cells are quoted once per row."""
    import graders.scoring.batch as b
    from graders.scoring.summary import score_values, unknown_assertion_kinds

    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 1)
    data = mixed_pairs(700, seed=12) + [(["x"], 'a "quoted",\r\nline'), (["é"], "NA")]
    rows = rows_of(data)
    rows["assertions"] = [
        (({"type": "contains", "value": "a"},) + (({"type": "llm-rubric", "value": "polite"},) if i % 3 == 0 else ()))
        if i % 7 == 0 and i < 300 else () for i in range(len(rows))
    ]
    rows.loc[rows.index[-3:], "item"] = ['c "1"', "c,2", "c\n3"]
    rows.loc[rows.index[-2:], "system"] = ["v,1", 'v"2']
    cfg = config_of("exact", "numeric", "token_f1", overall="all")
    full = score_frame(rows, cfg, include_output=True)
    whole = outp.scored_csv_bytes(full, include_output=True)  # written in one piece
    # Both writers join and encode their lines a few rows at a time: pieces of 40 rows,
    # and chunk ends that fall inside a piece, at a row with assertions, and not at all.
    monkeypatch.setattr(b, "_PIECE_ROWS", 40)
    monkeypatch.setattr(outp, "_WRITE_ROWS", 33)
    assert outp.scored_csv_bytes(full, include_output=True) == whole
    buf = io.BytesIO()
    tally = par.score_to_csv(rows, cfg, buf, include_output=True, workers=workers, chunk_rows=150)
    assert buf.getvalue() == whole
    assert len(tally) == len(full)
    for name in ("scorer", "system", "status"):
        assert getattr(tally, name).tolist() == full[name].tolist()
    np.testing.assert_array_equal(tally.values, score_values(full["score"]).to_numpy())
    assert tally.near.tolist() == (full["near_miss"] != "").tolist()
    assert tally.unknown_assertions == unknown_assertion_kinds(full) == {"llm-rubric": 15}
    graders = ("exact", "numeric", "token_f1")
    assert summarize(tally, rows, graders=graders) == summarize(full, rows, graders=graders)


@pytest.mark.parametrize("graders", [(), ("exact",)])
def test_score_to_csv_of_assertions_alone_and_of_no_rows(graders):
    """No grader but the rows' assertions: their lines alone; no rows: the header alone."""

    rows = rows_of([(["a"], "a b"), (["b"], "c"), (["c"], "c")])
    rows["assertions"] = [({"type": "contains", "value": "b"},), (), ({"type": "equals", "value": "c"}, {"type": "icontains", "value": "C"})]
    cfg = config_of(*graders)
    full = score_frame(rows, cfg)
    buf = io.BytesIO()
    tally = par.score_to_csv(rows, cfg, buf)
    assert buf.getvalue() == outp.scored_csv_bytes(full)
    assert tally.scorer.tolist() == full["scorer"].tolist() and len(tally) == 3 * len(graders) + 3
    buf = io.BytesIO()
    empty = par.score_to_csv(rows.iloc[:0], cfg, buf)
    assert buf.getvalue() == outp.scored_csv_bytes(score_frame(rows.iloc[:0], cfg)) and len(empty) == 0


@pytest.mark.parametrize("workers", [1, 2])
def test_score_to_csv_streams_to_a_path_and_renames_it_into_place(monkeypatch, tmp_path, workers):
    """Chunks go to a temporary file beside the target in row order, whatever order the
    workers finish in; the target appears whole, with open()'s permissions, at the end."""

    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 1)
    rows = rows_of(mixed_pairs(900, seed=5))
    cfg = config_of("exact", "contains", "bleu")
    target = tmp_path / "scored.csv"
    target.write_text("old contents")
    par.score_to_csv(rows, cfg, target, workers=workers, chunk_rows=100)
    assert target.read_bytes() == outp.scored_csv_bytes(score_frame(rows, cfg))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scored.csv"]
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask


def test_score_to_csv_copies_spooled_chunks_by_reading_when_the_kernel_copy_fails(monkeypatch, tmp_path):
    """Worker processes leave their lines in files beside the target; where copy_file_range
    is refused (another file system, an old kernel) they are read and written instead."""
    import errno


    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 1)
    refused = []

    def refuse(*args):
        refused.append(args)
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "copy_file_range", refuse)
    rows = rows_of(mixed_pairs(900, seed=8))
    cfg = config_of("exact", "numeric")
    target = tmp_path / "scored.csv"
    par.score_to_csv(rows, cfg, target, workers=2, chunk_rows=100)
    assert refused  # the spool was used, and its fallback
    assert target.read_bytes() == outp.scored_csv_bytes(score_frame(rows, cfg))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scored.csv"]


@pytest.mark.parametrize("workers", [1, 2])
def test_score_to_csv_cancelled_leaves_the_target_alone(monkeypatch, tmp_path, workers):

    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 1)
    rows = rows_of(mixed_pairs(600, seed=1))
    target = tmp_path / "scored.csv"
    target.write_text("old contents")
    calls = []
    with pytest.raises(par.Cancelled):
        par.score_to_csv(rows, config_of("exact"), target, workers=workers, chunk_rows=100,
                       cancel=lambda: calls.append(1) or len(calls) > 2)
    assert target.read_text() == "old contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scored.csv"]


def test_score_to_csv_into_a_missing_directory_fails_before_scoring(tmp_path):

    rows = rows_of(mixed_pairs(50, seed=1))
    scored = []
    with pytest.raises(outp.OutputError):
        par.score_to_csv(rows, config_of("exact"), tmp_path / "nope" / "scored.csv", progress=lambda d, t: scored.append(d))
    assert scored == []


@pytest.mark.parametrize("workers", [1, 2])
def test_summary_corpus_figures_from_the_sentence_statistics(monkeypatch, workers):
    """Corpus BLEU and chrF summed from the rows' statistics equal a second pass over the corpus."""
    from graders import corpus_bleu, corpus_chrf

    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 1)
    data = mixed_pairs(400, seed=21) + [(["one ref", "two refs here"], "two refs"), ([""], "x"), (["a b"], "")]
    rows = rows_of(data)
    cfg = config_of("bleu", "chrf", "exact")
    lean = par.score_frame(rows, cfg, workers=workers, chunk_rows=120)
    summary = summarize(lean, rows, graders=("bleu", "chrf", "exact"))
    outputs, refs = list(rows["output"]), [list(r) for r in rows["refs"]]
    assert summary["corpus"]["v1"]["bleu"]["corpus"] == corpus_bleu(outputs, refs)
    assert summary["corpus"]["v1"]["chrf"]["corpus"] == corpus_chrf(outputs, refs)
    # Without the details (an older frame), the summary makes the second pass itself.
    bare = summarize(lean.assign(details=None), rows, graders=("bleu", "chrf", "exact"))
    assert bare["corpus"] == summary["corpus"]
    # One row's statistics missing, or a count beyond 64 bits: the second pass too.
    for broken in ({}, {"hyp_len": 2**70, "ref_len": 1, "correct": [0] * 4, "total": [0] * 4, "stats": [2**70] * 24}):
        details = lean["details"].copy()
        details[(lean["scorer"] == "bleu").idxmax()] = broken
        details[(lean["scorer"] == "chrf").idxmax()] = broken
        assert summarize(lean.assign(details=details), rows, graders=("bleu", "chrf", "exact"))["corpus"] == summary["corpus"]
    # Statistics summed where the rows were scored (what the command line does): no details travel.
    tally = par.score_to_csv(rows, cfg, io.BytesIO(), workers=workers, chunk_rows=120)
    sums = tally.statistics
    assert set(sums) == {("bleu", "v1"), ("chrf", "v1")}
    assert all(count == len(rows) for count, _ in sums.values())
    assert summarize(tally, rows, graders=("bleu", "chrf", "exact"))["corpus"] == summary["corpus"]
    # A chunk whose statistics were missing: the second pass.
    gaps = {key: (count, None) for key, (count, _) in sums.items()}
    assert summarize(replace(tally, statistics=gaps), rows, graders=("bleu", "chrf", "exact"))["corpus"] == summary["corpus"]
    assert summarize(tally, rows, graders=("bleu", "chrf", "exact"), statistics=gaps)["corpus"] == summary["corpus"]


@pytest.mark.parametrize("how", ["score_to_csv", "score_frame", "score_frame forkserver"])
@pytest.mark.parametrize("workers", [1, 2])
def test_summed_statistics_give_each_systems_corpus_figures(monkeypatch, workers, how):
    from graders import corpus_bleu, corpus_chrf

    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 1)
    data = mixed_pairs(150, seed=8)
    rows = pd.concat([rows_of(data, "v1"), rows_of(data[::-1], "v2")], ignore_index=True).sample(frac=1, random_state=2)
    rows = rows.reset_index(drop=True)
    sums = {}
    config = config_of("bleu", "chrf", "numeric")
    if how == "score_to_csv":
        scored = par.score_to_csv(rows, config, io.BytesIO(), workers=workers, chunk_rows=70)
        sums = scored.statistics
    else:
        scored = par.score_frame(rows, config, workers=workers, chunk_rows=70, details=False, statistics=sums,
                               start_method=how.split()[-1] if " " in how else "fork")
        kept = scored["details"].notna()
        if workers > 1:  # only numeric's details travel (the tolerance sweep reads them)
            assert set(scored.loc[kept, "scorer"]) == {"numeric"}
        else:
            assert kept.all()
    assert set(sums) == {(name, system) for name in ("bleu", "chrf") for system in ("v1", "v2")}
    summary = summarize(scored, rows, graders=("bleu", "chrf", "numeric"), statistics=sums)
    for system, part in rows.groupby("system"):
        outputs, refs = list(part["output"]), [list(r) for r in part["refs"]]
        assert summary["corpus"][system]["bleu"]["corpus"] == corpus_bleu(outputs, refs)
        assert summary["corpus"][system]["chrf"]["corpus"] == corpus_chrf(outputs, refs)


def test_summary_counts_equal_counting_each_group():
    """The summary's per-scorer and per-system figures (counted over arrays) equal
    ``scorer_stats`` over each ``groupby`` part, empty scores and near misses included."""
    from graders.scoring.summary import scorer_stats

    data = mixed_pairs(500, seed=3) + [(["x"], "")] * 3
    rows = pd.concat([rows_of(data).assign(system="v1"), rows_of(data[::-1]).assign(system="v2")], ignore_index=True)
    rows["item"] = [f"c{i % len(data)}" for i in range(len(rows))]
    cfg = config_of("exact", "normalized", "numeric", "token_f1", overall="any")
    scored = score_frame(rows, cfg)
    summary = summarize(scored, rows, graders=cfg.grader_names)
    expect = {str(k): scorer_stats(p["status"], p["score"], p["near_miss"]) for k, p in scored.groupby("scorer", sort=False)}
    assert summary["graders"] == expect and list(summary["graders"]) == list(expect)
    for system, part in scored.groupby("system", sort=False):
        assert summary["systems"][system] == {
            str(k): scorer_stats(q["status"], q["score"], q["near_miss"]) for k, q in part.groupby("scorer", sort=False)}


def test_cancel_stops_between_chunks():
    rows = rows_of(mixed_pairs(300, seed=1))
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 1

    with pytest.raises(Cancelled):
        score_frame(rows, config_of("exact"), workers=1, chunk_rows=100, cancel=cancel)


def test_summary_counts_and_wilson():
    rows = rows_of([(["a"], "a")] * 8 + [(["a"], "b")] * 2)
    rows["item"] = [f"c{i}" for i in range(10)]
    scored = score_frame(rows, config_of("exact"))
    s = summarize(scored, rows, graders=("exact",))["graders"]["exact"]
    assert (s["graded"], s["passed"], s["failed"], s["not_judged"], s["errors"]) == (10, 8, 2, 0, 0)
    assert s["pass_rate"] == 0.8 and s["mean_score"] == 0.8
    lo, hi = s["pass_rate_ci95"]
    assert lo == pytest.approx(0.4901625, abs=1e-6) and hi == pytest.approx(0.9433178, abs=1e-6)


def test_summary_corpus_figures_beside_means():
    import sacrebleu

    data = [(["the cat sat on the mat"], "the cat sat on a mat"), (["a dog barked"], "the dog barked loudly")]
    rows = rows_of(data)
    scored = score_frame(rows, config_of("bleu", "chrf"))
    corpus = summarize(scored, rows, graders=("bleu", "chrf"))["corpus"]["v1"]
    outs, refs = [o for _, o in data], [[r[0] for r, _ in data]]
    assert corpus["bleu"]["corpus"] == pytest.approx(sacrebleu.corpus_bleu(outs, refs).score / 100, abs=1e-9)
    assert corpus["chrf"]["corpus"] == pytest.approx(sacrebleu.corpus_chrf(outs, refs).score / 100, abs=1e-9)
    means = [sacrebleu.sentence_bleu(o, r).score / 100 for r, o in data]
    assert corpus["bleu"]["mean_sentence"] == pytest.approx(sum(means) / 2, abs=1e-9)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"graders": [{"name": "exactly"}]}, "unknown grader 'exactly'; valid graders: exact, normalized"),
        ({"graders": [{"name": "numeric", "tol": 1}]}, "unknown parameter 'tol' for grader 'numeric'; valid parameters: read, abs_tol, rel_tol"),
        ({"graders": [{"name": "regex"}]}, "grader 'regex' needs the parameter 'pattern'"),
        ({"graders": ["exact", "exact"]}, "configured twice"),
        ({"overall": "most"}, "overall must be null, 'all' or 'any'"),
        ({"columns": {"answer": "x"}}, "unknown column role 'answer'"),
        ({"grader": []}, "unknown configuration key 'grader'"),
        ([], "a configuration is a JSON object"),
    ],
)
def test_bad_configurations(data, message):
    with pytest.raises(ConfigError) as e:
        RunConfig.from_dict(data)
    assert message in str(e.value)


def test_config_round_trips():
    data = {"columns": {"id": "case", "output": "resp"}, "graders": [{"name": "numeric", "read": "last"}, {"name": "exact"}], "overall": "all"}
    cfg = RunConfig.from_dict(data)
    again = RunConfig.from_dict(json.loads(cfg.to_json()))
    assert again.to_dict() == cfg.to_dict()
    assert cfg.to_dict()["graders"][0] == {"name": "numeric", "read": "last", "abs_tol": 0.0, "rel_tol": 0.0}


def test_thresholds_applied_later_equal_scoring_with_them():
    from graders.scoring.thresholds import apply_thresholds, split_thresholds

    rows = rows_of(mixed_pairs(300, seed=4))
    cfg = config_of("exact", "token_f1", "bleu", "rouge_l", "chrf", "json_fields", overall="any",
                    token_f1={"threshold": 0.5}, bleu={"threshold": 0.3}, rouge_l={"threshold": 0.45},
                    chrf={"threshold": 0.6}, json_fields={"threshold": 1.0})
    direct = score_frame(rows, cfg)
    bare, thresholds = split_thresholds(cfg)
    assert thresholds == {"token_f1": 0.5, "bleu": 0.3, "rouge_l": 0.45, "chrf": 0.6, "json_fields": 1.0}
    later = apply_thresholds(score_frame(rows, bare), thresholds)
    cols = list(SCORED_COLUMNS) + ["status"]
    pd.testing.assert_frame_equal(direct[cols], later[cols])


def test_scoring_leaves_the_garbage_collector_as_it_found_it():
    import gc

    rows = rows_of(mixed_pairs(50, seed=2))
    cfg = config_of("exact", "numeric")
    assert gc.isenabled()
    score_frame(rows, cfg)
    assert gc.isenabled()
    gc.disable()
    try:
        score_frame(rows, cfg)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_with_output_gives_the_column_include_output_gives():
    from graders.pipeline import score_prepared
    from graders.readers.files import read_results
    from graders.scoring.batch import with_output
    from graders.scoring.output import scored_csv_bytes

    file = read_results(b"id,expected,output,output_b\n1,a,a,b\n2,x,\"y, z\",x\n3,q,,q\n")
    cfg = config_of("exact", "contains", overall="any")
    run = score_prepared(file, cfg, include_output=True)
    bare = score_prepared(file, cfg).scored
    assert "output" not in bare.columns
    assert set(run.scored["system"]) == {"output", "output_b"}  # a wide file: one record, two outputs
    joined = with_output(bare, run.prepared.rows)
    assert joined["output"].tolist() == run.scored["output"].tolist()
    assert scored_csv_bytes(joined, include_output=True) == scored_csv_bytes(run.scored, include_output=True)


@pytest.mark.parametrize("content", [
    b'{"id": "1", "expected": "a", "output": "a", "version": "v\\ud800"}\n{"id": "1", "expected": "a", "output": "b", "version": "v2"}\n',
    b'{"id": "\\ud800", "expected": "a", "output": "a\\udc00", "output_b": "b"}\n',
], ids=["surrogate version", "surrogate id and output, wide"])
def test_with_output_joins_rows_whatever_their_text(content):
    """The dashboard's downloads join the output back by (record, system): a MultiIndex
    of the systems raised on a lone surrogate."""
    from graders.pipeline import score_prepared
    from graders.readers.files import read_results
    from graders.scoring.batch import with_output

    file = read_results(content)
    cfg = config_of("exact")
    run = score_prepared(file, cfg, include_output=True)
    joined = with_output(score_prepared(file, cfg).scored, run.prepared.rows)
    assert joined["output"].tolist() == run.scored["output"].tolist()
    with pytest.raises(ValueError, match="not from these rows"):
        with_output(run.scored, run.prepared.rows.iloc[:1])


def test_score_prepared_takes_rows_already_prepared():
    from graders.pipeline import resolve_mapping, score_prepared
    from graders.readers.files import read_results
    from graders.scoring.rows import prepare

    file = read_results(b"id,expected,output\n1,a,a\n2,b,B\n,c,c\n")
    cfg = config_of("exact", "normalized")
    mapping = resolve_mapping(file, cfg)
    ready = prepare(file, mapping, needs_expected=cfg.needs_expected)
    given = score_prepared(file, cfg, mapping=mapping, prepared=ready)
    fresh = score_prepared(file, cfg, mapping=mapping)
    assert given.prepared is ready
    pd.testing.assert_frame_equal(given.scored, fresh.scored)
    assert given.summary == fresh.summary


DEFERRING = ("exact", "normalized", "contains", "numeric")


def test_the_graders_that_defer_explanations():
    from graders.registry import REGISTRY

    assert tuple(n for n, s in REGISTRY.items() if s.defers_explanations) == DEFERRING


@pytest.mark.parametrize("workers", [1, 2])
def test_deferred_explanations_filled_in_equal_scoring_with_them(monkeypatch, workers):
    """explain=False changes nothing but the explanations (None, every row of a deferring
    grader) and those graders' facts; explain_rows gives back the cells explain=True gives,
    for the whole frame or any slice of it, across systems, repeats and several references."""
    from graders.scoring.batch import explain_rows

    monkeypatch.setattr(par, "PARALLEL_MIN_ROWS", 10)
    data = mixed_pairs(300, seed=11) + [(["7", "seven"], "It is 7."), (["ab", "b"], "xb"), (["", "a"], " A")]
    rows = pd.concat([rows_of(data, "v1"), rows_of(data[::-1], "v2")], ignore_index=True)
    cfg = config_of("exact", "normalized", "contains", "numeric", "token_f1", "regex", overall="all",
                    normalized={"pipeline": "squad"}, contains={"require": "all"}, numeric={"read": "first", "abs_tol": 0.5},
                    regex={"pattern": "\\d"})
    full = score_frame(rows, cfg, workers=workers, chunk_rows=64)
    bare = score_frame(rows, cfg, workers=workers, chunk_rows=64, explain=False)
    deferred = bare["scorer"].isin(DEFERRING) & (bare["status"] != "error")
    assert bare.loc[deferred, "explanation"].isna().all()
    assert bare.loc[~deferred, "explanation"].tolist() == full.loc[~deferred, "explanation"].tolist()
    verdicts = [c for c in list(SCORED_COLUMNS) + ["status", "record"] if c != "explanation"]
    pd.testing.assert_frame_equal(bare[verdicts], full[verdicts])
    cols = list(SCORED_COLUMNS) + ["status", "record"]
    pd.testing.assert_frame_equal(explain_rows(bare, rows, cfg)[cols], full[cols])
    some = bare.iloc[7::13]
    pd.testing.assert_frame_equal(explain_rows(some, rows, cfg)[cols], full.iloc[7::13][cols])
    explained = explain_rows(bare, rows, cfg)
    assert explain_rows(explained, rows, cfg) is explained  # nothing left to fill


def test_deferred_numeric_details_still_feed_the_tolerance_sweep():
    rows = rows_of([(["42"], "42.4"), (["x"], "1"), (["3"], "three")])
    cfg = config_of("numeric", numeric={"read": "last"})
    full, bare = score_frame(rows, cfg), score_frame(rows, cfg, explain=False)
    assert bare["details"].tolist() == full["details"].tolist()


def test_explain_rows_names_a_grader_missing_from_the_configuration():
    from graders.scoring.batch import explain_rows

    rows = rows_of([(["a"], "b")])
    bare = score_frame(rows, config_of("exact"), explain=False)
    with pytest.raises(ValueError, match="'exact' is not in the configuration"):
        explain_rows(bare, rows, config_of("contains"))
