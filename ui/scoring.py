"""Scoring behind the Score page: cached per grader and its parameters, with a progress
bar and a Stop button.

Each grader is scored on its own over the prepared rows and kept as a ``Piece``
(``ui.present.pieces``) keyed by (file content, mapping, whether the graders need an
expected column, the grader's name and parameters with its answer extraction, thresholds
left out). Adding a grader scores that grader alone; removing one scores nothing; the
overall row is re-decided from the pass-or-fail graders' pieces; a threshold change
re-decides pass and fail from the scores (``apply_thresholds``) without regrading. The
result is the full run's, cell for cell (tests/test_page_cache.py).

Session state set here:

- ``gb_pieces``    {piece key: Piece}, least recently used first: the graders' and the
                   assertions' pieces; those beyond ``MAX_CACHED_ROWS`` scored rows (or
                   ``MAX_PIECES`` pieces) that the current configuration does not use are dropped
- ``gb_runs``      {score key: CachedRun}: the last ``MAX_RUNS`` assembled runs (cheap: they
                   share the pieces' frames)
- ``gb_prepared``  {prepare key: Prepared | error message} for the left-out report
- ``gb_view``      the thresholded view of the current run: per-grader frames, summary and
                   chart data, keyed by (score key, thresholds) — a filter change reuses it
- ``gb_job``       the scoring job in progress (a ``Job``), if any
- ``gb_stopped``   {score key: (done, total)} of runs the user stopped; not restarted
                   until "Score again" is pressed or the configuration changes
- ``gb_haystack``  {prepare key: each case's search text} for the text search
- ``gb_score_count`` how many times scoring actually ran (the tests and the bench read it)
- ``gb_graders_scored`` how many graders those runs scored, all told
- ``gb_threshold_count`` how many times thresholds were applied

Streamlit mechanics of the Stop button. Scoring runs in a background thread that calls
``score_frame`` with ``progress`` and ``cancel`` callbacks (a large file's chunks go to
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
from functools import cached_property
from typing import Any, Mapping

import pandas as pd
import streamlit as st

from graders.config import GraderConfig, RunConfig, mapping_dict
from graders.explore.sweeps import numeric_tolerance_sweep
from graders.readers.files import ResultsFile
from graders.scoring.batch import explain_rows
from graders.scoring.parallel import Cancelled, default_workers, warm_forkserver
from graders.scoring.rows import MappingError, Prepared, prepare
from graders.scoring.thresholds import apply_thresholds, split_thresholds
from ui import display
from ui.present import charts
from ui.present.pieces import (
    ASSERTIONS,
    Piece,
    binary_pieces,
    full_frame,
    merge_agreements,
    merge_summaries,
    overall_piece,
    piece_agreement,
    piece_summary,
    place,
    score_pieces,
)
from ui.present.search import haystack

MAX_RUNS = 3
# Scored rows kept in pieces the current configuration does not use: millions of live rows
# make every garbage collection slow (and cost memory), so the oldest are dropped beyond this.
MAX_CACHED_ROWS = 1_200_000
MAX_PIECES = 40
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
    """A scoring run in a background thread: ``graders`` (None: every grader of the
    configuration, and the assertions) scored into pieces (``result``), stored under
    ``keys`` {grader name or ``ASSERTIONS``: piece key} when it finishes."""

    key: str
    cancel: threading.Event = field(default_factory=threading.Event)
    done: int = 0
    total: int = 0
    result: dict[str, Piece] | None = None
    error: str | None = None
    cancelled: bool = False
    thread: threading.Thread | None = None
    started: float = field(default_factory=time.perf_counter)
    seconds: float | None = None
    haystack: pd.Series | None = None
    graders: tuple[GraderConfig, ...] | None = None
    assertions: bool = True
    keys: dict[str, str] = field(default_factory=dict)
    want_haystack: bool = True

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total


def _digest(*parts: Any) -> str:
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]  # a column name may hold one


def score_key(file_hash: str, mapping: Mapping[str, str | None], base: RunConfig) -> str:
    return _digest(file_hash, dict(mapping), base.to_dict())


def prepare_key(file_hash: str | None, mapping: Mapping[str, str | None], needs_expected: bool) -> str:
    """The key of the prepared rows: the file's content, the mapping, and whether the graders
    need an expected column (which decides the rows left out)."""
    return _digest(file_hash, dict(mapping), needs_expected)


def piece_keys(file_hash: str | None, mapping: Mapping[str, str | None], base: RunConfig) -> dict[str, str]:
    """{grader name: its piece's key}, and ``ASSERTIONS``: the key of the rows' assertions:
    (file digest, mapping, expected needed, grader name and parameters — the answer
    extraction among them — thresholds left out)."""
    pkey = prepare_key(file_hash, mapping, base.needs_expected)
    keys = {gc.name: _digest(pkey, gc.name, gc.to_dict(), (gc.to_dict().get("extract"),)) for gc in base.graders}
    keys[ASSERTIONS] = _digest(pkey, ASSERTIONS)
    return keys


# --------------------------------------------------------------------------- the left-out report


def prepared_for(file: ResultsFile, mapping: Mapping[str, str | None], needs_expected: bool) -> Prepared | str:
    """``prepare`` memoized by file content and mapping; a ``MappingError`` comes back as its message."""
    ss = st.session_state
    key = prepare_key(ss.get("gb_file_hash"), mapping, needs_expected)
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
    """The job's graders (every grader of ``base`` and the assertions when it names none)
    scored into pieces, in the background thread."""
    try:
        if prepared is None:
            prepared = prepare(file, mapping, needs_expected=base.needs_expected)
        graders = base.graders if job.graders is None else job.graders
        assertions = job.assertions if job.graders is not None else True
        job.total = len(prepared.rows)
        # The cheap graders' explanations are deferred: the views fill in those of the rows
        # they show (batch.explain_rows); building and carrying 800,000 of them would double
        # the wait. BLEU's and chrF's corpus statistics are summed in the workers.
        job.result = score_pieces(prepared.rows, graders, assertions, workers=WORKERS, progress=job.progress,
                                  cancel=job.cancel.is_set, details=False, start_method=START_METHOD, explain=False)
        if job.want_haystack:
            job.haystack = haystack(prepared.rows)  # the search text, built off the UI thread
    except Cancelled:
        job.cancelled = True
    except (MappingError, ValueError) as e:
        job.error = str(e)
    except Exception as e:  # never a traceback on screen
        job.error = f"{type(e).__name__}: {e}"
    finally:
        job.seconds = time.perf_counter() - job.started


def _start(key: str, file: ResultsFile, base: RunConfig, mapping: dict[str, str | None], prepared: Prepared,
           graders: tuple[GraderConfig, ...], assertions: bool, keys: dict[str, str], want_haystack: bool) -> Job:
    ss = st.session_state
    old = ss.get("gb_job")
    if old is not None and old.thread is not None and old.thread.is_alive():
        old.cancel.set()
    job = Job(key, total=len(prepared.rows), graders=graders, assertions=assertions, keys=keys,
              want_haystack=want_haystack)
    job.thread = threading.Thread(target=_work, args=(job, file, base, mapping, prepared), daemon=True,
                                  name=f"gb-score-{key[:8]}")
    ss["gb_job"] = job
    ss["gb_score_count"] = ss.get("gb_score_count", 0) + 1
    ss["gb_graders_scored"] = ss.get("gb_graders_scored", 0) + len(graders)
    job.thread.start()
    return job


class CachedRun:
    """A run assembled from cached pieces, in the place of ``graders.pipeline.ScoreRun``:
    ``file``, ``mapping``, ``prepared``, ``config`` (thresholds left out), ``pieces``
    {grader name, "overall", ``ASSERTIONS``: Piece}, ``keys`` (their cache keys); ``parts``
    the thresholdless rows of each scorer indexed by their place in the full scored frame,
    ``scored`` that frame and ``summary`` its summary (built when first asked for)."""

    def __init__(self, key: str, file: ResultsFile, mapping: Mapping[str, str | None], prepared: Prepared,
                 config: RunConfig, pieces: dict[str, Piece], keys: dict[str, str]) -> None:
        self.key, self.file, self.mapping, self.prepared, self.config = key, file, dict(mapping), prepared, config
        self.pieces, self.keys = pieces, keys
        self.parts = place(config, pieces, pieces.get("overall"), len(prepared.rows))

    @cached_property
    def scored(self) -> pd.DataFrame:
        return full_frame(self.parts)

    @cached_property
    def summary(self) -> dict[str, Any]:
        summary = merge_summaries([_summary(self, name, {}) for name in self.summary_order()], self.prepared.rows,
                                  left_out=self.prepared.left_out.to_dict(),
                                  config={**self.config.to_dict(), "columns": mapping_dict(self.mapping)})
        agreement = _agreement(self)
        if agreement:
            summary["harness_agreement"] = agreement
        return summary

    def summary_order(self) -> list[str]:
        """The pieces in the scored frame's scorer order (graders, overall, assertions)."""
        return [n for n in [*self.config.grader_names, "overall", ASSERTIONS] if n in self.pieces]

    def piece_of(self, scorer: str) -> Piece:
        return self.pieces[scorer] if scorer in self.pieces else self.pieces[ASSERTIONS]


def _touch(store: dict[str, Piece], key: str) -> Piece:
    """The stored piece, moved to the end (most recently used)."""
    piece = store.pop(key)
    store[key] = piece
    return piece


def _evict(store: dict[str, Piece], keep: set[str]) -> None:
    """Drop the least recently used pieces not in ``keep`` beyond ``MAX_PIECES`` pieces or
    ``MAX_CACHED_ROWS`` scored rows of pieces not kept."""
    spare = sum(len(p) for k, p in store.items() if k not in keep)
    for k in [k for k in store if k not in keep]:
        if spare <= MAX_CACHED_ROWS and len(store) <= MAX_PIECES:
            break
        spare -= len(store.pop(k))


def _wait(job: Job) -> None:
    """The progress bar and the Stop button while the job runs."""
    box = st.empty()
    with box.container():
        bar = st.progress(0.0, text="Scoring…")
        if st.button("Stop scoring", key="gb_stop", help="Stops between chunks of 4,000 rows."):
            job.cancel.set()
    while job.thread is not None and job.thread.is_alive():
        frac = job.done / job.total if job.total else 0.0
        what = f"{len(job.graders)} grader{'s' if len(job.graders) != 1 else ''}" if job.graders else "the assertions"
        bar.progress(min(1.0, frac), text=f"Scoring… {job.done:,} of {job.total:,} rows ({what})")
        time.sleep(POLL_SECONDS)
    box.empty()


def run_scoring(file: ResultsFile, mapping: Mapping[str, str | None], base: RunConfig) -> CachedRun | None:
    """The thresholdless run for (file, mapping, base), scoring only the graders (and
    assertions) not cached yet."""
    warm_workers()
    ss = st.session_state
    file_hash = ss.get("gb_file_hash") or ""
    key = score_key(file_hash, mapping, base)
    runs: dict[str, CachedRun] = ss.setdefault("gb_runs", {})
    store: dict[str, Piece] = ss.setdefault("gb_pieces", {})
    keys = piece_keys(file_hash, mapping, base)
    if key in runs and all(runs[key].keys.get(n) in store for n in runs[key].keys):
        for k in runs[key].keys.values():
            _touch(store, k)
        return runs[key]
    prepared = prepared_for(file, mapping, base.needs_expected)
    if isinstance(prepared, str):
        st.error(prepared)
        return None
    has_assertions = "assertions" in prepared.rows.columns
    missing = tuple(gc for gc in base.graders if keys[gc.name] not in store)
    need_assertions = has_assertions and keys[ASSERTIONS] not in store
    if missing or need_assertions:
        stopped: dict[str, tuple[int, int]] = ss.setdefault("gb_stopped", {})
        if key in stopped:
            done, total = stopped[key]
            st.warning(f"Scoring was stopped after {done:,} of {total:,} rows; nothing partial is shown.")
            if st.button("Score again", key="gb_score_again"):
                del stopped[key]
                st.rerun()
            return None
        pkey = prepare_key(file_hash, mapping, base.needs_expected)
        job: Job | None = ss.get("gb_job")
        if job is None or job.key != key or (job.thread is not None and not job.thread.is_alive() and job.result is None
                                             and not job.cancelled and job.error is None):
            wanted = {gc.name: keys[gc.name] for gc in missing}
            if need_assertions:
                wanted[ASSERTIONS] = keys[ASSERTIONS]
            job = _start(key, file, base, dict(mapping), prepared, missing, need_assertions, wanted,
                         want_haystack=pkey not in ss.get("gb_haystack", {}))
        _wait(job)
        if job.cancelled:
            stopped[key] = (job.done, job.total)
            ss["gb_job"] = None
            st.rerun()
        if job.error is not None:
            st.error(display.inert(f"Scoring failed: {job.error}"))
            return None
        for name, piece in (job.result or {}).items():
            store[job.keys[name]] = piece
        if job.haystack is not None:
            hay = ss.setdefault("gb_haystack", {})
            hay[pkey] = job.haystack
            while len(hay) > MAX_RUNS:
                hay.pop(next(iter(hay)))
        ss["gb_job"] = None
    used = {gc.name: keys[gc.name] for gc in base.graders}
    if has_assertions:
        used[ASSERTIONS] = keys[ASSERTIONS]
    pieces = {name: _touch(store, k) for name, k in used.items()}
    if base.overall:
        binaries = binary_pieces(base, pieces)
        okey = _digest(prepare_key(file_hash, mapping, base.needs_expected), "overall", base.overall,
                       [used[p.name] for p in binaries])
        if okey not in store:
            store[okey] = overall_piece(base.overall, binaries, prepared.rows)
        pieces["overall"] = _touch(store, okey)
        used["overall"] = okey
    _evict(store, set(used.values()))
    order = [n for n in [*base.grader_names, "overall", ASSERTIONS] if n in pieces]
    run = CachedRun(key, file, mapping, prepared, base, {n: pieces[n] for n in order}, used)
    runs.pop(key, None)
    runs[key] = run
    for k in [k for k, r in runs.items() if any(pk not in store for pk in r.keys.values())]:
        runs.pop(k)
    while len(runs) > MAX_RUNS:
        runs.pop(next(iter(runs)))
    return run


# --------------------------------------------------------------------------- thresholds and the view
#
# Everything a threshold can change — a scorer's pass/fail cells, its summary, its chart
# aggregates — is computed per (piece, scorer, threshold) and memoized on the piece
# (``Piece.memo``), on the piece's own rows (in row order): moving one grader's threshold
# re-applies that grader's threshold alone, and adding or removing another grader reuses
# them all. The view places each scorer's rows in the full scored frame (``CachedRun.parts``).


_NO_THRESHOLD = "-"


def _scorer_rows(piece: Piece, scorer: str) -> pd.DataFrame:
    """The piece's rows of ``scorer`` (an assertion piece holds several scorers)."""
    if piece.name != ASSERTIONS:
        return piece.frame
    memo = piece.memo.setdefault("rows", {})
    if scorer not in memo:
        memo[scorer] = piece.frame[piece.frame["scorer"].to_numpy(dtype=object) == scorer]
    return memo[scorer]


def _grader(run: CachedRun, name: str) -> GraderConfig | None:
    return next((gc for gc in run.config.graders if gc.name == name), None)


def _summary(run: CachedRun, name: str, thresholds: Mapping[str, Any]) -> dict[str, Any]:
    """``summarize`` of one piece (its rows thresholded as ``thresholds`` says), memoized."""
    piece = run.pieces[name]
    applies = name in thresholds
    mkey = ("summary", json.dumps(thresholds[name]) if applies else _NO_THRESHOLD)
    if mkey not in piece.memo:
        stale = [k for k in piece.memo if k[0] == "summary"]
        for k in stale[:max(0, len(stale) - THRESHOLDS_KEPT)]:
            del piece.memo[k]
        frame = _thresholded(piece, name, thresholds[name]) if applies else piece.frame
        piece.memo[mkey] = piece_summary(frame, run.prepared.rows, _grader(run, name), piece.statistics)
    return piece.memo[mkey]


def _agreement(run: CachedRun) -> dict[str, Any]:
    """The harness's verdict beside each pass-or-fail scorer (memoized on its piece)."""
    out = []
    for piece in [*binary_pieces(run.config, run.pieces), *([run.pieces["overall"]] if "overall" in run.pieces else [])]:
        if "agreement" not in piece.memo:
            piece.memo["agreement"] = piece_agreement(run.file, run.prepared.rows, piece.name, piece.frame)
        out.append(piece.memo["agreement"])
    return merge_agreements(out)


def _thresholded(piece: Piece, scorer: str, threshold: Any) -> pd.DataFrame:
    """The scorer's rows re-decided at ``threshold`` (memoized: the last few tried)."""
    ss = st.session_state
    memo = piece.memo.setdefault("thresholded", {})
    tkey = (scorer, json.dumps(threshold))
    if tkey not in memo:
        ss["gb_threshold_count"] = ss.get("gb_threshold_count", 0) + 1
        mine = [k for k in memo if k[0] == scorer]
        for k in mine[:max(0, len(mine) - THRESHOLDS_KEPT + 1)]:
            del memo[k]
        memo[tkey] = apply_thresholds(_scorer_rows(piece, scorer), {scorer: threshold})
    return memo[tkey]


def _entry(run: CachedRun, scorer: str, thresholds: Mapping[str, Any]) -> dict[str, Any]:
    """One scorer's thresholded rows (in row order), chart aggregates and near-miss rows, memoized."""
    piece = run.piece_of(scorer)
    applies = scorer in thresholds
    mkey = ("entry", scorer, json.dumps(thresholds.get(scorer)) if applies else _NO_THRESHOLD)
    if mkey not in piece.memo:
        bins_key = ("bins", scorer)  # scores do not move with the threshold
        if bins_key not in piece.memo:
            piece.memo[bins_key] = charts.score_bins(_scorer_rows(piece, scorer), [scorer])
        frame = _thresholded(piece, scorer, thresholds[scorer]) if applies else _scorer_rows(piece, scorer)
        stale = [k for k in piece.memo if k[:2] == ("entry", scorer)]
        for k in stale[:max(0, len(stale) - THRESHOLDS_KEPT + 1)]:
            del piece.memo[k]
        near_rows = frame["near_miss"].to_numpy(dtype=object) != ""
        piece.memo[mkey] = {
            "frame": frame, "near_rows": near_rows, "near_total": int(near_rows.sum()),
            "outcomes": charts.outcome_counts(frame), "near": charts.near_miss_counts(frame),
            "bins": piece.memo[bins_key],
        }
    return piece.memo[mkey]


def _placed(frame: pd.DataFrame, index: pd.Index) -> pd.DataFrame:
    out = frame.copy(deep=False)
    out.index = index
    return out


def scored_view(file: ResultsFile, mapping: Mapping[str, str | None], config: RunConfig) -> dict[str, Any] | None:
    """Score (cached per grader), apply the thresholds (cached per grader), aggregate for the charts.

    Returns ``{"key", "view_key", "run", "config", "thresholds", "parts", "bases",
    "summary", "outcomes", "near", "bins", "violations", "sweeps"}`` or None while nothing
    can be shown. ``parts``: each scorer's thresholded rows indexed by their place in the
    scored file; ``summary`` equals ``summarize`` over the thresholded frame (what
    ``gradeboard score`` writes), put together from per-scorer summaries.
    """
    ss = st.session_state
    base, thresholds = split_thresholds(config)
    run = run_scoring(file, mapping, base)
    if run is None:
        return None
    key = run.key
    view_key = _digest(key, thresholds, config.to_dict())
    view = ss.get("gb_view")
    if view is not None and view.get("view_key") == view_key and view.get("run") is run:
        return view
    entries = {s: _entry(run, s, thresholds) for s in run.parts}
    parts = {s: _placed(e["frame"], run.parts[s].index) for s, e in entries.items()}
    summaries = [_summary(run, name, thresholds) for name in run.summary_order()]
    summary = merge_summaries(summaries, run.prepared.rows, left_out=run.prepared.left_out.to_dict(),
                              config={**config.to_dict(), "columns": mapping_dict(mapping)})
    agreement = _agreement(run)
    if agreement:
        summary["harness_agreement"] = agreement
    old = view or {}
    frames = [e["near"] for e in entries.values() if len(e["near"])]
    statics = _statics(run, config)
    view = {
        "view_key": view_key, "key": key, "run": run, "config": config, "thresholds": thresholds,
        "parts": parts,
        "bases": {s: e["frame"] for s, e in entries.items()},
        "near_heads": [parts[s][e["near_rows"]].head(NEAR_HEAD) for s, e in entries.items()],
        "near_total": sum(e["near_total"] for e in entries.values()),
        "summary": summary,
        "outcomes": pd.concat([e["outcomes"] for e in entries.values()], ignore_index=True),
        "near": (pd.concat(frames, ignore_index=True).sort_values(["rows", "code"], ascending=[False, True], kind="stable")
                 if frames else charts.near_miss_counts(next(iter(parts.values())).iloc[:0])),
        "bins": pd.concat([e["bins"] for e in entries.values()], ignore_index=True),
        "violations": statics["violations"],  # independent of thresholds: memoized on their piece
        "sweeps": statics["sweeps"],
    }
    hay = ss.get("gb_haystack", {}).get(prepare_key(ss.get("gb_file_hash"), mapping, base.needs_expected))
    if hay is not None:
        view["haystack"] = hay  # the search text of each case
    if "static_specs" in old and old.get("violations") is view["violations"] and old.get("sweeps") is view["sweeps"]:
        view["static_specs"] = old["static_specs"]
    if old and old.get("run") is not None and old["run"].prepared is run.prepared:
        # filter masks of the scorers whose rows did not change (masks are positions in them)
        view["masks"] = {s: m for s, m in old.get("masks", {}).items() if old["bases"].get(s) is view["bases"].get(s)}
    ss["gb_view"] = view
    return view


def _statics(run: CachedRun, config: RunConfig) -> dict[str, Any]:
    """JSON Schema's violations and numeric's tolerance sweeps: independent of thresholds,
    memoized on their grader's piece."""
    out: dict[str, Any] = {"violations": None, "sweeps": []}
    schema = run.pieces.get("json_schema")
    if schema is not None:
        if "violations" not in schema.memo:
            schema.memo["violations"] = charts.schema_violations(schema.frame)
        out["violations"] = schema.memo["violations"]
    numeric = run.pieces.get("numeric")
    if numeric is not None:
        if "sweeps" not in numeric.memo:
            numeric.memo["sweeps"] = _sweeps(run, config, numeric.frame)
        out["sweeps"] = numeric.memo["sweeps"]
    return out


def full_scored(view: dict[str, Any]) -> pd.DataFrame:
    """The whole thresholded scored frame in the scored file's row order, every explanation
    filled in (built on demand: the downloads')."""
    if "_full" not in view:
        whole = pd.concat(list(view["parts"].values())).sort_index(kind="stable")
        view["_full"] = explain_rows(whole, view["run"].prepared.rows, view["config"])
    return view["_full"]


def _sweeps(run: CachedRun, config: RunConfig, mine: pd.DataFrame | None) -> list[pd.DataFrame]:
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
