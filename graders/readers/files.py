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
import gc
import json
import os
import re
import sys
from typing import Any

from graders.readers.delimited import _first_record, _read_delimited
from graders.readers.detect import detect
from graders.readers.frame import (  # noqa: F401  (the names this module has always offered)
    _LINE_END,
    DEFAULT_MAX_BYTES,
    FORMATS,
    HARNESS_FORMATS,
    ResultsFile,
    ResultsFileError,
    _lines_from,
    check_columns,
    headerless_names,
)
from graders.readers.jsonfiles import _FAST, _read_json_document, _read_jsonl
from graders.text.show import quoted_name

__all__ = [
    "DEFAULT_MAX_BYTES", "FORMATS", "ResultsFile", "ResultsFileError", "detect_format", "read_results",
]


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
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a whole number >= 1, not {max_bytes!r}")
    if format is not None and format not in FORMATS + HARNESS_FORMATS:
        raise ResultsFileError(f"unknown format {format!r}; choose one of {', '.join(FORMATS + HARNESS_FORMATS)}")
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        _check_size(len(data), max_bytes)
    else:
        path = os.fspath(source)
        if name is None:
            name = os.path.basename(path)
        data = _read_path(path, max_bytes)
    harness = format if format in HARNESS_FORMATS else None if format else detect(data, name)
    if harness is not None:
        return _read_harness(data, harness)
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
                check_columns(len(first), "the first row has")  # before naming each of them
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


def _read_harness(data: bytes, fmt: str) -> ResultsFile:
    """A harness's own file (SPEC §10), by its reader (imported when first needed)."""
    from graders.readers import inspect_log, lm_eval, parquet, promptfoo

    read = {"promptfoo": promptfoo.read, "inspect-eval": inspect_log.read_eval, "inspect-json": inspect_log.read_json,
            "lm-eval": lm_eval.read, "parquet": parquet.read}[fmt]
    result = read(data)
    check_columns(len(result.columns), "the file has")  # its reader found them; no results file has as many
    if len(result.frame) == 0:
        raise ResultsFileError(_no_rows_message(result))
    return result


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


# --------------------------------------------------------------------------- JSON
#
# Two decoders. Objects decode to tuples of (key, value) pairs, so a key named twice is
# seen rather than silently overwritten. The fast one turns numbers into plain str: right
# for every cell, since a cell is the number's text. It cannot tell 1 from "1" inside an
# array or a nested object, so a record holding one is decoded again with the exact one,
# whose numbers are `_Number` (a str that serializes unquoted).



