"""The numeric grader and its number grammar: every example of SPEC §3 and the seeds."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graders import grade
from graders.text.numbers import read_number


@pytest.mark.parametrize(
    "text, mode, value",
    [
        ("v2.0 scored 0.83", "first", "0.83"),
        ("v2.0 scored 0.83", "last", "0.83"),
        ("The refund is $42.00.", "last", "42.00"),
        ("The refund is $42.00.", "first", "42.00"),
        ("1,2345", "first", None),
        ("1,2345", "last", None),
        ("x-5", "first", "5"),
        ("(-3)", "first", "-3"),
        ("50%", "first", "50"),
        ("50%", "whole", "50"),
        ("1,234,567", "whole", "1234567"),
        ("1,234,567.25 units", "first", "1234567.25"),
        ("12,34", "first", None),
        ("-7", "whole", "-7"),
        ("+12", "whole", "12"),
        ("  42  ", "whole", "42"),
        ("42 apples", "whole", None),
        ("answer: 42", "whole", None),
        ("a -7 b", "first", "-7"),
        ("a\u00a0-7", "first", "-7"),  # a no-break space is whitespace
        ("x_1 is 3", "first", "3"),  # after _ is not read
        ("ab12 9", "first", "9"),
        ("1.5.3", "first", None),  # a version, not a number
        ("3.10", "whole", "3.10"),
        ("About 3.1 miles", "last", "3.1"),
        ("no digits here", "first", None),
        ("٣", "first", None),  # ASCII digits only
        ("It costs 5 then 6.", "last", "6"),
        ("007", "whole", "007"),
        ("1e5", "whole", None),
        # "not a letter or digit": a number that is neither (No, Nl) does not hide the numeral
        ("½2", "first", "2"), ("x²2", "first", "2"), ("Ⅻ2", "first", "2"), ("①2", "last", "2"),
        ("\u30072", "first", "2"),  # 〇, an Nl ideographic zero
        ("٣2", "first", None),  # an Nd digit does
        ("é2", "first", None), ("ǅ2", "first", None),  # letters (Ll, Lt)
    ],
)
def test_number_grammar(text, mode, value):
    r = read_number(text, mode)
    if value is None:
        assert r is None
    else:
        assert r is not None and r.value == Decimal(value)


@pytest.mark.parametrize(
    "expected, output, params, status",
    [
        ("42", "The refund is $42.00.", {"read": "last"}, "pass"),
        ("3.11", "About 3.1 miles", {"read": "last"}, "fail"),
        ("3.11", "About 3.1 miles", {"read": "last", "rel_tol": 0.01}, "pass"),
        ("3.11", "3.1", {"abs_tol": 0.01}, "pass"),  # exact decimal arithmetic: 0.01 <= 0.01
        ("3.11", "3.1", {"abs_tol": 0.0099}, "fail"),
        ("100", "105", {"rel_tol": 0.05}, "pass"),
        ("100", "105.01", {"rel_tol": 0.05}, "fail"),
        ("-3", "(-3)", {"read": "first"}, "pass"),
        ("n/a", "3", {}, "not_judged"),
        ("42", "forty-two", {"read": "last"}, "fail"),
        (["7", "42"], "42", {}, "pass"),
        (["n/a", "42"], "42", {}, "pass"),
        ("1,000", "1000", {}, "pass"),
    ],
)
def test_numeric_table(expected, output, params, status):
    assert grade("numeric", expected=expected, output=output, **params).status == status


def test_explanation_says_what_was_read_and_the_tolerance():
    g = grade("numeric", expected="3.11", output="About 3.1 miles", read="last", rel_tol=0.01)
    assert "Read 3.1 from the output" in g.explanation
    assert "3.11 from the reference" in g.explanation
    assert "0.0311" in g.explanation and "rel_tol 0.01" in g.explanation
    assert g.details["difference"] == "0.01"


@pytest.mark.parametrize(
    "expected, output, read, codes",
    [
        ("42", "It is 42", "whole", ("read_first", "read_last")),
        ("42", "42 or 43", "last", ("read_first",)),
        ("43", "42 or 43", "first", ("read_last",)),
        ("42", "41 or 40", "last", None),
    ],
)
def test_numeric_probe(expected, output, read, codes):
    g = grade("numeric", expected=expected, output=output, read=read)
    assert g.status == "fail" and g.near_miss == codes


def test_huge_numbers_are_compared_exactly():
    big = "9" * 5000
    assert grade("numeric", expected=big, output=big).passed
    assert not grade("numeric", expected=big, output=big[:-1] + "8").passed
    assert grade("numeric", expected=big, output=big[:-1] + "8", abs_tol=1).passed
    # a negative number keeps its digits too (unary minus would round it to 28)
    neg = "-" + "1" * 40 + ".5"
    assert read_number(neg, "whole").value == Decimal(neg)
    assert not grade("numeric", expected=neg, output=neg[:-1] + "4").passed
    assert grade("numeric", expected=f"({neg})", output=neg, read="first").passed
    assert str(read_number("x -0 y", "first").value) == "0"


@pytest.mark.parametrize("value", [np.int64(1), np.float32(1.0), Fraction(1), Decimal("1"), 1, 1.0])
def test_a_tolerance_or_threshold_is_any_real_number(value):
    """A NumPy scalar (a sweep over np.linspace), a Fraction or a Decimal is a number too."""
    assert grade("numeric", expected="1", output="2", abs_tol=value).passed
    assert grade("token_f1", expected="a b", output="a b", threshold=value).passed


def test_a_negative_zero_tolerance_is_zero():
    g = grade("numeric", expected="1", output="2", rel_tol=-0.0)
    assert "rel_tol 0 " in g.explanation and "-0" not in g.explanation


@pytest.mark.parametrize("bad", [{"abs_tol": -1}, {"rel_tol": float("nan")}, {"read": "middle"}, {"tolerance": 1},
                                 {"abs_tol": np.bool_(True)}, {"abs_tol": "1"}, {"rel_tol": Decimal("NaN")}])
def test_bad_parameters_raise_value_error(bad):
    with pytest.raises(ValueError) as e:
        grade("numeric", expected="1", output="1", **bad)
    assert list(bad)[0] in str(e.value)


@given(st.text(), st.sampled_from(["whole", "first", "last"]))
def test_grammar_never_raises_and_reads_digits_it_found(text, mode):
    r = read_number(text, mode)
    if r is not None:
        assert r.text.lstrip("+-").replace(",", "").replace(".", "").isdigit()


@pytest.mark.parametrize(
    "expected, output, params, passed, difference",
    [
        ("0.1000000000000000000000000000000000001", "0.1", {}, False, "1E-37"),
        ("0.1000000000000000000000000000000000001", "0.1", {"abs_tol": 1e-36}, True, "1E-37"),
        ("123456789012345678901234567890123456789", "123456789012345678901234567890123456788", {"abs_tol": 1.0}, True, "1"),
        ("123456789012345678901234567890123456789", "123456789012345678901234567890123456788", {}, False, "1"),
        ("1" + "0" * 80, "1" + "0" * 79 + "1", {"rel_tol": 1e-80}, True, "1"),
        ("1" + "0" * 80, "1" + "0" * 79 + "2", {"rel_tol": 1e-80}, False, "2"),
    ],
)
def test_comparison_is_exact_for_long_numerals(expected, output, params, passed, difference):
    g = grade("numeric", expected=expected, output=output, **params)
    assert g.passed is passed
    assert g.details["difference"] == difference


def test_the_numbers_that_are_not_digits_are_unicodes_nl_and_no():
    """The list the grammar carries is Unicode's Nl and No: exactly, on the Unicode it was
    written from; on a newer one, each listed character still is one (new ones stay in \\w)."""
    import sys
    import unicodedata

    from graders.text.numbers import NUMBERS_NOT_DIGITS, NUMBERS_NOT_DIGITS_UNICODE

    listed = {c for a, b in NUMBERS_NOT_DIGITS for c in range(a, b + 1)}
    assert all(unicodedata.category(chr(c)) in ("Nl", "No") for c in listed)
    if unicodedata.unidata_version == NUMBERS_NOT_DIGITS_UNICODE:
        assert listed == {c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Nl", "No")}

