"""AppTest of the Score page's results grid (issue 33, 2): one row per case × system ×
repeat with its texts and each scorer's verdict and score, paged over the whole file,
sorted, searched, and filtered by verdict, by grader disagreement, by the harness's own
verdict (issue 30), by a column of the file and by score range; the pass counts open
the pass-rate calculator in the same session (issue 33, 6)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ui.present import grid as G

ROOT = Path(__file__).resolve().parent.parent
PROMPTFOO = ROOT / "tests" / "files" / "harness" / "promptfoo" / "results.json"


def start() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    return at


def grid_table(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "case" in d.value.columns and "output" in d.value.columns)


def caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if " rows" in c.value and (" of " in c.value) and "scored rows" not in c.value)


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="score_upload").set_value((name, data, "text/plain"))
    at.run()
    assert not at.exception, at.exception
    return at


def many_rows(n: int) -> bytes:
    lines = ["id,question,answer,response,category"]
    for i in range(n):
        answer = f"refund order {i}"
        lines.append(f"c{i:05d},What of order {i}?,{answer},{answer if i % 3 else answer.upper()},{['shipping', 'refunds', 'billing'][i % 3]}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def desk() -> AppTest:
    return start()


def test_one_row_per_case_with_its_texts_and_each_verdict_and_score(desk):
    table = grid_table(desk)
    view = desk.session_state["gb_view"]
    assert len(table) == 40 and list(table["case"][:3]) == ["r01", "r02", "r03"]
    assert list(table.columns[:4]) == ["case", "input", "expected", "output"]
    for scorer in view["parts"]:
        assert G.verdict_column(scorer) in table.columns and G.score_column(scorer) in table.columns
    r02 = table[table["case"] == "r02"].iloc[0]
    assert (r02["expected"], r02["output"]) == ("store credit", "Store credit")
    assert r02["Exact match"] == "fail" and r02["Normalized match"] == "pass" and r02["Exact match · score"] == 0.0
    assert caption(desk).startswith("40 of 40 rows")


def test_selecting_a_grid_row_opens_its_detail():
    at = start()
    at.session_state["gb_grid_table"] = {"selection": {"rows": [1], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    headers = [m.value for m in at.markdown if m.value.startswith("#### Case")]
    assert headers and headers[0].startswith("#### Case r02")
    detail = [t.value for t in at.table if "Verdict" in t.value.columns][0]
    assert detail["Explanation"].map(lambda x: isinstance(x, str) and x != "").all()  # explanations a click away


def test_paged_over_the_whole_file_past_row_1000():
    at = upload(start(), "many.csv", many_rows(2500))
    assert len(grid_table(at)) == G.PAGE_ROWS
    assert caption(at).startswith("2,500 of 2,500 rows · rows 1–100, page 1 of 25")
    at.number_input(key="gb_w_grid_page").set_value(11).run()
    table = grid_table(at)
    assert table["case"].iloc[0] == "c01000" and table["expected"].iloc[0] == "refund order 1000"
    assert "rows 1,001–1,100" in caption(at)
    at.number_input(key="gb_w_grid_page").set_value(25).run()
    assert grid_table(at)["case"].iloc[-1] == "c02499"
    runs = at.session_state["gb_score_count"]
    at.text_input(key="gb_w_grid_search").input("order 2499").run()  # a new query starts at page 1
    assert at.number_input(key="gb_w_grid_page").value == 1
    assert list(grid_table(at)["case"]) == ["c02499"]
    assert at.session_state["gb_score_count"] == runs  # the grid never rescores


def test_sorting_by_a_score_a_verdict_and_the_case_id(desk):
    at = desk
    view = at.session_state["gb_view"]
    at.selectbox(key="gb_w_grid_sort").set_value(G.score_column("token_f1")).run()
    at.checkbox(key="gb_w_grid_desc").check().run()
    scores = grid_table(at)["Token F1 · score"].to_numpy()
    assert (np.diff(scores[~np.isnan(scores)]) <= 0).all()
    at.selectbox(key="gb_w_grid_sort").set_value("case").run()
    assert list(grid_table(at)["case"][:2]) == ["r40", "r39"]
    at.checkbox(key="gb_w_grid_desc").uncheck().run()
    at.selectbox(key="gb_w_grid_sort").set_value(G.verdict_column("exact")).run()
    table = grid_table(at)
    failed = view["summary"]["graders"]["exact"]["failed"]
    assert (table["Exact match"][:failed] == "fail").all() and (table["Exact match"][failed:] == "pass").all()
    at.selectbox(key="gb_w_grid_sort").set_value(G.FILE_ORDER).run()


def test_searching_the_id_input_expected_and_output(desk):
    at = desk
    at.text_input(key="gb_w_grid_search").input("STORE CREDIT").run()
    table = grid_table(at)
    text = (table["case"] + " " + table["input"] + " " + table["expected"] + " " + table["output"]).str.lower()
    assert len(table) >= 2 and text.str.contains("store credit").all()
    at.text_input(key="gb_w_grid_search").input("").run()
    assert len(grid_table(at)) == 40


def test_filtering_by_verdict_and_by_grader_disagreement(desk):
    at = desk
    graders = at.session_state["gb_view"]["summary"]["graders"]
    at.selectbox(key="gb_w_grid_verdict_scorer").set_value("exact").run()
    at.multiselect(key="gb_w_grid_verdicts").set_value(["fail"]).run()
    table = grid_table(at)
    assert len(table) == graders["exact"]["failed"] and (table["Exact match"] == "fail").all()
    at.multiselect(key="gb_w_grid_verdicts").set_value([]).run()
    at.checkbox(key="gb_w_grid_disagree").check().run()
    table = grid_table(at)
    configured = [G.verdict_column(s) for s in at.session_state["gb_view"]["config"].grader_names]
    verdicts = table[configured]
    assert len(table) and ((verdicts == "pass").any(axis=1) & (verdicts == "fail").any(axis=1)).all()
    assert len(table) < 40
    at.checkbox(key="gb_w_grid_disagree").uncheck().run()


def test_filtering_by_a_column_of_the_file_and_by_score_range():
    at = upload(start(), "many.csv", many_rows(300))
    at.multiselect(key="gb_w_score_graders").set_value(["exact", "normalized", "token_f1"]).run()
    assert not at.exception
    assert "category" in at.selectbox(key="gb_w_grid_meta_column").options
    at.selectbox(key="gb_w_grid_meta_column").set_value("category").run()
    at.multiselect(key="gb_w_grid_meta_values").set_value(["refunds"]).run()
    assert caption(at).startswith("100 of 300 rows")
    at.multiselect(key="gb_w_grid_meta_values").set_value([]).run()
    at.selectbox(key="gb_w_grid_meta_column").set_value("").run()
    at.selectbox(key="gb_w_grid_score_scorer").set_value("exact").run()
    at.slider(key="gb_w_grid_score_range").set_value((0.5, 1.0)).run()
    assert caption(at).startswith("200 of 300 rows")  # a third are upper-cased: exact fails them
    assert (grid_table(at)["Exact match"] == "pass").all()


def test_filtering_by_the_harness_verdict_against_a_grader():
    at = upload(start(), PROMPTFOO.name, PROMPTFOO.read_bytes())
    assert at.selectbox(key="gb_w_grid_harness_column").value == "harness.pass"
    at.selectbox(key="gb_w_grid_harness").set_value("exact").run()
    agreement = at.session_state["gb_view"]["summary"]["harness_agreement"]["harness.pass"]["exact"]
    parted = agreement["rows"] - agreement["agree"]
    text = caption(at)
    rows = len(at.session_state["gb_view"]["run"].prepared.rows)
    assert text.startswith(f"{parted:,} of {rows:,} row"), text
    shown = set(grid_table(at)["case"]) if parted else set()
    assert shown == set(agreement["first_disagreements"])


def test_the_grid_keeps_its_filters_when_a_grader_is_added_and_forgets_a_removed_ones():
    at = start()
    at.selectbox(key="gb_w_grid_verdict_scorer").set_value("contains").run()
    at.multiselect(key="gb_w_grid_verdicts").set_value(["pass"]).run()
    graders = at.multiselect(key="gb_w_score_graders")
    graders.set_value([g for g in graders.value if g != "contains"]).run()
    assert not at.exception
    assert at.selectbox(key="gb_w_grid_verdict_scorer").value == G.ANY_GRADER
    assert "Contains" not in grid_table(at).columns


def test_each_pass_count_opens_the_pass_rate_page_in_the_same_session(desk):
    links = [p for p in desk.get("page_link") if p.proto.page == "pass_rate"]
    assert links[0].proto.label == "Exact match: 8 of 40"
    assert parse_qs(links[0].proto.query_string) == {"k": ["8"], "n": ["40"], "label": ["Exact match: passed"]}
    summary = desk.session_state["gb_view"]["summary"]
    labels = [p.proto.label for p in links]
    assert any(label.startswith("Overall: ") for label in labels)
    assert len(links) == sum(1 for c in summary["graders"].values() if c["passed"] + c["failed"])


def test_the_pass_rate_page_reads_the_links_figures_and_the_file_stays():
    at = start()
    at.file_uploader(key="score_upload").set_value(("three.csv", b"id,expected,output\n1,a,a\n2,b,c\n3,d,d\n", "text/csv"))
    at.run()
    link = next(p for p in at.get("page_link") if p.proto.page == "pass_rate")
    query = {k: v[0] for k, v in parse_qs(link.proto.query_string).items()}
    at.query_params.update(query)  # what the link's query_params put in the address
    at.switch_page("pages/pass_rate.py").run()
    assert not at.exception
    assert any("2 of 3 pass" in m.value for m in at.markdown), [m.value for m in at.markdown][:5]
    at.switch_page("pages/score.py").run()
    assert at.session_state["gb_file_name"] == "three.csv"
    assert at.session_state["gb_view"]["summary"]["graders"]["exact"]["passed"] == 2


# --------------------------------------------------------------------------- the pure functions


def _grid(n: int = 1000) -> G.Grid:
    rng = np.random.default_rng(0)
    status = {"exact": rng.choice(np.array(["pass", "fail"], dtype=object), n),
              "token_f1": np.full(n, "scored", dtype=object)}
    values = {"exact": (status["exact"] == "pass").astype(float), "token_f1": rng.random(n)}
    values["token_f1"][::7] = np.nan
    text = {"case": np.array([f"c{i:04d}" for i in range(n)], dtype=object),
            "expected": np.array(["x"] * n, dtype=object), "output": np.array([f"out {i}" for i in range(n)], dtype=object)}
    return G.Grid(n, ["exact", "token_f1"], ["exact", "token_f1"], text, status, values, np.arange(n),
                  np.full(n, "", dtype=object), np.arange(n))


def test_matching_is_a_mask_and_a_stable_order():
    grid = _grid()
    q = G.GridQuery(verdict_scorer="exact", verdicts=("fail",), sort=G.score_column("token_f1"), descending=True)
    at = G.matching(grid, q)
    assert (grid.status["exact"][at] == "fail").all() and len(at) == (grid.status["exact"] == "fail").sum()
    v = grid.values["token_f1"][at]
    finite = v[~np.isnan(v)]
    assert (np.diff(finite) <= 0).all() and np.isnan(v[len(finite):]).all()  # no score last
    page = G.page_frame(grid, G.page_positions(at, 2))
    assert len(page) == min(G.PAGE_ROWS, max(0, len(at) - G.PAGE_ROWS))
    assert G.page_positions(at, 10_000).tolist() == at[(G.pages(len(at)) - 1) * G.PAGE_ROWS:].tolist()  # clamped
    ranged = G.matching(grid, G.GridQuery(score_scorer="token_f1", score_range=(0.25, 0.5)))
    assert ((grid.values["token_f1"][ranged] >= 0.25) & (grid.values["token_f1"][ranged] <= 0.5)).all()
    assert len(G.matching(grid, G.GridQuery(search="OUT 99"))) == 11  # out 99, out 990 … out 999


def test_long_cells_are_cut_for_the_browser_and_lone_surrogates_pass():
    grid = _grid(3)
    grid.text["output"] = np.array(["y" * (G.MAX_CELL + 50), "\ud800", ""], dtype=object)
    page = G.page_frame(grid, np.arange(3))
    assert len(page["output"][0]) == G.MAX_CELL + 1 and page["output"][0].endswith("…")
    assert page["output"][1] == "\ud800"
    assert json.dumps(list(page.columns))
