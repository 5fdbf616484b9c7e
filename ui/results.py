"""The Score page's results grid (issue 33): one row per case (× system × repeat) with its
id, input, expected answer and output and each scorer's verdict and score, filtered,
sorted and paged over the whole file; selecting a row opens its detail (``views.detail_for``).
The pandas work is ``ui.present.grid``'s; here are its widgets.

Session state: ``gb_w_grid_search``, ``gb_w_grid_sort``, ``gb_w_grid_desc``,
``gb_w_grid_verdict_scorer``, ``gb_w_grid_verdicts``, ``gb_w_grid_disagree``,
``gb_w_grid_harness``, ``gb_w_grid_harness_column``, ``gb_w_grid_meta_column``,
``gb_w_grid_meta_values``, ``gb_w_grid_score_scorer``, ``gb_w_grid_score_range``,
``gb_w_grid_page`` (the grid's widgets); ``gb_grid_table`` (its row selection) and
``gb_grid_table_listed``; ``gb_grid_listed`` (the query the page number belongs to);
``gb_grid_last`` and ``gb_grid_last_rows`` (the last grid, whose columns a new view
reuses); ``gb_harness_columns`` (the file's harness verdict columns).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from graders.registry import REGISTRY
from ui.present import grid as grid_mod

from . import count, display, keep_selection_if_listed
from .views import detail_for, label


def grid_of(view: dict[str, Any]) -> grid_mod.Grid:
    """The view's results grid, built once per view (the last view's columns reused
    where a scorer's rows did not change)."""
    if "grid" not in view:
        ss = st.session_state
        previous = ss.get("gb_grid_last")
        run = view["run"]
        if previous is not None and previous.n != len(run.prepared.rows):
            previous = None
        if previous is not None and ss.get("gb_grid_last_rows") is not run.prepared:
            previous = None
        view["grid"] = grid_mod.build_grid(view["parts"], run.prepared.rows, run.file, run.mapping,
                                           list(view["config"].grader_names), previous=previous,
                                           bases=view.get("bases"))
        ss["gb_grid_last"], ss["gb_grid_last_rows"] = view["grid"], run.prepared
    return view["grid"]


def _keep_option(key: str, options: Sequence[Any], default: Any) -> None:
    """A select box's remembered choice, or ``default`` when it is no longer offered."""
    ss = st.session_state
    if ss.get(key, default) not in options:
        ss[key] = default
    ss.setdefault(key, default)


def grid_query(view: dict[str, Any], grid: grid_mod.Grid) -> grid_mod.GridQuery:
    """The grid's filter and sort widgets, read as a ``GridQuery``."""
    ss = st.session_state
    file = view["run"].file
    name = lambda s: label(s) if s else "any grader"  # noqa: E731
    c1, c2, c3 = st.columns([5, 5, 4])
    search = c1.text_input("Search", key="gb_w_grid_search", persist_state="session",
                           help="Text in the case id, input, expected or output (any case).")
    sorts = grid_mod.sort_keys(grid)
    _keep_option("gb_w_grid_sort", sorts, grid_mod.FILE_ORDER)
    sort = c2.selectbox("Sort by", sorts, key="gb_w_grid_sort", persist_state="session",
                        format_func=lambda k: "file order" if k == grid_mod.FILE_ORDER else k)
    ss.setdefault("gb_w_grid_desc", False)
    descending = c3.checkbox("Descending", key="gb_w_grid_desc", persist_state="session")
    c1, c2, c3 = st.columns([5, 5, 4])
    scorers = [grid_mod.ANY_GRADER, *grid.scorers]
    _keep_option("gb_w_grid_verdict_scorer", scorers, grid_mod.ANY_GRADER)
    verdict_scorer = c1.selectbox("Verdict of", scorers, key="gb_w_grid_verdict_scorer", persist_state="session",
                                  format_func=name)
    ss.setdefault("gb_w_grid_verdicts", [])
    verdicts = c2.multiselect("Verdicts", grid_mod.VERDICT_WORDS, key="gb_w_grid_verdicts", persist_state="session",
                              help="Rows whose verdict is one of these; none chosen: every row.")
    ss.setdefault("gb_w_grid_disagree", False)
    disagree = c3.checkbox("Graders disagree", key="gb_w_grid_disagree", persist_state="session",
                           help="Rows one grader passes and another fails.")
    harness = harness_column = meta_column = score_scorer = ""
    meta_values: tuple[str, ...] = ()
    score_range = None
    with st.expander("More filters: a column of the file, a score range, the harness's verdict"):
        c1, c2 = st.columns(2)
        metas = [""] + [c for c in file.columns if c not in set(v for v in view["run"].mapping.values() if v)]
        _keep_option("gb_w_grid_meta_column", metas, "")
        meta_column = c1.selectbox("Column of the file", metas, key="gb_w_grid_meta_column", persist_state="session",
                                   format_func=lambda c: "— none —" if not c else display.text(c))
        if meta_column:
            counted = grid_mod.metadata_values(grid, file, meta_column)
            offered = [v for v, _ in counted]
            ss["gb_w_grid_meta_values"] = [v for v in ss.get("gb_w_grid_meta_values", []) if v in offered]
            meta_values = tuple(c2.multiselect("Values", offered, key="gb_w_grid_meta_values",
                                               format_func=lambda v: f"{display.text(v) or '(empty)'}",
                                               help="Rows whose cell is one of these; none chosen: every row."))
        c1, c2 = st.columns(2)
        scored = ["", *grid.scored_scorers()]
        _keep_option("gb_w_grid_score_scorer", scored, "")
        score_scorer = c1.selectbox("Score of", scored, key="gb_w_grid_score_scorer", persist_state="session",
                                    format_func=lambda s: "— none —" if not s else label(s))
        if score_scorer:
            values = grid.values[score_scorer]
            low, high = float(np.nanmin(values)), float(np.nanmax(values))
            low, high = min(low, 0.0), max(high, 1.0)
            got = ss.get("gb_w_grid_score_range")
            if not (isinstance(got, (tuple, list)) and len(got) == 2 and low <= got[0] <= got[1] <= high):
                ss["gb_w_grid_score_range"] = (low, high)
            score_range = tuple(c2.slider("Score range", low, high, key="gb_w_grid_score_range", step=0.01))
        columns = _harness_columns(file)
        if columns:
            c1, c2 = st.columns(2)
            _keep_option("gb_w_grid_harness_column", columns, columns[0])
            harness_column = c1.selectbox("The harness's verdict", columns, key="gb_w_grid_harness_column",
                                          format_func=display.text)
            binary = [""] + [s for s in grid.scorers if s in _binary_scorers(view)]
            _keep_option("gb_w_grid_harness", binary, "")
            harness = c2.selectbox("Disagrees with", binary, key="gb_w_grid_harness",
                                   format_func=lambda s: "— no filter —" if not s else label(s),
                                   help="Rows the harness and this grader both decided, differently.")
    return grid_mod.GridQuery(search=search, verdict_scorer=verdict_scorer, verdicts=tuple(verdicts),
                              disagree=disagree, harness=harness, harness_column=harness_column,
                              meta_column=meta_column, meta_values=meta_values, score_scorer=score_scorer,
                              score_range=score_range, sort=sort, descending=descending)


def _harness_columns(file: Any) -> list[str]:
    """The file's columns of the harness's own verdicts (``scoring.agreement.verdict_columns``)."""
    if not any(str(c).startswith("harness.") for c in file.columns):
        return []
    from graders.scoring.agreement import verdict_columns

    ss = st.session_state
    memo = ss.setdefault("gb_harness_columns", {})
    if id(file) not in memo:
        memo.clear()
        memo[id(file)] = list(verdict_columns(file))
    return memo[id(file)]


def _binary_scorers(view: Mapping[str, Any]) -> set[str]:
    binary = {s for s in view["config"].grader_names if REGISTRY[s].binary}
    return binary | ({"overall"} if view["config"].overall else set())


def grid_section(view: dict[str, Any]) -> None:
    """The results grid: one row per case (× system × repeat) with its texts and every
    scorer's verdict and score, filtered, sorted and paged over the whole file; selecting a
    row opens its detail (expected and output side by side, each grader's explanation)."""
    ss = st.session_state
    st.subheader("Results")
    grid = grid_of(view)
    query = grid_query(view, grid)
    hay = view.get("haystack")
    positions = grid_mod.matching(grid, query, view["run"].file, hay)
    total = len(positions)
    last = grid_mod.pages(total)
    listed = (view["key"], query)
    if ss.get("gb_grid_listed") != listed:  # a new filter or sort starts at its first page
        ss["gb_grid_listed"] = listed
        ss["gb_w_grid_page"] = 1
    if not isinstance(ss.get("gb_w_grid_page"), int) or not 1 <= ss["gb_w_grid_page"] <= last:
        ss["gb_w_grid_page"] = min(max(1, int(ss.get("gb_w_grid_page") or 1)), last)
    c1, c2 = st.columns([1, 3])
    page = c1.number_input("Page", min_value=1, max_value=last, step=1, key="gb_w_grid_page")
    first = (page - 1) * grid_mod.PAGE_ROWS
    c2.caption(f"{total:,} of {count(grid.n, 'row')}" + (f" · rows {first + 1:,}–{min(total, first + grid_mod.PAGE_ROWS):,},"
                                                         f" page {page:,} of {last:,}" if total else "")
               + (". Select a row to see it in detail." if total else "."))
    at = grid_mod.page_positions(positions, page)
    table = grid_mod.page_frame(grid, at)
    config: dict[str, Any] = {c: st.column_config.TextColumn(width="medium") for c in ("input", "expected", "output")
                              if c in grid.text}
    config.update({grid_mod.score_column(s): st.column_config.NumberColumn(format="%.3f") for s in grid.scorers})
    keep_selection_if_listed("gb_grid_table", (id(grid), query, page))
    event = st.dataframe(display.frame(table), hide_index=True, on_select="rerun", selection_mode="single-row",
                         key="gb_grid_table", width="stretch", column_config=config)
    picked = event.selection.rows if event is not None and hasattr(event, "selection") else []
    if picked and picked[0] < len(at):
        i = int(at[picked[0]])
        detail_for(view, pd.Series({"record": grid.record[i], "system": grid.system[i]}))


def harness_section(view: dict[str, Any]) -> None:
    """The harness's own verdict beside each pass-or-fail grader (a file that carries it:
    promptfoo's harness.pass, Inspect's harness.<scorer>.value, lm-eval's harness.<metric>),
    often the most useful thing a re-grade shows; the first cases where they part."""
    agreement = view["summary"].get("harness_agreement")
    if not agreement:
        return
    st.subheader("The harness's verdict beside ours")
    rows = [{"Harness column": column, "Grader": label(name), "Rows both decided": a["rows"], "Agree": a["agree"],
             "Harness pass, ours fail": a["harness_pass_ours_fail"], "Harness fail, ours pass": a["harness_fail_ours_pass"],
             "First cases where they part": ", ".join(a["first_disagreements"])}
            for column, per in agreement.items() for name, a in per.items()]
    st.dataframe(display.frame(pd.DataFrame(rows, dtype=object)), hide_index=True, width="stretch")
    st.caption("Only rows both sides decided count. Under Results, More filters shows the rows where the "
               "harness and a grader part.")
