"""lm-evaluation-harness samples files written by lm-eval 0.4.13 (fixtures/lm_eval)."""

import json

import pytest
from harness_files import assert_one_message, fixture_bytes

from graders.readers import ResultsFileError, lm_eval

GSM8K = fixture_bytes("lm_eval", "samples_gsm8k_mini.jsonl")
ARC = fixture_bytes("lm_eval", "samples_arc_mini.jsonl")


def rows(result):
    return {(r["id"], r.get("version")): r for r in result.frame.to_dict("records")}


def test_gsm8k_columns():
    r = lm_eval.read(GSM8K)
    assert r.format == "lm-eval"
    assert r.columns == ("id", "version", "input", "expected", "output", "filter", "resps", "harness.exact_match",
                         "doc.question", "doc.answer", "doc_hash", "prompt_hash", "target_hash")
    assert r.records == (1, 2, 3, 4, 5, 6) and r.unreadable == ()
    for col in r.frame:
        assert all(v is None or type(v) is str for v in r.frame[col]), col


GSM8K_CELLS = [
    # (doc_id, filter = version, column, cell)
    ("0", "strict-match", "output", "7"),
    ("0", "strict-match", "harness.exact_match", "1.0"),
    ("0", "strict-match", "expected", "He has 3 + 4 = <<3+4=7>>7 apples.\n#### 7"),
    ("0", "strict-match", "input",
     "Question: Tom has 3 apples and buys 4 more. How many apples does he have?\nAnswer:"),
    ("0", "strict-match", "resps", '[[" Tom has 3 + 4 = 7 apples.\\n#### 7"]]'),
    ("0", "strict-match", "filter", "strict-match"),
    ("1", "strict-match", "output", "[invalid]"),  # the regex filter found no "#### n"
    ("1", "strict-match", "harness.exact_match", "0.0"),
    ("1", "flexible-extract", "output", "$36."),
    ("1", "flexible-extract", "harness.exact_match", "1.0"),
    ("2", "flexible-extract", "output", "2,400"),
    ("2", "flexible-extract", "doc.question",
     "Sara ran 1,200 meters on Monday and 1,300 on Tuesday. How far did she run?"),
]


@pytest.mark.parametrize("doc_id, version, column, cell", GSM8K_CELLS)
def test_gsm8k_cells(doc_id, version, column, cell):
    assert rows(lm_eval.read(GSM8K))[(doc_id, version)][column] == cell


ARC_CELLS = [
    # one filter ("none"): no version column
    ("0", "output", '[["-2.5","False"],["-1.25","False"],["-3.0","False"],["-4.0","False"]]'),
    ("0", "expected", "1"),
    ("0", "harness.acc", "1.0"),
    ("0", "harness.acc_norm", "1.0"),
    ("0", "doc.choices", '{"text":["oxygen","carbon dioxide","nitrogen","helium"],"label":["A","B","C","D"]}'),
    ("0", "doc.answerKey", "B"),
    ("1", "harness.acc", "0.0"),
    ("1", "doc.question", 'What is the boiling point of water at sea level, in degrees "Celsius"?'),
    ("1", "filter", "none"),
]


@pytest.mark.parametrize("doc_id, column, cell", ARC_CELLS)
def test_arc_cells(doc_id, column, cell):
    r = lm_eval.read(ARC)
    assert "version" not in r.columns
    assert rows(r)[(doc_id, None)][column] == cell


def test_unreadable_lines_and_blank_lines():
    lines = GSM8K.decode().split("\n")
    lines[1] = '{"doc_id": 1, "broken'
    lines.insert(3, "")
    lines.insert(4, "[1, 2]")
    r = lm_eval.read("\n".join(lines).encode())
    assert r.unreadable == ((2, "is not JSON (Unterminated string starting at at column 15)"),
                            (5, "is not a JSON object"))
    assert r.records == (1, 3, 6, 7, 8)


def test_older_line_shape():
    # lm-eval before the EvaluationTracker: arguments as [[context, gen_kwargs]], no
    # "metrics" list, no filter (every non-own field is a metric).
    line = {"doc_id": 4, "doc": {"q": "2+2?"}, "target": 4, "arguments": [["Q: 2+2?\nA:", {"until": ["\n"]}]],
            "resps": [["4"]], "filtered_resps": ["4"], "exact_match": 1.0, "f1": 0.5}
    r = lm_eval.read((json.dumps(line) + "\n").encode())
    row = r.frame.to_dict("records")[0]
    assert row["id"] == "4" and row["expected"] == "4" and row["output"] == "4"
    assert row["input"] == "Q: 2+2?\nA:"
    assert row["harness.exact_match"] == "1.0" and row["harness.f1"] == "0.5"
    assert row["filter"] is None


@pytest.mark.parametrize("data, message", [
    (b"\n\n", "the lm-eval samples file holds no samples"),
    (b"not json\n", "no readable samples in the lm-eval file (line 1 is not JSON)"),
    (b"\xff\n", "the lm-eval samples file is not UTF-8 text"),
])
def test_bad_files(data, message):
    with pytest.raises(ResultsFileError) as info:
        lm_eval.read(data)
    assert str(info.value).startswith(message)
    assert_one_message(info.value)


def test_looks_like_line():
    assert lm_eval.looks_like_line(json.loads(GSM8K.split(b"\n")[0]))
    assert not lm_eval.looks_like_line({"doc_id": 1, "output": "x"})
    assert not lm_eval.looks_like_line([1])
