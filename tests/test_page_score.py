"""AppTest of the Score page (pages/score.py through app.py): main path and error paths."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graders import cli
from graders.scoring.output import scored_csv_bytes
from ui import loading

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_data"
FILES = ROOT / "tests" / "files"
DESK_GRADERS = [g["name"] for g in json.loads((SAMPLES / "returns_desk.config.json").read_text())["graders"]]
COUNT_KEYS = ("graded", "passed", "failed", "not_judged", "errors", "near_misses", "mean_score", "pass_rate")


def start() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def counts_table(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "\n| Grader" in m.value or "\n| System" in m.value)


def view(at: AppTest) -> dict:
    return at.session_state["gb_view"]


def upload(at: AppTest, path: Path, key: str = "score_upload", mime: str = "text/plain") -> AppTest:
    at.file_uploader(key=key).set_value((path.name, path.read_bytes(), mime))
    return at.run()


def cli_summary(tmp_path: Path, source: Path, config_json: str, *flags: str) -> tuple[dict, bytes]:
    cfg = tmp_path / "config.json"
    cfg.write_text(config_json, encoding="utf-8")
    out, summary = tmp_path / "scored.csv", tmp_path / "summary.json"
    args = ["score", str(source), "--config", str(cfg), "--out", str(out), "--summary", str(summary), *flags]
    assert cli.main(args) == 0
    return json.loads(summary.read_text()), out.read_bytes()


@pytest.fixture(scope="module")
def desk() -> AppTest:
    return start()


# --------------------------------------------------------------------------- main path


def test_opens_on_the_returns_desk_sample_scored_with_its_configuration(desk):
    at = desk
    assert errors(at) == []
    assert at.session_state["gb_file_name"] == "returns_desk.csv"
    assert at.multiselect(key="gb_w_score_graders").value == DESK_GRADERS
    assert at.radio(key="gb_w_score_overall").value == "any"
    assert any("format `csv`, 40 rows" in m.value for m in at.markdown)
    table = counts_table(at)
    for head in ("Graded", "Passed", "Failed", "Not judged", "Errors", "Near misses", "Mean score", "Wilson 95%"):
        assert head in table
    # seed 003: exact match 8 of 40, the headline figures first (issue 33: in view at 1,024 px),
    # the pass count opening the pass-rate page in this session (an st.page_link below the table)
    assert "| **Exact match** | 20.0% [10.5%, 34.8%] | 0.200 | 8 | 32 | 40 |" in table
    metrics = {m.label: m.value for m in at.metric}
    assert set(metrics) >= {"Corpus BLEU", "Mean sentence BLEU", "Corpus chrF", "Mean sentence chrF"}
    assert len(at.get("arrow_vega_lite_chart")) >= 5 or len(at.get("vega_lite_chart")) >= 5


def test_the_page_counts_equal_the_command_line_on_the_exported_configuration(desk, tmp_path):
    v = view(desk)
    summary, scored_csv = cli_summary(tmp_path, SAMPLES / "returns_desk.csv", v["config"].to_json())
    page = v["summary"]
    assert list(page["graders"]) == list(summary["graders"])
    for scorer, c in summary["graders"].items():
        assert {k: page["graders"][scorer][k] for k in COUNT_KEYS} == {k: c[k] for k in COUNT_KEYS}, scorer
    assert page["corpus"] == summary["corpus"]
    from ui.scoring import full_scored

    assert scored_csv_bytes(full_scored(v)) == scored_csv  # the download is the CLI's file, byte for byte


def test_the_download_with_the_output_column_is_the_command_lines_include_output_file(desk, tmp_path):
    from ui.views import scored_download

    v = view(desk)
    cfg = tmp_path / "config.json"
    cfg.write_text(v["config"].to_json(), encoding="utf-8")
    out = tmp_path / "scored.csv"
    assert cli.main(["score", str(SAMPLES / "returns_desk.csv"), "--config", str(cfg), "--out", str(out),
                     "--include-output"]) == 0
    assert scored_download(v, True) == out.read_bytes()
    assert b",output\n" in scored_download(v, True)[:200] and b",output\n" not in scored_download(v, False)[:200]


def test_after_a_threshold_change_the_download_is_still_the_command_line_file(tmp_path):
    from ui.scoring import full_scored

    at = start()
    at.number_input(key="gb_w_score_rouge_l_threshold").set_value(0.45).run()
    at.checkbox(key="gb_w_score_bleu_threshold_on").check().run()  # bleu at the default 0.5
    v = view(at)
    assert v["thresholds"]["rouge_l"] == 0.45 and v["thresholds"]["bleu"] == 0.5
    summary, scored_csv = cli_summary(tmp_path, SAMPLES / "returns_desk.csv", v["config"].to_json())
    assert scored_csv_bytes(full_scored(v)) == scored_csv
    for scorer, c in summary["graders"].items():
        assert {k: v["summary"]["graders"][scorer][k] for k in COUNT_KEYS} == {k: c[k] for k in COUNT_KEYS}


def test_a_two_system_file_counts_per_system_as_the_command_line_does(tmp_path):
    at = start()
    at.button(key="score_sample_returns_ab_wide.csv").click().run()
    at.checkbox(key="gb_w_score_token_f1_threshold_on").check().run()  # one scorer thresholded, the rest not
    v = view(at)
    assert len(v["summary"]["systems"]) == 2
    summary, _ = cli_summary(tmp_path, SAMPLES / "returns_ab_wide.csv", v["config"].to_json())
    for system, per in summary["systems"].items():
        for scorer, c in per.items():
            assert {k: v["summary"]["systems"][system][scorer][k] for k in COUNT_KEYS} == {k: c[k] for k in COUNT_KEYS}, \
                (system, scorer)


def test_each_sample_loads_with_one_click():
    at = start()
    for name, rows in (("returns_ab_wide.csv", 40), ("returns_ab_long.jsonl", 240), ("returns_assertions.jsonl", 27),
                       ("returns_desk.csv", 40)):
        at.button(key=f"score_sample_{name}").click().run()
        assert not at.exception and errors(at) == [], (name, errors(at))
        assert at.session_state["gb_file_name"] == name
        assert any(f"{rows} rows" in m.value for m in at.markdown), name
        assert "gb_view" in at.session_state
    # the assertions sample lists its unknown kinds (llm-rubric) and is back on the desk config now
    assert at.multiselect(key="gb_w_score_graders").value == DESK_GRADERS


def test_unknown_assertion_kinds_are_listed():
    at = start()
    at.button(key="score_sample_returns_assertions.jsonl").click().run()
    assert view(at)["summary"]["unknown_assertions"].get("llm-rubric", 0) > 0
    tables = [df.value for df in at.dataframe]
    assert any("kind" in t.columns and "llm-rubric" in set(t["kind"]) for t in tables)
    # ... and they are not "graded" in the counts table or the outcome chart; the kinds run are
    table = counts_table(at)
    assert "llm-rubric" not in table and "javascript" not in table and "icontains" in table
    outcomes = next(c.proto for c in at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")
                    if '"outcome"' in c.proto.spec and '"rows"' in c.proto.spec).SerializeToString()  # spec and data
    assert b"icontains" in outcomes and b"llm-rubric" not in outcomes and b"javascript" not in outcomes


def test_upload_paste_and_mapping_with_the_left_out_report():
    at = start()
    upload(at, FILES / "left_out.csv")
    assert at.session_state["gb_file_name"] == "left_out.csv"
    assert any("18 rows left out" in w.value for w in at.warning)
    at.selectbox(key="gb_w_score_map_id").select("version").run()  # every row now shares a key
    assert not at.exception
    assert any("19 rows left out" in w.value for w in at.warning)

    at.text_area(key="score_paste").input("id,expected,output\na,Paris,Paris\nb,Rome,rome\n")
    at.button(key="score_paste_go").click().run()
    assert at.session_state["gb_file_name"] == "pasted rows"
    assert any("2 rows" in m.value for m in at.markdown)
    assert at.selectbox(key="gb_w_score_map_expected").value == "expected"


@pytest.mark.parametrize("text, rows", [
    ("Canberra\tCanberra is the capital\nParis\tParis\nRome\trome\n", 3),
    ("Canberra\tCanberra is the capital", 1),  # one line: a row, not a header without records
    ("Paris\tParis\nRome\trome\n", 2),  # a first row whose expected is its output: no header names a column twice
])
def test_two_pasted_tab_separated_columns_are_expected_and_output(text, rows):
    """Seed 004: "Paste rows … as JSONL, a JSON array, CSV or two tab-separated columns"."""
    at = start()
    at.text_area(key="score_paste").input(text)
    at.button(key="score_paste_go").click().run()
    assert not at.exception and errors(at) == []
    assert any(f"{rows} row" in m.value for m in at.markdown)
    assert at.checkbox(key="score_paste_no_header").value is True
    assert loading.TWO_COLUMNS in [c.value for c in at.caption]
    assert (at.selectbox(key="gb_w_score_map_expected").value, at.selectbox(key="gb_w_score_map_output").value) == (
        "expected", "output")
    assert view(at)["summary"]["graders"]["exact"]["graded"] == rows
    # unticked and read again: the first line is the header, as asked
    at.checkbox(key="score_paste_no_header").uncheck().run()
    at.button(key="score_paste_go").click().run()
    assert at.checkbox(key="score_paste_no_header").value is False
    assert loading.TWO_COLUMNS not in [c.value for c in at.caption]


def test_the_configuration_download_is_named_as_spec_names_it():
    """SPEC §7: CONFIG.json is what the dashboard's "Export configuration" downloads."""
    at = start()
    labels = [b.label for b in at.get("download_button")]
    assert "Export configuration" in labels and "Scored CSV" in labels


def test_a_mapping_of_no_column_says_so():
    from ui.loading import mapping_words

    assert mapping_words({"id": None, "output": None}) == "Mapped: no column yet (choose them under Column mapping)."
    assert mapping_words({"id": "case", "output": None}) == "Mapped: id → case"


def test_pasted_tab_separated_rows_under_a_known_header_keep_it():
    at = start()
    at.text_area(key="score_paste").input("expected\toutput\nParis\tParis\n")
    at.button(key="score_paste_go").click().run()
    assert at.checkbox(key="score_paste_no_header").value is False
    assert any("1 row," in m.value for m in at.markdown)


def test_dotted_columns_are_offered_in_the_mapping():
    at = start()
    at.button(key="score_sample_returns_assertions.jsonl").click().run()
    assert "metadata.harnessPass" in at.selectbox(key="gb_w_score_map_input").options


def test_a_parameter_change_rescores_a_threshold_change_does_not():
    at = start()
    runs, applied = at.session_state["gb_score_count"], at.session_state["gb_threshold_count"]
    at.number_input(key="gb_w_score_token_f1_threshold").set_value(0.3).run()
    assert at.session_state["gb_score_count"] == runs  # only apply_thresholds ran
    assert at.session_state["gb_threshold_count"] == applied + 1
    assert view(at)["summary"]["graders"]["token_f1"]["passed"] == 31
    at.radio(key="gb_w_score_numeric_read").set_value("first").run()
    assert at.session_state["gb_score_count"] == runs + 1


def test_a_filter_change_reuses_the_scores():
    at = start()
    runs, applied = at.session_state["gb_score_count"], at.session_state["gb_threshold_count"]
    before = [c.value for c in at.caption if "scored rows" in c.value]
    at.multiselect(key="gb_w_score_filter_kinds").set_value(["near misses"]).run()
    at.multiselect(key="gb_w_score_filter_graders").set_value(["exact"]).run()
    at.text_input(key="gb_w_score_filter_text").input("r02").run()
    assert (at.session_state["gb_score_count"], at.session_state["gb_threshold_count"]) == (runs, applied)
    after = [c.value for c in at.caption if "scored rows" in c.value]
    assert after != before and after[0].startswith("1 of 440")  # r02: lowercase would pass exact


def test_selecting_a_failing_row_opens_its_detail():
    at = start()
    at.multiselect(key="gb_w_score_filter_graders").set_value(["exact"]).run()
    at.session_state["gb_filter_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    headers = [m.value for m in at.markdown if m.value.startswith("#### Case")]
    assert headers and headers[0].startswith("#### Case r02")  # "store credit" vs "Store credit"
    marked = [m.value for m in at.markdown if "<mark" in m.value]
    assert marked, "the first difference is marked"
    detail = [t.value for t in at.table if "Verdict" in t.value.columns][0]
    assert len(detail) == len(DESK_GRADERS) + 1  # every grader and the overall row


def test_the_table_and_the_detail_explain_every_row_as_the_command_line_does():
    """The page scores without the cheap graders' explanations (deferred) and fills in
    those of the rows it shows: the cells are the command line's."""
    at = start()
    v = view(at)
    assert v["run"].scored["explanation"].isna().any()  # deferred in the run ...
    table = [df.value for df in at.dataframe if "explanation" in df.value.columns][0]
    assert len(table) and table["explanation"].map(lambda x: isinstance(x, str) and x != "").all()  # ... shown filled
    at.session_state["gb_filter_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    detail = [t.value for t in at.table if "Verdict" in t.value.columns][0]
    assert detail["Explanation"].map(lambda x: isinstance(x, str) and x != "").all()
    from graders.scoring.batch import explain_rows
    from ui.scoring import full_scored

    whole = full_scored(view(at))
    assert whole["explanation"].notna().all()
    first = table.iloc[0]
    assert first["explanation"] in set(whole.loc[whole["item"] == first["case"], "explanation"])
    assert explain_rows(whole, v["run"].prepared.rows, v["config"]) is whole


def test_a_configuration_upload_restores_mapping_and_graders(tmp_path):
    at = start()
    config = {
        "columns": {"id": "id", "expected": "expected", "output": "output", "input": None},
        "graders": [{"name": "numeric", "read": "last", "abs_tol": 0.5}, {"name": "exact"},
                    {"name": "token_f1", "threshold": 0.7}],
        "overall": "all",
    }
    at.file_uploader(key="gb_config_upload").set_value(("mine.json", json.dumps(config).encode(), "application/json"))
    at.run()
    assert not at.exception and errors(at) == []
    assert at.multiselect(key="gb_w_score_graders").value == ["numeric", "exact", "token_f1"]
    assert at.radio(key="gb_w_score_numeric_read").value == "last"
    assert at.number_input(key="gb_w_score_numeric_abs_tol").value == 0.5
    assert at.checkbox(key="gb_w_score_token_f1_threshold_on").value is True
    assert at.selectbox(key="gb_w_score_map_input").value == "— none —"
    assert at.radio(key="gb_w_score_overall").value == "all"
    # and the exported configuration of the restored page gives the command line's counts
    summary, _ = cli_summary(tmp_path, SAMPLES / "returns_desk.csv", view(at)["config"].to_json())
    for scorer, c in summary["graders"].items():
        assert view(at)["summary"]["graders"][scorer]["passed"] == c["passed"], scorer


def test_a_configuration_uploaded_before_the_file_maps_the_file_too(tmp_path):
    """The app opens on a sample, so a configuration often comes first: the file loaded
    next gets its mapping (the message is about that file), and the counts are the
    command line's with that configuration."""
    at = start()
    config = {"columns": {"id": "id", "expected": "answer", "output": "output"}, "graders": [{"name": "exact"}],
              "overall": None}
    at.file_uploader(key="gb_config_upload").set_value(("c.json", json.dumps(config).encode(), "application/json"))
    at.run()
    assert errors(at) == ["The configuration maps columns this file does not have: expected → 'answer'; "
                          "those roles keep the file's suggested columns."]
    assert at.selectbox(key="gb_w_score_map_expected").value == "expected"  # the sample's own, not none
    data = tmp_path / "f.csv"
    data.write_bytes(b"id,reference,answer,output\nq1,Paris,paris,paris\nq2,Rome,rome,rome\n")
    upload(at, data)
    assert not at.exception and errors(at) == []
    assert "Mapped the columns of f.csv as c.json says." in [m.value for m in at.success]
    assert at.selectbox(key="gb_w_score_map_expected").value == "answer"
    summary, _ = cli_summary(tmp_path, data, json.dumps(config))
    assert view(at)["summary"]["graders"]["exact"]["passed"] == summary["graders"]["exact"]["passed"] == 2
    at.button(key="score_sample_returns_desk.csv").click().run()  # a sample keeps its own configuration
    assert errors(at) == [] and at.selectbox(key="gb_w_score_map_expected").value == "expected"


def test_a_configuration_restored_on_one_page_is_restored_on_the_other():
    """The configuration is the session's: the Compare page applies it to its own widgets
    and says so (it once said "Restored" while running its own defaults). Removed from the
    uploader, it is forgotten."""
    at = start()
    config = {"columns": {}, "graders": [{"name": "exact"}, {"name": "token_f1", "threshold": 0.6}], "overall": None}
    at.file_uploader(key="gb_config_upload").set_value(("mine.json", json.dumps(config).encode(), "application/json"))
    at.run()
    assert "Restored the mapping and 2 graders from mine.json." in [m.value for m in at.success]
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert "Restored the mapping and 2 graders from mine.json." in [m.value for m in at.success]
    at.button(key="compare_sample_returns_ab_wide.csv").click().run()  # a file with two outputs to compare
    assert not at.exception and errors(at) == []
    assert at.multiselect(key="gb_w_compare_graders").value == ["exact", "token_f1"]
    assert at.checkbox(key="gb_w_compare_token_f1_threshold_on").value is True
    table = next(d.value for d in at.dataframe if "Reading" in d.value.columns and "In words" in d.value.columns)
    assert len(table) == 2 and table.iloc[0, 0].startswith("Exact") and table.iloc[1, 0].startswith("Token F1")
    at.switch_page("pages/score.py").run()  # back: applied once per upload, not again over later changes
    assert at.multiselect(key="gb_w_score_graders").value == ["exact", "token_f1"]


def test_a_configuration_removed_from_the_uploader_is_forgotten(tmp_path):
    at = start()
    config = {"columns": {"expected": "answer"}, "graders": [{"name": "exact"}], "overall": None}
    at.file_uploader(key="gb_config_upload").set_value(("c.json", json.dumps(config).encode(), "application/json"))
    at.run()
    assert errors(at)  # the sample has no "answer" column: said
    at.file_uploader(key="gb_config_upload").set_value(None).run()
    assert not at.exception and errors(at) == [] and "gb_config_restored" not in at.session_state
    data = tmp_path / "f.csv"
    data.write_bytes(b"id,expected,answer,output\nq1,Paris,paris,Paris\n")
    upload(at, data)  # keeps its own mapping: the configuration is gone
    assert at.selectbox(key="gb_w_score_map_expected").value == "expected" and errors(at) == []


def test_pasted_rows_without_a_header_or_ids_are_scored(tmp_path):
    """Seed 004: paste two tab-separated columns. With "No header row" they are expected
    and output, each row its own case; the counts are the command line's."""
    at = start()
    rows = "Canberra\tCanberra is the capital\nParis\tParis\n3.11\tAbout 3.1 miles\n"
    at.text_area(key="score_paste").input(rows)
    at.checkbox(key="score_paste_no_header").check()
    at.button(key="score_paste_go").click().run()
    assert not at.exception and errors(at) == []
    assert at.session_state["gb_file"].columns == ("expected", "output")
    assert any("each row's id is its row number" in c.value for c in at.caption)
    at.multiselect(key="gb_w_score_graders").set_value(["exact", "contains", "token_f1"]).run()
    assert not at.exception and errors(at) == []
    data = tmp_path / "pairs.tsv"
    data.write_text(rows)
    summary, _ = cli_summary(tmp_path, data, view(at)["config"].to_json(), "--no-header")
    for scorer in ("exact", "contains", "token_f1"):
        assert view(at)["summary"]["graders"][scorer] == summary["graders"][scorer], scorer
    assert summary["graders"]["contains"]["passed"] == 2 and summary["graders"]["exact"]["passed"] == 1
    # the command the page offers reads the saved rows as the page did: pasted, without a header
    assert any("`gradeboard score FILE --format tsv --no-header --config gradeboard.config.json" in c.value
               for c in at.caption)


def test_pasted_rows_read_with_a_header_by_mistake_hint_at_the_box():
    """Comma-separated rows keep their first line as the header (a comma is common in text);
    two tab-separated columns are read without one (above)."""
    at = start()
    at.text_area(key="score_paste").input("Canberra,Canberra is the capital\n3.11,About 3.1 miles\n")
    at.button(key="score_paste_go").click().run()
    assert not at.exception
    assert any("tick “No header row”" in c.value for c in at.caption)
    at.text_area(key="score_paste").input("Canberra,Canberra is the capital\n")  # one row: no records
    at.button(key="score_paste_go").click().run()
    assert errors(at) == ["Could not read pasted rows: no rows: the file has a header and no records. "
                          "If its first line is a row, tick “No header row”."]
    at.checkbox(key="score_paste_no_header").check()
    at.button(key="score_paste_go").click().run()
    assert errors(at) == [] and not any("tick “No header row”" in c.value for c in at.caption)


def reproduce_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("The configuration reproduces this run"))


def test_the_offered_command_reproduces_the_download_it_sits_under(desk, tmp_path):
    """The caption's command, run on the file, writes the Scored CSV download's bytes: with
    the output column ticked it says --include-output (it said nothing, and the command's
    file had no output column)."""
    assert "FILE --config gradeboard.config.json --out" in reproduce_caption(desk)
    desk.checkbox(key="gb_w_score_include_output").check().run()
    try:
        caption = reproduce_caption(desk)
        assert "FILE --include-output --config gradeboard.config.json --out scored.csv" in caption
        from ui.views import scored_download

        cfg = tmp_path / "gradeboard.config.json"
        cfg.write_text(view(desk)["config"].to_json(), encoding="utf-8")
        out = tmp_path / "scored.csv"
        command = caption.split("`")[1].split()
        args = [str(SAMPLES / "returns_desk.csv") if a == "FILE" else str(cfg) if a == "gradeboard.config.json"
                else str(out) if a == "scored.csv" else str(tmp_path / a) if a == "summary.json" else a for a in command[1:]]
        assert cli.main(args) == 0
        assert out.read_bytes() == scored_download(view(desk), True)
    finally:
        desk.checkbox(key="gb_w_score_include_output").uncheck().run()


def test_a_file_without_expected_keeps_the_graders_form_to_pick_graders_that_need_none():
    """The default graders need an expected column; a file of outputs alone says so, and the
    form stays, so that graders that need none (valid JSON, a regex) can be picked."""
    at = start()
    at.file_uploader(key="score_upload").set_value(("outs.csv", b'id,output\na,"{}"\nb,nope\n', "text/plain"))
    at.run()
    assert not at.exception and len(errors(at)) == 1 and "expected" in errors(at)[0]
    at.multiselect(key="gb_w_score_graders").set_value(["valid_json"]).run()
    assert not at.exception and errors(at) == []
    assert view(at)["summary"]["graders"]["valid_json"]["passed"] == 1


def test_a_column_name_with_a_lone_surrogate_is_mapped_and_shown():
    """A JSON field named "\ud800out": the mapping caption escapes it (it crashed the page)."""
    at = start()
    data = b'{"id": "1", "expected": "a", "\\ud800out": "a"}\n{"id": "2", "expected": "b", "\\ud800out": "c"}\n'
    at.file_uploader(key="score_upload").set_value(("s.jsonl", data, "text/plain"))
    at.run()
    at.selectbox(key="gb_w_score_map_output").select("\ud800out").run()
    assert not at.exception and errors(at) == []
    assert any(c.value.startswith("Mapped: ") and "\\ud800" in c.value for c in at.caption)
    assert view(at)["summary"]["graders"]["exact"]["passed"] == 1


def test_state_survives_switching_pages():
    at = start()
    at.multiselect(key="gb_w_score_filter_kinds").set_value(["errors", "not judged"]).run()
    at.number_input(key="gb_w_score_numeric_abs_tol").set_value(0.25).run()
    runs = at.session_state["gb_score_count"]
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    at.switch_page("pages/score.py").run()
    assert not at.exception
    assert at.multiselect(key="gb_w_score_filter_kinds").value == ["errors", "not judged"]
    assert at.number_input(key="gb_w_score_numeric_abs_tol").value == 0.25
    assert at.session_state["gb_score_count"] == runs


def test_a_stopped_run_is_not_restarted_until_asked():
    from ui import scoring

    at = start()
    v = view(at)
    at.session_state["gb_runs"] = {}
    at.session_state["gb_pieces"] = {}  # nothing cached: every grader is to score
    at.session_state["gb_view"] = None
    at.session_state["gb_stopped"] = {v["key"]: (4000, 40000)}
    at.run()
    assert any("stopped after 4,000 of 40,000 rows" in w.value for w in at.warning)
    assert not any("\n| Grader" in m.value for m in at.markdown)
    at.button(key="gb_score_again").click().run()
    assert any("\n| Grader" in m.value for m in at.markdown)

    # the cancel callback the Stop button sets stops the batch layer between chunks
    job = scoring.Job("k")
    job.cancel.set()
    file = v["run"].file
    scoring._work(job, file, v["config"], dict(v["run"].mapping))
    assert job.cancelled and job.result is None and job.error is None


# --------------------------------------------------------------------------- error paths


BAD_FILES = ["binary.bin", "malformed.json", "empty.csv", "header_only.csv", "utf16.csv"]
BAD_CONFIGS = [
    (b"{not json", "not valid JSON"),
    (b'{"graders": [{"name": "exactly"}]}', "unknown grader 'exactly'"),
    (b'{"graders": [{"name": "bleu", "threshold": 2}]}', "between 0 and 1"),
    (b'{"columns": {"answer": "x"}}', "unknown column role"),
    # graders that would make every row an error: refused as the command line refuses them
    (b'{"graders": [{"name": "json_schema", "schema": {"type": "nope"}}]}', "cannot be used"),
    (b'{"graders": [{"name": "regex", "pattern": "(?P<x>a)"}]}', "is written (?<x>"),
    (b'{"graders": [{"name": "regex", "pattern": ""}]}', "needs a pattern"),
]
BAD_SCHEMAS = [
    ("{", "not valid JSON"),
    ('{"items": ' * 1000 + "{}" + "}" * 1000, "nests too deeply"),
    ('{"type": "nope"}', "not a valid Draft 2020-12 schema"),
    ('{"type": "string", "pattern": "(?P<x>a)"}', "pattern at"),
]


def test_a_bad_file_is_one_error():
    at = start()
    for name in BAD_FILES:
        upload(at, FILES / name)
        assert not at.exception
        assert len(errors(at)) == 1 and errors(at)[0].startswith(f"Could not read {name}"), (name, errors(at))
    at.button(key="score_sample_returns_desk.csv").click().run()
    assert errors(at) == [] and "gb_view" in at.session_state


def test_a_bad_configuration_is_one_error():
    at = start()
    for i, (text, words) in enumerate(BAD_CONFIGS):
        at.file_uploader(key="gb_config_upload").set_value((f"bad{i}.json", text, "application/json"))
        at.run()
        assert not at.exception
        assert len(errors(at)) == 1 and words in errors(at)[0], errors(at)
        assert at.multiselect(key="gb_w_score_graders").value == DESK_GRADERS  # nothing changed


def test_an_invalid_schema_is_one_error_and_the_rest_still_scores():
    at = start()
    for schema, words in BAD_SCHEMAS:
        at.text_area(key="gb_w_score_json_schema_schema").input(schema).run()
        assert not at.exception
        assert len(errors(at)) == 1 and words in errors(at)[0], errors(at)
        assert any("Left out of the run until fixed: JSON Schema" in w.value for w in at.warning)
        graded = view(at)["summary"]["graders"]
        assert "json_schema" not in graded and "exact" in graded


def test_an_unsupported_schema_keyword_is_a_warning_not_an_error():
    at = start()
    at.text_area(key="gb_w_score_json_schema_schema").input('{"type": "object", "x-foo": 1}').run()
    assert errors(at) == []
    assert any("outside the supported" in w.value for w in at.warning)
    assert view(at)["summary"]["graders"]["json_schema"]["not_judged"] == 40


def test_a_python_regex_shows_its_hint_as_you_type():
    at = start()
    at.text_input(key="gb_w_score_regex_pattern").input("(?P<id>RT-\\d+)").run()
    assert len(errors(at)) == 1 and "(?P<id>…) is written (?<id>…) in JavaScript" in errors(at)[0]
    at.text_input(key="gb_w_score_regex_pattern").input("(?<id>RT-\\d+)").run()
    assert errors(at) == []


def test_a_file_with_every_row_left_out_says_so_and_stops():
    """Nothing to score is a warning beside the left-out report, never an exception; a
    mapping that leaves every row out (repeat -> the input column) says the same."""
    at = start()
    at.file_uploader(key="score_upload").set_value(("allempty.csv", b"id,expected,output\na,x,\nb,y,\n", "text/plain"))
    at.run()
    assert not at.exception and errors(at) == []
    warnings = [w.value for w in at.warning]
    assert "2 rows left out; 0 cases can be scored." in warnings  # (count words: "1 row", "2 rows")
    assert any(w.startswith("No row can be scored: every row is left out") for w in warnings)
    at = start()
    at.selectbox(key="gb_w_score_map_repeat").select("input").run()
    assert not at.exception and errors(at) == []
    assert any(w.startswith("No row can be scored") for w in [w.value for w in at.warning])
    at.selectbox(key="gb_w_score_map_repeat").select("— none —").run()
    assert not at.exception and "gb_view" in at.session_state


def test_a_mapping_without_output_is_one_error():
    at = start()
    at.selectbox(key="gb_w_score_map_output").select("— none —").run()
    assert not at.exception
    assert len(errors(at)) == 1 and "no column is mapped to output" in errors(at)[0]


def test_no_thread_is_left_running():
    at = start()
    assert at.session_state["gb_job"] is None
    assert not [t for t in threading.enumerate() if t.name.startswith("gb-score-")]


def test_a_file_loaded_on_another_page_resets_this_pages_mapping():
    at = start()
    at.switch_page("pages/compare.py").run()
    at.button(key="compare_sample_returns_ab_long.jsonl").click().run()
    assert at.session_state["gb_file_name"] == "returns_ab_long.jsonl"
    at.switch_page("pages/score.py").run()
    assert not at.exception and errors(at) == []
    assert at.selectbox(key="gb_w_score_map_version").value == "version"
    assert at.selectbox(key="gb_w_score_map_repeat").value == "repeat"
    assert view(at)["summary"]["cases"] == 240


def test_the_filter_and_counts_helpers_directly():
    from graders.config import load_config
    from graders.pipeline import score_file
    from ui import views

    run = score_file(SAMPLES / "returns_desk.csv", load_config(SAMPLES / "returns_desk.config.json"))
    parts = {s: p for s, p in run.scored.groupby("scorer", sort=False)}
    count, shown, hits = views.filter_parts(parts, run.prepared.rows, kinds=["failures"], scorers=["exact"])
    assert count == run.summary["graders"]["exact"]["failed"] == 32 and len(shown) == 32
    assert shown.index.is_monotonic_increasing  # file order
    count, _, _ = views.filter_parts(parts, run.prepared.rows, kinds=["near misses", "errors"], scorers=["exact"])
    assert count == run.summary["graders"]["exact"]["near_misses"]
    count, shown, _ = views.filter_parts(parts, run.prepared.rows, text="STORE CREDIT")  # any case, any field
    rows = run.prepared.rows
    anywhere = rows[["item", "input", "expected", "output"]].apply(
        lambda col: col.str.contains("store credit", case=False)).any(axis=1)
    assert set(shown["item"]) == set(rows.loc[anywhere, "item"]) and len(set(shown["item"])) >= 2
    with pytest.raises(ValueError, match="unknown filter"):
        views.kind_mask(parts["exact"], ["fails"])
    table = views.counts_markdown(run.summary, ["exact"])
    # the headline figures first; the pass count opens the pass-rate page from views.rate_links
    assert "| **Exact match** | 20.0% [10.5%, 34.8%] | 0.200 | 8 | 32 | 40 | 0 | 0 |" in table
    assert views.rate_links(run.summary, ["exact"])[0] == (
        "Exact match: 8 of 40", {"k": "8", "n": "40", "label": "Exact match: passed"})


def test_a_search_in_a_wide_file_keeps_to_the_system_whose_text_matched():
    """Both systems of a wide file share their record: "fedex" is in output_b only (r01's
    output is UPS), so the search shows output_b's rows and never output's."""
    from graders.config import RunConfig
    from graders.pipeline import score_file
    from ui import views


    run = score_file(SAMPLES / "returns_ab_wide.csv", RunConfig.from_dict({**json.loads((SAMPLES / "returns_desk.config.json").read_text()), "columns": {}}))
    rows = run.prepared.rows
    parts = {s: p for s, p in run.scored.groupby("scorer", sort=False)}
    count, shown, _ = views.filter_parts(parts, rows, text="fedex")
    hay = rows[["item", "input", "expected", "output"]].apply(lambda col: col.str.contains("fedex", case=False)).any(axis=1)
    expected_pairs = set(zip(rows.loc[hay, "item"], rows.loc[hay, "system"]))
    assert expected_pairs and {s for _, s in expected_pairs} == {"output_b"}
    assert set(zip(shown["item"], shown["system"])) == expected_pairs
    assert count == len(expected_pairs) * len(parts)


def test_the_search_finds_what_the_page_shows():
    """An any-of expected is searched by its references (its JSON cell may spell Zürich as
    Z\\u00fcrich), and a lone surrogate by the escape the page shows in its place."""
    from graders.config import RunConfig
    from graders.pipeline import score_file
    from ui import views

    data = ('{"id": "a\\ud800", "expected": "Paris", "output": "Paris"}\n'
            '{"id": "b", "expected": "Rome", "output": "x\\ud800y"}\n'
            '{"id": "k", "expected_kind": "any-of", "expected": "[\\"Z\\\\u00fcrich\\", \\"Geneva\\"]", "output": "Bern"}\n')
    run = score_file(data.encode(), RunConfig.from_dict({"graders": [{"name": "exact"}]}))
    rows = run.prepared.rows
    assert rows.set_index("item").loc["k", "refs"] == ("Zürich", "Geneva")
    for query, items in (("zürich", {"k"}), ("a\\ud800", {"a\ud800"}), ("\\ud800", {"a\ud800", "b"}),
                         ("x\\ud800y", {"b"}), ("geneva", {"k"})):
        assert set(rows.loc[rows["record"].isin(views.text_cases(rows, query)["record"]), "item"]) == items, query


def test_the_near_miss_table_names_the_system_when_the_file_has_two():
    at = AppTest.from_file(str(ROOT / "pages" / "score.py"), default_timeout=120)
    from graders.readers.files import read_results

    data = b"id,expected,output,output_b\n1,Paris,Paris,paris\n2,Rome,Rome,Rome \n3,Oslo,Oslo,Oslo\n"
    at.session_state["gb_file"] = read_results(data, name="two.csv")
    at.session_state["gb_file_name"], at.session_state["gb_file_hash"] = "two.csv", "two"
    at.session_state["gb_file_sample"], at.session_state["gb_file_error"] = None, None
    at.run()
    assert not at.exception, at.exception
    near = view(at)["near_table"][0]
    at.run()
    tables = [d.value for d in at.dataframe if "Step that would pass it" in d.value.columns]
    assert tables and "System" in tables[0].columns and set(tables[0]["System"]) == {"output_b"}
    assert len(near)


@pytest.mark.parametrize("sample, words", [
    ("returns_desk.csv", "**40 cases scored**"),
    ("returns_ab_wide.csv", "**80 outputs scored** (40 cases, 2 systems)"),
    ("returns_ab_long.jsonl", "**240 outputs scored** (40 cases, 2 systems, with repeats)"),
])
def test_the_counts_headline_says_outputs_when_a_case_has_several(sample, words):
    from graders.config import RunConfig
    from graders.pipeline import score_file
    from ui import views

    run = score_file(SAMPLES / sample, RunConfig.from_dict({"graders": [{"name": "exact"}]}))
    assert views.scored_words(run.prepared.rows) == words


@pytest.mark.parametrize("sample, line", [
    ("returns_desk.csv", "All rows can be scored: 40 cases."),
    ("returns_ab_wide.csv", "All rows can be scored: 80 outputs (40 cases, 2 systems)."),
])
def test_the_left_out_line_counts_what_the_headline_counts(sample, line):
    at = start()
    at.button(key=f"score_sample_{sample}").click().run()
    assert line in [s.value for s in at.success]


def test_a_file_of_several_systems_points_to_the_compare_page():
    at = start()
    assert not any("systems" in i.value for i in at.info)  # one system: no pointer
    others = [link for link in page_links(at) if link[0] != "pass_rate"]  # the counts' pass-rate links aside
    assert others == [("playground", "To try one pair first, use the grader playground")]
    at.button(key="score_sample_returns_ab_wide.csv").click().run()
    assert any(i.value.startswith("This file has 2 systems (`output`, `output_b`). The counts below are per system")
               for i in at.info)
    assert ("compare", "Compare A and B") in page_links(at)


def page_links(at: AppTest) -> list[tuple[str, str]]:
    """(page, label) of each st.page_link (AppTest has no accessor of its own for them)."""
    return [(e.proto.page, e.proto.label) for e in at.main if getattr(e, "type", None) == "page_link"]


def _verdicts(run, scorers):
    """{(record, system): {scorer: passed}} over the passes and fails of ``scorers``."""
    out: dict = {}
    for r in run.scored[run.scored["scorer"].isin(scorers) & run.scored["status"].isin(["pass", "fail"])].itertuples():
        out.setdefault((r.record, r.system), {})[r.scorer] = r.status == "pass"
    return out


def test_graders_disagree_among_the_chosen_graders():
    """Exact against normalized: the cases one passes and the other fails, both rows shown
    (r02 is "Store credit" against "store credit"); with no grader chosen, every grader
    but the overall row takes part."""
    from graders.config import load_config
    from graders.pipeline import score_file
    from ui import views

    run = score_file(SAMPLES / "returns_desk.csv", load_config(SAMPLES / "returns_desk.config.json"))
    parts = {s: p for s, p in run.scored.groupby("scorer", sort=False)}
    rows = run.prepared.rows
    for chosen in (["exact", "normalized"], ["exact", "contains", "numeric"], []):
        among = chosen or [s for s in parts if s != "overall"]
        split = {case for case, v in _verdicts(run, among).items() if len(set(v.values())) == 2}
        count, shown, _ = views.filter_parts(parts, rows, kinds=["graders disagree"], scorers=chosen)
        assert {(r, s) for r, s in zip(shown["record"], shown["system"])} == split
        assert count == sum(len(_verdicts(run, among)[case]) for case in split)
        assert set(shown["status"]) <= {"pass", "fail"} and "overall" not in set(shown["scorer"])
    count, shown, _ = views.filter_parts(parts, rows, kinds=["graders disagree"], scorers=["exact", "normalized"])
    assert count == 8 and list(shown["item"][:2]) == ["r02", "r02"]
    assert views.filter_parts(parts, rows, kinds=["systems disagree"])[0] == 0  # one system
    with pytest.raises(ValueError, match="compares rows across graders"):
        views.kind_mask(parts["exact"], ["graders disagree"])


def test_systems_disagree_on_a_wide_file():
    """A case and grader that output passes and output_b fails, or the reverse."""
    from graders.config import RunConfig
    from graders.pipeline import score_file
    from ui import views

    run = score_file(SAMPLES / "returns_ab_wide.csv", RunConfig.from_dict({"graders": ["exact", "normalized", "numeric"]}))
    parts = {s: p for s, p in run.scored.groupby("scorer", sort=False)}
    decided = run.scored[run.scored["status"].isin(["pass", "fail"])]
    sides = decided.pivot_table(index=["item", "scorer"], columns="system", values="status", aggfunc="first")
    split = sides[(sides["output"] != sides["output_b"]) & sides.notna().all(axis=1)].index
    count, shown, _ = views.filter_parts(parts, run.prepared.rows, kinds=["systems disagree"])
    assert count == 2 * len(split) > 0
    assert set(zip(shown["item"], shown["scorer"])) == set(split)


def test_the_disagreement_filters_on_the_page():
    at = start()
    assert "systems disagree" not in at.multiselect(key="gb_w_score_filter_kinds").options  # one system
    at.multiselect(key="gb_w_score_filter_graders").set_value(["exact", "normalized"]).run()
    at.multiselect(key="gb_w_score_filter_kinds").set_value(["graders disagree"]).run()
    assert not at.exception
    assert [c.value for c in at.caption if "scored rows" in c.value][0].startswith("8 of ")
    at.button(key="score_sample_returns_ab_wide.csv").click().run()
    assert "systems disagree" in at.multiselect(key="gb_w_score_filter_kinds").options
    at.multiselect(key="gb_w_score_filter_kinds").set_value(["systems disagree"]).run()
    assert not at.exception and [c.value for c in at.caption if "scored rows" in c.value][0][0] != "0"


def test_another_list_forgets_the_row_selected_in_the_last():
    """The third row of the failures is another case once the search narrows the list: the
    selection goes rather than open a row never picked; likewise on another file."""
    at = start()
    at.session_state["gb_filter_table"] = {"selection": {"rows": [2], "columns": [], "cells": []}}
    at.run()
    assert any(m.value.startswith("#### Case ") for m in at.markdown)
    at.text_input(key="gb_w_score_filter_text").input("r05").run()
    assert not at.exception and not any(m.value.startswith("#### Case ") for m in at.markdown)
    at.session_state["gb_filter_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert any(m.value.startswith("#### Case r05") for m in at.markdown)
    at.button(key="score_sample_returns_ab_wide.csv").click().run()
    assert not any(m.value.startswith("#### Case ") for m in at.markdown)


def test_one_grader_chosen_disagrees_with_the_others():
    """With one grader chosen, "graders disagree" lists its rows that another grader (not the
    overall row) decides the other way: one grader alone never disagrees."""
    from graders.config import load_config
    from graders.pipeline import score_file
    from ui import views

    run = score_file(SAMPLES / "returns_desk.csv", load_config(SAMPLES / "returns_desk.config.json"))
    parts = {s: p for s, p in run.scored.groupby("scorer", sort=False)}
    everyone = [s for s in parts if s != "overall"]
    split = {case for case, v in _verdicts(run, everyone).items() if len(set(v.values())) == 2}
    exact = _verdicts(run, ["exact"])
    count, shown, _ = views.filter_parts(parts, run.prepared.rows, kinds=["graders disagree"], scorers=["exact"])
    assert set(shown["scorer"]) == {"exact"} and count == len([c for c in split if c in exact]) > 0
    at = start()
    at.multiselect(key="gb_w_score_filter_graders").set_value(["exact"]).run()
    at.multiselect(key="gb_w_score_filter_kinds").set_value(["graders disagree"]).run()
    assert [c.value for c in at.caption if "scored rows" in c.value][0].startswith(f"{count} of ")


def test_a_file_that_is_not_a_sample_starts_from_the_default_graders():
    """Issue 33, 1: the bundled sample's regex, schema, numeric read=last and overall rule
    stuck to the user's own file (3/3 "overall" where exact matched 1 of 3)."""
    at = start()
    assert "regex" in at.multiselect(key="gb_w_score_graders").value  # the sample's own configuration
    at.text_area(key="score_paste").input("id,expected,output\n1,a,a\n2,b,c\n3,d,e\n")
    at.button(key="score_paste_go").click().run()
    assert not at.exception and errors(at) == []
    assert at.multiselect(key="gb_w_score_graders").value == ["exact", "normalized"]
    assert at.radio(key="gb_w_score_overall").value == "off"
    summary = view(at)["summary"]
    assert set(summary["graders"]) == {"exact", "normalized"} and summary["graders"]["exact"]["passed"] == 1


def test_answer_extraction_above_the_graders_with_a_preview():
    """Issue 31: a choice above the graders, its live preview, and every grader given it."""
    at = start()
    at.text_area(key="score_paste").input(
        'id,expected,output\n1,42,"Working... #### 42"\n2,7,"So it is 8. #### 8"\n3,5,"no idea"\n')
    at.button(key="score_paste_go").click().run()
    at.selectbox(key="gb_w_score_extract").select("gsm8k").run()
    assert not at.exception and errors(at) == []
    preview = next(d.value for d in at.dataframe if "Extracted" in d.value.columns)
    assert preview["Extracted"].tolist() == ["42", "8", "— no answer found —"]
    v = view(at)
    assert [g.params.get("extract") for g in v["config"].graders] == ["gsm8k", "gsm8k"]
    exact = v["summary"]["graders"]["exact"]
    assert (exact["passed"], exact["failed"], exact["no_answer"]) == (1, 2, 1)
    assert any("2 (1 no answer)" in m.value for m in at.markdown)  # the counts table says it apart
    at.session_state["gb_filter_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    shown = [m.value for m in at.markdown if m.value.startswith("**Extracted by")]
    assert shown and (shown[0].endswith("no answer found") or "`" in shown[0])
    at.selectbox(key="gb_w_score_extract").select("regex").run()
    at.text_input(key="gb_w_score_extract_pattern").input("(?P<n>x)").run()
    assert any("(?<n>…)" in e for e in errors(at))  # a Python pattern: one message, its JavaScript form


def test_a_harness_file_shows_the_harness_verdict_beside_ours():
    """Issue 30: a promptfoo run opened on the Score page lists harness.pass against each grader."""
    at = start()
    data = (ROOT / "tests" / "files" / "harness" / "promptfoo" / "results.json").read_text(encoding="utf-8")
    at.text_area(key="score_paste").input(data)
    at.button(key="score_paste_go").click().run()
    assert not at.exception and errors(at) == []
    table = next(d.value for d in at.dataframe if "Harness column" in d.value.columns)
    assert set(table["Harness column"]) == {"harness.pass"}
    assert (table["Agree"] + table["Harness pass, ours fail"] + table["Harness fail, ours pass"]
            == table["Rows both decided"]).all()


def test_a_grader_takes_its_own_answer_extraction():
    """Issue 31: each grader's settings may override the page's extraction (none, a named
    form, or its own regex), the configuration carries it per grader and scores by it; a
    bad custom extraction is one error under the widget, that grader left out until fixed;
    restoring a configuration with differing extracts puts each back where it came from."""
    at = start()
    at.text_area(key="score_paste").input(
        'id,expected,output\n1,42,"Working... #### 42"\n2,7,"So it is 8. #### 8"\n3,5,"ANSWER: 5"\n')
    at.button(key="score_paste_go").click().run()
    at.selectbox(key="gb_w_score_extract").select("gsm8k").run()
    at.selectbox(key="gb_w_score_normalized_extract").select("none").run()
    assert not at.exception and errors(at) == []
    v = view(at)
    assert [g.params.get("extract") for g in v["config"].graders] == ["gsm8k", None]
    assert v["summary"]["graders"]["exact"]["passed"] == 1  # "42" from "#### 42"
    assert v["summary"]["graders"]["normalized"]["passed"] == 0  # the whole replies
    at.selectbox(key="gb_w_score_normalized_extract").select("regex").run()
    at.text_input(key="gb_w_score_normalized_extract_pattern").input(r"ANSWER:\s*(\d+)").run()
    v = view(at)
    own = {"regex": r"ANSWER:\s*(\d+)", "group": 1, "flags": "", "which": "last"}
    assert [g.params.get("extract") for g in v["config"].graders] == ["gsm8k", own]
    assert v["summary"]["graders"]["normalized"]["passed"] == 1  # "5" after ANSWER:
    at.text_input(key="gb_w_score_normalized_extract_group").input("9").run()
    assert any("group" in e for e in errors(at))  # the pattern has no group 9: one message
    assert [g.name for g in view(at)["config"].graders] == ["exact"]


def test_a_configuration_whose_graders_extract_differently_comes_back_grader_by_grader(monkeypatch):
    import streamlit as st

    from ui import graders_form

    state: dict = {}
    monkeypatch.setattr(st, "session_state", state)
    config = graders_form.parse_config(json.dumps({"graders": [{"name": "exact", "extract": "gsm8k"},
                                                              {"name": "normalized", "extract": {"json_path": "$.a"}},
                                                              {"name": "contains"}]}))
    graders_form.set_graders_state("score", config)
    assert state["gb_w_score_extract"] == "none"
    assert (state["gb_w_score_exact_extract"], state["gb_w_score_contains_extract"]) == ("gsm8k", "page")  # none, as the page
    assert (state["gb_w_score_normalized_extract"], state["gb_w_score_normalized_extract_path"]) == ("json_path", "$.a")
    same = graders_form.parse_config(json.dumps({"graders": [{"name": "exact", "extract": "boxed"},
                                                            {"name": "normalized", "extract": "boxed"}]}))
    graders_form.set_graders_state("score", same)
    assert state["gb_w_score_extract"] == "boxed"
    assert state["gb_w_score_exact_extract"] == state["gb_w_score_normalized_extract"] == "page"
