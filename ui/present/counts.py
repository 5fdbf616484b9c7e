"""The Score page's counts table and its pass-rate links (no streamlit here): the table in
Markdown with the headline figures first, and for each pass count the pass-rate page's
query parameters (``ui.views.rate_link`` makes them an ``st.page_link``)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ui import display
from ui.present.grid import label
from ui.present.links import pass_rate_query

__all__ = ["COUNT_COLUMNS", "counts_markdown", "not_run", "rate_links"]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def not_run(summary: Mapping[str, Any]) -> set[str]:
    """The scorers of per-row assertions of a kind that is not run (``assert:<i>:llm-rubric``):
    every row of theirs is an error that says so; "Assertion kinds not run" counts them, and
    the counts table and the outcome chart leave them out rather than call them graded."""
    unknown = set(summary.get("unknown_assertions") or ())
    return {name for name in summary.get("graders", {}) if name.startswith("assert:") and name.split(":", 2)[2] in unknown}


COUNT_COLUMNS = ("Grader", "Pass rate (Wilson 95%)", "Mean score", "Passed", "Failed", "Graded", "Not judged",
                 "Errors", "Near misses")


def counts_markdown(summary: Mapping[str, Any], order: Sequence[str] | None = None) -> str:
    """The counts table of the seed with the headline figures first, so that they stay in
    view in a 1,024-pixel window: Grader, Pass rate with its Wilson 95% interval, Mean
    score, then Passed, Failed, Graded, Not judged, Errors and Near misses (a grader with
    answer extraction says how many of its fails found no answer, SPEC §9). The pass-rate
    calculator opens on each pass count from ``rate_links`` below the table (in the same
    session; a Markdown link would open a new one, without the file)."""
    systems = summary.get("systems", {})
    several = len(systems) > 1
    head = (["System"] if several else []) + list(COUNT_COLUMNS)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for system, name, c in _count_rows(summary, order):
        rate = c.get("pass_rate")
        ci = c.get("pass_rate_ci95")
        rate_text = "–" if rate is None else f"{_pct(rate)} [{_pct(ci[0])}, {_pct(ci[1])}]"
        mean = c.get("mean_score")
        cells = ([display.md(system)] if several else []) + [
            f"**{display.md(label(name))}**" if not several else display.md(label(name)),
            rate_text,
            "–" if mean is None else f"{mean:.3f}",
            f"{c['passed']:,}",
            f"{c['failed']:,}" + (f" ({c['no_answer']:,} no answer)" if c.get("no_answer") else ""),
            f"{c['graded']:,}",
            f"{c['not_judged']:,}",
            f"{c['errors']:,}",
            f"{c['near_misses']:,}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _count_rows(summary: Mapping[str, Any], order: Sequence[str] | None) -> list[tuple[str | None, str, dict]]:
    """(system or None, scorer, counts) of each row of the counts table, in its order."""
    systems = summary.get("systems", {})
    several = len(systems) > 1
    blocks = systems.items() if several else [(None, summary.get("graders", {}))]
    skipped = not_run(summary)
    out = []
    for system, graders in blocks:
        names = [n for n in (order or graders) if n in graders] + [n for n in graders if order and n not in order]
        out += [(system, name, graders[name]) for name in names if name not in skipped]
    return out


def rate_links(summary: Mapping[str, Any], order: Sequence[str] | None = None) -> list[tuple[str, dict[str, str]]]:
    """(link text, the pass-rate page's query parameters) of each counts row with a
    decided row: "Exact match: 8 of 40" opens k=8, n=40 labelled "Exact match: passed"."""
    out = []
    for system, name, c in _count_rows(summary, order):
        decided = c["passed"] + c["failed"]
        if not decided:
            continue
        who = label(name) + (f" · {system}" if system else "")
        out.append((f"{who}: {c['passed']:,} of {decided:,}", pass_rate_query(c["passed"], decided, label=f"{who}: passed")))
    return out
