"""A run's figures by the value of one column of its file: slices (issue 33).

    >>> from graders.pipeline import score_file
    >>> data = b"id,expected,output,topic\\n1,a,a,x\\n2,a,b,x\\n3,a,a,y\\n"
    >>> run = score_file(data, {"graders": [{"name": "exact"}]}, by="topic")
    >>> [(s["value"], s["rows"], s["graders"]["exact"]["passed"]) for s in run.summary["by"]["slices"]]
    [('x', 2, 1), ('y', 1, 1)]

Settings, stated once:

- Any column of the file slices, a dotted one too (``metadata.category``: the readers
  spell a JSON object's fields so). A row's slice is its cell of that column, as written.
- A cell that is absent or empty is *missing*: those rows are one more slice, listed last,
  whose ``value`` is None (null in the summary JSON).
- Slices are in order of value: numerically when every value is a finite number, else
  as text.
- Each slice has the figures the run summary has for the whole file, from the same code
  (``summary._Columns``): per grader graded, passed, failed, no answer (for a grader with
  extraction), not judged, errors, near misses, mean score and the pass rate with its
  Wilson 95% interval, clustered by case where a slice's decided rows repeat a case
  (``summary.clustered_rates``). ``rows`` counts the slice's outputs (one per case,
  system and repeat). With several systems each slice has ``systems`` as well, as the
  summary does.
- A column with more than ``MAX_SLICES`` values (an id, an output) is refused.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from graders.readers.frame import ResultsFile
from graders.scoring.summary import Tally, _Columns, factorized, positions_by_code, repeat_cases
from graders.text.show import quoted_name

MAX_SLICES = 1000
MISSING = "a row whose cell is absent or empty is in the slice with value null, listed last"


class SliceError(ValueError):
    """A column that cannot slice the file: the message names the columns there are."""


def check_column(file: ResultsFile, column: str) -> None:
    """``SliceError`` unless ``column`` is one of the file's columns, naming them all."""
    if column not in file.frame.columns:
        names = ", ".join(quoted_name(str(c)) for c in file.columns) or "none"
        raise SliceError(f"no column {column!r} to slice by; the file's columns: {names}")


def record_cells(file: ResultsFile, column: str, records: np.ndarray) -> np.ndarray:
    """The file's cells of ``column`` at these record numbers, None where missing (absent or "")."""
    check_column(file, column)
    at = pd.Index(np.asarray(file.records, dtype=np.int64)).get_indexer(np.asarray(records, dtype=np.int64))
    if (at < 0).any():
        raise ValueError("record numbers that are not the file's")
    cells = file.frame[column].to_numpy(dtype=object)[at]
    cells[pd.isna(cells) | (cells == "")] = None
    return cells


def row_values(file: ResultsFile, rows: pd.DataFrame, column: str) -> np.ndarray:
    """Each prepared row's cell of ``column`` (``record_cells``)."""
    return record_cells(file, column, rows["record"].to_numpy(dtype=np.int64))


def _in_order(values: Sequence[Any]) -> list[Any]:
    """``values`` in numeric order when every one is a finite number, else as text."""
    try:
        numbers = [float(v) for v in values]
    except (TypeError, ValueError):
        numbers = None
    if numbers is not None and all(map(math.isfinite, numbers)):
        return [v for _, _, v in sorted(zip(numbers, map(str, values), values))]
    return sorted(values, key=str)


def slice_codes(values: np.ndarray, column: str = "the column") -> tuple[np.ndarray, list[Any]]:
    """(each value's slice code, the slice values in order): missing values (None) the
    last slice, whose value is None. ``SliceError`` beyond ``MAX_SLICES`` values."""
    codes, distinct = pd.factorize(np.asarray(values, dtype=object))  # None: code -1
    where = {v: i for i, v in enumerate(distinct.tolist()) if v != ""}
    if len(where) > MAX_SLICES:
        raise SliceError(f"{quoted_name(column)} has {len(where):,} distinct values; slices are for a column of at most "
                         f"{MAX_SLICES:,} (a category, a difficulty, a language)")
    names = _in_order(list(where))
    # 16-bit codes (MAX_SLICES fits): numpy sorts them by radix, ten times faster than wider ones
    remap = np.full(len(distinct) + 1, len(names), dtype=np.int16)  # "" and the last entry (code -1): missing
    remap[[where[v] for v in names]] = np.arange(len(names))
    out = remap[codes]
    return out, names + ([None] if (out == len(names)).any() else [])


class Slicer:
    """A run's scored rows ready to be sliced by any column: what the summary reads of them
    (``summary._Columns``), each scored row's prepared row and the repeat cases, found
    once; ``by`` then slices them by one column's values. ``scored``: the scored frame (with
    ``record``) or a ``Tally``; ``rows``: the prepared rows it was scored from;
    ``extracting``: the graders run with ``extract`` (None: read from the rows' metadata)."""

    def __init__(self, scored: pd.DataFrame | Tally, rows: pd.DataFrame,
                 extracting: Sequence[str] | None = None) -> None:
        self.cols = _Columns(scored, extracting)
        if isinstance(scored, Tally):
            if scored.positions is None:
                raise ValueError("these scored rows do not say which row each came from")
            self.row_of = scored.positions
        else:
            self.row_of = self._positions(scored["record"], rows)
        self.cases = repeat_cases(scored, rows, self.cols, self.row_of)
        self.several = len(self.cols.system_names) > 1

    def _positions(self, records: pd.Series, rows: pd.DataFrame) -> np.ndarray:
        """Each scored row's position in ``rows`` (``batch._source_positions``), found by
        (record, system) as one integer, the systems as ``_Columns`` coded them already: a
        prepared row is one record's output column, so (record, system) names one row."""
        row_systems, names = factorized(rows["system"].to_numpy(dtype=object))
        code = {name: i for i, name in enumerate(names)}
        mine = np.array([code.get(name, -1) for name in self.cols.system_names] + [-1], dtype=np.int64)
        systems = mine[self.cols.system_codes]  # a code of -1 (no system) takes the -1 at the end
        at = pd.Index(rows["record"].to_numpy(dtype=np.int64) * len(names) + row_systems).get_indexer(
            records.to_numpy(dtype=np.int64) * len(names) + systems)
        if (systems < 0).any() or (at < 0).any():
            raise ValueError("scored rows that are not from these rows")
        return at

    def by(self, column: str, values: np.ndarray) -> dict[str, Any]:
        """``{"column", "missing", "slices": [{"value", "rows", "graders", ["systems"]}]}``:
        ``values`` one per prepared row (``row_values``)."""
        cols = self.cols
        codes, names = slice_codes(values, column)
        rows = np.bincount(codes, minlength=len(names))
        groups = positions_by_code(codes[self.row_of], list(range(len(names))))
        slices = []
        for k, name in enumerate(names):
            at = groups.get(k, np.empty(0, dtype=np.intp))
            entry = {"value": name, "rows": int(rows[k]), "graders": cols.by_scorer(at, self.cases)}
            if self.several:
                entry["systems"] = {str(system): cols.by_scorer(where, self.cases)
                                    for system, where in positions_by_code(cols.system_codes, cols.system_names, at).items()}
            slices.append(entry)
        return {"column": column, "missing": MISSING, "slices": slices}


def slice_summary(file: ResultsFile, rows: pd.DataFrame, scored: pd.DataFrame | Tally, column: str,
                  extracting: Sequence[str] | None = None) -> dict[str, Any]:
    """The run's figures by ``column`` of ``file`` (the summary's ``by`` section)."""
    values = row_values(file, rows, column)
    return Slicer(scored, rows, extracting).by(column, values)
