"""The Compare page's tables, as pure functions of a ``Comparison`` (no streamlit here).

* ``metric_table``   one display row per metric: paired n, means, A - B with its 95%
                     interval, wins / losses / ties, pass counts as pass-rate links,
                     both pass rates with Wilson intervals, McNemar's b and c, p and the
                     Holm-adjusted p, the one-word reading and the sentence
* ``metric_lines``   one Markdown bullet per metric: its reading in words, and its pass
                     counts as pass-rate links
* ``pass_counts``    {metric: (A passes, B passes, paired n)} behind those links
* ``review_rows``    the rows a reviewer wants first, with both outputs and the expected
* ``pair_detail``    one pair (by its source records): expected, both outputs, every grade
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import pandas as pd

from graders.compare.comparison import FILTERS, Comparison
from graders.explore.sensitivity import metric_frame
from graders.registry import get_spec
from ui import display
from ui.present.links import pass_rate_link

pass_rate_url = pass_rate_link  # the name this module gave it first (tests import it from here)

REVIEWS = (*FILTERS, "largest_drops")
REVIEW_LABELS = {
    "a_fails_b_passes": "A fails, B passes",
    "a_passes_b_fails": "A passes, B fails",
    "disagree": "Any disagreement",
    "largest_drops": "Largest drops (A below B)",
}
READING_STYLE = {
    "noise?": "background-color: #fff3cd; color: #664d03; font-weight: 600",
    "A better": "background-color: #d1e7dd; color: #0f5132; font-weight: 600",
    "B better": "background-color: #d1e7dd; color: #0f5132; font-weight: 600",
    "too few": "background-color: #f8d7da; color: #842029",
}


def pass_counts(comparison: Comparison) -> dict[str, tuple[int, int, int]]:
    """{metric: (A passes, B passes, paired n)} for the pass-or-fail metrics with pairs."""
    out = {}
    for name, m in comparison.metrics.items():
        s = m.stats
        if s.pass_rate_a is not None and s.n:
            out[name] = (round(s.pass_rate_a * s.n), round(s.pass_rate_b * s.n), s.n)
    return out


def metric_label(name: str) -> str:
    return "Overall" if name == "overall" else get_spec(name).label


def pass_rate_label(comparison: Comparison, name: str, side: str) -> str:
    """The pass-rate page's title for one side's passes on ``name``; with repeats, that its
    n counts rows, not cases (the page's interval takes them as independent)."""
    s = comparison.metrics[name].stats
    label = f"{metric_label(name)}: {side}"
    if s.n_cases and s.n_cases < s.n:
        label += (f" ({s.n:,} rows of {s.n_cases:,} cases with repeats, taken here as independent: "
                  "the interval is narrower than the cases support)")
    return label


def _interval(low: float, high: float, percent: bool = False) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return ""
    if percent:
        return f"{low:.1%} to {high:.1%}"
    return f"{low:+.3f} to {high:+.3f}"


def _rate(rate: float | None, ci: tuple[float, float] | None) -> str:
    if rate is None or not math.isfinite(rate):
        return ""
    return f"{rate:.1%} ({ci[0]:.1%}–{ci[1]:.1%})" if ci else f"{rate:.1%}"


TABLE_COLUMNS = (
    "Metric", "Reading", "Paired n", "Cases", "Mean A", "Mean B", "A − B", "95% CI of A − B", "Wins", "Losses", "Ties",
    "A passes", "Pass rate A (95% CI)", "B passes", "Pass rate B (95% CI)", "b / c", "Test", "p", "Holm p",
    "In words",
)


def metric_table(comparison: Comparison) -> pd.DataFrame:
    """One row per metric, ``TABLE_COLUMNS``, ready for ``st.dataframe`` (the pass counts
    are ``pass_rate_link`` links; "" where a figure does not apply)."""
    frame = metric_frame(comparison)
    counts = pass_counts(comparison)
    a, b = comparison.label_a, comparison.label_b
    rows = []
    for name, m, r in zip(comparison.metrics, comparison.metrics.values(), frame.itertuples()):
        s = m.stats
        row: dict[str, Any] = {
            "Metric": metric_label(name), "Paired n": s.n, "Cases": s.n_cases, "Mean A": s.mean_a,
            "Mean B": s.mean_b, "A − B": s.mean_diff, "95% CI of A − B": _interval(s.ci_low, s.ci_high),
            "Wins": s.wins, "Losses": s.losses, "Ties": s.ties,
            "A passes": "", "Pass rate A (95% CI)": "", "B passes": "", "Pass rate B (95% CI)": "",
            "b / c": "", "Test": s.p_method, "p": s.p_value, "Holm p": r.p_holm,
            "Reading": r.reading, "In words": m.words,
        }
        if name in counts:
            ka, kb, _ = counts[name]
            row["A passes"] = pass_rate_link(ka, s.n, label=pass_rate_label(comparison, name, a))
            row["B passes"] = pass_rate_link(kb, s.n, label=pass_rate_label(comparison, name, b))
            row["Pass rate A (95% CI)"] = _rate(s.pass_rate_a, s.pass_rate_a_ci)
            row["Pass rate B (95% CI)"] = _rate(s.pass_rate_b, s.pass_rate_b_ci)
        if s.b is not None:
            row["b / c"] = f"{s.b} / {s.c}"
        rows.append(row)
    out = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    for col in ("Mean A", "Mean B", "A − B", "p", "Holm p"):
        out[col] = out[col].astype(float)
    return out


# the flag where there is a winner; "noise?" ("may be noise", "no detectable difference"),
# "no difference", "too few" and "no pairs" the words say themselves
# (Streamlit's own icon font, not an emoji: a browser without an emoji font drew ✅ as a box)
FLAG = {"A better": ":material/check_circle: A better", "B better": ":material/check_circle: B better"}


def metric_lines(comparison: Comparison, readings: Sequence[str]) -> str:
    """One Markdown bullet per metric (``readings``: the metric table's, in its order): the
    flag of a winner, the comparison's sentence as literal Markdown and, for a pass-or-fail
    metric, `` · passes: A 8 of 40, B 19 of 40`` (the page links each count to the pass-rate
    page in its own session, below)."""
    counts = pass_counts(comparison)

    def counts_links(name: str) -> str:
        if name not in counts:
            return ""
        ka, kb, n = counts[name]
        return f" · passes: A {ka:,} of {n:,}, B {kb:,} of {n:,}"

    return "\n".join(f"- **{metric_label(name)}** — {FLAG[r] + ': ' if r in FLAG else ''}{display.md(m.words)}"
                     f"{counts_links(name)}" for (name, m), r in zip(comparison.metrics.items(), readings))


def reading_css(value: str) -> str:
    """The cell style of a reading (``noise?`` highlighted), for a pandas Styler."""
    return READING_STYLE.get(value, "")


def _with_text(comparison: Comparison, pairs: pd.DataFrame) -> pd.DataFrame:
    """``pairs`` with expected, input and both outputs joined from the prepared rows."""
    rows = comparison.prepared.rows
    text = rows.loc[:, ["record", "system", "expected", "input", "output"]]
    side_a = text[text["system"] == comparison.label_a].drop(columns="system")
    side_b = text[text["system"] == comparison.label_b].drop(columns="system")
    out = pairs.copy()
    out["record_a"] = pd.to_numeric(out["record_a"], errors="coerce")
    out["record_b"] = pd.to_numeric(out["record_b"], errors="coerce")
    out = out.merge(side_a.rename(columns={"record": "record_a", "output": "output_a", "expected": "expected_a",
                                           "input": "input_a"}), on="record_a", how="left")
    out = out.merge(side_b.rename(columns={"record": "record_b", "output": "output_b", "expected": "expected_b",
                                           "input": "input_b"}), on="record_b", how="left")
    out["expected"] = out["expected_a"].where(out["expected_a"].notna(), out["expected_b"])
    out["input"] = out["input_a"].where(out["input_a"].notna(), out["input_b"])
    return out


REVIEW_COLUMNS = ("item", "repeat", "grader", "score_a", "score_b", "difference", "outcome", "expected",
                  "output_a", "output_b", "input", "record_a", "record_b")


def review_rows(comparison: Comparison, kind: str, grader: str, *, limit: int = 1000) -> tuple[pd.DataFrame, int]:
    """(the first ``limit`` rows of review ``kind`` on ``grader``, how many there are).

    ``kind``: one of ``REVIEWS``; largest drops are sorted by the drop, the others keep
    the file's order. Columns: ``REVIEW_COLUMNS``, and ``version`` after ``item`` for a
    wide file with versions."""
    if kind == "largest_drops":
        picked = comparison.largest_drops(grader, k=limit)
        total = int(((comparison.pairs["grader"] == grader) & comparison.pairs["paired"]
                     & (comparison.pairs["diff"] < 0)).sum())
    else:
        picked = comparison.rows(kind, grader)
        total = len(picked)
        picked = picked.head(limit)
    out = _with_text(comparison, picked)
    # a wide file with versions: a case is (id, version), so the version goes beside the id
    columns = [*REVIEW_COLUMNS[:1], "version", *REVIEW_COLUMNS[1:]] if "version" in out.columns else list(REVIEW_COLUMNS)
    return out.loc[:, columns].reset_index(drop=True), total


def review_note(comparison: Comparison, kind: str, grader: str) -> str | None:
    """Why review ``kind`` can show nothing on ``grader`` whatever the rows: a pass-or-fail
    review of a continuous grader run without a threshold (no row passes or fails); else None."""
    if kind not in ("a_fails_b_passes", "a_passes_b_fails") or grader == "overall" or get_spec(grader).binary:
        return None
    params = next((g for g in comparison.settings.get("graders", ()) if g.get("name") == grader), {})
    if params.get("threshold") is not None:
        return None
    label = get_spec(grader).label
    return (f"{label} has no threshold, so none of its rows passes or fails: give it one under Graders "
            f"(“Pass or fail with a threshold”), or show “{REVIEW_LABELS['disagree']}” or "
            f"“{REVIEW_LABELS['largest_drops']}” on it.")


def pair_detail(comparison: Comparison, record_a: Any, record_b: Any) -> dict[str, Any]:
    """One pair, found by its source records (``record_a`` / ``record_b`` of a pairs or
    ``review_rows`` row; either may be missing for a case on one side only): ``expected``
    (the first reference), ``refs`` (all of them), ``input``, ``outputs`` {A label: text,
    B label: text} and ``grades`` [(label, status, score, explanation, near_miss)], each
    metric's A grade then its B grade (the shape ``ui.detail.row_detail`` takes)."""
    a, b = comparison.label_a, comparison.label_b
    rows, scored = comparison.prepared.rows, comparison.scored
    outputs: dict[str, str] = {}
    refs: tuple[str, ...] = ()
    input_text = ""
    sides: dict[str, pd.DataFrame] = {}
    for label, record in ((a, record_a), (b, record_b)):
        record = pd.to_numeric(pd.Series([record]), errors="coerce").iloc[0]
        if pd.isna(record):
            continue
        record = int(record)
        side = rows[rows["record"] == record]
        side = side[side["system"] == label]
        if len(side):
            outputs[label] = str(side["output"].iloc[0] or "")
            refs = refs or tuple(side["refs"].iloc[0] or ())
            input_text = input_text or str(side["input"].iloc[0] or "")
        mine = scored[scored["record"] == record]
        sides[label] = mine[mine["system"] == label]
    grades = []
    for name in comparison.metrics:
        for label in (a, b):
            g = sides.get(label)
            g = g[g["scorer"] == name] if g is not None else None
            if g is not None and len(g):
                r = g.iloc[0]
                grades.append((f"{metric_label(name)} — {label}", r["status"], r["score"], r["explanation"],
                               r["near_miss"] or None))
    return {"expected": refs[0] if refs else "", "refs": refs, "input": input_text, "outputs": outputs,
            "grades": grades}
