"""detect(): each real harness file is recognised; generic CSV / JSON is left alone."""

import json

import pytest
from harness_files import fixture_bytes

from graders.readers.detect import detect

FIXTURES = [
    (("promptfoo", "results.json"), "promptfoo"),
    (("promptfoo", "results-repeat.json"), "promptfoo"),
    (("inspect", "inspect_log.eval"), "inspect-eval"),
    (("inspect", "inspect_log_truncated.eval"), "inspect-eval"),  # so the reader can say what is missing
    (("inspect", "inspect_log.json"), "inspect-json"),
    (("lm_eval", "samples_gsm8k_mini.jsonl"), "lm-eval"),
    (("lm_eval", "samples_arc_mini.jsonl"), "lm-eval"),
    (("parquet", "results.parquet"), "parquet"),
    (("lm_eval", "tasks", "gsm8k_mini.jsonl"), None),  # plain JSON lines
    (("promptfoo", "results-missing-results.json"), None),  # no results: the generic reader says so
    (("segments", "ref.txt"), None),
]


@pytest.mark.parametrize("parts, fmt", FIXTURES)
@pytest.mark.parametrize("named", [True, False])
def test_fixtures(parts, fmt, named):
    assert detect(fixture_bytes(*parts), parts[-1] if named else None) == fmt


def compact(parts):
    return json.dumps(json.loads(fixture_bytes(*parts)), separators=(",", ":")).encode()


@pytest.mark.parametrize("data, fmt", [
    # the same documents written compactly, or with a BOM
    (compact(("promptfoo", "results.json")), "promptfoo"),
    (compact(("inspect", "inspect_log.json")), "inspect-json"),
    (b"\xef\xbb\xbf" + fixture_bytes("promptfoo", "results.json"), "promptfoo"),
    # an older promptfoo output: the summary itself, results a list
    (json.dumps({"version": 2, "timestamp": "2023-09-01T00:00:00.000Z",
                 "results": [{"provider": {"id": "echo"}, "vars": {}, "response": {"output": "x"}}],
                 "table": {"head": {}, "body": []}}).encode(), "promptfoo"),
    # generic results files
    (b"id,expected,output\n1,42,42\n", None),
    (b"id\texpected\toutput\n1\t42\t42\n", None),
    (b'{"id": "1", "expected": "42", "output": "42"}\n{"id": "2", "expected": "7", "output": "8"}\n', None),
    (b'[{"id": "1", "output": "x"}]', None),
    (b'{"rows": [{"id": "1", "output": "x"}]}', None),
    (b'{"results": [{"id": "1", "output": "x"}]}', None),
    (b'{"version": 1, "status": "ok", "rows": []}', None),  # Inspect-like keys, no eval spec
    (b'{"doc_id": 1, "output": "x"}\n', None),  # no filtered_resps
    (b"PK\x03\x04" + bytes(26) + b"\n", None),  # a zip that is not Inspect's
    (b"", None),
    (b"   \n", None),
])
def test_content(data, fmt):
    assert detect(data, None) == fmt


def test_long_first_lm_eval_line():
    line = json.dumps({"doc_id": 0, "doc": {"text": "x" * 100_000}, "filtered_resps": ["a"]})
    assert detect((line + "\n").encode(), None) == "lm-eval"


def test_eval_name_hint_for_a_zip():
    assert detect(b"PK\x03\x04" + bytes(26), "run.eval") == "inspect-eval"
