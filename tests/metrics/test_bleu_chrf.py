"""BLEU and chrF against sacrebleu itself (a test dependency only, never imported by
graders/): the 13a tokenizer, sentence scores on generated and hand-written pairs through
both statistics paths (dicts and packed numpy keys), and the corpus figures. Equal to
1e-9 throughout."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from graders import corpus_bleu, corpus_chrf, grade
from graders._testing import pairs
from graders.metrics import bleu, chrf
from graders.text.tokenizer_13a import tokenize_13a

TOL = 1e-9
SB_13A = Tokenizer13a()
PAIRS = list(pairs(6000, seed=20240601))


def sb_bleu(refs, out):
    return sacrebleu.sentence_bleu(out, list(refs)).score / 100


def sb_chrf(refs, out):
    return sacrebleu.sentence_chrf(out, list(refs)).score / 100


def streams(rows):
    """sacrebleu's reference streams for rows of references; a shorter row pads with None
    (sacrebleu drops a None reference, while "" is a reference of length 0)."""
    k = max(len(r) for r in rows)
    return [[r[j] if j < len(r) else None for r in rows] for j in range(k)]


def mismatches(name, reference, items):
    return [(r, o) for r, o in items if abs(grade(name, r, o).score - reference(r, o)) > TOL]


# --- the 13a tokenizer ---------------------------------------------------------------

TOKENIZED = [
    ("refund-status is open", "refund-status is open"),  # a hyphen between letters stays
    ("x-5", "x-5"),
    ("5-x", "5 - x"),  # split after a digit
    ("snake_case __init__", "snake _ case _ _ init _ _"),  # underscore is a symbol
    ("1,234.5 and 1,234,567.89,", "1,234.5 and 1,234,567.89 ,"),
    ("It costs $42.00.", "It costs $ 42.00 ."),
    ("1.5 a.5 5.x", "1.5 a . 5 5 . x"),
    ("a..5", "a . .5"),  # sacrebleu's non-overlapping matches leave the last mark on the 5
    ("1..5", "1 . . 5"),
    ("a...5", "a . . . 5"),
    ("1...5", "1 . . .5"),
    ("e.g., U.S.A.", "e . g . , U . S . A ."),
    ("don't", "don't"),
    ("&quot;hi&quot; &amp;lt; &gt;", '" hi " < >'),
    ("re-\nenter<skipped> now\nthen", "reenter now then"),
    ("Zürich\u00a0東京\u3000😀", "Zürich 東京 😀"),
    ("!!! ??? ...", "! ! ! ? ? ? . . ."),
    ("", ""),
]


@pytest.mark.parametrize("text, tokens", TOKENIZED)
def test_tokenizer_13a_table(text, tokens):
    assert tokenize_13a(text) == tokens == SB_13A(text)


def test_tokenizer_13a_matches_sacrebleu_on_adversarial_strings():
    rng = random.Random(13)
    alphabets = ["1.,", "1.,a -", "12.,-_ (a)", ".,1\n-&;<>", "".join(map(chr, range(32, 127))) + "\n\t\u00a0"]
    bad = []
    for alphabet in alphabets:
        for _ in range(4000):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))).rstrip()
            if tokenize_13a(s) != SB_13A(s):
                bad.append(s)
    assert not bad, bad[:5]


def test_tokenizer_13a_matches_sacrebleu_on_generated_text():
    lines = [s.rstrip() for refs, out in PAIRS[:2000] for s in (out, *refs)]
    assert [tokenize_13a(s) for s in lines] == [SB_13A(s) for s in lines]


# --- sentence scores -------------------------------------------------------------------


def test_sentence_bleu_golden():
    bad = mismatches("bleu", sb_bleu, PAIRS)
    assert not bad, bad[:3]


def test_sentence_chrf_golden():
    bad = mismatches("chrf", sb_chrf, PAIRS)
    assert not bad, bad[:3]


@pytest.mark.parametrize("module, reference, name", [(bleu, sb_bleu, "bleu"), (chrf, sb_chrf, "chrf")])
@pytest.mark.parametrize("pack_from", [0, 10**9], ids=["packed", "dicts"])
def test_both_statistics_paths(monkeypatch, module, reference, name, pack_from):
    # Packed keys (numpy) for long texts, dicts for short: force each path on every size.
    monkeypatch.setattr(module, "PACK_FROM", pack_from)
    module.clear_caches()
    items = PAIRS[:700] + [p for p in PAIRS if len(p[1]) > 400][:300]
    try:
        assert not mismatches(name, reference, items)
    finally:
        module.clear_caches()


HAND = {
    "identical": (["the cat sat on the mat"], "the cat sat on the mat"),
    "empty output": (["the cat sat on the mat"], ""),
    "empty reference": ([""], "the cat"),
    "both empty": ([""], ""),
    "whitespace only": ([" \t\n"], "\u00a0"),
    "one token": (["a b c d"], "a"),
    "no match": (["alpha beta"], "gamma delta"),
    "punctuation only": (["!!! ??? ..."], "..."),
    "numbers with commas and periods": (["It costs 1,234.56 dollars."], "It costs $1,234.56."),
    "hyphen between letters": (["refund-status is open"], "refund status is open"),
    "underscores": (["snake_case value"], "snake case value"),
    "non-ASCII": (["Zürich straße 東京 😀 👍🏽"], "Zurich strasse 東京 😀"),
    "combining marks": (["e\u0301clair"], "éclair"),
    "several references": (["the quick brown fox", "a fast brown fox", "the quick fox"], "the fast brown fox"),
    "closest length ties to the shorter": (["a b", "a b c d"], "a b c"),
    "output equals the second reference": (["x y z", "the cat sat"], "the cat sat"),
    "lone surrogate and NUL": (["a\ud800 b\x00c"], "a\ud800 b\x00"),
    "trailing whitespace": (["the end\n"], "the end  "),
    "html entities": (["&amp; &lt;b&gt;"], "& <b>"),
    "only <skipped> (13a leaves no token)": (["<skipped>"], "<skipped>"),
    "a C0 separator is whitespace": (["\x1c a \x1f"], "a"),
}


@pytest.mark.parametrize("refs, out", HAND.values(), ids=HAND.keys())
def test_hand_cases(refs, out):
    assert abs(grade("bleu", refs, out).score - sb_bleu(refs, out)) <= TOL
    assert abs(grade("chrf", refs, out).score - sb_chrf(refs, out)) <= TOL


def test_bleu_closest_reference_length_tie_goes_to_the_shorter():
    g = grade("bleu", ["a b", "a b c d"], "a b c")
    assert g.details["ref_len"] == 2 and g.details["hyp_len"] == 3


def test_identical_texts_score_one_and_blank_texts_zero():
    for text in ("Paris", "The refund is $42.00.", "東京 😀"):
        assert grade("bleu", text, text).score == 1.0
        assert grade("chrf", text, text).score == 1.0
    # As in sacrebleu: nothing to match is a score of 0, even against an equal blank text.
    for text in ("", " ", "\n"):
        assert grade("bleu", text, text).score == 0.0
        assert grade("chrf", text, text).score == 0.0


def test_chrf_takes_the_best_reference_first_on_a_tie():
    g = grade("chrf", ["zzz", "the cat", "the cat"], "the cat")
    assert g.details["best_reference"] == 1 and g.score == 1.0
    assert "reference 2 of 3" in g.explanation


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(alphabet=st.characters(exclude_categories=()), max_size=40), min_size=1, max_size=3),
    st.text(alphabet=st.characters(exclude_categories=()), max_size=40),
)
def test_any_unicode_text_scores_in_range_and_as_sacrebleu(refs, out):
    for name, reference in (("bleu", sb_bleu), ("chrf", sb_chrf)):
        score = grade(name, refs, out).score
        assert 0.0 <= score <= 1.0
        assert abs(score - reference(refs, out)) <= TOL


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(alphabet="ab1.,-_ $\n", max_size=30), min_size=1, max_size=3),
    st.text(alphabet="ab1.,-_ $\n", max_size=30),
)
def test_punctuation_heavy_text_scores_as_sacrebleu(refs, out):
    assert abs(grade("bleu", refs, out).score - sb_bleu(refs, out)) <= TOL
    assert abs(grade("chrf", refs, out).score - sb_chrf(refs, out)) <= TOL


def test_a_million_characters():
    text = ("the refund status is pending for order 1,234.5; " * 21000)[:10**6]
    for name in ("bleu", "chrf"):
        assert grade(name, text, text[::-1]).score < 0.5
        assert grade(name, text, text[: 5 * 10**5]).score > 0.3


def test_large_alphabets_fall_back_to_dicts():
    rng = random.Random(3)
    ref = "".join(chr(0x4E00 + rng.randrange(20000)) for _ in range(3000))  # > 1446 distinct characters
    out = ref[:1500] + "".join(chr(0x4E00 + rng.randrange(20000)) for _ in range(1500))
    assert abs(grade("chrf", ref, out).score - sb_chrf([ref], out)) <= TOL
    words = [f"w{i}" for i in range(56000)]  # more distinct tokens than 4-token int64 keys hold
    ref, out = " ".join(words), " ".join(words[:30000] + words[40000:])
    assert abs(grade("bleu", ref, out).score - sb_bleu([ref], out)) <= TOL


def _column_equals_rows(name, rows, threshold=None):
    from graders.config import GraderConfig
    from graders.scoring.batch import grade_column

    params = {} if threshold is None else {"threshold": threshold}
    block = grade_column(GraderConfig.make(name, params), [tuple(r) for r, _ in rows], [o for _, o in rows])
    for i, (refs, out) in enumerate(rows):
        want, got = grade(name, list(refs), out, **params), block.grade(i)
        assert (got.status, got.passed, got.score, got.explanation, got.near_miss, dict(got.details)) == (
            want.status, want.passed, want.score, want.explanation, want.near_miss, dict(want.details)), (refs, out)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.text(alphabet=st.characters(exclude_categories=()), max_size=30), min_size=1, max_size=3),
            st.text(alphabet=st.characters(exclude_categories=()), max_size=30),
        ),
        max_size=12,
    ),
    st.sampled_from([None, 0.3, 0.6]),
)
def test_column_form_equals_grade_on_any_text(rows, threshold):
    # The column forms count every row's n-grams at once; grade() counts one row's.
    for name in ("chrf", "bleu"):
        _column_equals_rows(name, rows, threshold)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 0x10FFFF), max_size=60) | st.lists(st.integers(0, 50), max_size=60))
def test_dense_ranks_are_uniques_inverse_plus_one(values):
    import numpy as np

    from graders.text.ngrams import dense_ranks

    for dtype in (np.int64, np.uint32):
        a = np.asarray(values, dtype=dtype)
        want = np.unique(a, return_inverse=True)[1].astype(np.int64) + 1
        got = dense_ranks(a)
        assert got.dtype == np.int64 and got.tolist() == want.tolist()


@pytest.mark.parametrize("key_limit", [2**62, 2**16], ids=["direct keys", "ranked keys"])
def test_column_form_equals_grade_on_generated_pairs(monkeypatch, key_limit):
    import graders.text.ngrams

    monkeypatch.setattr(graders.text.ngrams, "_KEY_LIMIT", key_limit)
    rows = PAIRS[:1500] + list(HAND.values()) + [(["", "the cat"], "a cat"), (["東京 タワー"] * 2, "東京"), ([], "no reference")]
    for name in ("chrf", "bleu"):
        _column_equals_rows(name, rows, threshold=0.5)


# --- explanations and details ----------------------------------------------------------


def test_signatures_state_the_settings():
    g = grade("bleu", ["a b", "a c"], "a b")
    assert g.details["signature"] == "bleu|nrefs:2|case:mixed|eff:yes|tok:13a|smooth:exp"
    c = grade("chrf", "a b", "a b")
    assert c.details["signature"] == "chrf|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|beta:2"
    for grade_ in (g, c):
        assert grade_.details["signature"] in grade_.explanation


def test_bleu_explanation_and_details():
    g = grade("bleu", "The refund is $42.00.", "The refund is 42 dollars.")
    assert g.status == "scored" and g.passed is None
    assert g.details["correct"] == (4, 2, 1, 0) and g.details["total"] == (6, 5, 4, 3)
    assert g.details["hyp_len"] == g.details["ref_len"] == 6 and g.details["brevity_penalty"] == 1.0
    assert "precisions 4/6, 2/5, 1/4, 0/3" in g.explanation and "exp-smoothed" in g.explanation
    assert f"BLEU {g.score:.4f}" in g.explanation
    assert "no tokens" in grade("bleu", "a", "").explanation
    assert "no output token matches" in grade("bleu", "a", "b").explanation


def test_chrf_explanation_and_details():
    g = grade("chrf", "The refund is $42.00.", "The refund is 42 dollars.")
    assert g.details["effective_orders"] == 6 and len(g.details["stats"]) == 18
    assert f"chrF {g.score:.4f}" in g.explanation and "recall" in g.explanation
    assert "output has no characters" in grade("chrf", "a", " ").explanation
    assert "reference has no characters" in grade("chrf", " ", "a").explanation
    assert "averaged over 6 orders" in g.explanation
    assert "recall 1.000, of order 1 alone." in grade("chrf", "a", "a").explanation  # not "over 1 orders"


def test_threshold_and_near_miss():
    g = grade("bleu", "The refund is $42.00.", "The refund is 42 dollars.", threshold=0.4)
    assert g.status == "fail" and g.near_miss == ("below_threshold",)
    assert grade("chrf", "abc", "abc", threshold=1.0).status == "pass"


# --- corpus figures --------------------------------------------------------------------


@pytest.mark.parametrize("seed, max_refs", [(1, 1), (2, 1), (3, 3), (4, 3)])
def test_corpus_figures(seed, max_refs):
    data = list(pairs(700, seed=seed, max_refs=max_refs))
    outs, refs = [o for _, o in data], [r for r, _ in data]
    assert abs(corpus_bleu(outs, refs) - sacrebleu.corpus_bleu(outs, streams(refs)).score / 100) <= TOL
    assert abs(corpus_chrf(outs, refs) - sacrebleu.corpus_chrf(outs, streams(refs)).score / 100) <= TOL


def test_corpus_figures_with_empty_references_and_single_strings():
    outs = ["the cat sat", "a dog", "", "refund-status is open."]
    rows = [["the cat sat on the mat", ""], "a dog barked", ["x", "y", "z"], ["refund-status is open"]]
    listed = [[r] if isinstance(r, str) else r for r in rows]
    assert abs(corpus_bleu(outs, rows) - sacrebleu.corpus_bleu(outs, streams(listed)).score / 100) <= TOL
    assert abs(corpus_chrf(outs, rows) - sacrebleu.corpus_chrf(outs, streams(listed)).score / 100) <= TOL


def test_corpus_bleu_has_no_effective_order():
    # Two tokens have no 3- or 4-grams: the sentence figure uses orders 1-2, the corpus 0.
    assert grade("bleu", "a b", "a b").score == 1.0
    assert corpus_bleu(["a b"], [["a b"]]) == 0.0 == sacrebleu.corpus_bleu(["a b"], [["a b"]]).score


def test_corpus_input_errors():
    assert corpus_bleu([], []) == 0.0 and corpus_chrf([], []) == 0.0  # sacrebleu raises here
    with pytest.raises(ValueError, match="2 outputs but 1 row of references"):
        corpus_bleu(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="row 1 has no reference"):
        corpus_chrf(["a", "b"], [["a"], []])


@pytest.mark.parametrize("corpus", [corpus_bleu, corpus_chrf])
@pytest.mark.parametrize("outputs, references, message", [
    ("abc", ["abc"] * 3, "outputs must be a list with one entry per row, not str"),  # not three rows "a", "b", "c"
    (["x y"], "x y", "references must be a list with one entry per row, not str"),
    (["a"], None, "references must be a list with one entry per row, not NoneType"),
    ([None], [["a"]], r"outputs\[0\] must be a str, not NoneType"),
    (["a", 1], ["a", "b"], r"outputs\[1\] must be a str, not int"),
    (["a"], [["a", 1]], r"references\[0\]\[1\] must be a str, not int"),
    (["a"], [{"a"}], r"references\[0\] must be a str or a list of str, not set"),
    (["a", "b"], [["a", "b"]], "2 outputs but 1 row of references .*sacrebleu takes reference streams"),  # sacrebleu's layout
])
def test_corpus_input_errors_name_the_value(corpus, outputs, references, message):
    with pytest.raises(ValueError, match=f"^{corpus.__name__}: {message}"):
        corpus(outputs, references)


@pytest.mark.parametrize("corpus", [corpus_bleu, corpus_chrf])
def test_corpus_takes_any_sequence_of_rows(corpus):
    outs, rows = ["the cat sat on the mat", "a dog barked"], [["the cat sat on a mat"], ["a dog barked loudly", "the dog"]]
    want = corpus(outs, rows)
    assert corpus(tuple(outs), tuple(map(tuple, rows))) == want
    assert corpus(pd.Series(outs), pd.Series(rows)) == want
    assert corpus(iter(outs), (r for r in rows)) == want
    assert corpus(np.array(outs), [np.array(r) for r in rows]) == want
    assert corpus(np.array(outs), np.array([r[0] for r in rows])) == corpus(outs, [r[0] for r in rows])
