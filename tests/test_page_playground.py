"""AppTest of the grader playground (pages/playground.py): main path and error paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graders import GRADER_NAMES
from graders.registry import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "playground.py")


@pytest.fixture()
def at() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def results(at: AppTest) -> dict[str, dict[str, str]]:
    table = next(t.value for t in at.table if "Verdict" in t.value.columns).reset_index()
    return {row["Grader"]: row for row in table.to_dict("records")}


def example(at: AppTest, label: str) -> AppTest:
    i = next(i for i, b in enumerate(at.button) if b.label == label)
    return at.button[i].click().run()


def test_every_grader_runs_on_one_pair(at):
    got = results(at)
    assert list(got) == [REGISTRY[n].label for n in GRADER_NAMES]
    # seed 000 / the LLM eval scorer's worked example: Canberra vs "Canberra is the capital"
    assert got["Exact match"]["Verdict"].endswith("fail")
    assert got["Contains"]["Verdict"].endswith("pass")
    assert got["Token F1"]["Score"] == "0.5000"
    assert all(r["Explanation"] for r in got.values())
    assert [e.value for e in at.error] == []


def test_every_grader_with_parameters_has_an_expander(at):
    from ui import guide

    labels = [e.label for e in at.expander if e.label not in guide.PLAYGROUND_LABELS]
    assert sorted(labels) == sorted(REGISTRY[n].label for n in GRADER_NAMES if REGISTRY[n].params)
    assert [e.label for e in at.expander][-2:] == list(guide.PLAYGROUND_LABELS)  # the guide, below


@pytest.mark.parametrize("label, checks", [
    ("Maria JSON", {"Valid JSON": ("pass", None), "JSON fields": ("scored", "0.5000")}),
    ("3.11 vs About 3.1 miles", {"Numeric": ("pass", "1.0000")}),  # the example sets rel_tol 1%
    ('"the" / "a"', {"Token F1": ("scored", "1.0000"), "Exact match": ("fail", None)}),
    ("NBSP Paris", {"Exact match": ("fail", None), "Normalized match": ("pass", None)}),
    ("$42.00", {"Numeric": ("pass", "1.0000")}),
    ("Canberra", {"Token F1": ("scored", "0.5000")}),
])
def test_the_seed_examples_load_and_grade(at, label, checks):
    example(at, label)
    got = results(at)
    for grader, (verdict, score) in checks.items():
        assert got[grader]["Verdict"].endswith(verdict.replace("_", " ")), (grader, got[grader])
        if score is not None:
            assert got[grader]["Score"] == score


def test_near_miss_codes_and_the_marked_difference(at):
    example(at, "NBSP Paris")
    got = results(at)
    assert got["Exact match"]["Near miss"].startswith("trim (passes after trimming whitespace)")
    marked = [m.value for m in at.markdown if "<mark" in m.value]
    assert any("⟨U+00A0⟩</mark>" in m for m in marked)  # the invisible character is shown and marked
    assert any("U+00A0 NO-BREAK SPACE" in c.value for c in at.caption)


def test_the_relative_tolerance_reads_as_a_percentage(at):
    example(at, "3.11 vs About 3.1 miles")
    assert "= 1% of |expected|." in [c.value for c in at.caption]
    at.number_input(key="gb_w_pg_numeric_rel_tol").set_value(1.0).run()  # typed "1" meaning 1%
    assert "= 100% of |expected|. For 1%, enter 0.01." in [c.value for c in at.caption]


def test_a_parameter_change_regrades(at):
    example(at, "3.11 vs About 3.1 miles")
    at.number_input(key="gb_w_pg_numeric_rel_tol").set_value(0.0).run()
    assert results(at)["Numeric"]["Verdict"].endswith("fail")
    assert "read_" not in results(at)["Numeric"]["Near miss"]
    at.number_input(key="gb_w_pg_numeric_abs_tol").set_value(0.01).run()
    assert results(at)["Numeric"]["Verdict"].endswith("pass")  # exact decimal: |3.1 - 3.11| = 0.01
    at.checkbox(key="gb_w_pg_token_f1_threshold_on").check().run()
    at.number_input(key="gb_w_pg_token_f1_threshold").set_value(0.5).run()
    assert results(at)["Token F1"]["Verdict"].endswith(("pass", "fail"))


def test_the_squad_pipeline_button_and_ordered_steps(at):
    at.text_area(key="gb_w_pg_expected").input("The Eiffel Tower.")
    at.text_area(key="gb_w_pg_output").input("eiffel tower").run()
    assert results(at)["Normalized match"]["Verdict"].endswith("fail")
    at.button(key="gb_w_pg_normalized_pipeline_squad").click().run()
    assert at.multiselect(key="gb_w_pg_normalized_pipeline").value == [
        "lower", "remove_punctuation", "remove_articles", "collapse_whitespace", "trim"]
    assert results(at)["Normalized match"]["Verdict"].endswith("pass")


def test_several_references(at):
    at.text_area(key="gb_w_pg_expected").input("Paris\nLyon")
    at.text_area(key="gb_w_pg_output").input("Lyon")
    at.checkbox(key="gb_w_pg_multi").check().run()
    assert results(at)["Exact match"]["Verdict"].endswith("pass")
    # the panel shows the reference the output matched, not the first, and lists the other
    assert any(m.value == "**Expected** (reference 2 of 2)" for m in at.markdown)
    captions = [c.value for c in at.caption]
    assert "4 characters. Other references: `Paris`" in captions
    assert "4 characters. Identical, code point for code point." in captions
    at.checkbox(key="gb_w_pg_multi").uncheck().run()


def test_an_invalid_schema_is_one_error(at):
    at.text_area(key="gb_w_pg_json_schema_schema").input('{"type": "nope"').run()
    assert len(at.error) == 1 and "not valid JSON" in at.error[0].value
    assert results(at)["JSON Schema"]["Explanation"].startswith("Not run:")
    at.text_area(key="gb_w_pg_json_schema_schema").input('{"type": "nope"}').run()
    assert len(at.error) == 1 and "not a valid Draft 2020-12 schema" in at.error[0].value
    assert results(at)["Exact match"]["Verdict"]  # the other graders still run


def test_a_python_regex_is_refused_with_its_hint(at):
    at.text_input(key="gb_w_pg_regex_pattern").input("(?i)canberra").run()
    assert len(at.error) == 1 and "put i in the flags field" in at.error[0].value
    assert results(at)["Regex (JavaScript)"]["Explanation"].startswith("Not run:")
    at.text_input(key="gb_w_pg_regex_pattern").input("canberra")
    at.text_input(key="gb_w_pg_regex_flags").input("i").run()
    assert len(at.error) == 0
    assert results(at)["Regex (JavaScript)"]["Verdict"].endswith("pass")


def test_bad_flags_are_one_error(at):
    at.text_input(key="gb_w_pg_regex_flags").input("q").run()
    assert len(at.error) == 1 and "not a JavaScript regex flag" in at.error[0].value
    assert not at.exception


def test_an_example_resets_the_parameters_the_last_one_set():
    """Each example starts from the defaults: after "3.11 vs About 3.1 miles" (numeric last,
    rel_tol 1%) and a hand-edited pipeline, "Canberra" reads numbers whole again and
    "NBSP Paris" passes normalized after trim."""
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    example(at, "3.11 vs About 3.1 miles")
    at.multiselect(key="gb_w_pg_normalized_pipeline").set_value(["nfc"]).run()
    example(at, "Canberra")
    assert at.radio(key="gb_w_pg_numeric_read").value == "whole"
    assert at.number_input(key="gb_w_pg_numeric_rel_tol").value == 0.0
    example(at, "NBSP Paris")
    assert at.multiselect(key="gb_w_pg_normalized_pipeline").value == ["trim", "lower"]
    assert results(at)["Normalized match"]["Verdict"].endswith("pass")


def test_a_combining_mark_at_the_first_difference_is_highlighted_as_its_code():
    """A combining mark alone has no width: the highlight shows ⟨U+FE0F⟩; elsewhere marks
    stay on their letter, with or without a tab in the text."""
    from graders.text.show import visible
    from ui.detail import marked_html

    html = marked_html("\u2764\ufe0f", 1)
    assert "<mark title='U+FE0F VARIATION SELECTOR-16'" in html and ">⟨U+FE0F⟩</mark>" in html
    assert visible("cafe\u0301") == "cafe\u0301" and visible("cafe\u0301\t") == "cafe\u0301⟨TAB⟩"
    assert visible("\u0915\u093f\u00a0") == "\u0915\u093f⟨U+00A0⟩"  # a Devanagari vowel sign stays


def test_character_counts_agree_in_number():
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=60).run()
    at.text_area(key="gb_w_pg_expected").input("a")
    at.text_area(key="gb_w_pg_output").input("b" * 1001).run()
    captions = [c.value for c in at.caption]
    assert "1 character" in captions and any(c.startswith("1,001 characters. First difference") for c in captions)
