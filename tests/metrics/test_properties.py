"""Invariants over every grader (hypothesis): scores in [0, 1], identical texts score 1,
an exact pass implies every pipeline passes, and no grader raises on any Unicode string."""

import re
import string

import pytest
import regex
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from graders import GRADER_NAMES, grade
from graders.registry import get_spec
from graders.text import normalize as text
from graders.text import show
from graders.text.tokenizer_13a import tokens_13a

OVERLAP = ("token_f1", "bleu", "rouge_l", "chrf")
PARAMS = {"regex": {"pattern": "a|b", "timeout": 2.0}, "json_schema": {"schema": {"type": "object"}}}
PIPELINES = [["trim"], ["lower"], ["nfc"], ["nfkc"], ["collapse_whitespace"], ["remove_punctuation"],
             ["remove_articles"], ["strip_trailing_punctuation"], ["strip_quotes"], "squad", ["trim", "lower"], []]

# Any code point, lone surrogates and NUL included.
any_char = st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)
texts = st.text(alphabet=any_char, max_size=60) | st.sampled_from(["", " ", "\x00", "\ud800", "😀", "a\u0301", "the", "1,234.5"])
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(texts, texts, st.sampled_from(GRADER_NAMES))
def test_no_grader_raises_and_scores_stay_in_range(expected, output, name):
    g = grade(name, expected=expected, output=output, **PARAMS.get(name, {}))
    assert g.status in ("pass", "fail", "not_judged", "error", "scored")
    if g.score is not None:
        assert 0.0 <= g.score <= 1.0
    if g.status in ("not_judged", "error"):
        assert g.score is None and g.passed is None
    assert isinstance(g.explanation, str) and g.explanation


@FAST
@given(st.text(alphabet=any_char, min_size=1, max_size=80), st.sampled_from(OVERLAP))
@example("<skipped>", "bleu")
@example(" \x1c\u2028", "bleu")
@example("-\n", "bleu")
def test_identical_texts_score_one(s, name):
    g = grade(name, expected=s, output=s)
    if g.status == "not_judged":
        return
    if name == "rouge_l" and not regex.search(r"[\p{L}\p{N}]", s.lower()):
        return  # no tokens on either side: ROUGE-L is 0 by definition (one side empty)
    if name == "bleu" and not tokens_13a(s):
        return  # 13a leaves no token (whitespace only, or "<skipped>"): sacrebleu gives 0
    if name == "chrf" and not "".join(s.split()):
        return
    assert g.score == pytest.approx(1.0), (s, g.explanation)


@FAST
@given(texts, st.sampled_from(PIPELINES))
def test_exact_pass_implies_every_pipeline_passes(s, pipeline):
    assert grade("exact", expected=s, output=s).passed
    assert grade("normalized", expected=s, output=s, pipeline=pipeline).passed


@pytest.mark.parametrize("name", GRADER_NAMES)
def test_a_million_characters(name):
    big = ("lorem ipsum dolor sit amet, " * 40000)[:1_000_000]
    g = grade(name, expected="lorem ipsum", output=big, **PARAMS.get(name, {}))
    assert g.status in ("pass", "fail", "not_judged", "error", "scored")


@pytest.mark.parametrize("name", GRADER_NAMES)
def test_no_expected_is_not_judged_where_the_grader_needs_one(name):
    """expected=None (a harness's missing answer) or [] is no reference: not judged by a
    grader that needs one, graded as usual by regex and valid_json, never an exception."""
    from graders.registry import REGISTRY

    for expected in (None, []):
        g = grade(name, expected=expected, output='{"a": 1}', **PARAMS.get(name, {}))
        assert g.status == "not_judged" if REGISTRY[name].uses_expected else g.status != "not_judged", (name, g)


@FAST
@given(st.lists(st.sampled_from(list(text.WHITESPACE) + ["a", "b", "é", "_", "!", ".", "—"])).map("".join) | texts)
def test_fast_whitespace_steps_equal_the_regex(s):
    assert text.collapse_whitespace(s) == re.sub(r"\s+", " ", s)
    assert text.underscore_join(s) == re.sub(r"\s+", "_", s)
    assert text.remove_punctuation(s) == s.translate(str.maketrans("", "", string.punctuation))


def test_registry_is_the_one_list():
    for name in GRADER_NAMES:
        spec = get_spec(name)
        assert spec.label and spec.summary
        if not spec.binary:
            assert "threshold" in spec.param_names


ascii_parts = st.sampled_from(["Paris", "paris", "PARIS", " ", "  ", "\t", "\n", "_", ".", "!", '"', "'", "`", "a", "the", "x_y", "\x1c"])
ascii_texts = st.lists(ascii_parts, max_size=8).map("".join)


@settings(max_examples=400, deadline=None)
@given(ascii_texts, ascii_texts, st.sampled_from(["exact", "normalized", "contains"]))
def test_probe_screen_never_hides_a_near_miss(expected, output, name):
    from graders.metrics import nearmiss
    from graders.metrics.contains import check_many as contains_check
    from graders.metrics.exact import check_many as exact_check
    from graders.metrics.normalized import check_many as normalized_check

    refs, outs = [(expected,)], [output]
    if name == "exact":
        full = nearmiss.probe_many(exact_check, refs, outs)
        screened = nearmiss.probe_many(exact_check, refs, outs, screen=nearmiss.screen_equal_many)
    elif name == "normalized":
        p = ("trim", "lower", "collapse_whitespace", "strip_quotes", "strip_trailing_punctuation", "nfkc")
        full = nearmiss.probe_many(normalized_check, refs, outs, pipeline=p)
        screened = nearmiss.probe_many(normalized_check, refs, outs, screen=nearmiss.screen_equal_many, pipeline=p)
    else:
        full = nearmiss.probe_many(contains_check, refs, outs, require="any", at="anywhere")
        screened = nearmiss.probe_many(contains_check, refs, outs, screen=lambda r, o: nearmiss.screen_contains_many(r, o, "any"),
                                       require="any", at="anywhere")
    assert full == screened


@FAST
@given(st.lists(st.tuples(texts, texts), max_size=40), st.integers(0, 3))
def test_first_differences_over_a_column_equal_the_pairwise_search(pairs, limit_power):
    # The column form compares short pairs as code-point arrays in blocks; a small vector
    # limit and block sends pairs through both paths and across block boundaries.
    pairs = [(a, b if a != b else b + "x") for a, b in pairs]
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    expected = [show.first_difference(x, y) for x, y in pairs]
    assert show.first_differences(a, b) == expected
    old = show._VECTOR_MAX, show._BLOCK_POINTS
    try:
        show._VECTOR_MAX, show._BLOCK_POINTS = 4 ** limit_power, 4 ** limit_power * 3
        assert show.first_differences(a, b) == expected
    finally:
        show._VECTOR_MAX, show._BLOCK_POINTS = old


column_texts = st.lists(ascii_texts | st.sampled_from(["a\x00b", "\x00", "", "é", "Ünïcode"]) | texts, max_size=30)


@FAST
@given(column_texts, column_texts, st.sampled_from(["any", "all"]), st.booleans())
def test_column_screens_equal_the_pairwise_screens(a, b, require, several):
    from graders.metrics import nearmiss

    n = min(len(a), len(b))
    outs = b[:n]
    refs = [(x, x.upper()) if several and i % 2 else (x,) for i, x in enumerate(a[:n])]
    assert nearmiss.ascii_keys(a) == [nearmiss.ascii_key(x) for x in a]
    assert nearmiss.screen_equal_many(refs, outs) == [nearmiss.screen_equal(r, o) for r, o in zip(refs, outs)]
    assert nearmiss.screen_contains_many(refs, outs, require) == [
        nearmiss.screen_contains(r, o, require) for r, o in zip(refs, outs)
    ]


@FAST
@given(texts, st.integers(0, 80))
def test_the_explanations_window_is_the_snippet(s, at):
    from graders.metrics.exact import _window

    at = min(at, len(s))
    if not (len(s) <= 20 and s.isprintable()):
        assert _window(s, at) == show.snippet(s, at)
