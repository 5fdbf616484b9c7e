"""Column mapping suggestions and preparing rows to score: keys, systems, left-out reasons."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from graders.config import ALIASES, ROLES, suggest_mapping
from graders.readers.files import read_results
from graders.scoring.rows import LEFT_OUT_REASONS, ROW_COLUMNS, MappingError, prepare

FILES = Path(__file__).resolve().parents[1] / "files"

NONE = dict.fromkeys(ROLES)


def read(name: str):
    return read_results(FILES / name)


def by_item(prepared) -> dict[str, dict]:
    return {r["item"]: r for r in prepared.rows.to_dict("records")}


# --------------------------------------------------------------------------- mapping


@pytest.mark.parametrize(
    "columns, expected",
    [
        (["id", "expected", "output"], {"id": "id", "expected": "expected", "output": "output"}),
        (
            ["case_id", "prompt", "answer", "response"],
            {"id": "case_id", "input": "prompt", "expected": "answer", "output": "response"},
        ),
        (["ID", "Reference", "Prediction"], {"id": "ID", "expected": "Reference", "output": "Prediction"}),
        ([" id ", "target", "completion"], {"id": " id ", "expected": "target", "output": "completion"}),
        # The same case wins over another case; an earlier alias over a later one.
        (["ID", "id", "ideal", "reference"], {"id": "id", "expected": "reference"}),
        # Dotted columns whose last part is an alias, when no full name matches.
        (
            ["id", "vars.question", "vars.expected", "response.output"],
            {"id": "id", "input": "vars.question", "expected": "vars.expected", "output": "response.output"},
        ),
        (["expected", "vars.expected"], {"expected": "expected"}),
        # label is expected only when nothing better exists, dotted included.
        (["id", "label", "output"], {"id": "id", "expected": "label", "output": "output"}),
        (["id", "label", "vars.answer", "output"], {"id": "id", "expected": "vars.answer", "output": "output"}),
        (["label", "expected_kind"], {"expected": "label", "expected_kind": "expected_kind"}),
        # Wide and long files.
        (["id", "output", "output_b"], {"id": "id", "output": "output", "output_b": "output_b"}),
        (["id", "actual", "baseline"], {"id": "id", "output": "actual", "output_b": "baseline"}),
        (["id", "model_b", "output_b"], {"id": "id", "output_b": "output_b"}),
        (
            ["case_id", "version", "repeat", "assert", "prediction"],
            {"id": "case_id", "version": "version", "repeat": "repeat", "assert": "assert", "output": "prediction"},
        ),
        (["notes", "score"], {}),
    ],
)
def test_suggest_mapping(columns, expected):
    assert suggest_mapping(columns) == {**NONE, **expected}


def test_a_column_serves_one_role():
    mapping = suggest_mapping(["a.output", "b.output", "output"])
    assert mapping["output"] == "output"
    used = [c for c in mapping.values() if c is not None]
    assert len(used) == len(set(used))


def test_roles_and_aliases_match_the_spec():
    assert ROLES == ("id", "expected", "output", "output_b", "input", "version", "repeat", "expected_kind", "assert")
    assert ALIASES["expected"] == ("expected", "reference", "answer", "target", "ideal", "label")
    assert ALIASES["output"] == ("output", "actual", "prediction", "response", "completion")
    assert ALIASES["output_b"] == ("output_b", "model_b", "baseline")
    assert ALIASES["input"] == ("input", "prompt", "question")
    assert ALIASES["id"] == ("id", "case_id")


@pytest.mark.parametrize(
    "name",
    ["basic.csv", "crlf_bom_quoted.csv", "results.tsv", "results.jsonl", "results_array.json",
     "results_rows.json", "wide.csv", "long.jsonl", "left_out.csv", "assertions.jsonl"],
)
def test_every_fixture_prepares_with_the_suggested_mapping(name):
    f = read(name)
    mapping = suggest_mapping(f.columns)
    p = prepare(f, mapping, needs_expected=mapping["expected"] is not None)
    assert list(p.rows.columns) == list(ROW_COLUMNS)
    k = 2 if mapping["output_b"] else 1
    assert len(p.rows) + p.left_out.outputs == (len(f.frame) + len(f.unreadable)) * k
    assert p.left_out.total == sum(p.left_out.counts.values()) <= len(f.frame) + len(f.unreadable)


# --------------------------------------------------------------------------- left out

LEFT_OUT = {
    "unreadable": (1, (18,), ("row 18 has 9 fields, the header has 7",)),
    "no id": (1, (3,), ()),
    "no output": (1, (4,), ()),
    "no expected": (1, (5,), ()),
    "duplicate key": (
        2,
        (6, 20),
        (
            "row 6 has the same id, version and repeat as row 1",
            "row 20 has the same id, version and repeat as row 1",
        ),
    ),
    "bad repeat": (
        4,
        (7, 8, 9, 21),
        (
            "row 7 has the repeat '1.5', not a whole number >= 0",
            "row 8 has the repeat '-1', not a whole number >= 0",
            "row 9 has the repeat 'x', not a whole number >= 0",
            "row 21 has no repeat",
        ),
    ),
    "unknown expected kind": (1, (10,), ("row 10 has the expected kind 'fuzzy'; use exact, any-of, label",)),
    "bad any-of expected": (
        3,
        (11, 12, 13),
        (
            "row 11: an any-of expected must be a JSON array of strings (or numbers)",
            "row 12: an any-of expected is an empty array",
            "row 13: an any-of expected must be a JSON array of strings; this is not JSON (Expecting value at column 1)",
        ),
    ),
    "malformed assertions": (
        4,
        (14, 15, 16, 17),
        (
            "row 14: the assertions must be a JSON list of objects, not an object",
            'row 15: assertion 1 has no "type" string',
            "row 16: assertion 1 is not an object",
            "row 17: the assertions are not JSON (Expecting value at column 2)",
        ),
    ),
}


@pytest.fixture(scope="module")
def left_out_file():
    f = read("left_out.csv")
    return f, prepare(f, suggest_mapping(f.columns), needs_expected=True)


@pytest.mark.parametrize("reason", LEFT_OUT_REASONS)
def test_every_left_out_reason(left_out_file, reason):
    _, p = left_out_file
    count, rows, notes = LEFT_OUT[reason]
    assert p.left_out.counts[reason] == count
    assert p.left_out.rows[reason] == rows
    assert p.left_out.notes.get(reason, ()) == notes


def test_left_out_totals_and_order(left_out_file):
    f, p = left_out_file
    assert list(p.left_out.counts) == list(LEFT_OUT_REASONS)  # reasons in the checking order
    assert p.left_out.total == 18
    assert p.rows["record"].tolist() == [1, 2, 19, 22, 23]
    assert len(p.rows) + p.left_out.total == 23
    d = p.left_out.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["total"] == 18
    assert d["reasons"]["duplicate key"] == {
        "count": 2,
        "rows": [6, 20],
        "notes": list(LEFT_OUT["duplicate key"][2]),
    }


def test_kept_rows_exactly(left_out_file):
    _, p = left_out_file
    rows = {r["record"]: r for r in p.rows.to_dict("records")}
    assert rows[1] == {
        "record": 1, "item": "k1", "system": "v1", "repeat": "0", "refs": ("Paris",), "output": "Paris",
        "input": "", "assertions": (), "expected": "Paris", "repeat_number": 0, "output_column": "output",
    }
    assert rows[19]["system"] == "v2"  # same id and repeat, another version: not a duplicate
    r = rows[22]
    assert r["repeat"] == "03" and r["repeat_number"] == 3  # kept as written, compared as 3
    assert r["refs"] == ("Lima", "Lima, Peru")  # ANY-OF, read case-insensitively
    assert r["expected"] == '["Lima", "Lima, Peru"]'
    assert r["assertions"] == (
        {"type": "icontains", "value": "lima"},
        {"type": "not-contains", "value": "Bogota", "threshold": 0.5},
    )
    r = rows[23]
    assert r["repeat"] == "2.0" and r["repeat_number"] == 2
    assert r["refs"] == ("Lima",) and r["assertions"] == ()  # label kind; assert null = none


def test_row_types(left_out_file):
    _, p = left_out_file
    assert str(p.rows["record"].dtype) == "int64"
    assert str(p.rows["repeat_number"].dtype) == "int64"
    for name in ("item", "system", "repeat", "output", "input", "expected", "output_column"):
        assert p.rows[name].dtype == object
        assert all(type(v) is str for v in p.rows[name])
    assert all(type(v) is tuple for v in p.rows["refs"])
    assert all(type(v) is tuple for v in p.rows["assertions"])


def test_without_needs_expected_nothing_is_left_out_for_the_expected():
    f = read("left_out.csv")
    p = prepare(f, suggest_mapping(f.columns), needs_expected=False)
    for reason in ("no expected", "unknown expected kind", "bad any-of expected"):
        assert reason not in p.left_out.counts
    rows = by_item(p)
    assert rows["k5"]["refs"] == ()  # no expected
    assert rows["k10"]["refs"] == ()  # unknown kind: refs cannot be read
    assert rows["k12"]["refs"] == ()  # bad any-of
    assert rows["k21"]["refs"] == ("Lima", "Lima, Peru")


def test_assertion_cells_from_json_lines():
    f = read("assertions.jsonl")
    p = prepare(f, suggest_mapping(f.columns), needs_expected=False)
    assert p.left_out.counts == {"malformed assertions": 3}
    assert p.left_out.notes["malformed assertions"] == (
        'row 5: assertion 1 has no "type" string',
        'row 6: assertion 1 has no "type" string',
        "row 7: the assertions must be a JSON list of objects, not an object",
    )
    rows = by_item(p)
    assert rows["a1"]["assertions"] == (
        {"type": "contains", "value": "refund"},
        {"type": "not-icontains", "value": "sorry", "threshold": 0.5},
    )
    assert rows["a2"]["assertions"][0]["value"] == {"type": "object", "required": ["status"]}
    assert rows["a3"]["assertions"] == () and rows["a4"]["assertions"] == () and rows["a9"]["assertions"] == ()
    assert rows["a8"]["assertions"] == ({"type": "llm-rubric", "value": "is polite"},)  # unknown kind: kept


def test_first_twenty_record_numbers_and_notes():
    data = "id,output\n" + "".join(f"same,out {i}\n" for i in range(30)) + ",x\n" * 25
    p = prepare(read_results(data.encode()), {"id": "id", "output": "output"}, needs_expected=False)
    assert p.left_out.counts == {"no id": 25, "duplicate key": 29}
    assert p.left_out.rows["duplicate key"] == tuple(range(2, 22))
    assert len(p.left_out.notes["duplicate key"]) == 20
    assert p.left_out.notes["duplicate key"][0] == "row 2 has the same id as row 1"
    assert p.left_out.rows["no id"] == tuple(range(31, 51))
    assert p.rows["record"].tolist() == [1]


def test_duplicate_of_a_row_left_out_earlier_is_not_a_duplicate():
    data = b"id,expected,output\n1,a,\n1,a,kept\n1,a,dup\n"
    p = prepare(read_results(data), suggest_mapping(["id", "expected", "output"]), needs_expected=True)
    assert p.rows["output"].tolist() == ["kept"]
    assert p.left_out.notes["duplicate key"] == ("row 3 has the same id as row 2",)


def test_repeats_compare_as_whole_numbers():
    data = b"id,repeat,output\na,0,x\na,00,x\na,0.0,x\na, 1 ,x\na,1,x\na,+1,x\na,1e0,x\na,\xd9\xa1,x\n"
    p = prepare(read_results(data), {"id": "id", "repeat": "repeat", "output": "output"}, needs_expected=False)
    assert p.rows["repeat"].tolist() == ["0", " 1 "]
    assert p.rows["repeat_number"].tolist() == [0, 1]
    assert p.left_out.rows["duplicate key"] == (2, 3, 5)
    assert p.left_out.rows["bad repeat"] == (6, 7, 8)  # "+1", "1e0", an Arabic-Indic one


# --------------------------------------------------------------------------- systems


def test_wide_file_one_row_per_output_column():
    f = read("wide.csv")
    p = prepare(f, suggest_mapping(f.columns), needs_expected=True)
    assert p.systems == ("output", "output_b")
    got = [(r["record"], r["system"], r["output"]) for r in p.rows.to_dict("records")]
    assert got == [
        (1, "output", "Paris"), (1, "output_b", "Paris"),
        (2, "output", "42"), (2, "output_b", "forty-two"),
        (3, "output_b", "Oslo"),
        (4, "output", "Lima"),
    ]
    assert p.rows["input"].tolist()[0] == "capital of France?"
    # a reason counts rows (records): record 5, without an expected, is one row and two outputs
    assert p.left_out.counts == {"no output": 2, "no expected": 1}
    assert p.left_out.rows == {"no output": (3, 4), "no expected": (5,)}
    assert p.left_out.notes == {"no output": ("row 3 has no output", "row 4 has no output_b")}
    assert p.left_out.total == 3 and p.left_out.to_dict()["total"] == 3
    assert p.left_out.outputs + len(p.rows) == 5 * 2


def test_wide_file_with_a_version_column():
    data = b"id,version,expected,output,baseline\n1,v1,a,a,b\n1,v2,a,a,b\n"
    f = read_results(data)
    mapping = suggest_mapping(f.columns)
    assert mapping["output_b"] == "baseline"
    p = prepare(f, mapping, needs_expected=True)
    assert p.rows["system"].tolist() == ["v1", "v1/baseline", "v2", "v2/baseline"]
    assert p.rows["output_column"].tolist() == ["output", "baseline", "output", "baseline"]
    assert p.left_out.total == 0


def test_explicit_output_columns():
    f = read("wide.csv")
    p = prepare(f, {"id": "id", "expected": "answer"}, needs_expected=True, output_columns=["output_b", "question"])
    assert p.systems == ("output_b", "question")
    assert by_item(p)["w3"]["output"] == "capital of Norway?"


def test_long_file_versions_and_repeats():
    f = read("long.jsonl")
    p = prepare(f, suggest_mapping(f.columns), needs_expected=True)
    assert p.systems == ("returns-assistant-v1", "returns-assistant-v2")
    assert p.rows["repeat"].tolist() == ["0", "1", "0", "1", "0", "0"]
    assert p.left_out.counts == {"duplicate key": 1}
    assert p.left_out.notes["duplicate key"] == ("row 7 has the same id, version and repeat as row 6",)


def test_a_row_left_out_whole_counts_once_in_a_wide_file():
    """A reason counts the rows it lists: an unreadable line, a row without an id or a
    duplicate row is one row, though it would have given two outputs."""
    data = b"id,output,output_b\n1,a,b\n2,a,b,c\n,a,b\n1,a,b\n"
    p = prepare(read_results(data), suggest_mapping(["id", "output", "output_b"]), needs_expected=False)
    assert p.left_out.counts == {"unreadable": 1, "no id": 1, "duplicate key": 1}
    assert p.left_out.rows == {"unreadable": (2,), "no id": (3,), "duplicate key": (4,)}
    assert p.left_out.total == 3 and p.left_out.outputs == 6 and len(p.rows) == 2
    assert p.left_out.lines() == ["left out, unreadable: 1 (row 2); row 2 has 4 fields, the header has 3",
                                  "left out, no id: 1 (row 3)", "left out, duplicate key: 1 (row 4); row 4 has the same id as row 1"]


# --------------------------------------------------------------------------- mapping errors


@pytest.mark.parametrize(
    "mapping, kw, message",
    [
        ({"id": "id", "output": "nope"}, {}, "the column 'nope' mapped to output is not in the file (its columns: id, input, expected, output)"),
        ({"id": "id"}, {}, "no column is mapped to output; choose one of: id, input, expected, output"),
        (
            {"id": "id", "output": "output"},
            {"needs_expected": True},
            "a selected grader needs the expected answer, and no column is mapped to expected; "
            "choose one of: id, input, expected, output",
        ),
        ({"id": "id", "answer": "output"}, {}, "unknown column role 'answer'; the roles are id, expected, output, output_b, input, version, repeat, expected_kind, assert"),
        ({"id": "id"}, {"output_columns": ["output", "gone"]}, "the output column 'gone' is not in the file (its columns: id, input, expected, output)"),
        ({"id": "id"}, {"output_columns": ["output", "output"]}, "the output column 'output' is chosen twice"),
    ],
)
def test_mapping_errors(mapping, kw, message):
    kw = {"needs_expected": False, **kw}
    with pytest.raises(MappingError) as info:
        prepare(read("basic.csv"), mapping, **kw)
    assert str(info.value) == message


# --------------------------------------------------------------------------- size


def test_million_rows_prepare():
    """1,000,000 rows read and prepared; exact kind, no assertions: the vectorized path."""
    n = 1_000_000
    data = ("id,expected,output\n" + "".join(f"c{i},{i % 97},{i % 89}\n" for i in range(n))).encode()
    data += b"c7,dup,dup\n,no id,x\n"
    f = read_results(data)
    start = time.perf_counter()
    p = prepare(f, suggest_mapping(f.columns), needs_expected=True)
    elapsed = time.perf_counter() - start
    assert len(p.rows) == n
    assert p.left_out.counts == {"no id": 1, "duplicate key": 1}
    assert p.left_out.notes["duplicate key"] == (f"row {n + 1} has the same id as row 8",)
    assert p.rows["refs"].iloc[123_456] == (str(123_456 % 97),)
    assert np.array_equal(p.rows["record"].to_numpy()[:3], [1, 2, 3])
    print(f"prepare 1,000,000 rows: {elapsed:.2f} s")


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"id,expected,output,expected_kind\n1,a,a,fuzzy\n1,a,a,exact\n", "unknown expected kind"),
        (b"id,expected,output,assert\n1,a,a,not json\n1,a,a,\n", "malformed assertions"),
        (b'id,expected,output,expected_kind\n1,"[]",a,any-of\n1,a,a,exact\n', "bad any-of expected"),
    ],
)
def test_a_record_is_never_the_duplicate_of_one_left_out(content, reason):
    """The duplicate check comes last: the second record is the first one kept with that
    key, so the case is scored (SPEC §5: nothing else is dropped)."""
    f = read_results(content)
    p = prepare(f, suggest_mapping(f.columns), needs_expected=True)
    assert p.rows["record"].tolist() == [2] and p.left_out.counts == {reason: 1}


def test_a_duplicate_of_a_kept_record_is_still_one():
    f = read_results(b"id,expected,output,expected_kind\n1,a,a,exact\n1,a,a,fuzzy\n1,b,b,label\n")
    p = prepare(f, suggest_mapping(f.columns), needs_expected=True)
    assert p.rows["record"].tolist() == [1]
    assert p.left_out.counts == {"unknown expected kind": 1, "duplicate key": 1}
    assert p.left_out.notes["duplicate key"] == ("row 3 has the same id as row 1",)


def test_any_of_numbers_are_references_as_written():
    f = read_results(b'{"id": "1", "expected": [41, 3.10, "x"], "expected_kind": "any-of", "output": "3.10"}\n')
    p = prepare(f, suggest_mapping(f.columns), needs_expected=True)
    assert p.rows["refs"].tolist() == [("41", "3.10", "x")]


def test_a_repeat_past_int64_is_a_whole_number_too():
    f = read_results(b"id,expected,output,repeat\n1,a,a,0\n1,a,a,12345678901234567890\n1,a,a,012345678901234567890\n")
    p = prepare(f, suggest_mapping(f.columns), needs_expected=True)
    assert p.rows["repeat"].tolist() == ["0", "12345678901234567890"]
    assert p.rows["repeat_number"].tolist() == [0, 12345678901234567890]
    assert p.left_out.notes["duplicate key"] == ("row 3 has the same id and repeat as row 2",)


def test_without_an_id_column_each_record_is_its_own_case():
    """Rows of expected and output alone (seed 004's pasted rows): the id is the record
    number, as the left-out report numbers records, so nothing is a duplicate."""
    data = b"expected,output\nParis,Paris\nParis,Paris\n,x\nRome,rome\n"
    p = prepare(read_results(data), {"expected": "expected", "output": "output"}, needs_expected=True)
    assert p.rows["item"].tolist() == ["1", "2", "4"]
    assert p.left_out.counts == {"no expected": 1} and p.left_out.rows == {"no expected": (3,)}

