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
import tempfile
from contextlib import contextmanager, nullcontext
from itertools import chain
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from graders.config import OVERALL_GRADERS, GraderConfig, RunConfig
from graders.engines.jsonparse import shared_parses
from graders.metrics.base import own_params
from graders.registry import get_spec, run
from graders.result import STATUSES, Block, Grade
from graders.scoring.assertions import run_column
from graders.scoring.output import (  # noqa: F401  (the names this module has always offered)
    _PASS_CELL,
    _QUOTE,
    _QUOTES,
    SCORED_COLUMNS,
    OutputError,
    _append_file,
    _csv_column,
    csv_bytes,
    csv_cell,
    format_score,
    grade_cells,
    replaced_whole,
    scored_csv_bytes,
    write_csv,
    write_scored,
)
from graders.scoring.rows import ROW_FIELDS
from graders.scoring.summary import CorpusStatistics, is_no_answer, positions_by_value, statistic_sums

# Beside SPEC §6's columns the frame keeps: status (the Grade status), record (the source
# row number, to join back to expected and output) and details (the Grade's details).
EXTRA_COLUMNS = ("status", "record", "details")


# The scored rows' cells that are their source row's: a worker leaves them out of what it
# sends back (the parent has the rows), and is sent only those it needs.
ROW_COLUMNS = ("item", "system", "repeat", "record")


# Scorers whose details the summary reads: their per-row statistics sum to the corpus figure.
CORPUS_SCORERS = ("bleu", "chrf")


def _scorer_statistics(name: str, systems: np.ndarray, details: np.ndarray) -> CorpusStatistics:
    """One corpus scorer's (BLEU's or chrF's) statistics summed per system, from its rows'
    systems and details (object arrays)."""
    return {(name, system): (len(at), statistic_sums(name, details[at])) for system, at in positions_by_value(systems).items()}

# Graders that parse the output with jsonparse.parse (shared within a chunk when several run).
JSON_PARSERS = frozenset({"json_schema", "valid_json", "json_fields"})


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


def _grade_unique(gc: GraderConfig, refs: Sequence[tuple[str, ...]], outputs: Sequence[str], explain: bool = True,
                  extracted: dict[Any, list[Any]] | None = None) -> Block:
    """One grader over distinct pairs. With ``extract`` (SPEC §9) the extractor runs over the
    outputs once (``extracted``: a chunk's extractions by extractor, shared by its graders)
    and the grader on what it finds (``graders.metrics.extraction``)."""
    spec = get_spec(gc.name)
    ex = gc.resolved.get("extract")
    if ex is None:
        return _grade_plain(spec, gc.resolved, refs, outputs, explain)
    from graders.metrics.extraction import extracted_block
    from graders.text.extract import extract_many

    got = None if extracted is None else extracted.get(ex)
    if got is None:
        got = extract_many(ex, outputs)
        if extracted is not None:
            extracted[ex] = got
    params = own_params(gc.resolved)
    return extracted_block(ex, refs, outputs, lambda r, o: _grade_plain(spec, params, r, o, explain), extracted=got,
                           uses_expected=spec.uses_expected)


def _grade_plain(spec: Any, params: Any, refs: Sequence[tuple[str, ...]], outputs: Sequence[str], explain: bool) -> Block:
    """The grader's column form when it has one (``explain=False``: deferred explanations
    where it can), else ``run`` row by row."""
    if spec.batch is not None:
        if not explain and spec.defers_explanations:
            return spec.batch(refs, outputs, explain=False, **params)
        return spec.batch(refs, outputs, **params)
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
    details hold one (and with ``extract``, the row's ``extracted`` answer, SPEC §9); each
    distinct text made once, and shared by its rows."""
    if "extract" in base_meta:
        return _extracted_metadata_texts(block, base_meta)
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


def _extracted_metadata_texts(block: Block, base_meta: dict[str, Any]) -> list[str]:
    metas: dict[Any, str] = {}
    col = []
    missing = object()
    for d in block.details:
        sig = d.get("signature") if d else None
        got = d.get("extracted", missing) if d else missing
        key = (sig, got)
        m = metas.get(key)
        if m is None:
            meta = dict(base_meta)
            if sig:
                meta["signature"] = sig
            if got is not missing:
                meta["extracted"] = got
            m = metas[key] = json.dumps(meta, ensure_ascii=False, sort_keys=True)
        col.append(m)
    return col


def metadata_params(resolved: dict[str, Any] | Any) -> dict[str, Any]:
    """A grader's validated parameters as its metadata cell starts from: JSON-ready (a tuple
    as a list, an extractor as its spec as given)."""
    return {k: (list(v) if isinstance(v, tuple) else v.to_json() if k == "extract" else v) for k, v in resolved.items()}


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
    extracted: dict[Any, list[Any]] = {}  # each extractor runs over the chunk once
    # Several JSON graders parse the same outputs: each text is parsed once per chunk.
    shared = shared_parses() if sum(gc.name in JSON_PARSERS for gc in config.graders) > 1 else nullcontext()
    with shared:
        for gc in config.graders:
            block = _grade_unique(gc, urefs, uouts, explain, extracted)
            if inverse is not None:
                block = block.take(inverse)
            blocks.append((gc.name, block, metadata_params(gc.resolved)))
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
    fields = {c: rows[c].tolist() for c in ROW_FIELDS if c in rows.columns}
    return run_column(rows["assertions"].tolist(), rows["refs"].tolist(), rows["output"].tolist(), fields)


def _meta_text(meta: dict[str, Any]) -> str:
    return json.dumps(meta, ensure_ascii=False, sort_keys=True, default=str)


def _meta_texts(extra: Assertions) -> list[str]:
    """The assertions' metadata cells, each metadata object written once (the rows of one
    assertion share theirs)."""
    texts: dict[int, str] = {}
    out = []
    for *_, meta in extra:
        t = texts.get(id(meta))
        if t is None:
            t = texts[id(meta)] = _meta_text(meta)
        out.append(t)
    return out


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
        for (_, scorer, g, _), meta_text in zip(extra, _meta_texts(extra)):
            score, passed, err, near = grade_cells(g)
            for name, value in (
                ("scorer", scorer), ("score", score), ("pass", passed), ("error", err), ("near_miss", near),
                ("explanation", g.explanation), ("metadata", meta_text), ("status", g.status), ("details", dict(g.details)),
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
        for (i, scorer, g, _), meta_text in zip(extra, _meta_texts(extra)):
            score, passed, err, near = grade_cells(g)
            cells = (scorer, score, passed, err, near, g.explanation, meta_text)
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
    # no answer extracted or not, per scored row: where a grader extracts, or an assertion has such a row
    if any("extract" in meta for _, _, meta in blocks) or any(is_no_answer(g.near_miss) for _, _, g, _ in extra):
        part["no_answer"] = _grid([[is_no_answer(x) for x in b.near_miss] if "extract" in meta else np.zeros(n, np.bool_)
                                   for _, b, meta in blocks], np.bool_, n)
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
        if "no_answer" in part:
            more["no_answer"] = np.array([is_no_answer(g.near_miss) for _, _, g, _ in extra], dtype=np.bool_)
        order = _after_their_rows(part["_pos"], more["_pos"])
        part = {c: np.concatenate([col, more[c]])[order] if c in more else col for c, col in part.items()}
        for _, _, g, meta in extra:
            if g.status == "error" and meta.get("unsupported"):
                unknown[meta["kind"]] = unknown.get(meta["kind"], 0) + 1
    part["_scorers"] = names
    part["_unknown"] = unknown
    return part


def _file_part(rows: pd.DataFrame, config: RunConfig, back: Any) -> dict[str, Any]:
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

