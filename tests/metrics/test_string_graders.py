"""Exact, normalized and contains: tables of real cases, explanations, the near-miss probe."""

import pytest

from graders import grade
from graders.text.normalize import squad_normalize


@pytest.mark.parametrize(
    "expected, output, status",
    [
        ("Paris", "Paris", "pass"),
        ("Paris", "Paris\u00a0", "fail"),  # no-break space
        ("Paris", "\ufeffParis", "fail"),  # byte order mark
        ("Paris", "Pari\u200bs", "fail"),  # zero width space
        ("café", "cafe\u0301", "fail"),  # NFC vs NFD
        ("", "", "pass"),
        (["Paris", "paris"], "paris", "pass"),
        (["Lyon", "Nice"], "Paris", "fail"),
        ("Canberra", "Canberra is the capital", "fail"),
    ],
)
def test_exact_table(expected, output, status):
    assert grade("exact", expected=expected, output=output).status == status


@pytest.mark.parametrize(
    "expected, output, fragments",
    [
        ("Paris", "Paris\u00a0", ["position 5", "end of text", "U+00A0 NO-BREAK SPACE", "whitespace"]),
        ("Paris", "\ufeffParis", ["position 0", "U+FEFF BYTE ORDER MARK", "'P' (U+0050)"]),
        ("ab", "a\u200bb", ["position 1", "U+200B ZERO WIDTH SPACE"]),
        ("Paris", "paris", ["position 0", "U+0050", "U+0070", "case"]),
        ("café", "cafe\u0301", ["position 3", "NFC"]),
        ("ﬁne", "fine", ["U+FB01", "NFKC"]),
        ("x", "", ["position 0", "the output has end of text"]),
    ],
)
def test_exact_explains_first_difference(expected, output, fragments):
    g = grade("exact", expected=expected, output=output)
    for f in fragments:
        assert f in g.explanation, (f, g.explanation)
    assert g.details["position"] == int(fragments[0].split()[1]) if fragments[0].startswith("position") else True


@pytest.mark.parametrize(
    "name, expected, output, explanation",
    [
        ("exact", "Paris", "Pariss",
         "The output is not equal to the reference. First difference at position 5 (0-based): the reference "
         "has end of text, the output has 's' (U+0073). Reference: “Paris”; output: “Pariss”."),
        ("exact", ["Paris", "Lyon"], "paris",
         "None of the 2 references is equal; against the closest, reference 1: First difference at position 0 "
         "(0-based): the reference has 'P' (U+0050), the output has 'p' (U+0070). Reference: “Paris”; output: "
         "“paris”. Note: only letter case differs."),
        ("exact", "Paris", " Paris",
         "The output is not equal to the reference. First difference at position 0 (0-based): the reference "
         "has 'P' (U+0050), the output has ' ' (U+0020 SPACE). Reference: “Paris”; output: “ Paris”. Note: "
         "only leading or trailing whitespace differs."),
        ("exact", "The quick brown fox jumps over the lazy dog", "The quick brown fox jumped over the lazy dog",
         "The output is not equal to the reference. First difference at position 24 (0-based): the reference "
         "has 's' (U+0073), the output has 'e' (U+0065). Reference: “…quick brown fox jumps over the lazy "
         "dog”; output: “…quick brown fox jumped over the lazy dog”."),
        ("normalized", "Paris", "Pariss",
         "After the pipeline (trim+lower) the output still differs. First difference at position 5 (0-based): "
         "the normalized reference has end of text, the normalized output has 's' (U+0073). Normalized "
         "reference: “paris”; normalized output: “pariss”. [normalized|pipeline:trim+lower]"),
        ("normalized", ["Paris", "Lyon"], "Pariss",
         "After the pipeline (trim+lower) the output still differs from all 2 references (closest: reference "
         "1). First difference at position 5 (0-based): the normalized reference has end of text, the "
         "normalized output has 's' (U+0073). Normalized reference: “paris”; normalized output: “pariss”. "
         "[normalized|pipeline:trim+lower]"),
    ],
)
def test_fail_explanations_word_for_word(name, expected, output, explanation):
    assert grade(name, expected=expected, output=output).explanation == explanation


def test_exact_case_flag_is_not_raised_for_compatibility_forms():
    g = grade("exact", expected="ﬁne", output="fine")
    assert "case" not in g.details["flags"]
    assert g.details["flags"] == ["nfkc"]


@pytest.mark.parametrize(
    "pipeline, expected, output, status",
    [
        (None, " Paris ", "paris", "pass"),
        (None, "Paris", "Paris.", "fail"),
        ("squad", "The Eiffel Tower.", "eiffel tower", "pass"),
        ("squad", "The answer is 4.", "answer is 4", "pass"),
        (["nfkc"], "ﬁne", "fine", "pass"),
        (["nfc"], "café", "cafe\u0301", "pass"),
        (["collapse_whitespace"], "a  b\t c", "a b c", "pass"),
        (["remove_punctuation"], "U.S.A.", "USA", "pass"),
        (["remove_articles", "collapse_whitespace", "trim"], "the cat", "a cat", "pass"),
        (["strip_trailing_punctuation"], "Yes!", "Yes", "pass"),
        (["strip_trailing_punctuation"], "Yes!!", "Yes", "fail"),  # one character only
        (["strip_quotes"], "“Paris”", "Paris", "pass"),
        (["strip_quotes"], "'Paris\"", "'Paris\"", "pass"),
        (["strip_quotes"], "'Paris\"", "Paris", "fail"),  # not a pair
        ([], "a", "A", "fail"),
    ],
)
def test_normalized_table(pipeline, expected, output, status):
    params = {} if pipeline is None else {"pipeline": pipeline}
    assert grade("normalized", expected=expected, output=output, **params).status == status


def test_trim_removes_exactly_the_29_python_whitespace_characters():
    from graders.text.normalize import WHITESPACE

    assert WHITESPACE == "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
    assert len(WHITESPACE) == 29
    pad = WHITESPACE
    assert grade("normalized", expected="x", output=pad + "x" + pad, pipeline=["trim"]).passed
    # U+200B and U+FEFF are not whitespace to str.strip().
    assert not grade("normalized", expected="x", output="\u200bx", pipeline=["trim"]).passed
    assert not grade("normalized", expected="x", output="\ufeffx", pipeline=["trim"]).passed


def test_the_plain_space_is_the_only_printable_whitespace():
    """What the whitespace steps' fast path (graders.text.normalize._join_runs) rests on."""
    from graders.text.normalize import WHITESPACE, collapse_whitespace, underscore_join

    assert [c for c in WHITESPACE if c.isprintable()] == [" "]
    for s, collapsed, joined in [("", "", ""), (" ", " ", "_"), (" a b ", " a b ", "_a_b_"), ("a  b", "a b", "a_b"),
                                 ("a\u3000b", "a b", "a_b"), ("a\tb ", "a b ", "a_b_")]:
        assert (collapse_whitespace(s), underscore_join(s)) == (collapsed, joined)


def test_squad_pipeline_equals_the_squad_script():
    from squad_v11 import normalize_answer

    from graders._testing import pairs

    for refs, out in pairs(2000, seed=7):
        for s in (*refs, out):
            assert squad_normalize(s) == normalize_answer(s)
    from graders.text.normalize import SQUAD_PIPELINE, STEPS

    def stepwise(s):
        for step in SQUAD_PIPELINE:
            s = STEPS[step](s)
        return s

    for _refs, out in pairs(500, seed=8):
        assert stepwise(out) == normalize_answer(out)


@pytest.mark.parametrize(
    "expected, output, params, status",
    [
        ("Canberra", "Canberra is the capital", {}, "pass"),
        ("Canberra", "No, Canberra is not the capital", {}, "pass"),  # lenient, as the seed warns
        ("Canberra", "The capital is Canberra", {"at": "start"}, "fail"),
        ("Canberra", "Canberra!", {"at": "start"}, "pass"),
        (["red", "blue"], "the blue one", {}, "pass"),
        (["red", "blue"], "the blue one", {"require": "all"}, "fail"),
        (["red", "blue"], "red and blue", {"require": "all"}, "pass"),
        ("canberra", "Canberra", {}, "fail"),  # no normalization
    ],
)
def test_contains_table(expected, output, params, status):
    assert grade("contains", expected=expected, output=output, **params).status == status


@pytest.mark.parametrize("expected, params, explanation", [
    ("Paris", {}, "The output does not contain “Paris” anywhere."),
    # invisible characters of the reference shown as exact's explanation shows them
    ("Paris\u00a0", {}, "The output does not contain “Paris⟨U+00A0⟩” anywhere."),
    ("line one\nline two", {}, "The output does not contain “line one⟨LF⟩line two” anywhere."),
    ("a\ud800b", {}, "The output does not contain “a⟨U+D800⟩b” anywhere."),
    ("x" * 61, {}, "The output does not contain “" + "x" * 60 + "…” anywhere."),
    (["a\tb", "zz"], {"require": "all"},
     "The output contains 0 of 2 references anywhere (needs all); missing: “a⟨TAB⟩b”, “zz”."),
])
def test_contains_explanation_shows_the_reference(expected, params, explanation):
    assert grade("contains", expected=expected, output="nothing here", **params).explanation == explanation


@pytest.mark.parametrize(
    "grader, expected, output, codes",
    [
        ("exact", "Paris", " Paris ", ("trim",)),
        ("exact", "Paris", "PARIS", ("lowercase",)),
        ("exact", "ＡＢＣ", "ABC", ("nfkc",)),
        ("exact", "a b", "a  b", ("collapse_whitespace", "underscore_join")),
        ("exact", "Paris", "Paris.", ("strip_trailing_punctuation",)),
        ("exact", "refund_status", "refund status", ("underscore_join",)),
        ("exact", "Paris", '"Paris"', ("strip_quotes",)),
        ("exact", "Paris", ' "paris". ', ("several",)),
        ("exact", "Paris", "Lyon", None),
        ("exact", "paris", "Paris\u00a0", ("several",)),  # needs lowercase and trim: neither alone
        ("exact", "Paris", "Pariss", None),
        ("normalized", "Paris", "Paris.", ("strip_trailing_punctuation",)),
        ("contains", "refund_status", "the refund status is open", ("underscore_join",)),
        ("contains", "Paris", "I think PARIS", ("lowercase",)),
    ],
)
def test_string_probe(grader, expected, output, codes):
    g = grade(grader, expected=expected, output=output)
    assert g.status == "fail"
    assert g.near_miss == codes


def test_probe_names_every_step_that_alone_passes():
    # Upper-case with NBSP: lowercase alone does not pass, trim alone does not pass.
    g = grade("exact", expected="x", output="X")
    assert g.near_miss == ("lowercase",)
    g = grade("exact", expected="ＰＡＲＩＳ", output="paris")
    assert g.near_miss == ("several",)  # NFKC then lowercase
    g = grade("exact", expected="a b", output="a\u00a0b")
    # NFKC maps NBSP to a space; collapse_whitespace maps it to one space too.
    assert g.near_miss == ("nfkc", "collapse_whitespace", "underscore_join")


def test_pass_has_no_near_miss():
    assert grade("exact", expected="a", output="a").near_miss is None


def test_seed_canberra_example():
    assert grade("exact", expected="Canberra", output="Canberra is the capital").score == 0.0
    assert grade("token_f1", expected="Canberra", output="Canberra is the capital").score == pytest.approx(0.5)
    assert grade("contains", expected="Canberra", output="Canberra is the capital").score == 1.0


@pytest.mark.parametrize("steps", [("trim", "lower"), ("squad",), (), ("nfkc", "collapse_whitespace", "strip_quotes"),
                                   ("remove_articles", "remove_punctuation", "strip_trailing_punctuation")])
def test_compose_column_equals_compose_text_by_text(steps):
    from graders.text.normalize import SQUAD_PIPELINE, compose, compose_column

    steps = SQUAD_PIPELINE if steps == ("squad",) else steps
    texts = ["  The Cat. ", "“quoted”", "a\u00a0b\tc", "ﬁne!", "", "x_y", "\ud800"]
    assert compose_column(steps)(texts) == [compose(steps)(t) for t in texts]
