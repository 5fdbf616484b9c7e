"""Inspect logs written by inspect-ai 0.3.285 (fixtures/inspect/make_inspect_logs.py)."""

import io
import json
import subprocess
import sys
import zipfile

import pytest
from harness_files import assert_one_message, fixture_bytes

from graders.readers import ResultsFileError, inspect_log

EVAL = fixture_bytes("inspect", "inspect_log.eval")
JSON = fixture_bytes("inspect", "inspect_log.json")
TRUNCATED = fixture_bytes("inspect", "inspect_log_truncated.eval")


def rows(result):
    return {(r["id"], r["repeat"]): r for r in result.frame.to_dict("records")}


def test_eval_members_are_zstandard():
    # The point of the fixture: Python 3.11's own zipfile cannot open these members. Asked in
    # a fresh interpreter: a package imported by another test (inspect_ai) may have taught
    # this one's zipfile Zstandard.
    archive = zipfile.ZipFile(io.BytesIO(EVAL))
    assert {i.compress_type for i in archive.infolist()} == {93}
    if sys.version_info >= (3, 14):
        pytest.skip("zipfile reads Zstandard from Python 3.14")
    probe = ("import io, sys, zipfile\n"
             "z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))\n"
             "try:\n    z.read('header.json')\nexcept NotImplementedError:\n    print('refused')")
    out = subprocess.run([sys.executable, "-c", probe], input=EVAL, capture_output=True, check=True).stdout
    assert out.strip() == b"refused"


def test_both_formats_read_to_the_same_frame():
    a, b = inspect_log.read(EVAL), inspect_log.read(JSON)
    assert (a.format, b.format) == ("inspect-eval", "inspect-json")
    assert a.columns == b.columns
    assert a.frame.equals(b.frame)
    assert a.records == b.records == (1, 2, 3, 4, 5, 6)
    assert a.unreadable == b.unreadable == ()
    # Inspect's order: epoch, then id (an integer id zero-filled, so 3 before "q1")
    assert [(r["id"], r["repeat"]) for r in a.frame.to_dict("records")] == [
        ("3", "1"), ("q1", "1"), ("q2", "1"), ("3", "2"), ("q1", "2"), ("q2", "2")]


def test_columns():
    r = inspect_log.read(JSON)
    assert r.columns == (
        "id", "version", "repeat", "input", "expected", "expected_kind", "output",
        "harness.match.value", "harness.match.answer", "harness.match.explanation",
        "harness.includes.value", "harness.includes.answer", "harness.includes.explanation",
        "metadata.topic", "metadata.difficulty", "metadata.source", "metadata.verified", "metadata.tags")
    for col in r.frame:
        assert all(v is None or type(v) is str for v in r.frame[col]), col


CELLS = [
    # (id, epoch, column, cell)
    ("q1", "1", "version", "mockllm/model"),
    ("q1", "1", "input", "What is 2+2? Answer with a number."),
    ("q1", "1", "expected", "4"),
    ("q1", "1", "expected_kind", "exact"),
    ("q1", "1", "output", "The answer is 4"),
    ("q1", "1", "harness.match.value", "C"),
    ("q1", "1", "harness.match.answer", "The answer is 4"),
    ("q1", "1", "harness.includes.answer", "the answer is 4"),  # includes() casefolds
    ("q1", "1", "metadata.verified", "true"),
    ("q1", "1", "metadata.difficulty", "1"),
    ("q2", "2", "expected", '["red","blue","yellow"]'),
    ("q2", "2", "expected_kind", "any-of"),
    ("q2", "2", "output", "Blue"),
    ("q2", "2", "metadata.tags", '["any-of","short"]'),
    ("q2", "2", "metadata.verified", None),
    ("3", "1", "output", 'The capital of France is "Paris".\tDone.'),
    ("3", "1", "harness.match.value", "I"),
    ("3", "1", "harness.includes.value", "C"),
    ("3", "2", "metadata.difficulty", "1.5"),
    ("3", "2", "metadata.source", '{"book":"atlas","page":12}'),
]


@pytest.mark.parametrize("sample_id, epoch, column, cell", CELLS)
@pytest.mark.parametrize("fixture", ["eval", "json"])
def test_cells(fixture, sample_id, epoch, column, cell):
    r = inspect_log.read(EVAL if fixture == "eval" else JSON)
    assert rows(r)[(sample_id, epoch)][column] == cell


def test_chat_input_is_compact_json_of_the_messages():
    r = rows(inspect_log.read(JSON))
    messages = json.loads(r[("3", "1")]["input"])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == 'What is the capital of France? Say "Paris" if unsure.'
    assert r[("3", "1")]["input"] == json.dumps(messages, separators=(",", ":"), ensure_ascii=False)


def test_truncated_eval_is_one_clear_error():
    with pytest.raises(ResultsFileError) as info:
        inspect_log.read(TRUNCATED)
    assert str(info.value).startswith(
        "the Inspect .eval archive is cut off or damaged: the zip directory at its end is missing")
    assert_one_message(info.value)


@pytest.mark.parametrize("cut", range(0, len(EVAL), 509))
def test_cut_anywhere_gives_a_results_file_error(cut):
    with pytest.raises(ResultsFileError) as info:
        inspect_log.read(EVAL[:cut])
    assert_one_message(info.value)


def test_damaged_sample_member_is_unreadable_not_fatal():
    archive = zipfile.ZipFile(io.BytesIO(EVAL))
    info = archive.getinfo("samples/q2_epoch_1.json")
    data = bytearray(EVAL)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + info.compress_size // 2] ^= 0xFF  # one flipped byte in its compressed data
    r = inspect_log.read(bytes(data))
    assert len(r.frame) == 5
    # numbered in Inspect's order, the damaged member placed by its name: 3, q1, q2 of epoch 1
    [(number, reason)] = r.unreadable
    assert number == 3 and reason.startswith("(samples/q2_epoch_1.json) ")  # checksum or zstd error
    assert r.records == (1, 2, 4, 5, 6)
    assert ("q2", "1") not in rows(r)


def repacked(compression):
    """The fixture's members written again with another zip method (stored / deflated)."""
    src = zipfile.ZipFile(io.BytesIO(EVAL))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, inspect_log._member_bytes(src, EVAL, info.filename))
    return out.getvalue()


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_stored_and_deflated_members(compression):
    a, b = inspect_log.read(repacked(compression)), inspect_log.read(JSON)
    assert a.frame.equals(b.frame)


def test_without_zstandard(monkeypatch):
    deflated = repacked(zipfile.ZIP_DEFLATED)
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard → ImportError
    with pytest.raises(ResultsFileError) as info:
        inspect_log.read(EVAL)
    assert "pip install zstandard" in str(info.value)
    assert_one_message(info.value)
    # deflated members need no zstandard
    assert len(inspect_log.read(deflated).frame) == 6


def json_without(*keys):
    doc = json.loads(JSON)
    for key in keys:
        del doc[key]
    return json.dumps(doc).encode()


@pytest.mark.parametrize("data, message", [
    (b'{"results": [1, 2]}', 'not an Inspect log: it has no "eval" object (its keys: results)'),
    (b'[{"id": 1}]', "not an Inspect log: the document is not a JSON object"),
    (json_without("samples"), 'the Inspect log has no "samples"'),
    (b'{"version": 2, "status": "success", "eval": {"task": "t"}, "samples": []}', "the Inspect log holds no samples"),
    (JSON[: len(JSON) // 2], "the Inspect log is not valid JSON (line"),
    (b"PK\x05\x06" + bytes(18),  # an empty zip archive
     "not an Inspect .eval log: the archive has neither header.json nor _journal/start.json"),
])
def test_other_shapes(data, message):
    with pytest.raises(ResultsFileError) as info:
        inspect_log.read(data)
    assert str(info.value).startswith(message)
    assert_one_message(info.value)


def test_eval_without_samples():
    src = zipfile.ZipFile(io.BytesIO(EVAL))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        dst.writestr("header.json", inspect_log._member_bytes(src, EVAL, "header.json"))
    with pytest.raises(ResultsFileError, match=r"holds no samples \(no samples/\*\.json members\)"):
        inspect_log.read(out.getvalue())


def test_journal_start_stands_in_for_header():
    # A log still being written has no header.json yet: the eval spec is in _journal/start.json.
    src = zipfile.ZipFile(io.BytesIO(EVAL))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            if name != "header.json":
                dst.writestr(name, inspect_log._member_bytes(src, EVAL, name))
    r = inspect_log.read(out.getvalue())
    assert set(r.frame["version"]) == {"mockllm/model"} and len(r.frame) == 6


def test_looks_like():
    assert inspect_log.looks_like(json.loads(JSON))
    assert not inspect_log.looks_like(json.loads(fixture_bytes("promptfoo", "results.json")))


@pytest.mark.parametrize("start", range(7))
def test_any_damaged_byte_gives_rows_or_one_error(start):
    # Every 7th byte flipped, one at a time: a frame (the damaged sample unreadable) or a
    # ResultsFileError, never another exception.
    for pos in range(start, len(EVAL), 7 * 7):
        data = bytearray(EVAL)
        data[pos] ^= 0xFF
        try:
            inspect_log.read(bytes(data))
        except ResultsFileError as exc:
            assert_one_message(exc)
