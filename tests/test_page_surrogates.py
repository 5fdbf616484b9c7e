"""A JSON results file may hold lone surrogates ("\\ud800": an emoji cut in half by a
token limit), in cells, versions and keys. UTF-8 cannot encode them, and Streamlit sends
everything as UTF-8: each page shows them as their escape (``ui.display``), never a
traceback, while the data scored and downloaded stays as read."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ui import display

ROOT = Path(__file__).resolve().parent.parent
S = "\ud800"

# --------------------------------------------------------------------------- ui.display


@pytest.mark.parametrize("value, shown", [
    ("plain", "plain"),
    ("a\ud800b", "a\\ud800b"),
    ("\udfff\ud83d", "\\udfff\\ud83d"),
    ("😀", "😀"),  # a whole pair is one code point: nothing to escape
    (3, 3),
    (None, None),
])
def test_text_escapes_lone_surrogates_only(value, shown):
    assert display.text(value) == shown


@pytest.mark.parametrize("value, shown", [
    ("v1", "v1"),
    ("**bold** _it_ [x](y) `c` $x$ :red[z] a|b", r"\*\*bold\*\* \_it\_ \[x\]\(y\) \`c\` \$x\$ \:red\[z\] a\|b"),
    ("a\nb\r\nc\rd", "a⟨LF⟩b⟨CR⟩⟨LF⟩c⟨CR⟩d"),
    ("v\ud800", "v\\\\ud800"),  # the escape's backslash is itself escaped, so it shows
    ("back\\slash", "back\\\\slash"),
])
def test_md_is_literal_text_on_one_line(value, shown):
    assert display.md(value) == shown


def test_md_breaks_replace_line_breaks_in_a_prompt():
    assert display.md("line one\nline two", breaks=" ") == "line one line two"


@pytest.mark.parametrize("value, shown", [
    ("output", "`output`"),
    ("a`b", "``a`b``"),
    ("a``b", "```a``b```"),
    ("`x", "`` `x ``"),
    ("k\ud800", "`k\\ud800`"),
])
def test_code_fences_around_any_backticks(value, shown):
    assert display.code(value) == shown


def test_frame_escapes_cells_names_and_index_and_leaves_a_clean_frame_alone():
    clean = pd.DataFrame({"a": ["x", "y"], "n": [1, 2]}, dtype=object)
    assert display.frame(clean) is clean
    dirty = pd.DataFrame({"a": ["x" + S, None], "n": [1, 2.5]}, dtype=object)
    dirty.columns = pd.Index(["a", "k" + S], dtype=object)
    dirty.index = pd.Index(["i" + S, "j"], dtype=object)
    shown = display.frame(dirty)
    assert shown["a"].tolist() == ["x\\ud800", None]
    assert list(shown.columns) == ["a", "k\\ud800"] and list(shown.index) == ["i\\ud800", "j"]
    assert dirty.iloc[0, 0] == "x" + S  # the data itself is unchanged
    shown.to_json()  # and what is shown encodes
    "".join(map(str, [*shown.columns, *shown.index, shown.iloc[0, 0]])).encode("utf-8")


# --------------------------------------------------------------------------- every page

ROWS = [
    {"id": "a" + S, "expected": "Paris" + S, "output": "paris\udfff", "version": "v1" + S, "input": "q" + S,
     "meta": {"k" + S: "x" + S}},
    {"id": "b*", "expected": "Rome", "output": "Rome", "version": "v2", "input": "q", "meta": {"k" + S: "y"}},
    {"id": "b*", "expected": "Rome", "output": "rome" + S, "version": "v1" + S, "input": "q", "meta": {"k" + S: "y"}},
    {"id": "c", "expected": "x\ud83d", "output": "y", "version": "v1" + S, "input": "q", "meta": {"k" + S: "z"}},
    {"id": "c", "expected": "x\ud83d", "output": "x\ud83d", "version": "v2", "input": "q", "meta": {"k" + S: "z"}},
    {"id": "a" + S, "expected": "Paris" + S, "output": "Paris", "version": "v2", "input": "q", "meta": {"k" + S: "x" + S}},
]


def no_trouble(at: AppTest, where: str) -> None:
    assert not at.exception, (where, [e.value for e in at.exception])
    assert not at.error, (where, [e.value for e in at.error])


@pytest.fixture(scope="module")
def loaded() -> AppTest:
    """The app with the file pasted on the Score page (JSON escapes, as a file holds them)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.text_area(key="score_paste").input("\n".join(json.dumps(r) for r in ROWS))
    at.button(key="score_paste_go").click().run()
    no_trouble(at, "paste")
    return at


def test_the_score_page_shows_every_surrogate_escaped(loaded):
    at = loaded
    assert at.session_state["gb_file"].frame.loc[0, "id"] == "a" + S  # the cell as read
    preview = at.dataframe[0].value
    assert "meta.k\\ud800" in preview.columns and preview["id"].iloc[0] == "a\\ud800"
    table = next(m.value for m in at.markdown if "\n| System" in m.value)
    assert "| v1\\\\ud800 |" in table  # the version, escaped for Markdown too
    at.multiselect(key="gb_w_score_graders").set_value(["exact", "normalized", "contains", "bleu", "chrf", "numeric"]).run()
    no_trouble(at, "graders")
    at.multiselect(key="gb_w_score_filter_kinds").set_value([]).run()
    rows = next(d.value for d in at.dataframe if "explanation" in d.value.columns)
    assert "a\\ud800" in rows["case"].tolist()
    first_a = rows["case"].tolist().index("a\\ud800")  # (a pasted file starts from the default graders)
    at.session_state["gb_filter_table"] = {"selection": {"rows": [first_a], "columns": [], "cells": []}}
    at.run()
    no_trouble(at, "detail")
    assert any(m.value.startswith("#### Case a\\\\ud800") for m in at.markdown)
    assert any("⟨U+D800⟩" in m.value for m in at.markdown if "<pre" in m.value)  # the side-by-side view
    at.text_input(key="gb_w_score_filter_text").input("paris").run()
    no_trouble(at, "search")
    assert any(c.value.startswith("12 of 36 scored rows") for c in at.caption)  # 2 cases x 6 scorers (no overall row)


@pytest.mark.parametrize("page", ["pages/compare.py", "pages/normalizer.py", "pages/pass_rate.py",
                                  "pages/playground.py", "pages/score.py"])
def test_every_page_opens_on_the_file(loaded, page):
    loaded.switch_page(page).run()
    no_trouble(loaded, page)


def test_the_compare_page_pairs_the_escaped_versions(loaded):
    at = loaded.switch_page("pages/compare.py").run()
    no_trouble(at, "compare")
    assert at.selectbox(key="gb_w_compare_side_a").value == "v1" + S  # the value, as read
    assert any("**A** = `v1\\ud800`" in m.value for m in at.markdown)
    assert any("v1\\ud800" in c.value for c in at.caption if "--a" in c.value)


def test_the_normalizer_counts_per_escaped_system(loaded):
    at = loaded.switch_page("pages/normalizer.py").run()
    no_trouble(at, "normalizer")
    by = next(d.value for d in at.dataframe if "turned into passes" in d.value.columns)
    assert by["system"].tolist() == ["v1\\ud800", "v2"]
    at.toggle(key="gb_norm_per_step").set_value(True).run()
    no_trouble(at, "per step")


def test_the_compare_page_opens_a_disagreement_with_a_surrogate():
    """The disagreement section opens its first row at once; Contains writes the reference
    into its explanation, and a lone surrogate there ended the page (pandas' string dtype
    cannot hold one) before anything below it was drawn."""
    at = AppTest.from_file(str(ROOT / "pages" / "compare.py"), default_timeout=120).run()
    wide = (json.dumps({"id": "s", "expected": "a" + S + "b", "output": "a" + S + "b", "output_b": "zzz"}) + "\n"
            + json.dumps({"id": "t", "expected": "q", "output": "q", "output_b": "q"}) + "\n")
    at.file_uploader(key="compare_upload").set_value(("w.jsonl", wide.encode(), "text/plain")).run()
    no_trouble(at, "compare upload")
    tables = [t.value for t in at.table]
    assert any("The output contains “a⟨U+D800⟩b” anywhere." in t["Explanation"].tolist() for t in tables)
    assert at.download_button  # the section below the detail is drawn

