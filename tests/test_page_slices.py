"""The Score and Compare pages' slices (issue 33) through AppTest: the "Slice by" select,
the table per slice and grader (or metric) equal to the library's ``by`` figures, the
chart, no rescoring when the column changes, and the chart builders validated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graders.compare.comparison import compare_file
from graders.config import as_run_config
from graders.pipeline import score_file
from graders.readers.files import read_results
from ui.present import slice_charts

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120

ROWS = [{"id": f"c{i}", "expected": "Paris", "output": ["Paris", "paris", "Rome"][i % 3],
         "output_b": ["Paris", "Rome"][i % 2], "difficulty": ["easy", "hard"][i % 2],
         "metadata": {"category": ["geo", "history", "art"][i % 3]} if i % 5 else {}}
        for i in range(30)]
DATA = "\n".join(json.dumps(r) for r in ROWS).encode()


def page(name: str, data: bytes = DATA, file_name: str = "run.jsonl") -> AppTest:
    """The page with ``data`` loaded, as ``ui.loading`` leaves it."""
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=TIMEOUT)
    for k, v in dict(gb_file=read_results(data, name=file_name), gb_file_name=file_name,
                     gb_file_hash=f"slices-{hash(data)}", gb_file_sample=None, gb_file_error=None).items():
        at.session_state[k] = v
    at.run()
    assert not at.exception and not at.error, ([e.value for e in at.exception], [e.value for e in at.error])
    return at


def charts(at: AppTest) -> list:
    found = []

    def walk(node):
        if getattr(node, "type", None) in ("vega_lite_chart", "arrow_vega_lite_chart"):
            found.append(node)
        for c in getattr(node, "children", {}).values():
            walk(c)

    walk(at._tree)
    return found


def slice_table(at: AppTest):
    return next(d.value for d in at.dataframe if "Slice" in d.value.columns)


def pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


@pytest.fixture(scope="module")
def score_page() -> AppTest:
    return page("score.py")


def test_score_page_offers_every_column_and_starts_without_slices(score_page):
    at = score_page
    select = at.selectbox(key="gb_w_score_slice_by")
    assert select.options == ["(none)", "id", "expected", "output", "output_b", "difficulty", "metadata",
                              "metadata.category"]
    assert select.value == "(none)"
    assert not any("Slice" in d.value.columns for d in at.dataframe)


def test_score_page_slices_by_a_metadata_field_as_the_library_does_without_rescoring(score_page):
    at = score_page
    scored = at.session_state["gb_score_count"]
    before = len(charts(at))
    at.selectbox(key="gb_w_score_slice_by").set_value("metadata.category").run()
    assert not at.exception and not at.error
    assert at.session_state["gb_score_count"] == scored  # the scored rows held, not scored again
    view = at.session_state["gb_view"]
    want = score_file(DATA, view["config"], by="metadata.category").summary["by"]
    assert view["slices"]["metadata.category"] == want
    table = slice_table(at)
    assert list(table["Slice"].unique()) == ["art", "geo", "history", "(missing)"]
    expected = [(slice_charts.slice_label(s["value"]), system, st["graded"], st["passed"], st["failed"],
                 pct(st["pass_rate"]), f"{pct(st['pass_rate_ci95'][0])} – {pct(st['pass_rate_ci95'][1])}")
                for s in want["slices"] for system, per in s["systems"].items() for st in per.values()]
    shown = list(zip(table["Slice"], table["System"], table["Graded"], table["Passed"], table["Failed"],
                     table["Pass rate"], table["95% interval"]))
    assert shown == expected  # a wide file: each output column is a system
    assert any("(missing): the rows whose cell is absent or empty" in c.value for c in at.caption)
    assert len(charts(at)) == before + 1  # the pass rate per slice


def test_score_page_changing_the_column_is_free_and_goes_back_from_memory(score_page):
    at = score_page
    scored = at.session_state["gb_score_count"]
    at.selectbox(key="gb_w_score_slice_by").set_value("difficulty").run()
    assert list(slice_table(at)["Slice"].unique()) == ["easy", "hard"]
    first = at.session_state["gb_view"]["slices"]["metadata.category"]
    at.selectbox(key="gb_w_score_slice_by").set_value("metadata.category").run()
    assert at.session_state["gb_view"]["slices"]["metadata.category"] is first  # kept, not computed again
    assert at.session_state["gb_score_count"] == scored


def test_score_page_a_column_of_ids_is_refused_with_a_warning(score_page):
    at = score_page
    at.selectbox(key="gb_w_score_slice_by").set_value("output").run()  # three values: fine
    assert list(slice_table(at)["Slice"].unique()) == ["Paris", "Rome", "paris"]
    many = b"id,expected,output\n" + b"".join(f"{i},a,a\n".encode() for i in range(1200))
    big = page("score.py", many, "many.csv")
    big.selectbox(key="gb_w_score_slice_by").set_value("id").run()
    assert any("200 distinct values" in w.value for w in big.warning)  # Markdown-escaped: 1\\,200
    assert not any("Slice" in d.value.columns for d in big.dataframe)


def test_score_page_slices_follow_a_threshold():
    at = page("score.py")
    graders = at.multiselect(key="gb_w_score_graders")
    graders.set_value(list(graders.value) + ["token_f1"]).run()
    at.checkbox(key="gb_w_score_token_f1_threshold_on").check().run()
    at.selectbox(key="gb_w_score_slice_by").set_value("difficulty").run()
    view = at.session_state["gb_view"]
    config = as_run_config(view["config"].to_dict())
    assert view["slices"]["difficulty"] == score_file(DATA, config, by="difficulty").summary["by"]
    assert "Token F1" in set(slice_table(at)["Grader"])


# --------------------------------------------------------------------------- Compare


@pytest.fixture(scope="module")
def compare_page() -> AppTest:
    return page("compare.py")


def test_compare_page_a_minus_b_per_slice_as_the_library_without_comparing_again(compare_page):
    at = compare_page
    compared = at.session_state["gb_compare_count"]
    before = len(charts(at))
    assert at.selectbox(key="gb_w_compare_slice_by").value == "(none)"
    at.selectbox(key="gb_w_compare_slice_by").set_value("difficulty").run()
    assert not at.exception and not at.error
    assert at.session_state["gb_compare_count"] == compared
    table = slice_table(at)
    graders = list(dict.fromkeys(table["Metric"]))
    assert list(table["Slice"].unique()) == ["easy", "hard"]
    assert len(charts(at)) == before + 1
    # the figures of compare_file(by=...) with the page's configuration, resamples and seed
    config = {"graders": [{"name": n} for n in at.multiselect(key="gb_w_compare_graders").value]}
    want = compare_file(read_results(DATA), config, by="difficulty",
                        resamples=int(at.session_state["gb_w_compare_resamples"]),
                        seed=int(at.session_state["gb_w_compare_seed"])).by
    frame = slice_charts.compare_slice_frame(want)
    expected = slice_charts.compare_slice_table(frame)
    assert list(expected["Metric"].unique()) == graders
    assert table.reset_index(drop=True).equals(expected.reset_index(drop=True))
    assert any("each p is unadjusted" in c.value for c in at.caption)


def test_compare_page_missing_values_and_a_bad_column(compare_page):
    at = compare_page
    at.selectbox(key="gb_w_compare_slice_by").set_value("metadata.category").run()
    assert list(slice_table(at)["Slice"].unique()) == ["art", "geo", "history", "(missing)"]
    at.selectbox(key="gb_w_compare_slice_by").set_value("id").run()  # 30 ids, 30 slices: drawn, all listed
    assert slice_table(at)["Slice"].nunique() == 30


# --------------------------------------------------------------------------- the chart builders


def test_the_slice_charts_validate_against_vega_lite():
    by = score_file(DATA, {"graders": [{"name": "exact"}, {"name": "bleu"}]}, by="metadata.category").summary["by"]
    frame = slice_charts.score_slice_frame(by)
    spec = slice_charts.pass_rate_chart(frame).to_dict()  # validates
    assert {d["slice"] for d in spec["datasets"][next(iter(spec["datasets"]))]} == {"art", "geo", "history", "(missing)"}
    compared = compare_file(read_results(DATA), {"graders": [{"name": "exact"}]}, by="difficulty", resamples=200).by
    slice_charts.difference_chart(slice_charts.compare_slice_frame(compared)).to_dict()


def test_the_chart_draws_the_largest_slices_and_the_table_lists_all():
    frame = slice_charts.score_slice_frame({"slices": [
        {"value": str(i), "rows": i, "graders": {"exact": {"graded": i, "passed": 0, "failed": i, "pass_rate": 0.0,
                                                          "pass_rate_ci95": [0.0, 0.5], "mean_score": 0.0}}}
        for i in range(1, 41)]})
    shown = slice_charts.chart_slices(frame)
    assert shown == [str(i) for i in range(11, 41)]  # the 30 with the most rows, in the slices' order
    assert len(slice_charts.score_slice_table(frame)) == 40


def test_a_lone_surrogate_in_a_slice_value_is_shown_as_its_escape():
    assert slice_charts.slice_label("a\ud800") == "a\\ud800"
    assert slice_charts.slice_label(None) == "(missing)"
