"""Grader sensitivity: the A-versus-B difference under a ladder of graders, hand-checked."""

import math

import pytest

from graders.compare.comparison import CompareError
from graders.config import GraderConfig, suggest_mapping
from graders.explore.sensitivity import (
    FRAME_COLUMNS,
    LADDER,
    default_ladder,
    grader_dependence,
    ladder_order,
    sensitivity,
)
from graders.readers.files import read_results
from graders.scoring.rows import prepare
from graders.stats.binary import tango_interval


def prepared(lines):
    file = read_results(("id,expected,output,output_b\n" + "\n".join(lines) + "\n").encode())
    mapping = suggest_mapping(file.columns)
    return prepare(file, mapping, needs_expected=True), mapping


def test_case_only_difference_is_a_verdict_of_the_strict_graders():
    # 30 cases: A answers in capitals (X7 for x7), B exactly. Exact and contains (no
    # normalization) see A fail and B pass everywhere; normalized (trim, lower) and token
    # F1 (SQuAD, lowercases) see both pass; numeric has no numbers to judge.
    p, m = prepared([f"{i},x{i},X{i},x{i}" for i in range(30)])
    frame = sensitivity(p, m, resamples=500)
    assert tuple(frame.columns) == FRAME_COLUMNS
    assert list(frame["grader"]) == list(LADDER)
    rows = frame.set_index("grader")
    for g in ("exact", "contains"):
        r = rows.loc[g]
        assert (r["n"], r["mean_a"], r["mean_b"], r["mean_diff"]) == (30, 0.0, 1.0, -1.0)
        # Every case differs by -1: Tango's score interval (issue 34; a bootstrap one had no width).
        assert (r["ci_low"], r["ci_high"]) == tango_interval(0, 30, 30) and r["ci_low"] == -1.0
        # Exact McNemar, b = 0, c = 30: 2 * 0.5**30 = 2**-29.
        assert r["p_value"] == pytest.approx(2.0 ** -29, rel=1e-12)
        # Holm over the four finite p-values (numeric has none): 4 * 2**-29 for both.
        assert r["p_holm"] == pytest.approx(2.0 ** -27, rel=1e-12)
        assert r["reading"] == "B better"
    for g in ("normalized", "token_f1"):
        r = rows.loc[g]
        assert (r["mean_a"], r["mean_b"], r["mean_diff"], r["p_holm"]) == (1.0, 1.0, 0.0, 1.0)
        assert r["reading"] == "no difference"
    num = rows.loc["numeric"]
    assert num["n"] == 0 and math.isnan(num["mean_diff"]) and math.isnan(num["p_holm"])
    assert num["reading"] == "no pairs" and num["label"] == "Numeric (last number, ±1%)"
    assert grader_dependence(frame) == (
        "The verdict depends on the grader: B better under Exact match, Contains; "
        "no difference under Normalized match, Token F1; no pairs under Numeric (last number, ±1%)."
    )


def test_a_verdict_that_flips_with_the_grader():
    # A: "the x7" (an article added); B: "X7" (capitals). Exact: both fail. Normalized
    # (trim, lower): only B passes. Contains: only A contains "x7". Token F1 (SQuAD drops
    # articles and lowercases): both 1.
    p, m = prepared([f"{i},x{i},the x{i},X{i}" for i in range(30)])
    graders = [GraderConfig.make(n) for n in ("token_f1", "contains", "exact", "normalized")]
    frame = sensitivity(p, m, graders, resamples=500)
    assert list(frame["grader"]) == ["exact", "normalized", "contains", "token_f1"]  # ladder order
    assert dict(zip(frame["grader"], frame["reading"])) == {
        "exact": "no difference", "normalized": "B better", "contains": "A better", "token_f1": "no difference"}
    assert dict(zip(frame["grader"], frame["mean_diff"])) == {
        "exact": 0.0, "normalized": -1.0, "contains": 1.0, "token_f1": 0.0}
    assert grader_dependence(frame).startswith("The verdict flips with the grader: A better under Contains; "
                                               "B better under Normalized match;")


def test_noise_and_agreement_sentences():
    # 6 cases, one differs: nothing can be established.
    p, m = prepared(["1,a,b,a"] + [f"{i},x{i},x{i},x{i}" for i in range(2, 7)])
    frame = sensitivity(p, m, [GraderConfig.make("exact"), GraderConfig.make("contains")], resamples=500)
    assert list(frame["reading"]) == ["noise?", "noise?"]
    assert grader_dependence(frame) == "No grader shows a difference beyond noise."
    p, m = prepared([f"{i},x{i},x{i},y{i}" for i in range(30)])
    frame = sensitivity(p, m, [GraderConfig.make("exact"), GraderConfig.make("normalized")], resamples=500)
    assert grader_dependence(frame) == "Every grader agrees: A better (Exact match, Normalized match)."


def test_ladder_helpers_and_errors():
    assert [g.name for g in default_ladder()] == list(LADDER)
    assert default_ladder()[-1].resolved["read"] == "last"
    assert ladder_order(["bleu", "numeric", "exact", "chrf"]) == ["exact", "numeric", "bleu", "chrf"]
    file = read_results(b"id,expected,output,version\n1,a,a,v1\n2,a,a,v1\n")
    mapping = suggest_mapping(file.columns)
    with pytest.raises(CompareError, match="only one version"):
        sensitivity(prepare(file, mapping, needs_expected=True), mapping, resamples=200)
