"""The run summary (SPEC §7): counts per scorer, pass rates with Wilson 95% intervals,
corpus beside mean-sentence BLEU and chrF, the left-out report and unknown assertions.

Counts are over scored rows: ``graded`` is every row the scorer produced; ``passed`` +
``failed`` are the decided rows the pass rate is taken over; ``scored`` counts continuous
scores without a threshold; ``mean_score`` is over rows that have a score.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

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
    """One scorer's counts, mean score and pass rate (Wilson 95%) over its scored rows."""
    return _stats(statuses.to_numpy(dtype=object), score_values(scores).to_numpy(), near.to_numpy(dtype=object) != "")


def _stats(statuses: np.ndarray, values: np.ndarray, near: np.ndarray) -> dict[str, Any]:
    """``scorer_stats`` over arrays: the status cells, the parsed scores, near miss or not."""
    codes, names = pd.factorize(statuses)
    counts = dict(zip(names.tolist(), np.bincount(codes[codes >= 0], minlength=len(names)).tolist()))
    passed, failed = int(counts.get("pass", 0)), int(counts.get("fail", 0))
    numeric = pd.Series(values)
    decided = passed + failed
    lo, hi = wilson_interval(passed, decided) if decided else (None, None)
    return {
        "graded": int(len(statuses)),
        "passed": passed,
        "failed": failed,
        "not_judged": int(counts.get("not_judged", 0)),
        "errors": int(counts.get("error", 0)),
        "scored": int(counts.get("scored", 0)),
        "near_misses": int(near.sum()),
        "mean_score": None if numeric.notna().sum() == 0 else float(numeric.mean()),
        "pass_rate": None if not decided else passed / decided,
        "pass_rate_ci95": None if not decided else [lo, hi],
    }


def positions_by_value(values: np.ndarray, within: np.ndarray | None = None) -> dict[Any, np.ndarray]:
    """Each distinct value (in order of first appearance) and its row positions, in row
    order: what ``groupby(sort=False)`` gives, without moving the frame's columns."""
    at = np.arange(len(values)) if within is None else within
    codes, names = pd.factorize(values[at])
    if len(names) < 1 << 15:  # numpy sorts 16-bit keys stably by radix: ten times faster
        codes = codes.astype(np.int16)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
    return {name: at[order[bounds[k]:bounds[k + 1]]] for k, name in enumerate(names.tolist())}


# Per (scorer, system): (rows, their statistics summed, or None when a row's were missing).
CorpusStatistics = dict[tuple[str, Any], tuple[int, "list[int] | None"]]


@dataclass(frozen=True)
class Tally:
    """What the summary reads of scored rows that were written out instead of kept
    (``batch.score_to_csv``). Per scored row, in the scored frame's order: ``scorer``,
    ``system`` and ``status`` (object arrays), ``values`` (the score, NaN where its cell is
    empty) and ``near`` (a near miss or not). ``unknown_assertions``: the assertion kinds
    no grader knows, with their counts. ``statistics``: BLEU's and chrF's corpus statistics
    summed per (scorer, system)."""

    scorer: np.ndarray
    system: np.ndarray
    status: np.ndarray
    values: np.ndarray
    near: np.ndarray
    unknown_assertions: dict[str, int] = field(default_factory=dict)
    statistics: CorpusStatistics = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.scorer)


class _Columns:
    """The scored rows' cells the summary reads, as arrays, each made once: from a scored
    frame, or a ``Tally``."""

    def __init__(self, scored: "pd.DataFrame | Tally") -> None:
        if isinstance(scored, Tally):
            self.scorer, self.system, self.status = scored.scorer, scored.system, scored.status
            self.values, self.near = scored.values, scored.near
        else:
            self.scorer = scored["scorer"].to_numpy(dtype=object)
            self.system = scored["system"].to_numpy(dtype=object)
            self.status = scored["status"].to_numpy(dtype=object)
            self.values = score_values(scored["score"]).to_numpy()
            self.near = scored["near_miss"].to_numpy(dtype=object) != ""
        self._scorers: dict[Any, np.ndarray] | None = None

    @property
    def scorers(self) -> dict[Any, np.ndarray]:
        """Each scorer's row positions over the whole frame (``positions_by_value``), found once."""
        if self._scorers is None:
            self._scorers = positions_by_value(self.scorer)
        return self._scorers

    def by_scorer(self, within: np.ndarray | None = None) -> dict[str, dict[str, Any]]:
        groups = self.scorers if within is None else positions_by_value(self.scorer, within)
        return {str(name): _stats(self.status[at], self.values[at], self.near[at]) for name, at in groups.items()}


def statistic_sums(name: str, details: Sequence[Any]) -> list[int] | None:
    """BLEU's or chrF's sentence statistics in these rows' details summed (the integers
    ``corpus_bleu`` / ``corpus_chrf`` sum), or None when a row's are missing, ragged or
    beyond 64 bits."""
    try:
        if name == "bleu":
            rows = [[d["hyp_len"], d["ref_len"], *d["correct"], *d["total"]] for d in details]
        else:
            rows = [d["stats"] for d in details]
        table = np.array(rows, dtype=np.int64)
    except (KeyError, TypeError, ValueError, OverflowError):  # a row without them, or ragged
        return None
    if table.ndim != 2 or len(table) != len(details):
        return None
    return table.sum(axis=0).tolist()


def add_statistics(total: CorpusStatistics, part: CorpusStatistics) -> None:
    """Add one chunk's ``CorpusStatistics`` into ``total`` (a None stays None)."""
    for key, (rows, sums) in part.items():
        if key not in total:
            total[key] = (rows, sums)
            continue
        have_rows, have = total[key]
        total[key] = (have_rows + rows, None if have is None or sums is None else [a + b for a, b in zip(have, sums)])


def _summed_statistics(name: str, details: np.ndarray, n: int) -> list[int] | None:
    """``statistic_sums`` of one system's ``n`` rows, or None when some rows have none."""
    if not n or len(details) != n:
        return None
    return statistic_sums(name, details)


def corpus_figures(rows: pd.DataFrame, graders: tuple[str, ...], scored: "pd.DataFrame | Tally",
                   columns: _Columns | None = None,
                   statistics: CorpusStatistics | None = None) -> dict[str, dict[str, Any]]:
    """Per system: corpus BLEU / chrF beside the mean of the sentence scores; the corpus
    figure from the rows' statistics (``statistics`` when given, else a ``Tally``'s, else
    the scored frame's details), from a second pass over the corpus where some are missing."""
    from .bleu import compute_bleu, corpus_bleu
    from .chrf import compute_chrf, corpus_chrf

    out: dict[str, dict[str, Any]] = {}
    if "bleu" not in graders and "chrf" not in graders:
        return out
    cols = columns if columns is not None else _Columns(scored)
    if isinstance(scored, Tally) and statistics is None:
        statistics = scored.statistics
    details = None if isinstance(scored, Tally) or "details" not in scored.columns else scored["details"].to_numpy(dtype=object)
    mine_at = {key: at for key, at in cols.scorers.items() if key in ("bleu", "chrf")}
    # positions_by_value, not groupby: pandas would put the systems into its string
    # dtype, which cannot hold a lone surrogate (a JSON version "\ud800")
    for system, where in positions_by_value(rows["system"].to_numpy(dtype=object)).items():
        part = rows.iloc[where]
        figures: dict[str, Any] = {}
        n = len(part)
        for name, corpus in (("bleu", corpus_bleu), ("chrf", corpus_chrf)):
            if name not in graders:
                continue
            at = mine_at.get(name, np.empty(0, dtype=int))
            at = at[cols.system[at] == system]
            sentence = pd.Series(cols.values[at])
            if statistics is not None:
                counted, summed = statistics.get((name, system), (0, None))
                summed = summed if counted == n and n else None
            else:
                summed = None if details is None else _summed_statistics(name, details[at], n)
            if summed is not None:
                value = compute_bleu(summed, effective_order=False).score if name == "bleu" else compute_chrf(summed).score
            else:
                value = corpus(list(part["output"]), [list(r) for r in part["refs"]]) if n else None
            figures[name] = {
                "corpus": value,
                "mean_sentence": None if sentence.notna().sum() == 0 else float(sentence.mean()),
                "rows": int(n),
            }
        if figures:
            out[str(system)] = figures
    return out


def unknown_assertion_kinds(scored: pd.DataFrame, scorers: Sequence[Any] | None = None) -> dict[str, int]:
    """Assertion kinds the rows asked for that no grader knows, with their counts.
    ``scorers``: the frame's distinct scorer names, when known already."""
    names = scored["scorer"].unique() if scorers is None else scorers
    if not any(str(s).startswith("assert:") for s in names):
        return {}
    asserts = scored[scored["scorer"].str.startswith("assert:") & (scored["status"] == "error")]
    counts: dict[str, int] = {}
    for meta in asserts["metadata"]:
        m = json.loads(meta)
        if m.get("unsupported"):
            counts[m["kind"]] = counts.get(m["kind"], 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def summarize(
    scored: "pd.DataFrame | Tally",
    rows: pd.DataFrame,
    *,
    graders: tuple[str, ...],
    left_out: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    statistics: CorpusStatistics | None = None,
) -> dict[str, Any]:
    """The run's summary (SPEC §7): counts per grader, overall and per system, the corpus
    figures, the left-out report and unknown assertion kinds. ``statistics``: BLEU's and
    chrF's corpus statistics summed per (scorer, system), as ``batch.score_frame`` fills
    them (used instead of ``scored``'s details). ``scored``: the scored frame, or the
    ``Tally`` of ``batch.score_to_csv`` (which holds its statistics)."""
    cols = _Columns(scored)
    overall = cols.by_scorer()
    by_system = positions_by_value(cols.system)
    if len(by_system) == 1:  # one system: its figures are the overall ones
        systems = {str(name): {k: dict(v) for k, v in overall.items()} for name in by_system}
    else:
        systems = {str(name): cols.by_scorer(at) for name, at in by_system.items()}
    return {
        "cases": int(len(rows)),
        "graders": overall,
        "systems": systems,
        "corpus": corpus_figures(rows, graders, scored, cols, statistics),
        "left_out": dict(left_out or {}),
        "unknown_assertions": (dict(scored.unknown_assertions) if isinstance(scored, Tally)
                               else unknown_assertion_kinds(scored, list(cols.scorers))),
        "config": dict(config or {}),
    }
