"""A scored run put together from per-grader pieces (no streamlit here).

The Score page scores each grader on its own and keeps the result (a ``Piece``) keyed by
the file, the mapping and the grader's parameters (``ui.scoring``): adding a grader scores
that grader alone, removing one scores nothing. This module turns the pieces of a
configuration into what one full run would have given, cell for cell:

* ``score_pieces`` scores some graders (and the file's per-row assertions) in one pass
  over the rows and splits the result into pieces;
* ``overall_piece`` decides the overall row from the pass-or-fail graders' pieces (SPEC §5),
  without regrading;
* ``place`` gives each piece's rows their index in the full scored frame (row by row, the
  graders in the configuration's order, then the overall row, then the row's assertions),
  so that concatenating the parts and sorting by index is ``score_frame``'s frame;
* ``piece_summary`` and ``merge_summaries``: ``summarize`` of one piece, and the run's
  summary put together from them (equal to ``summarize`` over the whole frame);
* ``piece_agreement``: the harness's verdict beside one pass-or-fail scorer.

tests/test_page_cache.py checks add, remove and threshold sequences against fresh scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from graders.config import OVERALL_GRADERS, GraderConfig, RunConfig
from graders.result import STATUSES, Block
from graders.scoring.batch import EXTRA_COLUMNS, _Cells, _objects, _overall_block, overall_grade
from graders.scoring.output import SCORED_COLUMNS
from graders.scoring.parallel import score_frame
from graders.scoring.summary import positions_by_value, summarize

ASSERTIONS = "assert:"  # the scorer names of per-row assertions start so (scoring.assertions.scorer_name)
COLUMNS = list(SCORED_COLUMNS) + list(EXTRA_COLUMNS)


@dataclass
class Piece:
    """One grader's scored rows over the prepared rows (one per row, in row order), or the
    rows' assertions (``pos``: each assertion row's prepared row, in row order), with BLEU's
    and chrF's corpus statistics (``statistics``, as ``score_frame`` fills them) and
    memoized figures (``memo``: summaries and chart aggregates per threshold)."""

    name: str
    frame: pd.DataFrame
    statistics: dict = field(default_factory=dict)
    pos: np.ndarray | None = None
    memo: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.frame)


def score_pieces(rows: pd.DataFrame, graders: Sequence[GraderConfig], assertions: bool, *,
                 score: Callable[..., pd.DataFrame] = score_frame, **options: Any) -> dict[str, Piece]:
    """Score ``graders`` (and, with ``assertions``, the rows' per-row assertions) over the
    prepared ``rows`` in one pass: {grader name, or ``ASSERTIONS``: its piece}.
    ``options``: ``score_frame``'s (workers, progress, cancel, details, explain, …)."""
    with_assertions = assertions and "assertions" in rows.columns
    if not graders and not with_assertions:
        return {}
    sent = rows if with_assertions or "assertions" not in rows.columns else rows.drop(columns=["assertions"])
    statistics: dict = {}
    scored = score(sent, RunConfig({}, tuple(graders), None), statistics=statistics, **options)
    names = scored["scorer"].to_numpy(dtype=object)
    n = len(rows)
    out: dict[str, Piece] = {}
    groups = positions_by_value(names)
    for gc in graders:
        at = groups.get(gc.name, np.empty(0, dtype=np.intp))
        frame = scored.iloc[at].reset_index(drop=True)
        assert len(frame) == n, (gc.name, len(frame), n)
        stats = {k: v for k, v in statistics.items() if k[0] == gc.name}
        out[gc.name] = Piece(gc.name, frame, stats)
    if with_assertions:
        mine = np.flatnonzero(np.fromiter((str(s).startswith(ASSERTIONS) for s in names), dtype=bool, count=len(names)))
        frame = scored.iloc[mine].reset_index(drop=True)
        from graders.scoring.batch import _source_positions

        pos = (_source_positions(rows, frame["record"].to_numpy(dtype=object), frame["system"].to_numpy(dtype=object))
               if len(frame) else np.empty(0, dtype=np.intp))
        out[ASSERTIONS] = Piece(ASSERTIONS, frame, {}, pos)
    return out


def overall_piece(rule: str, binaries: Sequence[Piece], rows: pd.DataFrame) -> Piece:
    """The overall row of every prepared row from the pass-or-fail graders' pieces, as
    ``batch._overall_block`` decides it while scoring: each distinct combination of
    statuses decided once, its cells made once and shared."""
    n = len(rows)
    names = [p.name for p in binaries]
    if not binaries:
        block = _overall_block([], rule, n)
        inverse = np.arange(n)
    else:
        index: dict[tuple, int] = {}
        statuses = [p.frame["status"].tolist() for p in binaries]
        inverse = np.fromiter((index.setdefault(key, len(index)) for key in zip(*statuses)), dtype=np.intp, count=n)
        block = Block.from_grades([overall_grade(list(key), rule) for key in index])
    cells = _Cells()
    cells.add("overall", block, {"rule": rule, "graders": names})
    data = {name: _objects(parts[0], len(block))[inverse] for name, parts in cells.cols.items()}
    for c in ("item", "system", "repeat", "record"):
        data[c] = rows[c].to_numpy(dtype=object)
    frame = pd.concat([pd.Series(data[c], name=c, dtype=object) for c in COLUMNS], axis=1)
    return Piece("overall", frame)


def binary_pieces(config: RunConfig, pieces: Mapping[str, Piece]) -> list[Piece]:
    """The pieces the overall row sums up: the configuration's pass-or-fail graders (SPEC §5)."""
    return [pieces[gc.name] for gc in config.graders if gc.name in OVERALL_GRADERS]


def place(config: RunConfig, pieces: Mapping[str, Piece], overall: Piece | None,
          n: int) -> dict[str, pd.DataFrame]:
    """{scorer: its rows, indexed by their position in the full scored frame}: the
    configuration's graders, the overall row, then each assertion scorer in order of first
    appearance. The frames share their columns with the pieces (only the index is new)."""
    k = len(config.graders)
    width = k + (overall is not None)
    assertions = pieces.get(ASSERTIONS)
    apos = assertions.pos if assertions is not None and len(assertions) else np.empty(0, dtype=np.intp)
    per_row = np.bincount(apos, minlength=n) if len(apos) else np.zeros(n, dtype=np.intp)
    offset = np.arange(n, dtype=np.int64) * width + np.concatenate([[0], np.cumsum(per_row)[:-1]]) if n else np.empty(0, np.int64)
    out: dict[str, pd.DataFrame] = {}

    def indexed(frame: pd.DataFrame, index: np.ndarray) -> pd.DataFrame:
        f = frame.copy(deep=False)
        f.index = pd.Index(index)
        return f

    for j, gc in enumerate(config.graders):
        out[gc.name] = indexed(pieces[gc.name].frame, offset + j)
    if overall is not None:
        out["overall"] = indexed(overall.frame, offset + k)
    if len(apos):
        first = np.searchsorted(apos, apos, side="left")
        at = offset[apos] + width + (np.arange(len(apos)) - first)
        whole = indexed(assertions.frame, at)
        for name, where in positions_by_value(assertions.frame["scorer"].to_numpy(dtype=object)).items():
            out[str(name)] = whole.iloc[where]
    return out


def full_frame(parts: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The scored frame of ``score_frame`` from placed parts: in order, with a fresh index."""
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in COLUMNS})
    return pd.concat(list(parts.values())).sort_index(kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- summaries


def piece_summary(frame: pd.DataFrame, rows: pd.DataFrame, grader: GraderConfig | None,
                  statistics: Mapping | None) -> dict[str, Any]:
    """``summarize`` of one scorer's (or the assertions') rows, with that grader's
    configuration (its corpus figure, its extraction's no-answer counts)."""
    graders = (grader.name,) if grader is not None else ()
    config = {"graders": [grader.to_dict()]} if grader is not None else {"graders": []}
    return summarize(frame, rows, graders=graders, config=config, statistics=dict(statistics or {}))


def merge_summaries(parts: Sequence[dict[str, Any]], rows: pd.DataFrame, *, left_out: Mapping[str, Any],
                    config: Mapping[str, Any]) -> dict[str, Any]:
    """The run's summary from its scorers' summaries (``piece_summary``, in the scored
    frame's scorer order): what ``summarize`` over the whole frame gives."""
    systems_order = [str(s) for s in positions_by_value(rows["system"].to_numpy(dtype=object))]
    graders: dict[str, Any] = {}
    for p in parts:
        graders.update(p["graders"])
    systems: dict[str, dict[str, Any]] = {}
    for system in systems_order:
        per: dict[str, Any] = {}
        for p in parts:
            per.update(p["systems"].get(system, {}))
        if per:
            systems[system] = per
    corpus: dict[str, dict[str, Any]] = {}
    for system in systems_order:
        figures: dict[str, Any] = {}
        for name in ("bleu", "chrf"):
            for p in parts:
                got = p["corpus"].get(system, {}).get(name)
                if got is not None:
                    figures[name] = got
        if figures:
            corpus[system] = figures
    unknown: dict[str, int] = {}
    for p in parts:
        for kind, count in p["unknown_assertions"].items():
            unknown[kind] = unknown.get(kind, 0) + count
    return {
        "cases": int(len(rows)),
        "graders": graders,
        "systems": systems,
        "corpus": corpus,
        "left_out": dict(left_out or {}),
        "unknown_assertions": dict(sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))),
        "config": dict(config or {}),
    }


def piece_agreement(file: Any, rows: pd.DataFrame, name: str, frame: pd.DataFrame) -> dict[str, Any]:
    """``scoring.agreement.harness_agreement`` of one pass-or-fail scorer's rows (one per
    prepared row, in order): {harness column: {name: counts}}; {} for a file without
    harness verdicts."""
    if not any(str(c).startswith("harness.") for c in file.columns):
        return {}
    from graders.scoring.agreement import harness_agreement

    codes = {s: i for i, s in enumerate(STATUSES)}
    status = np.array([codes.get(s, -1) for s in frame["status"].tolist()], dtype=np.int8)
    return harness_agreement(file, rows, [name], frame["scorer"].to_numpy(dtype=object), status,
                             np.arange(len(frame), dtype=np.intp))


def merge_agreements(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The per-scorer agreements (in the binary scorers' order) as one: {column: {scorer: counts}}."""
    out: dict[str, dict[str, Any]] = {}
    for p in parts:
        for column, per in p.items():
            out.setdefault(column, {}).update(per)
    return out
