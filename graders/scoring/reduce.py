"""The run summary added up from parts (SPEC §7 over a cluster), equal to ``summarize``
over the whole run: per (scorer, system) the scored rows per status, near misses, rows
with no answer and ``score_total`` of the scores (an exact sum: means round once, however
the rows were split); BLEU's and chrF's corpus statistics summed (``add_statistics``);
Wilson intervals from the totals (``stats_of_counts``). With repeats, each part also
sends its cases (a hash of (system, item)) and per scorer its decided rows and passes per
case, from which the clustered intervals are taken as ``summarize`` takes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import pandas as pd

from graders.result import STATUSES
from graders.scoring.parts import hash_cells
from graders.scoring.rows import group_codes
from graders.scoring.summary import (
    CorpusStatistics,
    Tally,
    add_statistics,
    clustered_rate,
    extracting_graders,
    positions_by_code,
    stats_of_counts,
)
from graders.stats.sums import add_totals, score_total, total_mean

if TYPE_CHECKING:
    from graders.config import RunConfig
    from graders.readers.frame import ResultsFile
    from graders.scoring.rows import Prepared

_PASS, _FAIL = STATUSES.index("pass"), STATUSES.index("fail")


@dataclass
class Cell:
    graded: int = 0
    statuses: np.ndarray = field(default_factory=lambda: np.zeros(len(STATUSES), dtype=np.int64))
    near: int = 0
    no_answer: int = 0
    total: tuple[Any, int] = (0, 0)

    def add(self, other: "Cell") -> None:
        self.graded += other.graded
        self.statuses = self.statuses + other.statuses
        self.near += other.near
        self.no_answer += other.no_answer
        self.total = add_totals(self.total, other.total)


@dataclass
class Cases:
    """A part's cases in order of first appearance, and per scorer its decided rows and
    passes per case."""

    keys: np.ndarray  # (G, 2) uint64: hash of (system, item)
    systems: list[Any]  # each case's system
    decided: dict[str, np.ndarray]
    passes: dict[str, np.ndarray]


@dataclass
class Piece:
    """What a scored part sends for the summary: no cell, a few numbers per scorer."""

    cells: dict[tuple[str, Any], Cell]  # (scorer, system), in order of first appearance
    scorers: list[str]  # in order of first appearance among the scored rows
    systems: list[Any]
    system_scorers: dict[Any, list[str]]
    row_systems: dict[Any, int]  # rows per system, in order of first appearance among the rows
    unknown: dict[str, int]
    statistics: CorpusStatistics
    extracting: set[str]  # scorers with a row where nothing was extracted
    rows: int
    cases: Cases | None = None
    agreement: dict[str, Any] = field(default_factory=dict)  # the part's harness_agreement
    not_verdicts: set[str] = field(default_factory=set)  # harness columns holding other values in this part


def _first_order(codes: np.ndarray, names: Sequence[Any]) -> list[Any]:
    present, first = np.unique(codes, return_index=True)
    return [names[c] for _, c in sorted(zip(first.tolist(), present.tolist())) if c >= 0]


def piece(tally: Tally, rows: pd.DataFrame, cases: bool) -> Piece:
    """A part's ``Piece`` from the ``Tally`` of its scoring and its rows."""
    scorer_names, system_names = list(tally.scorer_names), list(tally.system_names)
    n_sys = max(1, len(system_names))
    combo = tally.scorer_codes.astype(np.int64) * n_sys + tally.system_codes.astype(np.int64)
    labels = [(s, y) for s in scorer_names for y in system_names]
    cells: dict[tuple[str, Any], Cell] = {}
    extracting: set[str] = set()
    for (scorer, system), at in positions_by_code(combo, labels).items():
        status = tally.status_codes[at]
        no_answer = 0 if tally.no_answer is None else int(tally.no_answer[at].sum())
        if no_answer:
            extracting.add(scorer)
        cells[(scorer, system)] = Cell(len(at), np.bincount(status[status >= 0], minlength=len(STATUSES)),
                                       int(tally.near[at].sum()), no_answer, score_total(tally.values[at]))
    system_scorers = {}
    for code, system in enumerate(system_names):
        mine = tally.system_codes == code
        system_scorers[system] = _first_order(tally.scorer_codes[mine], scorer_names)
    row_sys = rows["system"].to_numpy(dtype=object)
    row_systems = {name: len(at) for name, at in _positions(row_sys).items()}
    out = Piece(cells, _first_order(tally.scorer_codes, scorer_names), _first_order(tally.system_codes, system_names),
                system_scorers, row_systems, dict(tally.unknown_assertions), dict(tally.statistics), extracting,
                len(rows))
    if cases and len(rows) and tally.positions is not None:
        out.cases = _cases(tally, rows, scorer_names)
    return out


def frame_tally(scored: pd.DataFrame, positions: np.ndarray, config: Mapping[str, Any]) -> Tally:
    """The ``Tally`` of a scored frame (``score_frame``'s, details kept), as ``score_to_csv``
    returns it for the same rows: ``positions``, each scored row's row; ``config``, the
    run's JSON form (its graders run with ``extract``)."""
    from graders.scoring.batch import CORPUS_SCORERS, _scorer_statistics
    from graders.scoring.summary import _Columns, unknown_assertion_kinds

    cols = _Columns(scored, extracting_graders(config))
    status = np.array([STATUSES.index(s) if s in STATUSES else -1 for s in cols.status_names] + [-1], dtype=np.int8)
    statistics: CorpusStatistics = {}
    details = scored["details"].to_numpy(dtype=object)
    for code, name in enumerate(cols.scorer_names):
        if name in CORPUS_SCORERS:
            at = np.flatnonzero(cols.scorer_codes == code)
            statistics.update(_scorer_statistics(name, scored["system"].to_numpy(dtype=object)[at], details[at]))
    return Tally(cols.scorer_codes, tuple(cols.scorer_names), cols.system_codes, tuple(cols.system_names),
                 status[cols.status_codes], cols.values, cols.near, unknown_assertion_kinds(scored, list(cols.scorers)),
                 statistics, cols.no_answer, positions)


def _positions(values: np.ndarray) -> dict[Any, np.ndarray]:
    from graders.scoring.summary import positions_by_value

    return positions_by_value(values)


def _cases(tally: Tally, rows: pd.DataFrame, scorer_names: list[str]) -> Cases:
    system, item = rows["system"].to_numpy(dtype=object), rows["item"].to_numpy(dtype=object)
    row_case = group_codes([system, item])  # first appearance
    g = int(row_case.max()) + 1
    first = np.full(g, -1, dtype=np.int64)
    first[row_case[::-1]] = np.arange(len(row_case))[::-1]
    keys = hash_cells([system[first], item[first]])
    case = row_case[tally.positions]
    decided, passes = {}, {}
    for code, name in enumerate(scorer_names):
        mine = (tally.scorer_codes == code) & ((tally.status_codes == _PASS) | (tally.status_codes == _FAIL))
        decided[name] = np.bincount(case[mine], minlength=g)
        passes[name] = np.bincount(case[mine & (tally.status_codes == _PASS)], minlength=g)
    return Cases(keys, system[first].tolist(), decided, passes)


def run_agreement(file: "ResultsFile", prepared: "Prepared", config: "RunConfig", scored: Any) -> dict[str, Any]:
    """``scoring.agreement.harness_agreement`` of this run, for a file that carries its
    harness's verdicts (``harness.*`` columns); {} otherwise. ``stream.score_part`` takes
    it from each part and adds the parts' figures (``agreement.add_agreement``)."""
    if not any(c.startswith("harness.") for c in file.columns):
        return {}
    from graders.registry import get_spec
    from graders.scoring.agreement import harness_agreement
    from graders.scoring.batch import _source_positions

    binary = [n for n in config.grader_names if get_spec(n).binary] + (["overall"] if config.overall else [])
    if isinstance(scored, Tally):
        if scored.positions is None:
            return {}
        return harness_agreement(file, prepared.rows, binary, scored.scorer, scored.status_codes, scored.positions)
    codes = {name: i for i, name in enumerate(STATUSES)}
    status = np.array([codes.get(s, -1) for s in scored["status"].tolist()], dtype=np.int8)
    positions = _source_positions(prepared.rows, scored["record"].to_numpy(dtype=object),
                                  scored["system"].to_numpy(dtype=object))
    return harness_agreement(file, prepared.rows, binary, scored["scorer"].to_numpy(dtype=object), status, positions)


def _counted(cell: Cell, extracting: bool) -> dict[str, Any]:
    counts = dict(zip(STATUSES, cell.statuses.tolist()))
    return stats_of_counts(cell.graded, counts, cell.near, cell.no_answer if extracting else None, cell.total)


def summary(pieces: Sequence[Piece], *, graders: tuple[str, ...], left_out: Mapping[str, Any],
            config: Mapping[str, Any], has_repeat: bool, raw_corpus: Any = None) -> dict[str, Any]:
    """``summarize``'s summary from the parts' pieces, in order. ``raw_corpus(name, system)``:
    the corpus statistics of the system's outputs as written, summed over the parts, for a
    corpus figure whose rows' statistics are missing (``corpus_figures``' second pass)."""
    cells: dict[tuple[str, Any], Cell] = {}
    scorers: dict[str, None] = {}
    systems: dict[Any, None] = {}
    system_scorers: dict[Any, dict[str, None]] = {}
    row_systems: dict[Any, int] = {}
    unknown: dict[str, int] = {}
    statistics: CorpusStatistics = {}
    extracting = set(extracting_graders(config))
    for p in pieces:
        for key, cell in p.cells.items():
            cells.setdefault(key, Cell()).add(cell)
        scorers.update(dict.fromkeys(p.scorers))
        systems.update(dict.fromkeys(p.systems))
        for system, names in p.system_scorers.items():
            system_scorers.setdefault(system, {}).update(dict.fromkeys(names))
        for system, n in p.row_systems.items():
            row_systems[system] = row_systems.get(system, 0) + n
        for kind, count in p.unknown.items():
            unknown[kind] = unknown.get(kind, 0) + count
        add_statistics(statistics, p.statistics)
        extracting |= p.extracting

    def scorer_cell(name: str, within: Sequence[Any]) -> Cell:
        total = Cell()
        for system in within:
            if (name, system) in cells:
                total.add(cells[(name, system)])
        return total

    overall = {str(name): _counted(scorer_cell(name, list(systems)), name in extracting) for name in scorers}
    per_system = {system: {str(name): _counted(cells[(name, system)], name in extracting)
                           for name in system_scorers.get(system, {})} for system in systems}
    cases = _all_cases(pieces) if has_repeat else None
    if cases is not None and cases[0] < sum(p.rows for p in pieces):
        _, case_systems, decided, passes = cases
        _clustered(overall, decided, passes, None, case_systems)
        if len(systems) > 1:
            for system in systems:
                _clustered(per_system[system], decided, passes, system, case_systems)
    if len(systems) == 1:
        by_system = {str(name): {k: dict(v) for k, v in overall.items()} for name in systems}
    else:
        by_system = {str(name): per_system[name] for name in systems}
    return {
        "cases": int(sum(p.rows for p in pieces)),
        "graders": overall,
        "systems": by_system,
        "corpus": _corpus(graders, row_systems, cells, statistics, raw_corpus),
        "left_out": dict(left_out),
        "unknown_assertions": dict(sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))),
        "config": dict(config),
    }


def corpus_gaps(pieces: Sequence[Piece], graders: tuple[str, ...]) -> list[tuple[str, Any]]:
    """The (BLEU or chrF, system) whose corpus figure needs the outputs as written (a row's
    statistics missing): ``corpus_figures`` takes it from a second pass over the corpus."""
    statistics: CorpusStatistics = {}
    rows: dict[Any, int] = {}
    for p in pieces:
        add_statistics(statistics, p.statistics)
        for system, n in p.row_systems.items():
            rows[system] = rows.get(system, 0) + n
    gaps = []
    for system, n in rows.items():
        for name in ("bleu", "chrf"):
            counted, summed = statistics.get((name, system), (0, None))
            if name in graders and n and (counted != n or summed is None):
                gaps.append((name, system))
    return gaps


def _corpus(graders: tuple[str, ...], row_systems: Mapping[Any, int], cells: Mapping[tuple[str, Any], Cell],
            statistics: CorpusStatistics, raw_corpus: Any) -> dict[str, dict[str, Any]]:
    from graders.metrics.bleu import compute_bleu
    from graders.metrics.chrf import compute_chrf

    out: dict[str, dict[str, Any]] = {}
    if "bleu" not in graders and "chrf" not in graders:
        return out
    for system, n in row_systems.items():
        figures: dict[str, Any] = {}
        for name in ("bleu", "chrf"):
            if name not in graders:
                continue
            counted, summed = statistics.get((name, system), (0, None))
            summed = summed if counted == n and n else None
            if summed is None and n:
                summed = raw_corpus(name, system)
            value = None
            if summed is not None:
                value = compute_bleu(summed, effective_order=False).score if name == "bleu" else compute_chrf(summed).score
            cell = cells.get((name, system))
            figures[name] = {"corpus": value, "mean_sentence": total_mean(cell.total) if cell else None, "rows": int(n)}
        if figures:
            out[str(system)] = figures
    return out


def _all_cases(pieces: Sequence[Piece]) -> tuple[int, np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]] | None:
    """Every part's cases as one: (cases, each case's system, per scorer decided rows and
    passes per case), cases numbered in order of first appearance over the parts."""
    parts = [p.cases for p in pieces if p.cases is not None]
    if not parts:
        return None
    keys = np.concatenate([c.keys for c in parts])
    codes = group_codes([keys[:, 0], keys[:, 1]])
    g = int(codes.max()) + 1 if len(codes) else 0
    case_systems = np.empty(g, dtype=object)
    case_systems[codes[::-1]] = np.concatenate([np.array(c.systems, dtype=object) for c in parts])[::-1]
    decided: dict[str, np.ndarray] = {}
    passes: dict[str, np.ndarray] = {}
    start = 0
    for c in parts:
        at = codes[start:start + len(c.keys)]
        start += len(c.keys)
        for name in c.decided:
            decided.setdefault(name, np.zeros(g, dtype=np.int64))
            passes.setdefault(name, np.zeros(g, dtype=np.int64))
            np.add.at(decided[name], at, c.decided[name])
            np.add.at(passes[name], at, c.passes[name])
    return g, case_systems, decided, passes


def _clustered(figures: dict[str, dict[str, Any]], decided: Mapping[str, np.ndarray], passes: Mapping[str, np.ndarray],
               system: Any, case_systems: np.ndarray) -> None:
    """``summary.clustered_rates`` from the cases' counts: each scorer's decided rows laid
    out case by case (cases in order of first appearance, as ``summarize`` numbers them)."""
    for name, st in figures.items():
        if name not in decided:
            continue
        d, p = decided[name], passes[name]
        if system is not None:
            mine = case_systems == system
            d, p = np.where(mine, d, 0), np.where(mine, p, 0)
        have = np.flatnonzero(d)
        if not len(have) or int(d[have].max()) == 1:  # each decided case once: nothing clustered
            continue
        clusters = np.repeat(have, d[have])
        starts = np.repeat(np.cumsum(d[have]) - d[have], d[have])
        passed = (np.arange(len(clusters)) - starts) < np.repeat(p[have], d[have])
        clustered_rate(st, passed, clusters)
