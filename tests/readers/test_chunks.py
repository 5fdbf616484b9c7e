"""A file read a block at a time (``readers.chunks``) is the file read whole, record for
record: the same cells (absent or text), record numbers, unreadable records and reasons,
and columns — whatever the block size, wherever a quoted line break, a blank line, a short
or long record or a late JSON field falls. A file it cannot cut safely is read whole."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.readers.chunks import NotStreamable, plan, read_blocks
from graders.readers.files import ResultsFileError, read_results


def _blocks_equal_whole(path, block_bytes: int, **kw) -> int:
    p = plan(str(path), block_bytes=block_bytes, **kw)
    blocks = list(read_blocks(p))
    try:
        whole = read_results(str(path), **kw)
    except ResultsFileError:  # no rows: nor have the blocks (the run then reads whole, for the message)
        assert not any(len(b.frame) for b in blocks)
        return len(blocks)
    assert p.columns == whole.columns and p.format == whole.format
    cells = [tuple(row) for b in blocks for row in b.frame.itertuples(index=False)]
    assert all(tuple(b.frame.columns) == whole.columns for b in blocks)
    assert cells == [tuple(row) for row in whole.frame.itertuples(index=False)]
    assert sum((b.records for b in blocks), ()) == whole.records
    assert sum((b.unreadable for b in blocks), ()) == whole.unreadable
    return len(blocks)


def _csv(rows, header=("id", "expected", "output"), end="\n") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=end)
    w.writerow(header)
    for r in rows:
        if r is None:
            buf.write(end)  # a blank line: it keeps its record number
        else:
            w.writerow(r)
    return buf.getvalue()


CELLS = ["a", "b,c", 'say "hi"', "line\nbreak", "  spaced ", "", "é ü 中", "x\r\ny", "\"", "='formula"]


@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("block", [16, 200, 3000])
def test_csv_blocks_are_the_whole_file(tmp_path, end, block):
    rng = random.Random(block)
    rows = []
    for i in range(600):
        r = rng.random()
        if r < 0.05:
            rows.append(None)
        elif r < 0.1:
            rows.append([str(i), rng.choice(CELLS)])  # short: its missing cells are absent
        elif r < 0.13:
            rows.append([str(i), "x", "y", "one too many"])  # long: unreadable
        else:
            rows.append([str(i), rng.choice(CELLS), rng.choice(CELLS)])
    path = tmp_path / "r.csv"
    path.write_bytes(("\ufeff\n\n" + _csv(rows, end=end)).encode("utf-8"))
    assert _blocks_equal_whole(path, block) > 2


def test_tsv_headerless_and_wide_files(tmp_path):
    rows = "".join(f"expected {i}\toutput {i}\n" for i in range(3000))
    (tmp_path / "pairs.tsv").write_text(rows)
    assert _blocks_equal_whole(tmp_path / "pairs.tsv", 4096, header=False) > 3
    wide = _csv([[str(i)] + [f"c{i}.{j}" for j in range(600)] for i in range(60)],
                header=["id"] + [f"col{j}" for j in range(600)])
    (tmp_path / "wide.csv").write_text(wide)
    assert _blocks_equal_whole(tmp_path / "wide.csv", 50_000) > 3


def test_a_quoted_cell_longer_than_a_block(tmp_path):
    big = "word, " * 20_000 + "\n\"quoted\"\n"
    (tmp_path / "r.csv").write_text(_csv([["1", big, "x"], ["2", "a", "b"], ["3", big, big]] * 5))
    assert _blocks_equal_whole(tmp_path / "r.csv", 1000) > 3


def test_jsonl_blocks_with_late_fields_broken_lines_and_nested_objects(tmp_path):
    rng = random.Random(7)
    lines = []
    for i in range(1500):
        r = rng.random()
        if r < 0.03:
            lines.append("")
        elif r < 0.05:
            lines.append("{broken")
        elif r < 0.06:
            lines.append("[1, 2]")
        else:
            obj = {"id": str(i), "expected": rng.choice(["a", "b", "\ud800 lone"]),
                   "output": rng.choice(["a", 1.50, "1e5", None, True])}
            if rng.random() < 0.2:
                obj["metadata"] = {"cat": rng.choice(["x", "y"]), "n": rng.choice([1, 2.0, [1]])}
            if i > 1200 and rng.random() < 0.1:
                obj["late"] = "z"  # first seen near the end: every block has the column
            if rng.random() < 0.1:
                obj = dict(reversed(list(obj.items())))
            lines.append(json.dumps(obj))
    path = tmp_path / "r.jsonl"
    path.write_text("\ufeff" + "\n".join(lines) + "\n", encoding="utf-8")
    assert _blocks_equal_whole(path, 3000) > 10
    assert "late" in read_results(str(path)).columns


@pytest.mark.parametrize("content, why", [
    (b'id,expected,output\n1,"He said "hi" to me",x\n' * 2000, "quotes that do not pair off"),
    (b"id,expected,output\r1,a,b\r" * 4000, "the header does not end"),  # CR line ends
    (b"id,expected,output\n1,a,b\n" * 3000 + b"1,\xff,b\n", "not UTF-8"),
    (b"id,expected,output\n1,a,b\n" * 3000 + b"1,\x00,b\n", "a NUL byte"),
    (b"id,expected,output\n1,a,b\n", "no larger than a block"),
])
def test_a_file_it_cannot_cut_is_read_whole(tmp_path, content, why):
    (tmp_path / "r.csv").write_bytes(content)
    with pytest.raises(NotStreamable, match=why):
        plan(str(tmp_path / "r.csv"), block_bytes=1000)


def test_json_documents_and_harness_files_are_read_whole(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([{"id": str(i), "output": "x"} for i in range(3000)], indent=1))
    with pytest.raises(NotStreamable, match="json-array"):
        plan(str(tmp_path / "a.json"), block_bytes=1000)
    lm = "".join(json.dumps({"doc_id": i, "filtered_resps": ["x"], "target": "x"}) + "\n" for i in range(3000))
    (tmp_path / "lm.jsonl").write_text(lm)
    with pytest.raises(NotStreamable, match="harness"):
        plan(str(tmp_path / "lm.jsonl"), block_bytes=1000)


_cell = st.lists(st.sampled_from(list('ab ,"\n\r\té') + ["\r\n"]), max_size=8).map("".join)
_row = st.one_of(st.none(), st.lists(_cell, min_size=1, max_size=4))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_row, min_size=20, max_size=80), block=st.integers(8, 300), end=st.sampled_from(["\n", "\r\n"]))
def test_any_well_quoted_csv_reads_the_same_in_blocks(tmp_path, rows, block, end):
    path = tmp_path / "p.csv"
    path.write_text(_csv(rows, end=end), newline="")
    try:
        _blocks_equal_whole(path, block)
    except NotStreamable:
        pass  # read whole: nothing to compare
