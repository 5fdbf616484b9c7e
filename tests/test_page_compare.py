"""The Compare page through Streamlit's AppTest: the A/B samples (wide and long), the
metric table and its pass-rate links, charts, the sensitivity view, the review rows with
the row detail, downloads, caching, and one st.error for each way a comparison can fail."""

import json
import math
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from graders.readers.files import read_results  # noqa: E402

PAGE = str(ROOT / "pages" / "compare.py")
LONG_SAMPLE = "compare_sample_returns_ab_long.jsonl"  # ui.loading's sample button on this page
TIMEOUT = 60


def page(**state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    for k, v in state.items():
        at.session_state[k] = v
    return at


def inject(content: bytes, name: str = "test.csv") -> AppTest:
    """The page with ``content`` already loaded, as ``ui.loading`` leaves it."""
    return page(gb_file=read_results(content, name=name), gb_file_name=name,
                gb_file_hash=f"test-{hash(content)}", gb_file_sample=None, gb_file_error=None)


def charts(at) -> list:
    found = []

    def walk(node):
        if getattr(node, "type", None) == "vega_lite_chart":
            found.append(node)
        for c in getattr(node, "children", {}).values():
            walk(c)

    walk(at._tree)
    return found


NUMBER_COLUMNS = ("Mean A", "Mean B", "A − B", "p", "Holm p")  # sent as text: "—" where there is none


def metric_table(at):
    table = next(d.value for d in at.dataframe if "Reading" in d.value.columns and "In words" in d.value.columns).copy()
    for column in NUMBER_COLUMNS:
        table[column] = [float("nan") if v == "—" else float(v) for v in table[column]]
    return table


def no_trouble(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_wide_sample_main_path():
    start = time.perf_counter()
    at = page().run()
    elapsed = time.perf_counter() - start
    no_trouble(at)
    assert any("Wide file: **A** = column `output`, **B** = column `output_b`" in m.value for m in at.markdown)
    table = metric_table(at).set_index("Metric")
    # the metrics that apply to the file's data (issue 33, 5): short text answers, no JSON,
    # no numbers; every other metric is one choice away
    assert list(table.index) == ["Exact match", "Normalized match", "Contains", "Token F1"]
    exact = table.loc["Exact match"]
    assert (exact["Paired n"], exact["Wins"], exact["Losses"], exact["Ties"]) == (40, 4, 15, 21)
    assert exact["Mean A"] == pytest.approx(0.2) and exact["Mean B"] == pytest.approx(0.475)
    assert (exact["A passes"], exact["B passes"]) == ("8", "19")  # counts; their links open in this session
    assert exact["b / c"] == "4 / 15" and exact["Test"] == "McNemar exact"
    assert exact["Reading"] == "B better" and "Holm p" in exact["In words"]  # exact alone is primary (issue 33)
    assert math.isnan(table.loc["Token F1"]["Holm p"])  # not primary: shown unadjusted (issue 33)
    bullets = next(m.value for m in at.markdown if m.value.startswith("- **Exact match**"))
    # no flag where the words say it ("may be noise", "no detectable difference"): a flag is for a winner
    # exact alone is primary: its Holm p is its p, and B is better beyond noise (issue 33)
    assert "B better" in bullets.splitlines()[0] and "may be noise" not in bullets.splitlines()[0]
    assert not any("no difference: No difference" in m.value for m in at.markdown)
    bullets = next(m.value for m in at.markdown if m.value.startswith("- **Exact match**"))
    assert "passes: A 8 of 40, B 19 of 40" in bullets and "](" not in bullets  # no link that opens a new tab
    links = rate_links(at)
    assert links["Exact match · output: 8 of 40 pass"] == {"k": "8", "n": "40", "label": "Exact match: output"}
    assert links["Exact match · output_b: 19 of 40 pass"]["k"] == "19"
    assert len(charts(at)) == 4  # outcome bars, scatter, differences, sensitivity
    assert [b.label for b in at.download_button] == ["Comparison CSV", "Comparison CSV, spreadsheet-safe",
                                                    "Summary JSON", "Export configuration"]
    # The review defaults to "A passes, B fails" on exact; the first row's detail is shown.
    assert any(m.value.startswith("#### Case r01") for m in at.markdown)
    # the labels as literal Markdown (ui.display.md): a column name's _ or : is not formatting
    assert any(m.value == "**A\\: output**" for m in at.markdown)
    assert any(m.value == "**B\\: output\\_b**" for m in at.markdown)
    assert elapsed < 30
    print(f"wide sample first run: {elapsed:.2f} s")


def test_long_sample_versions_repeats_and_swap():
    at = page().run()
    at.button(key=LONG_SAMPLE).click().run()
    no_trouble(at)
    a, b = at.selectbox(key="gb_w_compare_side_a"), at.selectbox(key="gb_w_compare_side_b")
    assert (a.value, b.value) == ("returns-assistant-v1", "returns-assistant-v2")
    assert any("cluster bootstrap" in i.value for i in at.info)
    exact = metric_table(at).set_index("Metric").loc["Exact match"]
    assert (exact["Paired n"], exact["Cases"]) == (120, 40)
    diff = exact["A − B"]
    assert diff == pytest.approx(-0.25)
    at.selectbox(key="gb_w_compare_side_a").set_value("returns-assistant-v2")
    at.selectbox(key="gb_w_compare_side_b").set_value("returns-assistant-v1").run()
    no_trouble(at)
    assert metric_table(at).set_index("Metric").loc["Exact match"]["A − B"] == pytest.approx(0.25)


def test_a_metric_without_pairs_shows_dashes_and_says_so_once():
    """JSON fields cannot judge a plain-text expected answer: no pairs, no means, no p."""
    import pyarrow as pa

    at = inject(b"id,expected,output,output_b\n1,a,a,b\n2,b,b,b\n3,c,x,c\n").run()
    at.multiselect(key="gb_w_compare_graders").set_value(["exact", "json_fields"]).run()
    no_trouble(at)
    frame = next(d for d in at.dataframe if "Holm p" in d.value.columns and "In words" in d.value.columns)
    shown = pa.ipc.open_stream(frame.proto.arrow_data.styler.display_values).read_all().to_pandas()
    row = shown.set_index("Metric").loc["JSON fields"]  # what the browser shows
    assert [row[c] for c in NUMBER_COLUMNS] == ["—"] * 5
    # the cells themselves, not only the Styler's display values: a browser table draws a
    # missing number as "None" whatever the Styler says
    sent = frame.value.set_index("Metric").loc["JSON fields"]
    assert [sent[c] for c in NUMBER_COLUMNS] == ["—"] * 5
    from ui import display

    words = display.md("No case has a score on both sides: nothing to compare.")
    assert f"- **JSON fields** — {words}" in "\n".join(m.value for m in at.markdown)


def test_same_version_twice_is_one_error():
    at = page().run()
    at.button(key=LONG_SAMPLE).click().run()
    at.selectbox(key="gb_w_compare_side_b").set_value("returns-assistant-v1").run()
    assert len(at.error) == 1 and "the same version" in at.error[0].value
    assert not at.exception


FOUR = ["exact", "normalized", "contains", "token_f1"]


def test_review_filters_sensitivity_choice_and_cache():
    at = page(gb_w_compare_seed=11, gb_w_compare_graders=FOUR).run()
    no_trouble(at)
    ran = at.session_state["gb_compare_count"]
    for kind in ("a_fails_b_passes", "disagree", "largest_drops"):
        at.selectbox(key="gb_w_compare_review_kind").set_value(kind).run()
        no_trouble(at)
        assert any(m.value.startswith("#### Case ") for m in at.markdown)
    at.selectbox(key="gb_w_compare_review_metric").set_value("token_f1").run()
    assert any(m.value.startswith("#### Case ") for m in at.markdown)  # largest drops still
    at.selectbox(key="gb_w_compare_review_kind").set_value("a_passes_b_fails").run()
    assert any(i.value.startswith("Token F1 has no threshold, so none of its rows passes or fails") for i in at.info)
    at.selectbox(key="gb_w_compare_chart_metric").set_value("token_f1").run()
    at.radio(key="gb_w_compare_ladder").set_value("selected").run()
    no_trouble(at)
    # None of these changed the comparison: it ran once.
    assert at.session_state["gb_compare_count"] == ran
    frames = [d.value for d in at.dataframe if "Grader" in d.value.columns and "Reading" in d.value.columns]
    assert list(frames[0]["Grader"]) == ["Exact match", "Normalized match", "Contains", "Token F1"]
    at.number_input(key="gb_w_compare_seed").set_value(12).run()
    assert at.session_state["gb_compare_count"] == ran + 1


def test_overall_row_and_a_grader_added():
    at = page(gb_w_compare_seed=21, gb_w_compare_graders=FOUR).run()
    at.multiselect(key="gb_w_compare_graders").select("numeric")
    at.radio(key="gb_w_compare_overall").set_value("any").run()
    no_trouble(at)
    metrics = list(metric_table(at)["Metric"])
    assert metrics == ["Exact match", "Normalized match", "Contains", "Token F1", "Numeric", "Overall"]


@pytest.mark.parametrize("content, message", [
    (b"id,expected,output,version\n1,a,a,v1\n2,b,b,v1\n", "only one version (v1); compare needs two"),
    (b"id,expected,output,version\n1,a,a,v1\n2,b,b,v2\n", "no case appears in both v1 and v2"),
    (b"id,expected,output\n1,a,a\n", "compare needs two outputs"),
])
def test_comparison_errors_are_one_st_error(content, message):
    at = inject(content).run()
    assert not at.exception
    assert len(at.error) == 1 and message.lower() in at.error[0].value.lower()
    assert at.error[0].value[0].isupper()
    assert not at.download_button  # nothing below the error
    two_sides = b"v2" in content  # settings only where there are two sides to compare
    assert ("gb_w_compare_resamples" in [n.key for n in at.number_input]) == two_sides


def test_bad_file_is_one_st_error():
    at = page().run()
    at.text_area(key="compare_paste").input("id,expected,output\n")  # a header and no rows
    at.button(key="compare_paste_go").click().run()
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.startswith("Could not read pasted rows")


def test_unpaired_cases_are_listed():
    content = (b"id,expected,output,version\n1,a,a,v1\n2,b,b,v1\n3,c,c,v1\n1,a,x,v2\n2,b,b,v2\n4,d,d,v2\n")
    at = inject(content).run()
    no_trouble(at)
    warnings = [w.value for w in at.warning]
    assert any(w.startswith("1 row only in v1") and w.endswith(": 3") for w in warnings)
    assert any(w.startswith("1 row only in v2") and w.endswith(": 4") for w in warnings)


def test_through_the_app_after_another_page():
    """A file loaded on the compare page, a visit to the score page, and back: the compare
    page's column boxes are set again for the file (never left on none)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/compare.py").run()
    # The score page's sample (one version) cannot be compared: one error, and the samples are offered.
    assert len(at.error) == 1 and "only one version" in at.error[0].value
    at.button(key=LONG_SAMPLE).click().run()
    no_trouble(at)
    at.switch_page("pages/score.py").run()
    at.switch_page("pages/compare.py").run()
    no_trouble(at)
    assert metric_table(at).set_index("Metric").loc["Exact match"]["Paired n"] == 120


def test_wide_file_with_a_version_column_compares_its_two_outputs():
    at = inject(b"id,expected,output,output_b,version\n1,a,a,b,v1\n2,b,b,b,v1\n3,c,x,c,v1\n").run()
    no_trouble(at)
    exact = metric_table(at).set_index("Metric").loc["Exact match"]
    assert (exact["Paired n"], exact["Wins"], exact["Losses"], exact["Ties"]) == (3, 1, 1, 1)


def test_a_wide_file_with_versions_keeps_its_cases_in_the_ladder_and_the_chart():
    """A case is (id, version): id 1 of v1 and of v2 are two cases for the ladder's
    intervals and the per-case chart, as for the metric table (they were merged)."""
    at = inject(b"id,expected,output,output_b,version\n1,a,a,b,v1\n2,b,b,b,v1\n3,c,x,c,v1\n1,a,a,a,v2\n").run()
    no_trouble(at)
    exact = metric_table(at).set_index("Metric").loc["Exact match"]
    assert exact["Cases"] == 4
    ladder = [d.value for d in at.dataframe if "Grader" in d.value.columns and "Reading" in d.value.columns][0]
    assert ladder.set_index("Grader").loc["Exact match", "95% CI"] == exact["95% CI of A − B"]
    titles = [json.loads(c.proto.spec).get("title") for c in charts(at)]
    assert {"text": "Exact match: per-case A − B", "subtitle": "4 cases; right of the line A is higher"} in titles


def test_the_downloads_are_the_offered_commands_files(tmp_path, monkeypatch):
    """The Comparison CSV and Summary JSON downloads are, byte for byte, what the caption's
    command writes with the Export configuration download (the summary's column mapping
    was in sorted order, and it had no final line break)."""
    import shlex

    from streamlit.delta_generator import DeltaGenerator

    from graders import cli

    got: dict[str, bytes] = {}
    real = DeltaGenerator.download_button

    def keep(self, label, data, *args, **kwargs):  # each download's bytes, as the page gives them
        got[label] = data() if callable(data) else (data.encode() if isinstance(data, str) else data)
        return real(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", keep)
    at = page().run()
    no_trouble(at)
    (tmp_path / "gradeboard.config.json").write_bytes(got["Export configuration"])
    command = next(c.value for c in at.caption if "gradeboard compare FILE" in c.value).split("`")[1]
    args = shlex.split(command)[1:]
    args[args.index("FILE")] = str(ROOT / "sample_data" / "returns_ab_wide.csv")
    args = [str(tmp_path / a) if a.endswith((".json", ".csv")) and "/" not in a else a for a in args]
    assert cli.main(args) == 0
    assert (tmp_path / "comparison.csv").read_bytes() == got["Comparison CSV"]
    assert (tmp_path / "comparison.summary.json").read_bytes() == got["Summary JSON"]
    # the spreadsheet-safe download is the command line's --spreadsheet-safe file
    assert cli.main(args + ["--spreadsheet-safe"]) == 0
    assert (tmp_path / "comparison.csv").read_bytes() == got["Comparison CSV, spreadsheet-safe"]


def test_the_offered_command_takes_a_version_that_starts_with_a_dash(tmp_path):
    rows = [{"id": i, "version": v, "expected": "a", "output": "a" if (i + (v == "new")) % 2 else "b"}
            for i in range(6) for v in ("-base", "new")]
    data = "\n".join(json.dumps(r) for r in rows).encode() + b"\n"
    at = inject(data, name="dash.jsonl").run()
    no_trouble(at)
    caption = next(c.value for c in at.caption if "gradeboard compare FILE" in c.value)
    assert "--a=-base --b=new" in caption  # "--a -base" reads -base as a flag
    (tmp_path / "dash.jsonl").write_bytes(data)
    from graders import cli
    assert cli.main(["compare", str(tmp_path / "dash.jsonl"), "--a=-base", "--b=new", "--out", str(tmp_path / "c.csv")]) == 0


def test_the_offered_command_names_an_empty_version(tmp_path):
    """Version A "" is a version: the command says --a='' (it left --a and --b out, and the
    command line then took the file's versions in its own order: the comparison reversed)."""
    rows = [{"id": i, "version": v, "expected": "a", "output": "a" if (i + (v == "v1")) % 3 else "b"}
            for i in range(6) for v in ("", "v1")]
    data = "\n".join(json.dumps(r) for r in rows).encode() + b"\n"
    at = inject(data, name="empty.jsonl").run()
    no_trouble(at)
    assert at.selectbox(key="gb_w_compare_side_a").value == ""
    caption = next(c.value for c in at.caption if "gradeboard compare FILE" in c.value)
    assert "--a='' --b=v1" in caption


def test_with_repeats_the_page_says_the_pass_rate_intervals_count_rows():
    at = inject((ROOT / "sample_data" / "returns_ab_long.jsonl").read_bytes(), name="returns_ab_long.jsonl").run()
    no_trouble(at)
    info = " ".join(i.value for i in at.info)
    assert "The pass-rate intervals (Wilson's) count each repeat as a row of its own" in info


def test_another_review_list_forgets_the_row_selected_in_the_last():
    """Row 3 of one list is another case in the next: the selection goes, the first row shows."""
    at = page(gb_w_compare_graders=FOUR).run()
    at.selectbox(key="gb_w_compare_review_kind").set_value("a_passes_b_fails").run()
    at.session_state["gb_compare_review_table"] = {"selection": {"rows": [2], "columns": [], "cells": []}}
    at.run()
    picked = next(m.value for m in at.markdown if m.value.startswith("#### Case "))
    at.selectbox(key="gb_w_compare_review_kind").set_value("largest_drops").run()
    no_trouble(at)
    first = next(d.value for d in at.dataframe if "outcome" in d.value.columns)["item"].iloc[0]
    shown = next(m.value for m in at.markdown if m.value.startswith("#### Case "))
    assert shown.startswith(f"#### Case {first}") and shown != picked


def test_a_wide_file_with_versions_names_the_version_of_each_review_row():
    rows = b"id,version,expected,output,output_b\n" + b"".join(
        f"q{i},{v},a,{'a' if i % 2 else 'b'},a\n".encode() for v in ("v1", "v2") for i in range(4))
    at = inject(rows).run()
    no_trouble(at)
    at.selectbox(key="gb_w_compare_review_kind").set_value("a_fails_b_passes").run()
    table = next(d.value for d in at.dataframe if "outcome" in d.value.columns)
    assert list(table.columns[:2]) == ["item", "version"]
    assert set(zip(table["item"], table["version"])) == {("q0", "v1"), ("q2", "v1"), ("q0", "v2"), ("q2", "v2")}
    assert any(m.value.startswith("#### Case q0 · v1") for m in at.markdown)


def test_rows_left_out_are_counted_in_the_expander_and_warned_about_when_many():
    rows = b"id,expected,output,output_b\n" + b"1,a,a,b\n2,a,a,a\n" + b"1,a,a,a\n" * 3
    at = inject(rows).run()
    no_trouble(at)
    assert "Rows left out (3)" in [e.label for e in at.expander]
    assert any(w.value.startswith("3 rows of the file were left out before pairing (60% of the outputs")
               for w in at.warning)


def test_the_same_version_twice_is_not_a_file_of_the_wrong_shape():
    at = page().run()
    at.button(key=LONG_SAMPLE).click().run()
    at.selectbox(key="gb_w_compare_side_b").set_value("returns-assistant-v1").run()
    assert at.error[0].value.endswith("choose two different ones.")
    assert not any("A comparison needs a wide file" in c.value for c in at.caption)


def test_a_pass_rate_link_with_repeats_says_its_n_counts_rows():
    at = page().run()
    at.button(key=LONG_SAMPLE).click().run()
    query = next(q for text, q in rate_links(at).items() if text.startswith("Exact match · returns-assistant-v1:"))
    assert query["n"] == "120"
    assert query["label"].startswith("Exact match: returns-assistant-v1 (120 rows of 40 cases with repeats")


def rate_links(at) -> dict:
    """{label: query parameters} of the links to the pass-rate page: st.page_link where the
    page runs in app.py's navigation, else (AppTest runs one page) their Markdown stand-ins."""
    import re
    from urllib.parse import parse_qsl, urlsplit

    out = {}
    for e in at.main:
        if getattr(e, "type", None) == "page_link" and e.proto.page.endswith("pass_rate"):
            out[e.proto.label] = dict(parse_qsl(e.proto.query_string))
        elif getattr(e, "type", None) == "markdown":
            for text, url in re.findall(r"^\[(.*)\]\((pass_rate\?[^)]*)\)$", e.value):
                out[re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")] = dict(parse_qsl(urlsplit(url).query))
    return out


def test_the_default_metrics_are_those_that_apply_to_the_files_data():
    """JSON outputs against JSON objects: exact, normalized, Valid JSON and JSON fields, not
    text overlap; a plain-text file never starts with the JSON graders (issue 33, 5)."""
    at = inject(b'id,expected,output,output_b\n1,"{""a"": 1}","{""a"": 1}","{""a"": 2}"\n'
                b'2,"{""a"": 3}","{""a"": 3}","{""a"": 3}"\n').run()
    no_trouble(at)
    assert at.multiselect(key="gb_w_compare_graders").value == ["exact", "normalized", "valid_json", "json_fields"]
    assert list(metric_table(at)["Metric"]) == ["Exact match", "Normalized match", "Valid JSON", "JSON fields"]
