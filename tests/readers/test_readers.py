"""Reading results files: formats, cells exactly as written, unreadable rows, fatal errors.

Fixtures are real files under tests/files/ (the byte-exact ones are written by
tests/files/make_files.py).
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.readers import files as readers
from graders.readers.files import DEFAULT_MAX_BYTES, ResultsFile, ResultsFileError, detect_format, read_results

FILES = Path(__file__).resolve().parents[1] / "files"


def read(name: str, **kw) -> ResultsFile:
    return read_results(FILES / name, **kw)


def cells(f: ResultsFile, key: str, column: str) -> dict[str, str | None]:
    return dict(zip(f.frame[key], f.frame[column]))


def assert_plain_text(f: ResultsFile) -> None:
    """Every column is object dtype; every cell is None (absent) or exactly a str."""
    assert all(dtype.kind == "O" for dtype in f.frame.dtypes)
    for column in f.frame.columns:
        assert all(v is None or type(v) is str for v in f.frame[column])
    assert len(f.records) == len(f.frame)
    assert list(f.frame.columns) == list(f.columns)


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("basic.csv", "csv"),
        ("crlf_bom_quoted.csv", "csv"),
        ("results.tsv", "tsv"),
        ("results.jsonl", "jsonl"),
        ("traps.jsonl", "jsonl"),
        ("results_array.json", "json-array"),
        ("results_rows.json", "json-rows"),
        ("assertions.jsonl", "jsonl"),
    ],
)
def test_format_told_from_content(name, fmt):
    data = (FILES / name).read_bytes()
    assert detect_format(data) == fmt  # no name: the content alone decides
    f = read(name)
    assert f.format == fmt
    assert_plain_text(f)


@pytest.mark.parametrize(
    "data, name, fmt",
    [
        (b"id\n1\n", "x.tsv", "tsv"),  # one column: the name breaks the tie
        (b"id\n1\n", "x.csv", "csv"),
        (b"id\n1\n", None, "csv"),
        (b"a\tb,c\n1\t2,3\n", "x.tsv", "tsv"),  # both delimiters in the header
        (b"a\tb\n1\t2\n", "x.csv", "tsv"),  # the content beats the name
        (b'{"id": 1}', None, "jsonl"),  # one record on one line
        (b'{"id": 1}\n{"id": 2}\n', "x.json", "jsonl"),  # JSON lines named .json
        (b'{"rows": [{"id": 1}]}', None, "json-rows"),
        (b'{\n  "rows": [\n    {"id": 1},\n    {"id": 2}\n  ]\n}\n', None, "json-rows"),  # a row alone on a line
        (b'[{"id": 1}]', None, "json-array"),
        (b'broken\n{"id": 1}\n{"id": 2}\n', None, "jsonl"),  # first line broken
        (b'{"id": 1\n{"id": 2}\n{"id": 3}\n', None, "jsonl"),
        (b'{\n"id": 1,\n"x" 2\n}\n', None, "json-rows"),  # a broken document, not lines
        (b"garbage\n", "x.json", "json-rows"),
        (b"garbage\n", "x.jsonl", "jsonl"),
        (b"score\n1\n2\n", None, "csv"),  # lines that are JSON numbers are still CSV
        # both delimiters on the first line and no name: the one every line has as often
        (b"Paris, France\tParis\nRome\tRome, Italy\nOslo, Norway\tOslo\n", None, "tsv"),
        (b"a,b\tc,d\ne,f,g\nh,i,j\n", None, "csv"),
        # a JSON cell followed by more cells is CSV or TSV, not JSON lines
        (b'{"name": "Maria", "age": 34}\t{"name": "Maria", "age": "34"}\n{"a": 1}\t{"a": 1}\n', None, "tsv"),
        (b'[1, 2]\t[1, 2]\n', None, "tsv"),
        (b'{"id": 1}\t\n{"id": 2}\n', None, "jsonl"),  # a trailing tab is not a cell
    ],
)
def test_detect_format(data, name, fmt):
    assert detect_format(data, name) == fmt


def test_format_override():
    f = read("basic.csv", format="tsv")
    assert f.format == "tsv"
    assert f.columns == ("id,input,expected,output",)
    assert f.frame.iloc[1, 0] == "q2,How many days to return an item?,30,30 days"
    with pytest.raises(ResultsFileError, match=r"^unknown format 'xlsx'; choose one of csv, tsv, jsonl, json-array, json-rows, promptfoo, inspect-eval, inspect-json, lm-eval, parquet$"):
        read("basic.csv", format="xlsx")


def test_bytes_and_path_read_the_same():
    data = (FILES / "results.jsonl").read_bytes()
    a, b = read_results(data), read("results.jsonl")
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert (a.records, a.unreadable, a.columns) == (b.records, b.unreadable, b.columns)


def test_basic_csv():
    f = read("basic.csv")
    assert f.columns == ("id", "input", "expected", "output")
    assert f.records == (1, 2, 3)
    assert f.unreadable == ()
    assert f.frame["output"].tolist() == ["Paris", "30 days", "The answer is 42."]


def test_crlf_bom_and_quoted_newlines():
    f = read("crlf_bom_quoted.csv")
    assert f.columns[0] == "id"  # the BOM is not part of the first name
    assert f.records == (1, 2, 3, 4)
    row = {r["id"]: r for r in f.frame.to_dict("records")}
    assert row["q1"]["input"] == "Line one\r\nline two"  # a quoted CRLF stays CRLF
    assert row["q1"]["output"] == "Paris"  # the record's CRLF end is not in the cell
    assert row["q2"]["input"] == "a, b and c"
    assert row["q2"]["expected"] == 'He said "hi"'
    assert row["q3"]["expected"] == "two\nlines"
    assert row["q4"]["input"] == " leading space "
    assert row["q4"]["expected"] == "trailing space "
    assert row["q4"]["output"] == "  both  "


def test_tsv():
    f = read("results.tsv")
    assert f.columns == ("id", "expected", "output", "note")
    row = {r["id"]: r for r in f.frame.to_dict("records")}
    assert row["t1"]["note"] == " "
    assert row["t2"]["expected"] == "tab\there"
    assert row["t2"]["output"] == "line\nbreak"
    assert row["t2"]["note"] == "NA"
    assert row["t3"]["output"] == " 3.10 "
    assert row["t3"]["note"] == 'said "hi"'  # a quote inside an unquoted cell is a character
    assert row["t4"]["expected"] == "comma, inside"
    assert row["t4"]["note"] == ""


def test_jsonl_broken_line_blank_line_and_nested_metadata():
    f = read("results.jsonl")
    assert f.records == (1, 2, 6)  # line 3 is blank: skipped, not unreadable
    assert f.unreadable == (
        (4, "is not JSON (Expecting ',' delimiter at column 51)"),
        (5, "is an array, not an object"),
    )
    assert f.columns == (
        "id", "input", "expected", "output",
        "metadata", "metadata.harnessPass", "metadata.latencyMs", "metadata.model", "metadata.tags",
    )
    # the object itself as compact JSON text (numbers as spelled), and each field a dotted column
    assert cells(f, "id", "metadata")["j2"] == '{"harnessPass":false,"latencyMs":95.50}'
    assert cells(f, "id", "metadata.harnessPass") == {"j1": "true", "j2": "false", "j6": "null"}
    assert cells(f, "id", "metadata.latencyMs") == {"j1": "812", "j2": "95.50", "j6": None}
    assert cells(f, "id", "metadata.model") == {"j1": "gpt-x", "j2": None, "j6": None}
    assert cells(f, "id", "metadata.tags") == {"j1": None, "j2": None, "j6": '["geo",1.50]'}
    assert cells(f, "id", "input")["j6"] is None  # absent, not ""


def test_json_array():
    f = read("results_array.json")
    assert f.records == (1, 2, 4)
    assert f.unreadable == ((3, "is a string, not an object"),)
    assert cells(f, "id", "score") == {"a1": "0.90", "a2": "0", "a4": None}
    assert cells(f, "id", "extra.ok") == {"a1": None, "a2": None, "a4": "true"}


def test_rows_document():
    f = read("results_rows.json")
    assert f.columns == ("id", "vars", "vars.question", "vars.expected", "response", "response.output")
    assert f.records == (1, 2, 3)
    assert f.frame["response.output"].tolist() == ["Paris", "42", "Bergen"]


def test_rows_document_with_nested_arrays_keeps_number_spelling():
    data = b'{"rows": [{"id": "1", "m": {"v": [1.50, "1.50", 1e5]}}, {"id": "2", "m": {"v": 2.50}}]}'
    f = read_results(data)
    assert cells(f, "id", "m.v") == {"1": '[1.50,"1.50",1e5]', "2": "2.50"}


# --------------------------------------------------------------------------- cells as written

CSV_TRAPS = [
    ("1", "NA"), ("2", "null"), ("3", "None"), ("4", "nan"), ("5", "NaN"), ("6", ""),
    ("7", "007"), ("8", "3.10"), ("9", " spaced "), ("10", "  quoted spaces  "),
    ("11", "😀 café 東京"), ("12", "TRUE"), ("13", "1e5"), ("14", "-0"), ("15", "#N/A"),
    ("16", '"quoted"'), ("17", "a,b"), ("18", "   "), ("19", "N/A"), ("20", "1.0"),
]


@pytest.mark.parametrize("key, text", CSV_TRAPS)
def test_csv_cell_stays_as_written(key, text):
    f = read("traps.csv")
    assert cells(f, "id", "cell")[key] == text


def test_csv_traps_all_present():
    f = read("traps.csv")
    assert_plain_text(f)
    assert f.records == tuple(range(1, 21))
    assert f.frame["note"].tolist()[1] == ""  # an empty trailing cell is "", not absent


JSON_TRAPS = [
    ("n1", "3.10"), ("n2", "1e5"), ("n3", "-0"), ("n4", "1E+2"), ("n5", "12345678901234567890123"),
    ("n6", "true"), ("n7", "false"), ("n8", "null"), ("n9", "NA"), ("n10", ""), ("n11", " x "),
    ("n12", "é😀"), ("n13", '[1.50,"1.50",-0.0,{"k":2.0}]'), ("n14", '{"deep":{"x":1.0,"y":[true,null]}}'),
    ("n15", None),
    ("n16", "007"), ("n18", "tab\tand\nnewline"),
]


@pytest.mark.parametrize("key, text", JSON_TRAPS)
def test_json_cell_stays_as_written(key, text):
    f = read("traps.jsonl")
    assert cells(f, "id", "value")[key] == text


def test_json_traps_nested_and_invalid_number():
    f = read("traps.jsonl")
    assert_plain_text(f)
    assert cells(f, "id", "value.deep")["n14"] == '{"x":1.0,"y":[true,null]}'
    assert f.unreadable == ((17, "is not JSON (Expecting ',' delimiter at column 25)"),)


def test_short_row_cells_are_absent_long_row_unreadable_blank_lines_skipped():
    f = read("short_long_blank.csv")
    # Records: 1 r1, 2 blank, 3 r3 (short), 4 r4 (trailing empty), 5 r5 (long), 6 blank, 7 r7, 8 r8.
    assert f.records == (1, 3, 4, 7, 8)
    assert f.unreadable == ((5, "has 5 fields, the header has 4"),)
    row = {r["id"]: r for r in f.frame.to_dict("records")}
    assert row["r3"] == {"id": "r3", "expected": "Rome", "output": None, "note": None}
    assert row["r4"]["note"] == ""  # written, and empty
    assert row["r7"]["output"] == ""
    assert row["r8"] == {"id": "r8", "expected": None, "output": None, "note": None}


def test_absent_json_keys_are_none_and_empty_strings_stay():
    f = read_results(b'{"id": "1", "a": ""}\n{"id": "2"}\n{"id": "3", "a": {}}\n')
    assert cells(f, "id", "a") == {"1": "", "2": None, "3": "{}"}  # an object is its JSON text


def test_json_duplicate_keys_make_the_record_unreadable():
    f = read_results(
        b'{"id": "1", "output": "a", "output": "b"}\n'
        b'{"id": "2", "m": {"x": 1, "x": 2}}\n'
        b'{"id": "3", "m.x": 1, "m": {"x": 2}}\n'
        b'{"id": "4", "m": {"x": [{"k": 1, "k": 2}]}}\n'
        b'{"id": "5", "output": "fine"}\n'
    )
    assert f.records == (5,)
    assert f.unreadable == (
        (1, "names the field 'output' twice"),
        (2, "names the field 'm.x' twice"),
        (3, "has the field 'm.x' twice (once inside 'm')"),
        (4, "names the field 'k' twice in a nested object"),
    )


def test_jsonl_lines_that_are_not_objects():
    f = read_results(b'{"id": 1}\n"text"\n5\ntrue\nnull\n[1]\n  {"id": 2}  \n{"id": 3} {"id": 4}\n')
    assert f.records == (1, 7)
    assert f.unreadable == (
        (2, "is a string, not an object"),
        (3, "is a number, not an object"),
        (4, "is true, not an object"),
        (5, "is null, not an object"),
        (6, "is an array, not an object"),
        (8, "is not JSON (Extra data at column 11)"),
    )


def test_crlf_jsonl():
    f = read_results(b'{"id": "1", "x": 1.0}\r\n\r\n{"id": "2", "x": "a\\r\\nb"}\r\n')
    assert f.records == (1, 3)
    assert cells(f, "id", "x") == {"1": "1.0", "2": "a\r\nb"}


# --------------------------------------------------------------------------- fatal errors


@pytest.mark.parametrize(
    "name, message",
    [
        ("empty.csv", "the file is empty"),
        ("whitespace.jsonl", "the file holds only whitespace"),
        ("header_only.csv", "no rows: the file has a header and no records"),
        ("empty_array.json", "no rows: the file holds no records"),
        ("duplicate_columns.csv", "duplicate column name 'output' in the header (columns 2 and 4)"),
        ("binary.bin", "binary file: a NUL byte at byte offset 8; expected UTF-8 text"),
        ("latin1.csv", "not UTF-8 text: byte 0xe9 at byte offset 15 is not valid UTF-8"),
        ("utf16.csv", "the file is UTF-16 text; save it as UTF-8"),
        ("malformed.json", "malformed JSON at line 4, column 15: Expecting ',' delimiter"),
        ("unterminated_quote.csv", "malformed CSV: a quoted field in record 1 is never closed (a '\"' is missing)"),
        (
            "no_rows_key.json",
            'a JSON document must be an array of objects or an object with a "rows" array; '
            'this object has no "rows" (its fields: results)',
        ),
        ("rows_not_array.json", '"rows" must be an array of objects; it is an object'),
        (
            "all_broken.jsonl",
            "no readable rows: 3 lines could not be read (line 1 is not JSON (Expecting value at column 1))",
        ),
    ],
)
def test_fatal_error_message(name, message):
    with pytest.raises(ResultsFileError) as info:
        read(name)
    assert str(info.value) == message
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"[1, 2]", "no readable rows: 2 entries could not be read (entry 1 is a number, not an object)"),
        (b"a,b\n1,2,3\n", "no readable rows: 1 record could not be read (record 1 has 3 fields, the header has 2)"),
        (b'"a\n', "malformed CSV: a quoted field in the header is never closed (a '\"' is missing)"),
        (b'[{"a": 1}] x', "malformed JSON at line 1, column 12: Extra data"),
        (b'"just a string"', "no rows: the file has a header and no records"),
        (b"\xef\xbb\xbf", "the file is empty"),
        (b"\xef\xbb\xbfa,b\n\xc3", "not UTF-8 text: byte 0xc3 at byte offset 7 is not valid UTF-8"),
    ],
)
def test_fatal_error_message_from_bytes(data, message):
    with pytest.raises(ResultsFileError) as info:
        read_results(data)
    assert str(info.value) == message


def test_format_mismatch_messages():
    with pytest.raises(ResultsFileError, match=r"^expected a JSON array of objects; the document is an object$"):
        read("results_rows.json", format="json-array")
    with pytest.raises(ResultsFileError, match=r'^expected a JSON object with a "rows" array; the document is an array$'):
        read("results_array.json", format="json-rows")
    with pytest.raises(ResultsFileError, match=r"^malformed JSON at line 2, column 1: Extra data$"):
        read("results.jsonl", format="json-rows")


def test_missing_path_and_directory():
    with pytest.raises(ResultsFileError, match=r"^no such file: .*nope\.csv$"):
        read_results(FILES / "nope.csv")
    with pytest.raises(ResultsFileError, match=r"^is a directory, not a results file: "):
        read_results(FILES)


def test_too_large_path_refused_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:
        fh.truncate(DEFAULT_MAX_BYTES + 1)  # sparse: no disk used, nothing to read

    def no_open(*args, **kwargs):
        raise AssertionError("the file was opened")

    monkeypatch.setattr(readers, "open", no_open, raising=False)
    with pytest.raises(ResultsFileError) as info:
        read_results(big)
    assert str(info.value) == "the file is 536,870,913 bytes, over the 536,870,912 bytes limit (max_bytes)"


def test_max_bytes_for_bytes_and_paths():
    data = (FILES / "basic.csv").read_bytes()
    with pytest.raises(ResultsFileError, match=r"^the file is 157 bytes, over the 100 bytes limit \(max_bytes\)$"):
        read_results(data, max_bytes=100)
    with pytest.raises(ResultsFileError, match=r"over the 100 bytes limit"):
        read_results(FILES / "basic.csv", max_bytes=100)
    assert len(read_results(data, max_bytes=len(data)).frame) == 3


def test_a_large_limit_reserves_nothing(monkeypatch):
    """The limit is a ceiling, not a buffer: a 26-byte file under a 30 GB limit is read
    without asking for 30 GB (which failed as "out of memory")."""
    path = FILES / "basic.csv"
    asked: list[int] = []
    real_open = open

    class Recording:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def read(self, n=-1):
            asked.append(n)
            return self.fh.read(n)

    monkeypatch.setattr(readers, "open", lambda *a, **k: Recording(real_open(*a, **k)), raising=False)
    f = read_results(path, max_bytes=30 * 1024 ** 3)
    assert len(f.frame) == 3 and max(asked) == path.stat().st_size + 1


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="needs named pipes")
def test_a_pipe_past_the_limit_is_refused_without_a_made_up_size(tmp_path):
    import os
    import threading

    pipe = tmp_path / "rows.pipe"
    os.mkfifo(pipe)
    body = b"id,expected,output\n" + b"1,a,a\n" * 50  # within the pipe's buffer: the writer never waits
    writer = threading.Thread(target=lambda: pipe.write_bytes(body))
    writer.start()
    with pytest.raises(ResultsFileError) as info:
        read_results(pipe, max_bytes=100)
    writer.join(timeout=10)
    assert str(info.value) == "the file is over the 100 bytes limit (max_bytes); its size was not known before reading"


# --------------------------------------------------------------------------- properties

TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)


@settings(max_examples=100, deadline=None)
@given(
    header=st.lists(TEXT, min_size=1, max_size=4, unique=True),
    body=st.lists(st.lists(TEXT, min_size=4, max_size=4), min_size=1, max_size=6),
    crlf=st.booleans(),
    bom=st.booleans(),
)
def test_csv_written_by_python_reads_back_exactly(header, body, crlf, bom):
    if not crlf:
        # With LF line ends Python's writer leaves a lone CR unquoted, and every reader
        # then sees a CRLF: the file itself is ambiguous. Quote-worthy LFs instead.
        header = list(dict.fromkeys(h.replace("\r", "\n") for h in header))
        body = [[c.replace("\r", "\n") for c in r] for r in body]
    rows = [r[: len(header)] for r in body]
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\r\n" if crlf else "\n")
    writer.writerow(header)
    writer.writerows(rows)
    data = ("\ufeff" if bom else "") + buf.getvalue()
    assume(data.lstrip("\ufeff").strip())  # a file of only whitespace is refused
    f = read_results(data.encode("utf-8"), format="csv")
    assert f.columns == tuple(header)
    assert f.frame.values.tolist() == rows
    assert f.records == tuple(range(1, len(rows) + 1))
    assert f.unreadable == ()


@settings(max_examples=150, deadline=None)
@given(
    records=st.lists(
        st.dictionaries(TEXT.filter(lambda s: "." not in s), st.one_of(TEXT, st.none(), st.booleans()), max_size=4),
        min_size=1,
        max_size=6,
    ).filter(lambda rs: any(rs))
)
def test_jsonl_written_by_json_reads_back_exactly(records):
    data = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
    f = read_results(data, format="jsonl")
    for i, record in enumerate(records):
        row = f.frame.iloc[i]
        for key, value in record.items():
            cell = row[key]
            assert cell == value if isinstance(value, str) else cell == json.dumps(value)
        for key in f.columns:
            if key not in record:
                assert row[key] is None


NUMBER = st.from_regex(r"\A-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,12})?([eE][+-]?[0-9]{1,3})?\Z")


@settings(max_examples=100, deadline=None)
@given(number=NUMBER, nested=st.booleans())
def test_json_number_spelling_survives(number, nested):
    value = f"[{number}, \"{number}\"]" if nested else number
    f = read_results(f'{{"id": "1", "v": {value}}}\n'.encode())
    assert f.frame["v"][0] == (f'[{number},"{number}"]' if nested else number)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(value=st.lists(JSON_VALUES, max_size=4) | st.dictionaries(st.text(max_size=3), JSON_VALUES, max_size=4))
def test_a_nested_cell_is_the_compact_json_of_its_value(value):
    """An array or object below the first level is one cell: its compact JSON, numbers as
    spelled in the source (json.dumps spelled them here)."""
    f = read_results((json.dumps({"id": "1", "v": {"k": value}}) + "\n").encode())
    assert f.frame["v.k"][0] == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("depth", [10, 500, 900])
@pytest.mark.parametrize("fmt", ["jsonl", "json-array", "json-rows"])
def test_a_value_nested_past_pythons_recursion_limit_is_a_cell(fmt, depth):
    """The decoder reads arrays about 990 deep; the cell is written back from a stack (it
    once recursed, and a record 500 deep ended the run with a traceback)."""
    value = "[" * depth + '{"a":1.50}' + "]" * depth
    record = '{"id":"1","expected":"x","output":"x","m":{"k":' + value + '},"n":' + value + "}"
    text = {"jsonl": record + "\n", "json-array": f"[{record}]", "json-rows": f'{{"rows":[{record}]}}'}[fmt]
    f = read_results(text.encode(), format=fmt)
    assert f.frame["m.k"][0] == value and f.frame["n"][0] == value and not f.unreadable


def test_a_record_nested_past_the_decoders_limit_is_left_out_or_one_message():
    deep = "[" * 5000 + "]" * 5000
    f = read_results(('{"id":"1","output":"x","m":' + deep + '}\n{"id":"2","output":"y"}\n').encode())
    assert f.unreadable == ((1, "is nested too deeply to read"),) and list(f.frame["id"]) == ["2"]
    with pytest.raises(ResultsFileError, match="^malformed JSON: nested too deeply to read$"):
        read_results(('[{"id":"1","output":"x","m":' + deep + "}]").encode())


RECORD = '{"id":"%s","expected":"x","output":"x"}'


@pytest.mark.parametrize("name, text, fmt, ids, unreadable", [
    # A .jsonl name: a broken or non-object first line is that line's problem, not the file's
    ("a.jsonl", '{"id":"1",\n"expected":"x","output":"x"}\n' + RECORD % 2 + "\n" + RECORD % 3 + "\n", "jsonl", ["2", "3"], [1, 2]),
    ("a.jsonl", '["meta"]\n' + RECORD % 1 + "\n" + RECORD % 2 + "\n", "jsonl", ["1", "2"], [1]),
    # ... and one record with a field named "rows" is that record, not a rows document
    ("a.jsonl", '{"id":"1","expected":"x","output":"x","rows":"3"}\n', "jsonl", ["1"], []),
    ("a.jsonl", '{"id":"1","expected":"x","output":"x","rows":[' + RECORD % 9 + "]}\n", "jsonl", ["1"], []),
    ("a.ndjson", '{"id":"1","expected":"x","output":"x","rows":[]}', "jsonl", ["1"], []),
    # ... while one document that is not an object on one line is that document
    ("a.jsonl", "[" + RECORD % 1 + "," + RECORD % 2 + "]", "json-array", ["1", "2"], []),
    ("a.jsonl", "[\n " + RECORD % 1 + "\n]\n", "json-array", ["1"], []),
    ("a.jsonl", '{\n"rows": [' + RECORD % 1 + "]}\n", "json-rows", ["1"], []),
    # Without a hint the content decides, as before
    ("a", '{"id":"1","expected":"x","output":"x","rows":[' + RECORD % 9 + "]}\n", "json-rows", ["9"], []),
    # A .csv / .tsv name: a header starting with [ or { is a header
    ("a.csv", "[tag],id,expected,output\nt,1,x,x\nt,2,y,y\n", "csv", ["1", "2"], []),
    ("a.csv", "[1],id,expected,output\nt,1,x,x\n", "csv", ["1"], []),
    ("a.tsv", "{tag}\tid\texpected\toutput\nt\t1\tx\tx\n", "tsv", ["1"], []),
    # ... unless the whole file is JSON
    ("a.csv", "[" + RECORD % 1 + "]\n", "json-array", ["1"], []),
    ("a.csv", RECORD % 1 + "\n" + RECORD % 2 + "\n", "jsonl", ["1", "2"], []),
])
def test_the_name_settles_what_the_content_leaves_open(tmp_path, name, text, fmt, ids, unreadable):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert detect_format(text.encode(), name) == fmt
    f = read_results(path)
    assert f.format == fmt and list(f.frame["id"]) == ids
    assert [record for record, _ in f.unreadable] == unreadable


@pytest.mark.parametrize("data, columns, rows, records, unreadable", [
    # seed 004's two tab-separated columns: expected and output
    (b"Paris\tParis\nRome\trome\n", ("expected", "output"), [["Paris", "Paris"], ["Rome", "rome"]], (1, 2), ()),
    # a first row whose cells are equal is a row, not a header with a duplicate name
    (b"Paris\tParis\n", ("expected", "output"), [["Paris", "Paris"]], (1,), ()),
    (b'a,b\r"c\r\nd",e\r', ("expected", "output"), [["a", "b"], ["c\r\nd", "e"]], (1, 2), ()),  # CR line ends
    (b'Canberra,Canberra is the capital\n"a,b","x\ny"\n', ("expected", "output"),
     [["Canberra", "Canberra is the capital"], ["a,b", "x\ny"]], (1, 2), ()),
    (b"\xef\xbb\xbf\n\nq\tParis\tParis\r\n", ("column 1", "column 2", "column 3"), [["q", "Paris", "Paris"]], (1,), ()),
    (b"a,b,c\n1,2,3,4\n1\n", ("column 1", "column 2", "column 3"), [["a", "b", "c"], ["1", None, None]], (1, 3),
     ((2, "has 4 fields, the first row has 3"),)),
])
def test_a_file_without_a_header(data, columns, rows, records, unreadable):
    f = read_results(data, header=False)
    assert f.columns == columns and f.frame.values.tolist() == rows
    assert f.records == records and f.unreadable == unreadable


@pytest.mark.parametrize("data, rows, unreadable", [
    # text after a closing quote: read leniently, the cell would lose its quotes; the record is
    # left out with its line (SPEC §5), the others are read
    (b'\n\nid,expected,output\n1,a,"" x\n2,b,b\n', [["2", "b", "b"]], [(1, "at line 4 has a quoted cell")]),
    # an unpaired quote would take the next records into its cell: that record is left out whole
    (b'id,expected,output\n1,Hello,"Hello\n2,b,b\n3,c,"c" d\n4,e,e\n', [["4", "e", "e"]],
     [(1, "at line 2 (to line 4) has a quoted cell")]),
])
def test_a_csv_record_with_text_after_a_closing_quote_is_left_out_with_its_line(data, rows, unreadable):
    f = read_results(data)
    assert f.frame.values.tolist() == rows
    assert [(r, why[:len(w)]) for (r, why), (_, w) in zip(f.unreadable, unreadable)] == unreadable
    assert all(why.endswith('its own quotes doubled: """Yes"" it is" for "Yes" it is') for _, why in f.unreadable)


@pytest.mark.parametrize("data, rows", [
    (b'id\texpected\toutput\n1\tEasy Returns is the policy\t"Easy Returns" is the policy\n',
     [["1", "Easy Returns is the policy", '"Easy Returns" is the policy']]),
    (b'id\texpected\toutput\n1\tHello\t"Hello\n2\tb\tb\n3\tc\t"c" d\n',
     [["1", "Hello", '"Hello'], ["2", "b", "b"], ["3", "c", '"c" d']]),
])
def test_a_tsv_file_that_does_not_parse_as_quoted_reads_quotes_as_text(data, rows):
    """IANA's text/tab-separated-values: a tab ends a field, a line feed a record, nothing is quoted."""
    f = read_results(data)
    assert f.format == "tsv" and f.frame.values.tolist() == rows and not f.unreadable


def test_a_quote_inside_an_unquoted_cell_is_kept_as_written():
    f = read_results(b'id,expected,output\n1,a,He said "hi" there\n2,"x ""y""",z"\n3,{"a": 1},b\n')
    assert f.frame["output"].tolist() == ['He said "hi" there', 'z"', "b"]
    assert f.frame["expected"].tolist() == ["a", 'x "y"', '{"a": 1}']


def test_pasted_rows_with_commas_in_their_tab_separated_cells():
    f = read_results(b"Paris, France\tParis\nRome\tRome, Italy\n", name="pasted rows", header=False)
    assert f.format == "tsv" and f.frame.values.tolist() == [["Paris, France", "Paris"], ["Rome", "Rome, Italy"]]
    f = read_results(b'{"name": "Maria", "age": 34}\t{"name": "Maria", "age": "34"}\n', name="pasted rows", header=False)
    assert f.frame.values.tolist() == [['{"name": "Maria", "age": 34}', '{"name": "Maria", "age": "34"}']]


QUOTED = st.text(st.sampled_from('ab ",\t\n'), max_size=8)


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(st.lists(QUOTED, min_size=2, max_size=2), min_size=1, max_size=5), sep=st.sampled_from([",", "\t"]))
def test_quotes_anywhere_are_read_exactly_or_refused(cells, sep):
    """Raw cells joined with the delimiter, quotes and all: the file is read as Python's
    csv module reads it in strict mode, or refused with one message, or (a TSV file that does
    not parse as quoted) read with quotes as text, or (a CSV record with text after a closing
    quote) read with that record left out; never changed."""
    text = "a" + sep + "b\n" + "\n".join(sep.join(row) for row in cells) + "\n"
    try:
        strict = list(csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True))
    except csv.Error:
        strict = None
    try:
        f = read_results(text.encode("utf-8"), format="tsv" if sep == "\t" else "csv")
    except ResultsFileError:
        assert strict is None or any(len(r) > 2 for r in strict[1:]) or all(not any(r) for r in strict[1:])
        return
    if strict is None and sep == "\t":  # not quoted TSV: read as IANA's TSV, quotes as text
        plain = [line.split(sep) for line in text.split("\n")[1:-1] if line]
        assert f.frame.values.tolist() == [r + [None] * (2 - len(r)) for r in plain if len(r) <= 2]
        return
    if strict is None:  # a CSV record with text after a closing quote: left out, the rest read
        assert any("text after its closing quote" in why for _, why in f.unreadable), text
        return
    assert strict is not None, text
    rows = [r for r in strict[1:] if r]
    assert all(len(r) <= 2 for r in rows) or f.unreadable
    kept = [r + [None] * (2 - len(r)) for r in rows if len(r) <= 2]
    assert f.frame.values.tolist() == kept


def test_header_false_leaves_json_alone():
    data = b'{"id": "1", "expected": "a", "output": "a"}\n'
    assert read_results(data, header=False).columns == read_results(data).columns == ("id", "expected", "output")


# --------------------------------------------------------------------------- size


def test_200k_jsonl_and_csv_load():
    n = 200_000
    lines = [f'{{"id":"c{i}","expected":"{i % 97}","output":"{i % 89}.0","score":0.{i % 10}0}}' for i in range(n)]
    lines[1234] = "{broken"
    f = read_results(("\n".join(lines) + "\n").encode())
    assert len(f.frame) == n - 1 and f.unreadable == ((1235, "is not JSON (Expecting property name enclosed in double quotes at column 2)"),)
    assert f.records[-1] == n and f.frame["score"].iloc[-1] == f"0.{(n - 1) % 10}0"
    csv_data = "id,expected,output\n" + "".join(f"c{i},{i % 97},{i % 89}.0\n" for i in range(n))
    g = read_results(csv_data.encode())
    assert len(g.frame) == n and g.frame["output"].iloc[-1] == f"{(n - 1) % 89}.0"


def test_million_row_csv_loads():
    """1,000,000 rows (about 30 MB): pandas' C parser, no per-row Python on the common path."""
    n = 1_000_000
    data = ("id,expected,output,score\n" + "".join(f"c{i},{i % 97},answer {i % 89},0.{i % 10}0\n" for i in range(n))).encode()
    start = time.perf_counter()
    f = read_results(data)
    elapsed = time.perf_counter() - start
    assert len(f.frame) == n and f.records[-1] == n
    assert f.frame["score"].iloc[999_999] == "0.90"
    assert f.frame["id"].iloc[500_000] == "c500000"
    print(f"1,000,000-row CSV ({len(data) / 1e6:.0f} MB): {elapsed:.2f} s, {n / elapsed:,.0f} rows/s")


def test_gc_state_is_restored():
    import gc

    assert gc.isenabled()
    read("basic.csv")
    assert gc.isenabled()
    with pytest.raises(ResultsFileError):
        read("malformed.json")
    assert gc.isenabled()


_SCALARS = st.one_of(st.text(max_size=8), st.booleans(), st.none(), st.integers(-10**30, 10**30),
                     st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _SCALARS, max_size=6))
def test_a_flat_object_is_written_as_the_general_path_writes_it(obj):
    """The object cell's fast path (scalars only) gives the stack writer's text, numbers as
    spelled in the source (a float written as 1.50 stays 1.50)."""
    from graders.readers.jsonfiles import _EXACT, _compact

    text = json.dumps(obj, ensure_ascii=False).replace(".0,", ".00,")
    value = _EXACT.decode(text)
    assert _compact(value) == _compact([value])[1:-1]
    assert json.loads(_compact(value)) == json.loads(text)

