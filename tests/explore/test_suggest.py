"""Compare's default metrics are those that apply to the file's data (issue 33, 5)."""

from __future__ import annotations

import pytest

from graders.explore.suggest import SAMPLE, applicable_graders

TEXT = ["exact", "normalized", "contains", "token_f1"]
LONG = TEXT + ["bleu", "rouge_l", "chrf"]
JSON = ["exact", "normalized", "valid_json", "json_fields"]

CASES = [
    # (expected, outputs, graders)
    (["Paris", "Berlin", "Rome"], ["Paris", "berlin", "Madrid"], TEXT),
    (["42", "3.5", "-7", "1,000"], ["42", "about 3.5", "x", "1000"], TEXT[:3] + ["numeric", "token_f1"]),
    (["The cat sat on the mat.", "A dog barked at the moon tonight."], ["The cat sat.", "A dog barked."], LONG),
    (['{"a": 1}', '{"b": [1, 2]}'], ['```json\n{"a": 1}\n```', '{"b": [2]}'], JSON),
    (["A", "B"], ['{"answer": "A"}', "[1, 2]"], ["exact", "normalized", "contains", "valid_json", "token_f1"]),  # SPEC order
    (None, ["free text", "more text"], ["exact", "normalized"]),
    (None, ['{"a": 1}', '{"a": 2}'], ["exact", "normalized", "valid_json"]),
    (["x", "", None], ["x", "y", "z"], TEXT),  # missing expected cells are not counted
    ([], [], ["exact", "normalized"]),
    (["true", "null"], ["true", "null"], TEXT),  # JSON scalars are not structured data
]


@pytest.mark.parametrize("expected, outputs, want", CASES)
def test_the_graders_that_apply(expected, outputs, want):
    assert list(applicable_graders(expected, outputs)) == want


def test_rows_without_an_output_are_passed_over_and_only_the_first_rows_read():
    expected = ['{"a": 1}'] * SAMPLE + ["Paris"] * (3 * SAMPLE)
    outputs = [""] * 5 + ['{"a": 1}'] * SAMPLE + ["Paris"] * (3 * SAMPLE - 5)
    assert list(applicable_graders(expected, outputs)) == JSON


def test_never_a_grader_that_needs_a_setting():
    got = applicable_graders(['{"a": 1}', "text of many words here"], ['{"a": 1}', "text of many words here"])
    assert "regex" not in got and "json_schema" not in got
