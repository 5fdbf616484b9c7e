"""Rows read and prepared in parts, with SPEC §5's promises kept across the parts.

A part is a slice of one file (or one partition of a ``dask.dataframe``) as a
``ResultsFile`` of its own, its record numbers the file's (several files: numbered on from
file to file, as ``readers.several`` numbers them). Each part is prepared on a worker
(``scoring.rows.prepare`` without its duplicate-key step) and keeps, per record still in
play, a 128-bit hash of its key (id, version, repeat). The client finds duplicate keys
over every part from those hashes alone (``duplicates``: 16 bytes a record, no cell), so a
record is the duplicate of the first record with its key wherever that one is, and the
left-out report is the parts' reports added (``left_out``), as ``prepare`` writes it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from graders.readers.frame import ResultsFile, ResultsFileError
from graders.scoring.rows import (
    _FIRST,
    _REPEAT,
    LEFT_OUT_REASONS,
    LeftOut,
    Prepared,
    _filled,
    _key_phrase,
    group_codes,
    prepare,
)

PART_ROWS = 20_000  # records a part holds at most: its scored lines travel to the client as one message
_KEYS = ("gradeboard-key-1", "gradeboard-key-2")  # two 64-bit hashes of a key: 128 bits


# --------------------------------------------------------------------------- reading


def read_file(path: str, system: str | None, *, format: str | None, max_bytes: int, header: bool) -> ResultsFile:
    """One file read on a worker as ``read_several`` reads it (``system`` given when several
    files are read: a ``version`` column named after the file where it has none, and a
    ``file`` column)."""
    from graders.readers.files import read_results

    try:
        f = read_results(path, format=format, max_bytes=max_bytes, header=header)
    except ResultsFileError as e:
        if system is None:
            raise
        raise ResultsFileError(f"{os.path.basename(path)}: {e}") from None
    if system is None:
        return f
    frame = f.frame.copy()
    if "version" not in frame.columns:
        frame["version"] = system
    frame["file"] = os.path.basename(path)
    return ResultsFile(frame=frame, records=f.records, format=f.format, unreadable=f.unreadable,
                       columns=tuple(frame.columns))


@dataclass(frozen=True)
class FileInfo:
    columns: tuple[str, ...]
    rows: int
    last: int  # its last record number, unreadable ones included
    versions: tuple[str, ...]  # its version column's values in file order ("" for a missing cell), if it has one


def file_info(f: ResultsFile) -> FileInfo:
    versions: tuple[str, ...] = ()
    if "version" in f.frame.columns:
        values = f.frame["version"].to_numpy(dtype=object)
        versions = tuple(str(v) for v in pd.unique(np.where(np.equal(values, None), "", values)))
    return FileInfo(tuple(f.columns), len(f.frame), max([0, *f.records, *(r for r, _ in f.unreadable)]), versions)


def file_piece(f: ResultsFile, a: int, b: int, offset: int, columns: tuple[str, ...] | None,
               unreadable: bool) -> ResultsFile:
    """Records ``a:b`` of a file, numbered on by ``offset``; ``columns``: every file's columns
    (several files: each part has them all, absent cells None, as ``read_several`` stacks
    them); ``unreadable``: this part carries the file's unreadable records."""
    frame = f.frame.iloc[a:b].reset_index(drop=True)
    if columns is not None:
        frame = frame.reindex(columns=list(columns))
        frame = frame.astype(object).where(frame.notna(), None)
        frame.columns = pd.Index(columns, dtype=object)
    return ResultsFile(frame=frame, records=tuple(offset + r for r in f.records[a:b]), format=f.format,
                       unreadable=tuple((offset + r, why) for r, why in f.unreadable) if unreadable else (),
                       columns=columns if columns is not None else f.columns)


def frame_piece(df: pd.DataFrame, offset: int, records: str | None) -> ResultsFile:
    """A ``dask.dataframe`` partition as a part: cells as text (None or NaN absent, any other
    value as ``str``), numbered by the column ``records`` or on from ``offset``."""
    df = df.reset_index(drop=True)
    numbers = tuple(int(r) for r in df[records]) if records else tuple(range(offset + 1, offset + 1 + len(df)))
    if records:
        df = df.drop(columns=records)
    cols = {}
    for name in df.columns:
        cells = df[name].to_numpy(dtype=object)
        missing = pd.isna(cells)
        if missing.any() or not all(isinstance(c, str) for c in cells[~missing]):
            cells = np.array([None if m else c if isinstance(c, str) else str(c) for c, m in zip(cells, missing)],
                             dtype=object)
        cols[str(name)] = cells
    frame = pd.DataFrame(cols, dtype=object, copy=False)
    return ResultsFile(frame=frame, records=numbers, format="dask", unreadable=(), columns=tuple(cols))


# --------------------------------------------------------------------------- preparing


@dataclass
class Part:
    """One part prepared on a worker: its rows and left-out report without duplicate keys;
    per record still in play (``alive``, in order), its key's hash and its rows."""

    prepared: Prepared
    alive: np.ndarray  # record numbers
    keys: np.ndarray  # (len(alive), 2) uint64
    versions: tuple[str, ...]  # the version column's values in order, rows left out included
    has_repeat: bool
    file: ResultsFile | None = None  # the part as read (for the harness's verdicts beside ours)


@dataclass(frozen=True)
class PartInfo:
    """What the client reads of a prepared part: no cell of its rows."""

    left_out: LeftOut
    systems: tuple[Any, ...]
    alive: np.ndarray
    keys: np.ndarray
    rows_of: np.ndarray  # rows per alive record (a wide file's record has one per output)
    versions: tuple[str, ...]
    has_repeat: bool
    rows: int


def hash_cells(parts: Sequence[np.ndarray]) -> np.ndarray:
    """Two 64-bit hashes of each tuple of cells, (n, 2) uint64, the same in every process
    (pandas' SipHash of each cell's UTF-8; a lone surrogate as Python's surrogatepass writes it)."""
    n = len(parts[0]) if parts else 0
    out = np.zeros((n, 2), dtype=np.uint64)
    for j, key in enumerate(_KEYS):
        h = np.zeros(n, dtype=np.uint64)
        for cells in parts:
            try:
                hp = pd.util.hash_array(cells, hash_key=key, categorize=True)
            except UnicodeEncodeError:
                cells = np.array([c.encode("utf-8", "surrogatepass") if isinstance(c, str) else c for c in cells],
                                 dtype=object)
                hp = pd.util.hash_array(cells, hash_key=key, categorize=True)
            h = (h * np.uint64(0x100000001B3)) ^ hp  # wraps: any mixing that keeps the order of the cells
        out[:, j] = h
    return out


def prepare_part(piece: ResultsFile, mapping: Mapping[str, str | None], needs_expected: bool,
                 output_columns: Sequence[str] | None = None) -> Part:
    """``prepare`` on one part, its duplicate keys left to ``duplicates``; the keys of the
    records it keeps hashed as ``prepare`` compares them: (id, version, repeat)."""
    prepared = prepare(piece, mapping, needs_expected=needs_expected, output_columns=output_columns, duplicates=False)
    alive = pd.unique(prepared.rows["record"].to_numpy())
    at = pd.Index(np.asarray(piece.records, dtype=np.int64)).get_indexer(alive)
    frame = piece.frame

    def column(role: str) -> np.ndarray | None:
        name = mapping.get(role)
        return None if name is None else frame[name].to_numpy(dtype=object)[at]

    ids, version, repeat = column("id"), column("version"), column("repeat")
    if ids is None:
        ids = np.array([str(r) for r in alive], dtype=object)
    key = [ids]
    if version is not None:
        key.append(_filled(version))
    if repeat is not None:  # every record kept has a whole-number repeat: its digits, as prepare keys it
        key.append(np.array([_REPEAT.fullmatch(c).group(1) for c in repeat], dtype=object))
    versions: tuple[str, ...] = ()
    if mapping.get("version") and mapping["version"] in frame.columns:
        values = frame[mapping["version"]].to_numpy(dtype=object)
        versions = tuple(str(v) for v in pd.unique(np.where(np.equal(values, None), "", values)))
    has_repeat = bool((prepared.rows["repeat"].to_numpy(dtype=object) != "").any())
    return Part(prepared, np.asarray(alive, dtype=np.int64), hash_cells(key), versions, has_repeat, piece)


def part_info(part: Part) -> PartInfo:
    records = part.prepared.rows["record"].to_numpy(dtype=np.int64)
    distinct, counts = np.unique(records, return_counts=True)
    rows_of = counts[np.searchsorted(distinct, part.alive)] if len(distinct) else np.zeros(0, dtype=np.int64)
    return PartInfo(part.prepared.left_out, part.prepared.systems, part.alive, part.keys, rows_of,
                    part.versions, part.has_repeat, len(part.prepared.rows))


def kept_rows(part: Part, duplicates: np.ndarray) -> pd.DataFrame:
    """The part's rows less its records found to be duplicates."""
    rows = part.prepared.rows
    if len(duplicates):
        rows = rows[~np.isin(rows["record"].to_numpy(), duplicates)].reset_index(drop=True)
    return rows


# --------------------------------------------------------------------------- across parts


@dataclass(frozen=True)
class Duplicates:
    per_part: list[np.ndarray]  # each part's records left out as duplicates
    count: int
    rows: tuple[int, ...]  # the first twenty, in file order
    notes: tuple[str, ...]
    outputs: int  # rows (outputs) they take out


class KeyIndex:
    """The keys kept so far (128-bit hashes, each with its first record), in sorted runs of
    at most ``RUN`` keys: 20 bytes a key, and adding a part's keys sorts that part's, never
    the whole index (runs are merged while the merge stays within ``RUN``)."""

    RUN = 1 << 18

    def __init__(self) -> None:
        self.runs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (hi, lo, first record), by (hi, lo)

    def __len__(self) -> int:
        return sum(len(hi) for hi, _, _ in self.runs)

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Each key's first record, -1 where it is new."""
        out = np.full(len(keys), -1, dtype=np.int64)
        for hi, lo, first in self.runs:
            left, right = np.searchsorted(hi, keys[:, 0], "left"), np.searchsorted(hi, keys[:, 0], "right")
            one = np.flatnonzero(right - left == 1)
            hit = one[lo[left[one]] == keys[one, 1]]
            out[hit] = first[left[hit]]
            for i in np.flatnonzero(right - left > 1):  # two keys with one high half: a 2^-64 chance
                same = np.flatnonzero(lo[left[i]:right[i]] == keys[i, 1])
                if len(same):
                    out[i] = first[left[i] + same[0]]
        return out

    def add(self, keys: np.ndarray, records: np.ndarray) -> None:
        """New keys (none of them found) with their first records."""
        if not len(keys):
            return
        order = np.lexsort((keys[:, 1], keys[:, 0]))
        records = np.asarray(records, dtype=np.int64)
        if records.max() < 1 << 32:  # a record number as 4 bytes where it fits (any file under 4 GB)
            records = records.astype(np.uint32)
        self.runs.append((keys[order, 0].copy(), keys[order, 1].copy(), records[order]))
        while len(self.runs) > 1 and len(self.runs[-2][0]) <= len(self.runs[-1][0]) * 2 \
                and len(self.runs[-2][0]) + len(self.runs[-1][0]) <= self.RUN:
            (h1, l1, f1), (h2, l2, f2) = self.runs.pop(), self.runs.pop()
            hi, lo, first = np.concatenate([h2, h1]), np.concatenate([l2, l1]), np.concatenate([f2, f1])
            order = np.lexsort((lo, hi))
            self.runs.append((hi[order], lo[order], first[order]))


class DuplicateFinder:
    """Duplicate keys found part after part, in file order: a record is the duplicate of
    the first record kept with its key, in this part or an earlier one (``KeyIndex``); the
    count, the outputs and the first twenty records and notes are added up as they come."""

    def __init__(self, mapping: Mapping[str, str | None]) -> None:
        self.index = KeyIndex()
        self.what = _key_phrase(mapping)
        self.count = self.outputs = 0
        self.rows: list[int] = []
        self.notes: list[str] = []

    def add(self, alive: np.ndarray, keys: np.ndarray, rows_of: np.ndarray) -> np.ndarray:
        """The part's records (``alive``, in order, with their keys' hashes and rows) that are
        duplicates."""
        if not len(keys):
            return np.zeros(0, dtype=np.int64)
        codes = group_codes([keys[:, 0], keys[:, 1]])
        _, firsts = np.unique(codes, return_index=True)  # codes number first appearances 0, 1, …
        earlier = self.index.find(keys[firsts])
        named = np.where(earlier >= 0, earlier, alive[firsts])[codes]
        dup = np.flatnonzero((earlier[codes] >= 0) | (np.arange(len(codes)) != firsts[codes]))
        room = _FIRST - len(self.rows)
        if room > 0:
            self.rows += alive[dup[:room]].tolist()
            self.notes += [f"row {alive[d]} has the same {self.what} as row {named[d]}" for d in dup[:room]]
        self.count += len(dup)
        self.outputs += int(rows_of[dup].sum())
        new = firsts[earlier < 0]
        self.index.add(keys[new], alive[new])
        return alive[dup]

    def result(self, per_part: list[np.ndarray]) -> Duplicates:
        return Duplicates(per_part, self.count, tuple(self.rows), tuple(self.notes), self.outputs)


def duplicates(infos: Sequence[PartInfo], mapping: Mapping[str, str | None]) -> Duplicates:
    """The records whose key an earlier record kept has, over every part: each named with
    the first record of its key, as ``prepare``'s duplicate-key step names it."""
    finder = DuplicateFinder(mapping)
    return finder.result([finder.add(i.alive, i.keys, i.rows_of) for i in infos])


class LeftOutSum:
    """Parts' left-out reports added as they come: counts and outputs summed, the first
    twenty record numbers and notes of each reason kept in file order."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.rows: dict[str, list[int]] = {}
        self.notes: dict[str, list[str]] = {}
        self.outputs = 0

    def add(self, lo: LeftOut) -> None:
        self.outputs += lo.outputs
        for reason, count in lo.counts.items():
            self.counts[reason] = self.counts.get(reason, 0) + count
            kept = self.rows.setdefault(reason, [])
            kept.extend(lo.rows.get(reason, ())[:_FIRST - len(kept)])
            if lo.notes.get(reason):
                noted = self.notes.setdefault(reason, [])
                noted.extend(lo.notes[reason][:_FIRST - len(noted)])

    def result(self, dups: Duplicates) -> LeftOut:
        """The report with the duplicate keys found (``DuplicateFinder``)."""
        counts, rows, notes = dict(self.counts), dict(self.rows), dict(self.notes)
        if dups.count:
            counts["duplicate key"] = dups.count
            rows["duplicate key"] = list(dups.rows)
            notes["duplicate key"] = list(dups.notes)
        ordered = {name: counts[name] for name in LEFT_OUT_REASONS if name in counts}
        return LeftOut(counts=ordered, rows={k: tuple(v[:_FIRST]) for k, v in rows.items() if k in ordered},
                       notes={k: tuple(v[:_FIRST]) for k, v in notes.items() if v}, total=sum(ordered.values()),
                       outputs=self.outputs + dups.outputs)


def left_out(infos: Sequence[PartInfo], dups: Duplicates) -> LeftOut:
    """The parts' left-out reports and the duplicates as one: counts added, the first twenty
    record numbers and notes of each reason in file order."""
    total = LeftOutSum()
    for info in infos:
        total.add(info.left_out)
    return total.result(dups)


def systems(infos: Sequence[PartInfo]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(s for info in infos for s in info.systems))


def spans(n: int, size: int = PART_ROWS) -> list[tuple[int, int]]:
    """A file's ``n`` records in parts of about ``size`` (at least one part)."""
    k = max(1, -(-n // size))
    return [(n * i // k, n * (i + 1) // k) for i in range(k)]
