"""Read a Parquet file into text cells (SPEC §5, §10).

Needs pyarrow, an optional dependency (``pip install pyarrow``, the ``parquet`` extra): it
is imported only when a Parquet file is read, and without it reading one raises one
``ResultsFileError`` saying so. Parquet is a binary, compressed, columnar format (Thrift
metadata, several encodings and codecs); pyarrow is its reference implementation and what
pandas itself reads Parquet with.

Cells, from each column's Arrow type (absent = ``None``, which is what a null is):

- strings as they are; integers in decimal; booleans ``true`` / ``false``;
- floats as the shortest text that reads back to the same value in the column's own
  precision (Python's ``repr`` for 64-bit floats: ``0.1``, ``1e-05``, ``nan``, ``inf``;
  numpy's shortest form for 32- and 16-bit ones, so a float32 0.1 is ``0.1``);
- decimals as written with their scale (``3.10``); dates and times in ISO 8601;
- binary as UTF-8 text (a value that is not UTF-8 makes its row unreadable);
- lists, maps and structs as compact JSON with the same spellings inside (a NaN there as
  ``NaN``); a struct column's fields one level deep are also dotted columns
  (``metadata.topic``), as a JSON object's are.

The record number of a row is its 1-based row number in the file.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import io
import json
import math
from typing import Any

import numpy as np
import pandas as pd

from graders.readers._common import ResultsFile, ResultsFileError

__all__ = ["FORMAT", "MAGIC", "read"]

FORMAT = "parquet"
MAGIC = b"PAR1"
_dumps_str = json.JSONEncoder(ensure_ascii=False).encode


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.parquet
    except ImportError:
        raise ResultsFileError("reading a Parquet file needs pyarrow: pip install pyarrow") from None
    return pyarrow


def read(data: bytes) -> ResultsFile:
    pa = _pyarrow()
    if not data.startswith(MAGIC):
        raise ResultsFileError("not a Parquet file: it does not start with PAR1")
    if not data.endswith(MAGIC):
        raise ResultsFileError("the Parquet file is cut off: its footer (ending in PAR1) is missing")
    try:
        table = pa.parquet.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        detail = " ".join(str(exc).split())  # pyarrow's messages end in a newline
        raise ResultsFileError(f"the Parquet file cannot be read: {detail}") from None
    n = table.num_rows
    columns: dict[str, np.ndarray] = {}
    bad: dict[int, str] = {}
    for name, column in zip(table.column_names, table.columns):
        if name in columns:
            raise ResultsFileError(f"duplicate column name {name!r} in the Parquet file")
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        if pa.types.is_dictionary(column.type):
            column = column.dictionary_decode()
        columns[name] = _cells(pa, column, name, bad)
        if pa.types.is_struct(column.type):
            for i, field in enumerate(column.type):
                dotted = f"{name}.{field.name}"
                if dotted in columns or dotted in table.column_names:
                    continue  # a real column of that name wins
                child = column.field(i)
                # A null struct has no fields: its dotted cells are absent too.
                valid = column.is_valid().to_numpy(zero_copy_only=False)
                cells = _cells(pa, child, dotted, bad)
                cells[~valid] = None
                columns[dotted] = cells
    keep = np.ones(n, dtype=bool)
    for row in bad:
        keep[row] = False
    order = list(columns)
    frame = pd.DataFrame({i: columns[c][keep] for i, c in enumerate(order)}, index=pd.RangeIndex(int(keep.sum())),
                         columns=range(len(order)), dtype=object)
    frame.columns = pd.Index(order, dtype=object)
    records = tuple(int(i) + 1 for i in np.flatnonzero(keep))
    unreadable = tuple((row + 1, reason) for row, reason in sorted(bad.items()))
    if not len(frame):
        if unreadable:
            raise ResultsFileError(f"no readable rows in the Parquet file (row {unreadable[0][0]} {unreadable[0][1]})")
        raise ResultsFileError("no rows: the Parquet file holds no records")
    return ResultsFile(frame=frame, records=records, format=FORMAT, unreadable=unreadable, columns=tuple(order))


def _cells(pa, array, name: str, bad: dict[int, str]) -> np.ndarray:
    """One Arrow array as an object array of ``str`` / ``None``."""
    t = array.type
    n = len(array)
    out = np.empty(n, dtype=object)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or _is(pa, "is_string_view", t):
        out[:] = array.to_pylist()
    elif pa.types.is_integer(t):
        out[:] = pa.compute.cast(array, pa.string()).to_pylist()  # decimal text, at C speed
    elif pa.types.is_boolean(t):
        out[:] = [None if v is None else ("true" if v else "false") for v in array.to_pylist()]
    elif pa.types.is_floating(t):
        out[:] = [None if v is None else _float_text(v, t, pa) for v in array.to_pylist()]
    elif pa.types.is_null(t):
        out[:] = [None] * n
    elif pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        values = array.to_pylist()
        for i, v in enumerate(values):
            if v is not None:
                try:
                    values[i] = v.decode("utf-8")
                except UnicodeDecodeError:
                    values[i] = None
                    bad.setdefault(i, f"has bytes in column {name!r} that are not UTF-8 text")
        out[:] = values
    elif pa.types.is_nested(t):
        out[:] = [None if v is None else _json(v, t, pa) for v in array.to_pylist()]
    else:  # decimals, dates, times, timestamps, durations
        out[:] = [None if v is None else _scalar(v) for v in array.to_pylist()]
    return out


def _is(pa, test: str, t) -> bool:
    """``pa.types.<test>(t)``, False where this pyarrow has no such type."""
    fn = getattr(pa.types, test, None)
    return bool(fn and fn(t))


def _float_text(value: float, t, pa) -> str:
    """A float as Python's ``repr`` writes one (positional for 1e-4 <= |x| < 1e16, else
    with an exponent), with the shortest digits that read back in the column's precision."""
    if pa.types.is_float64(t) or not math.isfinite(value):
        return float.__repr__(value)
    x = (np.float32 if pa.types.is_float32(t) else np.float16)(value)
    if value == 0 or 1e-4 <= abs(value) < 1e16:
        return np.format_float_positional(x, unique=True, trim="0")
    return np.format_float_scientific(x, unique=True, trim="-", exp_digits=2)


def _scalar(value: Any) -> str:
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return str(value)


def _json(value: Any, t, pa) -> str:
    """Compact JSON of a nested value from ``to_pylist`` (``t`` its Arrow type)."""
    if value is None:
        return "null"
    if pa.types.is_struct(t):
        return "{" + ",".join(_dumps_str(f.name) + ":" + _json(value.get(f.name), f.type, pa) for f in t) + "}"
    if pa.types.is_map(t):  # to_pylist gives [(key, value), ...]
        return "{" + ",".join(_dumps_str(str(k)) + ":" + _json(v, t.item_type, pa) for k, v in value) + "}"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t) \
            or _is(pa, "is_list_view", t) or _is(pa, "is_large_list_view", t):
        return "[" + ",".join(_json(v, t.value_type, pa) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float_text(value, t, pa) if math.isfinite(value) else ("NaN" if value != value else
                                                                        ("Infinity" if value > 0 else "-Infinity"))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _dumps_str(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    return _dumps_str(_scalar(value))
