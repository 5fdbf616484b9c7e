"""AppTest of the Pass rate page: figures from the link (``pass_rate?k=34&n=40``), edits,
the edge counts, and one clear error for every bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graders.stats import wilson_interval
from ui import display

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "pass_rate.py")


def open_page(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def pct(x: float) -> str:
    return f"{x:.1%}"


# --------------------------------------------------------------------------- main path


def test_link_figures_fill_the_inputs_and_give_the_wilson_interval():
    at = open_page(k="34", n="40")
    assert at.text_input(key="k").value == "34" and at.text_input(key="n").value == "40"
    assert at.text_input(key="confidence").value == "0.95"
    low, high = wilson_interval(34, 40, 0.95)
    assert metrics(at) == {"Pass rate": "85.0%", "Lower end (95%)": pct(low), "Upper end (95%)": pct(high)}
    assert (pct(low), pct(high)) == ("70.9%", "92.9%")  # scipy's binomtest(34, 40) Wilson interval
    body = text(at)
    assert "**34 of 40 pass: 85.0%.** 95% Wilson interval: **70.9% to 92.9%**." in body
    assert "fair sample" in body and "contain the true rate 95% of the time" in body and "≈160" in body
    assert "z = 1.9600" in body  # the formula in words, with this confidence's z
    assert len(at.latex) == 1
    assert not at.error
    assert at.caption[-1].value == "Link to this figure: `pass_rate?k=34&n=40`"


def test_confidence_and_label_from_the_link():
    at = open_page(k="12", n="30", confidence="0.9", label="exact · returns-assistant-v2")
    low, high = wilson_interval(12, 30, 0.9)
    assert metrics(at) == {"Pass rate": "40.0%", "Lower end (90%)": pct(low), "Upper end (90%)": pct(high)}
    assert at.subheader[0].value == r"exact · returns\-assistant\-v2"  # literal Markdown: shown as typed
    assert "z = 1.6449" in text(at)
    assert "confidence=0.9" in at.caption[-1].value and "label=exact%20%C2%B7%20returns-assistant-v2" in at.caption[-1].value
    # The table of other levels includes the chosen one.
    levels = at.dataframe[0].value["confidence"].tolist()
    assert levels == ["80%", "90%", "95%", "99%"]


def test_editing_an_input_recomputes():
    at = open_page(k="34", n="40")
    at.text_input(key="k").set_value("20").run()
    assert metrics(at)["Pass rate"] == "50.0%"
    at.text_input(key="confidence").set_value("99%").run()
    low, high = wilson_interval(20, 40, 0.99)
    assert metrics(at) == {"Pass rate": "50.0%", "Lower end (99%)": pct(low), "Upper end (99%)": pct(high)}
    at.text_input(key="n").set_value("1,000").run()
    assert metrics(at)["Pass rate"] == "2.0%"


@pytest.mark.parametrize("k, n, words", [
    ("0", "12", "None of the cases passed, yet the true rate could be as high as 24.2%."),
    ("5", "5", "Every case passed, yet the true rate could be as low as 56.6%."),
])
def test_all_fail_and_all_pass_readings(k, n, words):
    at = open_page(k=k, n=n)
    assert words in text(at)


def test_no_cases():
    at = open_page(k="0", n="0")
    assert metrics(at) == {"Pass rate": "—"}
    assert "every rate from 0% to 100% is possible" in text(at)
    assert not at.error


def test_without_figures_the_page_asks_for_them():
    at = open_page()
    assert not at.error and not at.metric
    assert "Enter the number of passes (k) and of cases (n)" in at.info[0].value


def test_through_the_app_navigation():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.query_params.update({"k": "34", "n": "40"})
    at.switch_page("pages/pass_rate.py").run()
    assert not at.exception
    assert metrics(at)["Pass rate"] == "85.0%"


# --------------------------------------------------------------------------- error paths


@pytest.mark.parametrize("query, message", [
    ({"k": "41", "n": "40"}, "k (41) is larger than n (40): there cannot be more passes than cases."),
    ({"k": "-3", "n": "40"}, "k cannot be negative (got '-3')."),
    ({"k": "3", "n": "-40"}, "n cannot be negative (got '-40')."),
    ({"k": "abc", "n": "40"}, "k must be a whole number, like 34 (got 'abc')."),
    ({"k": "3.5", "n": "40"}, "k must be a whole number, like 34 (got '3.5')."),
    ({"k": "3", "n": ""}, "n is empty: enter the number of cases."),
    ({"k": "3", "n": "40", "confidence": "95"}, "Confidence must be strictly between 0 and 1 (got '95'). Write 95% as 0.95 or 95%."),
    ({"k": "3", "n": "40", "confidence": "1"}, "Confidence must be strictly between 0 and 1 (got '1')."),
    ({"k": "3", "n": "40", "confidence": "0"}, "Confidence must be strictly between 0 and 1 (got '0')."),
    ({"k": "3", "n": "40", "confidence": "-0.5"}, "Confidence must be strictly between 0 and 1 (got '-0.5')."),
    ({"k": "3", "n": "40", "confidence": "nan"}, "Confidence must be strictly between 0 and 1 (got 'nan')."),
    ({"k": "3", "n": "40", "confidence": "high"}, "Confidence must be a number between 0 and 1, like 0.95 (got 'high')."),
])
def test_bad_input_gives_one_clear_error(query, message):
    at = open_page(**query)
    assert [e.value for e in at.error] == ["Cannot compute the interval. " + message]
    assert not at.metric


def test_several_bad_inputs_still_one_error():
    at = open_page(k="x", n="-1", confidence="2")
    assert len(at.error) == 1
    for part in ("k must be a whole number", "n cannot be negative", "Confidence must be strictly between 0 and 1"):
        assert part in at.error[0].value


def test_a_bad_edit_then_a_good_one():
    at = open_page(k="34", n="40")
    at.text_input(key="k").set_value("50").run()
    assert len(at.error) == 1 and not at.metric
    at.text_input(key="k").set_value("30").run()
    assert not at.error and metrics(at)["Pass rate"] == "75.0%"


def test_extreme_figures_are_not_rounded_to_what_they_are_not():
    """Confidence 0.999999 is labelled 99.9999%, not 100%; 1 pass in 1,000,000 is 0.0001%,
    not 0.0%; each figure keeps the places it needs to read as neither 0% nor 100%."""
    at = open_page(k="1", n="1000000", confidence="0.999999")
    shown = metrics(at)
    assert shown["Pass rate"] == "0.00010%"  # two significant digits of its distance from 0%
    assert set(shown) == {"Pass rate", "Lower end (99.9999%)", "Upper end (99.9999%)"}
    low, high = wilson_interval(1, 1_000_000, 0.999999)
    assert 0 < low < high < 1
    for key, value in (("Lower end (99.9999%)", low), ("Upper end (99.9999%)", high)):
        number = float(shown[key].rstrip("%")) / 100
        assert number != 0 and number == pytest.approx(value, rel=0.5)


@pytest.mark.parametrize("k, n, rate, low, high", [
    # the two ends read as different: 50.0% to 50.0% was shown for 49.97% to 50.03%
    (5_000_000, 10_000_000, "50.0%", "49.97%", "50.03%"),
    # an end near 0% or 100% keeps two significant digits of its distance from it
    (1, 100_000, "0.0010%", "0.00018%", "0.00566%"),  # 0.01% overstated 0.00566% by 77%
    (99_999, 100_000, "99.9990%", "99.99434%", "99.99982%"),
])
def test_interval_ends_keep_the_digits_they_need(k, n, rate, low, high):
    at = open_page(k=str(k), n=str(n))
    assert metrics(at) == {"Pass rate": rate, "Lower end (95%)": low, "Upper end (95%)": high}
    true_low, true_high = wilson_interval(k, n, 0.95)
    for shown, value in ((low, true_low), (high, true_high)):
        assert float(shown.rstrip("%")) / 100 == pytest.approx(value, rel=0.05)


def test_a_width_of_a_billion_cases_is_not_zero_points():
    at = open_page(k="500000000", n="1000000000")
    assert "The interval is 0.0062 points wide." in text(at)
    assert "0.0" not in list(at.dataframe[0].value["width (points)"])


@pytest.mark.parametrize("typed, level, linked", [
    ("99.9%", "99.9%", "0.999"),  # not 99.90000000000001%
    ("0.9999", "99.99%", "0.9999"),  # not "about 100 times in 100"
    ("0.99999", "99.999%", "0.99999"),  # not 100% in the other-levels table
    ("0.9999999", "99.99999%", "0.9999999"),  # the link kept 6 digits: confidence=1, refused
    ("0.12345678", "12.345678%", "0.12345678"),
])
def test_the_level_reads_and_links_as_typed(typed, level, linked):
    at = open_page(k="34", n="40", confidence=typed)
    assert f"Lower end ({level})" in metrics(at)
    assert f"contain the true rate {level} of the time" in text(at)
    assert level in list(at.dataframe[0].value["confidence"])
    assert at.caption[-1].value == f"Link to this figure: `pass_rate?k=34&n=40&confidence={linked}`"
    again = open_page(k="34", n="40", confidence=linked)
    assert metrics(again) == metrics(at)


def test_a_count_past_what_a_float_holds_is_one_error():
    at = open_page(k="1" + "0" * 310, n="1" + "0" * 311)
    assert [e.value for e in at.error] == [display.inert(  # shown inert: its ** is not bold
        "Cannot compute the interval. n must be at most 9,007,199,254,740,992 (2**53), got a number of 312 digits")]


def test_the_compare_pages_link_keeps_every_digit_of_the_confidence():
    from ui.present.compare_tables import pass_rate_url

    assert pass_rate_url(3, 4, confidence=0.9999999) == "pass_rate?k=3&n=4&confidence=0.9999999"
