"""A large CSV, TSV or JSON lines file read a block at a time, so that a run holds one
block's rows whatever the file's size (the single-process run, ``scoring.stream``).

Each block is the ``ResultsFile`` that ``read_results`` makes of those records of the
whole file: the same cells, the file's own record numbers (a CSV record's, a JSON line's),
the same unreadable records and reasons, and the file's columns (JSON lines: every column
of the file in order of first appearance, a cell absent where a record lacks the field).

``plan`` looks the file over first, a block at a time, and says where the blocks start:

- CSV and TSV: a block ends after a line end outside quotes (quotes counted from the
  header on) whose record is not blank; every block's quotes must pair off as the C
  parser reads them (``delimited._quotes_paired``), so no block's reading can depend on
  another's. The header record is read in front of each block.
- JSON lines: a block ends at a line end; each block is read for its columns, so that the
  file's columns are known before the first row is scored.
- Every block is valid UTF-8 without a NUL byte.

``NotStreamable`` says the file is read whole instead (``read_results``), which then says
what is wrong with it, if anything: another format, a file no larger than a block, a
pipe, a quote that does not pair off, a lone CR line end, bytes that are not UTF-8.
Settings: ``BLOCK_BYTES`` (1 MiB: about 12,000 rows of short answers and sentences).
"""

from __future__ import annotations

import gc
import os
import stat
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np
import pandas as pd

from graders.readers.delimited import _first_record, _header_width, _quotes_paired, _read_delimited
from graders.readers.detect import detect
from graders.readers.files import _FAST, _SPACES, _decode, _sniff
from graders.readers.frame import (
    DEFAULT_MAX_BYTES,
    MAX_COLUMNS,
    ResultsFile,
    ResultsFileError,
    headerless_names,
)
from graders.readers.jsonfiles import _read_jsonl

BLOCK_BYTES = 1 << 20
_HEAD = 5 << 20  # read to tell the format: detect's 4 MB + 64 KB and _sniff's 1 MB, whole lines


class NotStreamable(Exception):
    """The file is read whole instead (the message says why)."""


@dataclass(frozen=True)
class Plan:
    path: str
    format: str  # csv, tsv or jsonl
    columns: tuple[str, ...]
    header: bytes  # CSV and TSV: the header record, read in front of each block
    widest: str  # what sets a record's number of fields, for the message of a longer one
    blocks: tuple[tuple[int, int, int], ...]  # (first byte, end byte, records or lines before it)


def plan(path: str, *, format: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES, header: bool = True,
         block_bytes: int | None = None, small: bool = False) -> Plan:
    """Where the blocks of the file at ``path`` start, and its columns; ``NotStreamable``
    when it is to be read whole. ``format``, ``max_bytes`` and ``header`` as ``read_results``
    takes them; ``block_bytes``: a block's bytes (``BLOCK_BYTES``); ``small``: a file no
    larger than a block is one block (one of several files), not read whole."""
    block_bytes = block_bytes or BLOCK_BYTES
    try:
        st = os.stat(path)
    except OSError as e:
        raise NotStreamable(f"cannot look at the file: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
        raise NotStreamable("not a regular file within max_bytes")
    if st.st_size <= block_bytes and not small:
        raise NotStreamable("no larger than a block")
    if format is not None and format not in ("csv", "tsv", "jsonl"):
        raise NotStreamable(f"{format} is read whole")
    try:
        with open(path, "rb") as fh:
            return _plan_open(fh, path, st.st_size, format, header, block_bytes)
    except OSError as e:  # reading it whole says why it cannot be read
        raise NotStreamable(f"cannot read the file: {e.strerror}") from None


def _plan_open(fh, path: str, size: int, format: str | None, header: bool, block_bytes: int) -> Plan:  # noqa: ANN001
    """``plan``'s look at the open file: its format from its first lines, then its blocks."""
    name = os.path.basename(path)
    head = fh.read(_HEAD)
    if format is None and detect(head, name) is not None:
        raise NotStreamable("a harness's own file")
    whole = len(head) == size
    if not whole:
        head = head[:head.rfind(b"\n") + 1]  # whole lines
    try:
        text, bom = _decode(head)
    except ResultsFileError as e:
        raise NotStreamable(str(e)) from None
    fmt = format or (_sniff(text, name)[0] if whole else _format(text, name))
    if fmt not in ("csv", "tsv", "jsonl"):
        raise NotStreamable(f"{fmt} is read whole")
    if fmt == "jsonl":
        columns: dict[str, None] = {}
        blocks = _scan(fh, bom, size, block_bytes, _line_cut, lambda block: _jsonl_lines(block, columns))
        return Plan(path, fmt, tuple(columns), b"", "", blocks)
    return _delimited(fh, path, head, text, bom, fmt, header, size, block_bytes)


@dataclass(frozen=True)
class Several:
    """Several files planned as ``read_several`` stacks them: each file's rows with a
    ``version`` column named after the file where it has none and a ``file`` column, the
    columns of all in order, record numbers going on from file to file."""

    plans: tuple[Plan, ...]
    names: tuple[str, ...]  # each file's system name (readers.several.system_names)
    columns: tuple[str, ...]
    format: str


def plan_files(paths: Sequence[str], *, format: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
               header: bool = True, block_bytes: int | None = None) -> Plan | Several:
    """``plan`` for the files ``gradeboard score`` was given: one file's ``Plan``, or
    several files' (``NotStreamable`` when any is to be read whole, or one is named twice)."""
    if len(paths) == 1:
        return plan(paths[0], format=format, max_bytes=max_bytes, header=header, block_bytes=block_bytes)
    from graders.readers.several import system_names

    if not paths or len(set(map(os.path.realpath, paths))) != len(paths):
        raise NotStreamable("no file, or one named twice")
    plans = tuple(plan(p, format=format, max_bytes=max_bytes, header=header, block_bytes=block_bytes, small=True)
                  for p in paths)
    columns: dict[str, None] = {}
    for p in plans:
        columns.update(dict.fromkeys([*p.columns, "version", "file"]))
    return Several(plans, tuple(system_names(list(paths))), tuple(columns),
                   "+".join(dict.fromkeys(p.format for p in plans)))


def read_planned(p: Plan | Several) -> Iterator[ResultsFile]:
    """The blocks of ``plan_files``' files, in order, numbered as ``read_several`` numbers them."""
    if isinstance(p, Plan):
        yield from read_blocks(p)
        return
    offset = 0
    for one, name in zip(p.plans, p.names):
        last = 0
        for block in read_blocks(one):
            frame = block.frame.copy(deep=False)
            if "version" not in one.columns:
                frame["version"] = name
            frame["file"] = os.path.basename(one.path)
            yield ResultsFile(frame=_with_columns(frame, p.columns), records=tuple(offset + r for r in block.records),
                              format=p.format, unreadable=tuple((offset + r, why) for r, why in block.unreadable),
                              columns=p.columns)
            last = max([last, *block.records, *(r for r, _ in block.unreadable)])
        offset += last


def read_blocks(p: Plan) -> Iterator[ResultsFile]:
    """The file's blocks as ``plan`` found them, each a ``ResultsFile`` numbered as the file
    is; ``NotStreamable`` should a block not read as it did then."""
    sep = "\t" if p.format == "tsv" else ","
    try:
        fh = open(p.path, "rb")
    except OSError as e:
        raise NotStreamable(f"cannot read the file: {e.strerror}") from None
    with fh:
        for a, b, before in p.blocks:
            try:
                fh.seek(a)
                data = fh.read(b - a)
            except OSError as e:
                raise NotStreamable(f"cannot read the file: {e.strerror}") from None
            was = gc.isenabled()
            gc.disable()  # as read_results reads: many small containers
            try:
                if p.format == "jsonl":
                    f = _read_jsonl(str(data, "utf-8").split("\n"))
                    frame = _with_columns(f.frame, p.columns)
                else:
                    f = _read_delimited(p.header + data, 0, sep, p.format, p.widest)
                    frame = f.frame
            except (ResultsFileError, UnicodeDecodeError) as e:
                raise NotStreamable(str(e)) from None
            finally:
                if was:
                    gc.enable()
            del data
            yield ResultsFile(frame=frame, records=tuple(before + r for r in f.records), format=p.format,
                              unreadable=tuple((before + r, why) for r, why in f.unreadable), columns=p.columns)


# --------------------------------------------------------------------------- the format


def _format(text: str, name: str) -> str:
    """``_sniff``'s answer for the whole file, from its first lines (the file is longer),
    where they settle it."""
    start = _SPACES.match(text).end()
    if len(text) - start <= (1 << 20) + 1:  # _sniff's samples reach a megabyte in: they must be whole here
        raise NotStreamable("the first lines are too long to tell the format from")
    if text[start] in "{[":  # the first value must end here, and another follow, for _sniff to say the same
        try:
            _, end = _FAST.raw_decode(text, start)
        except (ValueError, RecursionError):
            raise NotStreamable("the first value does not end in the first lines") from None
        if not text[end:].strip():
            raise NotStreamable("one value in the first lines")
    return _sniff(text, name)[0]


# --------------------------------------------------------------------------- blocks


def _scan(fh, start: int, size: int, block_bytes: int, cut, check) -> tuple[tuple[int, int, int], ...]:  # noqa: ANN001
    """The blocks from byte ``start``: ``cut(data)`` where a block of ``data`` may end (-1:
    read more), ``check(block)`` a whole block's records (or lines), or ``NotStreamable``."""
    blocks: list[tuple[int, int, int]] = []
    pos, before = start, 0
    fh.seek(pos)
    data = b""
    while pos < size:
        # up to a block; past it (a record longer than a block) as much again: linear in the record
        want = block_bytes - len(data) if len(data) < block_bytes else len(data)
        more = fh.read(max(1, min(want, size - pos - len(data) + 1)))
        data += more
        end = len(data) if not more or pos + len(data) >= size else cut(data)
        if end < 0:
            continue  # a record longer than a block: the block grows
        block = data[:end]
        if b"\x00" in block:
            raise NotStreamable("a NUL byte")
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            raise NotStreamable("not UTF-8") from None
        records = check(block)
        blocks.append((pos, pos + end, before))
        before += records
        pos += end
        data = data[end:]
        if not more:
            break
    return tuple(blocks)


def _line_cut(data: bytes) -> int:
    return data.rfind(b"\n") + 1 or -1


def record_ends(data: bytes) -> np.ndarray:
    """Where the records of ``data`` (quotes paired up to its start) end: each line feed
    after an even number of quotes."""
    b = np.frombuffer(data, dtype=np.uint8)
    feeds = np.flatnonzero(b == 10)
    quotes = np.flatnonzero(b == 34)
    return feeds[np.searchsorted(quotes, feeds) % 2 == 0]


def _record_cut(data: bytes) -> int:
    """After the last record end of ``data`` whose record is not blank (a blank line at a
    block's end would be read as the file's end, not as a record)."""
    ends = record_ends(data)
    for k in range(len(ends) - 1, -1, -1):
        start = ends[k - 1] + 1 if k else 0
        if data[start:ends[k]].strip(b" \t\r"):
            return int(ends[k]) + 1
    return -1


def _delimited(fh, path: str, head: bytes, text: str, bom: int, fmt: str, header: bool, size: int,  # noqa: ANN001
               block_bytes: int) -> Plan:
    from graders.readers.files import _blank_lines

    sep = "\t" if fmt == "tsv" else ","
    skip = bom + _blank_lines(text, sep)  # blank lines are ASCII: characters are bytes
    if header:
        ends = record_ends(head[skip:])
        if not len(ends):
            raise NotStreamable("the header does not end in the first lines")
        first, start, widest = head[skip:skip + int(ends[0]) + 1], skip + int(ends[0]) + 1, "the header"
    else:
        fields = _first_record(text, skip - bom, sep)
        if not fields or len(fields) > MAX_COLUMNS:
            raise NotStreamable("the first record is malformed or too wide")
        first, start, widest = (sep.join(headerless_names(len(fields))) + "\n").encode("utf-8"), skip, "the first row"
    if _header_width(first, 0, sep) > MAX_COLUMNS or not _quotes_paired(first, 0, sep):
        raise NotStreamable("the header is read whole")
    try:
        columns = _read_delimited(first, 0, sep, fmt, widest).columns
    except ResultsFileError as e:
        raise NotStreamable(str(e)) from None

    def check(block: bytes) -> int:
        if not _quotes_paired(block, 0, sep):
            raise NotStreamable("quotes that do not pair off")
        b = np.frombuffer(block, dtype=np.uint8)
        cr = np.flatnonzero(b == 13)
        if len(cr) and (cr[-1] == len(b) - 1 or (b[cr[cr < len(b) - 1] + 1] != 10).any()):
            raise NotStreamable("a CR line end")
        records = len(record_ends(block))
        return records + (1 if not block.endswith(b"\n") else 0)

    blocks = _scan(fh, start, size, block_bytes, _record_cut, check)
    return Plan(path, fmt, tuple(columns), first, widest, blocks)


def _jsonl_lines(block: bytes, columns: dict[str, None]) -> int:
    """A block's lines, its columns added to ``columns`` (in order of first appearance) as
    ``read_blocks`` will read them."""
    was = gc.isenabled()
    gc.disable()
    try:
        found = _read_jsonl(str(block, "utf-8").split("\n")).columns
    except ResultsFileError as e:
        raise NotStreamable(str(e)) from None
    finally:
        if was:
            gc.enable()
    columns.update(dict.fromkeys(found))
    if len(columns) > MAX_COLUMNS:
        raise NotStreamable("too many columns")
    return block.count(b"\n")


def _with_columns(frame: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """``frame`` with exactly ``columns``, in order: an absent cell None where it lacks one."""
    if tuple(frame.columns) == columns:
        return frame
    n = len(frame)
    have = set(frame.columns)
    data = {}
    for i, c in enumerate(columns):
        if c in have:
            data[i] = frame[c].to_numpy(dtype=object)
        else:
            data[i] = np.full(n, None, dtype=object)
    out = pd.DataFrame(data, index=pd.RangeIndex(n), columns=range(len(columns)), dtype=object, copy=False)
    out.columns = pd.Index(list(columns), dtype=object)
    return out
