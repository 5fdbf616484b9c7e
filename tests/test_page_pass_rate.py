"""AppTest of the Pass rate page: figures from the link (``pass_rate?k=34&n=40``), edits,
the edge counts, and one clear error for every bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graders.stats import wilson_interval

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
    assert "fair sample" in body and "about 95 times in 100" in body and "≈160" in body
    assert "z = 1.9600" in body  # the formula in words, with this confidence's z
    assert len(at.latex) == 1
    assert not at.error
    assert at.caption[-1].value == "Link to this figure: `pass_rate?k=34&n=40`"


def test_confidence_and_label_from_the_link():
    at = open_page(k="12", n="30", confidence="0.9", label="exact · returns-assistant-v2")
    low, high = wilson_interval(12, 30, 0.9)
    assert metrics(at) == {"Pass rate": "40.0%", "Lower end (90%)": pct(low), "Upper end (90%)": pct(high)}
    assert at.subheader[0].value == "exact · returns-assistant-v2"
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
    assert shown["Pass rate"] == "0.0001%"
    assert set(shown) == {"Pass rate", "Lower end (99.9999%)", "Upper end (99.9999%)"}
    low, high = wilson_interval(1, 1_000_000, 0.999999)
    assert 0 < low < high < 1
    for key, value in (("Lower end (99.9999%)", low), ("Upper end (99.9999%)", high)):
        number = float(shown[key].rstrip("%")) / 100
        assert number != 0 and number == pytest.approx(value, rel=0.5)
