"""Reading a harness file a chunk at a time (_common.decode_streaming_utf8) gives what reading
it whole gives, at every chunk size, for valid and damaged files; and promptfoo rows share a
test case's cells only when its JSON is the same, type for type and key for key."""

import copy
import json
import random

import pytest
from harness_files import fixture_bytes

from graders.readers import ResultsFileError, _common, promptfoo
from graders.readers._common import STREAMED, decode_streaming, decode_streaming_utf8, decode_utf8

PATHS = (("results", "results"), ("samples",), ())


def outcome(read):
    """What a read gives: the document and the items streamed, or the exception's message."""
    items = []
    try:
        doc = read(items.append)
    except json.JSONDecodeError as exc:
        return "json", str(exc)
    except ResultsFileError as exc:
        return "utf8", str(exc)
    except RecursionError:
        return "deep", None
    return "ok", repr(doc), repr(items)


def both(data, path):
    whole = outcome(lambda each: decode_streaming(decode_utf8(data, "F"), path, each))
    chunked = outcome(lambda each: decode_streaming_utf8(data, "F", path, each))
    return whole, chunked


def _value(rng, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.35:
        return rng.choice(["1", "-0.5", "1e5", "3.10", "12345678901234567890", "true", "false", "null",
                           '"a"', '"é"', '"\\u2028"', '"😀"', '"\\"q\\""', '""', '"' + "x" * 40 + '"'])
    if r < 0.65:
        return "[" + ", ".join(_value(rng, depth + 1) for _ in range(rng.randrange(4))) + "]"
    keys = ["a", "results", "samples", "é", "k"]
    return "{" + ", ".join(f'"{rng.choice(keys)}": {_value(rng, depth + 1)}' for _ in range(rng.randrange(4))) + "}"


def _document(rng):
    array = "[" + ",\n  ".join(_value(rng) for _ in range(rng.randrange(6))) + "]"
    shape = rng.random()
    if shape < 0.7:
        return f'{{"evalId": "x", "results": {{"version": 3, "results": {array}, "stats": {_value(rng)}}}, "c": 1}}'
    if shape < 0.85:
        return f'{{"samples": {array}, "eval": {_value(rng)}}}'
    return array


def _damage(rng, data):
    r, i = rng.random(), rng.randrange(len(data) + 1)
    if r < 0.5:
        return data
    if r < 0.65:
        return data[:i]  # cut off
    if r < 0.75:
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    if r < 0.85:
        return b"\xef\xbb\xbf" + data
    if r < 0.92:
        return data + rng.choice([b" x", b"  \n", b"1", b"]"])
    return data[:i] + b"\xff" + data[i:]  # not UTF-8


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64, 1 << 20])
def test_chunks_read_as_the_whole_file_does(monkeypatch, chunk):
    monkeypatch.setattr(_common, "_CHUNK", chunk)
    rng = random.Random(chunk)
    for _ in range(300):
        data = _damage(rng, _document(rng).encode())
        for path in PATHS:
            whole, chunked = both(data, path)
            assert chunked == whole, (data, path)


@pytest.mark.parametrize("name", [("promptfoo", "results.json"), ("promptfoo", "results-repeat.json"),
                                  ("inspect", "inspect_log.json")])
def test_fixtures_at_small_chunks(monkeypatch, name):
    data = fixture_bytes(*name)
    monkeypatch.setattr(_common, "_CHUNK", 7)
    monkeypatch.setattr(_common, "_AHEAD", 16)
    path = ("samples",) if name[0] == "inspect" else ("results", "results")
    whole, chunked = both(data, path)
    assert whole[0] == "ok" and chunked == whole
    for cut in range(1, len(data), max(1, len(data) // 40)):  # cut off anywhere: the same message
        assert both(data[:cut], path)[1] == both(data[:cut], path)[0]


def test_streamed_array_in_its_place():
    items = []
    doc = decode_streaming_utf8(b'{"results": {"results": [1, {"a": 2}], "n": 3}}', "F", ("results", "results"),
                                items.append)
    assert doc == {"results": {"results": STREAMED, "n": 3}} and items == [1, {"a": 2}]


def test_deep_nesting_is_the_same_error():
    data = b'{"results": {"results": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}}"
    whole, chunked = both(data, ("results", "results"))
    assert whole == chunked == ("deep", None)


# --------------------------------------------------------------------------- promptfoo's shared cells

def _with_two_tests(first, second):
    """The fixture's first result twice, as two test cases with the given assertions."""
    doc = json.loads(fixture_bytes("promptfoo", "results.json"))
    result = doc["results"]["results"][0]
    doc["results"]["results"] = []
    for i, asserts in enumerate((first, second)):
        r = copy.deepcopy(result)
        r["testIdx"], r["testCase"]["assert"] = i, asserts
        doc["results"]["results"].append(r)
    return json.dumps(doc).encode()


@pytest.mark.parametrize("first, second", [
    ([{"type": "equals", "value": 1}], [{"type": "equals", "value": True}]),  # 1 == True in Python
    ([{"type": "equals", "value": "1.0"}], [{"type": "equals", "value": 1.0}]),  # a number's source text
    ([{"type": "equals", "value": "a"}], [{"value": "a", "type": "equals"}]),  # key order
    ([{"type": "equals", "value": 1}], [{"type": "equals", "value": 1.0}]),
])
def test_equal_in_python_is_not_the_same_test(first, second):
    frame = promptfoo.read(_with_two_tests(first, second)).frame
    assert list(frame["assert"]) == [json.dumps(first, separators=(",", ":")),
                                     json.dumps(second, separators=(",", ":"))]
    assert frame["id"].nunique() == 2


def test_the_same_test_under_two_providers_shares_its_cells():
    frame = promptfoo.read(fixture_bytes("promptfoo", "results.json")).frame
    for _, rows in frame.groupby("id"):
        assert rows["version"].nunique() == 2
        for column in ("assert", "expected", "vars.question", "metadata.topic"):
            assert rows[column].nunique(dropna=False) == 1
