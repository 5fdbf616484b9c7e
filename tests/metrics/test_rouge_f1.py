"""ROUGE-L and token F1: tables of real cases, golden comparisons, properties.

References, called directly: rouge_score's ``RougeScorer(["rougeL"])`` (on ASCII text,
where its tokenizer is ours) and the SQuAD v1.1 evaluation script's ``normalize_answer``
and ``f1_score``, reproduced verbatim below.
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from fractions import Fraction

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer
from rouge_score import tokenize as rouge_tokenize

from graders import grade
from graders._testing import pairs
from graders.metrics.rouge_l import MAX_CELLS, lcs_length
from graders.metrics.rouge_l import tokenize as rouge_tokens
from graders.metrics.token_f1 import _bag, common_count
from graders.metrics.token_f1 import tokenize as f1_tokens
from graders.text.normalize import squad_normalize

GOLDEN_PAIRS = 5_000
TOL = 1e-9


from squad_v11 import f1_score, normalize_answer  # noqa: E402  (the script, verbatim)


def squad_v2_f1(prediction: str, ground_truth: str) -> float:
    """The script's f1_score, except both sides empty after normalization scores 1."""
    if not normalize_answer(prediction) and not normalize_answer(ground_truth):
        return 1.0
    return f1_score(prediction, ground_truth)


SCORER = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_reference(refs, output: str) -> float:
    return max(SCORER.score(target=r, prediction=output)["rougeL"].fmeasure for r in refs)


def to_ascii(s: str) -> str:
    """ASCII text near ``s``: compatibility-decomposed, then non-ASCII dropped."""
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode("ascii")


def dp_lcs(a, b) -> int:
    """The textbook dynamic-programming LCS, the definition lcs_length must meet."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=200)  # surrogates included
ASCII_TEXT = st.text(st.characters(max_codepoint=127), max_size=120)


# --- token_f1: tables -------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, output, params, score",
    [
        ("Canberra", "Canberra is the capital", {}, 0.5),  # seed 004: precision 1/3, recall 1
        ("the", "a", {}, 1.0),  # seed 000: both empty after normalization
        ("The Eiffel Tower.", "eiffel tower", {}, 1.0),  # seed 004's normalization example
        ("The answer is 4.", "answer is 4", {}, 1.0),
        ("red red blue", "red blue blue", {}, 2 / 3),  # clipped counts
        (["Lyon", "Paris, France"], "paris", {}, 2 / 3),  # best reference
        ("x", "", {}, 0.0),
        ("", "x", {}, 0.0),
        ("café", "cafe", {}, 0.0),  # accents are not normalized
        ("a—b", "b", {}, 0.0),  # "—" is not ASCII punctuation: the article a goes, "—b" stays
        ("The Eiffel Tower.", "eiffel tower", {"normalize": "none"}, 0.0),
        ("Eiffel Tower", "Eiffel  Tower\n", {"normalize": "none"}, 1.0),
        ("", " \u00a0\u3000", {"normalize": "none"}, 1.0),  # both empty: no tokens
        ("the", "a", {"normalize": "none"}, 0.0),
    ],
)
def test_token_f1_table(expected, output, params, score):
    g = grade("token_f1", expected=expected, output=output, **params)
    assert g.status == "scored" and g.passed is None
    assert g.score == pytest.approx(score, abs=TOL)


def test_token_f1_explanation_and_details():
    g = grade("token_f1", expected="Canberra", output="Canberra is the capital")
    sig = "token_f1|nrefs:1|norm:squad|split:whitespace29"
    assert "1 token in common" in g.explanation and "precision 1/3" in g.explanation
    assert "recall 1/1" in g.explanation and sig in g.explanation
    assert g.details == {
        "signature": sig, "precision": 1 / 3, "recall": 1.0, "common": 1,
        "output_tokens": 3, "reference_tokens": 1, "best_reference": 0,
    }
    g = grade("token_f1", expected=["x", "Paris, France"], output="paris", normalize="none")
    assert g.details["signature"] == "token_f1|nrefs:2|norm:none|split:whitespace29"
    assert "both" not in g.explanation
    g = grade("token_f1", expected="the", output="a")
    assert "empty after SQuAD normalization" in g.explanation and "SQuAD v2" in g.explanation


def test_token_f1_threshold_and_fail_explanation():
    assert grade("token_f1", "Canberra", "Canberra is the capital", threshold=0.5).status == "pass"
    g = grade("token_f1", "Canberra is the capital", "Canberra, the capital city", threshold=0.75)
    assert g.status == "fail" and g.near_miss == ("below_threshold",)  # 2/3
    assert "Reference tokens the output lacks: “is”" in g.explanation
    assert "Output tokens the reference lacks: “city”" in g.explanation
    g = grade("token_f1", "Canberra", "Canberra is the capital", threshold=0.8)
    assert g.status == "fail" and g.near_miss is None


def test_token_f1_fail_explanation_shows_invisible_and_long_tokens():
    ref = "alpha\u200bbeta " + "x" * 50 + " " + " ".join(f"w{i}" for i in range(20))
    g = grade("token_f1", ref, "\ud800 zzz", threshold=1.0)
    assert "U+200B" in g.explanation and "x" * 30 + "…" in g.explanation
    assert "and 14 more" in g.explanation and "⟨U+D800⟩" in g.explanation
    g.explanation.encode("utf-8")  # no lone surrogate left in the text


def test_token_f1_unknown_normalize():
    with pytest.raises(ValueError, match="'squad', 'none'"):
        grade("token_f1", "a", "a", normalize="nfkc")


def test_token_f1_both_empty_differs_from_the_v1_script():
    # The v1.1 script returns 0 when nothing is shared, even with both sides empty.
    for expected, output in [("the", "a"), ("", ""), ("...", "An!"), ("", " ")]:
        assert f1_score(output, expected) == 0
        assert grade("token_f1", expected, output).score == 1.0


# --- token_f1: golden ---------------------------------------------------------------------


def test_token_f1_golden_against_squad_script():
    both_empty = 0
    for refs, out in pairs(GOLDEN_PAIRS, seed=11):
        expected = max(squad_v2_f1(out, r) for r in refs)
        assert grade("token_f1", refs, out).score == pytest.approx(expected, abs=TOL), (refs, out)
        both_empty += any(not normalize_answer(r) and not normalize_answer(out) for r in refs)
    assert both_empty > 0  # the convention case is in the sample


def test_token_f1_tokens_golden():
    for refs, out in pairs(GOLDEN_PAIRS, seed=12):
        for s in (out, *refs):
            assert f1_tokens(s) == normalize_answer(s).split() == squad_normalize(s).split()


# --- rouge_l: tables ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("Don't stop: 3.14 and 1,234!", ["don", "t", "stop", "3", "14", "and", "1", "234"]),
        ("x_1 snake_case refund-status", ["x", "1", "snake", "case", "refund", "status"]),
        ("Café Zürich São Paulo", ["café", "zürich", "são", "paulo"]),
        ("naïve—coöperate «façade»", ["naïve", "coöperate", "façade"]),
        ("東京タワー 北京", ["東京タワー", "北京"]),  # no spaces in CJK: one token per run
        ("ＡＢＣ１２３", ["ａｂｃ１２３"]),  # full-width letters and digits
        ("Straße ΟΔΟΣ Москва", ["straße", "οδος", "москва"]),  # str.lower, final sigma
        ("٣ ½ Ⅻ", ["٣", "½", "ⅻ"]),  # every \p{N}: Nd, No, Nl
        ("😀 👍🏽 🇫🇷 — … ©", []),  # symbols and punctuation are separators
        ("a\u00a0b\u3000c\u2009d", ["a", "b", "c", "d"]),
        ("\ud800x\x00y\U0001f600z", ["x", "y", "z"]),  # lone surrogate, NUL, astral symbol
        # Marks are not letters, so a combining mark splits a word (SPEC: \p{L}\p{N} only).
        ("e\u0301clair", ["e", "clair"]),
        ("हिन्दी", ["ह", "न", "द"]),
        ("İstanbul", ["i", "stanbul"]),  # str.lower gives i + U+0307 COMBINING DOT ABOVE
        ("", []),
        ("  ...  ", []),
    ],
)
def test_rouge_tokenization(text, tokens):
    assert rouge_tokens(text) == tokens


@pytest.mark.parametrize(
    "expected, output, score",
    [
        ("The cat sat on the mat", "the cat on the mat", 10 / 11),  # LCS 5, p 1, r 5/6
        ("Canberra", "Canberra is the capital", 0.4),
        ("Hello, World!", "hello world", 1.0),
        ("a b c", "c b a", 1 / 3),  # order matters
        ("Café au lait", "cafe au lait", 2 / 3),
        (["a b", "a b c"], "A, b: c.", 1.0),
        ("", "x", 0.0),
        ("x", "!!!", 0.0),
        ("!!!", "...", 0.0),  # no tokens on either side
    ],
)
def test_rouge_table(expected, output, score):
    g = grade("rouge_l", expected=expected, output=output)
    assert g.status == "scored"
    assert g.score == pytest.approx(score, abs=TOL)


def test_rouge_explanation_and_details():
    g = grade("rouge_l", expected=["x y", "The cat sat on the mat"], output="the cat on the mat")
    sig = "rouge_l|nrefs:2|tok:unicode-letters-numbers|case:lower|beta:1"
    assert "best of 2 references (reference 2)" in g.explanation
    assert "subsequence has 5 tokens" in g.explanation and "precision 5/5" in g.explanation
    assert "recall 5/6" in g.explanation and sig in g.explanation
    assert g.details == {
        "signature": sig, "precision": 1.0, "recall": 5 / 6, "lcs": 5,
        "output_tokens": 5, "reference_tokens": 6, "best_reference": 1,
    }
    assert "the output has no tokens" in grade("rouge_l", "x", "?!").explanation


def test_rouge_threshold():
    assert grade("rouge_l", "a b c", "a b c", threshold=1.0).status == "pass"
    g = grade("rouge_l", "a b c", "a b", threshold=0.85)  # 0.8
    assert g.status == "fail" and g.near_miss == ("below_threshold",)


def test_rouge_cell_limit():
    # 5,000 x 5,000 = 25,000,000 is at the limit, still computed (and fast, bit-parallel).
    g = grade("rouge_l", "a b " * 2500, "b a " * 2500)
    assert g.status == "scored" and g.details["lcs"] == 4999
    g = grade("rouge_l", ["x", "w " * 5001], "w " * 5000)
    assert g.status == "not_judged" and g.score is None
    assert "5,000 tokens" in g.explanation and "reference 2 of 2 has 5,001" in g.explanation
    assert "25,005,000" in g.explanation and f"{MAX_CELLS:,}" in g.explanation
    assert g.details["signature"].startswith("rouge_l|nrefs:2|")


# --- rouge_l: golden ---------------------------------------------------------------------


def test_rouge_golden_against_rouge_score():
    n = 0
    for refs, out in pairs(GOLDEN_PAIRS, seed=21):
        refs, out = [to_ascii(r) for r in refs], to_ascii(out)
        expected = rouge_reference(refs, out)
        assert grade("rouge_l", refs, out).score == pytest.approx(expected, abs=TOL), (refs, out)
        n += 1
    assert n >= GOLDEN_PAIRS


def test_rouge_tokens_golden_on_ascii():
    for refs, out in pairs(GOLDEN_PAIRS, seed=22):
        for s in map(to_ascii, (out, *refs)):
            assert rouge_tokens(s) == rouge_tokenize.tokenize(s, None)


@settings(max_examples=300, deadline=None)
@given(ASCII_TEXT, ASCII_TEXT)
def test_rouge_equals_rouge_score_on_any_ascii(expected, output):
    assert rouge_tokens(output) == rouge_tokenize.tokenize(output, None)
    reference = rouge_reference([expected], output)
    assert grade("rouge_l", expected, output).score == pytest.approx(reference, abs=TOL)


# --- the exact helpers ---------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.one_of(ANY_TEXT, ASCII_TEXT))
def test_rouge_tokens_are_the_spec_split(text):
    # SPEC §3 literally: lowercase, split with regex on [^\p{L}\p{N}]+, drop empty tokens.
    assert rouge_tokens(text) == [t for t in regex.split(r"[^\p{L}\p{N}]+", text.lower()) if t]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=90), st.lists(st.sampled_from("abcde"), max_size=90))
def test_lcs_length_is_the_dp_lcs(a, b):
    assert lcs_length(a, b) == dp_lcs(a, b) == lcs_length(b, a)


def test_lcs_length_long_sequences():
    rng = random.Random(5)
    for _ in range(40):
        a = [rng.choice("abcdefgh") for _ in range(rng.randint(100, 300))]
        b = [rng.choice("abcdefghij") for _ in range(rng.randint(100, 300))]
        assert lcs_length(a, b) == dp_lcs(a, b)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=70), st.lists(st.sampled_from("abcde"), max_size=70))
def test_common_count_is_counter_intersection(a, b):
    assert common_count(a, b, _bag(a), _bag(b)) == sum((Counter(a) & Counter(b)).values())


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_f1_tokens_are_the_scripts(text):
    assert f1_tokens(text) == normalize_answer(text).split()


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_token_f1_equals_the_script_on_any_text(expected, output):
    reference = squad_v2_f1(output, expected)
    assert grade("token_f1", expected, output).score == pytest.approx(reference, abs=TOL)


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ANY_TEXT, min_size=1, max_size=3), ANY_TEXT, st.sampled_from(["squad", "none"]))
def test_scores_in_unit_interval_and_never_raise(refs, output, normalize):
    for g in (grade("rouge_l", refs, output), grade("token_f1", refs, output, normalize=normalize)):
        assert g.status == "scored" and 0.0 <= g.score <= 1.0
        g.explanation.encode("utf-8")
    g = grade("token_f1", refs, output, threshold=1.0)  # the fail explanation names tokens
    assert g.status in ("pass", "fail")
    g.explanation.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, st.sampled_from(["squad", "none"]))
def test_identical_texts_score_one(text, normalize):
    assert grade("token_f1", text, text, normalize=normalize).score == 1.0
    assert grade("rouge_l", text, text).score == (1.0 if rouge_tokens(text) else 0.0)


def test_long_inputs_do_not_raise():
    big = ("Refund the order 😀 a\x00b \ud800 東京 e\u0301 " * 40_000)[:1_000_000]
    cases = [("refund the order", big, "scored"), (big, "Refund order", "scored"), (big, big, "not_judged")]
    for expected, output, status in cases:
        r = grade("rouge_l", expected, output)
        assert r.status == status and (status == "not_judged" or 0.0 <= r.score <= 1.0)
        f = grade("token_f1", expected, output, threshold=0.5)
        assert f.status in ("pass", "fail")
        f.explanation.encode("utf-8")


# --------------------------------------------------------------------------- exact fractions

@pytest.mark.parametrize("grader, expected, output, score", [
    # 6 shared of 8 and 7 tokens after SQuAD normalization: 4/5, which 2PR/(P+R) gave as 0.7999999999999999
    ("token_f1", "the refund was approved for order number 7 today", "refund was approved for order 7 yesterday", 0.8),
    ("token_f1", "x y z", "x y z v w", 0.75),
    ("rouge_l", "x y z", "x y z v w", 0.75),
    ("rouge_l", "one two three four five", "one two three four six seven eight", 2 * 4 / 12),
])
def test_an_exact_fraction_meets_a_threshold_equal_to_it(grader, expected, output, score):
    g = grade(grader, expected, output, threshold=score)
    assert g.score == score and g.status == "pass"
    # the threshold as given: 2/3 is not rounded to 0.666667, which the score would be above
    limit = f"{score:g}" if score != 2 / 3 else "0.6666666666666666"
    assert g.explanation.endswith(f"Score {score:.4f} is at or above the threshold {limit}.")


@pytest.mark.parametrize("score, threshold, words", [
    (0.99997, 1.0, "Score 0.99997 is below the threshold 1."),  # four decimals would read 1.0000
    (0.79999, 0.8, "Score 0.79999 is below the threshold 0.8."),
    (0.8, 0.8, "Score 0.8000 is at or above the threshold 0.8."),
    (0.80004, 0.8, "Score 0.80004 is at or above the threshold 0.8."),  # 0.8000 would equal it
    (0.5, 0.1234567, "Score 0.5000 is at or above the threshold 0.1234567."),
    (0.1234567, 0.12345671, "Score 0.1234567 is below the threshold 0.12345671."),
])
def test_the_threshold_sentence_never_rounds_a_score_to_the_other_side(score, threshold, words):
    from graders.result import threshold_words

    assert threshold_words(score, threshold) == words


WORDS = st.lists(st.sampled_from("a b c d e f".split()), max_size=12)


@settings(max_examples=300, deadline=None)
@given(out=WORDS, ref=WORDS)
def test_f1_is_the_correctly_rounded_fraction(out, ref):
    """2·shared / (n_out + n_ref) with one rounding: the nearest double to the true F1."""
    same = sum((Counter(out) & Counter(ref)).values())
    g = grade("token_f1", " ".join(ref), " ".join(out), normalize="none")
    if out and ref:
        assert g.score == float(Fraction(2 * same, len(out) + len(ref)))
    m, n = len(out), len(ref)
    lcs = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(m):
        for j in range(n):
            lcs[i + 1][j + 1] = lcs[i][j] + 1 if out[i] == ref[j] else max(lcs[i][j + 1], lcs[i + 1][j])
    if out and ref:
        assert grade("rouge_l", " ".join(ref), " ".join(out)).score == float(Fraction(2 * lcs[m][n], m + n))

