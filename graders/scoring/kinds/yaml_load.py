"""js-yaml 5.2's constructor with promptfoo's schema, and ``load``: the value of a span.

promptfoo finds JSON in an output by handing each brace-balanced span to
``yaml.loadAll(text, {schema: CORE + merge/binary/timestamp/omap/pairs/set, json: true})``,
so ``{a: 1}``, ``{'a': 'b'}`` or a span with a ``#`` comment count as JSON there. ``load``
runs ``yaml_parse.Parser`` and this port of ``constructFromEvents`` (the last duplicate key
winning, as ``json: true`` asks; merge keys; an object as a mapping key refused). Values: a
mapping is a dict (keys as JavaScript's ``String(key)``), a sequence a list, null ``None``,
booleans, numbers (ints exact, floats as doubles, ``.inf`` and ``.nan`` as float), a
timestamp a ``JsDate``, ``!!binary`` bytes.
"""

from __future__ import annotations

import base64
import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any

from graders.scoring.kinds.js import js_string
from graders.scoring.kinds.yaml_parse import Parser
from graders.scoring.kinds.yaml_scan import (  # noqa: F401  (YamlError, to_units, from_units, MAX_DEPTH: offered here)
    _ALIAS,
    _DOC,
    _MAP,
    _NO,
    _SCALAR,
    _SEQ,
    _SIMPLE,
    MAX_DEPTH,
    YamlError,
    from_units,
    to_units,
)


class JsDate:
    """A YAML timestamp (a JavaScript Date): an object, never a JSON value or a mapping key."""

    __slots__ = ("when",)

    def __init__(self, when: datetime) -> None:
        self.when = when


class _Merge:
    pass


_MERGE = _Merge()
_INT_IMPLICIT = re.compile(r"^(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?[0-9]+)\Z")
_INT_EXPLICIT = re.compile(r"^(?:[-+]?0b[0-1]+|[-+]?0o[0-7]+|[-+]?0x[0-9a-fA-F]+|[-+]?[0-9]+)\Z")
_FLOAT = re.compile(r"^(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?"
                    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")
_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_TIMESTAMP = re.compile(r"^([0-9]{4})-([0-9][0-9]?)-([0-9][0-9]?)(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9]{2}):([0-9]{2})"
                        r"(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9]{2}))?))?\Z")
_NO_VALUE = object()
_CORE = "tag:yaml.org,2002:"


def _int(source: str, explicit: bool) -> Any:
    if not (_INT_EXPLICIT if explicit else _INT_IMPLICIT).match(source):
        return _NO_VALUE
    sign, v = 1, source
    if v[0] in "+-":
        sign, v = (-1 if v[0] == "-" else 1), v[1:]
    base = {"0b": 2, "0o": 8, "0x": 16}.get(v[:2], 10)
    value = sign * int(v[2:] if base != 10 else v, base)
    try:
        float(value)
    except OverflowError:  # parseInt gives Infinity: not an int
        return _NO_VALUE
    return value


def _float(source: str) -> Any:
    if not _FLOAT.match(source):
        return _NO_VALUE
    v = source.lower()
    sign = -1.0 if v[0] == "-" else 1.0
    if v[0] in "+-":
        v = v[1:]
    if v == ".inf":
        return sign * math.inf
    if v == ".nan":
        return math.nan
    try:
        result = sign * float(v)
    except OverflowError:  # pragma: no cover - float() returns inf, it does not raise
        return _NO_VALUE
    return result if math.isfinite(result) else _NO_VALUE


def _timestamp(source: str) -> Any:
    m = _DATE.match(source) or _TIMESTAMP.match(source)
    if m is None:
        return _NO_VALUE
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if year < 100:  # Date.UTC reads years 0 to 99 as 1900 to 1999: js-yaml's check refuses them
        return _NO_VALUE
    try:
        if m.re is _DATE or not m.group(4):
            return JsDate(datetime(year, month, day, tzinfo=timezone.utc))
        hour, minute, second = int(m.group(4)), int(m.group(5)), int(m.group(6))
        if hour > 23 or minute > 59 or second > 59:
            return _NO_VALUE
        ms = int((m.group(7) or "")[:3].ljust(3, "0")) if m.group(7) else 0
        when = datetime(year, month, day, hour, minute, second, ms * 1000, tzinfo=timezone.utc)
    except ValueError:
        return _NO_VALUE
    if m.group(9):
        oh, om = int(m.group(10)), int(m.group(11) or 0)
        if oh > 23 or om > 59:
            return _NO_VALUE
        offset = timedelta(hours=oh, minutes=om)
        when = when - offset if m.group(9) == "+" else when + offset
    return JsDate(when)


def _binary(source: str) -> Any:
    text = re.sub(r"\s", "", source)
    if len(text) % 4 or not re.match(r"^[A-Za-z0-9+/]*={0,2}\Z", text):
        return _NO_VALUE
    return base64.b64decode(text)


def _implicit(source: str) -> Any:
    """The core schema's implicit resolution of a plain scalar (promptfoo's schema adds
    merge and timestamp)."""
    first = source[:1]
    if first in ("", "~", "n", "N") and source in ("", "~", "null", "Null", "NULL"):
        return None
    if first in "tTfF" and first:
        if source in ("true", "True", "TRUE"):
            return True
        if source in ("false", "False", "FALSE"):
            return False
    if first and first in "-+0123456789":
        v = _int(source, False)
        if v is not _NO_VALUE:
            return v
    if first and first in "-+.0123456789":
        v = _float(source)
        if v is not _NO_VALUE:
            return v
    if first == "<" and source == "<<":
        return _MERGE
    if first and first in "0123456789":
        v = _timestamp(source)
        if v is not _NO_VALUE:
            return v
    return source


def _scalar_value(text: str, ev: tuple) -> str:
    _, start, end, _, _, style, chomping, indent, fast = ev
    if start == _NO:
        return ""
    if fast:
        return text[start:end]
    if style == 2:
        return _quoted(text, start, end, single=True)
    if style == 3:
        return _quoted(text, start, end, single=False)
    if style in (4, 5):
        return _block_value(text, start, end, indent, chomping, style == 5)
    return _quoted(text, start, end, single=None)


def _fold(text: str, p: int, end: int) -> tuple[int, int]:
    breaks = 0
    while p < end:
        ch = text[p]
        if ch == "\n":
            breaks += 1
            p += 1
        elif ch == "\r":
            breaks += 1
            p += 1
            if p < len(text) and text[p] == "\n":
                p += 1
        elif ch in " \t":
            p += 1
        else:
            break
    return p, breaks


def _quoted(text: str, start: int, end: int, single: bool | None) -> str:
    """getPlainValue (single None), getSingleQuotedValue, getDoubleQuotedValue."""
    out = []
    p = cap_start = cap_end = start
    while p < end:
        ch = text[p]
        if single and ch == "'":
            out.append(text[cap_start:p] + "'")
            p += 2
            cap_start = cap_end = p
        elif single is False and ch == "\\":
            out.append(text[cap_start:p])
            p += 1
            esc = ord(text[p]) if p < len(text) else -1
            if esc in (10, 13):
                p = _fold(text, p, end)[0]
            elif esc in _SIMPLE:
                out.append(_SIMPLE[esc])
                p += 1
            else:
                n = {120: 2, 117: 4}.get(esc, 8)
                code = 0
                for _ in range(n):
                    p += 1
                    c = ord(text[p])
                    code = (code << 4) + (c - 48 if 48 <= c <= 57 else (c | 32) - 87)
                code &= 0xFFFFFFFF
                if code >= 0x80000000:  # JavaScript's << is 32-bit signed
                    code -= 0x100000000
                if code <= 0xFFFF:
                    out.append(chr(code & 0xFFFF))
                else:
                    out.append(chr(((code - 0x10000) >> 10) + 0xD800 & 0xFFFF) + chr(((code - 0x10000) & 1023) + 0xDC00))
                p += 1
            cap_start = cap_end = p
        elif ch in "\n\r":
            out.append(text[cap_start:cap_end])
            p, breaks = _fold(text, p, end)
            out.append(" " if breaks == 1 else "\n" * (breaks - 1))
            cap_start = cap_end = p
        else:
            p += 1
            if ch not in " \t":
                cap_end = p
    out.append(text[cap_start:cap_end if single is None else end])
    return "".join(out)


def _block_value(text: str, start: int, end: int, indent: int, chomping: int, folded: bool) -> str:
    text_indent = max(indent, 0)
    region = re.sub(r"\r\n?", "\n", text[start:end])
    lines = [] if region == "" else (region[:-1] if region.endswith("\n") else region).split("\n")
    out, read, empty, more = "", False, 0, False
    for line in lines:
        column = 0
        while column < text_indent and column < len(line) and line[column] == " ":
            column += 1
        if indent < 0 or column >= len(line):
            empty += 1
            continue
        content = line[text_indent:]
        first = content[:1]
        if folded:
            if first in (" ", "\t"):
                more = True
                out += "\n" * (1 + empty if read else empty)
            elif more:
                more = False
                out += "\n" * (empty + 1)
            elif empty == 0:
                if read:
                    out += " "
            else:
                out += "\n" * empty
        else:
            out += "\n" * (1 + empty if read else empty)
        out += content
        read, empty = True, 0
    if chomping == 3:
        out += "\n" * (1 + empty if read else empty)
    elif chomping != 2 and read:
        out += "\n"
    return out


def _tag_name(raw: str, handlers: dict[str, str]) -> str:
    from urllib.parse import unquote

    if raw.startswith("!<") and raw.endswith(">"):
        return unquote(raw[2:-1])
    end = raw.find("!", 1)
    handle = "!" if end == -1 else raw[:end + 1]
    prefix = handlers.get(handle, {"!": "!", "!!": _CORE}.get(handle, handle))
    return unquote(prefix) + unquote(raw[len(handle):])


def _explicit_scalar(tag: str, source: str) -> Any:
    short = tag[len(_CORE):] if tag.startswith(_CORE) else None
    resolvers = {
        "str": lambda s: s,
        "null": lambda s: None if s in ("", "~", "null", "Null", "NULL") else _NO_VALUE,
        "bool": lambda s: True if s in ("true", "True", "TRUE") else False if s in ("false", "False", "FALSE") else _NO_VALUE,
        "int": lambda s: _int(s, True),
        "float": _float,
        "merge": lambda s: _MERGE if s in ("<<", "") else _NO_VALUE,
        "binary": _binary,
        "timestamp": _timestamp,
    }
    if short in resolvers:
        v = resolvers[short](source)
        if v is _NO_VALUE:
            raise YamlError(f"cannot resolve a node with !<{tag}> explicit tag")
        return v
    if short in ("seq", "map", "omap", "pairs", "set"):
        if source != "":
            raise YamlError(f"cannot resolve a node with !<{tag}> explicit tag")
        return [] if short in ("seq", "omap", "pairs") else {}
    raise YamlError(f"unknown scalar tag !<{tag}>")


class _Frame:
    __slots__ = ("kind", "value", "tag", "anchor", "key", "has_key", "merge")

    def __init__(self, kind: str, value: Any, tag: str = "", anchor: list | None = None) -> None:
        self.kind, self.value, self.tag, self.anchor = kind, value, tag, anchor
        self.key, self.has_key, self.merge = None, False, False


def _add_pair(frame: _Frame, key: Any, value: Any) -> None:
    """The mapping tag's ``addPair``: promptfoo's map refuses object keys; its ``!!set``
    (legacy) takes null values under keys as ``String`` (arrays joined) reads them."""
    if frame.tag == "set":
        if value is not None:
            raise YamlError("cannot resolve a set item")
        k = _legacy_key(key)
        if k is None:
            raise YamlError("nested arrays are not supported inside keys")
    else:
        if isinstance(key, (dict, list, JsDate, bytes)):
            raise YamlError("object-based map does not support complex keys")
        k = js_string(key)
    frame.value[k] = value


def _legacy_key(key: Any) -> str | None:
    if isinstance(key, list):
        parts = []
        for item in key:
            if isinstance(item, list):
                return None
            parts.append("[object Object]" if isinstance(item, dict) else "" if item is None else js_string(item))
        return ",".join(parts)
    if isinstance(key, dict):
        return "[object Object]"
    return js_string(key)


def _merge(frame: _Frame, source: Any, counter: list[int]) -> None:
    """A merge key (``<<``): the keys of a mapping, or of each mapping of a sequence, that
    the frame lacks."""
    if isinstance(source, dict):
        sources = [source]
    elif isinstance(source, list):
        sources = source
    else:
        raise YamlError("cannot merge mappings; the provided source object is unacceptable")
    for src in sources:
        if not isinstance(src, dict):
            raise YamlError("cannot merge mappings; the provided source object is unacceptable")
        for k, v in src.items():
            counter[0] += 1
            if counter[0] > 10_000:
                raise YamlError("merge keys exceeded maxTotalMergeKeys (10000)")
            if k not in frame.value:
                _add_pair(frame, k, v)


def construct(text: str, events: list[tuple]) -> list[Any]:
    """js-yaml's ``constructFromEvents`` with promptfoo's schema and ``json: true``."""
    docs: list[Any] = []
    frames: list[_Frame] = []
    anchors: dict[str, list] = {}
    handlers: dict[str, str] = {}
    merges = [0]

    def add(value: Any, is_mapping: bool = False) -> None:
        frame = frames[-1]
        if frame.kind == "document":
            frame.value = value
        elif frame.kind == "sequence":
            if frame.merge and not is_mapping:
                raise YamlError("cannot merge mappings; the provided source object is unacceptable")
            if frame.tag in ("omap", "pairs"):
                if not (isinstance(value, dict) and len(value) == 1):
                    raise YamlError(f"cannot resolve {'an ordered map' if frame.tag == 'omap' else 'a pairs'} item")
            frame.value.append(value)
        elif frame.has_key:
            key, frame.key, frame.has_key = frame.key, None, False
            if key is _MERGE:
                _merge(frame, value, merges)
                return
            _add_pair(frame, key, value)
        else:
            frame.key, frame.has_key = value, True

    for ev in events:
        kind = ev[0]
        if kind == _DOC:
            anchors, handlers = {}, ev[1]
            frames.append(_Frame("document", None))
        elif kind == _SCALAR:
            source = _scalar_value(text, ev)
            anchor, tag = ev[3], ev[4]
            raw = "" if tag[0] == _NO else text[tag[0]:tag[1]]
            if raw == "!":
                value = source
            elif raw:
                value = _explicit_scalar(_tag_name(raw, handlers), source)
            elif ev[5] == 1:
                value = _implicit(source)
            else:
                value = source
            if isinstance(value, str):
                value = from_units(value)
            if anchor[0] != _NO:
                anchors[text[anchor[0]:anchor[1]]] = [value, True]
            add(value, False)
        elif kind in (_SEQ, _MAP):
            _, _, anchor, tag = ev
            raw = "" if tag[0] == _NO else text[tag[0]:tag[1]]
            name = (_CORE + ("seq" if kind == _SEQ else "map")) if raw in ("", "!") else _tag_name(raw, handlers)
            short = name[len(_CORE):] if name.startswith(_CORE) else None
            allowed = ("seq", "omap", "pairs") if kind == _SEQ else ("map", "set")
            if short not in allowed:
                raise YamlError(f"unknown {'sequence' if kind == _SEQ else 'mapping'} tag !<{name}>")
            value: Any = [] if kind == _SEQ else {}
            cell = None
            if anchor[0] != _NO:
                cell = anchors[text[anchor[0]:anchor[1]]] = [value, short not in ("omap", "pairs")]
            frame = _Frame("sequence" if kind == _SEQ else "mapping", value, short, cell)
            if kind == _SEQ and frames and frames[-1].kind == "mapping" and frames[-1].has_key and frames[-1].key is _MERGE:
                frame.merge = True
            frames.append(frame)
        elif kind == _ALIAS:
            name = text[ev[1]:ev[2]]
            cell = anchors.get(name)
            if cell is None:
                raise YamlError(f'unidentified alias "{name}"')
            if not cell[1]:
                raise YamlError(f'recursive alias "{name}" is not supported')
            add(cell[0], isinstance(cell[0], dict))
        else:  # pop
            frame = frames.pop()
            if frame.kind == "document":
                docs.append(frame.value)
                continue
            value = frame.value
            if frame.tag == "pairs":
                value = [list(next(iter(item.items()))) for item in value]
            if frame.anchor is not None:
                frame.anchor[0], frame.anchor[1] = value, True
            add(value, frame.kind == "mapping")
    return docs


def load(text: str) -> Any:
    """promptfoo's ``loadYaml(text, {json: true})``: the one document's value (None for none);
    ``YamlError`` where js-yaml throws. ``text`` is in UTF-16 units (``to_units``)."""
    docs = construct(text, Parser(text).parse())
    if len(docs) > 1:
        raise YamlError("expected a single document in the stream, but found more")
    return docs[0] if docs else None
