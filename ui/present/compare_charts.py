"""Altair charts of an A-versus-B comparison: pure functions, aggregated in pandas first.

Each builder takes the ``pairs`` frame of ``graders.compare.comparison.Comparison`` (columns
``item, grader, score_a, score_b, diff, outcome, paired``; only paired rows are drawn),
or the same rows with the scores parsed once by ``chart_pairs`` (faster when several
charts are drawn from one comparison), or a ``graders.explore.sensitivity.metric_frame`` and returns an Altair chart whose data is
already counted or binned, so 200,000 pairs draw at once: no chart carries more than a
few thousand data rows (Altair's 5,000-row limit is never reached) and the JSON stays small.

* ``scatter_chart``      score A against score B for one metric: a bubble per distinct
                         (A, B) pair sized by its count, or, above ``HEATMAP_ABOVE`` pairs,
                         a 20 × 20 heat map of counts; the diagonal is "A = B"
* ``outcome_chart``      wins / losses / ties per metric, stacked bars
* ``difference_chart``   the distribution of per-case differences A - B for one metric
                         (a case's repeats averaged), binned
* ``sensitivity_chart``  the difference A - B with its 95% interval under each grader
"""

from __future__ import annotations

from typing import Sequence

import altair as alt
import numpy as np
import pandas as pd

from graders.engines.jsonparse import encodable
from graders.scoring.rows import group_codes

HEATMAP_ABOVE = 5000  # pairs; above this the scatter becomes a heat map
GRID = 20  # heat-map cells per axis
MAX_BUBBLES = 2000  # distinct (A, B) points drawn as bubbles; more become a heat map
DIFF_BIN = 0.05  # width of a difference bin; 0 and ±1 are bin centres
OUTCOMES = ("win", "tie", "loss")
READING_COLORS = {
    "A better": "#1b7837", "B better": "#762a83", "noise?": "#b8860b", "no difference": "#7f7f7f",
    "too few": "#c0392b", "no pairs": "#bbbbbb",
}


def chart_pairs(pairs: pd.DataFrame) -> pd.DataFrame:
    """The paired rows of ``pairs`` with numeric scores (columns item, version when the
    pairs have one, grader, score_a, score_b, diff, outcome, paired): parse once, then
    every builder reads it fast."""
    keep = ["item"] + (["version"] if "version" in pairs.columns else []) + ["grader", "score_a", "score_b", "diff",
                                                                              "outcome", "paired"]
    p = pairs.loc[pairs["paired"].astype(bool), keep]
    return p.assign(score_a=_scores(p, "score_a"), score_b=_scores(p, "score_b"),
                    grader=p["grader"].astype("category"), outcome=p["outcome"].astype("category"))


def _paired(pairs: pd.DataFrame, grader: str | None = None) -> pd.DataFrame:
    keep = pairs["paired"].astype(bool)
    if grader is not None:
        keep &= pairs["grader"] == grader
    return pairs.loc[keep]


def _scores(frame: pd.DataFrame, col: str) -> np.ndarray:
    cells = frame[col]
    if pd.api.types.is_float_dtype(cells.dtype):
        return cells.to_numpy(dtype=float)
    return pd.to_numeric(cells.where(cells != ""), errors="coerce").to_numpy(dtype=float)


def scatter_data(pairs: pd.DataFrame, grader: str, *, heatmap_above: int = HEATMAP_ABOVE,
                 grid: int = GRID) -> tuple[pd.DataFrame, str]:
    """(counted data, "bubbles" | "heatmap") behind ``scatter_chart``."""
    p = _paired(pairs, grader)
    a, b = _scores(p, "score_a"), _scores(p, "score_b")
    if len(p) <= heatmap_above:
        points = pd.DataFrame({"a": a, "b": b}).groupby(["a", "b"], as_index=False).size()
        if len(points) <= MAX_BUBBLES:
            return points.rename(columns={"size": "count"}), "bubbles"
    # Bins of width 1/grid over [0, 1]; a score of exactly 1 goes into the top bin.
    ia = np.clip(np.floor(a * grid), 0, grid - 1).astype(int)
    ib = np.clip(np.floor(b * grid), 0, grid - 1).astype(int)
    cells = pd.DataFrame({"ia": ia, "ib": ib}).groupby(["ia", "ib"], as_index=False).size()
    cells["a0"], cells["a1"] = cells["ia"] / grid, (cells["ia"] + 1) / grid
    cells["b0"], cells["b1"] = cells["ib"] / grid, (cells["ib"] + 1) / grid
    return cells.rename(columns={"size": "count"}).drop(columns=["ia", "ib"]), "heatmap"


def scatter_chart(pairs: pd.DataFrame, grader: str, label_a: str = "A", label_b: str = "B", *,
                  title: str | None = None, heatmap_above: int = HEATMAP_ABOVE) -> alt.LayerChart:
    """Score A (x) against score B (y) for ``grader``; points above the diagonal are B higher."""
    data, kind = scatter_data(pairs, grader, heatmap_above=heatmap_above)
    x_title, y_title = f"Score A ({encodable(label_a)})", f"Score B ({encodable(label_b)})"
    scale = alt.Scale(domain=[-0.05, 1.05], nice=False)
    if kind == "bubbles":
        marks = alt.Chart(data).mark_circle(opacity=0.7, color="#4c78a8").encode(
            x=alt.X("a:Q", title=x_title, scale=scale),
            y=alt.Y("b:Q", title=y_title, scale=scale),
            # The legend starts at the fewest pairs a bubble has (a size scale starts at 0
            # otherwise, and its legend shows a "0" no bubble has), in whole pairs.
            size=alt.Size("count:Q", title="pairs", scale=alt.Scale(range=[30, 900], zero=False),
                          legend=alt.Legend(format=",d", tickMinStep=1)),
            tooltip=[alt.Tooltip("a:Q", title="score A", format=".3f"),
                     alt.Tooltip("b:Q", title="score B", format=".3f"), alt.Tooltip("count:Q", title="pairs")],
        )
    else:
        marks = alt.Chart(data).mark_rect().encode(
            x=alt.X("a0:Q", title=x_title, scale=scale), x2="a1:Q",
            y=alt.Y("b0:Q", title=y_title, scale=scale), y2="b1:Q",
            color=alt.Color("count:Q", title="pairs", scale=alt.Scale(type="log", scheme="blues")),
            tooltip=[alt.Tooltip("a0:Q", title="A from", format=".2f"), alt.Tooltip("a1:Q", title="A to", format=".2f"),
                     alt.Tooltip("b0:Q", title="B from", format=".2f"), alt.Tooltip("b1:Q", title="B to", format=".2f"),
                     alt.Tooltip("count:Q", title="pairs")],
        )
    diagonal = alt.Chart(pd.DataFrame({"a": [0.0, 1.0], "b": [0.0, 1.0]})).mark_line(
        color="#999999", strokeDash=[4, 4]).encode(x="a:Q", y="b:Q")
    n = int(data["count"].sum())
    pairs = f"{n:,} pair{'' if n == 1 else 's'}"
    subtitle = pairs + (" (binned)" if kind == "heatmap" else "") + "; above the line B is higher"
    return alt.layer(marks, diagonal).properties(
        title=alt.Title(title or f"{grader}: A against B", subtitle=subtitle), width=320, height=320)


def outcome_data(pairs: pd.DataFrame, graders: Sequence[str] | None = None,
                 labels: dict[str, str] | None = None) -> pd.DataFrame:
    """Counts of win / tie / loss per metric (columns metric, outcome, count, order)."""
    p = _paired(pairs)
    order = list(graders) if graders is not None else [str(g) for g in dict.fromkeys(p["grader"])]
    counts = p.groupby(["grader", "outcome"], observed=True, sort=False).size()
    counts.index = pd.MultiIndex.from_tuples([(str(g), str(o)) for g, o in counts.index], names=["grader", "outcome"])
    full = pd.MultiIndex.from_product([order, OUTCOMES], names=["grader", "outcome"])
    data = counts.reindex(full, fill_value=0).rename("count").reset_index()
    data["metric"] = data["grader"].map(lambda g: (labels or {}).get(g, g))
    data["order"] = data["outcome"].map({o: i for i, o in enumerate(OUTCOMES)})
    return data


def outcome_chart(pairs: pd.DataFrame, label_a: str = "A", label_b: str = "B", *,
                  graders: Sequence[str] | None = None, labels: dict[str, str] | None = None) -> alt.Chart:
    """Wins (A higher), ties and losses (B higher) per metric, as stacked horizontal bars."""
    data = outcome_data(pairs, graders, labels)
    # a version's lone surrogate as \ud800: the chart goes to the browser as UTF-8
    names = {"win": f"A higher ({encodable(label_a)})", "tie": "tie", "loss": f"B higher ({encodable(label_b)})"}
    data["result"] = data["outcome"].map(names)
    metrics = list(dict.fromkeys(data["metric"]))
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y("metric:N", title=None, sort=metrics, axis=alt.Axis(labelLimit=320)),
        x=alt.X("count:Q", title="pairs", stack="zero"),
        color=alt.Color("result:N", title=None, sort=[names[o] for o in OUTCOMES],
                        scale=alt.Scale(domain=[names[o] for o in OUTCOMES], range=["#1b7837", "#c7c7c7", "#762a83"]),
                        legend=alt.Legend(orient="bottom", labelLimit=400)),
        order=alt.Order("order:Q"),
        tooltip=["metric:N", "result:N", "count:Q"],
    ).properties(title="Wins, ties and losses per metric", height=alt.Step(28))


def difference_data(pairs: pd.DataFrame, grader: str, *, width: float = DIFF_BIN) -> tuple[pd.DataFrame, bool]:
    """(binned per-case differences, whether repeats were averaged). Columns: lo, hi,
    centre, count. Bins have ``width`` and are centred on multiples of it (0 included)."""
    p = _paired(pairs, grader)
    diffs = pd.to_numeric(p["diff"], errors="coerce")
    # grouped on integer codes: pandas would put the ids into its string dtype, which
    # cannot hold a lone surrogate
    # a case is its id, and its version too in a wide file with versions (as compare's clusters)
    case = [p["item"].to_numpy(dtype=object)] + ([p["version"].to_numpy(dtype=object)] if "version" in p.columns else [])
    per_case = diffs.groupby(group_codes(case), sort=False).mean()
    averaged = len(per_case) < len(diffs)
    values = np.clip(per_case.to_numpy(dtype=float), -1.0, 1.0)
    k = np.rint(values / width).astype(int)
    counts = pd.Series(k).value_counts().sort_index()
    centre = counts.index.to_numpy() * width
    data = pd.DataFrame({"lo": centre - width / 2, "hi": centre + width / 2, "centre": centre,
                         "count": counts.to_numpy()})
    return data, averaged


def difference_chart(pairs: pd.DataFrame, grader: str, *, title: str | None = None,
                     width: float = DIFF_BIN) -> alt.LayerChart:
    """Histogram of per-case A - B on ``grader`` (repeats averaged per case), with 0 marked."""
    data, averaged = difference_data(pairs, grader, width=width)
    bars = alt.Chart(data).mark_bar(color="#4c78a8").encode(
        x=alt.X("lo:Q", title="A − B per case" + (" (mean over repeats)" if averaged else ""),
                scale=alt.Scale(domain=[-1.05, 1.05], nice=False)),
        x2="hi:Q",
        y=alt.Y("count:Q", title="cases", scale=alt.Scale(zero=True)), y2=alt.datum(0),
        tooltip=[alt.Tooltip("centre:Q", title="A − B", format="+.2f"), alt.Tooltip("count:Q", title="cases")],
    )
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#333333", strokeDash=[3, 3]).encode(x="x:Q")
    cases = int(data["count"].sum())
    return alt.layer(bars, zero).properties(
        title=alt.Title(title or f"{grader}: per-case differences",
                        subtitle=f"{cases:,} case{'' if cases == 1 else 's'}; right of the line A is higher"),
        width=420, height=240)


def sensitivity_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """The difference A - B (point) and its 95% interval (bar) under each grader of a
    ``metric_frame``, top to bottom in the frame's order, coloured by the reading."""
    data = frame.loc[frame["n"] > 0, ["grader", "label", "binary", "n", "mean_diff", "ci_low", "ci_high",
                                      "p_holm", "reading"]].copy()
    order = list(data["label"])
    readings = [r for r in READING_COLORS if r in set(data["reading"])] or list(READING_COLORS)
    color = alt.Color("reading:N", title="reading", scale=alt.Scale(
        domain=readings, range=[READING_COLORS[r] for r in readings]), legend=alt.Legend(orient="bottom", labelLimit=400))
    y = alt.Y("label:N", title=None, sort=order, axis=alt.Axis(labelLimit=320))
    tooltip = [alt.Tooltip("label:N", title="grader"), alt.Tooltip("n:Q", title="pairs"),
               alt.Tooltip("mean_diff:Q", title="A − B", format="+.3f"),
               alt.Tooltip("ci_low:Q", title="95% CI from", format="+.3f"),
               alt.Tooltip("ci_high:Q", title="95% CI to", format="+.3f"),
               alt.Tooltip("p_holm:Q", title="Holm p", format=".3g"), alt.Tooltip("reading:N")]
    x = alt.X("ci_low:Q", title="A − B (score; pass-rate difference for pass-or-fail graders)",
              scale=alt.Scale(domain=[-1, 1]))
    bars = alt.Chart(data).mark_rule(strokeWidth=3).encode(y=y, x=x, x2="ci_high:Q", color=color, tooltip=tooltip)
    points = alt.Chart(data).mark_point(filled=True, size=90).encode(
        y=y, x=alt.X("mean_diff:Q"), color=color, tooltip=tooltip)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#333333", strokeDash=[3, 3]).encode(x="x:Q")
    return alt.layer(bars, points, zero).properties(
        title=alt.Title("A − B under each grader", subtitle="point: mean difference; bar: 95% interval; "
                        "left of the dashed line B is higher"),
        height=alt.Step(34), width=460)
