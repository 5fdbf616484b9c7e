"""Score a frame in chunks, over local worker processes when it is large: ``score_frame``
(the scored cells) and ``score_to_csv`` (the scored file, written as the chunks arrive),
with progress, cancel, and what each chunk sends back (``_Return``).

``map_chunks(task, rows, spans, args)`` runs ``task(rows.iloc[a:b], *args)`` for each
``(a, b)`` of ``spans`` in worker processes and yields ``(k, result)`` as chunks finish
(in any order). Start methods: ``"fork"`` (the rows reach the workers with the fork;
only ``(a, b)`` is pickled) and ``"forkserver"`` (each chunk's rows are sent; the workers
are forked from a clean server process, which a threaded host such as Streamlit needs).
Closing the generator early (an error, a cancel) cancels the chunks not yet started.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import ExitStack, closing
from dataclasses import dataclass, replace
from multiprocessing import get_context
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pandas as pd

from graders.config import RunConfig
from graders.engines import budget
from graders.scoring.batch import (
    CORPUS_SCORERS,
    EXTRA_COLUMNS,
    ROW_COLUMNS,
    _collector_paused,
    _file_part,
    _score_chunk,
    _scorer_statistics,
)
from graders.scoring.output import SCORED_COLUMNS, OutputError, _append_file, replaced_whole, replacement, scored_header
from graders.scoring.rows import ROW_FIELDS
from graders.scoring.summary import (
    CorpusStatistics,
    Tally,
    add_statistics,
    factorized,
)

CHUNK_ROWS = 4000
PARALLEL_MIN_ROWS = 20000
START_METHODS = ("fork", "forkserver")
# What the forkserver imports once, so each worker it forks starts with the graders loaded;
# not "__main__" (inside Streamlit that is the page script), and _forkserver_init stops the
# workers from running the parent's main module on their own.
PRELOAD = ["graders.scoring._forkserver_init", "graders", "graders.scoring.batch"]

# What forked workers run: set just before the pool forks, so the rows reach the children
# with the fork instead of being pickled; only (start, stop) travels.
_FORKED: tuple[Callable[..., Any], pd.DataFrame, tuple[Any, ...]] | None = None


def chunks(n: int, size: int) -> list[tuple[int, int]]:
    """``[(0, size), (size, 2 size), …]`` covering ``n`` rows."""
    return [(s, min(n, s + size)) for s in range(0, n, size)]


def default_workers() -> int:
    """The command line's default: one process per core, at most four."""
    return max(1, min(4, os.cpu_count() or 1))


def in_parallel(n: int, spans: Sequence[tuple[int, int]], workers: int) -> bool:
    """Whether ``n`` rows in these chunks are worth worker processes here."""
    return workers > 1 and n >= PARALLEL_MIN_ROWS and len(spans) >= 2 and os.name == "posix"


def check_start_method(start_method: str) -> None:
    if start_method not in START_METHODS:
        raise ValueError(f"unknown start method {start_method!r}; valid: {', '.join(START_METHODS)}")


def _run_span(a: int, b: int) -> Any:
    assert _FORKED is not None
    task, rows, args = _FORKED
    return task(rows.iloc[a:b], *args)


def die_with_parent() -> None:
    """A worker's first call: on Linux, the kernel ends it when the process that started it
    dies (``PR_SET_PDEATHSIG``), so a parent killed mid-run (SIGKILL, the OOM killer) leaves
    no worker blocked for good; elsewhere nothing."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no libc symbol: the worker lives as before
            pass


def warm_forkserver() -> None:
    """Start the forkserver (a fresh process importing the graders once) ahead of the first
    parallel scoring, so that scoring does not wait for it; safe from any thread."""
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    from multiprocessing import forkserver

    forkserver.ensure_running()


def map_chunks(
    task: Callable[..., Any], rows: pd.DataFrame, spans: Sequence[tuple[int, int]], args: tuple[Any, ...], *,
    workers: int, start_method: str = "fork", sent: pd.DataFrame | None = None,
) -> Iterator[tuple[int, Any]]:
    """``(k, task(rows.iloc[a:b], *args))`` for chunk ``k = (a, b)`` of ``spans``, as each
    finishes. ``task`` is a module-level function (the forkserver pickles it by name);
    ``sent``: the columns of ``rows`` a forkserver worker gets (default all)."""
    global _FORKED
    check_start_method(start_method)
    ctx = get_context(start_method)
    if start_method == "fork":
        _FORKED = (task, rows, args)
    else:
        ctx.set_forkserver_preload(PRELOAD)
        sent = rows if sent is None else sent
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=die_with_parent) as pool:
            if start_method == "fork":
                futures = {pool.submit(_run_span, a, b): k for k, (a, b) in enumerate(spans)}
            else:
                futures = {pool.submit(task, sent.iloc[a:b], *args): k for k, (a, b) in enumerate(spans)}
            try:
                for fut in as_completed(futures):
                    yield futures[fut], fut.result()
            finally:  # an error, a cancel, or the consumer stopping early
                for f in futures:
                    f.cancel()
    finally:
        _FORKED = None


Progress = Callable[[int, int], None]


Cancel = Callable[[], bool]


class Cancelled(Exception):
    """Scoring was stopped by the cancel callback."""


def _sent_columns(rows: pd.DataFrame, back: "_Return") -> list[str]:
    """The columns of the rows a forkserver worker needs for ``back``: the pairs, the
    assertions, the system for the corpus sums, the ids for the scored file's lines."""
    cols = ["refs", "output"] + [c for c in ("assertions", *ROW_FIELDS) if c in rows.columns]
    if back.csv:
        cols += ["item", "system", "repeat"]
    elif back.sums:
        cols.append("system")
    return cols


def _attach_rows(part: dict[str, Any], row_arrays: dict[str, np.ndarray], offset: int) -> dict[str, Any]:
    """A part back from a worker with its rows' cells (``ROW_COLUMNS``, the output when
    asked) looked up from the parent's rows by position."""
    at = part.pop("_pos") + offset
    for name, col in row_arrays.items():
        part[name] = col[at]
    return part


@dataclass(frozen=True)
class _Return:
    """What a scored chunk sends back to the parent (``_finish_part``, ``_file_part``).

    ``include_output``: the output column too. ``details``: every row's details (else only
    those of ``CHART_SCORERS``). ``explain``: False defers the explanations of the graders
    that can (``explain_rows``). ``slim``: leave out the cells the parent has
    (``ROW_COLUMNS``, the output; ``_attach_rows``). ``csv``: the chunk's lines of the
    scored file and its ``Tally`` columns instead of its cells (``_file_part``), the lines
    as pieces of bytes (True) or in a file in this directory. ``sums``: BLEU's and chrF's corpus
    statistics summed per (scorer, system) (``_statistics``) instead of their rows'
    details, where the rows travel (always with ``csv``).
    """

    include_output: bool = False
    details: bool = True
    csv: bool | str = False
    sums: bool = False
    run: str = ""  # the run's name: its patterns' time-outs add up across its chunks (engines.budget)
    explain: bool = True
    slim: bool = False


# ... and those the dashboard's charts read too: JSON Schema's violations by path and
# keyword, numeric's differences (the tolerance sweep need not read the numbers again).
CHART_ONLY_SCORERS = ("json_schema", "numeric")


CHART_SCORERS = CORPUS_SCORERS + CHART_ONLY_SCORERS


def _kept_details(part: dict[str, Any], keep_scorers: Sequence[str] = CORPUS_SCORERS) -> np.ndarray:
    """The details column with only these scorers' rows kept (None elsewhere)."""
    out = np.full(len(part["scorer"]), None, dtype=object)
    if not keep_scorers:
        return out
    keep = np.isin(part["scorer"], keep_scorers)
    if keep.any():
        out[keep] = part["details"][keep]
    return out


def _chunk_statistics(part: dict[str, Any]) -> CorpusStatistics:
    """BLEU's and chrF's corpus statistics of a scored chunk summed per (scorer, system)."""
    out: CorpusStatistics = {}
    scorers, systems, details = part["scorer"], part["system"], part["details"]
    for name in CORPUS_SCORERS:
        mine = np.flatnonzero(scorers == name)
        if len(mine):
            out.update(_scorer_statistics(name, systems[mine], details[mine]))
    return out


def _finish_part(part: dict[str, Any], back: _Return) -> dict[str, Any]:
    """Trim a scored chunk of ``score_frame`` for its trip back to the parent as ``back``
    says (the scored file's chunks are ``_file_part``'s)."""
    if back.sums:
        part["_statistics"] = _chunk_statistics(part)
    if not back.details:  # pickling a dict per row back to the parent costs more than scoring
        part["details"] = _kept_details(part, CHART_ONLY_SCORERS if back.sums else CHART_SCORERS)
    if back.slim:
        for c in ROW_COLUMNS + ("output",):
            part.pop(c, None)
    else:
        part.pop("_pos")
    return part


def _scored_part(rows: pd.DataFrame, config: RunConfig, back: _Return) -> dict[str, Any]:
    """One chunk scored and finished (``_score_chunk`` and ``_finish_part``, or for the scored
    file ``_file_part``), the collector paused."""
    with _collector_paused(), budget.chunk_of(back.run):
        if back.csv:
            return _file_part(rows, config, back)
        return _finish_part(_score_chunk(rows, config, back.include_output, back.explain), back)


def score_frame(
    rows: pd.DataFrame,
    config: RunConfig,
    *,
    include_output: bool = False,
    workers: int = 1,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    chunk_rows: int = CHUNK_ROWS,
    details: bool = True,
    start_method: str = "fork",
    statistics: CorpusStatistics | None = None,
    explain: bool = True,
) -> pd.DataFrame:
    """Score every row with every configured grader, the overall row and the row's assertions.

    ``workers``: processes for frames of at least ``PARALLEL_MIN_ROWS`` rows (POSIX only;
    the command line uses one per core, at most four). ``start_method``: ``"fork"`` (the
    rows reach the workers with the fork, nothing is pickled but the results) or
    ``"forkserver"`` (each chunk's rows are sent; the workers are forked from a clean
    server process, which is what a threaded host such as Streamlit needs: forking a
    process with other threads running can deadlock the child). ``progress(done,
    total)`` is called after each chunk; ``cancel()`` returning True stops between chunks
    with ``Cancelled``. ``details=False`` leaves the ``details`` column empty (None) when
    rows are scored in worker processes, except BLEU's and chrF's (the summary sums their
    statistics) and JSON Schema's and numeric's (the violations chart and the tolerance
    sweep read them). ``statistics``: a dict to fill with BLEU's and chrF's corpus
    statistics summed per (scorer, system) (pass it to ``summarize``); with it and
    ``details=False``, their rows' details stay in the workers too. ``explain=False``: the
    graders that can defer them (exact, normalized, contains, numeric) leave their
    explanation cells None and the facts behind them out of ``details``; verdicts, scores,
    near misses, errors and metadata are unchanged, and ``explain_rows`` fills the
    explanations of the rows a view shows (a view of 200,000 rows shows a thousand).
    """
    back = _Return(include_output=include_output, details=details, sums=statistics is not None, explain=explain,
                   run=os.urandom(8).hex())
    parts = _score_parts(rows, config, back, workers, progress, cancel, chunk_rows, start_method=start_method)
    if statistics is not None:
        for part in parts:
            add_statistics(statistics, part.pop("_statistics"))
    columns = list(SCORED_COLUMNS) + (["output"] if include_output else []) + list(EXTRA_COLUMNS)
    return _frame(parts, columns)


def score_to_csv(
    rows: pd.DataFrame,
    config: RunConfig,
    out: Any,
    *,
    include_output: bool = False,
    workers: int = 1,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    chunk_rows: int = CHUNK_ROWS,
    run: str | None = None,
) -> Tally:
    """Score and write the scored CSV (``write_scored``'s bytes) to ``out`` (a path, or a
    binary file) in one pass: each chunk's lines are formatted where it was scored, in the
    worker processes when there are several, and written as soon as the chunks before it
    are, so the parent never holds the whole file (to a path, workers leave their lines in
    files beside it, which the parent copies in file to file). A new path or a regular file
    is written to a temporary file beside it and renamed into place at the end: a failed or
    cancelled run leaves no half file; a link, a device or a pipe is written through
    (``replaced_whole``). Each chunk's lines are formatted straight from its graders' results
    (``_block_lines``), and no cell travels back: returns the ``Tally`` that
    ``summarize`` reads (statuses, scores and near misses as numbers, BLEU's and chrF's
    corpus statistics summed where the rows were scored, the unknown assertion kinds).
    ``run``: the run these rows are part of, whose patterns' time-outs add up in each
    process (``engines.budget``; default: these rows alone).
    """
    target = os.fspath(out) if isinstance(out, (str, os.PathLike)) else None
    files = ExitStack()  # closes (and on failure removes) the file and the spool, each whatever the others do
    beside = None  # the temporary file a new path or a regular file is written to
    try:
        if target is None:
            sink = out
        elif replaced_whole(target):
            sink = files.enter_context(replacement(target, binary=True))
            beside = sink.name
        else:  # a device, a pipe or a link: written through, as the shell's ">" would
            sink = files.enter_context(open(target, "wb"))
    except OSError as e:
        raise OutputError(e.errno, e.strerror) from e
    waiting: dict[int, bytes | list[bytes] | str] = {}
    written = 0

    def write(data: bytes | list[bytes] | str) -> None:
        if isinstance(data, bytes):
            sink.write(data)
        elif isinstance(data, list):  # a chunk's pieces, scored in this process
            sink.writelines(data)
        else:  # a chunk a worker wrote to the spool: copied file to file, then removed
            sink.flush()
            _append_file(data, sink.fileno())
            os.remove(data)

    statistics: CorpusStatistics = {}
    unknown: dict[str, int] = {}

    def emit(k: int, part: dict[str, Any]) -> None:
        nonlocal written
        add_statistics(statistics, part.pop("_statistics"))
        for kind, count in part.pop("_unknown").items():
            unknown[kind] = unknown.get(kind, 0) + count
        waiting[k] = part.pop("_csv") if "_csv" in part else part.pop("_csv_file")
        while written in waiting:
            write(waiting.pop(written))
            written += 1

    try:
        with files:
            spool = None  # where worker processes leave their chunks' lines: beside the target
            if beside is not None and workers > 1:
                head, tail = os.path.split(beside)
                spool = tempfile.mkdtemp(prefix=f"{tail}.", dir=head or ".")
                files.callback(shutil.rmtree, spool, ignore_errors=True)
            write(scored_header(include_output))
            back = _Return(include_output=include_output, details=False, csv=spool or True, sums=True,
                           run=run or os.urandom(8).hex())
            parts = _score_parts(rows, config, back, workers, progress, cancel, chunk_rows, on_part=emit)
    except OutputError:
        raise
    except OSError as e:  # writing, closing, renaming; or a worker's spool file
        raise OutputError(e.errno, e.strerror) from e
    return _tally(parts, factorized(rows["system"].to_numpy(dtype=object)), statistics, unknown)


def _tally(parts: list[dict[str, Any]], systems: tuple[np.ndarray, list[Any]], statistics: CorpusStatistics,
           unknown: dict[str, int]) -> Tally:
    """The file parts' summary columns end to end, as codes: each part's scorers' into the
    names of all (in order of first appearance), each scored row's system's (``systems``:
    the rows' system codes and names) found from its row."""
    def joined(name: str, dtype: Any) -> np.ndarray:
        return np.concatenate([part[name] for part in parts]) if parts else np.empty(0, dtype=dtype)

    names: dict[str, int] = {}
    scorers = []
    for part in parts:
        local = [names.setdefault(name, len(names)) for name in part["_scorers"]]
        scorers.append(np.array(local, dtype=np.int16)[part["scorer"]])
    row_systems, system_names = systems
    return Tally(
        scorer_codes=np.concatenate(scorers) if parts else np.empty(0, dtype=np.int16),
        scorer_names=tuple(names),
        system_codes=row_systems[joined("_pos", np.intp)],
        positions=joined("_pos", np.intp),
        system_names=tuple(system_names),
        status_codes=joined("status", np.int8),
        values=joined("values", np.float64),
        near=joined("near", np.bool_),
        no_answer=(np.concatenate([part["no_answer"] if "no_answer" in part else np.zeros(len(part["status"]), np.bool_)
                                   for part in parts]) if any("no_answer" in part for part in parts) else None),
        unknown_assertions=dict(sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))),
        statistics=statistics,
    )


def _frame(parts: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
    """The parts' columns end to end, one object column each. Joined as Series, the columns
    stay separate blocks: a frame built from a dict would copy them all into one 2-d block
    (a third of a second at 800,000 rows, while the run waits)."""
    merged = [
        pd.Series(np.concatenate([part[c] for part in parts]) if parts else np.empty(0, dtype=object), name=c, dtype=object)
        for c in columns
    ]
    return pd.concat(merged, axis=1)


def _score_parts(
    rows: pd.DataFrame, config: RunConfig, back: _Return, workers: int, progress: Progress | None,
    cancel: Cancel | None, chunk_rows: int, on_part: Callable[[int, dict[str, Any]], None] | None = None,
    start_method: str = "fork",
) -> list[dict[str, Any]]:
    """Every chunk's scored columns, in row order (see ``score_frame``), each trimmed as
    ``back`` says; ``on_part(k, part)`` sees chunk ``k`` as soon as it is scored (chunks may
    arrive out of order)."""
    check_start_method(start_method)
    n = len(rows)
    workers = max(1, int(workers or 1))
    spans = chunks(n, chunk_rows)
    parts: list[dict[str, Any] | None] = [None] * len(spans)
    done = 0
    if progress:
        progress(0, n)

    def arrived(k: int, part: dict[str, Any]) -> None:
        nonlocal done
        parts[k] = part
        if on_part:
            on_part(k, part)
        a, b = spans[k]
        done += b - a
        if progress:
            progress(done, n)

    if not in_parallel(n, spans, workers):
        serial = replace(back, details=True, csv=bool(back.csv))
        for k, (a, b) in enumerate(spans):
            if cancel and cancel():
                raise Cancelled()
            # In one process every detail stays (nothing is pickled) and the lines are not spooled.
            part = _scored_part(rows.iloc[a:b], config, serial)
            if back.csv:  # a file part's scored rows' rows, in the frame
                part["_pos"] += a
            arrived(k, part)
        return [part for part in parts if part]
    back = replace(back, slim=True)
    # what the parent attaches to each part by position (a file part keeps its positions)
    row_arrays = {} if back.csv else {c: rows[c].to_numpy(dtype=object) for c in ROW_COLUMNS}
    if back.include_output and not back.csv:
        row_arrays["output"] = rows["output"].to_numpy(dtype=object)
    sent = rows[_sent_columns(rows, back)] if start_method == "forkserver" else None
    with closing(map_chunks(_scored_part, rows, spans, (config, back), workers=workers,
                                     start_method=start_method, sent=sent)) as results:
        for k, part in results:
            if back.csv:
                part["_pos"] += spans[k][0]
            else:
                part = _attach_rows(part, row_arrays, spans[k][0])
            arrived(k, part)
            if cancel and cancel():
                raise Cancelled()
    return [part for part in parts if part]
