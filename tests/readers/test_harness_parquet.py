"""Parquet files written by pyarrow (fixtures/parquet/make_parquet.py)."""

import sys

import pytest
from harness_files import assert_one_message, fixture_bytes

from graders.readers import ResultsFileError, parquet

DATA = fixture_bytes("parquet", "results.parquet")


def test_columns():
    r = parquet.read(DATA)
    assert r.format == "parquet"
    assert r.columns == ("id", "expected", "output", "repeat", "score64", "score32", "passed", "price", "day", "tags",
                         "metadata", "metadata.topic", "metadata.weight", "metadata.ok", "raw", "label")
    assert r.records == (1, 2, 3) and r.unreadable == ()
    for col in r.frame:
        assert all(v is None or type(v) is str for v in r.frame[col]), col


COLUMNS = [
    ("id", ["a1", "a2", "a3"]),
    ("expected", ["42", "NA", None]),  # "NA" is text; a null is absent
    ("output", ["The refund is $42.00.", "", "007"]),
    ("repeat", ["0", "1", None]),
    ("score64", ["0.1", "1e-05", "nan"]),
    ("score32", ["0.1", "123456790.0", None]),  # float32's shortest digits, not 0.10000000149011612
    ("passed", ["true", "false", None]),
    ("price", ["3.10", "-0.50", None]),  # decimal(5, 2): its scale kept
    ("day", ["2024-01-02", None, "1999-12-31"]),
    ("tags", ['["x","y"]', "[]", None]),
    ("metadata", ['{"topic":"refunds","weight":1.5,"ok":true}', None, '{"topic":"tax","weight":null,"ok":false}']),
    ("metadata.topic", ["refunds", None, "tax"]),
    ("metadata.weight", ["1.5", None, None]),
    ("metadata.ok", ["true", None, "false"]),
    ("raw", ["bytes é", None, "ok"]),
    ("label", ["A", "B", "A"]),  # dictionary-encoded strings
]


@pytest.mark.parametrize("column, cells", COLUMNS)
def test_cells(column, cells):
    assert list(parquet.read(DATA).frame[column]) == cells


def test_binary_that_is_not_utf8_makes_its_row_unreadable():
    r = parquet.read(fixture_bytes("parquet", "bad_binary.parquet"))
    assert r.unreadable == ((2, "has bytes in column 'raw' that are not UTF-8 text"),)
    assert r.records == (1, 3) and list(r.frame["id"]) == ["a1", "a3"]


def test_cut_off_file():
    with pytest.raises(ResultsFileError) as info:
        parquet.read(DATA[: len(DATA) // 2])
    assert str(info.value) == "the Parquet file is cut off: its footer (ending in PAR1) is missing"
    assert_one_message(info.value)


def test_damaged_footer():
    data = DATA[:-12] + b"\x00" * 8 + DATA[-4:]
    with pytest.raises(ResultsFileError, match="^the Parquet file cannot be read: ") as info:
        parquet.read(data)
    assert_one_message(info.value)


def test_without_pyarrow(monkeypatch):
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ResultsFileError) as info:
        parquet.read(DATA)
    assert str(info.value) == "reading a Parquet file needs pyarrow: pip install pyarrow"
    assert_one_message(info.value)
