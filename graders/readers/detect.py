"""Tell a harness file from its first bytes, before the generic CSV / JSON sniffing.

``detect(data, name)`` returns ``"parquet"``, ``"inspect-eval"``, ``"inspect-json"``,
``"promptfoo"``, ``"lm-eval"`` or ``None`` (not a harness file: leave it to the generic
reader). It reads the first 64 KB (for a zip also the last 64 KB; for a first JSON line longer than
64 KB, a byte search of up to 4 MB) and decodes at most one JSON line of up to 64 KB, so
it costs well under a millisecond whatever the file's size:

- ``parquet``: the file starts with ``PAR1``.
- ``inspect-eval``: a zip (``PK\\x03\\x04``) whose first member is Inspect's
  (``_journal/…``, ``header.json``, ``samples/…``, ``summaries.json``, ``reductions.json``),
  or whose directory names ``header.json`` or a ``samples/`` member, or a zip named ``*.eval``.
  A cut-off archive is still detected by its first member, so the reader can say what is
  missing.
- ``inspect-json``: a JSON object whose first keys are ``"version": <int>`` and
  ``"status"``, with an ``"eval"`` object holding ``"task"`` (``eval_id``/``run_id``
  beside it) in the first 64 KB, as Inspect writes its logs.
- ``promptfoo``: a JSON object whose first key is ``"evalId"`` followed by ``"results"``,
  or whose first key is ``"results"`` holding ``"version"`` and ``"timestamp"`` (the output
  of ``promptfoo eval -o results.json``); or an older bare summary, ``{"version": <int>,
  "timestamp": "…", "results": [{…`` with ``"provider"`` in the first 64 KB.
- ``lm-eval``: JSON lines whose first line is an object with ``doc_id`` and
  ``filtered_resps`` (lm-evaluation-harness ``--log_samples``). A first line longer than
  64 KB is not decoded: it must start ``{"doc_id":`` (lm-eval writes that key first) and
  hold ``"filtered_resps":`` within its first 4 MB (a byte search).

The name is only a hint for a zip (``.eval``); every other answer comes from the content.
"""

from __future__ import annotations

import json
import re
import struct

__all__ = ["HARNESS_FORMATS", "detect"]

HARNESS_FORMATS = ("promptfoo", "inspect-eval", "inspect-json", "lm-eval", "parquet")
_HEAD = 1 << 16
_INSPECT_MEMBERS = ("_journal/", "header.json", "samples/", "summaries.json", "reductions.json")
_WS = rb"[ \t\r\n]*"
_INSPECT_JSON = re.compile(_WS + rb"\{" + _WS + rb'"version"' + _WS + rb":" + _WS + rb"\d+" + _WS + rb","
                           + _WS + rb'"status"' + _WS + rb":")
_INSPECT_EVAL_KEY = re.compile(rb'"eval"' + _WS + rb":" + _WS + rb"\{")
_PROMPTFOO_EVALID = re.compile(_WS + rb"\{" + _WS + rb'"evalId"' + _WS + rb":" + _WS
                               + rb'(?:null|"(?:[^"\\]|\\.)*")' + _WS + rb"," + _WS + rb'"results"' + _WS + rb":")
_PROMPTFOO_RESULTS = re.compile(_WS + rb"\{" + _WS + rb'"results"' + _WS + rb":" + _WS + rb"\{" + _WS
                                + rb'"version"' + _WS + rb":" + _WS + rb"\d+" + _WS + rb"," + _WS + rb'"timestamp"')
_LM_EVAL_START = re.compile(_WS + rb'\{' + _WS + rb'"doc_id"' + _WS + rb":")
_LONG_LINE = 1 << 22
_PROMPTFOO_BARE = re.compile(_WS + rb"\{" + _WS + rb'"version"' + _WS + rb":" + _WS + rb"\d+" + _WS + rb"," + _WS
                             + rb'"timestamp"' + _WS + rb":" + _WS + rb'"[^"]*"' + _WS + rb"," + _WS + rb'"results"'
                             + _WS + rb":" + _WS + rb"\[" + _WS + rb"\{")
_BOM = b"\xef\xbb\xbf"


def detect(data: bytes, name: str | None = None) -> str | None:
    head = data[:_HEAD]
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "inspect-eval" if _inspect_zip(data, name) else None
    if head.startswith(_BOM):
        head = head[3:]
    start = len(head) - len(head.lstrip())
    if head[start:start + 1] != b"{":
        return None
    if _INSPECT_JSON.match(head):
        m = _INSPECT_EVAL_KEY.search(head)
        if m and b'"task"' in head[m.end():] and (b'"eval_id"' in head or b'"run_id"' in head):
            return "inspect-json"
        return None
    if _PROMPTFOO_EVALID.match(head) or _PROMPTFOO_RESULTS.match(head):
        return "promptfoo"
    if _PROMPTFOO_BARE.match(head) and b'"provider"' in head:
        return "promptfoo"
    if _lm_eval_line(head, data):
        return "lm-eval"
    return None


def _inspect_zip(data: bytes, name: str | None) -> bool:
    if name and name.lower().endswith(".eval"):
        return True
    if data.startswith(b"PK\x03\x04") and len(data) >= 30:
        n = struct.unpack("<H", data[26:28])[0]
        first = data[30:30 + n].decode("utf-8", "replace")
        if first.startswith(_INSPECT_MEMBERS):
            return True
    tail = data[-_HEAD:]  # the central directory, when the archive is whole
    return b"header.json" in tail and b"samples/" in tail


def _lm_eval_line(head: bytes, data: bytes) -> bool:
    end = head.find(b"\n")
    if end < 0 and len(data) > len(head):
        # A first line longer than what was read (a long document or few-shot prompt):
        # lm-eval writes doc_id first; filtered_resps is looked for in the rest of the line.
        if not _LM_EVAL_START.match(head):
            return False
        line_end = data.find(b"\n", 0, _LONG_LINE)
        return data.find(b'"filtered_resps":', 0, line_end if line_end >= 0 else _LONG_LINE) >= 0
    line = head[: end if end >= 0 else len(head)]
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return type(obj) is dict and "doc_id" in obj and "filtered_resps" in obj
