"""What a reader returns: ``ResultsFile`` (a frame of text cells with its record numbers,
format and unreadable rows), ``ResultsFileError`` (a file that cannot be read at all),
and the formats known."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:  # the frame's type only: the command line's parser imports this module
    import pandas as pd

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
# Columns a results file may have: a column per field (id, input, expected, output, a few of
# metadata), so thousands are already a matrix rather than results. Checked before any
# column is built, so that 10^6 columns are refused in a second rather than read in minutes.
MAX_COLUMNS = 10_000
FORMATS = ("csv", "tsv", "jsonl", "json-array", "json-rows")
# The files eval harnesses write (SPEC §10), read by their own modules beside this one.
HARNESS_FORMATS = ("promptfoo", "inspect-eval", "inspect-json", "lm-eval", "parquet")


class ResultsFileError(ValueError):
    """A results file that cannot be read at all: one clear, human message."""


def check_columns(n: int, has: str) -> None:
    """``ResultsFileError`` when ``n`` columns are more than ``MAX_COLUMNS``; ``has`` says
    whose they are ("the header has")."""
    if n > MAX_COLUMNS:
        raise ResultsFileError(f"{has} {n:,} columns, more than the {MAX_COLUMNS:,} a results file may have "
                               "(a column per field: id, input, expected, output, …)")


@dataclass(frozen=True)
class ResultsFile:
    frame: pd.DataFrame  # one row per readable record; object columns of str, None = absent
    records: tuple[int, ...]  # 1-based record number of each frame row
    format: str  # one of FORMATS
    unreadable: tuple[tuple[int, str], ...]  # (record number, reason), in file order
    columns: tuple[str, ...]  # column names in file order (dotted for nested objects)


def headerless_names(n: int) -> list[str]:
    """Column names for a CSV or TSV without a header: ``expected`` and ``output`` for two
    columns (seed 004's two tab-separated columns), else ``column 1`` … ``column n``."""
    return ["expected", "output"] if n == 2 else [f"column {i}" for i in range(1, n + 1)]


_LINE_END = re.compile(r"\r\n?|\n")


def _lines_from(text: str, start: int) -> Iterator[str]:
    """The lines of ``text`` from ``start`` on, each with its line end (CR LF, CR or LF, as
    ``io.StringIO(newline="")`` splits them), made only as they are read: the first record
    of a 100 MB text without copying the rest."""
    for m in _LINE_END.finditer(text, start):
        yield text[start:m.end()]
        start = m.end()
    if start < len(text):
        yield text[start:]
