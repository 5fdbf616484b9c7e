"""CSV and TSV: pandas' C parser with RFC 4180 quoting, every cell as text, a malformed
quote refused with its line number, a record longer than the header unreadable. A header
of more than ``MAX_COLUMNS`` fields is refused before anything is parsed; a wide file
(more than ``WIDE_COLUMNS``) is read with Python's csv module (``_read_wide``)."""

from __future__ import annotations

import csv
import io
import re
import sys
import warnings
from contextlib import contextmanager
from typing import Iterator

import numpy as np
import pandas as pd

from graders.readers.frame import _LINE_END, MAX_COLUMNS, ResultsFile, ResultsFileError, _lines_from, check_columns

_BAD_LINE = re.compile(r"Skipping line (\d+): expected (\d+) fields, saw (\d+)")


_EOF_IN_QUOTES = re.compile(r"EOF inside string starting at row (\d+)")


def _read_delimited(data: bytes, skip: int, sep: str, fmt: str, widest: str = "the header",
                    lines_before: int = 0) -> ResultsFile:
    """CSV or TSV from ``data[skip:]`` (the header onwards); ``widest``: what sets the
    number of fields, for the message of a record with more; ``lines_before``: the file's
    lines before ``data[skip:]``, for a message's line numbers. A quoted cell with text
    after its closing quote is refused in a CSV file (``_check_quotes``): the C parser
    would keep the text without the quotes, or run the following records into the cell. A
    TSV file that does not parse as quoted is read as IANA's text/tab-separated-values
    defines it: a tab ends a field, a line feed a record, and quotes are ordinary
    characters (``_read_plain_tsv``)."""
    width = _header_width(data, skip, sep)
    check_columns(width, f"{widest} has")
    if fmt == "tsv":
        try:
            return _read_quoted(data, skip, sep, fmt, widest, lines_before, width=width)
        except ResultsFileError as e:
            if "quote" not in str(e) and "EOF inside string" not in str(e):
                raise
            return _read_quoted(data, skip, sep, fmt, widest, lines_before, plain=True, width=width)
    return _read_quoted(data, skip, sep, fmt, widest, lines_before, width=width)


def _header_width(data: bytes, skip: int, sep: str) -> int:
    """The header's fields, counted without parsing the file: its first line's separators
    and one; past ``MAX_COLUMNS`` (a separator inside quotes is no field), its first
    record read with the csv module."""
    end = data.find(b"\n", skip)
    width = data.count(sep.encode(), skip, end if end >= 0 else len(data)) + 1
    if width > MAX_COLUMNS:
        width = len(_first_record(str(memoryview(data)[skip:], "utf-8", "surrogateescape"), 0, sep)) or width
    return width


# From this many columns a file is read by ``_read_wide``: pandas makes a Series of each
# column (a tenth of a millisecond apiece), which costs a wide file more than its parsing
# (10,000 columns and one row: 1.8 s, against 15 ms from the csv module's rows).
WIDE_COLUMNS = 500


def _read_quoted(data: bytes, skip: int, sep: str, fmt: str, widest: str, lines_before: int,
                 plain: bool = False, width: int = 0) -> ResultsFile:
    """``_read_delimited``'s reading; ``plain``: no quoting at all (quotes are text);
    ``width``: the header's fields (``_header_width``)."""
    bad_quotes: list[tuple[int, str]] = []
    if not plain:
        if fmt == "tsv" and not _quotes_paired(data, skip, sep) and _malformed_quote(
                str(memoryview(data)[skip:], "utf-8", "surrogateescape"), sep) is not None:
            raise ResultsFileError("a TSV file whose quotes are not paired")  # read plain instead
        data, bad_quotes = _check_quotes(data, skip, sep, fmt, lines_before)
    if width > WIDE_COLUMNS and (plain or _quotes_paired(data, skip, sep)):
        wide = _read_wide(data, skip, sep, fmt, widest, plain, bad_quotes)
        if wide is not None:
            return wide
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        try:
            raw = pd.read_csv(
                io.BytesIO(memoryview(data)[skip:] if skip else data),
                sep=sep,
                header=None,  # the header is read as record 1, so a long record is never an index
                dtype=object,
                keep_default_na=False,
                na_filter=False,
                skip_blank_lines=False,  # blank lines keep their number; dropped below
                skipinitialspace=False,
                quotechar='"',
                doublequote=True,
                quoting=csv.QUOTE_NONE if plain else csv.QUOTE_MINIMAL,
                on_bad_lines="warn",
                engine="c",
                encoding="utf-8",
            )
        except pd.errors.ParserError as exc:
            raise ResultsFileError(_csv_error_message(str(exc), fmt)) from None
        except pd.errors.EmptyDataError:
            raise ResultsFileError("the file is empty") from None
    long_rows: list[tuple[int, str]] = []
    for w in caught:
        if issubclass(w.category, pd.errors.ParserWarning):
            for line, expected, saw in _BAD_LINE.findall(str(w.message)):
                long_rows.append((int(line) - 1, f"has {saw} fields, {widest} has {expected}"))
    long_rows.sort()
    unreadable = sorted(long_rows + bad_quotes)

    header = [str(v) for v in raw.iloc[0].tolist()]
    _check_header(header)
    frame = raw.iloc[1:].reset_index(drop=True)
    frame.columns = header
    n_records = len(frame) + len(long_rows)
    records = np.arange(1, n_records + 1, dtype=np.int64)
    if long_rows:
        records = np.setdiff1d(records, np.array([r for r, _ in long_rows], dtype=np.int64), assume_unique=True)

    # pandas pads a short record with "": find the records whose last cell is "" and count
    # their fields with Python's csv module, to mark padded cells absent and drop blank lines.
    last = frame.iloc[:, -1].to_numpy()
    if len(frame) and (last == "").any():
        lengths = _field_counts(str(memoryview(data)[skip:], "utf-8"), sep, plain)
        # Python's csv module splits records as the C parser does; should they ever
        # disagree, the cells stay "" (missing either way) rather than be guessed.
        if lengths is not None and len(lengths) == n_records + 1:
            lengths = lengths[1:][records - 1]
            blank = lengths == 0
            short = np.flatnonzero((lengths < len(header)) & ~blank)
            for j in range(1, len(header)):
                rows = short[lengths[short] <= j]
                if len(rows):
                    frame.iloc[rows, j] = None
            if blank.any():
                keep = ~blank
                frame = frame.loc[keep].reset_index(drop=True)
                records = records[keep]
    return ResultsFile(
        frame=frame,
        records=tuple(records.tolist()),
        format=fmt,
        unreadable=tuple(unreadable),
        columns=tuple(header),
    )


def _read_wide(data: bytes, skip: int, sep: str, fmt: str, widest: str, plain: bool,
               bad_quotes: list[tuple[int, str]]) -> ResultsFile | None:
    """``_read_quoted``'s result from Python's csv module, whose records and fields are the C
    parser's for a file whose quotes pair off (``_quotes_paired``) or are text (``plain``):
    every record a list, the frame one block of cells (absent past a short record's end, a
    blank line skipped, a record longer than the header unreadable). None where the csv
    module finds the file malformed (the C parser then says how)."""
    reader = csv.reader(io.StringIO(str(memoryview(data)[skip:], "utf-8", "surrogateescape"), newline=""),
                        delimiter=sep, quotechar='"', doublequote=True,
                        quoting=csv.QUOTE_NONE if plain else csv.QUOTE_MINIMAL)
    with _cells_of_any_size():
        try:
            rows = list(reader)
        except csv.Error:
            return None
    if not rows or not rows[0]:  # no header left (its record was malformed): the C parser's messages
        return None
    header = rows[0]
    _check_header(header)
    n = len(header)
    kept: list[list[str]] = []
    records: list[int] = []
    long_rows: list[tuple[int, str]] = []
    for number, row in enumerate(rows[1:], 1):
        if len(row) > n:
            long_rows.append((number, f"has {len(row)} fields, {widest} has {n}"))
        elif row:  # a blank line keeps its number
            kept.append(row)
            records.append(number)
    cells = np.empty((len(kept), n), dtype=object)  # None: past a short record's end
    for i, row in enumerate(kept):
        cells[i, :len(row)] = row
    frame = pd.DataFrame(cells, columns=pd.Index(header, dtype=object), dtype=object, copy=False)
    return ResultsFile(frame=frame, records=tuple(records), format=fmt,
                       unreadable=tuple(sorted(long_rows + bad_quotes)), columns=tuple(header))


_QUOTE_SCAN = 1 << 20


def _quotes_paired(data: bytes, skip: int, sep: str) -> bool:
    """Whether every quote of ``data[skip:]`` pairs off as the C parser reads them when no
    cell holds a quote outside quotes: the quotes alternate opening and closing, each
    opening one at the start of a cell (or right after a closing one: a doubled quote)
    and each closing one at its end (or right before an opening one). Then no quoted cell
    has text after its closing quote. False does not say the file is malformed: a quote
    inside an unquoted cell (``He said "hi"``) is read as written, and ``_malformed_quote``
    decides. At C speed: a few milliseconds for 10 MB."""
    b = np.frombuffer(data, dtype=np.uint8)[skip:]
    if len(b) == 0 or data.find(b'"', skip) < 0:
        return True
    # Found a megabyte at a time: one mask of the whole file is fresh memory, which costs
    # more to touch than the comparison.
    quotes = np.concatenate([np.flatnonzero(b[a:a + _QUOTE_SCAN] == 34) + a for a in range(0, len(b), _QUOTE_SCAN)])
    if len(quotes) % 2:
        return False
    cell_end = np.zeros(256, dtype=np.bool_)  # the bytes a quote may stand beside
    cell_end[[ord(sep), 10, 13, 34]] = True
    opening, closing = quotes[0::2], quotes[1::2]
    return bool(
        (cell_end[b[np.maximum(opening - 1, 0)]] | (opening == 0)).all()
        and (cell_end[b[np.minimum(closing + 1, len(b) - 1)]] | (closing == len(b) - 1)).all()
    )


def _malformed_quote(text: str, sep: str) -> tuple[int, int, str] | None:
    """The first record with a quote the C parser would read leniently, as (its first
    line, the line of the fault, Python's csv message), from Python's csv module in strict
    mode (which reads every well-formed record as the C parser does); None when none."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, quotechar='"', doublequote=True, strict=True)
    start = 1
    with _cells_of_any_size():
        while True:
            try:
                next(reader)
            except StopIteration:
                return None
            except csv.Error as exc:
                return start, reader.line_num, str(exc)
            start = reader.line_num + 1


def _line_start(text: str, line: int) -> int:
    """Where line ``line`` (1-based; CR LF, CR or LF ending each) of ``text`` starts."""
    at = 0
    for m, _ in zip(_LINE_END.finditer(text), range(line - 1)):
        at = m.end()
    return at


MAX_BAD_QUOTES = 1000  # records left out for a malformed quote before the file is refused


def _check_quotes(data: bytes, skip: int, sep: str, fmt: str, lines_before: int) -> tuple[bytes, list[tuple[int, str]]]:
    """Find each record with a quoted cell that has text after its closing quote: read
    leniently, ``"Easy Returns" is the policy`` would lose its quotes, and an unpaired
    quote would take the records after it into its cell. Each such record is left out
    (SPEC §5), its lines blanked so the records after it keep their numbers; returns the
    data to read and the (record, reason) left out. A quote never closed is refused whole."""
    if _quotes_paired(data, skip, sep):
        return data, []
    text = str(memoryview(data)[skip:], "utf-8", "surrogateescape")
    left: list[tuple[int, str]] = []
    while True:
        found = _malformed_quote(text, sep)
        if found is None:
            break
        start, fault, message = found
        begin = _line_start(text, start)
        line = next(iter(_lines_from(text, begin)), "").rstrip("\r\n")
        shown = line if len(line) <= 60 else line[:59] + "…"
        where = f"line {start + lines_before}" + (f" (to line {fault + lines_before})" if fault > start else "")
        if "expected after" not in message:  # a quote never closed: the parser's own message refuses the file
            break
        if len(left) >= MAX_BAD_QUOTES:
            raise ResultsFileError(f"malformed {fmt.upper()}: more than {MAX_BAD_QUOTES:,} records have a quoted cell "
                                   f"with text after its closing quote (the last at {where})")
        with _cells_of_any_size():
            record = sum(1 for _ in csv.reader(io.StringIO(text[:begin], newline=""), delimiter=sep, quotechar='"'))
        left.append((record, f"at {where} has a quoted cell with text after its closing quote ({shown!r}); "
                             "write such a cell whole in quotes, its own quotes doubled: \"\"\"Yes\"\" it is\" for \"Yes\" it is"))
        end = _line_start(text, fault + 1) if fault >= start else len(text)
        if end <= begin:  # the fault is on the last line
            end = len(text)
        ends = _LINE_END.findall(text, begin, end)
        text = text[:begin] + "".join(ends) + text[end:]  # the record's lines, blank
    if not left:
        return data, []
    return data[:skip] + text.encode("utf-8", "surrogateescape"), left


def _check_header(header: list[str]) -> None:
    seen: dict[str, int] = {}
    for i, col in enumerate(header, 1):
        if col in seen:
            raise ResultsFileError(f"duplicate column name {col!r} in the header (columns {seen[col]} and {i})")
        seen[col] = i


def _csv_error_message(msg: str, fmt: str) -> str:
    m = _EOF_IN_QUOTES.search(msg)
    kind = fmt.upper()
    if m:
        row = int(m.group(1))
        where = "the header" if row == 0 else f"record {row}"
        return f"malformed {kind}: a quoted field in {where} is never closed (a '\"' is missing)"
    return f"malformed {kind}: {msg.replace('Error tokenizing data. C error: ', '').strip()}"


@contextmanager
def _cells_of_any_size() -> Iterator[None]:
    """Python's csv module without its 131,072-character cell limit, for the block."""
    old = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        yield
    finally:
        csv.field_size_limit(old)


def _first_record(text: str, start: int, sep: str) -> list[str]:
    """The fields of the record at ``start`` (a cell may be of any length)."""
    with _cells_of_any_size():
        try:
            return next(csv.reader(_lines_from(text, start), delimiter=sep, quotechar='"'), [])
        except csv.Error:  # malformed quoting: the reader says where
            return []


def _field_counts(text: str, sep: str, plain: bool = False) -> np.ndarray | None:
    """Fields per record (header included; 0 for a blank line), as the C parser splits them
    (``plain``: quotes are text)."""
    with _cells_of_any_size():
        try:
            quoting = csv.QUOTE_NONE if plain else csv.QUOTE_MINIMAL
            reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, quotechar='"', doublequote=True,
                                quoting=quoting)
            return np.fromiter(map(len, reader), dtype=np.int64)
        except csv.Error:
            return None
