"""The Score and Compare pages' slices (issue 33): a "Slice by" select over the file's
columns (a dotted metadata field too), then per slice a table and a chart.

Nothing is rescored when the column changes. The Score page slices the scored rows its
view holds (``ui.scoring.scored_view``, thresholds applied): a ``graders.scoring.slices.Slicer``
is built once per view (``view["slicer"]``) and each column's figures are kept in the view
(``view["slices"]``), so going back to a column is free and the figures are those
``gradeboard score --by COLUMN`` writes. The Compare page slices its cached comparison's
pairs (``graders.compare.slices``), cached per comparison and column.

Session state set here: ``gb_w_score_slice_by`` / ``gb_w_compare_slice_by``, the column chosen.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import pandas as pd
import streamlit as st

from graders.compare.slices import comparison_slices
from graders.readers.frame import ResultsFile
from graders.scoring.slices import SliceError, Slicer, row_values
from graders.scoring.summary import extracting_graders
from ui.present import slice_charts as charts
from ui.present.compare_tables import metric_label

from . import count, display
from .graders_form import PERSIST, wkey

NO_SLICES = "(none)"
SCORED_COLUMNS = ["item", "system", "record", "scorer", "status", "score", "near_miss"]  # what a Slicer reads
MISSING_WORDS = f"{charts.MISSING_LABEL}: the rows whose cell is absent or empty."


def column_select(prefix: str, file: ResultsFile) -> str | None:
    """The "Slice by" select: one of the file's columns, or None for no slices."""
    key = wkey(prefix, "slice_by")
    options = [NO_SLICES, *file.columns]
    if st.session_state.get(key) not in options:  # another file's column
        st.session_state[key] = NO_SLICES
    choice = st.selectbox("Slice by", options, key=key, persist_state=PERSIST, format_func=display.text,
                          help="Any column of the file, or a field of a JSON object as a dotted column "
                               "(metadata.category): each grader's figures per value of it.")
    return None if choice == NO_SLICES else choice


def score_slices(view: dict[str, Any], column: str) -> dict[str, Any] | str:
    """The view's figures by ``column`` (the summary's ``by`` section), or why not."""
    memo = view.setdefault("slices", {})
    if column not in memo:
        run = view["run"]
        try:
            if "slicer" not in view:
                scored = pd.concat([part[SCORED_COLUMNS] for part in view["parts"].values()], ignore_index=True)
                view["slicer"] = Slicer(scored, run.prepared.rows, extracting_graders(view["summary"]["config"]))
            memo[column] = view["slicer"].by(column, row_values(run.file, run.prepared.rows, column))
        except SliceError as e:
            memo[column] = str(e)
    return memo[column]


def _missing_caption(by: Mapping[str, Any]) -> str:
    return f" {MISSING_WORDS}" if by["slices"] and by["slices"][-1]["value"] is None else ""


def _chart(chart: Any) -> dict:
    """An Altair chart's Vega-Lite spec, without Altair's schema validation (most of the
    cost, as ``ui.views.chart_specs`` says; tests/test_slices.py validates the builders)."""
    return chart.to_dict(validate=False)


def score_slices_section(view: dict[str, Any]) -> None:
    """The Score page's slices: each grader's pass rate, interval and counts per value of a column."""
    st.subheader("Slices")
    column = column_select("score", view["run"].file)
    if column is None:
        st.caption("Pick a column to see each grader's pass rate with its interval for each of its values "
                   "(a category, a difficulty, a language).")
        return
    by = score_slices(view, column)
    if isinstance(by, str):
        st.warning(display.md(by))
        return
    frame = charts.score_slice_frame(by)
    st.dataframe(display.frame(charts.score_slice_table(frame)), hide_index=True, width="stretch")
    n = len(by["slices"])
    st.caption(f"{count(n, 'slice')} of {display.md(column)}.{_missing_caption(by)} Pass rate = passed / (passed + "
               "failed), with Wilson's 95% interval; \"by case\": clustered by case, the repeats of a case counted "
               "as one case's worth (the whole file's figures are the counts table's).")
    if frame["pass_rate"].notna().any():
        shown = charts.chart_slices(frame)
        specs = view.setdefault("slice_specs", {})  # kept with the view's figures
        if column not in specs:
            specs[column] = _chart(charts.pass_rate_chart(frame, shown))
        st.vega_lite_chart(specs[column], width="stretch")
        if len(shown) < n:
            st.caption(f"The chart draws the {len(shown)} slices with the most rows; the table lists all {n:,}.")


@st.cache_resource(max_entries=8, show_spinner=False)
def cached_slices(key: str, _comparison: Any, _file: ResultsFile, _column: str) -> dict[str, Any] | str:
    """``comparison_slices``, or why not. ``key``: the comparison's key and the column as
    JSON (a column name may hold a lone surrogate, which Streamlit's hash cannot encode)."""
    try:
        return comparison_slices(_comparison, _file, _column)
    except SliceError as e:
        return str(e)


def compare_slices_section(run: Any) -> None:
    """The Compare page's slices: per value of a column, each metric's A − B with its interval."""
    column = column_select("compare", run.file)
    if column is None:
        st.caption("Pick a column to see A − B with its 95% interval for each of its values.")
        return
    with st.spinner("Comparing each slice…"):
        by = cached_slices(run.key + json.dumps(column), run.comparison, run.file, column)
    if isinstance(by, str):
        st.warning(display.md(by))
        return
    frame = charts.compare_slice_frame(by, metric_label)
    st.dataframe(display.frame(charts.compare_slice_table(frame)), hide_index=True, width="stretch")
    n = len(by["slices"])
    st.caption(f"{count(n, 'slice')} of {display.md(column)}; a pair's slice is its A row's value.{_missing_caption(by)} "
               "Intervals as in the metric table; each p is unadjusted: a slice is a closer look, and the verdict is "
               "the whole comparison's.")
    if (frame["n"] > 0).any():
        shown = charts.chart_slices(frame, size="pairs")
        st.vega_lite_chart(_chart(charts.difference_chart(frame, shown)), width="stretch")
        if len(shown) < n:
            st.caption(f"The chart draws the {len(shown)} slices with the most pairs; the table lists all {n:,}.")
