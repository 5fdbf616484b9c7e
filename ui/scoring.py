"""Scoring behind the Score page: cached by file content + mapping + configuration without
thresholds, with a progress bar and a Stop button.

Session state set here:

- ``gb_runs``      {score key: ScoreRun} of thresholdless runs (the last ``MAX_RUNS``,
                   at most ``MAX_CACHED_ROWS`` scored rows beyond the newest)
- ``gb_prepared``  {prepare key: Prepared | error message} for the left-out report
- ``gb_view``      the thresholded view of the current run: per-grader frames, summary and
                   chart data, keyed by (score key, thresholds) — a filter change reuses it
- ``gb_split``     (score key, {scorer: rows of the run's scored frame})
- ``gb_parts``     {(score key, scorer, threshold): that grader's thresholded frame, counts
                   and chart aggregates} — a threshold change recomputes one grader's entry
- ``gb_job``       the scoring job in progress (a ``Job``), if any
- ``gb_stopped``   {score key: (done, total)} of runs the user stopped; not restarted
                   until "Score again" is pressed or the configuration changes
- ``gb_haystack``  {score key: each case's search text} for the filter's text search
- ``gb_score_count`` how many times scoring actually ran (the tests and the bench read it)
- ``gb_threshold_count`` how many times thresholds were applied

Streamlit mechanics of the Stop button. Scoring runs in a background thread that calls
``score_prepared`` with ``progress`` and ``cancel`` callbacks (a large file's chunks go to
``WORKERS`` processes forked from a forkserver, which is safe beside Streamlit's threads
where a plain fork is not; ``warm_workers`` starts it at the first page run); the script
thread draws the progress bar from the job's counters every 0.1 s (no ``st`` call is made
from the background thread). Clicking Stop (or any widget) while the script is drawing makes
Streamlit interrupt that script run at its next ``st`` call and start a new run; the new run
finds the same job still going, sees the Stop button pressed, and sets the job's
``threading.Event`` — the ``cancel`` callback the batch layer checks between chunks of
4,000 rows. Limits: the stop takes effect at the next chunk boundary (a chunk of slow
graders can take a few seconds); the rows of an unfinished chunk are dropped, nothing
partial is shown; a widget change that leaves the score key unchanged re-attaches to the
running job instead of restarting it, while one that changes the key cancels the old job
and starts a new one; closing the browser tab does not stop a job (the thread finishes
its run, the result is dropped with the session). tests/test_browser.py clicks Stop in
a real browser.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

import pandas as pd
import streamlit as st

from graders.config import RunConfig, mapping_dict
from graders.explore.sweeps import numeric_tolerance_sweep
from graders.pipeline import ScoreRun, score_prepared
from graders.readers.files import ResultsFile
from graders.scoring.batch import explain_rows
from graders.scoring.parallel import Cancelled, default_workers, warm_forkserver
from graders.scoring.rows import MappingError, Prepared, prepare
from graders.scoring.summary import positions_by_value, scorer_stats
from graders.scoring.thresholds import apply_thresholds, split_thresholds
from ui import display
from ui.present import charts
from ui.present.search import haystack

MAX_RUNS = 3
# Scored rows kept across cached runs: millions of live rows make every garbage collection
# slow (and cost memory), so older runs are dropped beyond this.
MAX_CACHED_ROWS = 1_200_000
THRESHOLDS_KEPT = 3  # thresholded frames memoized per grader
NEAR_HEAD = 200  # near-miss rows kept per grader for the near-miss table
# Worker processes for large files: one per core, at most four, started from a forkserver.
WORKERS = default_workers()
START_METHOD = "forkserver"
POLL_SECONDS = 0.1


_warming: list[threading.Thread] = []


def warm_workers() -> None:
    """Start the forkserver once per server process, off the script thread, so that the
    first large scoring does not wait for it (called from a page run, never at import: a
    worker process importing this module must not start one)."""
    if WORKERS > 1 and not _warming:
        _warming.append(threading.Thread(target=warm_forkserver, name="gradeboard-forkserver", daemon=True))
        _warming[0].start()


@dataclass
class Job:
    key: str
    cancel: threading.Event = field(default_factory=threading.Event)
    done: int = 0
    total: int = 0
    result: ScoreRun | None = None
    error: str | None = None
    cancelled: bool = False
    thread: threading.Thread | None = None
    started: float = field(default_factory=time.perf_counter)
    seconds: float | None = None
    haystack: pd.Series | None = None

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total


def _digest(*parts: Any) -> str:
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]  # a column name may hold one


def score_key(file_hash: str, mapping: Mapping[str, str | None], base: RunConfig) -> str:
    return _digest(file_hash, dict(mapping), base.to_dict())


# --------------------------------------------------------------------------- the left-out report


def prepared_for(file: ResultsFile, mapping: Mapping[str, str | None], needs_expected: bool) -> Prepared | str:
    """``prepare`` memoized by file content and mapping; a ``MappingError`` comes back as its message."""
    ss = st.session_state
    key = _digest(ss.get("gb_file_hash"), dict(mapping), needs_expected)
    memo = ss.setdefault("gb_prepared", {})
    if key not in memo:
        while len(memo) >= MAX_RUNS:  # a few entries: each page keeps its own mapping
            memo.pop(next(iter(memo)))
        try:
            memo[key] = prepare(file, mapping, needs_expected=needs_expected)
        except MappingError as e:
            memo[key] = str(e)
    return memo[key]


def nothing_to_score(file: ResultsFile, mapping: Mapping[str, str | None], config: RunConfig) -> bool:
    """Every row is left out for these graders (a mapping error is the report's to say)."""
    prepared = prepared_for(file, mapping, config.needs_expected)
    return isinstance(prepared, Prepared) and prepared.rows.empty


# --------------------------------------------------------------------------- scoring with progress


def _work(job: Job, file: ResultsFile, base: RunConfig, mapping: dict[str, str | None],
          prepared: Prepared | None = None) -> None:
    try:
        # The output column is joined in for the downloads only (batch.with_output): carrying a
        # copy per scorer back from the workers costs more than the join. The cheap graders'
        # explanations likewise: the views fill in those of the rows they show
        # (batch.explain_rows), and building and carrying 800,000 of them would double the wait.
        job.result = score_prepared(file, base, mapping=mapping, workers=WORKERS,
                                    progress=job.progress, cancel=job.cancel.is_set, details=False,
                                    start_method=START_METHOD, prepared=prepared, explain=False)
        job.haystack = haystack(job.result.prepared.rows)  # the filter's search text, built off the UI thread
    except Cancelled:
        job.cancelled = True
    except (MappingError, ValueError) as e:
        job.error = str(e)
    except Exception as e:  # never a traceback on screen
        job.error = f"{type(e).__name__}: {e}"
    finally:
        job.seconds = time.perf_counter() - job.started


def _start(key: str, file: ResultsFile, base: RunConfig, mapping: dict[str, str | None]) -> Job:
    ss = st.session_state
    prepared = prepared_for(file, mapping, base.needs_expected)  # the left-out report's, memoized
    ready = prepared if isinstance(prepared, Prepared) else None  # a mapping error: score_prepared says it
    old = ss.get("gb_job")
    if old is not None and old.thread is not None and old.thread.is_alive():
        old.cancel.set()
    job = Job(key, total=len(file.frame))
    job.thread = threading.Thread(target=_work, args=(job, file, base, mapping, ready), daemon=True,
                                  name=f"gb-score-{key[:8]}")
    ss["gb_job"] = job
    ss["gb_score_count"] = ss.get("gb_score_count", 0) + 1
    job.thread.start()
    return job


def run_scoring(file: ResultsFile, mapping: Mapping[str, str | None], base: RunConfig) -> ScoreRun | None:
    """The thresholdless ScoreRun for (file, mapping, base), scoring it if not cached."""
    warm_workers()
    ss = st.session_state
    key = score_key(ss.get("gb_file_hash") or "", mapping, base)
    runs: dict[str, ScoreRun] = ss.setdefault("gb_runs", {})
    if key in runs:
        return runs[key]
    stopped: dict[str, tuple[int, int]] = ss.setdefault("gb_stopped", {})
    if key in stopped:
        done, total = stopped[key]
        st.warning(f"Scoring was stopped after {done:,} of {total:,} rows; nothing partial is shown.")
        if st.button("Score again", key="gb_score_again"):
            del stopped[key]
            st.rerun()
        return None
    job: Job | None = ss.get("gb_job")
    if job is None or job.key != key or (job.thread is not None and not job.thread.is_alive() and job.result is None
                                         and not job.cancelled and job.error is None):
        job = _start(key, file, base, dict(mapping))
    elif job.key == key and not job.thread.is_alive() and job.error is not None:
        # a finished failed job: show its message once more, then let a change retry
        pass
    box = st.empty()
    with box.container():
        bar = st.progress(0.0, text="Scoring…")
        if st.button("Stop scoring", key="gb_stop", help="Stops between chunks of 4,000 rows."):
            job.cancel.set()
    while job.thread is not None and job.thread.is_alive():
        frac = job.done / job.total if job.total else 0.0
        bar.progress(min(1.0, frac), text=f"Scoring… {job.done:,} of {job.total:,} rows")
        time.sleep(POLL_SECONDS)
    box.empty()
    if job.cancelled:
        stopped[key] = (job.done, job.total)
        ss["gb_job"] = None
        st.rerun()
    if job.error is not None:
        st.error(display.inert(f"Scoring failed: {job.error}"))
        return None
    runs[key] = job.result
    ss.setdefault("gb_haystack", {})[key] = job.haystack
    while len(runs) > MAX_RUNS or (len(runs) > 1 and sum(len(r.scored) for r in runs.values()) > MAX_CACHED_ROWS):
        gone = next(iter(runs))
        runs.pop(gone)
        ss["gb_haystack"].pop(gone, None)
    ss["gb_job"] = None
    return job.result


# --------------------------------------------------------------------------- thresholds and the view
#
# The view keeps the scored frame split by scorer (``parts``, each with the frame's original
# index). Everything a threshold can change — the scorer's pass/fail cells, its counts, its
# chart aggregates — is computed per (run, scorer, threshold) and memoized in ``gb_parts``:
# moving one grader's threshold re-applies that grader's threshold alone.


def _split(run: ScoreRun, key: str) -> dict[str, pd.DataFrame]:
    ss = st.session_state
    memo = ss.get("gb_split")
    if memo is None or memo[0] != key:
        scored = run.scored
        groups = positions_by_value(scored["scorer"].to_numpy(dtype=object))
        memo = (key, {str(name): scored.iloc[idx] for name, idx in groups.items()})
        ss["gb_split"] = memo
    return memo[1]


def _stats(frame: pd.DataFrame, systems: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    overall = scorer_stats(frame["status"], frame["score"], frame["near_miss"])
    if len(systems) == 1:
        return overall, {systems[0]: overall}
    # positions_by_value, not groupby: a system may hold a lone surrogate ("\ud800" in JSON),
    # which pandas' string dtype, where groupby puts the keys, cannot hold
    by_system = {str(sys_): scorer_stats(frame["status"].iloc[at], frame["score"].iloc[at], frame["near_miss"].iloc[at])
                 for sys_, at in positions_by_value(frame["system"].to_numpy(dtype=object)).items()}
    return overall, by_system


def _part(key: str, scorer: str, frame: pd.DataFrame, thresholds: dict[str, float | None],
          systems: tuple[str, ...], run_summary: dict[str, Any]) -> dict[str, Any]:
    """One scorer's thresholded frame, counts and chart aggregates, memoized per threshold;
    without a threshold its counts are the run summary's (the same ``scorer_stats``)."""
    ss = st.session_state
    memo: dict[tuple, dict[str, Any]] = ss.setdefault("gb_parts", {})
    if any(k[0] != key for k in memo):
        for k in [k for k in memo if k[0] != key]:
            del memo[k]
    applies = scorer in thresholds
    mkey = (key, scorer, json.dumps(thresholds.get(scorer)) if applies else "-")
    if mkey not in memo:
        bins_key = (key, scorer, "bins")  # scores do not move with the threshold
        if bins_key not in memo:
            memo[bins_key] = {"bins": charts.score_bins(frame, [scorer])}
        if applies:
            ss["gb_threshold_count"] = ss.get("gb_threshold_count", 0) + 1
            frame = apply_thresholds(frame, {scorer: thresholds[scorer]})
            same = [k for k in memo if k[:2] == (key, scorer) and k[2] != "bins"]
            for k in same[:max(0, len(same) - THRESHOLDS_KEPT + 1)]:  # the last few thresholds tried
                del memo[k]
        if applies or scorer not in run_summary["graders"]:
            stats, by_system = _stats(frame, systems)
        else:
            stats = run_summary["graders"][scorer]
            by_system = {s: per[scorer] for s, per in run_summary["systems"].items() if scorer in per}
        near_rows = frame["near_miss"].to_numpy(dtype=object) != ""
        memo[mkey] = {
            "frame": frame, "stats": stats, "by_system": by_system,
            "near_head": frame[near_rows].head(NEAR_HEAD), "near_total": int(near_rows.sum()),
            "outcomes": charts.outcome_counts(frame),
            "near": charts.near_miss_counts(frame),
            "bins": memo[bins_key]["bins"],
        }
    return memo[mkey]


def scored_view(file: ResultsFile, mapping: Mapping[str, str | None], config: RunConfig) -> dict[str, Any] | None:
    """Score (cached), apply the thresholds (cached per grader), aggregate for the charts.

    Returns ``{"key", "view_key", "run", "config", "thresholds", "parts", "summary",
    "outcomes", "near", "bins", "violations", "sweeps"}`` or None while nothing can be
    shown. ``summary`` equals ``summarize`` over the thresholded frame (what
    ``gradeboard score`` writes), assembled from per-grader counts.
    """
    ss = st.session_state
    base, thresholds = split_thresholds(config)
    run = run_scoring(file, mapping, base)
    if run is None:
        return None
    key = score_key(ss.get("gb_file_hash") or "", mapping, base)
    view_key = _digest(key, thresholds, config.to_dict())
    view = ss.get("gb_view")
    if view is not None and view.get("view_key") == view_key:
        return view
    systems = tuple(run.summary["systems"])
    entries = {s: _part(key, s, frame, thresholds, systems, run.summary) for s, frame in _split(run, key).items()}
    summary = dict(run.summary)
    summary["graders"] = {s: entries[s]["stats"] if s in entries else c for s, c in run.summary["graders"].items()}
    summary["systems"] = {
        system: {s: entries[s]["by_system"].get(system, c) if s in entries else c for s, c in per.items()}
        for system, per in run.summary["systems"].items()
    }
    summary["config"] = {**config.to_dict(), "columns": mapping_dict(mapping)}
    old = view if view is not None and view.get("key") == key else {}
    frames = [e["near"] for e in entries.values() if len(e["near"])]
    view = {
        "view_key": view_key, "key": key, "run": run, "config": config, "thresholds": thresholds,
        "parts": {s: e["frame"] for s, e in entries.items()},
        "near_heads": [e["near_head"] for e in entries.values()],
        "near_total": sum(e["near_total"] for e in entries.values()),
        "summary": summary,
        "outcomes": pd.concat([e["outcomes"] for e in entries.values()], ignore_index=True),
        "near": (pd.concat(frames, ignore_index=True).sort_values(["rows", "code"], ascending=[False, True], kind="stable")
                 if frames else charts.near_miss_counts(run.scored.iloc[:0])),
        "bins": pd.concat([e["bins"] for e in entries.values()], ignore_index=True),
        # independent of thresholds: kept from the previous view of the same run
        "violations": old["violations"] if "violations" in old else charts.schema_violations(run.scored),
        "sweeps": old["sweeps"] if "sweeps" in old else _sweeps(run, config, _split(run, key).get("numeric")),
    }
    hay = ss.get("gb_haystack", {}).get(key)
    if hay is not None:
        view["haystack"] = hay  # the filter's search text of each case
    if "static_specs" in old:
        view["static_specs"] = old["static_specs"]
    if old:  # filter masks of the graders whose frame did not change
        view["masks"] = {s: m for s, m in old.get("masks", {}).items() if old["parts"].get(s) is view["parts"].get(s)}
    ss["gb_view"] = view
    return view


def full_scored(view: dict[str, Any]) -> pd.DataFrame:
    """The whole thresholded scored frame in the scored file's row order, every explanation
    filled in (built on demand: the downloads')."""
    if "_full" not in view:
        whole = pd.concat(list(view["parts"].values())).sort_index(kind="stable")
        view["_full"] = explain_rows(whole, view["run"].prepared.rows, view["config"])
    return view["_full"]


def _sweeps(run: ScoreRun, config: RunConfig, mine: pd.DataFrame | None) -> list[pd.DataFrame]:
    """The numeric tolerance sweeps; ``mine``: the run's numeric rows, whose details spare
    the sweep reading the numbers again."""
    numeric = next((g for g in config.graders if g.name == "numeric"), None)
    if numeric is None:
        return []
    p = numeric.resolved
    readings: dict = {}  # both sweeps read the same numbers (the rows the details do not cover)
    rows = run.prepared.rows
    details = [] if mine is None else mine["details"].tolist()
    aligned = (mine is not None and len(mine) == len(rows) and (mine["record"].to_numpy() == rows["record"].to_numpy()).all()
               and (mine["system"].to_numpy() == rows["system"].to_numpy()).all() and None not in details)
    return [
        numeric_tolerance_sweep(rows, read=p["read"], vary=vary, abs_tol=p["abs_tol"], rel_tol=p["rel_tol"],
                                readings=readings, numeric_details=details if aligned else None)
        for vary in ("abs_tol", "rel_tol")
    ]
