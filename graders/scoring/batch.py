"""The batch layer: score prepared rows with a configuration, in SPEC §6's columns.

``score_frame(rows, config)`` takes the rows frame of ``graders.scoring.rows.prepare`` (columns
``record, item, system, repeat, refs, output``, optionally ``assertions``) and returns one
scored row per case × system × repeat × scorer. Results are identical to calling
``grade`` row by row: each grader runs over the column (the cheap graders in their column
form, which probes fails step by step over the column and skips pairs that cannot be near
misses), repeated pairs are graded once, and large frames are spread over forked worker
processes in chunks (progress is reported per chunk, and a cancel callback is checked
between chunks). A view that shows a few rows at a time can score with ``explain=False``
and fill in the explanations of the rows it shows with ``explain_rows``.
"""

from __future__ import annotations

import gc as collector
import json
import math
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from itertools import chain
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from graders.scoring.assertions import run_assertion, scorer_name
from graders.result import Block
from graders.config import OVERALL_GRADERS, GraderConfig, RunConfig
from graders.engines.jsonparse import shared_parses
from graders.registry import get_spec, run
from graders.result import STATUSES, Grade, threshold_words
from graders.scoring.summary import CorpusStatistics, Tally, add_statistics, factorized, positions_by_value, statistic_sums

SCORED_COLUMNS = ("item", "system", "repeat", "scorer", "score", "pass", "error", "near_miss", "explanation", "metadata")
# Beside SPEC §6's columns the frame keeps: status (the Grade status), record (the source
# row number, to join back to expected and output) and details (the Grade's details).
EXTRA_COLUMNS = ("status", "record", "details")

CHUNK_ROWS = 4000
# Graders that parse the output with jsonparse.parse (shared within a chunk when several run).
JSON_PARSERS = frozenset({"json_schema", "valid_json", "json_fields"})
PARALLEL_MIN_ROWS = 20000

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


class OutputError(OSError):
    """The scored file could not be written."""


class Cancelled(Exception):
    """Scoring was stopped by the cancel callback."""


def format_score(score: float | None) -> str:
    return "" if score is None or (isinstance(score, float) and math.isnan(score)) else repr(float(score))


_PASS_CELL = {True: "true", False: "false", None: ""}


def grade_cells(g: Grade) -> tuple[str, str, str, str]:
    """(score, pass, error, near_miss) cells of the scored file for one grade."""
    if g.status == "not_judged":
        err = "not-judged"
    elif g.status == "error":
        err = g.explanation
    else:
        err = ""
    return format_score(g.score), _PASS_CELL[g.passed], err, ";".join(g.near_miss) if g.near_miss else ""


def distinct_pairs(
    refs: Sequence[tuple[str, ...]], outputs: Sequence[str]
) -> tuple[Sequence[tuple[str, ...]], Sequence[str], list[int] | None]:
    """The distinct (refs, output) pairs of a column, and for each row the index of its
    pair (None when every pair is distinct): graders are pure functions of the pair, so
    repeated pairs (repeats, common short answers) are graded once."""
    index: dict[tuple[tuple[str, ...], str], int] = {}
    inverse = [index.setdefault(key, len(index)) for key in zip(refs, outputs)]
    if len(index) == len(inverse):
        return refs, outputs, None
    return [k[0] for k in index], [k[1] for k in index], inverse


def grade_column(gc: GraderConfig, refs: Sequence[tuple[str, ...]], outputs: Sequence[str]) -> Block:
    """One grader over a column of pairs: the grader's column form when it has one, else
    ``run`` row by row (same results either way), each distinct pair graded once."""
    urefs, uouts, inverse = distinct_pairs(refs, outputs)
    block = _grade_unique(gc, urefs, uouts)
    return block if inverse is None else block.take(inverse)


def _grade_unique(gc: GraderConfig, refs: Sequence[tuple[str, ...]], outputs: Sequence[str], explain: bool = True) -> Block:
    spec = get_spec(gc.name)
    if spec.batch is not None:
        if not explain and spec.defers_explanations:
            return spec.batch(refs, outputs, explain=False, **gc.resolved)
        return spec.batch(refs, outputs, **gc.resolved)
    params = gc.resolved
    return Block.from_grades([run(spec, r, o, params) for r, o in zip(refs, outputs)])


def overall_grade(statuses: Sequence[str], rule: str) -> Grade:
    """The overall row from the statuses of the selected pass-or-fail graders (SPEC §5)."""
    k = len(statuses)
    undecided = sum(s in ("not_judged", "error") for s in statuses)
    if rule == "all":
        if "fail" in statuses:
            return Grade("fail", False, 0.0, f"{statuses.count('fail')} of {k} pass-or-fail graders failed (rule: all must pass).")
        if undecided:
            return Grade("not_judged", None, None, f"Undecided: none failed, but {undecided} of {k} were not judged (rule: all must pass).")
        return Grade("pass", True, 1.0, f"All {k} pass-or-fail graders passed (rule: all must pass).")
    if "pass" in statuses:
        return Grade("pass", True, 1.0, f"{statuses.count('pass')} of {k} pass-or-fail graders passed (rule: any passes).")
    if undecided:
        return Grade("not_judged", None, None, f"Undecided: none passed, but {undecided} of {k} were not judged (rule: any passes).")
    return Grade("fail", False, 0.0, f"None of the {k} pass-or-fail graders passed (rule: any passes).")


def _overall_block(blocks: Sequence[Block], rule: str, n: int) -> Block:
    if not blocks:
        b = Block(n)
        for i in range(n):
            b.set(i, Grade("error", None, None, NO_BINARY_GRADER))
        return b
    # Few distinct status combinations: decide each once.
    memo: dict[tuple[str, ...], Grade] = {}
    b = Block(n)
    for i, key in enumerate(zip(*(blk.status for blk in blocks))):
        g = memo.get(key)
        if g is None:
            g = memo[key] = overall_grade(list(key), rule)
        b.set(i, g)
    return b


NO_BINARY_GRADER = "no-binary-grader"


class _Cells:
    """Scored-file cells for a list of blocks, with one metadata builder per scorer."""

    def __init__(self) -> None:
        self.cols: dict[str, list[Any]] = {c: [] for c in ("scorer", "score", "pass", "error", "near_miss", "explanation", "metadata", "status", "details")}

    def add(self, scorer: str, block: Block, base_meta: dict[str, Any]) -> None:
        c = self.cols
        n = len(block)
        c["scorer"].append([scorer] * n)
        c["score"].append(["" if x is None else repr(float(x)) for x in block.score])
        c["pass"].append([_PASS_CELL[p] for p in block.passed])
        c["error"].append([
            "" if st in ("pass", "fail", "scored") else ("not-judged" if st == "not_judged" else
            (NO_BINARY_GRADER if ex == NO_BINARY_GRADER else ex))
            for st, ex in zip(block.status, block.explanation)
        ])
        c["near_miss"].append([";".join(x) if x else "" for x in block.near_miss])
        c["explanation"].append(block.explanation)
        c["metadata"].append(_metadata_texts(block, base_meta))
        c["status"].append(block.status)
        c["details"].append(block.details)


def _metadata_texts(block: Block, base_meta: dict[str, Any]) -> list[str]:
    """Each row's metadata cell: the scorer's parameters, with the row's signature when its
    details hold one; each distinct text made once, and shared by its rows."""
    metas: dict[Any, str] = {}
    col = []
    for d in block.details:
        sig = d.get("signature") if d else None
        m = metas.get(sig)
        if m is None:
            meta = dict(base_meta)
            if sig:
                meta["signature"] = sig
            m = metas[sig] = json.dumps(meta, ensure_ascii=False, sort_keys=True)
        col.append(m)
    return col


def _objects(values: Iterable[Any], n: int) -> np.ndarray:
    """A 1-d object array of ``n`` values (a tuple or dict stays one cell)."""
    return np.fromiter(values, dtype=object, count=n)


def _interleave(parts: list[list[Any]], n: int) -> np.ndarray:
    """k columns of n cells -> n*k cells, row-major (row 0's k scorers first)."""
    arr = np.empty((n, len(parts)), dtype=object)
    for j, p in enumerate(parts):
        arr[:, j] = _objects(p, n)
    return arr.ravel()


@contextmanager
def _collector_paused() -> Any:
    """The cyclic garbage collector off while a chunk is scored: scoring makes no cycles,
    and the collections its hundreds of thousands of small objects set off would walk every
    live object again and again (a fifth of the time). Whoever turned it off turns it
    back on, so overlapping chunks in threads leave it on when the last ends."""
    was_on = collector.isenabled()
    collector.disable()
    try:
        yield
    finally:
        if was_on:
            collector.enable()


# A chunk's scorers: (name, its block, the parameters its metadata starts from).
Blocks = list[tuple[str, Block, dict[str, Any]]]
# A chunk's assertions run: (row in the chunk, scorer, grade, metadata).
Assertions = list[tuple[int, str, Grade, dict[str, Any]]]


def _chunk_blocks(rows: pd.DataFrame, config: RunConfig, explain: bool = True) -> Blocks:
    """Each scorer's block over one chunk's rows, in the scored file's order (the graders,
    then the overall row), with the parameters its metadata starts from."""
    refs = list(rows["refs"])
    outputs = list(rows["output"])
    blocks: Blocks = []
    binaries = []
    urefs, uouts, inverse = distinct_pairs(refs, outputs)
    # Several JSON graders parse the same outputs: each text is parsed once per chunk.
    shared = shared_parses() if sum(gc.name in JSON_PARSERS for gc in config.graders) > 1 else nullcontext()
    with shared:
        for gc in config.graders:
            block = _grade_unique(gc, urefs, uouts, explain)
            if inverse is not None:
                block = block.take(inverse)
            blocks.append((gc.name, block, {k: (list(v) if isinstance(v, tuple) else v) for k, v in gc.resolved.items()}))
            if gc.name in OVERALL_GRADERS:
                binaries.append((gc.name, block))
    if config.overall:
        block = _overall_block([b for _, b in binaries], config.overall, len(outputs))
        blocks.append(("overall", block, {"rule": config.overall, "graders": [name for name, _ in binaries]}))
    return blocks


def _chunk_assertions(rows: pd.DataFrame) -> Assertions:
    """The chunk's per-row assertions run: (row in the chunk, scorer, grade, metadata) in
    row order, each row's in its order."""
    if "assertions" not in rows.columns or not any(rows["assertions"]):
        return []
    out = []
    for i, (assertions, refs, output) in enumerate(zip(rows["assertions"], rows["refs"], rows["output"])):
        for j, a in enumerate(assertions or ()):
            g, meta = run_assertion(a, refs, output)
            out.append((i, scorer_name(j, str(a.get("type", ""))), g, meta))
    return out


def _meta_text(meta: dict[str, Any]) -> str:
    return json.dumps(meta, ensure_ascii=False, sort_keys=True, default=str)


def _after_their_rows(pos: np.ndarray, extra_rows: Sequence[int] | np.ndarray) -> np.ndarray:
    """The order that puts entries for ``extra_rows`` (appended after the grid, whose row
    of each entry is ``pos``) after their row's entries: a stable sort by row."""
    return np.argsort(np.concatenate([pos, np.asarray(extra_rows, dtype=pos.dtype)]), kind="stable")


def _score_chunk(rows: pd.DataFrame, config: RunConfig, include_output: bool, explain: bool = True) -> dict[str, np.ndarray]:
    """Score one chunk of rows; return the scored columns as object arrays (row-major by case)."""
    n = len(rows)
    cells = _Cells()
    for scorer, block, base_meta in _chunk_blocks(rows, config, explain):
        cells.add(scorer, block, base_meta)
    k = len(cells.cols["scorer"])
    out: dict[str, Any] = {name: _interleave(parts, n) for name, parts in cells.cols.items()}
    pos = np.repeat(np.arange(n), k)  # each scored row's row in the chunk

    # Per-row assertions: extra scorers on their row, placed after the row's graders.
    extra = _chunk_assertions(rows)
    if extra:
        order = _after_their_rows(pos, [i for i, *_ in extra])
        added: dict[str, list[Any]] = {name: [] for name in out}
        for _, scorer, g, meta in extra:
            score, passed, err, near = grade_cells(g)
            for name, value in (
                ("scorer", scorer), ("score", score), ("pass", passed), ("error", err), ("near_miss", near),
                ("explanation", g.explanation), ("metadata", _meta_text(meta)), ("status", g.status), ("details", dict(g.details)),
            ):
                added[name].append(value)
        out = {name: np.concatenate([col, _objects(added[name], len(extra))])[order] for name, col in out.items()}
        pos = np.concatenate([pos, [i for i, *_ in extra]])[order]
    out["_pos"] = pos
    # The row's own cells: only the columns the chunk was sent (``_sent_columns``); the
    # parent fills in the rest from ``_pos`` (``_attach_rows``).
    for name in ROW_COLUMNS:
        if name in rows.columns:
            out[name] = _objects(rows[name], n)[pos]
    if include_output:
        out["output"] = _objects(rows["output"], n)[pos]
    return out


# A Tally's statuses travel as codes into result.STATUSES.
_STATUS_CODE = {name: code for code, name in enumerate(STATUSES)}
_SCORE_CELLS: dict[Any, str] = {None: "", 0.0: "0.0", 1.0: "1.0"}


def _block_lines(prefix: Sequence[str], scorer: str, block: Block, base_meta: dict[str, Any],
                 suffix: Sequence[str]) -> list[str]:
    """Each row's line of the scored file for one scorer's block, without its line end:
    the row's own cells (``prefix``), then the scorer, score, pass, error, near_miss,
    explanation and metadata cells as ``csv_cell`` quotes them, then ``suffix`` (the
    output cell after a comma, or ""). The cells the ``_Cells`` of ``score_frame`` hold,
    formatted in one pass over the block; what repeats is formatted once (the metadata
    cells, the pass, error and near-miss cells per status, verdict and near miss)."""
    sc = csv_cell(scorer)
    quoted: dict[str, str] = {}  # each distinct metadata text quoted once
    heads: dict[tuple[Any, ...], str] = {}
    texts = block.explanation
    if None in texts:  # a deferred explanation: an empty cell, as csv_cell writes None
        texts = ["" if x is None else x for x in texts]
    lines: list[str] = []
    add = lines.append
    for p, st, score, ok, ex, near, m, sf in zip(
        prefix, block.status, block.score, block.passed, texts, block.near_miss, _metadata_texts(block, base_meta), suffix
    ):
        mc = quoted.get(m)
        if mc is None:
            mc = quoted[m] = csv_cell(m)
        sv = _SCORE_CELLS.get(score)
        if sv is None:
            sv = repr(float(score))
        if st == "error":  # the error cell is the explanation
            mid = f"{_PASS_CELL[ok]},{csv_cell(ex)},{csv_cell(';'.join(near)) if near else ''}"
        else:
            mid = heads.get((st, ok, near))
            if mid is None:
                err = "not-judged" if st == "not_judged" else ""
                mid = heads[st, ok, near] = f"{_PASS_CELL[ok]},{err},{csv_cell(';'.join(near)) if near else ''}"
        if _QUOTE in ex:
            add(f'{p},{sc},{sv},{mid},"{ex.replace(_QUOTE, _QUOTES)}",{mc}{sf}')
        elif "," in ex or "\n" in ex or "\r" in ex:
            add(f'{p},{sc},{sv},{mid},"{ex}",{mc}{sf}')
        else:
            add(f"{p},{sc},{sv},{mid},{ex},{mc}{sf}")
    return lines


def _row_cells(rows: pd.DataFrame, include_output: bool) -> tuple[list[str], list[str]]:
    """Each row's cells that begin its lines (item, system, repeat) and end them (the
    output after a comma, when asked; else "")."""
    cells = [_csv_column(list(rows[c])) for c in ("item", "system", "repeat")]
    prefix = list(map(",".join, zip(*cells)))
    suffix = ["," + c for c in _csv_column(list(rows["output"]))] if include_output else [""] * len(rows)
    return prefix, suffix


# Rows whose lines are joined and encoded at a time: a piece of about a megabyte stays in
# the cache and in memory the allocator reuses, where one text for the whole chunk would
# be made (in fresh pages, twice its size when one character is not Latin-1) and copied.
_PIECE_ROWS = 1000


def _chunk_lines(rows: pd.DataFrame, blocks: Blocks, extra: Assertions,
                 include_output: bool) -> list[bytes]:
    """The chunk's lines of the scored file, each row's scorers in turn and its assertions
    after them, as UTF-8 (lone surrogates as backslash escapes), in pieces of
    ``_PIECE_ROWS`` rows, each ending with its last line's LF."""
    prefix, suffix = _row_cells(rows, include_output)
    lines = [_block_lines(prefix, scorer, block, meta, suffix) for scorer, block, meta in blocks]
    if extra:
        added = []
        for i, scorer, g, meta in extra:
            score, passed, err, near = grade_cells(g)
            cells = (scorer, score, passed, err, near, g.explanation, _meta_text(meta))
            added.append(prefix[i] + "," + ",".join(map(csv_cell, cells)) + suffix[i])
        if lines:  # on the row's last grader's line, after it
            last = lines[-1]
            for (i, *_), line in zip(extra, added):
                last[i] = last[i] + "\n" + line
        else:
            lines = [added]
    if not lines or not lines[0]:
        return []
    return [
        "\n".join(chain(chain.from_iterable(zip(*(col[a:a + _PIECE_ROWS] for col in lines))), ("",)))
        .encode("utf-8", "backslashreplace")
        for a in range(0, len(lines[0]), _PIECE_ROWS)
    ]


def _grid(columns: Sequence[Sequence[Any]], dtype: Any, n: int) -> np.ndarray:
    """k columns of n values -> n*k values, row-major (``_interleave`` for numbers)."""
    if not columns:
        return np.empty(0, dtype=dtype)
    return np.stack([np.asarray(c, dtype=dtype).reshape(n) for c in columns], axis=1).ravel()


def _tally_columns(n: int, blocks: Blocks, extra: Assertions) -> dict[str, Any]:
    """A chunk's ``Tally`` columns in the scored frame's order: the scorers as codes into
    ``_scorers``, the statuses as codes into ``STATUSES``, the score values (NaN for
    none), near miss or not, and ``_pos`` (each scored row's row in the chunk); the
    unknown assertion kinds counted (``_unknown``)."""
    k = len(blocks)
    names = [scorer for scorer, _, _ in blocks]
    part: dict[str, Any] = {
        "scorer": np.tile(np.arange(k, dtype=np.int16), n),
        "status": _grid([[_STATUS_CODE[x] for x in b.status] for _, b, _ in blocks], np.int8, n),
        "values": _grid([b.score for _, b, _ in blocks], np.float64, n),  # None -> NaN
        "near": _grid([[bool(x) for x in b.near_miss] for _, b, _ in blocks], np.bool_, n),
        "_pos": np.repeat(np.arange(n), k),
    }
    unknown: dict[str, int] = {}
    if extra:
        code: dict[str, int] = {}
        for _, scorer, _, _ in extra:
            code.setdefault(scorer, len(names) + len(code))
        names += list(code)
        more = {
            "scorer": np.array([code[scorer] for _, scorer, _, _ in extra], dtype=np.int16),
            "status": np.array([_STATUS_CODE[g.status] for _, _, g, _ in extra], dtype=np.int8),
            "values": np.array([g.score for _, _, g, _ in extra], dtype=np.float64),
            "near": np.array([bool(g.near_miss) for _, _, g, _ in extra], dtype=np.bool_),
            "_pos": np.array([i for i, *_ in extra], dtype=part["_pos"].dtype),
        }
        order = _after_their_rows(part["_pos"], more["_pos"])
        part = {c: np.concatenate([col, more[c]])[order] for c, col in part.items()}
        for _, _, g, meta in extra:
            if g.status == "error" and meta.get("unsupported"):
                unknown[meta["kind"]] = unknown.get(meta["kind"], 0) + 1
    part["_scorers"] = names
    part["_unknown"] = unknown
    return part


def _file_part(rows: pd.DataFrame, config: RunConfig, back: "_Return") -> dict[str, Any]:
    """One chunk scored for the scored file: its lines, formatted here (``_chunk_lines``),
    as pieces of bytes (``_csv``) or in a new file in the directory ``back.csv`` (``_csv_file``:
    the parent copies it into the scored file in the kernel, and the bytes never cross a
    pipe); what the summary reads of its scored rows (``_tally_columns``: codes, numbers
    and each scored row's row in the chunk, by which the parent finds its system); BLEU's
    and chrF's statistics summed per (scorer, system) (``_statistics``). No cell of the
    scored rows goes back."""
    blocks = _chunk_blocks(rows, config)
    extra = _chunk_assertions(rows)
    pieces = _chunk_lines(rows, blocks, extra, back.include_output)
    part = _tally_columns(len(rows), blocks, extra)
    systems = rows["system"].to_numpy(dtype=object)
    sums: CorpusStatistics = {}
    part["_statistics"] = sums
    for scorer, block, _ in blocks:
        if scorer in CORPUS_SCORERS:
            sums.update(_scorer_statistics(scorer, systems, _objects(block.details, len(rows))))
    if isinstance(back.csv, str):
        fd, path = tempfile.mkstemp(dir=back.csv, suffix=".csv")
        with open(fd, "wb") as f:
            f.writelines(pieces)
        part["_csv_file"] = path
    else:
        part["_csv"] = pieces
    return part


# The scored rows' cells that are their source row's: a worker leaves them out of what it
# sends back (the parent has the rows), and is sent only those it needs.
ROW_COLUMNS = ("item", "system", "repeat", "record")


def _sent_columns(rows: pd.DataFrame, back: "_Return") -> list[str]:
    """The columns of the rows a forkserver worker needs for ``back``: the pairs, the
    assertions, the system for the corpus sums, the ids for the scored file's lines."""
    cols = ["refs", "output"] + (["assertions"] if "assertions" in rows.columns else [])
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


def _chunks(n: int, size: int) -> list[tuple[int, int]]:
    return [(s, min(n, s + size)) for s in range(0, n, size)]


def default_workers() -> int:
    """The command line's default: one process per core, at most four."""
    return max(1, min(4, os.cpu_count() or 1))


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
    explain: bool = True
    slim: bool = False


# What forked workers score: set just before the pool forks, so the rows reach the
# children with the fork instead of being pickled; only (start, stop) travels.
_FORKED: tuple[pd.DataFrame, RunConfig, _Return] | None = None


# Scorers whose details the summary reads: their per-row statistics sum to the corpus figure.
CORPUS_SCORERS = ("bleu", "chrf")
# ... and those the dashboard's charts read too: JSON Schema's violations by path and
# keyword, numeric's differences (the tolerance sweep need not read the numbers again).
CHART_ONLY_SCORERS = ("json_schema", "numeric")
CHART_SCORERS = CORPUS_SCORERS + CHART_ONLY_SCORERS

START_METHODS = ("fork", "forkserver")
# What the forkserver imports once, so each worker it forks starts with the graders loaded;
# not "__main__" (inside Streamlit that is the page script), and _forkserver_init stops the
# workers from running the parent's main module on their own.
_PRELOAD = ["graders.scoring._forkserver_init", "graders", "graders.scoring.batch"]


def _kept_details(part: dict[str, Any], keep_scorers: Sequence[str] = CORPUS_SCORERS) -> np.ndarray:
    """The details column with only these scorers' rows kept (None elsewhere)."""
    out = np.full(len(part["scorer"]), None, dtype=object)
    if not keep_scorers:
        return out
    keep = np.isin(part["scorer"], keep_scorers)
    if keep.any():
        out[keep] = part["details"][keep]
    return out


def _scorer_statistics(name: str, systems: np.ndarray, details: np.ndarray) -> CorpusStatistics:
    """One corpus scorer's (BLEU's or chrF's) statistics summed per system, from its rows'
    systems and details (object arrays)."""
    return {(name, system): (len(at), statistic_sums(name, details[at])) for system, at in positions_by_value(systems).items()}


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


def _score_span(a: int, b: int) -> dict[str, Any]:
    assert _FORKED is not None
    rows, config, back = _FORKED
    return _scored_part(rows.iloc[a:b], config, back)


def _scored_part(rows: pd.DataFrame, config: RunConfig, back: _Return) -> dict[str, Any]:
    """One chunk scored and finished (``_score_chunk`` and ``_finish_part``, or for the scored
    file ``_file_part``), the collector paused."""
    with _collector_paused():
        if back.csv:
            return _file_part(rows, config, back)
        return _finish_part(_score_chunk(rows, config, back.include_output, back.explain), back)


def _score_rows(rows: pd.DataFrame, config: RunConfig, back: _Return) -> dict[str, Any]:
    """A forkserver worker's task: the chunk's rows travel with it (nothing is inherited)."""
    return _scored_part(rows, config, back)


def warm_forkserver() -> None:
    """Start the forkserver (a fresh process importing the graders once) ahead of the first
    parallel scoring, so that scoring does not wait for it; safe from any thread."""
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    from multiprocessing import forkserver

    forkserver.ensure_running()


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
    back = _Return(include_output=include_output, details=details, sums=statistics is not None, explain=explain)
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
    """
    header = list(SCORED_COLUMNS) + (["output"] if include_output else [])
    target = os.fspath(out) if isinstance(out, (str, os.PathLike)) else None
    tmp = None
    try:
        if target is None:
            sink = out
        elif replaced_whole(target):
            # Beside the target, so the rename stays on one file system; "x" refuses a clash.
            tmp = f"{target}.{os.getpid()}-{os.urandom(4).hex()}.part"
            sink = open(tmp, "xb")
        else:  # a device, a pipe or a link: written through, as the shell's ">" would
            sink = open(target, "wb")
    except OSError as e:
        raise OutputError(e.errno, e.strerror) from e
    closing = sink if target is not None and tmp is None else None
    spool = None  # where worker processes leave their chunks' lines: beside the target
    waiting: dict[int, bytes | list[bytes] | str] = {}
    written = 0

    def write(data: bytes | list[bytes] | str) -> None:
        try:
            if isinstance(data, bytes):
                sink.write(data)
            elif isinstance(data, list):  # a chunk's pieces, scored in this process
                sink.writelines(data)
            else:  # a chunk a worker wrote to the spool: copied file to file, then removed
                sink.flush()
                _append_file(data, sink.fileno())
                os.remove(data)
        except OSError as e:
            raise OutputError(e.errno, e.strerror) from e

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
        if tmp is not None and workers > 1:
            head, tail = os.path.split(tmp)
            try:
                spool = tempfile.mkdtemp(prefix=f"{tail}.", dir=head or ".")
            except OSError as e:
                raise OutputError(e.errno, e.strerror) from e
        write((",".join(map(csv_cell, header)) + "\n").encode("utf-8"))
        back = _Return(include_output=include_output, details=False, csv=spool or True, sums=True)
        parts = _score_parts(rows, config, back, workers, progress, cancel, chunk_rows, on_part=emit)
        if tmp is not None:
            try:
                sink.close()
                os.replace(tmp, target)
            except OSError as e:
                raise OutputError(e.errno, e.strerror) from e
            tmp = None
        if closing is not None:
            try:
                closing.close()
            except OSError as e:
                raise OutputError(e.errno, e.strerror) from e
    finally:
        if tmp is not None:  # failed or cancelled: the target stays as it was
            sink.close()
            try:
                os.remove(tmp)
            except OSError:
                pass
        if closing is not None and not closing.closed:
            try:
                closing.close()
            except OSError:
                pass
        if spool is not None:
            shutil.rmtree(spool, ignore_errors=True)
    return _tally(parts, factorized(rows["system"].to_numpy(dtype=object)), statistics, unknown)


def replaced_whole(path: str) -> bool:
    """Whether the scored file at ``path`` is written to a temporary file beside it and
    renamed into place (a failed run leaves the old file as it was): for a new path or a
    regular file. Anything else is written through in place: renaming over a symbolic
    link would replace the link, over ``/dev/stdout`` (a link too, as root) the device
    entry, and a named pipe's reader would never see the file."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:  # a new path; or one that cannot be looked at, which open will say why
        return True


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
        system_names=tuple(system_names),
        status_codes=joined("status", np.int8),
        values=joined("values", np.float64),
        near=joined("near", np.bool_),
        unknown_assertions=dict(sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))),
        statistics=statistics,
    )


def _append_file(path: str, fd: int) -> None:
    """Append the file at ``path`` to the open file ``fd`` at its offset, in the kernel
    (``copy_file_range``) where it can, by reading and writing where it cannot."""
    with open(path, "rb", buffering=0) as src:
        try:
            while os.copy_file_range(src.fileno(), fd, 1 << 30):
                pass
            return
        except (AttributeError, OSError):  # no such call here, or not between these files
            pass
        with open(fd, "wb", closefd=False) as dst:  # on from where the kernel copy stopped
            shutil.copyfileobj(src, dst)


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
    global _FORKED
    if start_method not in START_METHODS:
        raise ValueError(f"unknown start method {start_method!r}; valid: {', '.join(START_METHODS)}")
    n = len(rows)
    workers = max(1, int(workers or 1))
    spans = _chunks(n, chunk_rows)
    parts: list[dict[str, Any] | None] = [None] * len(spans)
    done = 0
    if progress:
        progress(0, n)
    if workers == 1 or n < PARALLEL_MIN_ROWS or len(spans) < 2 or os.name != "posix":
        serial = replace(back, details=True, csv=bool(back.csv))
        for k, (a, b) in enumerate(spans):
            if cancel and cancel():
                raise Cancelled()
            # In one process every detail stays (nothing is pickled) and the lines are not spooled.
            parts[k] = _scored_part(rows.iloc[a:b], config, serial)
            if back.csv:  # a file part's scored rows' rows, in the frame
                parts[k]["_pos"] += a
            if on_part:
                on_part(k, parts[k])
            done += b - a
            if progress:
                progress(done, n)
    else:
        ctx = get_context(start_method)
        back = replace(back, slim=True)
        # what the parent attaches to each part by position (a file part keeps its positions)
        row_arrays = {} if back.csv else {c: rows[c].to_numpy(dtype=object) for c in ROW_COLUMNS}
        if back.include_output and not back.csv:
            row_arrays["output"] = rows["output"].to_numpy(dtype=object)
        if start_method == "fork":
            _FORKED = (rows, config, back)
        else:
            ctx.set_forkserver_preload(_PRELOAD)
            sent = rows[_sent_columns(rows, back)]
        try:
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                if start_method == "fork":
                    futures = {pool.submit(_score_span, a, b): k for k, (a, b) in enumerate(spans)}
                else:
                    futures = {
                        pool.submit(_score_rows, sent.iloc[a:b], config, back): k
                        for k, (a, b) in enumerate(spans)
                    }
                try:
                    for fut in as_completed(futures):
                        k = futures[fut]
                        part = fut.result()
                        if back.csv:
                            part["_pos"] += spans[k][0]
                        else:
                            part = _attach_rows(part, row_arrays, spans[k][0])
                        parts[k] = part
                        if on_part:
                            on_part(k, parts[k])
                        a, b = spans[k]
                        done += b - a
                        if progress:
                            progress(done, n)
                        if cancel and cancel():
                            raise Cancelled()
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
        finally:
            _FORKED = None
    return [part for part in parts if part]


def write_csv(frame: pd.DataFrame, path_or_buffer: Any, columns: Sequence[str]) -> None:
    """Write these columns of ``frame`` as the product writes every CSV: each cell as text
    (None or NaN as ""), RFC 4180 quoting as pandas and the csv module write it (a cell is
    quoted when it holds ``,``, ``"``, CR or LF, a ``"`` doubled; a bare CR too, which
    they leave bare), LF line ends. Read back with ``dtype=str, keep_default_na=False`` it
    gives the same cells. To a path, lone surrogates, which UTF-8 cannot hold, are written
    as backslash escapes; a text buffer gets the text as is."""
    columns = list(columns)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        with open(path_or_buffer, "wb") as raw:  # encoding each block ourselves is faster than a text wrapper
            _write_lines(_Utf8Writer(raw), frame, columns)
    else:
        _write_lines(path_or_buffer, frame, columns)


def write_scored(scored: pd.DataFrame, path_or_buffer: Any, *, include_output: bool = False) -> None:
    """Write the scored CSV (``write_csv``): SPEC §6's columns, and ``output`` when asked."""
    write_csv(scored, path_or_buffer, list(SCORED_COLUMNS) + (["output"] if include_output and "output" in scored.columns else []))


def csv_bytes(frame: pd.DataFrame, columns: Sequence[str]) -> bytes:
    """``write_csv``'s bytes, for a download."""
    import io

    buf = io.StringIO()
    write_csv(frame, buf, columns)
    return buf.getvalue().encode("utf-8", errors="backslashreplace")


# Rows joined per write: bounded memory for any file size, and (as ``_PIECE_ROWS``) texts
# small enough to stay in the cache: 100,000 rows at a time took twice as long.
_WRITE_ROWS = 2000


class _Utf8Writer:
    """``write(text)`` to a binary file as UTF-8, lone surrogates as backslash escapes."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def write(self, text: str) -> None:
        self.raw.write(text.encode("utf-8", "backslashreplace"))


def csv_cell(value: Any) -> str:
    """One cell as ``csv.writer`` (QUOTE_MINIMAL) writes it, except that a bare CR is
    quoted too (csv.writer with LF line ends leaves it bare, and readers split there)."""
    if not isinstance(value, str):
        value = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    if '"' in value:
        return '"' + value.replace('"', '""') + '"'
    if "," in value or "\n" in value or "\r" in value:
        return '"' + value + '"'
    return value


_QUOTE, _QUOTES = '"', '""'


def _csv_column(values: list[Any]) -> list[str]:
    """A column's cells quoted; a column of few distinct values quotes each once."""
    distinct = set(values) if len(values) > 64 else None
    if distinct is not None and len(distinct) * 4 < len(values):
        memo = {v: csv_cell(v) for v in distinct}
        return [memo[v] for v in values]
    try:  # csv_cell inlined for text cells; anything else raises TypeError on `in`
        return [
            f'"{v.replace(_QUOTE, _QUOTES)}"' if _QUOTE in v else (f'"{v}"' if ("," in v or "\n" in v or "\r" in v) else v)
            for v in values
        ]
    except TypeError:
        return [csv_cell(v) for v in values]


def _csv_block(arrays: Sequence[np.ndarray]) -> str:
    """The lines of these columns' cells (object arrays), each line ended by LF."""
    cells = [_csv_column(arr.tolist()) for arr in arrays]
    if len(cells) == 1:  # a lone empty cell would be a blank line, which readers skip
        cells = [['""' if c == "" else c for c in cells[0]]]
    lines = list(map(",".join, zip(*cells)))
    lines.append("")
    return "\n".join(lines)


def _write_lines(f: Any, scored: pd.DataFrame, columns: list[str]) -> None:
    f.write(",".join(map(csv_cell, columns)) + "\n")
    n = len(scored)
    arrays = [scored[c].to_numpy(dtype=object) for c in columns]
    for a in range(0, n, _WRITE_ROWS):
        b = min(n, a + _WRITE_ROWS)
        f.write(_csv_block([arr[a:b] for arr in arrays]))


def scored_csv_bytes(scored: pd.DataFrame, *, include_output: bool = False) -> bytes:
    return csv_bytes(scored, list(SCORED_COLUMNS) + (["output"] if include_output and "output" in scored.columns else []))


def _source_positions(rows: pd.DataFrame, records: np.ndarray, systems: np.ndarray) -> np.ndarray:
    """For each (record, system), the position of its row in the prepared ``rows``."""
    from graders.scoring.rows import group_codes

    # (record, system) as integer codes over both: a MultiIndex would put the systems into
    # pandas' string dtype, which cannot hold a lone surrogate
    n = len(rows)
    codes = group_codes([np.concatenate([rows["record"].to_numpy(dtype=object), records]),
                         np.concatenate([rows["system"].to_numpy(dtype=object), systems])])
    row_of = np.full(int(codes.max()) + 1 if len(codes) else 0, -1, dtype=np.int64)
    row_of[codes[:n][::-1]] = np.arange(n)[::-1]  # each key's first row
    at = row_of[codes[n:]]
    if (at < 0).any():
        raise ValueError("scored rows that are not from these rows")
    return at


def with_output(scored: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """``scored`` with the ``output`` column that ``include_output=True`` would have given it,
    looked up by (record, system) in the prepared ``rows`` it was scored from."""
    at = _source_positions(rows, scored["record"].to_numpy(dtype=object), scored["system"].to_numpy(dtype=object))
    out = scored.copy(deep=False)
    out["output"] = pd.Series(rows["output"].to_numpy(dtype=object)[at], index=scored.index, dtype=object)
    return out


def explain_rows(scored: pd.DataFrame, rows: pd.DataFrame, config: RunConfig) -> pd.DataFrame:
    """``scored`` with every deferred explanation (a None cell of ``score_frame(...,
    explain=False)``) filled in: those rows' pairs, looked up by (record, system) in the
    prepared ``rows``, graded again by their grader in ``config`` with explanations, which
    gives the cells ``explain=True`` would have. ``scored`` itself when none is deferred."""
    if scored.empty or "explanation" not in scored.columns:
        return scored
    texts = scored["explanation"].to_numpy(dtype=object)
    todo = np.flatnonzero(np.equal(texts, None))
    if not len(todo):
        return scored
    at = _source_positions(rows, scored["record"].to_numpy(dtype=object)[todo], scored["system"].to_numpy(dtype=object)[todo])
    refs, outputs = rows["refs"].to_numpy(dtype=object), rows["output"].to_numpy(dtype=object)
    graders = {gc.name: gc for gc in config.graders}
    filled = texts.copy()
    for name, where in positions_by_value(scored["scorer"].to_numpy(dtype=object)[todo]).items():
        if name not in graders:
            raise ValueError(f"explain_rows: grader {name!r} is not in the configuration")
        src = at[where]
        block = grade_column(graders[name], refs[src].tolist(), outputs[src].tolist())
        filled[todo[where]] = _objects(block.explanation, len(src))
    out = scored.copy(deep=False)
    out["explanation"] = pd.Series(filled, index=scored.index, dtype=object)
    return out


def split_thresholds(config: RunConfig) -> tuple[RunConfig, dict[str, float | None]]:
    """The configuration with every continuous grader's threshold removed, and the
    thresholds: score once with the first, then ``apply_thresholds`` as they change."""
    thresholds: dict[str, float | None] = {}
    graders = []
    for gc in config.graders:
        if "threshold" in gc.resolved:
            thresholds[gc.name] = gc.resolved["threshold"]
            params = {k: v for k, v in gc.params.items() if k != "threshold"}
            gc = GraderConfig.make(gc.name, params)
        graders.append(gc)
    return RunConfig(config.columns, tuple(graders), config.overall), thresholds


_PICK_STATUS = np.array(["fail", "pass"], dtype=object)
_PICK_PASS = np.array(["false", "true"], dtype=object)
_PICK_NEAR = np.array(["", "below_threshold"], dtype=object)


def apply_thresholds(scored: pd.DataFrame, thresholds: dict[str, float | None]) -> pd.DataFrame:
    """Turn thresholdless continuous scores into pass/fail without rescoring.

    Equal, cell for cell, to scoring with the thresholds in the configuration: pass when
    score >= threshold, ``below_threshold`` within 0.1 below, the explanation's threshold
    sentence and the threshold in the metadata. Works on the columns' arrays (a new frame
    shares every column it does not change).
    """
    from graders.registry import BELOW_THRESHOLD_REACH

    scorer = scored["scorer"].to_numpy(dtype=object)
    arrays: dict[str, np.ndarray] = {}

    def column(name: str) -> np.ndarray:  # a private copy, made once
        if name not in arrays:
            arrays[name] = scored[name].to_numpy(dtype=object, copy=True)
        return arrays[name]

    for name, t in thresholds.items():
        rows = np.flatnonzero(scorer == name)
        if not len(rows):
            continue
        # One JSON round trip per distinct metadata text (a grader's rows share their parameters).
        meta = column("metadata")
        codes, distinct_meta = pd.factorize(meta[rows])
        fresh = np.array([json.dumps({**json.loads(m), "threshold": t}, ensure_ascii=False, sort_keys=True)
                          for m in distinct_meta], dtype=object)
        meta[rows] = fresh[codes]
        if t is None:
            continue
        status = column("status")
        sel = rows[status[rows] == "scored"]
        if not len(sel):
            continue
        # Scored rows always hold a score: float() over the cells, in numpy's loop.
        values = scored["score"].to_numpy(dtype=object)[sel].astype(float)
        passed = values >= t
        # Cells picked from two-element object arrays: every row shares the same two strings.
        status[sel] = _PICK_STATUS[passed.view(np.int8)]
        column("pass")[sel] = _PICK_PASS[passed.view(np.int8)]
        near = (~passed) & (values >= t - BELOW_THRESHOLD_REACH)
        column("near_miss")[sel] = _PICK_NEAR[near.view(np.int8)]
        # The threshold sentence depends on the score alone: formatted once per distinct score.
        distinct, which = np.unique(values, return_inverse=True)
        sentence = np.array(
            [" " + threshold_words(v, t) for v in distinct.tolist()],
            dtype=object,
        )
        explanation = column("explanation")
        explanation[sel] = explanation[sel] + sentence[which]
    out = scored.copy(deep=False)
    for name, arr in arrays.items():  # as object columns (pandas would infer a string dtype)
        out[name] = pd.Series(arr, index=scored.index, dtype=object, copy=False)
    return out
