"""From a results file and a column mapping to rows ready to score (SPEC §5).

    >>> from graders.readers.files import read_results
    >>> f = read_results(b"id,expected,output\\n1,Paris,Paris\\n1,Rome,Rome\\n2,,x\\n")
    >>> p = prepare(f, {"id": "id", "expected": "expected", "output": "output"}, needs_expected=True)
    >>> p.rows["item"].tolist(), p.left_out.counts
    (['1'], {'no expected': 1, 'duplicate key': 1})

Settings, stated once:

- A row's key is (id, version, repeat). A cell is *missing* when absent or ``""``; a
  missing version is the version ``""``.
- ``system`` is the version cell, or the output column's name when no version column is
  mapped. A wide file (several output columns: ``output`` and ``output_b`` by default)
  gives each record one row per output column. With a version column as well, the first
  output column's rows are the version and the others ``"<version>/<column>"``, so that
  (item, system, repeat) stays unique when the file holds several versions.
- No column mapped to id (rows of expected and output alone, as pasted): each record's id
  is its record number as text (``"1"``, ``"2"``, …), the numbers the left-out report
  uses, so every record is its own case.
- ``repeat`` keeps the cell as written (``"03"``), ``""`` without a repeat column; keys
  compare its whole-number value, ``repeat_number`` (0 without a repeat column). A repeat
  is digits, optionally with a zero fraction (``"2.0"``, as pandas writes a column that
  had gaps) and surrounding spaces; anything else (``"1.5"``, ``"-1"``, ``"x"``, ``""``)
  is a bad repeat.
- Expected kinds: ``exact`` (also an empty cell), ``any-of``, ``label``, read
  case-insensitively. refs: exact and label ``(expected,)``, any-of the JSON array of
  strings. When no selected grader needs an expected (``needs_expected=False``), expected
  problems leave nothing out and refs is ``()`` where it cannot be read.
- ``assert``: empty (or JSON ``null``) means no assertions; otherwise a JSON list of
  objects, each with a string ``"type"`` (a JSON record's ``assert`` object, read as its
  JSON text, is malformed). Kinds are the batch layer's business: an unknown kind is not
  malformed.
- Besides what the scored file needs, rows carry ``repeat_number`` (int, for pairing
  repeats; past the 4,300 digits ``int()`` converts, its digits as text) and
  ``output_column`` (the column the row's output came from, for A vs B); with assertions,
  the file's ``latency_ms`` and ``cost`` columns when it has them (``ROW_FIELDS``: what
  promptfoo's ``latency`` and ``cost`` assertions compare), after those.
- Left-out reasons are checked in ``LEFT_OUT_REASONS`` order and an output is left out
  under its first. Counts count the file's rows (records), as the row numbers listed
  beside them: a wide file's record is counted once under a reason though both its
  outputs are left out for it (``left_out.outputs`` counts outputs, so
  ``len(rows) + left_out.outputs == records × output columns``). A duplicate is
  a later record with the key of an earlier one that every other check kept, which is
  kept; so the duplicate check comes last.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from graders.config import ROLES
from graders.readers.files import ResultsFile
from graders.text.show import quoted_name

__all__ = ["LEFT_OUT_REASONS", "EXPECTED_KINDS", "LeftOut", "Prepared", "MappingError", "prepare"]

LEFT_OUT_REASONS = (
    "unreadable", "no id", "no output", "no expected", "bad repeat", "unknown expected kind",
    "bad any-of expected", "malformed assertions", "duplicate key",
)
EXPECTED_KINDS = ("exact", "any-of", "label")
ROW_COLUMNS = (
    "record", "item", "system", "repeat", "refs", "output", "input", "assertions", "expected",
    "repeat_number", "output_column",
)
ROW_FIELDS = ("latency_ms", "cost")  # a row's own measures, kept for its assertions
_FIRST = 20  # record numbers and notes kept per reason
_REPEAT = re.compile(r"\s*0*(\d+)(?:\.0*)?\s*", re.ASCII)
_NO_REASON = 0


class MappingError(ValueError):
    """A mapping that cannot be used (an absent column, no id or output): one message."""


@dataclass(frozen=True)
class LeftOut:
    counts: dict[str, int]  # reason -> rows (records) left out for it (only reasons that occurred)
    rows: dict[str, tuple[int, ...]]  # reason -> first 20 record numbers
    notes: dict[str, tuple[str, ...]]  # reason -> first 20 notes, where a note says more
    total: int  # the counts summed
    # Outputs left out: a wide file's record left out whole is one row and k outputs (one
    # per output column); one left out for one column alone ("no output") is one of each.
    outputs: int = 0

    def to_dict(self) -> dict:
        """JSON-ready: ``{"total": n, "reasons": {reason: {"count", "rows", "notes"}}}``."""
        return {
            "total": self.total,
            "reasons": {
                reason: {
                    "count": self.counts[reason],
                    "rows": list(self.rows.get(reason, ())),
                    "notes": list(self.notes.get(reason, ())),
                }
                for reason in LEFT_OUT_REASONS
                if reason in self.counts
            },
        }

    def lines(self) -> list[str]:
        """One line per reason for a console report: count, first row numbers, first note."""
        return report_lines(self.to_dict())


def report_lines(left_out: Mapping[str, Any]) -> list[str]:
    """``LeftOut.to_dict()`` (as a summary holds it) as one line per reason:
    ``left out, duplicate key: 2 (rows 3, 5); row 3 has the same … (+1 more)``, or
    ``(row 3)`` when one record number is listed."""
    out = []
    for reason, info in left_out.get("reasons", {}).items():
        rows = ", ".join(map(str, info.get("rows", [])))
        more = "…" if len(info.get("rows", [])) >= _FIRST and info["count"] > _FIRST else ""
        notes = info.get("notes") or []
        note = f"; {notes[0]}" + (f" (+{len(notes) - 1} more)" if len(notes) > 1 else "") if notes else ""
        word = "row" if len(info.get("rows", [])) == 1 else "rows"
        out.append(f"left out, {reason}: {info['count']} ({word} {rows}{more}){note}")
    return out


@dataclass(frozen=True)
class Prepared:
    rows: pd.DataFrame  # ROW_COLUMNS, in file order (a wide file's record: its columns in order)
    left_out: LeftOut
    systems: tuple[str, ...]  # in file order


class _Marks:
    """Why each output of each record is left out: ``reason[i, j]`` (an index + 1 into
    ``LEFT_OUT_REASONS``, 0 = kept), the first rows' notes per reason, and the records still
    in play. A record keeps the first reason it is given."""

    def __init__(self, n: int, k: int, records: np.ndarray) -> None:
        self.reason = np.zeros((n, k), dtype=np.int8)
        self.notes: dict[str, list[str]] = {}
        self.records = records

    def leave_out(self, name: str, mask: np.ndarray) -> None:
        code = LEFT_OUT_REASONS.index(name) + 1
        if mask.ndim == 1:
            mask = mask[:, None]
        self.reason[(self.reason == _NO_REASON) & mask] = code

    def alive(self) -> np.ndarray:
        return (self.reason == _NO_REASON).any(axis=1)

    def note(self, name: str, text: str) -> None:
        self.notes.setdefault(name, []).append(text)


def prepare(
    file: ResultsFile,
    mapping: Mapping[str, str | None],
    *,
    needs_expected: bool,
    output_columns: Sequence[str] | None = None,
    duplicates: bool = True,
) -> Prepared:
    """The rows to score, and the rows left out with their reasons, in named steps: the
    mapped columns, missing ids, outputs and expected answers, repeats, expected kinds and
    references, per-row assertions, duplicate keys (last, so that a record is never the
    duplicate of one left out for another reason), then the rows, record-major.
    ``duplicates=False`` skips the duplicate keys: a part of a file read in parts finds
    them across the parts (``graders.distributed``)."""
    outputs = _check_mapping(file, mapping, needs_expected, output_columns)
    frame = file.frame
    n, k = len(frame), len(outputs)
    records = np.asarray(file.records, dtype=np.int64)

    def column(role: str) -> np.ndarray | None:
        name = mapping.get(role)
        return None if name is None else frame[name].to_numpy(dtype=object)

    ids, expected, version = column("id"), column("expected"), column("version")
    if ids is None:  # no id column: each record is its own case, named by its number
        ids = np.array([str(r) for r in file.records], dtype=object)
    repeat, kinds, asserts, inputs = column("repeat"), column("expected_kind"), column("assert"), column("input")
    out = [frame[c].to_numpy(dtype=object) for c in outputs]
    marks = _Marks(n, k, records)
    _missing_cells(marks, ids, out, outputs, expected, needs_expected)
    repeat_number, repeat_key, repeat_text = _repeats(marks, repeat, n)
    exp_text, refs = _references(marks, expected, kinds, n, needs_expected)
    assertions = _row_assertions(marks, asserts, n)
    if duplicates:
        _duplicate_keys(marks, mapping, [ids] + [p for p in (_filled(version), repeat_key) if p is not None])
    rows, system = _rows(marks, outputs, out, version, ids, repeat_text, repeat_number, refs, inputs, assertions,
                         exp_text, {c: frame[c].to_numpy(dtype=object) for c in ROW_FIELDS
                                    if asserts is not None and c in frame.columns})
    left_out = _left_out(file, marks.reason, records, k, marks.notes)
    return Prepared(rows=rows, left_out=left_out, systems=tuple(pd.unique(system).tolist()))


def _missing_cells(marks: _Marks, ids: np.ndarray, out: list[np.ndarray], outputs: Sequence[str],
                   expected: np.ndarray | None, needs_expected: bool) -> None:
    """No id, no output (per output column), no expected where a grader needs one."""
    marks.leave_out("no id", _missing(ids))
    missing_out = np.column_stack([_missing(o) for o in out])
    if len(outputs) > 1:
        for i in np.flatnonzero(missing_out.any(axis=1) & marks.alive())[:_FIRST]:
            gone = [c for c, m in zip(outputs, missing_out[i]) if m]
            marks.note("no output", f"row {marks.records[i]} has no {' or '.join(gone)}")
    marks.leave_out("no output", missing_out)
    if needs_expected:
        marks.leave_out("no expected", _missing(expected))


def _repeats(marks: _Marks, repeat: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Each record's repeat as a number, as a key for pairing (None without a repeat
    column) and as written; a repeat that is not a whole number >= 0 is left out. Each
    distinct cell is parsed once."""
    if repeat is None:
        return np.zeros(n, dtype=np.int64), None, np.full(n, "", dtype=object)
    r_codes, r_uniques = pd.factorize(repeat)
    r_number = np.full(len(r_uniques) + 1, -1, dtype=np.int64)  # last slot: absent
    r_key = np.empty(len(r_uniques) + 1, dtype=object)
    r_key[-1] = "\x00"
    huge: dict[int, int] = {}
    for u, cell in enumerate(r_uniques):
        m = _REPEAT.fullmatch(cell)
        if m:
            if len(m.group(1)) <= 18:
                r_number[u] = int(m.group(1))
            else:  # past int64: the column holds Python ints (or, past the 4,300 digits
                # int() converts, the digits themselves: compared as keys, they still pair)
                huge[u] = int(m.group(1)) if len(m.group(1)) <= 4300 else m.group(1)
            r_key[u] = m.group(1)
        else:
            r_key[u] = "\x00" + cell  # a bad repeat is compared as written
    if huge:
        r_number = r_number.astype(object)
        for u, value in huge.items():
            r_number[u] = value
    bad = np.fromiter((key[0] == "\x00" for key in r_key), dtype=bool, count=len(r_key))[r_codes]
    for i in np.flatnonzero(bad & marks.alive())[:_FIRST]:
        cell = repeat[i]
        marks.note("bad repeat", f"row {marks.records[i]} has no repeat" if cell is None or cell == ""
                   else f"row {marks.records[i]} has the repeat {cell!r}, not a whole number >= 0")
    marks.leave_out("bad repeat", bad)
    return r_number[r_codes], r_key[r_codes], np.where(r_codes < 0, "", repeat).astype(object)


def _references(marks: _Marks, expected: np.ndarray | None, kinds: np.ndarray | None, n: int,
                needs_expected: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each record's expected text and references: one for ``exact`` and ``label``, the JSON
    array's for ``any-of``; an unknown kind or a malformed any-of is left out where a grader
    needs the expected answer."""
    exp_text = _filled(expected) if expected is not None else np.full(n, "", dtype=object)
    kind = np.zeros(n, dtype=np.int8)  # index into EXPECTED_KINDS, -1 unknown
    if kinds is not None:
        k_codes, k_uniques = pd.factorize(kinds)
        k_index = np.array([_kind_index(u) for u in k_uniques] + [0], dtype=np.int8)
        kind = k_index[k_codes]
    refs = np.empty(n, dtype=object)
    has_exp = ~_missing(expected) if expected is not None else np.zeros(n, dtype=bool)
    single = has_exp & (kind != EXPECTED_KINDS.index("any-of")) & (kind >= 0)
    refs.fill(())
    if single.any():
        refs[single] = np.fromiter(zip(exp_text[single]), dtype=object, count=int(single.sum()))
    if needs_expected:
        unknown = kind < 0
        for i in np.flatnonzero(unknown & marks.alive())[:_FIRST]:
            marks.note("unknown expected kind", f"row {marks.records[i]} has the expected kind {kinds[i]!r}; "
                                                f"use {', '.join(EXPECTED_KINDS)}")
        marks.leave_out("unknown expected kind", unknown)
    any_of = has_exp & (kind == EXPECTED_KINDS.index("any-of"))
    if needs_expected:
        any_of &= marks.alive()
    rows_any = np.flatnonzero(any_of)
    if len(rows_any):
        ok, values, problems = _parse_unique(exp_text[rows_any], _any_of)
        refs[rows_any[ok]] = values[ok]
        if needs_expected:
            bad_at = np.flatnonzero(~ok)
            if len(bad_at):
                marks.notes["bad any-of expected"] = [f"row {marks.records[rows_any[j]]}: {problems[j]}"
                                                      for j in bad_at[:_FIRST]]
                marks.leave_out("bad any-of expected", _mask(n, rows_any[bad_at]))
    return exp_text, refs


def _row_assertions(marks: _Marks, asserts: np.ndarray | None, n: int) -> np.ndarray:
    """Each record's parsed assertions (a tuple, () for none); malformed ones are left out."""
    assertions = np.empty(n, dtype=object)
    assertions.fill(())
    if asserts is None:
        return assertions
    problem: dict[int, str] = {}
    bad = np.zeros(n, dtype=bool)
    rows_a = np.flatnonzero(~_missing(asserts) & marks.alive())
    if len(rows_a):
        ok, values, problems = _parse_unique(asserts[rows_a], _assertions)
        assertions[rows_a[ok]] = values[ok]
        bad[rows_a[~ok]] = True
        for j in np.flatnonzero(~ok)[:_FIRST]:
            problem[int(rows_a[j])] = problems[j]
    if problem:
        marks.notes["malformed assertions"] = [f"row {marks.records[i]}: {problem[i]}" for i in sorted(problem)[:_FIRST]]
    marks.leave_out("malformed assertions", bad)
    return assertions


def _duplicate_keys(marks: _Marks, mapping: Mapping[str, str | None], key_parts: list[np.ndarray]) -> None:
    """A record whose key (id, version, repeat) an earlier record still in play has is left
    out, naming that first record."""
    live = np.flatnonzero(marks.alive())
    if not len(live):
        return
    codes = group_codes([p[live] for p in key_parts])
    running = np.maximum.accumulate(np.concatenate(([-1], codes[:-1])))
    first_seen = codes > running  # codes number groups in order of first appearance
    dup = np.flatnonzero(~first_seen)
    if len(dup):
        first_of_group = live[np.flatnonzero(first_seen)]
        what = _key_phrase(mapping)
        marks.notes["duplicate key"] = [
            f"row {marks.records[live[d]]} has the same {what} as row {marks.records[first_of_group[codes[d]]]}"
            for d in dup[:_FIRST]
        ]
        marks.leave_out("duplicate key", _mask(len(marks.reason), live[dup]))


def _rows(marks: _Marks, outputs: Sequence[str], out: list[np.ndarray], version: np.ndarray | None,
          ids: np.ndarray, repeat_text: np.ndarray, repeat_number: np.ndarray, refs: np.ndarray,
          inputs: np.ndarray | None, assertions: np.ndarray, exp_text: np.ndarray,
          fields: Mapping[str, np.ndarray]) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows kept, record-major with the output columns in order, and their systems: the
    version (with ``/output_b`` for a second output), or the output column's name."""
    k = len(outputs)
    keep_flat = np.flatnonzero(marks.reason.ravel() == _NO_REASON)
    rec, slot = keep_flat // k, keep_flat % k
    if version is None:
        names = np.array(outputs, dtype=object)
        system = names[slot]
    else:
        v = _filled(version)
        system = v[rec].copy()
        for j, name in enumerate(outputs[1:], 1):
            sel = slot == j
            system[sel] = v[rec[sel]] + ("/" + name)
        if k > 1:  # a version named like another's second output would merge two systems
            firsts = set(system[slot == 0].tolist())
            clash = next((s for s in system[slot > 0].tolist() if s in firsts), None)
            if clash is not None:
                raise MappingError(
                    f"the version {clash!r} is also the name of another version's {clash.rsplit('/', 1)[1]} "
                    f"system; rename the version so that each version and output is one system")
    output = np.empty(len(rec), dtype=object)
    for j in range(k):
        sel = slot == j
        output[sel] = out[j][rec[sel]]
    m = len(rec)
    rows = pd.DataFrame(
        {
            "item": ids[rec],
            "system": system,
            "repeat": repeat_text[rec],
            "refs": refs[rec],
            "output": output,
            "input": _filled(inputs)[rec] if inputs is not None else np.full(m, "", dtype=object),
            "assertions": assertions[rec],
            "expected": exp_text[rec],
            "output_column": np.array(outputs, dtype=object)[slot],
        },
        dtype=object,  # plain str cells, not pandas' inferred string dtype
        copy=False,  # one block per column: no 2-D copy of a million objects
    )
    rows.insert(0, "record", marks.records[rec])
    rows.insert(len(rows.columns) - 1, "repeat_number", repeat_number[rec])
    for name, cells in fields.items():
        rows[name] = pd.Series(cells[rec], index=rows.index, dtype=object)
    return rows[list(ROW_COLUMNS) + list(fields)], system


# --------------------------------------------------------------------------- helpers


def _check_mapping(file: ResultsFile, mapping: Mapping[str, str | None], needs_expected: bool,
                   output_columns: Sequence[str] | None) -> list[str]:
    unknown = [role for role in mapping if role not in ROLES]
    if unknown:
        raise MappingError(f"unknown column role {unknown[0]!r}; the roles are {', '.join(ROLES)}")
    present = set(file.columns)
    shown = ", ".join(quoted_name(c if len(c) <= 40 else c[:39] + "…") for c in file.columns[:12])
    shown += ", …" if len(file.columns) > 12 else ""
    for role in ROLES:
        col = mapping.get(role)
        if col is not None and col not in present:
            raise MappingError(f"the column {col!r} mapped to {role} is not in the file (its columns: {shown})")
    if output_columns is None:
        outputs = [c for c in (mapping.get("output"), mapping.get("output_b")) if c is not None]
    else:
        outputs = list(output_columns)
        for col in outputs:
            if col not in present:
                raise MappingError(f"the output column {col!r} is not in the file (its columns: {shown})")
    twice = sorted({c for c in outputs if outputs.count(c) > 1})
    if twice:
        raise MappingError(f"the output column {twice[0]!r} is chosen twice")
    if not outputs:
        raise MappingError(f"no column is mapped to output; choose one of: {shown}")
    if needs_expected and mapping.get("expected") is None:
        raise MappingError(f"a selected grader needs the expected answer, and no column is mapped to expected; choose one of: {shown}")
    return outputs


def _missing(values: np.ndarray | None) -> np.ndarray:
    """Absent (None) or the empty string."""
    if values is None:
        return np.zeros(0, dtype=bool)
    return np.equal(values, None) | (values == "")


def _filled(values: np.ndarray | None) -> np.ndarray | None:
    """Absent cells as ""."""
    if values is None:
        return None
    absent = np.equal(values, None)
    if not absent.any():
        return values
    filled = values.copy()
    filled[absent] = ""
    return filled


def group_codes(parts: Sequence[np.ndarray]) -> np.ndarray:
    """One code per distinct tuple of parts, numbered in order of first appearance. Each
    part is factorized on its cells as they are (object arrays): no text is joined or
    converted, so a lone surrogate, which pandas' string dtype cannot hold, pairs like
    any other cell, and no two tuples can collide the way joined texts can."""
    codes, _ = pd.factorize(parts[0])
    for part in parts[1:]:
        c, u = pd.factorize(part)
        codes, _ = pd.factorize(codes.astype(np.int64) * (len(u) + 1) + c)
    return codes


def _key_phrase(mapping: Mapping[str, str | None]) -> str:
    parts = ["id"] + [r for r in ("version", "repeat") if mapping.get(r) is not None]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _kind_index(cell: str) -> int:
    word = cell.strip().lower()
    if word == "":
        return 0
    return EXPECTED_KINDS.index(word) if word in EXPECTED_KINDS else -1


def _parse_unique(cells: np.ndarray, parse) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``parse`` each distinct cell once; (ok mask, values, problems) aligned with ``cells``."""
    codes, uniques = pd.factorize(cells)
    values = np.empty(len(uniques), dtype=object)
    problems = np.empty(len(uniques), dtype=object)
    for u, cell in enumerate(uniques):
        values[u], problems[u] = parse(cell)
    problems = problems[codes]
    return np.equal(problems, None), values[codes], problems


def _mask(n: int, where: np.ndarray) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    mask[where] = True
    return mask


def _any_of(cell: str) -> tuple[tuple[str, ...] | None, str | None]:
    try:  # a number is a reference as written (41, 3.10), like every other cell
        value = json.loads(cell, parse_int=str, parse_float=str)
    except (ValueError, RecursionError) as exc:
        return None, f"an any-of expected must be a JSON array of strings; this is not JSON ({_json_msg(exc)})"
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None, "an any-of expected must be a JSON array of strings (or numbers)"
    if not value:
        return None, "an any-of expected is an empty array"
    return tuple(value), None


class _Spelled:
    """A JSON number of an assertion, with its source spelling (``spelling``): a value
    ``1e2`` is the text 1e2, a threshold 0.5 still a number."""

    def __new__(cls, text: str):
        number = super().__new__(cls, text)  # type: ignore[call-arg]
        number.spelling = text
        return number


class _SpelledFloat(_Spelled, float):
    pass


class _SpelledInt(_Spelled, int):
    pass


def _assertions(cell: str) -> tuple[tuple[dict, ...] | None, str | None]:
    try:
        value = json.loads(cell, parse_float=_SpelledFloat, parse_int=_SpelledInt)
    except (ValueError, RecursionError) as exc:
        return None, f"the assertions are not JSON ({_json_msg(exc)})"
    if value is None:
        return (), None
    if not isinstance(value, list):
        return None, "the assertions must be a JSON list of objects" + (", not an object" if isinstance(value, dict) else "")
    for index, item in enumerate(value, 1):
        if not isinstance(item, dict):
            return None, f"assertion {index} is not an object"
        if not isinstance(item.get("type"), str):
            return None, f'assertion {index} has no "type" string'
    return tuple(value), None


def _json_msg(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}" if exc.lineno == 1 else f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return "a number of more than 4,300 digits"  # int()'s conversion limit, the one other ValueError


def _left_out(file: ResultsFile, reason: np.ndarray, records: np.ndarray, k: int,
              notes: dict[str, list[str]]) -> LeftOut:
    """The left-out report from ``reason`` (record × output column: a reason's code, or 0
    for kept): each reason counts the records (file rows) it left out, a wide record once
    though both its columns are out, and lists the first twenty record numbers."""
    counts: dict[str, int] = {}
    rows: dict[str, tuple[int, ...]] = {}
    out_notes: dict[str, tuple[str, ...]] = {}
    if file.unreadable:
        counts["unreadable"] = len(file.unreadable)
        rows["unreadable"] = tuple(r for r, _ in file.unreadable[:_FIRST])
        out_notes["unreadable"] = tuple(f"row {r} {why}" for r, why in file.unreadable[:_FIRST])
    flat = reason.ravel()
    tally = np.bincount(flat, minlength=len(LEFT_OUT_REASONS) + 1)
    for code, name in enumerate(LEFT_OUT_REASONS, 1):
        if name == "unreadable" or not tally[code]:
            continue
        hit = np.flatnonzero((reason == code).any(axis=1))  # a record counts once, whatever its columns
        counts[name] = len(hit)
        rows[name] = tuple(records[hit[:_FIRST]].tolist())
        if notes.get(name):
            out_notes[name] = tuple(notes[name][:_FIRST])
    ordered = {name: counts[name] for name in LEFT_OUT_REASONS if name in counts}
    outputs = int(np.count_nonzero(flat)) + len(file.unreadable) * k
    return LeftOut(counts=ordered, rows=rows, notes=out_notes, total=sum(ordered.values()), outputs=outputs)
