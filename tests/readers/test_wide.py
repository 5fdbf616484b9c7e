"""Wide files (issue 32, 5): a stated column cap, refused before any column is built, and
reading whose cost follows the cells, not the columns.

An 8.9 MB CSV of 10^6 columns and one row took 682 s and 2.5 GB: pandas builds a Series per
column and each step after it walked them. Now a header (or a JSON record) past
``MAX_COLUMNS`` is one ``ResultsFileError`` within seconds, and a wide file under the cap is
read with Python's csv module (``delimited._read_wide``), which gives the C parser's cells.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.readers import delimited
from graders.readers.files import ResultsFile, ResultsFileError, read_results
from graders.readers.frame import MAX_COLUMNS

FILES = Path(__file__).resolve().parents[1] / "files"
MILLION = 10**6


def _csv(columns: int, rows: int = 1, sep: str = ",") -> bytes:
    header = sep.join(["id", "expected", "output"] + [f"c{i}" for i in range(columns - 3)])
    lines = [sep.join([f"r{r}", "yes", "yes" if r % 2 else "no"] + [str(i % 97) for i in range(columns - 3)])
             for r in range(rows)]
    return (header + "\n" + "\n".join(lines) + "\n").encode()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("header", [True, False])
def test_a_million_columns_are_refused_before_they_are_read(header):
    data = _csv(MILLION)
    assert 8_000_000 < len(data) < 20_000_000  # the 8.9 MB file, give or take
    with pytest.raises(ResultsFileError) as e:
        read_results(data, name="wide.csv", header=header)
    assert str(e.value) == (f"the {'header' if header else 'first row'} has 1,000,000 columns, more than the "
                            f"{MAX_COLUMNS:,} a results file may have (a column per field: id, input, expected, output, …)")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt, where", [("jsonl", "line 2"), ("json-array", "entry 2"), ("tsv", None)])
def test_a_million_columns_are_refused_in_every_format(fmt, where):
    wide = {f"c{i}": i for i in range(MILLION)}
    if fmt == "jsonl":
        data = (json.dumps({"id": 1, "output": "a"}) + "\n" + json.dumps(wide) + "\n").encode()
    elif fmt == "json-array":
        data = json.dumps([{"id": 1, "output": "a"}, wide]).encode()
    else:
        data = _csv(MILLION, sep="\t")
    with pytest.raises(ResultsFileError, match=f"{where or 'the header'} has 1,000,000 columns, more than the 10,000"):
        read_results(data, format=fmt)


def test_json_records_whose_fields_add_up_past_the_cap_are_refused():
    """Each record under the cap, their columns together over it (and a nested object's
    fields are dotted columns of their own)."""
    lines = [json.dumps({f"c{i}": 1 for i in range(r * 4000, (r + 1) * 4000)}) for r in range(3)]
    with pytest.raises(ResultsFileError, match="up to line 3, the records have 12,000 columns"):
        read_results("\n".join(lines).encode(), format="jsonl")
    nested = json.dumps({f"k{i}": {"a": 1, "b": 2} for i in range(4000)})  # 4,000 + 8,000 columns
    with pytest.raises(ResultsFileError, match="up to line 1, the records have 12,000 columns"):
        read_results(nested.encode(), format="jsonl")


def test_the_cap_counts_fields_not_separators():
    """A header line of more separators than the cap whose commas are inside quotes."""
    data = ('"' + ",".join(["x"] * (MAX_COLUMNS + 5)) + '",id,output\n"a",1,b\n').encode()
    f = read_results(data, format="csv")
    assert f.columns[1:] == ("id", "output") and f.frame["output"].tolist() == ["b"]


@pytest.mark.timeout(120)
def test_a_file_just_under_the_cap_reads_cell_for_cell():
    data = _csv(MAX_COLUMNS, rows=3)
    data += b"short,x\n\nlong," + b",".join([b"z"] * MAX_COLUMNS) + b"\n"  # a short record, a blank line, a long one
    f = read_results(data, name="wide.csv")
    assert len(f.columns) == MAX_COLUMNS and f.columns[:4] == ("id", "expected", "output", "c0")
    assert f.records == (1, 2, 3, 4)  # the blank line keeps its number; the long record is unreadable
    assert f.unreadable == ((6, f"has {MAX_COLUMNS + 1} fields, the header has {MAX_COLUMNS}"),)
    assert f.frame["id"].tolist() == ["r0", "r1", "r2", "short"]
    assert f.frame["output"].tolist() == ["no", "yes", "no", None]  # absent past a short record's end
    assert f.frame["c9996"].tolist() == [str(9996 % 97)] * 3 + [None]
    assert all(v is None or type(v) is str for v in f.frame.iloc[:, -1])


def _best_of(times: int, read) -> float:
    best = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        read()
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.timeout(300)
def test_reading_costs_cells_not_columns():
    """5,000 columns and 20 rows against 20 columns and 5,000 rows (as many cells): the
    wide file cost 60 times the tall one (a tenth of a millisecond per column, pandas'
    Series), now about as much."""
    wide, tall = _csv(5000, rows=20), _csv(20, rows=5000)
    t_wide = _best_of(3, lambda: read_results(wide, format="csv"))
    t_tall = _best_of(3, lambda: read_results(tall, format="csv"))
    assert t_wide < 8 * t_tall + 0.05, (t_wide, t_tall)


def _read(data: bytes, wide_from: int, **kw) -> ResultsFile | str:
    """The file read, or the message it is refused with; ``wide_from``: ``WIDE_COLUMNS``."""
    default = delimited.WIDE_COLUMNS
    delimited.WIDE_COLUMNS = wide_from
    try:
        return read_results(data, **kw)
    except ResultsFileError as e:
        return str(e)
    finally:
        delimited.WIDE_COLUMNS = default


def _same_either_way(data: bytes, **kw) -> None:
    """Read as it is and read as a wide file (``_read_wide``) whatever its width: the same
    cells, records and unreadable rows, or the same message."""
    narrow, wide = _read(data, delimited.WIDE_COLUMNS, **kw), _read(data, 0, **kw)
    if isinstance(narrow, str) or isinstance(wide, str):
        assert narrow == wide
        return
    assert (narrow.format, narrow.columns, narrow.records, narrow.unreadable) == (
        wide.format, wide.columns, wide.records, wide.unreadable)
    assert narrow.frame.columns.tolist() == wide.frame.columns.tolist()
    assert narrow.frame.to_dict("list") == wide.frame.to_dict("list")
    assert all(v is None or type(v) is str for column in wide.frame.columns for v in wide.frame[column])


@pytest.mark.parametrize("name", sorted(p.name for p in FILES.glob("*.[ct]sv")))
def test_the_csv_module_reads_every_test_file_as_the_c_parser_does(name):
    _same_either_way((FILES / name).read_bytes(), name=name)


_CELL = st.one_of(
    st.text(alphabet="ab ,\t\"\r\n\u00e9", max_size=6),
    st.sampled_from(["", '""', '"a,b"', '"x""y"', '"multi\nline"', " ", "007", "NA"]),
)


@settings(max_examples=400, deadline=None)
@given(rows=st.lists(st.lists(_CELL, min_size=0, max_size=5), min_size=2, max_size=8),
       sep=st.sampled_from([",", "\t"]), end=st.sampled_from(["\n", "\r\n", "\r"]))
def test_the_csv_module_reads_random_files_as_the_c_parser_does(rows, sep, end):
    """Random records (quoted cells, doubled quotes, line breaks inside quotes, blank lines,
    short and long records, stray quotes): the same cells, records and unreadable rows."""
    text = end.join(sep.join(r) for r in rows) + end
    _same_either_way(text.encode(), format="tsv" if sep == "\t" else "csv")
    _same_either_way(text.encode(), format="tsv" if sep == "\t" else "csv", header=False)
