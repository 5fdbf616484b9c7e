"""The Compare page's chart builders and tables: pure functions, binned in pandas.

Charts are fed 200,000 pairs and must serialize small (no MaxRowsError, no raw rows in
the JSON); the binning is checked by hand on small frames."""

import json
import math
import time

import numpy as np
import pandas as pd
import pytest

from graders.compare.comparison import compare_file
from graders.config import GraderConfig, RunConfig
from graders.explore.sensitivity import metric_frame
from graders.readers.files import read_results
from ui.present import compare_charts as cc
from ui.present.compare_tables import REVIEWS, metric_table, pair_detail, pass_rate_url, review_note, review_rows

N_BIG = 200_000


def synthetic_pairs(n: int, graders=("exact", "token_f1"), repeats: int = 1, seed: int = 1) -> pd.DataFrame:
    """A ``Comparison.pairs``-shaped frame: exact is 0/1, token_f1 continuous."""
    rng = np.random.default_rng(seed)
    parts = []
    for g in graders:
        if g == "exact":
            a = rng.integers(0, 2, n).astype(float)
            b = rng.integers(0, 2, n).astype(float)
        else:
            a, b = rng.random(n), rng.random(n)
        diff = a - b
        parts.append(pd.DataFrame({
            "item": [f"c{i // repeats}" for i in range(n)], "repeat": [str(i % repeats) for i in range(n)],
            "grader": g, "score_a": [repr(float(x)) for x in a], "score_b": [repr(float(x)) for x in b], "diff": diff,
            "outcome": np.select([diff > 0, diff < 0], ["win", "loss"], "tie"), "paired": True,
        }))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def big():
    return synthetic_pairs(N_BIG)


def spec_size(chart) -> tuple[int, int]:
    """(bytes of the chart's JSON, the most data rows in any one dataset)."""
    text = chart.to_json()
    spec = json.loads(text)
    rows = max((len(v) for v in spec.get("datasets", {}).values()), default=0)
    return len(text), rows


@pytest.mark.parametrize("builder", [
    lambda p: cc.scatter_chart(p, "token_f1", "v1", "v2"),
    lambda p: cc.scatter_chart(p, "exact", "v1", "v2"),
    lambda p: cc.outcome_chart(p, "v1", "v2"),
    lambda p: cc.difference_chart(p, "token_f1"),
    lambda p: cc.difference_chart(p, "exact"),
])
def test_200k_pairs_draw_small(big, builder):
    start = time.perf_counter()
    chart = builder(big)
    size, rows = spec_size(chart)
    elapsed = time.perf_counter() - start
    assert size < 60_000 and rows <= cc.GRID * cc.GRID
    assert elapsed < 5


def test_scatter_switches_to_heatmap_when_rows_are_many():
    small = synthetic_pairs(300, graders=("token_f1",))
    data, kind = cc.scatter_data(small, "token_f1")
    assert kind == "bubbles" and data["count"].sum() == 300
    data, kind = cc.scatter_data(synthetic_pairs(cc.HEATMAP_ABOVE + 1, graders=("token_f1",)), "token_f1")
    assert kind == "heatmap" and data["count"].sum() == cc.HEATMAP_ABOVE + 1
    assert len(data) <= cc.GRID * cc.GRID
    assert data["a0"].min() >= 0 and data["a1"].max() <= 1


def test_scatter_bubbles_count_identical_pairs():
    pairs = pd.DataFrame({
        "item": list("abcde"), "grader": "exact", "score_a": ["1.0", "1.0", "0.0", "1.0", ""],
        "score_b": ["0.0", "0.0", "1.0", "1.0", "1.0"], "diff": [1.0, 1.0, -1.0, 0.0, np.nan],
        "outcome": ["win", "win", "loss", "tie", "unscored"], "paired": [True, True, True, True, False],
    })
    data, kind = cc.scatter_data(pairs, "exact")
    assert kind == "bubbles"
    got = {(r.a, r.b): r.count for r in data.itertuples()}
    assert got == {(1.0, 0.0): 2, (0.0, 1.0): 1, (1.0, 1.0): 1}


def test_scatter_size_legend_starts_at_the_fewest_pairs():
    """A bubble legend in whole pairs from the smallest count: no "0" entry no bubble has."""
    pairs = pd.DataFrame({
        "item": list("abcd"), "grader": "exact", "score_a": ["1.0", "1.0", "0.0", "1.0"],
        "score_b": ["0.0", "0.0", "1.0", "1.0"], "diff": [1.0, 1.0, -1.0, 0.0],
        "outcome": ["win", "win", "loss", "tie"], "paired": True,
    })
    size = cc.scatter_chart(pairs, "exact").to_dict()["layer"][0]["encoding"]["size"]
    assert size["scale"]["zero"] is False
    assert size["legend"] == {"format": ",d", "tickMinStep": 1}


def test_heatmap_bins_by_hand():
    pairs = pd.DataFrame({
        "item": ["a", "b", "c"], "grader": "g", "score_a": ["0.0", "0.04", "1.0"], "score_b": ["0.5", "0.51", "1.0"],
        "diff": [-0.5, -0.47, 0.0], "outcome": ["loss", "loss", "tie"], "paired": True,
    })
    data, kind = cc.scatter_data(pairs, "g", heatmap_above=1)
    assert kind == "heatmap"
    cells = {(r.a0, r.b0): r.count for r in data.itertuples()}
    # 0.0 and 0.04 fall into [0, 0.05); 0.5 and 0.51 into [0.5, 0.55); exactly 1 into the top bin.
    assert cells == {(0.0, 0.5): 2, (0.95, 0.95): 1}


def test_outcome_counts_by_hand():
    pairs = synthetic_pairs(10, graders=("exact",), seed=3)
    data = cc.outcome_data(pairs, ["exact"])
    counts = dict(zip(data["outcome"], data["count"]))
    assert counts == {o: int((pairs["outcome"] == o).sum()) for o in cc.OUTCOMES}
    assert sum(counts.values()) == 10


def test_differences_average_repeats_per_case():
    # Case x: diffs 1, 0, 0 -> mean 1/3; case y: -1, -1, -1 -> -1.
    pairs = pd.DataFrame({
        "item": ["x"] * 3 + ["y"] * 3, "grader": "exact", "score_a": ["1.0", "0.0", "0.0", "0.0", "0.0", "0.0"],
        "score_b": ["0.0", "0.0", "0.0", "1.0", "1.0", "1.0"], "diff": [1.0, 0, 0, -1, -1, -1],
        "outcome": ["win", "tie", "tie", "loss", "loss", "loss"], "paired": True,
    })
    data, averaged = cc.difference_data(pairs, "exact")
    assert averaged
    got = dict(zip(np.round(data["centre"], 2), data["count"]))
    assert got == {-1.0: 1, 0.35: 1}  # 1/3 falls into the bin centred on 0.35
    assert data["count"].sum() == 2



@pytest.mark.parametrize("items", [["x", "y"], ["\ud800", "\udc00"], ["\ud800", "\ud800x"]],
                         ids=["plain", "lone surrogates", "a surrogate and a longer id"])
def test_differences_per_case_group_ids_whatever_their_text(items):
    """Cases are grouped on integer codes: ids in a pandas groupby key went into its
    string dtype, which cannot hold a lone surrogate."""
    pairs = pd.DataFrame({
        "item": pd.Series([items[0]] * 3 + [items[1]] * 3, dtype=object), "grader": "exact",
        "diff": [1.0, 0, 0, -1, -1, -1], "outcome": ["win", "tie", "tie", "loss", "loss", "loss"], "paired": True,
    })
    data, averaged = cc.difference_data(pairs, "exact")
    assert averaged and dict(zip(np.round(data["centre"], 2), data["count"])) == {-1.0: 1, 0.35: 1}

WIDE = (
    "id,expected,output,output_b\n"
    "1,Paris,Paris,paris\n"
    "2,Rome,Rome,Rome\n"
    "3,Oslo,oslo,Oslo\n"
    "4,Bern,Bern,Bern.\n"
    "5,Lima,Lim,Lim\n"
).encode()


@pytest.fixture(scope="module")
def wide():
    config = RunConfig({}, tuple(GraderConfig.make(n) for n in ("exact", "token_f1")), None)
    return compare_file(read_results(WIDE), config, resamples=500)


def test_sensitivity_chart_from_metric_frame(wide):
    frame = metric_frame(wide)
    size, rows = spec_size(cc.sensitivity_chart(frame))
    assert rows == len(frame) and size < 20_000


def test_metric_table_links_and_figures(wide):
    t = metric_table(wide)
    assert list(t.columns[:2]) == ["Metric", "Reading"]  # the reading is seen first
    t = t.set_index("Metric")
    exact = t.loc["Exact match"]
    assert (exact["Paired n"], exact["Wins"], exact["Losses"], exact["Ties"]) == (5, 2, 1, 2)
    assert exact["A passes"] == "pass_rate?k=3&n=5&label=Exact+match%3A+output"
    assert exact["B passes"] == "pass_rate?k=2&n=5&label=Exact+match%3A+output_b"
    assert exact["b / c"] == "2 / 1" and exact["Test"] == "McNemar exact"
    assert exact["Pass rate A (95% CI)"].startswith("60.0% (")
    assert exact["Reading"] == "noise?"
    f1 = t.loc["Token F1"]
    assert f1["A passes"] == "" and f1["b / c"] == "" and f1["Pass rate A (95% CI)"] == ""


def test_pass_rate_url():
    assert pass_rate_url(34, 40) == "pass_rate?k=34&n=40"
    assert pass_rate_url(3, 5, confidence=0.9, label="exact A") == "pass_rate?k=3&n=5&confidence=0.9&label=exact+A"


def test_review_rows_carry_both_outputs_and_the_expected(wide):
    rows, total = review_rows(wide, "a_passes_b_fails", "exact")
    assert total == 2
    assert list(rows["item"]) == ["1", "4"]
    assert list(rows["output_a"]) == ["Paris", "Bern"] and list(rows["output_b"]) == ["paris", "Bern."]
    assert list(rows["expected"]) == ["Paris", "Bern"]
    drops, total = review_rows(wide, "largest_drops", "exact")
    assert total == 1 and list(drops["item"]) == ["3"]
    for kind in REVIEWS:
        review_rows(wide, kind, "token_f1")


def test_a_pass_or_fail_review_of_a_grader_without_threshold_says_why_it_is_empty(wide):
    assert review_note(wide, "a_fails_b_passes", "token_f1").startswith("Token F1 has no threshold")
    assert review_rows(wide, "a_fails_b_passes", "token_f1")[1] == 0
    for kind in ("disagree", "largest_drops"):
        assert review_note(wide, kind, "token_f1") is None
    assert review_note(wide, "a_fails_b_passes", "exact") is None
    config = RunConfig({}, (GraderConfig.make("token_f1", {"threshold": 0.5}),), None)
    thresholded = compare_file(read_results(WIDE), config, resamples=100)
    assert review_note(thresholded, "a_passes_b_fails", "token_f1") is None


def test_pair_detail(wide):
    row = review_rows(wide, "a_fails_b_passes", "exact")[0].iloc[0]
    assert row["item"] == "3"
    d = pair_detail(wide, row["record_a"], row["record_b"])
    assert d["expected"] == "Oslo" and d["outputs"] == {"output": "oslo", "output_b": "Oslo"}
    labels = [g[0] for g in d["grades"]]
    assert labels == ["Exact match — output", "Exact match — output_b", "Token F1 — output", "Token F1 — output_b"]
    status = {g[0]: g[1] for g in d["grades"]}
    assert status["Exact match — output"] == "fail" and status["Exact match — output_b"] == "pass"
    near = {g[0]: g[4] for g in d["grades"]}
    assert near["Exact match — output"] == "lowercase"
    assert math.isclose(float(d["grades"][2][2]), 1.0)


def test_chart_pairs_parse_once_and_draw_the_same(big):
    parsed = cc.chart_pairs(big)
    assert parsed["score_a"].dtype == float and len(parsed) == len(big)
    for build in (lambda p: cc.scatter_chart(p, "token_f1"), lambda p: cc.outcome_chart(p),
                  lambda p: cc.difference_chart(p, "exact")):
        assert build(parsed).to_json() == build(big).to_json()


def test_pair_detail_finds_repeats_written_differently():
    # Repeat "03" in A pairs with repeat "3" in B; the detail follows the source records.
    content = b"id,expected,output,version,repeat\n1,a,a,v1,03\n1,a,b,v2,3\n"
    config = RunConfig({}, (GraderConfig.make("exact"),), None)
    c = compare_file(read_results(content), config, resamples=200)
    row = review_rows(c, "a_passes_b_fails", "exact")[0].iloc[0]
    d = pair_detail(c, row["record_a"], row["record_b"])
    assert d["outputs"] == {"v1": "a", "v2": "b"} and [g[1] for g in d["grades"]] == ["pass", "fail"]
