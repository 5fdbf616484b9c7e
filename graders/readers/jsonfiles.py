"""JSON lines, a JSON array of objects, or ``{"rows": [...]}``: numbers in their source
spelling, objects one level deep as dotted columns, deeper values as compact JSON text."""

from __future__ import annotations

import json
from itertools import compress
from operator import not_
from typing import Any

import numpy as np
import pandas as pd

from graders.readers.frame import ResultsFile, ResultsFileError, check_columns
from graders.text.show import quoted_name

_KEY_TEXT: dict[str, str] = {}  # '"key":' per object key seen (files repeat their keys)


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
            if end != len(line) and line[end:].strip(" \t\n\r"):  # JSON's whitespace only (not U+00A0)
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
        if type(obj) is not tuple:  # an array is one to both decoders; a scalar is read again for its kind
            unreadable.append((number, f"is {_kind(obj if type(obj) is list else _EXACT.decode(line))}, not an object"))
            continue
        check_columns(len(obj), f"line {number} has")  # one object's own fields, before any is looked at
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
            check_columns(len(columns), f"up to line {number}, the records have")
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
                f"this object has no \"rows\" (its fields: {', '.join(map(quoted_name, list(fields)[:8])) or 'none'})"
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
        check_columns(len(obj), f"entry {number} has")
        try:
            row = _flatten(obj, exact)
        except _BadRecord as exc:
            unreadable.append((number, str(exc)))
            continue
        keys = row.keys()
        if keys != last_keys:
            _add_columns(columns, obj)
            check_columns(len(columns), f"up to entry {number}, the records have")
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
