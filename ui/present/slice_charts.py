"""Slices as tables and Altair charts (pure pandas and Altair): the ``by`` section of a run
summary (``graders.scoring.slices``) or of a comparison (``graders.compare.slices``).

* ``score_slice_frame``     one row per slice × grader (× system): counts, pass rate, interval
* ``score_slice_table``     that frame as the Score page shows it
* ``pass_rate_chart``       each slice's pass rate (point) with its 95% interval (bar), per grader
* ``compare_slice_frame``   one row per slice × metric: n, means, A − B and its interval, p
* ``compare_slice_table``   that frame as the Compare page shows it
* ``difference_chart``      each slice's A − B (point) with its 95% interval (bar), per metric
* ``chart_slices``          the slices a chart draws: the ``CHART_SLICES`` with the most rows

Slice values are the file's text: a lone surrogate is written as its escape
(``encodable``), a missing value (absent or empty cell) is ``MISSING_LABEL``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import altair as alt
import pandas as pd

from graders.engines.jsonparse import encodable
from ui.present.charts import _label

MISSING_LABEL = "(missing)"
CHART_SLICES = 30  # slices a chart draws; the table lists them all
_STEP = 14  # pixels per bar


def slice_label(value: Any) -> str:
    return MISSING_LABEL if value is None else encodable(str(value))


def score_slice_frame(by: Mapping[str, Any], label: Callable[[str], str] = _label) -> pd.DataFrame:
    """Columns slice, system (None without several), scorer, grader (its label), rows,
    graded, passed, failed, no_answer (None for a grader without extraction), pass_rate,
    low, high, clustered (the interval is clustered by case), mean_score. Assertions are
    left out, as the counts table leaves them."""
    records = []
    for s in by["slices"]:
        for system, per in (s.get("systems") or {None: s["graders"]}).items():
            for scorer, st in per.items():
                if scorer.startswith("assert:"):
                    continue
                ci = st.get("pass_rate_ci95") or [None, None]
                records.append({
                    "slice": slice_label(s["value"]), "system": system, "scorer": scorer, "grader": label(scorer),
                    "rows": s["rows"], "graded": st["graded"], "passed": st["passed"], "failed": st["failed"],
                    "no_answer": st.get("no_answer"), "pass_rate": st["pass_rate"], "low": ci[0], "high": ci[1],
                    "clustered": "pass_rate_clustered" in st, "mean_score": st["mean_score"],
                })
    columns = ["slice", "system", "scorer", "grader", "rows", "graded", "passed", "failed", "no_answer", "pass_rate",
               "low", "high", "clustered", "mean_score"]
    return pd.DataFrame.from_records(records, columns=columns)


def _pct(x: float | None) -> str:
    return "—" if x is None or x != x else f"{100 * x:.1f}%"


def score_slice_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The Score page's slice table: Slice, (System), Grader, Rows, Graded, Passed, Failed,
    (No answer), Pass rate, 95% interval (Wilson's; "by case" where clustered), Mean score."""
    out = pd.DataFrame({
        "Slice": frame["slice"], "System": frame["system"], "Grader": frame["grader"], "Rows": frame["rows"],
        "Graded": frame["graded"], "Passed": frame["passed"], "Failed": frame["failed"],
        "No answer": frame["no_answer"].map(lambda v: "" if v is None or v != v else f"{int(v):,}"),
        "Pass rate": frame["pass_rate"].map(_pct),
        "95% interval": [("—" if lo is None or lo != lo else f"{_pct(lo)} – {_pct(hi)}" + (" (by case)" if c else ""))
                         for lo, hi, c in zip(frame["low"], frame["high"], frame["clustered"])],
        "Mean score": frame["mean_score"].map(lambda v: "—" if v is None or v != v else f"{v:.3f}"),
    })
    if frame["system"].isna().all():
        out = out.drop(columns="System")
    if (out["No answer"] == "").all():
        out = out.drop(columns="No answer")
    return out


def chart_slices(frame: pd.DataFrame, most: int = CHART_SLICES, size: str = "rows") -> list[str]:
    """The slices a chart draws, in the frame's order: all, or the ``most`` with the most
    ``size`` (rows or pairs)."""
    sizes = frame.drop_duplicates("slice").set_index("slice")[size]
    if len(sizes) <= most:
        return list(sizes.index)
    keep = set(sizes.sort_values(ascending=False, kind="stable").index[:most])
    return [s for s in sizes.index if s in keep]


def _interval_chart(data: pd.DataFrame, series: str, series_title: str, x: alt.X, x_field: str, tooltip: list,
                    title: alt.Title, *extra: alt.Chart) -> alt.LayerChart:
    """A point at ``x_field`` and a bar from ``low`` to ``high`` per slice (rows, in the
    data's order) and ``series`` (a colour each, offset within the slice's row)."""
    order = list(dict.fromkeys(data["slice"]))
    kinds = list(dict.fromkeys(data[series]))
    y = alt.Y("slice:N", title=None, sort=order, axis=alt.Axis(labelLimit=240), scale=alt.Scale(paddingInner=0.3))
    y_offset = alt.YOffset(f"{series}:N", sort=kinds)
    color = alt.Color(f"{series}:N", title=series_title, sort=kinds, legend=alt.Legend(orient="bottom", labelLimit=300))
    bars = alt.Chart(data).mark_rule(strokeWidth=3).encode(y=y, yOffset=y_offset, x=x, x2="high:Q", color=color,
                                                          tooltip=tooltip)
    points = alt.Chart(data).mark_point(filled=True, size=60).encode(
        y=y, yOffset=y_offset, x=alt.X(f"{x_field}:Q"), color=color, tooltip=tooltip)
    # with an offset channel the step is each bar's, within its slice's row
    return alt.layer(bars, points, *extra).properties(title=title, height=alt.Step(_STEP), width=460)


def pass_rate_chart(frame: pd.DataFrame, slices: list[str] | None = None) -> alt.LayerChart:
    """Each slice's pass rate (point) and its 95% interval (bar), a colour per grader
    (system and grader with several systems); slices and graders without a pass rate
    (continuous graders without a threshold) are left out."""
    data = frame[frame["pass_rate"].notna()]
    if slices is not None:
        data = data[data["slice"].isin(slices)]
    data = data.assign(series=data["grader"] if data["system"].isna().all()
                       else data["system"].astype(str) + " · " + data["grader"],
                       decided=data["passed"] + data["failed"])
    data = data[["slice", "series", "decided", "pass_rate", "low", "high", "clustered"]]
    tooltip = [alt.Tooltip("slice:N"), alt.Tooltip("series:N", title="grader"),
               alt.Tooltip("decided:Q", title="passed + failed", format=","),
               alt.Tooltip("pass_rate:Q", title="pass rate", format=".1%"),
               alt.Tooltip("low:Q", title="95% interval from", format=".1%"),
               alt.Tooltip("high:Q", title="95% interval to", format=".1%"),
               alt.Tooltip("clustered:N", title="clustered by case")]
    x = alt.X("low:Q", title="pass rate", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"))
    title = alt.Title("Pass rate per slice", subtitle="point: pass rate; bar: Wilson 95% interval")
    return _interval_chart(data, "series", "grader", x, "pass_rate", tooltip, title)


def compare_slice_frame(by: Mapping[str, Any], label: Callable[[str], str] = _label) -> pd.DataFrame:
    """Columns slice, pairs, a_only, b_only, metric, label, binary, n, mean_a, mean_b,
    mean_diff, low, high, p (unadjusted), ci_method, wins, losses, ties."""
    records = []
    for s in by["slices"]:
        for name, m in s["metrics"].items():
            low, high = m["ci95"]
            records.append({
                "slice": slice_label(s["value"]), "pairs": s["pairs"], "a_only": s["a_only"], "b_only": s["b_only"],
                "metric": name, "label": label(name), "binary": m["binary"], "n": m["n"], "mean_a": m["mean_a"],
                "mean_b": m["mean_b"], "mean_diff": m["mean_diff"], "low": low, "high": high, "p": m["p_value"],
                "ci_method": m["ci_method"], "wins": m["wins"], "losses": m["losses"], "ties": m["ties"],
            })
    columns = ["slice", "pairs", "a_only", "b_only", "metric", "label", "binary", "n", "mean_a", "mean_b", "mean_diff",
               "low", "high", "p", "ci_method", "wins", "losses", "ties"]
    return pd.DataFrame.from_records(records, columns=columns)


def _num(form: str) -> Callable[[Any], str]:
    return lambda v: "—" if v is None or v != v else form.format(v)


def compare_slice_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The Compare page's slice table: Slice, Metric, Pairs (n with both scores), Mean A,
    Mean B, A − B, 95% interval, p (unadjusted), Wins / losses / ties."""
    return pd.DataFrame({
        "Slice": frame["slice"], "Metric": frame["label"], "Pairs": frame["n"],
        "Mean A": frame["mean_a"].map(_num("{:.3f}")), "Mean B": frame["mean_b"].map(_num("{:.3f}")),
        "A − B": frame["mean_diff"].map(_num("{:+.3f}")),
        "95% interval": [("—" if lo is None or lo != lo else f"{lo:+.3f} to {hi:+.3f}")
                         for lo, hi in zip(frame["low"], frame["high"])],
        "p (unadjusted)": frame["p"].map(_num("{:.3g}")),
        "Wins / losses / ties": [f"{w} / {lo} / {t}" for w, lo, t in zip(frame["wins"], frame["losses"], frame["ties"])],
    })


def difference_chart(frame: pd.DataFrame, slices: list[str] | None = None) -> alt.LayerChart:
    """Each slice's A − B (point) and its 95% interval (bar), a colour per metric, beside
    a dashed line at 0; metrics without pairs in a slice are left out."""
    data = frame[frame["n"] > 0]
    if slices is not None:
        data = data[data["slice"].isin(slices)]
    data = data[["slice", "label", "n", "mean_diff", "low", "high", "p"]].rename(columns={"label": "metric"})
    tooltip = [alt.Tooltip("slice:N"), alt.Tooltip("metric:N"), alt.Tooltip("n:Q", title="pairs", format=","),
               alt.Tooltip("mean_diff:Q", title="A − B", format="+.3f"),
               alt.Tooltip("low:Q", title="95% interval from", format="+.3f"),
               alt.Tooltip("high:Q", title="95% interval to", format="+.3f"),
               alt.Tooltip("p:Q", title="p (unadjusted)", format=".3g")]
    x = alt.X("low:Q", title="A − B (score; pass-rate difference for pass-or-fail graders)",
              scale=alt.Scale(domain=[-1, 1]))
    title = alt.Title("A − B per slice", subtitle="point: mean difference; bar: 95% interval; "
                      "left of the dashed line B is higher")
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#333333", strokeDash=[3, 3]).encode(x="x:Q")
    return _interval_chart(data, "metric", "metric", x, "mean_diff", tooltip, title, zero)
