"""AppTest of the Normalizer builder: presets, ordering, the live preview on sample pairs
and on a loaded file, the exports, and the error paths."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from graders import cli
from graders.config import suggest_mapping
from graders.explore.export import config_snippet, python_source, typescript_source
from graders.explore.preview import pipeline_effect, preview_pairs
from graders.readers.files import read_results
from graders.scoring.rows import prepare
from graders.text.normalize import DEFAULT_PIPELINE, SQUAD_PIPELINE
from ui.loading import NONE_LABEL, ROLE_LABELS
from ui.loading import SAMPLES as SAMPLE_LABELS

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "normalizer.py")
SAMPLES = ROOT / "sample_data"


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_page(**state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return run(at)


def steps_of(at: AppTest) -> tuple[str, ...]:
    return tuple(at.multiselect(key="gb_norm_steps").value)


def codes(at: AppTest) -> dict[str, str]:
    """The export tab's code blocks by language (the first of each), with the final newline
    the exported files end with (st.code drops it)."""
    out: dict[str, str] = {}
    for c in at.code:
        out.setdefault(c.language, c.value + "\n")
    return out


def load_sample(at: AppTest, name: str) -> AppTest:
    # Through the shared loader's one-click sample button (found by its label).
    next(b for b in at.button if b.label == SAMPLE_LABELS[name]).click()
    return run(at)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


SAMPLE_EXPECTED = ["Paris", "store credit", "42", "approved", "Easy Returns", "claims", "café", "Eiffel Tower", "yes",
                   "state-of-the-art", "Reno"]


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page()


# --------------------------------------------------------------------------- steps and exports


def test_default_pipeline_preview_and_exports(page):
    at = page
    assert steps_of(at) == DEFAULT_PIPELINE
    assert [m.value for m in at.markdown][:2] == [
        "1. `trim` — remove leading and trailing whitespace (the 29 characters str.strip() removes)",
        "2. `lower` — lowercase (str.lower)",
    ]
    table = at.dataframe[1].value  # [0] is the sample-pairs editor
    assert list(table.columns) == ["expected", "output", "expected_normalized", "output_normalized", "exact", "normalized"]
    assert table["output"].iloc[0] == " paris⟨LF⟩" and table["output"].iloc[2] == "42⟨U+00A0⟩"
    assert table["normalized"].tolist()[:4] == [True, False, True, False]
    assert "**2 of 11** sample pairs are equal after the pipeline; 0 were equal as written." in [m.value for m in at.markdown]
    code = codes(at)
    assert code["python"] == python_source(DEFAULT_PIPELINE)
    assert code["typescript"] == typescript_source(DEFAULT_PIPELINE)
    assert code["json"] == config_snippet(DEFAULT_PIPELINE) + "\n"
    assert [d.key for d in at.download_button] == ["gb_norm_dl_py", "gb_norm_dl_ts", "gb_norm_dl_cfg"]
    assert not at.error and not at.warning


def test_squad_preset_and_no_steps():
    at = open_page()
    at.button(key="gb_norm_squad").click()
    run(at)
    assert steps_of(at) == SQUAD_PIPELINE
    assert codes(at)["python"] == python_source(SQUAD_PIPELINE)
    assert at.dataframe[1].value["normalized"].sum() == preview_pairs(
        at.dataframe[1].value["expected"], [" paris\n", "Store  credit", "42\u00a0", "approved.", '"Easy Returns"',
                                            "ＣＬＡＩＭＳ", "cafe\u0301", "The Eiffel Tower", "Yes!", "state of the art",
                                            "Sparks"], SQUAD_PIPELINE)["normalized"].sum()
    at.button(key="gb_norm_clear").click()
    run(at)
    assert steps_of(at) == ()
    assert "No steps: the normalized grader is then the exact grader." in [i.value for i in at.info]
    at.button(key="gb_norm_default").click()
    run(at)
    assert steps_of(at) == DEFAULT_PIPELINE


def test_arrows_reorder_the_steps():
    at = open_page()
    at.button(key="gb_norm_down_0").click()
    run(at)
    assert steps_of(at) == ("lower", "trim")
    assert "compose(['lower', 'trim'])" in codes(at)["python"]
    at.button(key="gb_norm_up_1").click()
    run(at)
    assert steps_of(at) == ("trim", "lower")
    assert at.button(key="gb_norm_up_0").disabled and at.button(key="gb_norm_down_1").disabled


def test_picking_steps_in_the_multiselect():
    at = open_page()
    at.multiselect(key="gb_norm_steps").set_value(["nfkc", "lower", "strip_quotes"])
    run(at)
    assert steps_of(at) == ("nfkc", "lower", "strip_quotes")
    assert "text = unicodedata.normalize(\"NFKC\", text)" in codes(at)["python"]


def test_order_notes_warn_about_quiet_orders():
    at = open_page(gb_norm_steps=["remove_articles", "lower"])
    warnings = [w.value for w in at.warning]
    assert "remove_articles runs before lower, so a capitalised “The” or “A” is kept." in warnings
    assert any("collapse_whitespace and trim after it" in w for w in warnings)


def test_sample_pairs_come_from_the_session_table():
    pairs = pd.DataFrame({"expected": ["the cat", "A"], "output": ["The  Cat", "\u00a0a\t"]})
    at = open_page(gb_norm_pairs=pairs, gb_norm_steps=list(SQUAD_PIPELINE))
    table = at.dataframe[1].value
    want = preview_pairs(pairs["expected"], pairs["output"], SQUAD_PIPELINE)
    assert table["normalized"].tolist() == want["normalized"].tolist() == [True, True]
    assert table["output"].tolist() == ["The  Cat", "⟨U+00A0⟩a⟨TAB⟩"]
    assert table["output_normalized"].tolist() == ["cat", ""]


def test_no_file_means_no_file_figures(page):
    assert not page.metric
    assert any("Load a file above" in c.value for c in page.caption)


# --------------------------------------------------------------------------- the loaded file


def expected_effect(name: str, steps):
    file = read_results(SAMPLES / name)
    rows = prepare(file, suggest_mapping(file.columns), needs_expected=True).rows
    return pipeline_effect(rows["refs"].tolist(), rows["output"].tolist(), steps), rows


def test_loaded_file_counts_the_fails_turned_into_passes():
    at = open_page()
    load_sample(at, "returns_desk.csv")
    effect, rows = expected_effect("returns_desk.csv", DEFAULT_PIPELINE)
    assert metrics(at) == {"Exact fails": str(effect.exact_fails), "Turned into passes": str(effect.turned),
                           "Still failing": str(effect.still_failing)}
    assert effect.turned > 0
    words = next(m.value for m in at.markdown if m.value.startswith("Exact grader:"))
    k = effect.exact_passes + effect.turned
    assert f"Exact grader: {effect.exact_passes} of {effect.rows} pass" in words and "](" not in words
    # each count opens the pass-rate page in this session (its Markdown stand-in where AppTest runs one page)
    links = [m.value for m in at.markdown if m.value.startswith("[") and "](pass_rate?" in m.value]
    assert any(f"](pass_rate?k={effect.exact_passes}&n={effect.rows}&label=Exact+match)" in v for v in links)
    assert any(f"](pass_rate?k={k}&n={effect.rows}&label=Normalized+match%3A+trim%2Blower)" in v for v in links)
    examples = next(d.value for d in at.dataframe if "expected_normalized" in d.value.columns and "item" in d.value.columns)
    assert examples["item"].tolist() == rows["item"].iloc[effect.turned_rows[:20]].astype(str).tolist()
    assert (examples["expected_normalized"] == examples["output_normalized"]).all()
    # The configuration carries the loaded file's columns.
    assert '"expected": "expected"' in [c.value for c in at.code if c.language == "json"][-1]

    # A new pipeline recomputes the figures from the same prepared rows.
    at.button(key="gb_norm_squad").click()
    run(at)
    effect, _ = expected_effect("returns_desk.csv", SQUAD_PIPELINE)
    assert metrics(at)["Turned into passes"] == str(effect.turned)

    at.toggle(key="gb_norm_per_step").set_value(True)
    run(at)
    per_step = at.dataframe[-1].value
    assert per_step["step"].tolist() == list(SQUAD_PIPELINE)


def test_wide_file_splits_the_counts_by_system():
    at = open_page()
    load_sample(at, "returns_ab_wide.csv")
    effect, rows = expected_effect("returns_ab_wide.csv", DEFAULT_PIPELINE)
    by = next(d.value for d in at.dataframe if "turned into passes" in d.value.columns)
    assert by["system"].tolist() == ["output", "output_b"]
    assert by["exact fails"].sum() == effect.exact_fails and by["turned into passes"].sum() == effect.turned


# --------------------------------------------------------------------------- error paths


def test_columns_that_cannot_be_compared_give_one_error():
    at = open_page()
    load_sample(at, "returns_desk.csv")
    next(s for s in at.selectbox if s.label == ROLE_LABELS["expected"]).set_value(NONE_LABEL)
    run(at)
    assert len(at.error) == 1 and at.error[0].value.startswith("These columns cannot be compared: ")
    assert not at.metric
    assert codes(at)["python"] == python_source(DEFAULT_PIPELINE)  # the rest of the page still works


def test_a_bad_file_gives_one_error_and_no_traceback():
    at = open_page()
    at.text_area[0].set_value('{"id": 1, "output": ')  # the shared loader's paste box
    next(b for b in at.button if b.label == "Read pasted rows").click()
    run(at)
    assert len(at.error) == 1, [e.value for e in at.error]
    assert not at.metric


def test_through_the_app_navigation():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    run(at)
    at.switch_page("pages/normalizer.py")
    run(at)
    assert at.title[0].value == "Normalizer builder"
    assert steps_of(at) == DEFAULT_PIPELINE
    # The pipeline survives a visit to another page.
    at.button(key="gb_norm_squad").click()
    run(at)
    at.switch_page("pages/pass_rate.py")
    run(at)
    at.switch_page("pages/normalizer.py")
    run(at)
    assert steps_of(at) == SQUAD_PIPELINE


# --------------------------------------------------------------------------- audit fixes


def paste(at: AppTest, text: str, *, no_header: bool = False) -> AppTest:
    at.text_area(key="gb_norm_file_paste").set_value(text)
    at.checkbox(key="gb_norm_file_paste_no_header").set_value(no_header)
    at.button(key="gb_norm_file_paste_go").click()
    return run(at)


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """The download buttons' data by file name, as Streamlit stores it for the browser."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    files: dict[str, bytes] = {}
    add = MediaFileManager.add

    def recording(self, path_or_data, mimetype, coordinates, file_name=None, is_for_static_download=False):
        data = path_or_data.encode("utf-8") if isinstance(path_or_data, str) else bytes(path_or_data)
        files[file_name] = data
        return add(self, path_or_data, mimetype, coordinates, file_name, is_for_static_download)

    monkeypatch.setattr(MediaFileManager, "add", recording)
    return files


def test_the_offered_command_reads_pasted_rows_as_the_page_did(tmp_path, downloads):
    """Pasted rows without a header: the command carries --format tsv --no-header and, run on
    the pasted text saved to a file with the downloaded configuration, counts what the page counts
    (without the flags it exits 2)."""
    text = "Canberra\tcanberra\nParis\tParis \n"
    at = paste(open_page(), text, no_header=True)
    command = next(m.value for m in at.markdown if "`gradeboard score FILE" in m.value)
    flags = re.search(r"`gradeboard score FILE(.*?) --config gradeboard\.config\.json --out scored\.csv`", command)
    assert flags and flags.group(1).split() == ["--format", "tsv", "--no-header"], command
    shown = metrics(at)
    assert shown == {"Exact fails": "2", "Turned into passes": "2", "Still failing": "0"}

    source = tmp_path / "pasted.csv"  # saved under a name for another format, as a paste may be
    source.write_text(text, encoding="utf-8")
    config = tmp_path / "gradeboard.config.json"
    config.write_bytes(downloads["gradeboard.config.json"])
    out, summary = tmp_path / "scored.csv", tmp_path / "summary.json"
    args = ["score", str(source), "--config", str(config), "--out", str(out), "--summary", str(summary)]
    assert cli.main(args) == 2  # the command as it was offered before: the file is not read as the page read it
    assert cli.main(args[:2] + flags.group(1).split() + args[2:]) == 0
    graders = json.loads(summary.read_text())["graders"]
    exact, normalized = (next(c for name, c in graders.items() if name.startswith(g)) for g in ("exact", "normalized"))
    assert exact["graded"] == normalized["graded"] == 2
    assert exact["failed"] == int(shown["Exact fails"])
    assert normalized["passed"] == exact["passed"] + int(shown["Turned into passes"])


def test_the_mapping_chosen_on_the_score_page_carries_over():
    """Score (expected = answer) → Normalizer → Compare: the mapping is kept on both pages."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    run(at)
    at.text_area(key="score_paste").set_value(
        "id,expected,answer,output\n1,Paris,paris,paris\n2,Rome,rome,rome\n3,Oslo,oslo,OSLO\n")
    at.button(key="score_paste_go").click()
    run(at)
    at.selectbox(key="gb_w_score_map_expected").set_value("answer")
    run(at)
    at.switch_page("pages/normalizer.py")
    run(at)
    assert at.selectbox(key="gb_w_gb_norm_file_map_expected").value == "answer"
    assert at.session_state["gb_mapping"]["expected"] == "answer"
    # answer vs output: only Oslo / OSLO fails the exact grader
    assert metrics(at) == {"Exact fails": "1", "Turned into passes": "1", "Still failing": "0"}
    assert '"expected": "answer"' in [c.value for c in at.code if c.language == "json"][-1]
    at.switch_page("pages/compare.py")
    run(at)
    assert at.selectbox(key="gb_w_compare_map_expected").value == "answer"
    at.switch_page("pages/normalizer.py")  # and back: still the same boxes
    run(at)
    assert at.selectbox(key="gb_w_gb_norm_file_map_expected").value == "answer"


def test_edited_sample_pairs_survive_a_visit_to_another_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    run(at)
    at.switch_page("pages/normalizer.py")
    run(at)
    # an edited cell, an added pair and a deleted pair (the editor's own state: its edits since
    # it was drawn, as the browser sends them)
    edits = {"edited_rows": {0: {"output": "PARIS"}}, "added_rows": [{"expected": "x", "output": " X"}],
             "deleted_rows": [3]}
    at.session_state["gb_norm_pairs_editor"] = edits
    run(at)
    want = ["Paris", "PARIS", "x", " X"]
    table = at.dataframe[1].value
    assert table[["expected", "output"]].iloc[[0, -1]].to_numpy().ravel().tolist() == want
    assert "approved" not in table["expected"].tolist() and len(table) == 11
    assert next(m.value for m in at.markdown if "sample pairs are equal" in m.value).startswith("**3 of 11**")
    # One more edit: the browser sends all the edits again, relative to the table first drawn
    # (applied once, not on top of the table already edited).
    at.session_state["gb_norm_pairs_editor"] = {**edits, "edited_rows": {0: {"output": "PARIS"},
                                                                         1: {"output": "store credit"}}}
    run(at)
    table = at.dataframe[1].value
    assert table["expected"].tolist() == [e for e in SAMPLE_EXPECTED if e != "approved"] + ["x"]
    assert table["output"].iloc[1] == "store credit"
    at.button(key="gb_norm_squad").click()  # another rerun on the page
    run(at)
    assert at.dataframe[1].value[["expected", "output"]].equals(table[["expected", "output"]])
    at.switch_page("pages/pass_rate.py")
    run(at)
    at.switch_page("pages/normalizer.py")
    run(at)
    editor = at.data_editor(key="gb_norm_pairs_editor").value
    assert editor["expected"].tolist() == table["expected"].tolist()
    assert editor["output"].iloc[[0, 1, -1]].tolist() == ["PARIS", "store credit", " X"]
    assert at.dataframe[1].value[["expected", "output"]].equals(table[["expected", "output"]])


def test_a_file_whose_every_row_is_left_out_shows_the_left_out_report():
    at = paste(open_page(), "id,expected,output,repeat\n1,a,a,x\n2,b,B,-1\n")
    assert not any("has both an expected answer and an output" in i.value for i in at.info)
    assert "2 rows left out; 0 cases can be scored." in [w.value for w in at.warning]
    report = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert report["reason"].tolist() == ["bad repeat"] and report["rows"].tolist() == [2]
    assert not at.metric

    # Some rows left out: the figures, and the report under them in an expander.
    at = paste(at, "id,expected,output,repeat\n1,a,a,x\n2,b,B,1\n")
    assert metrics(at) == {"Exact fails": "1", "Turned into passes": "1", "Still failing": "0"}
    assert any(e.label == "1 row left out, not in the figures below" for e in at.expander)
    assert "1 row left out; 1 output (1 case, with repeats) can be scored." in [w.value for w in at.warning]


@pytest.mark.parametrize("pairs, words", [
    ([("a", "a"), ("b", " B")], "**2 of 2** sample pairs are equal after the pipeline; 1 was equal as written."),
    ([("a", " A")], "**1 of 1** sample pair is equal after the pipeline; 0 were equal as written."),
    ([("a", "b"), ("c", "c")], "**1 of 2** sample pairs is equal after the pipeline; 1 was equal as written."),
])
def test_the_sample_pairs_sentence_agrees_in_number(pairs, words):
    at = open_page(gb_norm_pairs=pd.DataFrame(pairs, columns=["expected", "output"]))
    assert words in [m.value for m in at.markdown]


def test_a_decomposed_letter_shows_its_combining_mark():
    """"cafe" + U+0301 looks like "café": the preview brackets the mark NFC would compose,
    and leaves a text already in NFC as it is (a Devanagari word keeps its vowel signs)."""
    from ui import display

    at = open_page()
    preview = at.dataframe[1].value
    assert "cafe⟨U+0301⟩" in preview["output"].tolist() and "café" in preview["expected"].tolist()
    word = "हिन्दी"  # NFC, with combining vowel signs and a virama
    assert any(unicodedata.combining(c) for c in word) and display.decomposed(word) == word
    assert display.decomposed("A\u030a") == "A⟨U+030A⟩" and display.decomposed("Å") == "Å"


def test_examples_from_a_file_with_repeats_name_the_system_and_the_repeat():
    at = open_page()
    load_sample(at, "returns_ab_long.jsonl")
    assert not at.exception
    turned = next(d.value for d in at.dataframe if "expected_normalized" in d.value.columns and "item" in d.value.columns)
    assert list(turned.columns[:3]) == ["item", "system", "repeat"]
    assert len(set(zip(turned["item"], turned["system"], turned["repeat"]))) == len(turned)  # no row twice
    at = open_page()
    load_sample(at, "returns_desk.csv")  # one system, no repeats: the item alone
    turned = next(d.value for d in at.dataframe if "expected_normalized" in d.value.columns and "item" in d.value.columns)
    assert list(turned.columns[:2]) == ["item", "expected"]
