"""Read lm-evaluation-harness ``samples_<task>_<date>.jsonl`` files (``--log_samples``).

One JSON object a line, as ``EvaluationTracker.save_results_samples`` writes them
(lm-eval 0.4): ``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``,
``filtered_resps``, ``filter``, ``metrics`` (the metric names), the three hashes, and one
field per metric. A task with several filters (gsm8k: ``strict-match`` and
``flexible-extract``) has one line per document and filter.

One row per line; the record number is the line number (blank lines skipped, not
unreadable). Columns (cells by ``_common.text``; absent = ``None``):

- ``id``: ``doc_id``; ``expected``: ``target``; ``input``: the first request's first
  argument (the prompt), when it is text.
- ``output``: the filtered response. ``filtered_resps`` holds one entry per request; when
  its entries are strings (``generate_until``), ``output`` is ``filtered_resps[0]``, the
  JSON list unwrapped. When they are not (``loglikelihood`` pairs such as
  ``[["-1.2","False"], ...]``, one per answer choice), ``output`` is the whole list as
  compact JSON: its first entry alone would be the first choice's score, not an answer.
- ``resps``: the raw responses, compact JSON.
- ``filter``: the filter's name. When the file holds more than one filter, ``version`` is
  the filter name too, so each (document, filter) row has its own key and the filters can
  be compared as A and B; with one filter there is no ``version`` column.
- ``harness.<metric>``: each metric the line names in ``metrics`` (older files without
  that list: every field that is not one of lm-eval's own), e.g. ``harness.exact_match``.
- ``doc.KEY``: the document's fields one level deep (deeper values compact JSON);
  ``doc_hash``, ``prompt_hash``, ``target_hash`` as they are.

Detected (``looks_like_line``) by a first object with ``doc_id`` and ``filtered_resps``.
A line that is not JSON, or not an object, is unreadable with its reason.
"""

from __future__ import annotations

import json
from typing import Any

from graders.readers._common import (
    ResultsFile,
    ResultsFileError,
    build,
    decode_utf8,
    no_gc,
    scalar_or_none,
    scan,
    text,
)

__all__ = ["FORMAT", "looks_like_line", "read"]

FORMAT = "lm-eval"
_OWN = frozenset(("doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                  "doc_hash", "prompt_hash", "target_hash"))
_FIRST = ("id", "version", "input", "expected", "output", "filter")


def looks_like_line(obj: Any) -> bool:
    """Whether a decoded JSON line is an lm-eval sample: an object with ``doc_id`` and
    ``filtered_resps``."""
    if type(obj) is tuple:  # pairs, as the generic reader decodes objects
        try:
            obj = dict(obj)
        except (TypeError, ValueError):
            return False
    return type(obj) is dict and "doc_id" in obj and "filtered_resps" in obj


def read(data: bytes | str) -> ResultsFile:
    with no_gc():
        return _read(data)


def _read(data: bytes | str) -> ResultsFile:
    text_ = decode_utf8(bytes(data), "the lm-eval samples file") if not isinstance(data, str) else data
    rows: list[dict[str, str | None]] = []
    records: list[int] = []
    unreadable: list[tuple[int, str]] = []
    for number, line in enumerate(text_.split("\n"), 1):
        try:
            obj, end = scan(line, 0)
            if end != len(line) and line[end:].strip():
                raise ValueError("text after the JSON value")
        except StopIteration:
            if line.strip():
                unreadable.append((number, "is not JSON"))
            continue
        except (json.JSONDecodeError, ValueError) as exc:
            if not line.strip():
                continue
            detail = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            try:  # leading spaces: the C scanner starts at a value, so try once more from it
                obj, end = scan(line, len(line) - len(line.lstrip()))
                if line[end:].strip():
                    raise ValueError
            except (StopIteration, json.JSONDecodeError, ValueError):
                unreadable.append((number, f"is not JSON ({detail})"))
                continue
        except RecursionError:
            unreadable.append((number, "is nested too deeply to read"))
            continue
        if type(obj) is not dict:
            unreadable.append((number, "is not a JSON object"))
            continue
        rows.append(_row(obj))
        records.append(number)
    if not rows:
        if unreadable:
            number, reason = unreadable[0]
            raise ResultsFileError(f"no readable samples in the lm-eval file (line {number} {reason})")
        raise ResultsFileError("the lm-eval samples file holds no samples")
    filters = {row.get("filter") for row in rows}
    if len(filters) > 1:
        for row in rows:
            row["version"] = row.get("filter")
    return build(rows, records, FORMAT, unreadable, _FIRST)


def _row(obj: dict) -> dict[str, str | None]:
    filtered = obj.get("filtered_resps")
    if type(filtered) is list and filtered and all(type(v) is str for v in filtered):
        output = filtered[0]
    else:
        output = scalar_or_none(filtered)
    row: dict[str, str | None] = {
        "id": scalar_or_none(obj.get("doc_id")),
        "input": _prompt(obj.get("arguments")),
        "expected": scalar_or_none(obj.get("target")),
        "output": output,
        "filter": scalar_or_none(obj.get("filter")),
        "resps": scalar_or_none(obj.get("resps")),
    }
    names = obj.get("metrics")
    if type(names) is list:
        metrics = [m for m in names if type(m) is str and m in obj]
    else:
        metrics = [k for k in obj if k not in _OWN]
    for name in metrics:
        row["harness." + name] = text(obj[name])
    doc = obj.get("doc")
    if type(doc) is dict:
        for key, value in doc.items():
            row["doc." + key] = text(value)
    elif doc is not None:
        row["doc"] = text(doc)
    for key in ("doc_hash", "prompt_hash", "target_hash"):
        if key in obj:
            row[key] = scalar_or_none(obj[key])
    return row


def _prompt(arguments: Any) -> str | None:
    """The first request's first argument: ``{"gen_args_0": {"arg_0": ...}}`` as lm-eval 0.4
    writes it, or ``[[context, ...], ...]`` as older versions did."""
    first: Any = None
    if type(arguments) is dict and arguments:
        first = next(iter(arguments.values()))
        first = next(iter(first.values()), None) if type(first) is dict else None
    elif type(arguments) is list and arguments and type(arguments[0]) is list and arguments[0]:
        first = arguments[0][0]
    return first if type(first) is str else None
