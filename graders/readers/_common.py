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
from codecs import utf_8_decode as _utf8
from contextlib import contextmanager
from json.encoder import c_encode_basestring, c_make_encoder, py_encode_basestring
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import pandas as pd

from graders.readers.frame import ResultsFile, ResultsFileError

__all__ = [
    "Number", "ResultsFile", "ResultsFileError", "STREAMED", "build", "compact", "decode", "decode_streaming",
    "decode_streaming_utf8", "decode_utf8", "no_gc", "scalar_or_none", "scan", "text",
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


def build(rows: list[dict[str, str | None]] | None, records: Iterable[int], fmt: str,
          unreadable: Iterable[tuple[int, str]], first: Iterable[str] = (),
          fixed: dict[str, Any] | None = None) -> ResultsFile:
    """A ``ResultsFile`` from row dicts, and ``fixed`` columns already made (a list or an
    array, one cell per row: the columns every row has, cheaper than a dict entry per
    row; ``rows`` None when every column is one). Columns in order of first appearance
    (fixed ones first), after the ``first`` ones that occur; a row without a column has
    ``None`` there."""
    records = tuple(records)
    n = len(records)
    fixed = fixed or {}
    columns: dict[str, None] = dict.fromkeys(fixed)
    known = columns.keys()
    for row in rows or ():
        if not row.keys() <= known:  # a set comparison in C: most rows bring no new column
            for key in row:
                columns.setdefault(key)
    order = [c for c in first if c in columns] + [c for c in columns if c not in first]
    others = [c for c in order if c not in fixed]
    if (rows is None and others) or (rows is not None and len(rows) != n) or any(len(v) != n for v in fixed.values()):
        raise AssertionError("one record number and one cell of each column per row")
    # Row by row (each row's dict is touched once), then transposed in C.
    transposed = zip(*[tuple(map(row.get, others)) for row in rows]) if n and others else iter(())
    by_name = dict(zip(others, transposed))
    data: dict[int, np.ndarray] = {}
    for i, name in enumerate(order):
        cells = fixed[name] if name in fixed else by_name.get(name)
        if cells is None:
            data[i] = np.full(n, None, dtype=object)
        elif isinstance(cells, np.ndarray):
            data[i] = np.array(cells, dtype=object)  # a copy: its own memory, not a view of another
        else:  # a list or tuple of cells, one by one (no search for nested sequences)
            data[i] = np.fromiter(cells, dtype=object, count=n)
    frame = pd.DataFrame(data, index=pd.RangeIndex(n), columns=range(len(order)), dtype=object, copy=False)
    frame.columns = pd.Index(order, dtype=object)
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


# --------------------------------------------------------------------------- streaming from bytes

_CHUNK = 1 << 20  # bytes decoded at a time
# Text kept ahead of a value before reading it: a value cut by the window's end fails, and
# json's error counts the lines before it, so it should fail near the window's start.
_AHEAD = 1 << 16


class _Invalid(Exception):
    """The file is not UTF-8 JSON: read again as a whole, for the exact message."""


class _More(Exception):
    """The window of text ends inside what is being read."""


class _Window:
    """A UTF-8 file decoded a chunk at a time: ``text`` holds its characters from
    ``base`` on. What the reader has moved past is dropped, so the text is never whole
    in memory: one large string is slower to make than its chunks (each of its pages is
    new memory) and needs a copy of the file."""

    __slots__ = ("data", "pos", "text", "base", "eof")

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.pos = 3 if data[:3] == b"\xef\xbb\xbf" else 0  # the next byte to decode
        self.text = ""
        self.base = 0
        self.eof = False
        self.more(0)

    def more(self, keep: int) -> bool:
        """Decode more of the file (at least as much as the window holds), keeping the
        text from ``keep`` (a position in the whole text) on; False at the end of the file.
        Raises ``UnicodeDecodeError``."""
        if self.eof:
            return False
        text, tail = self.text, keep - self.base
        size = max(_CHUNK, len(text), 4)  # 4: a whole UTF-8 sequence, so each call moves on
        if text.isascii():  # a character a byte: decode again from ``keep`` rather than copy
            start = self.pos - len(text) + tail
            text, used = _utf8(self.data[start:self.pos + size], "strict", self.pos + size >= len(self.data))
            self.pos = start + used
        else:
            new, used = _utf8(self.data[self.pos:self.pos + size], "strict", self.pos + size >= len(self.data))
            text = text[tail:] + new
            self.pos += used
        self.text, self.base, self.eof = text, keep, self.pos >= len(self.data)
        return True

    def ws(self, idx: int) -> int:
        """The position of the first character from ``idx`` on that is not whitespace."""
        while True:
            end = _WS.match(self.text, idx - self.base).end()
            if end < len(self.text) or not self.more(idx):
                return self.base + end

    def char(self, idx: int) -> str:
        """The character at ``idx`` ("" at the end of the file)."""
        while idx - self.base >= len(self.text) and self.more(self.base):
            pass
        return self.text[idx - self.base:idx - self.base + 1]


def decode_streaming_utf8(data: bytes, what: str, path: tuple[str, ...], each: Callable[[Any], None]) -> Any:
    """``decode_streaming(decode_utf8(data, what), path, each)``, the file decoded a chunk
    at a time (``_Window``): the same document, the same ``each`` calls and, for a file
    that is not UTF-8 JSON, the same exception (it is then read again as a whole)."""
    try:
        window = _Window(data)
        idx = window.ws(0)
        if window.char(idx) == "{" and path:
            value, idx = _window_object(window, idx, path, each)
        else:
            value, idx = _window_value(window, idx, "")
        if window.ws(idx) - window.base != len(window.text):
            raise _Invalid
        return value
    except (_Invalid, UnicodeDecodeError, RecursionError):
        pass
    decode_streaming(decode_utf8(data, what), path, lambda item: None)  # raises as it would
    raise AssertionError("the file read as a whole is valid where read in chunks it is not")


def _window_value(w: _Window, idx: int, ends: str) -> tuple[Any, int]:
    """The value at ``idx``, and the position after it and its whitespace: of a character
    of ``ends``, or (``ends`` empty) of the end of the file."""
    if len(w.text) - (idx - w.base) < _AHEAD:
        w.more(idx)
    while True:
        text, base = w.text, w.base
        try:
            value, i = _SCAN(text, idx - base)
            j = _WS.match(text, i).end()
            c = text[j:j + 1]
            if (c and c in ends) or (not c and not ends and w.eof):
                return value, base + j
            raise _More  # the window's end, or a number it cut short
        except (StopIteration, json.JSONDecodeError, _More):
            if not w.more(idx):
                raise _Invalid from None


def _window_object(w: _Window, idx: int, path: tuple[str, ...], each: Callable[[Any], None]) -> tuple[dict, int]:
    obj: dict[str, Any] = {}
    idx = w.ws(idx + 1)
    if w.char(idx) == "}":
        return obj, idx + 1
    while True:
        start = idx
        if len(w.text) - (start - w.base) < _AHEAD:
            w.more(start)
        while True:  # the key, and where its value starts
            text, base = w.text, w.base
            try:
                i = start - base
                if text[i:i + 1] != '"':
                    raise _More
                key, i = _SCAN(text, i)
                i = _WS.match(text, i).end()
                if text[i:i + 1] != ":":
                    raise _More
                i = _WS.match(text, i + 1).end()
                if i == len(text):
                    raise _More
                break
            except (StopIteration, json.JSONDecodeError, _More):
                if not w.more(start):
                    raise _Invalid from None
        idx = base + i
        opener = text[i]
        if key == path[0] and len(path) == 1 and opener == "[":
            idx = w.ws(_window_array(w, idx, each))
            value: Any = STREAMED
        elif key == path[0] and len(path) > 1 and opener == "{":
            value, idx = _window_object(w, idx, path[1:], each)
            idx = w.ws(idx)
        else:
            value, idx = _window_value(w, idx, ",}")
        obj[key] = value
        c = w.char(idx)
        if c == ",":
            idx = w.ws(idx + 1)
        elif c == "}":
            return obj, idx + 1
        else:
            raise _Invalid


def _window_array(w: _Window, idx: int, each: Callable[[Any], None]) -> int:
    ws = _WS.match
    scan = _SCAN
    idx = w.ws(idx + 1)
    if w.char(idx) == "]":
        return idx + 1
    while True:
        start = idx
        if len(w.text) - (start - w.base) < _AHEAD:
            w.more(start)
        while True:  # one element and the comma or bracket after it
            text, base = w.text, w.base
            try:
                item, i = scan(text, start - base)
                j = ws(text, i).end()
                c = text[j:j + 1]
                if c != "," and c != "]":
                    raise _More  # the window's end, or a number it cut short
                break
            except (StopIteration, json.JSONDecodeError, _More):
                if not w.more(start):
                    raise _Invalid from None
        each(item)
        del item
        if c == "]":
            return base + j + 1
        k = ws(text, j + 1).end()
        idx = base + k if k < len(text) else w.ws(base + j + 1)
