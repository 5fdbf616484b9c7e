"""_common: source spellings, compact JSON, and the streaming decoder against json itself."""

import json

import pytest
from harness_files import fixture_bytes

from graders.readers._common import STREAMED, _py_compact, compact, decode, decode_streaming, text


@pytest.mark.parametrize("source, cell", [
    ('"a\\tb"', "a\tb"),
    ("3.10", "3.10"),
    ("1e-5", "1e-5"),
    ("1E+400", "1E+400"),  # beyond a double: still as written
    ("-0.0", "-0.0"),
    ("7", "7"),
    ("123456789012345678901234567890", "123456789012345678901234567890"),
    ("true", "true"),
    ("null", "null"),
    ("NaN", "NaN"),
    ('{"a": [1, 2.50, "x", {"b": null}], "c": "é\\u2028"}', '{"a":[1,2.50,"x",{"b":null}],"c":"é\u2028"}'),
    ('["\\"q\\"", "\\\\"]', '["\\"q\\"","\\\\"]'),
])
def test_text(source, cell):
    value = decode(source)
    assert text(value) == cell
    if isinstance(value, (dict, list)):
        assert compact(value) == _py_compact(value) == cell


@pytest.mark.parametrize("doc", [
    '{"a": 1, "samples": [{"x": 1.50}, 2, "s", [3], null], "b": {"c": [1]}}',
    ' \n{ "samples" : [ ] , "z" : 0 } \n',
    '{"samples": {"not": "a list"}}',
    '{"other": [1, 2]}',
    '[{"samples": [1]}]',
    '{}',
])
def test_streaming_equals_decoding(doc):
    items = []
    streamed = decode_streaming(doc, ("samples",), items.append)
    whole = decode(doc)
    if isinstance(streamed, dict) and streamed.get("samples") is STREAMED:
        streamed["samples"] = items
    assert streamed == whole


def test_streaming_a_key_named_twice_streams_both():
    items = []
    assert decode_streaming('{"samples": [1], "samples": [2]}', ("samples",), items.append) == {"samples": STREAMED}
    assert items == [1, 2]  # json.loads would keep [2] only; no harness writes a key twice


def test_streaming_a_nested_path():
    doc = fixture_bytes("promptfoo", "results.json").decode()
    items = []
    streamed = decode_streaming(doc, ("results", "results"), items.append)
    whole = decode(doc)
    assert streamed["results"]["results"] is STREAMED
    streamed["results"]["results"] = items
    assert streamed == whole


@pytest.mark.parametrize("doc", [
    '{"samples": [1, 2', '{"samples": [1 2]}', '{"samples": [1,]}', '{"a" 1}', '{"a": 1,}', '{a: 1}',
    '{"samples": []} x', '{"samples": [{"a": }]}', '', '{"samples": [1], ',
])
def test_streaming_errors_are_json_errors(doc):
    with pytest.raises(json.JSONDecodeError) as streamed:
        decode_streaming(doc, ("samples",), lambda item: None)
    with pytest.raises(json.JSONDecodeError) as plain:
        json.loads(doc)
    # the same place as json's own error, or a later one (json stops at the first)
    assert streamed.value.pos >= plain.value.pos
