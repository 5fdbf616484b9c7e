"""promptfoo results files, as written by promptfoo 0.121.20 (fixtures/promptfoo/make_promptfoo.sh)."""

import json

import pytest
from harness_files import assert_one_message, fixture_bytes

from graders.readers import ResultsFileError, promptfoo

RESULTS = fixture_bytes("promptfoo", "results.json")
REPEAT = fixture_bytes("promptfoo", "results-repeat.json")


def by_key(result):
    frame = result.frame
    return {(r["id"], r["version"], r["repeat"]): r for r in frame.to_dict("records")}


def test_columns_and_format():
    r = promptfoo.read(RESULTS)
    assert r.format == "promptfoo"
    assert r.columns[:13] == ("id", "version", "repeat", "input", "expected", "output", "assert", "harness.pass",
                              "harness.score", "harness.reason", "latency_ms", "cost", "prompt.label")
    assert set(r.columns[13:]) == {"vars.question", "vars.expected", "vars.tone", "metadata.topic",
                                   "metadata.difficulty"}
    assert len(r.frame) == 10 and r.records == tuple(range(1, 11)) and r.unreadable == ()
    for col in r.frame:
        assert all(v is None or type(v) is str for v in r.frame[col]), col


A, B = "fixed-a", "file://fixed-provider.js"  # a labelled provider, and one known by its id only

CELLS = [
    # (id, version, column, cell)
    ("capital of France", A, "output", "The capital of France is Paris."),
    ("capital of France", B, "output", "paris"),
    ("capital of France", A, "expected", "Paris"),  # vars.expected
    ("capital of France", A, "input", "Answer briefly: What is the capital of France?"),
    ("capital of France", A, "prompt.label", "Answer briefly: {{question}}"),
    ("capital of France", A, "assert",
     '[{"type":"contains","value":"Paris"},{"type":"icontains","value":"paris"},'
     '{"type":"not-contains","value":"London"}]'),
    ("capital of France", B, "harness.pass", "false"),
    ("capital of France", B, "harness.score", "0.6666666666666666"),
    ("capital of France", B, "harness.reason", 'Expected output to contain "Paris"'),
    ("capital of France", A, "harness.pass", "true"),
    ("capital of France", A, "harness.score", "1"),
    ("capital of France", A, "harness.reason", "All assertions passed"),
    ("capital of France", A, "cost", "0.0031000000000000003"),  # the source's spelling
    ("capital of France", A, "metadata.topic", "geography"),
    ("capital of France", A, "metadata.difficulty", "1"),
    ("capital of France", A, "vars.question", "What is the capital of France?"),
    ("capital of France", A, "vars.tone", None),
    ("arithmetic", A, "expected", "4"),  # its one equals assertion
    ("arithmetic", A, "output", "4"),
    ("arithmetic", B, "output", "The answer is 4."),
    ("arithmetic", A, "assert", '[{"type":"equals","value":"4"},{"type":"regex","value":"^\\\\d+$"}]'),
    ("2", A, "output", '{"name":"Ada","age":36}'),  # no description: the test index; object output as JSON
    ("2", B, "output", '{"name": "Ada", "age": "36"}'),  # a string output stays as written
    ("2", A, "expected", None),  # is-json and contains: no expected
    ("greeting", A, "output", 'Hello, "world"!\tBye.'),
    ("greeting", A, "vars.tone", "friendly"),
    ("greeting", A, "assert",
     '[{"type":"icontains","value":"hello"},{"type":"not-contains","value":"Goodbye","weight":2}]'),
    ("unanswerable", B, "assert", '[{"type":"contains-any","value":["red","blue","I do not know"]}]'),
    ("unanswerable", B, "expected", None),
]


@pytest.mark.parametrize("case_id, version, column, cell", CELLS)
def test_cells(case_id, version, column, cell):
    rows = by_key(promptfoo.read(RESULTS))
    assert rows[(case_id, version, "0")][column] == cell


def test_latency_is_text_of_the_source_number():
    doc = json.loads(RESULTS)
    rows = by_key(promptfoo.read(RESULTS))
    for entry in doc["results"]["results"]:
        case_id = entry["testCase"].get("description", str(entry["testIdx"]))
        version = entry["provider"]["label"] or entry["provider"]["id"]
        assert rows[(case_id, version, "0")]["latency_ms"] == str(entry["latencyMs"])


REPEAT_ROWS = [
    # (id, repeat, input, expected)  -- two prompts, --repeat 2, one test whose var expands to two
    ("two questions (test 0) (prompt 1)", "0", "Answer briefly: What is the capital of France?", "4"),
    ("two questions (test 0) (prompt 2)", "0", "Q: What is the capital of France?", "4"),
    ("two questions (test 1) (prompt 1)", "0", "Answer briefly: What is 2 + 2?", "4"),
    ("two questions (test 1) (prompt 2)", "1", "Q: What is 2 + 2?", "4"),
    ("two questions (test 0) (prompt 1)", "1", "Answer briefly: What is the capital of France?", "4"),
]


@pytest.mark.parametrize("case_id, repeat, prompt, expected", REPEAT_ROWS)
def test_repeats_prompts_and_expanded_vars(case_id, repeat, prompt, expected):
    r = promptfoo.read(REPEAT)
    rows = by_key(r)
    assert len(r.frame) == 8 and len(rows) == 8  # every (id, version, repeat) key is unique
    row = rows[(case_id, "fixed-a", repeat)]
    assert row["input"] == prompt and row["expected"] == expected
    # defaultTest's assertion comes first, as promptfoo merged it into the test case
    assert row["assert"] == '[{"type":"not-contains","value":"Goodbye"},{"type":"equals","value":"4"}]'


def test_missing_results_key():
    with pytest.raises(ResultsFileError) as info:
        promptfoo.read(fixture_bytes("promptfoo", "results-missing-results.json"))
    message = str(info.value)
    assert message.startswith('not a promptfoo results file: it has no "results" key (its keys: evalId, config')
    assert_one_message(info.value)


@pytest.mark.parametrize("data, message", [
    (b'{"evalId": "x", "results": {"version": 3, "prompts": []}}', '"results" has no "results" list'),
    (b'{"evalId": "x", "results": 7}', '"results" is not an object holding a "results" list'),
    (b'[1, 2]', "the document is not a JSON object"),
    (b'{"evalId": "x", "results": {', "not valid JSON (line 1, column"),
    (b'\xff{}', "not UTF-8 text"),
])
def test_bad_documents(data, message):
    with pytest.raises(ResultsFileError) as info:
        promptfoo.read(data)
    assert message in str(info.value)
    assert_one_message(info.value)


def test_unreadable_entries_are_listed():
    doc = json.loads(RESULTS)
    entries = doc["results"]["results"]
    entries[1] = 5
    del entries[3]["provider"]
    r = promptfoo.read(json.dumps(doc).encode())
    assert r.unreadable == ((2, "is a number, not an object"), (4, "has no provider"))
    assert r.records == (1, 3, 5, 6, 7, 8, 9, 10)


def test_a_document_decoded_by_json_loads():
    doc = json.loads(RESULTS)
    r = promptfoo.read(doc)
    rows = by_key(r)
    assert rows[("capital of France", A, "0")]["cost"] == "0.0031000000000000003"
    assert rows[("2", A, "0")]["output"] == '{"name":"Ada","age":36}'


def test_older_bare_summary():
    # Before the evalId wrapper, -o results.json held the summary itself: results a list.
    doc = json.loads(RESULTS)["results"]
    doc["version"] = 2
    doc["table"] = {"head": {"prompts": [], "vars": []}, "body": []}
    r = promptfoo.read(json.dumps(doc).encode())
    assert promptfoo.looks_like(doc)
    assert len(r.frame) == 10
    assert by_key(r)[("capital of France", A, "0")]["output"] == "The capital of France is Paris."


@pytest.mark.parametrize("results, message", [
    ([], "the promptfoo results file holds no results"),
    ([1, "x"], "no readable results in the promptfoo file (result 1 is a number, not an object)"),
])
def test_no_rows(results, message):
    doc = json.loads(RESULTS)
    doc["results"]["results"] = results
    with pytest.raises(ResultsFileError) as info:
        promptfoo.read(json.dumps(doc).encode())
    assert str(info.value) == message
    assert_one_message(info.value)


def test_looks_like():
    assert promptfoo.looks_like(json.loads(RESULTS))
    assert promptfoo.looks_like(json.loads(REPEAT))
    assert not promptfoo.looks_like(json.loads(fixture_bytes("inspect", "inspect_log.json")))
    assert not promptfoo.looks_like({"results": [{"id": 1, "output": "x"}]})
    assert not promptfoo.looks_like([{"results": {"results": []}}])
