"""Chart data (ui.present.charts) and the numeric tolerance sweep (graders.explore.sweeps)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pytest

from graders import grade
from graders.config import load_config
from graders.explore.sweeps import critical_tolerances, numeric_tolerance_sweep
from graders.pipeline import score_file
from ui.present import charts

ROOT = Path(__file__).resolve().parent.parent
DESK = ROOT / "sample_data" / "returns_desk.csv"


@pytest.fixture(scope="module")
def desk():
    return score_file(DESK, load_config(ROOT / "sample_data" / "returns_desk.config.json"))


def test_score_bins_count_every_continuous_score(desk):
    bins = charts.score_bins(desk.scored)
    assert set(bins["scorer"]) == {"token_f1", "bleu", "rouge_l", "chrf"}
    for scorer, part in bins.groupby("scorer"):
        assert part["rows"].sum() == desk.summary["graders"][scorer]["graded"]
        assert len(part) == 20
        assert part["bin_start"].iloc[0] == 0.0 and part["bin_end"].iloc[-1] == 1.0


def test_score_bins_put_one_in_the_last_bin():
    scored = pd.DataFrame({"scorer": ["bleu"] * 4, "score": ["1.0", "0.0", "0.5", ""]})
    bins = charts.score_bins(scored, bins=4)
    assert bins["rows"].tolist() == [1, 0, 1, 1]  # blank score (not judged) is not binned


def test_outcome_counts_per_system_match_the_summary():
    """A two-system file: one bar per (grader, system), each as its system's counts say."""
    from graders.config import RunConfig
    from graders.pipeline import score_file

    run = score_file(ROOT / "sample_data" / "returns_ab_wide.csv",
                     RunConfig.from_dict({"graders": [{"name": "exact"}, {"name": "contains"}]}))
    counts = charts.outcome_counts(run.scored)
    assert set(counts["label"]) == {
        "Exact match · output", "Exact match · output_b", "Contains · output", "Contains · output_b"}
    for system, per in run.summary["systems"].items():
        for scorer, c in per.items():
            part = counts[(counts["scorer"] == scorer) & (counts["system"] == system)].set_index("outcome")["rows"]
            assert part.get("pass", 0) == c["passed"] and part.sum() == c["graded"], (system, scorer)
    spec = charts.outcome_chart(counts, ["contains", "exact"]).to_dict()
    assert spec["encoding"]["y"]["sort"] == [
        "Contains · output", "Contains · output_b", "Exact match · output", "Exact match · output_b"]


def test_outcome_counts_match_the_summary(desk):
    counts = charts.outcome_counts(desk.scored)
    for scorer, c in desk.summary["graders"].items():
        part = counts[counts["scorer"] == scorer].set_index("outcome")["rows"]
        assert part.get("pass", 0) == c["passed"]
        assert part.get("fail", 0) + part.get("near miss", 0) == c["failed"]
        assert part.get("not judged", 0) == c["not_judged"]
        assert part.get("error", 0) == c["errors"]
        assert part.sum() == c["graded"]
    assert counts.groupby("scorer")["share"].sum().round(9).eq(1).all()


def test_near_miss_counts_split_codes():
    scored = pd.DataFrame({
        "scorer": ["exact", "exact", "exact", "normalized"],
        "near_miss": ["trim", "trim;lowercase", "", "trim"],
    })
    counts = charts.near_miss_counts(scored)
    got = {(r.code, r.scorer): r.rows for r in counts.itertuples()}
    assert got == {("trim", "exact"): 2, ("lowercase", "exact"): 1, ("trim", "normalized"): 1}
    assert counts.iloc[0]["words"] == "passes after trimming whitespace"


def test_schema_violations_group_by_path_and_keyword():
    details = [
        {"violations": [{"path": "/a", "keyword": "type", "message": "x"}, {"path": "/a", "keyword": "type", "message": "y"}]},
        {"violations": [{"path": "/a", "keyword": "type", "message": "x"}, {"path": "", "keyword": "required", "message": "z"}]},
        {"parse_error": {"message": "Expecting value"}, "violations": []},
        {"violations": []},
    ]
    scored = pd.DataFrame({"scorer": ["json_schema"] * 4, "details": details})
    v = charts.schema_violations(scored)
    assert v.to_dict("records") == [
        {"path": "/a", "keyword": "type", "rows": 2, "share": 0.5},
        {"path": "(root)", "keyword": "(not JSON)", "rows": 1, "share": 0.25},
        {"path": "(root)", "keyword": "required", "rows": 1, "share": 0.25},
    ]


def test_charts_of_200000_rows_are_small_specs():
    rng = random.Random(0)
    n = 200_000
    scored = pd.DataFrame({
        "scorer": ["token_f1"] * n,
        "score": [repr(rng.random()) for _ in range(n)],
        "status": ["scored"] * n,
        "near_miss": [""] * n,
    })
    for chart in (
        charts.score_distribution_chart(charts.score_bins(scored), {"token_f1": 0.5}),
        charts.outcome_chart(charts.outcome_counts(scored)),
    ):
        spec = json.dumps(chart.to_dict())  # no MaxRowsError: the data is aggregated
        assert len(spec) < 20_000


def test_every_builder_gives_a_valid_spec(desk):
    sweep = numeric_tolerance_sweep(desk.prepared.rows, read="last")
    for chart in (
        charts.score_distribution_chart(charts.score_bins(desk.scored)),
        charts.outcome_chart(charts.outcome_counts(desk.scored)),
        charts.near_miss_chart(charts.near_miss_counts(desk.scored)),
        charts.tolerance_chart(sweep, 0.0),
        charts.schema_violation_chart(charts.schema_violations(desk.scored)),
    ):
        assert chart.to_dict()["$schema"].startswith("https://vega.github.io/schema/vega-lite/")


def test_the_score_distribution_is_at_most_two_panels_wide(desk):
    """Four continuous graders: two rows of two 200-pixel panels, which fit a 1,024-pixel
    window (four in a row ran past its edge; the browser test measures the page)."""
    spec = charts.score_distribution_chart(charts.score_bins(desk.scored)).to_dict()
    assert desk.scored["scorer"].isin(["token_f1", "bleu", "rouge_l", "chrf"]).any()
    assert spec["columns"] == 2 and spec["spec"]["width"] == 200


# --------------------------------------------------------------------------- the sweep


def test_sweep_at_the_configured_tolerance_equals_the_grader(desk):
    sweep = numeric_tolerance_sweep(desk.prepared.rows, read="last")
    at0 = sweep[sweep["tolerance"] == 0.0].iloc[0]
    assert at0["passed"] == desk.summary["graders"]["numeric"]["passed"]
    assert at0["judged"] == desk.summary["graders"]["numeric"]["passed"] + desk.summary["graders"]["numeric"]["failed"]
    assert sweep["passed"].is_monotonic_increasing


CASES = [
    # (refs, output, read)
    (("3.11",), "About 3.1 miles", "last"),
    (("42",), "The refund is $42.00.", "last"),
    (("100",), "99", "whole"),
    (("0",), "0.5", "whole"),
    (("0",), "0", "whole"),
    (("n/a",), "7", "whole"),
    (("12",), "no number", "first"),
    (("10", "20"), "19", "whole"),
    (("-5",), "-5.5", "first"),
    (("1,000",), "1000.1", "whole"),
    (("0.1",), "0.3", "whole"),
]
GRID = [0.0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0]


@pytest.mark.parametrize("vary", ["abs_tol", "rel_tol"])
@pytest.mark.parametrize("fixed", [0.0, 0.05])
def test_sweep_equals_grading_each_row_at_each_tolerance(vary, fixed):
    """The sweep's count at every grid point equals grade("numeric") row by row."""
    for read in ("whole", "first", "last"):
        rows = pd.DataFrame({"refs": [c[0] for c in CASES], "output": [c[1] for c in CASES]})
        other = "rel_tol" if vary == "abs_tol" else "abs_tol"
        sweep = numeric_tolerance_sweep(rows, read=read, vary=vary, grid=GRID, **{other: fixed})
        for t, passed, judged in zip(sweep["tolerance"], sweep["passed"], sweep["judged"]):
            grades = [grade("numeric", list(r), o, read=read, **{vary: t, other: fixed}) for r, o, _ in CASES]
            assert passed == sum(g.status == "pass" for g in grades), (read, vary, t)
            assert judged == sum(g.status in ("pass", "fail") for g in grades), (read, vary, t)


def test_critical_tolerance_is_exact_decimal():
    # 3.11 - 3.1 = 0.01 exactly in decimal; a float subtraction would give 0.0099999...
    (c,) = critical_tolerances([("3.11",)], ["3.1"], read="whole", vary="abs_tol")
    assert str(c) == "0.01"
    (none,) = critical_tolerances([("n/a",)], ["3"], read="whole", vary="abs_tol")
    assert none is None


def test_sweep_refuses_an_unknown_axis():
    with pytest.raises(ValueError, match="vary must be"):
        critical_tolerances([("1",)], ["1"], read="whole", vary="tolerance")


def test_sweep_reads_repeated_texts_once():
    rows = pd.DataFrame({"refs": [("42",), ("3.11",)] * 5000, "output": ["$42.00", "About 3.1"] * 5000})
    sweep = numeric_tolerance_sweep(rows, read="last", grid=[0.0, 0.01])
    assert sweep["passed"].tolist() == [5000, 10000]


LONG = "1" + "0" * 70


@pytest.mark.parametrize("vary", ["abs_tol", "rel_tol"])
@pytest.mark.parametrize("fixed", [0.0, 0.05])
@pytest.mark.parametrize("read", ["whole", "first", "last"])
def test_sweep_from_the_graders_details_equals_reading_the_rows(vary, fixed, read):
    """The dashboard hands the sweep the numeric grader's details; single-reference rows are
    then not read again. Same critical tolerances either way, long numerals included."""
    from graders.config import GraderConfig, RunConfig
    from graders.scoring.parallel import score_frame

    cases = CASES + [((LONG,), LONG[:-1] + "1", "whole"), ((LONG + ".5",), "x " + LONG, "last"),
                     (("0.000000000000000000000000000000000000000000000000000000000000000001",), "0", "whole"),
                     (("7",), "", "whole"), (("",), "7", "whole"), (("5", "n/a"), "5.01", "whole")]
    rows = pd.DataFrame({"record": range(1, len(cases) + 1), "item": [str(i) for i in range(len(cases))],
                         "system": "output", "repeat": "", "refs": [c[0] for c in cases], "output": [c[1] for c in cases]})
    other = "rel_tol" if vary == "abs_tol" else "abs_tol"
    params = {"read": read, vary: 0.0, other: fixed}
    scored = score_frame(rows, RunConfig(graders=(GraderConfig.make("numeric", params),)))
    details = scored.loc[scored["scorer"] == "numeric", "details"].tolist()
    kw = dict(read=read, vary=vary, **{other: fixed})
    refs, outputs = list(rows["refs"]), list(rows["output"])
    assert critical_tolerances(refs, outputs, numeric_details=details, **kw) == critical_tolerances(refs, outputs, **kw)
    # and at the configured tolerance the sweep counts what the grader passed
    sweep = numeric_tolerance_sweep(rows, grid=[0.0], numeric_details=details, **kw)
    assert sweep["passed"].iloc[0] == (scored["status"] == "pass").sum()


def test_the_overall_row_is_labelled_as_the_counts_table_labels_it():
    s = pd.DataFrame({"scorer": ["exact", "overall"], "status": ["pass", "pass"], "near_miss": ["", ""]})
    assert charts.outcome_counts(s)[["scorer", "label"]].drop_duplicates().to_dict("records") == [
        {"scorer": "exact", "label": "Exact match"}, {"scorer": "overall", "label": "Overall"}]


def test_a_configured_tolerance_close_to_a_grid_value_has_its_own_tick():
    from graders.explore.sweeps import numeric_tolerance_sweep

    rows = pd.DataFrame({"refs": [("1",), ("2",)], "output": ["2.0000001", "3.5"]})
    sweep = numeric_tolerance_sweep(rows, vary="abs_tol", abs_tol=1.0000001)
    datasets = charts.tolerance_chart(sweep, 1.0000001).to_dict()["datasets"]
    grid = max(datasets.values(), key=len)  # every tolerance of the sweep (the other: the configured one)
    labels = [r["tick"] for r in grid]
    assert "1" in labels and "1.0000001" in labels and len(labels) == len(set(labels))


def test_count_axes_tick_in_whole_rows(desk):
    """A count never sits between whole rows: no tick at 0.5 or 1.5 on a small file."""
    specs = [charts.outcome_chart(charts.outcome_counts(desk.scored)).to_dict(),
             charts.near_miss_chart(charts.near_miss_counts(desk.scored)).to_dict()]
    for spec in specs:
        axis = spec["encoding"]["x"]["axis"]
        assert axis["tickMinStep"] == 1 and axis["format"] == ",d"
    bins = charts.score_distribution_chart(charts.score_bins(desk.scored)).to_dict()
    y = bins["spec"]["layer"][0]["encoding"]["y"]["axis"]
    assert y["tickMinStep"] == 1 and y["format"] == ",d"
