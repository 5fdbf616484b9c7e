"""graders.explore.preview: the normalizer builder's figures agree with the graders themselves."""

from __future__ import annotations

import pytest

from graders import grade
from graders._testing import pairs
from graders.explore.preview import effect_examples, order_notes, pipeline_effect, preview_pairs, step_effects
from graders.text.normalize import DEFAULT_PIPELINE, SQUAD_PIPELINE, compose

DATA = list(pairs(400, seed=21))
REFS = [refs for refs, _ in DATA]
OUTS = [out for _, out in DATA]


def test_preview_pairs_verdicts_are_the_graders():
    expected = ["Paris", "the cat", "a", "x"]
    outputs = [" paris\n", "The Cat.", "A", "x"]
    table = preview_pairs(expected, outputs, SQUAD_PIPELINE)
    assert table["expected_normalized"].tolist() == [compose(SQUAD_PIPELINE)(e) for e in expected]
    assert table["exact"].tolist() == [grade("exact", expected=e, output=o).passed for e, o in zip(expected, outputs)]
    assert table["normalized"].tolist() == [
        grade("normalized", expected=e, output=o, pipeline="squad").passed for e, o in zip(expected, outputs)
    ]


@pytest.mark.parametrize("steps", [DEFAULT_PIPELINE, SQUAD_PIPELINE, ("nfkc", "strip_quotes"), ()])
def test_pipeline_effect_partitions_the_exact_fails(steps):
    effect = pipeline_effect(REFS, OUTS, steps)
    assert effect.rows == len(OUTS) and effect.exact_passes + effect.exact_fails == effect.rows
    assert effect.turned + effect.still_failing == effect.exact_fails
    for i in effect.turned_rows:
        assert not grade("exact", expected=REFS[i], output=OUTS[i]).passed
        assert grade("normalized", expected=REFS[i], output=OUTS[i], pipeline=list(steps)).passed
    for i in effect.still_rows:
        assert not grade("normalized", expected=REFS[i], output=OUTS[i], pipeline=list(steps)).passed
    if not steps:
        assert effect.turned == 0


def test_examples_show_the_reference_that_now_matches():
    refs = [("nope", "Paris"), ("x",)]
    outs = ["PARIS ", "y"]
    effect = pipeline_effect(refs, outs, DEFAULT_PIPELINE)
    assert effect.turned_rows.tolist() == [0] and effect.still_rows.tolist() == [1]
    ex = effect_examples(refs, outs, effect.turned_rows, DEFAULT_PIPELINE)
    assert ex.to_dict("records") == [{"position": 0, "expected": "Paris", "output": "PARIS ",
                                      "expected_normalized": "paris", "output_normalized": "paris"}]
    still = effect_examples(refs, outs, effect.still_rows, DEFAULT_PIPELINE)
    assert still["expected"].tolist() == ["x"]


def test_step_effects():
    effect = pipeline_effect(REFS, OUTS, SQUAD_PIPELINE)
    table = step_effects(REFS, OUTS, SQUAD_PIPELINE)
    assert table["step"].tolist() == list(SQUAD_PIPELINE)
    for _, row in table.iterrows():
        alone = pipeline_effect(REFS, OUTS, (row["step"],)).turned
        assert row["turned_alone"] == alone
        without = tuple(s for k, s in enumerate(SQUAD_PIPELINE) if k != row["position"] - 1)
        still = set(pipeline_effect(REFS, OUTS, without).turned_rows.tolist())
        assert row["lost_without_it"] == len(set(effect.turned_rows.tolist()) - still)


def test_mismatched_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        pipeline_effect([("a",)], ["a", "b"], DEFAULT_PIPELINE)


@pytest.mark.parametrize("steps, fragment", [
    (("remove_articles", "lower"), "capitalised “The”"),
    (("lower", "nfkc"), "can bring capitals back"),
    (("strip_trailing_punctuation", "trim"), "keeps its period"),
    (("strip_quotes", "trim"), "keeps its quotes"),
    (("remove_punctuation", "strip_quotes"), "already removed"),
    (("nfc", "nfkc"), "nfc adds nothing"),
    (("lower", "remove_articles"), "leaves a space"),
])
def test_order_notes(steps, fragment):
    assert any(fragment in note for note in order_notes(steps))


def test_presets_need_no_notes():
    assert order_notes(SQUAD_PIPELINE) == [] and order_notes(DEFAULT_PIPELINE) == []
    assert order_notes(("nfkc", "lower")) == []
