"""Read a results file into a frame of text cells, exactly as written (SPEC §5).

    >>> f = read_results(b"id,output\\n1,007\\n2,NA\\n")
    >>> f.format, f.frame["output"].tolist(), f.records
    ('csv', ['007', 'NA'], (1, 2))

Formats: ``csv``, ``tsv``, ``jsonl``, ``json-array`` (an array of objects) and
``json-rows`` (an object with a ``rows`` array). UTF-8 with or without a BOM, CRLF or LF.

Settings, stated once:

- Cells are text exactly as written. Nothing is guessed: ``NA``, ``null``, ``None``,
  ``nan``, ``""``, ``007``, ``3.10`` and surrounding spaces stay as they are.
- The frame has ``object`` dtype columns holding plain ``str``; an *absent* cell is
  ``None`` (never NaN), distinct from the empty string ``""``. A cell is absent when a JSON
  record lacks the key, or a CSV/TSV record is shorter than the header.
- CSV and TSV: pandas' C parser, RFC 4180 quoting (``"`` quotes, ``""`` escapes a quote),
  no ``skipinitialspace``. TSV uses the same quoting, as pandas and Python's ``csv``
  write it. A record with more fields than the header is unreadable. Blank lines are
  skipped but keep their record number, so numbers match a spreadsheet's rows.
- JSON: numbers keep their source spelling (``3.10``, ``1e5``, ``-0``); ``true``,
  ``false``, ``null`` become the text ``"true"``, ``"false"``, ``"null"``; strings as
  decoded. A field whose value is an object is that object as compact JSON text, and each
  of its fields one level deep is a dotted column as well (``metadata.harnessPass``):
  ``"expected": {"age": 34}`` gives ``expected`` = ``{"age":34}`` and ``expected.age`` =
  ``34``. Deeper objects and arrays are compact JSON text too; numbers are spelled as in
  the source.
- Record numbers are 1-based: the record after the header for CSV/TSV (quoted newlines do
  not count, blank lines do), the line for JSON lines (blank lines skipped, not
  unreadable), the array entry for JSON documents.
- Fatal problems raise ``ResultsFileError`` with one line; rows that cannot be read are
  listed in ``ResultsFile.unreadable`` and the rest is read. Messages do not name the
  file: the caller knows it.
"""

from __future__ import annotations

import codecs
import csv
import gc
import io
import json
import os
import re
import sys
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import compress
from operator import not_
from typing import Any, Iterator

import numpy as np
import pandas as pd

from graders.text.normalize import quoted_name

__all__ = [
    "DEFAULT_MAX_BYTES", "FORMATS", "ResultsFile", "ResultsFileError", "detect_format", "read_results",
]

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
FORMATS = ("csv", "tsv", "jsonl", "json-array", "json-rows")


class ResultsFileError(ValueError):
    """A results file that cannot be read at all: one clear, human message."""


@dataclass(frozen=True)
class ResultsFile:
    frame: pd.DataFrame  # one row per readable record; object columns of str, None = absent
    records: tuple[int, ...]  # 1-based record number of each frame row
    format: str  # one of FORMATS
    unreadable: tuple[tuple[int, str], ...]  # (record number, reason), in file order
    columns: tuple[str, ...]  # column names in file order (dotted for nested objects)


# --------------------------------------------------------------------------- loading


def read_results(
    source: str | os.PathLike | bytes,
    *,
    format: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str | None = None,
    header: bool = True,
) -> ResultsFile:
    """Read a results file (a path, or the file's bytes) into a ``ResultsFile``.

    ``format`` overrides detection; ``name`` (a file name) is a hint for detection and
    defaults to the path's name. A file over ``max_bytes`` is refused before it is read.
    ``header=False``: a CSV or TSV file's first line is a record, not a header, and the
    columns are named for it (``headerless_names``: two are expected and output, as rows
    pasted from a spreadsheet are); a JSON file names its own fields, so it is unaffected.
    """
    if format is not None and format not in FORMATS:
        raise ResultsFileError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        _check_size(len(data), max_bytes)
    else:
        path = os.fspath(source)
        if name is None:
            name = os.path.basename(path)
        data = _read_path(path, max_bytes)
    text, bom = _decode(data)
    fmt, doc = (format, None) if format else _sniff(text, name)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of small containers: the cyclic collector only slows loading
    try:
        # Drop what each reader no longer needs: a 100 MB file is several copies of itself.
        if fmt in ("csv", "tsv"):
            sep = "\t" if fmt == "tsv" else ","
            skip = bom + _blank_lines(text, sep)
            lines_before = len(_LINE_END.findall(text, 0, skip - bom))  # for a message's line numbers
            if not header:  # a header line in front, naming as many columns as the first record has
                first = _first_record(text, skip - bom, sep)
                data, skip = (sep.join(headerless_names(len(first))) + "\n").encode("utf-8") + data[skip:], 0
                lines_before -= 1
            del text
            result = _read_delimited(data, skip, sep, fmt, "the header" if header else "the first row", lines_before)
        elif fmt == "jsonl":
            del data
            lines = text.split("\n")
            del text
            result = _read_jsonl(lines)
        else:
            del data
            result = _read_json_document(text, fmt, doc)
    finally:
        if gc_was_enabled:
            gc.enable()
    if len(result.frame) == 0:
        raise ResultsFileError(_no_rows_message(result))
    return result


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


def headerless_names(n: int) -> list[str]:
    """Column names for a CSV or TSV without a header: ``expected`` and ``output`` for two
    columns (seed 004's two tab-separated columns), else ``column 1`` … ``column n``."""
    return ["expected", "output"] if n == 2 else [f"column {i}" for i in range(1, n + 1)]


def _read_path(path: str, max_bytes: int) -> bytes:
    try:
        size = os.stat(path).st_size
        _check_size(size, max_bytes)
        with open(path, "rb") as fh:
            # No buffer of the limit's size up front (a limit of 30 GB is a fine limit for
            # a 26-byte file): the size the file has, and the rest, if it grew or is a pipe
            # without a size, a megabyte at a time up to one byte past the limit.
            data = fh.read(min(max_bytes, size) + 1)
            if len(data) > size:
                parts, total = [data], len(data)
                while total <= max_bytes:
                    more = fh.read(min(1 << 20, max_bytes + 1 - total))
                    if not more:
                        break
                    parts.append(more)
                    total += len(more)
                data = b"".join(parts)
    except ResultsFileError:
        raise
    except FileNotFoundError:
        raise ResultsFileError(f"no such file: {quoted_name(os.fspath(path))}") from None
    except IsADirectoryError:
        raise ResultsFileError(f"is a directory, not a results file: {quoted_name(os.fspath(path))}") from None
    except OSError as exc:
        raise ResultsFileError(f"cannot read {quoted_name(os.fspath(path))}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # a pipe, or a file that grew: read only one byte past the limit
        limit = _megabytes(max_bytes)
        raise ResultsFileError(f"the file is over the {limit} limit (max_bytes); its size was not known before reading")
    return data


def max_bytes_of(mb: float | None) -> int:
    """``--max-mb``'s bytes (None: ``DEFAULT_MAX_BYTES``); ``ResultsFileError`` unless a
    number of MB > 0."""
    import math

    if mb is None:
        return DEFAULT_MAX_BYTES
    if not (math.isfinite(mb) and mb > 0):
        raise ResultsFileError(f"--max-mb takes a number of MB > 0, not {mb:g}")
    return int(min(mb * 1024 * 1024, sys.maxsize))


def _check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        have, limit = _megabytes(size), _megabytes(max_bytes)
        if have == limit:
            have, limit = f"{size:,} bytes", f"{max_bytes:,} bytes"
        raise ResultsFileError(f"the file is {have}, over the {limit} limit (max_bytes)")


def _megabytes(n: int) -> str:
    mb = n / (1024 * 1024)
    return f"{mb:.0f} MB" if mb >= 10 else f"{mb:.1f} MB" if mb >= 0.1 else f"{n:,} bytes"


def _decode(data: bytes) -> tuple[str, int]:
    """Validate and decode UTF-8 text; return (text without BOM, BOM length)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not data.startswith(codecs.BOM_UTF32_LE):
        raise ResultsFileError("the file is UTF-16 text; save it as UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ResultsFileError(f"binary file: a NUL byte at byte offset {nul}; expected UTF-8 text")
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = str(memoryview(data)[bom:], "utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + bom
        raise ResultsFileError(
            f"not UTF-8 text: byte 0x{data[offset]:02x} at byte offset {offset} is not valid UTF-8"
        ) from None
    if not text or text.isspace():
        raise ResultsFileError("the file is empty" if not text else "the file holds only whitespace")
    return text, bom


def _no_rows_message(result: ResultsFile) -> str:
    if result.unreadable:
        record, reason = result.unreadable[0]
        unit, units = {"jsonl": ("line", "lines"), "csv": ("record", "records"),
                       "tsv": ("record", "records")}.get(result.format, ("entry", "entries"))
        n = len(result.unreadable)
        return f"no readable rows: {n} {unit if n == 1 else units} could not be read ({unit} {record} {reason})"
    if result.format in ("csv", "tsv"):
        return "no rows: the file has a header and no records"
    return "no rows: the file holds no records"


# --------------------------------------------------------------------------- detection

_DELIMITED_HINTS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}
_SPACES = re.compile(r"\s*")
_NOT_SPACE = re.compile(r"\S")
_NEWLINES = re.compile(r"[\r\n]*")
_BLANK_LINES = re.compile(r"(?:[^\S\r\n]*(?:\r\n?|\n))*")  # whitespace-only ones too
_JSONL_HINTS = (".jsonl", ".ndjson", ".jsonlines")


def _blank_lines(text: str, sep: str) -> int:
    """Where a CSV or TSV file's header starts: after its empty lines, and after lines of
    only whitespace too (as ``_sniff`` skips them) when the line after them has the
    delimiter, so a one-column file named " " keeps its header."""
    empty, blank = _NEWLINES.match(text).end(), _BLANK_LINES.match(text).end()
    if blank > empty:
        end = text.find("\n", blank)
        if sep in text[blank:end if end >= 0 else len(text)]:
            return blank
    return empty


def detect_format(data: bytes, name: str | None = None) -> str:
    """Tell a results file's format from its content and its name.

    ``{`` or ``[`` first: one JSON document spanning the file is ``json-rows`` (an object)
    or ``json-array``; several values, one a line, is ``jsonl``. A file that is not one
    document is ``jsonl`` when at least half its first lines are JSON objects (so a broken
    line does not make it CSV). The name settles what the content leaves open:

    * ``.jsonl`` / ``.ndjson`` / ``.jsonlines``: JSON lines unless the whole file is one
      document that is not an object on one line (a pretty-printed document, or an array),
      so a broken or non-object first line is that line's problem, and a one-record file
      with a field named ``rows`` is that record;
    * ``.csv`` / ``.tsv`` / ``.tab``: CSV or TSV unless the whole file is one JSON document
      or mostly JSON lines, so a header such as ``[tag],id,…`` is a header.

    Otherwise the header line's tabs and commas choose between ``tsv`` and ``csv``, the
    name breaking a tie.
    """
    text, _ = _decode(data)
    return _sniff(text, name)[0]


def _sniff(text: str, name: str | None) -> tuple[str, Any]:
    """(format, the decoded document when the sniff had to decode it whole, else None)."""
    ext = os.path.splitext(name or "")[1].lower()
    start = _SPACES.match(text).end()  # (no copies of a 100 MB text: match, find, slice)
    if text[start] in "{[":
        found = _sniff_json(text, start, ext)
        if found is not None:
            return found
    # Not JSON from the first character: JSON lines whose first line is broken, a
    # broken JSON document, or (most often) CSV / TSV.
    elif ext in _JSONL_HINTS or _mostly_json_lines(text):
        return "jsonl", None
    elif ext == ".json":
        return "json-rows", None  # the document reader says where it breaks
    end = text.find("\n", start)
    header = text[start:end if end >= 0 else len(text)]
    tabs, commas = header.count("\t"), header.count(",")
    if tabs and not commas:
        return "tsv", None
    if commas and not tabs:
        return "csv", None
    if ext in _DELIMITED_HINTS:
        return _DELIMITED_HINTS[ext], None
    if tabs and commas:  # both on the first line: the one every line has as often
        steady = _steady_separator(text, start)
        if steady is not None:
            return steady, None
    return ("tsv" if tabs > commas else "csv"), None


def _steady_separator(text: str, start: int, sample: int = 50) -> str | None:
    """"tsv" when each of the first non-blank lines (up to ``sample``) has as many tabs as
    the first, else "csv" when each has as many commas; None when neither holds. Rows of
    prose pasted as two tab-separated columns have one tab a line and commas at random."""
    head = text[start:start + (1 << 20)]
    lines = [ln for ln in head.split("\n", sample * 4)[:sample * 4] if ln.strip()][:sample]
    if len(lines) > 1 and len(head) < len(text) - start:
        lines = lines[:-1]  # the last may be cut short
    for sep, fmt in (("\t", "tsv"), (",", "csv")):
        counts = {ln.count(sep) for ln in lines}
        if len(counts) == 1 and counts != {0}:
            return fmt
    return None


def _sniff_json(text: str, start: int, ext: str) -> tuple[str, Any] | None:
    """The format of a text starting with ``{`` or ``[``; None when it is CSV or TSV after
    all (a ``.csv`` / ``.tsv`` name, and not JSON)."""
    as_document = "json-array" if text[start] == "[" else "json-rows"
    named_jsonl, named_delimited = ext in _JSONL_HINTS, ext in _DELIMITED_HINTS
    try:
        value, end = _FAST.raw_decode(text, start)
    except (json.JSONDecodeError, RecursionError):
        # Not one document: JSON lines with a broken line, a broken document, or a header.
        if named_jsonl or _mostly_json_lines(text):
            return "jsonl", None
        return None if named_delimited else (as_document, None)
    one_line = text.find("\n", start, end) < 0
    line_end = text.find("\n", end)
    rest = text[end:line_end if line_end >= 0 else len(text)].lstrip(" ")
    if rest[:1] in ("\t", ",") and rest[1:].strip():
        return None  # a JSON cell and more cells on its line: CSV or TSV rows
    if _NOT_SPACE.search(text, end):
        # A second value follows: JSON lines, unless the first is not an object on one
        # line (then a document with trailing text, whose error the reader reports).
        if named_delimited and not _mostly_json_lines(text):
            return None
        if named_jsonl or (one_line and type(value) is tuple):
            return "jsonl", None
        return as_document, None
    if type(value) is tuple and one_line and (named_jsonl or "rows" not in dict(value)):
        return "jsonl", None  # one record on one line
    return as_document, value


def _mostly_json_lines(text: str, sample: int = 100) -> bool:
    """Whether at least half the first non-blank lines (up to ``sample``) are JSON objects."""
    head = text if len(text) <= 1 << 20 else text[: 1 << 20].rsplit("\n", 1)[0]
    lines = [ln for ln in head.split("\n", 4 * sample)[: 4 * sample] if ln.strip()][:sample]
    objects = 0
    for line in lines:
        try:
            objects += type(_FAST.decode(line)) is tuple
        except (json.JSONDecodeError, RecursionError):
            pass
    return objects > 0 and objects * 2 >= len(lines)


# --------------------------------------------------------------------------- CSV / TSV

_BAD_LINE = re.compile(r"Skipping line (\d+): expected (\d+) fields, saw (\d+)")
_EOF_IN_QUOTES = re.compile(r"EOF inside string starting at row (\d+)")


def _read_delimited(data: bytes, skip: int, sep: str, fmt: str, widest: str = "the header",
                    lines_before: int = 0) -> ResultsFile:
    """CSV or TSV from ``data[skip:]`` (the header onwards); ``widest``: what sets the
    number of fields, for the message of a record with more; ``lines_before``: the file's
    lines before ``data[skip:]``, for a message's line numbers. A quoted cell with text
    after its closing quote is refused (``_check_quotes``): the C parser would keep the
    text without the quotes, or run the following records into the cell."""
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
                on_bad_lines="warn",
                engine="c",
                encoding="utf-8",
            )
        except pd.errors.ParserError as exc:
            raise ResultsFileError(_csv_error_message(str(exc), fmt)) from None
        except pd.errors.EmptyDataError:
            raise ResultsFileError("the file is empty") from None
    _check_quotes(data, skip, sep, fmt, lines_before)
    long_rows: list[tuple[int, str]] = []
    for w in caught:
        if issubclass(w.category, pd.errors.ParserWarning):
            for line, expected, saw in _BAD_LINE.findall(str(w.message)):
                long_rows.append((int(line) - 1, f"has {saw} fields, {widest} has {expected}"))
    long_rows.sort()

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
        lengths = _field_counts(str(memoryview(data)[skip:], "utf-8"), sep)
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
        unreadable=tuple(long_rows),
        columns=tuple(header),
    )


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


def _check_quotes(data: bytes, skip: int, sep: str, fmt: str, lines_before: int) -> None:
    """Refuse a file with a quoted cell that has text after its closing quote, naming the
    line: read leniently, ``"Easy Returns" is the policy`` would lose its quotes, and an
    unpaired quote would take the records after it into its cell."""
    if _quotes_paired(data, skip, sep):
        return
    text = str(memoryview(data)[skip:], "utf-8", "surrogateescape")
    found = _malformed_quote(text, sep)
    if found is None:
        return
    start, fault, message = found
    line = next(iter(_lines_from(text, _line_start(text, start))), "").rstrip("\r\n")
    shown = line if len(line) <= 60 else line[:59] + "…"
    where = f"line {start + lines_before}" + (f" (to line {fault + lines_before})" if fault > start else "")
    if "expected after" in message:
        raise ResultsFileError(
            f"malformed {fmt.upper()} at {where}: a quoted cell has text after its closing quote "
            f"({shown!r}). Write such a cell whole in quotes, its own quotes doubled: "
            f"\"\"\"Yes\"\" it is\" for \"Yes\" it is."
        )
    raise ResultsFileError(f"malformed {fmt.upper()} at {where}: {message} ({shown!r})")


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


def _field_counts(text: str, sep: str) -> np.ndarray | None:
    """Fields per record (header included; 0 for a blank line), as the C parser splits them."""
    with _cells_of_any_size():
        try:
            reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, quotechar='"', doublequote=True)
            return np.fromiter(map(len, reader), dtype=np.int64)
        except csv.Error:
            return None


# --------------------------------------------------------------------------- JSON
#
# Two decoders. Objects decode to tuples of (key, value) pairs, so a key named twice is
# seen rather than silently overwritten. The fast one turns numbers into plain str: right
# for every cell, since a cell is the number's text. It cannot tell 1 from "1" inside an
# array or a nested object, so a record holding one is decoded again with the exact one,
# whose numbers are `_Number` (a str that serializes unquoted).


class _Number(str):
    """A JSON number's source text (so ``3.10`` stays ``3.10``)."""

    __slots__ = ()


_FAST = json.JSONDecoder(parse_float=str, parse_int=str, parse_constant=str, object_pairs_hook=tuple)
_EXACT = json.JSONDecoder(parse_float=_Number, parse_int=_Number, parse_constant=_Number, object_pairs_hook=tuple)
_dumps_str = json.JSONEncoder(ensure_ascii=False).encode
_ONLY_STR = frozenset((str,))


class _BadRecord(Exception):
    pass


class _NeedExact(Exception):
    pass


def _object(pairs: tuple, prefix: str | None = "") -> dict:
    """The pairs as a dict; a key named twice makes the record unreadable."""
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                if prefix is None:
                    raise _BadRecord(f"names the field {key!r} twice in a nested object")
                raise _BadRecord(f"names the field {prefix + key!r} twice")
            seen.add(key)
    return d


def _scalar(value: Any) -> str:
    """A JSON scalar as cell text (numbers arrive as their text)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    return str.__str__(value)


class _Text(str):
    """Punctuation ``_compact`` writes as it is (a JSON string value is ``str`` itself)."""

    __slots__ = ()


_SCALAR_TEXT = {True: "true", False: "false", None: "null"}
_KEY_TEXT: dict[str, str] = {}  # '"key":' per object key seen (files repeat their keys)


def _key_text(key: str) -> str:
    text = _KEY_TEXT.get(key)
    if text is None:
        if len(_KEY_TEXT) >= 4096:
            _KEY_TEXT.clear()
        text = _KEY_TEXT[key] = _dumps_str(key) + ":"
    return text


def _compact_flat(pairs: tuple) -> str | None:
    """``_compact`` of an object whose values are all scalars (most metadata), or None."""
    parts = []
    for key, v in pairs:
        t = type(v)
        if t is _Number:
            parts.append(_key_text(key) + v)
        elif t is str:
            parts.append(_key_text(key) + _dumps_str(v))
        elif t is bool or v is None:
            parts.append(_key_text(key) + _SCALAR_TEXT[v])
        else:
            return None
    return "{" + ",".join(parts) + "}"


def _compact(value: Any) -> str:
    """Compact JSON text of a nested value (exact decoder), numbers spelled as in the source.
    Written from a stack, not by recursion: the decoder reads values nested past Python's
    recursion limit for Python code, and any value it read is written back."""
    if type(value) is tuple:
        flat = _compact_flat(value)
        if flat is not None:
            _object(value, None)  # a key named twice is an unreadable record, as below
            return flat
    parts: list[str] = []
    todo: list[Any] = [value]  # popped from the end: pushed in reverse
    while todo:
        v = todo.pop()
        t = type(v)
        if t is _Text:
            parts.append(v)
        elif t is str:
            parts.append(_dumps_str(v))
        elif t is list:
            todo.append(_Text("]"))
            for i in range(len(v) - 1, -1, -1):
                todo.append(v[i])
                if i:
                    todo.append(_Text(","))
            todo.append(_Text("["))
        elif t is tuple:
            _object(v, None)
            todo.append(_Text("}"))
            for i in range(len(v) - 1, -1, -1):
                key, item = v[i]
                todo.append(item)
                todo.append(_Text(("," if i else "") + _dumps_str(key) + ":"))
            todo.append(_Text("{"))
        else:
            parts.append(_scalar(v))
    return "".join(parts)


def _flatten(pairs: tuple, exact: bool) -> dict[str, str]:
    """One record: top-level fields as cells, an object's fields as dotted cells.

    Only the fields that are not already text are visited; dotted cells go at the dict's
    end (``_add_columns`` keeps the file's column order).
    """
    row = _object(pairs)
    if _ONLY_STR.issuperset(map(type, row.values())):
        return row  # the common case: strings and numbers only
    for key in list(compress(row, map(not_, map(_ONLY_STR.__contains__, map(type, row.values()))))):
        value = row[key]
        t = type(value)
        if t is tuple:
            # The object itself as JSON text (an expected object for json_fields), and its
            # fields as dotted cells after the record's own (metadata.harnessPass).
            if not exact:
                raise _NeedExact
            for sub, v in _object(value, key + ".").items():  # first: it names a repeated field
                dotted = key + "." + sub
                if dotted in row:
                    raise _BadRecord(f"has the field {dotted!r} twice (once inside {key!r})")
                t2 = type(v)
                if t2 is str:
                    row[dotted] = v
                elif t2 is tuple or t2 is list:
                    if not exact:
                        raise _NeedExact
                    row[dotted] = _compact(v)
                else:
                    row[dotted] = _scalar(v)
            flat = _compact_flat(value)  # its keys were checked above
            row[key] = _compact(value) if flat is None else flat
        elif t is list:
            if not exact:
                raise _NeedExact
            row[key] = _compact(value)
        else:
            row[key] = _scalar(value)
    return row


def _add_columns(columns: dict[str, None], pairs: tuple) -> None:
    """Add a record's columns, in its order, to the columns seen so far."""
    for key, value in pairs:
        columns.setdefault(key)
        if type(value) is tuple:
            for sub, _ in value:
                columns.setdefault(key + "." + sub)


def _kind(value: Any) -> str:
    """What a decoded JSON value is, for a message (the exact decoder tells numbers apart)."""
    t = type(value)
    if t is tuple:
        return "an object"
    if t is list:
        return "an array"
    if t is _Number:
        return "a number"
    if t is str:
        return "a string"
    return "true" if value is True else "false" if value is False else "null"


def _read_jsonl(lines: list[str]) -> ResultsFile:
    scan = _FAST.scan_once
    exact = False  # once a line needs the exact decoder (a nested value), the rest start with it
    only_str = _ONLY_STR.issuperset
    rows: list[dict[str, str]] = []
    records: list[int] = []
    unreadable: list[tuple[int, str]] = []
    columns: dict[str, None] = {}
    last_keys: Any = None
    for number, line in enumerate(lines, 1):
        try:
            obj, end = scan(line, 0)  # the C scanner, no wrapper: most lines are one object
            if end != len(line) and line[end:].strip():
                raise StopIteration
        except (StopIteration, json.JSONDecodeError):
            # Leading spaces, a blank line, trailing text or broken JSON: the careful path.
            if not line.strip():
                continue
            try:
                obj = (_EXACT if exact else _FAST).decode(line)
            except json.JSONDecodeError as exc:
                unreadable.append((number, f"is not JSON ({exc.msg} at column {exc.colno})"))
                continue
            except RecursionError:
                unreadable.append((number, "is nested too deeply to read"))
                continue
        except RecursionError:
            unreadable.append((number, "is nested too deeply to read"))
            continue
        if type(obj) is not tuple:
            unreadable.append((number, f"is {_kind(_EXACT.decode(line))}, not an object"))
            continue
        row = dict(obj)
        if len(row) != len(obj) or not only_str(map(type, row.values())):
            try:
                try:
                    row = _flatten(obj, exact)
                except _NeedExact:
                    row = _flatten(_EXACT.decode(line), True)
                    scan, exact = _EXACT.scan_once, True
            except _BadRecord as exc:
                unreadable.append((number, str(exc)))
                continue
            except RecursionError:  # decoded again one frame deeper, at the very limit
                unreadable.append((number, "is nested too deeply to read"))
                continue
        keys = row.keys()
        if keys != last_keys:  # most files repeat one set of fields: compared at C speed
            _add_columns(columns, obj)
            last_keys = keys
        rows.append(row)
        records.append(number)
    return _json_result(rows, records, unreadable, columns, "jsonl")


def _read_json_document(text: str, fmt: str, doc: Any = None) -> ResultsFile:
    try:
        try:
            return _json_entries(_FAST.decode(text) if doc is None else doc, fmt, exact=False)
        except _NeedExact:
            return _json_entries(_EXACT.decode(text), fmt, exact=True)
    except json.JSONDecodeError as exc:
        raise ResultsFileError(f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ResultsFileError("malformed JSON: nested too deeply to read") from None


def _json_entries(doc: Any, fmt: str, exact: bool) -> ResultsFile:
    def kind(value: Any) -> str:
        if not exact and type(value) is str:
            raise _NeedExact  # a string or a number: decode again to say which
        return _kind(value)

    if fmt == "json-rows":
        if type(doc) is not tuple:
            raise ResultsFileError(f'expected a JSON object with a "rows" array; the document is {kind(doc)}')
        fields = dict(doc)
        if sum(key == "rows" for key, _ in doc) > 1:
            raise ResultsFileError('the document has "rows" more than once; which rows to read is not clear')
        if "rows" not in fields:
            raise ResultsFileError(
                'a JSON document must be an array of objects or an object with a "rows" array; '
                f"this object has no \"rows\" (its fields: {', '.join(list(fields)[:8]) or 'none'})"
            )
        entries = fields["rows"]
        if type(entries) is not list:
            raise ResultsFileError(f'"rows" must be an array of objects; it is {kind(entries)}')
    else:
        if type(doc) is not list:
            raise ResultsFileError(f"expected a JSON array of objects; the document is {kind(doc)}")
        entries = doc
    rows: list[dict[str, str]] = []
    records: list[int] = []
    unreadable: list[tuple[int, str]] = []
    columns: dict[str, None] = {}
    last_keys: Any = None
    for number, obj in enumerate(entries, 1):
        if type(obj) is not tuple:
            unreadable.append((number, f"is {kind(obj)}, not an object"))
            continue
        try:
            row = _flatten(obj, exact)
        except _BadRecord as exc:
            unreadable.append((number, str(exc)))
            continue
        keys = row.keys()
        if keys != last_keys:
            _add_columns(columns, obj)
            last_keys = keys
        rows.append(row)
        records.append(number)
    return _json_result(rows, records, unreadable, columns, fmt)


def _json_result(rows: list[dict[str, str]], records: list[int], unreadable: list[tuple[int, str]],
                 columns: dict[str, None], fmt: str) -> ResultsFile:
    n = len(rows)
    data: dict[int, np.ndarray] = {}
    for i, col in enumerate(columns):
        arr = np.empty(n, dtype=object)
        arr[:] = [row.get(col) for row in rows]
        data[i] = arr
    frame = pd.DataFrame(data, index=pd.RangeIndex(n), columns=range(len(columns)), dtype=object, copy=False)
    # Names held as objects: pandas' string dtype cannot hold a JSON key's lone surrogate.
    frame.columns = pd.Index(list(columns), dtype=object)
    return ResultsFile(
        frame=frame,
        records=tuple(records),
        format=fmt,
        unreadable=tuple(unreadable),
        columns=tuple(columns),
    )
