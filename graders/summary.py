"""The run summary (SPEC §7): counts per scorer, pass rates with Wilson 95% intervals,
corpus beside mean-sentence BLEU and chrF, the left-out report and unknown assertions.

Counts are over scored rows: ``graded`` is every row the scorer produced; ``passed`` +
``failed`` are the decided rows the pass rate is taken over; ``scored`` counts continuous
scores without a threshold; ``mean_score`` is over rows that have a score.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .stats import wilson_interval


def score_values(scores: pd.Series) -> pd.Series:
    """The score cells as floats (NaN where empty): each distinct cell parsed once."""
    codes, distinct = pd.factorize(scores.to_numpy(dtype=object))
    values = pd.to_numeric(pd.Series(distinct, dtype=object).where(lambda v: v != ""), errors="coerce").to_numpy(float)
    out = np.append(values, np.nan)[codes]  # code -1 (a missing cell) takes the NaN at the end
    return pd.Series(out, index=scores.index)


def scorer_stats(statuses: pd.Series, scores: pd.Series, near: pd.Series) -> dict[str, Any]:
    counts = statuses.value_counts()
    passed, failed = int(counts.get("pass", 0)), int(counts.get("fail", 0))
    numeric = score_values(scores)
    decided = passed + failed
    lo, hi = wilson_interval(passed, decided) if decided else (None, None)
    return {
        "graded": int(len(statuses)),
        "passed": passed,
        "failed": failed,
        "not_judged": int(counts.get("not_judged", 0)),
        "errors": int(counts.get("error", 0)),
        "scored": int(counts.get("scored", 0)),
        "near_misses": int((near != "").sum()),
        "mean_score": None if numeric.notna().sum() == 0 else float(numeric.mean()),
        "pass_rate": None if not decided else passed / decided,
        "pass_rate_ci95": None if not decided else [lo, hi],
    }


def _by_scorer(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for scorer, part in frame.groupby("scorer", sort=False):
        out[str(scorer)] = scorer_stats(part["status"], part["score"], part["near_miss"])
    return out


def _summed_statistics(name: str, mine: pd.DataFrame, n: int) -> list[int] | None:
    """The corpus statistics summed from the sentence grades' details (the same integers
    ``corpus_bleu`` / ``corpus_chrf`` sum), or None when a row's are missing."""
    if not n or len(mine) != n or "details" not in mine.columns:
        return None
    total: list[int] | None = None
    for d in mine["details"]:
        if not d:
            return None
        if name == "bleu":
            if "correct" not in d:
                return None
            row = [d["hyp_len"], d["ref_len"], *d["correct"], *d["total"]]
        else:
            if "stats" not in d:
                return None
            row = list(d["stats"])
        total = row if total is None else [a + b for a, b in zip(total, row)]
    return total


def corpus_figures(rows: pd.DataFrame, graders: tuple[str, ...], scored: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per system: corpus BLEU / chrF beside the mean of the sentence scores."""
    from .bleu import compute_bleu, corpus_bleu
    from .chrf import compute_chrf, corpus_chrf

    out: dict[str, dict[str, Any]] = {}
    if "bleu" not in graders and "chrf" not in graders:
        return out
    for system, part in rows.groupby("system", sort=False):
        figures: dict[str, Any] = {}
        outputs, refs = list(part["output"]), [list(r) for r in part["refs"]]
        for name, corpus in (("bleu", corpus_bleu), ("chrf", corpus_chrf)):
            if name not in graders:
                continue
            mine = scored[(scored["scorer"] == name) & (scored["system"] == system)]
            sentence = pd.to_numeric(mine["score"].where(mine["score"] != ""), errors="coerce")
            summed = _summed_statistics(name, mine, len(outputs))
            if summed is not None:
                value = compute_bleu(summed, effective_order=False).score if name == "bleu" else compute_chrf(summed).score
            else:
                value = corpus(outputs, refs) if outputs else None
            figures[name] = {
                "corpus": value,
                "mean_sentence": None if sentence.notna().sum() == 0 else float(sentence.mean()),
                "rows": int(len(outputs)),
            }
        if figures:
            out[str(system)] = figures
    return out


def unknown_assertion_kinds(scored: pd.DataFrame) -> dict[str, int]:
    if not any(str(s).startswith("assert:") for s in scored["scorer"].unique()):
        return {}
    asserts = scored[scored["scorer"].str.startswith("assert:") & (scored["status"] == "error")]
    counts: dict[str, int] = {}
    for meta in asserts["metadata"]:
        m = json.loads(meta)
        if m.get("unsupported"):
            counts[m["kind"]] = counts.get(m["kind"], 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def summarize(
    scored: pd.DataFrame,
    rows: pd.DataFrame,
    *,
    graders: tuple[str, ...],
    left_out: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    overall = _by_scorer(scored)
    names = scored["system"].unique()
    if len(names) == 1:  # one system: its figures are the overall ones
        systems = {str(names[0]): {k: dict(v) for k, v in overall.items()}}
    else:
        systems = {str(s): _by_scorer(part) for s, part in scored.groupby("system", sort=False)}
    return {
        "cases": int(len(rows)),
        "graders": overall,
        "systems": systems,
        "corpus": corpus_figures(rows, graders, scored),
        "left_out": dict(left_out or {}),
        "unknown_assertions": unknown_assertion_kinds(scored),
        "config": dict(config or {}),
    }
