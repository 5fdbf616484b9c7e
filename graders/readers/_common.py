"""What the harness readers share: JSON values as cell text, and the frame they return.

Settings, stated once (they hold for promptfoo, Inspect and lm-eval files):

- JSON is decoded with Python's C decoder, floats kept as their source text (``Number``,
  so ``3.10`` and ``1e-5`` stay as written); integers are decoded as ``int`` and written
  back in decimal, which is their source spelling (JSON has no ``007``; only ``-0`` would
  read as ``0``).
- ``text(v)``: a string as it is; a number as written; ``true`` / ``false`` / ``null`` as
  that text; an object or array as compact JSON (``,`` and ``:`` without spaces, non-ASCII
  characters as themselves, numbers as written), which is what JavaScript's
  ``JSON.stringify`` writes for the same value.
- A cell is a ``str`` or ``None`` (absent). Columns are object-dtype.
- Large documents: ``decode_streaming`` hands the elements of one long array (Inspect's
  ``samples``, promptfoo's ``results.results``) to the reader one at a time, and the
  readers run with the cyclic garbage collector off (``no_gc``), as ``graders.readers``
  does: together about twice as fast as ``json.loads`` of the whole document.
"""

from __future__ import annotations

import gc
import json
import re
from contextlib import contextmanager
from json.encoder import c_encode_basestring, c_make_encoder, py_encode_basestring
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import pandas as pd

from graders.readers.frame import ResultsFile, ResultsFileError

__all__ = [
    "Number", "ResultsFile", "ResultsFileError", "STREAMED", "build", "compact", "decode", "decode_streaming",
    "decode_utf8", "no_gc", "scalar_or_none", "scan", "text",
]


class Number(str):
    """A JSON float's source text (``3.10`` stays ``3.10``)."""

    __slots__ = ()


_DECODER = json.JSONDecoder(parse_float=Number, parse_constant=Number)
_encode_str = c_encode_basestring or py_encode_basestring  # a JSON string, non-ASCII as itself


def decode(text: str) -> Any:
    """One JSON document (raises ``json.JSONDecodeError`` / ``RecursionError``)."""
    return _DECODER.decode(text)


def scan(text: str, start: int = 0) -> tuple[Any, int]:
    """One JSON value from ``start`` (the C scanner): (value, end). Raises StopIteration
    where no value starts, ``json.JSONDecodeError`` on broken JSON."""
    return _SCAN(text, start)


_SCAN = _DECODER.scan_once


def _py_compact(value: Any) -> str:
    """``compact`` in Python (where the C encoder is missing)."""
    t = type(value)
    if t is str:
        return _encode_str(value)
    if t is Number:
        return str.__str__(value)
    if t is dict:
        return "{" + ",".join([_encode_str(k) + ":" + _py_compact(v) for k, v in value.items()]) + "}"
    if t is list:
        return "[" + ",".join([_py_compact(v) for v in value]) + "]"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if t is int:
        return int.__repr__(value)
    if t is float:  # a document decoded without ``decode``: Python's shortest spelling
        return float.__repr__(value)
    raise TypeError(f"not a decoded JSON value: {t.__name__}")


def _encode_any_str(s: str, _number=Number, _encode=_encode_str) -> str:
    """The C encoder's string hook: a ``Number`` is written bare, any other string quoted."""
    return str.__str__(s) if type(s) is _number else _encode(s)


def _not_json(o: Any) -> Any:
    raise TypeError(f"not a decoded JSON value: {type(o).__name__}")


if c_make_encoder is not None:
    # json's own C encoder, compact separators, strings through ``_encode_any_str``:
    # three times faster than walking the value in Python.
    _iterencode = c_make_encoder(None, _not_json, _encode_any_str, None, ":", ",", False, False, True)

    def compact(value: Any) -> str:
        """Compact JSON text of a decoded value, numbers spelled as in the source."""
        if type(value) is str:
            return _encode_str(value)
        return "".join(_iterencode(value, 0))
else:  # pragma: no cover - CPython always has the C encoder
    compact = _py_compact


def text(value: Any) -> str:
    """A decoded JSON value as cell text (a string as it is; JSON ``null`` as ``"null"``)."""
    t = type(value)
    if t is str:
        return value
    if t is Number:
        return str.__str__(value)
    if t is int:
        return int.__repr__(value)
    if t is float:
        return float.__repr__(value)
    return compact(value)


def scalar_or_none(value: Any) -> str | None:
    """As ``text``, but a JSON ``null`` (or a missing value) is absent: for mapped fields
    such as output and expected, where null means "none given"."""
    if value is None:
        return None
    return text(value)


def build(rows: list[dict[str, str | None]], records: Iterable[int], fmt: str,
          unreadable: Iterable[tuple[int, str]], first: Iterable[str] = (),
          fixed: dict[str, list] | None = None) -> ResultsFile:
    """A ``ResultsFile`` from row dicts, and ``fixed`` columns already made as lists (one
    cell per row: the columns every row has, cheaper than a dict entry per row). Columns
    in order of first appearance (fixed ones first), after the ``first`` ones that occur;
    a row without a column has ``None`` there."""
    columns: dict[str, None] = dict.fromkeys(fixed or ())
    known = columns.keys()
    for row in rows:
        if not row.keys() <= known:  # a set comparison in C: most rows bring no new column
            for key in row:
                columns.setdefault(key)
    order = [c for c in first if c in columns] + [c for c in columns if c not in first]
    n = len(rows)
    fixed = fixed or {}
    others = [c for c in order if c not in fixed]
    # Row by row (each row's dict is touched once), then transposed in C.
    transposed = zip(*[tuple(map(row.get, others)) for row in rows]) if n and others else iter(())
    by_name = dict(zip(others, transposed))
    data: dict[int, np.ndarray] = {}
    for i, name in enumerate(order):
        arr = np.empty(n, dtype=object)
        arr[:] = fixed[name] if name in fixed else by_name.get(name, [None] * n)
        data[i] = arr
    frame = pd.DataFrame(data, index=pd.RangeIndex(n), columns=range(len(order)), dtype=object, copy=False)
    frame.columns = pd.Index(order, dtype=object)
    records = tuple(records)
    if len(records) != n or any(len(v) != n for v in fixed.values()):
        raise AssertionError("one record number and one cell of each column per row")
    return ResultsFile(frame=frame, records=records, format=fmt, unreadable=tuple(unreadable), columns=tuple(order))


@contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic garbage collector off for the block: decoding a large log makes millions
    of containers, and the collector's passes over them only slow loading (as in
    ``graders.readers``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def decode_utf8(data: bytes, what: str) -> str:
    """Bytes as UTF-8 text (a BOM dropped), or one clear ``ResultsFileError``."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsFileError(
            f"{what} is not UTF-8 text: byte 0x{data[exc.start]:02x} at byte offset {exc.start}"
        ) from None


# --------------------------------------------------------------------------- streaming one array

_WS = re.compile(r"[ \t\n\r]*")
STREAMED = object()  # stands, in the decoded document, for the array that was streamed


def decode_streaming(text: str, path: tuple[str, ...], each: Callable[[Any], None]) -> Any:
    """Decode a JSON document whose value at ``path`` (object keys) is a long array,
    calling ``each`` on that array's elements one at a time instead of keeping them.

    Everything else is decoded by the C scanner as ``decode`` would, and returned with
    ``STREAMED`` in the array's place (the path absent or not an array: nothing is
    streamed and the document is returned whole). Each element is handled while it is
    fresh in memory and freed right after, which is faster than building the whole
    document first and needs a fraction of its memory. Raises ``json.JSONDecodeError``
    (with the position) on malformed JSON, as ``decode`` does. (An object naming the
    array's key twice has both arrays streamed, where ``json`` would keep the last.)
    """
    idx = _WS.match(text, 0).end()
    if text[idx:idx + 1] == "{" and path:
        value, idx = _stream_object(text, idx, path, each)
    else:
        value, idx = _value(text, idx)
    idx = _WS.match(text, idx).end()
    if idx != len(text):
        raise json.JSONDecodeError("Extra data", text, idx)
    return value


def _value(text: str, idx: int) -> tuple[Any, int]:
    try:
        return _SCAN(text, idx)
    except StopIteration as exc:
        raise json.JSONDecodeError("Expecting value", text, exc.value) from None


def _stream_object(text: str, idx: int, path: tuple[str, ...], each: Callable[[Any], None]) -> tuple[dict, int]:
    obj: dict[str, Any] = {}
    ws = _WS.match
    idx = ws(text, idx + 1).end()
    if text[idx:idx + 1] == "}":
        return obj, idx + 1
    while True:
        if text[idx:idx + 1] != '"':
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, idx)
        key, idx = _SCAN(text, idx)
        idx = ws(text, idx).end()
        if text[idx:idx + 1] != ":":
            raise json.JSONDecodeError("Expecting ':' delimiter", text, idx)
        idx = ws(text, idx + 1).end()
        opener = text[idx:idx + 1]
        if key == path[0] and len(path) == 1 and opener == "[":
            idx = _stream_array(text, idx, each)
            value: Any = STREAMED
        elif key == path[0] and len(path) > 1 and opener == "{":
            value, idx = _stream_object(text, idx, path[1:], each)
        else:
            value, idx = _value(text, idx)
        obj[key] = value
        idx = ws(text, idx).end()
        c = text[idx:idx + 1]
        if c == ",":
            idx = ws(text, idx + 1).end()
        elif c == "}":
            return obj, idx + 1
        else:
            raise json.JSONDecodeError("Expecting ',' delimiter", text, idx)


def _stream_array(text: str, idx: int, each: Callable[[Any], None]) -> int:
    ws = _WS.match
    scan = _SCAN
    idx = ws(text, idx + 1).end()
    if text[idx:idx + 1] == "]":
        return idx + 1
    while True:
        try:
            item, idx = scan(text, idx)
        except StopIteration as exc:
            raise json.JSONDecodeError("Expecting value", text, exc.value) from None
        each(item)
        del item
        idx = ws(text, idx).end()
        c = text[idx:idx + 1]
        if c == ",":
            idx = ws(text, idx + 1).end()
        elif c == "]":
            return idx + 1
        else:
            raise json.JSONDecodeError("Expecting ',' delimiter", text, idx)
