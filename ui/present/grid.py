"""The Score page's results grid (no streamlit here): one row per case × system × repeat
(each prepared row), with its id, input, expected and output, and each scorer's verdict
and score as columns — promptfoo's matrix — filtered, sorted and paged over the whole file.

``build_grid(parts, rows, …)`` turns the view's per-scorer frames into the grid's columns
once per scoring (numpy arrays, one a column: the wide frame in columnar form);
``GridQuery`` holds what the user asked (search text, verdicts, grader disagreement, the
harness's disagreement with a grader, a metadata column's values, a score range, the
sort); ``matching(grid, query)`` is the rows that match, in the asked order, built from
vectorized masks (each memoized on the grid), and ``page_frame`` the table of one page.
Paging 200,000 rows costs a slice of that order and a frame of one page
(bench/dashboard_bench.py times it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from graders.readers.frame import ResultsFile
from graders.registry import REGISTRY
from graders.scoring.batch import _source_positions

VERDICTS = {"pass": "pass", "fail": "fail", "not_judged": "not judged", "error": "error", "scored": "scored"}
VERDICT_WORDS = tuple(VERDICTS.values())
ANY_GRADER = ""  # the verdict filter over every grader
FILE_ORDER = ""  # the sort: the file's order
PAGE_ROWS = 100
MAX_CELL = 2000  # characters of a text cell sent to the browser (the row detail shows it whole)
MAX_VALUES = 500  # values of a metadata column offered in the filter (the most frequent)


def label(scorer: str) -> str:
    """A scorer's name as the page shows it: the grader's label, "Overall", or the assertion's own name."""
    if scorer in REGISTRY:
        return REGISTRY[scorer].label
    return "Overall" if scorer == "overall" else scorer


@dataclass
class Grid:
    """The grid's columns over the prepared rows (``n`` of them, in the file's order).

    ``text``: {column: object array} of id, system, repeat, input, expected and output (those
    shown); ``status``: {scorer: its status per row, "" where it has no row (an assertion
    another row does not have)}; ``values``: {scorer: its score per row, NaN for none};
    ``record`` and ``system``: each row's keys (the row detail's); ``file_row``: each row's
    row in the results file (the metadata and harness columns'); ``memo``: masks and sort
    orders made so far."""

    n: int
    scorers: list[str]
    graders: list[str]
    text: dict[str, np.ndarray]
    status: dict[str, np.ndarray]
    values: dict[str, np.ndarray]
    record: np.ndarray
    system: np.ndarray
    file_row: np.ndarray
    bases: dict[str, Any] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)
    sources: dict[str, np.ndarray] = field(default_factory=dict)  # each scorer's score cells, as read

    def scored_scorers(self) -> list[str]:
        """The scorers with a score on some row (the score-range filter's)."""
        return [s for s in self.scorers if np.isfinite(self.values[s]).any()]

    def columns(self) -> list[str]:
        """The table's columns: the texts, then each scorer's verdict and score."""
        out = list(self.text)
        for s in self.scorers:
            out += [verdict_column(s), score_column(s)]
        return out


def verdict_column(scorer: str) -> str:
    return label(scorer)


def score_column(scorer: str) -> str:
    return f"{label(scorer)} · score"


def _scores(cells: np.ndarray) -> np.ndarray:
    """Score cells ("" for none) as floats (NaN)."""
    out = np.full(len(cells), np.nan)
    has = cells != ""
    if has.any():
        out[has] = cells[has].astype(float)
    return out


def build_grid(parts: Mapping[str, pd.DataFrame], rows: pd.DataFrame, file: ResultsFile | None,
               mapping: Mapping[str, str | None], graders: Sequence[str],
               previous: Grid | None = None, bases: Mapping[str, Any] | None = None) -> Grid:
    """The grid of a view: ``parts`` {scorer: its (thresholded) scored rows} over the
    prepared ``rows``; ``graders``: the configured graders (the disagreement filter's).
    ``previous``/``bases``: the grid of the last view and the identity of each scorer's rows
    (``view["bases"]``): the columns of a scorer whose rows did not change are reused."""
    n = len(rows)
    text: dict[str, np.ndarray] = {"case": rows["item"].to_numpy(dtype=object)}
    if rows["system"].nunique() > 1:
        text["system"] = rows["system"].to_numpy(dtype=object)
    if rows["repeat"].ne("").any():
        text["repeat"] = rows["repeat"].to_numpy(dtype=object)
    if mapping.get("input") and "input" in rows.columns:
        text["input"] = rows["input"].fillna("").to_numpy(dtype=object)
    if "expected" in rows.columns:
        text["expected"] = rows["expected"].fillna("").to_numpy(dtype=object)
    text["output"] = rows["output"].to_numpy(dtype=object)
    record = rows["record"].to_numpy()
    system = rows["system"].to_numpy(dtype=object)
    status: dict[str, np.ndarray] = {}
    values: dict[str, np.ndarray] = {}
    sources: dict[str, np.ndarray] = {}
    bases = dict(bases or {})
    for scorer, frame in parts.items():
        if previous is not None and scorer in previous.status and scorer in bases \
                and previous.bases.get(scorer) is bases[scorer]:
            status[scorer], values[scorer] = previous.status[scorer], previous.values[scorer]
            sources[scorer] = previous.sources.get(scorer)
            continue
        cells = frame["status"].to_numpy(dtype=object)
        source = frame["score"].to_numpy(dtype=object)
        sources[scorer] = source
        if previous is not None and previous.sources.get(scorer) is source:  # a threshold moved: the same scores
            scores = previous.values[scorer]
        else:
            scores = _scores(source)
        if len(frame) == n and (n == 0 or (frame["record"].to_numpy() == record).all()
                                and (frame["system"].to_numpy(dtype=object) == system).all()):
            status[scorer], values[scorer] = cells, scores
            continue
        at = _source_positions(rows, frame["record"].to_numpy(dtype=object), frame["system"].to_numpy(dtype=object))
        status[scorer] = np.full(n, "", dtype=object)
        values[scorer] = np.full(n, np.nan)
        status[scorer][at] = cells
        values[scorer][at] = scores
    if file is not None and previous is None:
        at_record = {r: i for i, r in enumerate(file.records)}
        file_row = np.fromiter((at_record.get(r, -1) for r in record.tolist()), dtype=np.intp, count=n)
    else:
        file_row = previous.file_row if previous is not None else np.full(n, -1, dtype=np.intp)
    grid = Grid(n, list(parts), [g for g in graders if g in parts], text, status, values, record, system, file_row,
                bases=bases, sources=sources)
    if previous is not None and previous.n == n and previous.text.keys() == text.keys():
        # masks over the rows' texts and the file's columns hold for the new grid too
        grid.memo.update({k: v for k, v in previous.memo.items() if k[0] in ("haystack", "search", "meta", "meta_values", "meta_in", "harness_verdict")})
    return grid


# --------------------------------------------------------------------------- the query


@dataclass(frozen=True)
class GridQuery:
    """What the grid shows. ``search``: text in the id, input, expected or output
    (case-insensitive); ``verdicts`` of ``verdict_scorer`` (``ANY_GRADER``: of any grader);
    ``disagree``: rows two of the graders decide differently; ``harness`` (a scorer): rows
    where the file's own verdict column ``harness_column`` and that scorer disagree;
    ``meta_column``/``meta_values``: rows whose cell in that file column is one of them;
    ``score_scorer``/``score_range``: rows whose score of that scorer is in the range (ends
    included); ``sort`` (``FILE_ORDER``, "case", or a verdict or score column) and ``descending``."""

    search: str = ""
    verdict_scorer: str = ANY_GRADER
    verdicts: tuple[str, ...] = ()
    disagree: bool = False
    harness: str = ""
    harness_column: str = ""
    meta_column: str = ""
    meta_values: tuple[str, ...] = ()
    score_scorer: str = ""
    score_range: tuple[float, float] | None = None
    sort: str = FILE_ORDER
    descending: bool = False


def _memo(grid: Grid, key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
    if key not in grid.memo:
        grid.memo[key] = make()
    return grid.memo[key]


def search_mask(grid: Grid, text: str, hay: pd.Series | None = None) -> np.ndarray:
    """Rows whose id, input, expected or output holds ``text`` (casefolded);
    ``hay``: ``ui.present.search.haystack(rows)`` when made already."""
    needle = text.strip().casefold()

    def make() -> np.ndarray:
        from ui.present.search import haystack

        h = hay
        if h is None:
            h = grid.memo.get(("haystack",))
            if h is None:
                cols = {"item": grid.text["case"], "output": grid.text["output"],
                        **{c: grid.text[c] for c in ("input", "expected") if c in grid.text}}
                frame = pd.DataFrame({c: pd.Series(v, dtype=object) for c, v in cols.items()})  # a lone surrogate: objects
                h = grid.memo[("haystack",)] = haystack(frame)
        return h.str.contains(needle, regex=False).to_numpy(dtype=bool)

    return _memo(grid, ("search", needle), make)


def verdict_mask(grid: Grid, scorer: str, verdicts: Sequence[str]) -> np.ndarray:
    """Rows whose ``scorer`` verdict (words of ``VERDICT_WORDS``) is one of ``verdicts``;
    ``ANY_GRADER``: any scorer's."""
    codes = tuple(sorted(k for k, v in VERDICTS.items() if v in verdicts))

    def make() -> np.ndarray:
        names = grid.scorers if scorer == ANY_GRADER else [scorer]
        out = np.zeros(grid.n, dtype=bool)
        for s in names:
            out |= np.isin(grid.status[s], codes)
        return out

    return _memo(grid, ("verdict", scorer, codes), make)


def disagreement_mask(grid: Grid, among: Sequence[str] = ()) -> np.ndarray:
    """Rows that one of the graders (``among``; none given: every configured grader)
    passes and another fails."""
    names = tuple(among) or tuple(grid.graders)

    def make() -> np.ndarray:
        passes = np.zeros(grid.n, dtype=np.int16)
        fails = np.zeros(grid.n, dtype=np.int16)
        for s in names:
            passes += grid.status[s] == "pass"
            fails += grid.status[s] == "fail"
        return (passes > 0) & (fails > 0)

    return _memo(grid, ("disagree", names), make)


def harness_verdicts(grid: Grid, file: ResultsFile, column: str) -> np.ndarray:
    """The file's own verdict in ``column`` per grid row: 1 pass, 0 fail, -1 none."""
    def make() -> np.ndarray:
        from graders.scoring.agreement import verdict_columns

        verdicts = verdict_columns(file).get(column)
        if verdicts is None:
            return np.full(grid.n, -1, dtype=np.int8)
        at = grid.file_row
        return np.where(at >= 0, verdicts[np.maximum(at, 0)], -1).astype(np.int8)

    return _memo(grid, ("harness_verdict", column), make)


def harness_mask(grid: Grid, file: ResultsFile, column: str, scorer: str) -> np.ndarray:
    """Rows both the harness (``column``) and ``scorer`` decided, differently (as
    ``scoring.agreement`` counts them: the Score page's agreement table)."""
    def make() -> np.ndarray:
        theirs = harness_verdicts(grid, file, column)
        ours = np.where(grid.status[scorer] == "pass", 1, np.where(grid.status[scorer] == "fail", 0, -1))
        return (theirs >= 0) & (ours >= 0) & (theirs != ours)

    return _memo(grid, ("harness", column, scorer), make)


def metadata_cells(grid: Grid, file: ResultsFile, column: str) -> np.ndarray:
    """The file's cell in ``column`` per grid row, as text ("" where empty)."""
    def make() -> np.ndarray:
        cells = file.frame[column].to_numpy(dtype=object)
        at = grid.file_row
        out = np.where(at >= 0, cells[np.maximum(at, 0)], "")
        return np.array(["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in out.tolist()],
                        dtype=object)

    return _memo(grid, ("meta", column), make)


def metadata_values(grid: Grid, file: ResultsFile, column: str) -> list[tuple[str, int]]:
    """The most frequent values of a file column over the grid's rows, with their counts."""
    def make() -> Any:
        counts = pd.Series(metadata_cells(grid, file, column), dtype=object).value_counts(sort=True)
        return list(zip(counts.index.tolist()[:MAX_VALUES], counts.tolist()[:MAX_VALUES]))

    return _memo(grid, ("meta_values", column), make)


def metadata_mask(grid: Grid, file: ResultsFile, column: str, values: Sequence[str]) -> np.ndarray:
    return _memo(grid, ("meta_in", column, tuple(sorted(values))),
                 lambda: np.isin(metadata_cells(grid, file, column), list(values)))


def score_mask(grid: Grid, scorer: str, low: float, high: float) -> np.ndarray:
    v = grid.values[scorer]
    with np.errstate(invalid="ignore"):
        return (v >= low) & (v <= high)


def mask(grid: Grid, query: GridQuery, file: ResultsFile | None = None, hay: pd.Series | None = None) -> np.ndarray:
    """The rows matching every part of ``query`` (a boolean per row)."""
    out = np.ones(grid.n, dtype=bool)
    if query.search.strip():
        out &= search_mask(grid, query.search, hay)
    if query.verdicts and (query.verdict_scorer == ANY_GRADER or query.verdict_scorer in grid.status):
        out &= verdict_mask(grid, query.verdict_scorer, query.verdicts)
    if query.disagree:
        out &= disagreement_mask(grid)
    if query.harness and query.harness in grid.status and query.harness_column and file is not None:
        out &= harness_mask(grid, file, query.harness_column, query.harness)
    if query.meta_column and query.meta_values and file is not None and query.meta_column in file.columns:
        out &= metadata_mask(grid, file, query.meta_column, query.meta_values)
    if query.score_scorer in grid.values and query.score_range is not None:
        out &= score_mask(grid, query.score_scorer, *query.score_range)
    return out


def sort_keys(grid: Grid) -> list[str]:
    """What the grid sorts by: the file's order, the case id, each scorer's verdict and score."""
    out = [FILE_ORDER, "case"]
    for s in grid.scorers:
        out += [verdict_column(s), score_column(s)]
    return out


_VERDICT_RANK = {"fail": 0, "error": 1, "not_judged": 2, "scored": 3, "pass": 4, "": 5}


def sort_order(grid: Grid, by: str, descending: bool = False) -> np.ndarray:
    """Every row's position in the order ``by`` (a ``sort_keys`` entry), stable (ties in
    file order); rows without a value (no score) last either way."""
    def make() -> np.ndarray:
        if by == FILE_ORDER:
            order = np.arange(grid.n)
            return order[::-1].copy() if descending else order
        if by == "case":
            codes, _ = pd.factorize(pd.Series(grid.text["case"], dtype=object), sort=True)
            key = codes.astype(np.float64)
        else:
            scorer = next((s for s in grid.scorers if by in (verdict_column(s), score_column(s))), None)
            if scorer is None:
                return np.arange(grid.n)
            if by == score_column(scorer):
                key = grid.values[scorer].copy()
            else:
                key = np.array([_VERDICT_RANK.get(s, 5) for s in grid.status[scorer].tolist()], dtype=np.float64)
                key[key == 5] = np.nan
        missing = np.isnan(key)
        key = -key if descending else key
        key[missing] = np.inf
        return np.argsort(key, kind="stable")

    return _memo(grid, ("sort", by, descending), make)


def matching(grid: Grid, query: GridQuery, file: ResultsFile | None = None,
             hay: pd.Series | None = None) -> np.ndarray:
    """The positions of the matching rows, in the query's order."""
    order = sort_order(grid, query.sort, query.descending)
    keep = mask(grid, query, file, hay)
    return order[keep[order]]


def pages(total: int, size: int = PAGE_ROWS) -> int:
    return max(1, -(-total // size))


def page_positions(positions: np.ndarray, page: int, size: int = PAGE_ROWS) -> np.ndarray:
    """The positions of page ``page`` (1-based; clamped to the last page)."""
    page = min(max(1, int(page)), pages(len(positions), size))
    return positions[(page - 1) * size: page * size]


def _cut(values: np.ndarray) -> list[Any]:
    return [v if not isinstance(v, str) or len(v) <= MAX_CELL else v[:MAX_CELL] + "…" for v in values.tolist()]


def page_frame(grid: Grid, at: np.ndarray) -> pd.DataFrame:
    """The table of the rows at ``at``: texts (long ones cut at ``MAX_CELL`` characters),
    then each scorer's verdict in words and its score (a float, empty for none)."""
    data: dict[str, pd.Series] = {}
    for c, values in grid.text.items():
        data[c] = pd.Series(_cut(values[at]), dtype=object)
    for s in grid.scorers:
        data[verdict_column(s)] = pd.Series([VERDICTS.get(v, v) for v in grid.status[s][at].tolist()], dtype=object)
        data[score_column(s)] = pd.Series(grid.values[s][at], dtype=float)
    return pd.DataFrame(data)
