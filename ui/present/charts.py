"""Chart data and Altair chart builders for the Score page (pure: no Streamlit import).

Every chart is aggregated in pandas first — bins, counts, shares — so a chart over
200,000 scored rows carries a few dozen data points: no ``MaxRowsError`` and a small JSON
spec. Each ``*_data`` function returns the aggregate frame (tested on its own); each
``*_chart`` function turns that frame into an ``alt.Chart``.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import altair as alt
import numpy as np
import pandas as pd

from graders.engines.jsonparse import encodable
from graders.metrics.nearmiss import PROBE_CODES
from graders.registry import REGISTRY
from graders.scoring.summary import positions_by_value

__all__ = [
    "OUTCOMES", "continuous_scorers", "score_bins", "score_distribution_chart", "outcome_counts",
    "outcome_chart", "near_miss_counts", "near_miss_chart", "tolerance_chart", "schema_violations",
    "schema_violation_chart",
]

# Stacked-bar outcomes, in stacking order, with their colours.
OUTCOMES = ("pass", "near miss", "fail", "not judged", "error", "scored")
_OUTCOME_COLOURS = ("#2e7d32", "#f9a825", "#c62828", "#9e9e9e", "#6a1b9a", "#1565c0")
_STATUS_OUTCOME = {"pass": "pass", "fail": "fail", "not_judged": "not judged", "error": "error", "scored": "scored"}


def _label(scorer: str) -> str:
    if scorer == "overall":  # the overall row, as the counts table names it
        return "Overall"
    spec = REGISTRY.get(scorer)
    return spec.label if spec is not None else scorer


def continuous_scorers(scorers: Iterable[str]) -> list[str]:
    """The scorers among ``scorers`` that are continuous graders (a score in [0, 1])."""
    return [s for s in scorers if s in REGISTRY and not REGISTRY[s].binary]


def _scores(frame: pd.DataFrame) -> pd.Series:
    return pd.to_numeric(frame["score"].where(frame["score"] != ""), errors="coerce")


# --------------------------------------------------------------------------- score distribution


def score_bins(scored: pd.DataFrame, scorers: Sequence[str] | None = None, bins: int = 20) -> pd.DataFrame:
    """Rows per score bin for each continuous scorer: columns ``scorer, label, bin_start,
    bin_end, rows``. Bins are ``[k/bins, (k+1)/bins)``; a score of exactly 1 goes in the last."""
    scorers = continuous_scorers(scorers if scorers is not None else scored["scorer"].unique())
    parts = []
    edges = np.linspace(0.0, 1.0, bins + 1)
    for s in scorers:
        values = _scores(scored[scored["scorer"] == s]).dropna().to_numpy(dtype=float)
        index = np.clip(np.floor(values * bins).astype(int), 0, bins - 1)
        counts = np.bincount(index, minlength=bins)
        parts.append(pd.DataFrame({
            "scorer": s, "label": _label(s), "bin_start": edges[:-1], "bin_end": edges[1:], "rows": counts,
        }))
    if not parts:
        return pd.DataFrame(columns=["scorer", "label", "bin_start", "bin_end", "rows"])
    return pd.concat(parts, ignore_index=True)


# A count axis in whole rows: a small count would otherwise get ticks at 0.5, 1.5, ...
_WHOLE = alt.Axis(tickMinStep=1, format=",d")


def score_distribution_chart(bins: pd.DataFrame, thresholds: dict[str, float | None] | None = None) -> alt.FacetChart:
    """One small histogram per continuous grader; a dashed rule marks its threshold."""
    t = {_label(s): v for s, v in (thresholds or {}).items() if v is not None}
    data = bins.assign(threshold=bins["label"].map(t).astype(float))
    bars = alt.Chart().mark_bar().encode(
        x=alt.X("bin_start:Q", bin="binned", title="score", scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(labelFlush=True)),  # the 1.0 tick inside its panel
        x2="bin_end:Q",
        y=alt.Y("rows:Q", title="rows", axis=_WHOLE),
        tooltip=["label:N", alt.Tooltip("bin_start:Q", format=".2f"), alt.Tooltip("bin_end:Q", format=".2f"), "rows:Q"],
    )
    rule = alt.Chart().mark_rule(color="#c62828", strokeDash=[4, 3]).encode(x="mean(threshold):Q")
    columns = max(1, min(2, bins["label"].nunique()))  # two 200-pixel panels fit a 1,024-pixel window
    return alt.layer(bars, rule, data=data).properties(height=140, width=200).facet(
        facet=alt.Facet("label:N", title=None), columns=columns
    )


# --------------------------------------------------------------------------- outcomes per grader


def outcome_counts(scored: pd.DataFrame) -> pd.DataFrame:
    """Rows per (scorer, outcome): ``scorer, system, label, outcome, order, rows, share``; a
    fail with a near miss counts as "near miss", not as "fail". With several systems, per
    (scorer, system), labelled "Exact match · output_b" (one system: ``system`` is "")."""
    records: list[dict] = []
    names: list[Any] = []
    systems = scored["system"].to_numpy(dtype=object) if "system" in scored.columns else None
    several = systems is not None and len(positions_by_value(systems)) > 1
    groups = []  # (scorer, system, positions), each scorer's systems in order of first appearance
    for scorer, at in positions_by_value(scored["scorer"].to_numpy(dtype=object)).items():
        groups += ([(scorer, system, where) for system, where in positions_by_value(systems, at).items()]
                   if several else [(scorer, "", at)])
    for scorer, system, at in groups:
        part = scored.iloc[at]
        status = part["status"]
        counts = status.value_counts()
        near_fails = int(((status == "fail") & (part["near_miss"] != "")).sum())
        total = len(part)
        tally = {_STATUS_OUTCOME.get(str(k), "error"): 0 for k in counts.index}
        for k, n in counts.items():
            tally[_STATUS_OUTCOME.get(str(k), "error")] += int(n)
        if near_fails:
            tally["fail"] -= near_fails
            tally["near miss"] = near_fails
        label = _label(str(scorer)) + (f" · {encodable(str(system))}" if several else "")
        for i, outcome in enumerate(OUTCOMES):
            if tally.get(outcome):
                records.append({"scorer": str(scorer), "label": label, "outcome": outcome,
                                "order": i, "rows": tally[outcome], "share": tally[outcome] / total})
                names.append(system)
    frame = pd.DataFrame(records, columns=["scorer", "label", "outcome", "order", "rows", "share"])
    # as written (objects: a string column cannot hold a lone surrogate; the label escapes it)
    frame.insert(1, "system", pd.Series(names, index=frame.index, dtype=object))
    return frame


def outcome_chart(counts: pd.DataFrame, scorer_order: Sequence[str] | None = None) -> alt.Chart:
    """One stacked bar per scorer (per scorer and system, with several), in ``scorer_order``."""
    labels = None
    if scorer_order is not None:
        labels = [x for s in scorer_order for x in dict.fromkeys(counts.loc[counts["scorer"] == s, "label"])]
    data = counts.drop(columns="system", errors="ignore")  # the label names it, escaped: the data goes out as UTF-8
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y("label:N", title=None, sort=labels, axis=alt.Axis(labelLimit=0)),  # "· output_b" in full
        x=alt.X("rows:Q", title="rows", stack="zero", axis=_WHOLE),
        color=alt.Color("outcome:N", scale=alt.Scale(domain=list(OUTCOMES), range=list(_OUTCOME_COLOURS)),
                        legend=alt.Legend(orient="bottom", title=None, columns=3)),
        order=alt.Order("order:Q"),
        tooltip=["label:N", "outcome:N", "rows:Q", alt.Tooltip("share:Q", format=".1%")],
    ).properties(height=alt.Step(22))


# --------------------------------------------------------------------------- near misses


def near_miss_counts(scored: pd.DataFrame) -> pd.DataFrame:
    """Near misses per (probe code, scorer): ``code, words, scorer, label, rows``. A row
    with two codes counts once under each."""
    near = scored.loc[scored["near_miss"] != "", ["scorer", "near_miss"]]
    tally: dict[tuple[str, str], int] = {}
    for (scorer, codes), n in near.groupby(["scorer", "near_miss"], sort=False).size().items():
        for code in str(codes).split(";"):
            tally[(code, str(scorer))] = tally.get((code, str(scorer)), 0) + int(n)
    frame = pd.DataFrame(
        [{"code": c, "words": PROBE_CODES.get(c, c), "scorer": s, "label": _label(s), "rows": n} for (c, s), n in tally.items()],
        columns=["code", "words", "scorer", "label", "rows"],
    )
    return frame.sort_values(["rows", "code"], ascending=[False, True], kind="stable").reset_index(drop=True)


def near_miss_chart(counts: pd.DataFrame) -> alt.Chart:
    return alt.Chart(counts).mark_bar().encode(
        # the whole code on the axis (strip_trailing_punctuation), the last tick inside the
        # chart, and the legend in two columns: a half-width column clipped all three
        y=alt.Y("code:N", title="probe code", sort="-x", axis=alt.Axis(labelLimit=0)),
        x=alt.X("sum(rows):Q", title="near misses", axis=alt.Axis(labelFlush=True, tickMinStep=1, format=",d")),
        color=alt.Color("label:N", title="grader", legend=alt.Legend(orient="bottom", columns=2, labelLimit=0)),
        tooltip=["code:N", "words:N", "label:N", "rows:Q"],
    ).properties(height=alt.Step(22))


# --------------------------------------------------------------------------- numeric tolerance


def tolerance_chart(sweep: pd.DataFrame, configured: float | None = None) -> alt.Chart:
    """Pass rate against tolerance (``graders.explore.sweeps.numeric_tolerance_sweep``'s frame);
    tolerances are shown as ordered categories, so 0 and 100 sit on one readable axis."""
    data = sweep.assign(
        # 15 digits: a configured tolerance such as 1.0000001 is not a second "1"
        tick=sweep["tolerance"].map(lambda t: f"{t:.15g}"),
        configured=sweep["tolerance"] == configured if configured is not None else False,
    )
    order = list(data["tick"])
    line = alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("tick:O", sort=order, title=f"{data['vary'].iloc[0] if len(data) else 'tolerance'}"),
        y=alt.Y("pass_rate:Q", title="pass rate", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
        tooltip=[alt.Tooltip("tolerance:Q", format="g"), "passed:Q", "judged:Q", alt.Tooltip("pass_rate:Q", format=".1%")],
    )
    mark = alt.Chart(data[data["configured"]]).mark_point(size=120, color="#c62828", filled=True).encode(
        x=alt.X("tick:O", sort=order), y="pass_rate:Q"
    )
    return alt.layer(line, mark).properties(height=220)


# --------------------------------------------------------------------------- JSON Schema


def schema_violations(scored: pd.DataFrame, scorer: str = "json_schema") -> pd.DataFrame:
    """JSON Schema failures grouped by (JSON Pointer path, keyword): ``path, keyword,
    rows, share`` (share of the scorer's rows having that violation). Outputs that are not
    JSON at all are one group, keyword ``(not JSON)``; the root (``""``) shows as
    ``(root)``. A key's lone surrogate shows in its path as ``\\ud800`` (the chart goes to
    the browser as UTF-8)."""
    part = scored.loc[scored["scorer"] == scorer, "details"]
    total = len(part)
    counter: dict[tuple[str, str], int] = {}
    for details in part:
        if not isinstance(details, dict):
            continue
        if details.get("parse_error"):
            key = ("", "(not JSON)")
            counter[key] = counter.get(key, 0) + 1
            continue
        seen = {(v.get("path", ""), v.get("keyword", "")) for v in details.get("violations") or ()}
        for key in seen:
            counter[key] = counter.get(key, 0) + 1
    frame = pd.DataFrame(
        [{"path": encodable(p) or "(root)", "keyword": k, "rows": n, "share": n / total if total else 0.0} for (p, k), n in counter.items()],
        columns=["path", "keyword", "rows", "share"],
    )
    return frame.sort_values(["rows", "path", "keyword"], ascending=[False, True, True], kind="stable").reset_index(drop=True)


def schema_violation_chart(violations: pd.DataFrame) -> alt.Chart:
    data = violations.assign(where=violations["path"] + "  ·  " + violations["keyword"])
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y("where:N", title="path · keyword", sort="-x"),
        x=alt.X("share:Q", title="share of rows", axis=alt.Axis(format="%")),
        tooltip=["path:N", "keyword:N", "rows:Q", alt.Tooltip("share:Q", format=".1%")],
    ).properties(height=alt.Step(22))
