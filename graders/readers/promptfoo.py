"""Read promptfoo's ``promptfoo eval -o results.json`` output (SPEC §10).

One row per entry of ``results.results`` (``{"evalId", "results": {"version": 2 or 3, ...,
"results": [...]}, "config", ...}`` as promptfoo 0.2x to 0.121 write it; also an older bare
summary whose own ``results`` is the list), in file order; the record number is the entry's
1-based position there. The entries are decoded one at a time as the file is read, a
chunk of it at a time (``_common.decode_streaming_utf8``), and the cells that the rows of
one test case share are made once for them (``_Rows``), so a large file costs little more
than its JSON parsing (``bench/harness_readers_speed.py``).

Columns (every cell text, absent = ``None``; ``text`` rules in ``_common``):

- ``id``: the test's description; without one, promptfoo's test index (``testIdx``, 0-based).
  Two different test cases with the same description are told apart as ``<description>
  (test <testIdx>)``, the index of the case's first row. When the file runs more than one
  prompt, `` (prompt <n>)`` follows, n the prompt's 1-based place among the file's distinct
  prompts (by label, in ``results.prompts`` order), so the same test and prompt has the same
  id under every provider.
- ``repeat``: 0-based. promptfoo gives each repeat (``--repeat``) its own test index and
  records no repeat number, so rows of one provider with the same prompt and the same test
  case (description, vars, assertions) are repeats, numbered in test-index order.
- ``version``: the provider's label, else its id.
- ``input``: the rendered prompt (``prompt.raw``); without one, the vars as compact JSON.
  ``prompt.label``: the prompt's label (its template).
- ``expected``: the test's ``vars.expected`` when it has one; else the value of its
  assertion of type ``equals`` when it has exactly one (and no ``vars.expected``); else
  absent. Nothing else (contains, similar, llm-rubric, ...) is taken as an expected answer.
- ``output``: ``response.output``, a string as it is, any other value as compact JSON (as
  promptfoo's own string assertions see it); absent when the provider gave none.
- ``assert``: the test case's assertions, compact JSON, as promptfoo has them (``defaultTest``
  assertions already merged in by promptfoo).
- ``harness.pass`` (``success``: ``true``/``false``), ``harness.score`` (``score``),
  ``harness.reason`` (``gradingResult.reason``, else ``error``), ``harness.error`` (the
  provider's ``response.error``, when there is one), ``latency_ms`` (``latencyMs``),
  ``cost`` (``cost``, else ``response.cost``).
- ``vars.NAME``: each test variable; ``metadata.KEY``: each metadata field, except
  promptfoo's internal ``_promptfoo…`` keys. Values by ``text`` (``null`` stays ``"null"``).

A JSON ``null`` in a mapped field (output, expected, cost, ...) is absent. An entry that is
not an object, or has no provider, is unreadable and listed with its reason.
"""

from __future__ import annotations

import json
import marshal
from typing import Any

import numpy as np

from graders.readers._common import (
    STREAMED,
    Number,
    ResultsFile,
    ResultsFileError,
    build,
    compact,
    decode_streaming,
    decode_streaming_utf8,
    no_gc,
    scalar_or_none,
    text,
)
from graders.text.show import quoted_name

__all__ = ["FORMAT", "looks_like", "read"]

FORMAT = "promptfoo"
_FIRST = ("id", "version", "repeat", "input", "expected", "output", "assert",
          "harness.pass", "harness.score", "harness.reason", "harness.error", "latency_ms", "cost", "prompt.label")
# What ``_Rows.add`` reads from a result, and the default of each when it is absent
# (``_ABSENT`` where absent and null differ).
_ABSENT = object()
_EMPTY: dict = {}  # in place of a field that is not an object (read only)
_FIELDS = ("provider", "testCase", "vars", "metadata", "description", "testIdx", "prompt", "response",
           "gradingResult", "success", "score", "latencyMs", "cost", "error")
_DEFAULTS = tuple(_ABSENT if name in ("metadata", "cost") else None for name in _FIELDS)
# What ``_Rows.add`` keeps of a row, in this order: its own cells, the number of the cells it shares with its test case's other rows, its
# test index (-1: none), prompt number and version number.
_ROW = ("version", "input", "prompt.label", "output", "harness.pass", "harness.score", "harness.reason", "latency_ms",
        "cost", "harness.error", "shared", "test_idx", "prompt", "version_no")
_SCALAR = {str: str.__str__, Number: str.__str__, int: int.__repr__}  # scalar_or_none of these types
_STR = frozenset((str,))


def _obj(value: Any) -> dict | None:
    """A decoded JSON object as a dict (also from pairs, as the generic reader decodes)."""
    if type(value) is dict:
        return value
    if type(value) is tuple and all(type(p) is tuple and len(p) == 2 for p in value):
        return dict(value)
    return None


def _results_list(doc: Any) -> list | None:
    """The list of results of a promptfoo output document, or None."""
    top = _obj(doc)
    if top is None:
        return None
    inner = top.get("results")
    summary = _obj(inner)
    if summary is not None and type(summary.get("results")) is list:
        return summary["results"]  # {"evalId", "results": {"version", "results": [...]}, ...}
    if type(inner) is list and "version" in top and ("stats" in top or "table" in top):
        return inner  # an older bare summary: {"version", "results": [...], "table"/"stats"}
    return None


def looks_like(doc: Any) -> bool:
    """Whether a decoded JSON document is promptfoo's output file: its ``results`` holds a
    ``results`` list (with ``version``/``timestamp`` beside it, or ``evalId`` on top), or
    it is an older bare summary; and its first result has ``provider`` and
    ``response``/``vars``/``testCase``."""
    results = _results_list(doc)
    if results is None:
        return False
    top = _obj(doc)
    summary = _obj(top.get("results"))
    if not ("evalId" in top or (summary is not None and ("version" in summary or "timestamp" in summary))
            or type(top.get("results")) is list):
        return False
    first = _obj(results[0]) if results else None
    return first is None or ("provider" in first and any(k in first for k in ("response", "vars", "testCase")))


def _missing_message(doc: Any) -> str:
    top = _obj(doc)
    if top is None:
        return "not a promptfoo results file: the document is not a JSON object"
    keys = ", ".join(map(quoted_name, list(top)[:8])) or "none"
    if "results" not in top:
        return f'not a promptfoo results file: it has no "results" key (its keys: {keys})'
    summary = _obj(top["results"])
    if summary is None:
        return 'not a promptfoo results file: "results" is not an object holding a "results" list'
    inner = ", ".join(map(quoted_name, list(summary)[:8])) or "none"
    return f'not a promptfoo results file: "results" has no "results" list (its keys: {inner})'


def read(source: Any) -> ResultsFile:
    """Read a promptfoo results file: its bytes or text, or the document decoded by
    ``_common.decode`` (or ``json.loads``: floats then keep Python's spelling)."""
    rows = _Rows()
    with no_gc():
        if isinstance(source, (bytes, bytearray, memoryview, str)):
            # The results array is handled entry by entry as it is decoded (_common).
            try:
                if isinstance(source, str):
                    doc = decode_streaming(source, ("results", "results"), rows.add)
                else:
                    doc = decode_streaming_utf8(bytes(source), "the promptfoo results file", ("results", "results"),
                                                rows.add)
            except json.JSONDecodeError as exc:
                raise ResultsFileError(
                    f"the promptfoo results file is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
                ) from None
            except RecursionError:
                raise ResultsFileError("the promptfoo results file is nested too deeply to read") from None
        else:
            doc = source
        summary = _obj(_obj(doc).get("results")) if _obj(doc) is not None else None
        if summary is None or summary.get("results") is not STREAMED:
            results = _results_list(doc)
            if results is None:
                raise ResultsFileError(_missing_message(doc))
            for entry in results:
                rows.add(entry)
        prompts = summary.get("prompts") if summary is not None else None
        del doc, summary  # freed here, with the collector still off
        return rows.finish(prompts)


class _Rows:
    """The rows of the results, one ``add`` per entry of ``results.results``.

    Rows of one test case (under each provider, prompt and repeat) share their expected
    answer, assertions, vars and metadata cells: those are made once (``_shared``), for
    the case's decoded values keyed in ``marshal``'s format. Version 2 writes no
    references, so equal values write equal bytes; marshal writes exact types only, so
    ``true`` is not ``1``, and key order counts; values it refuses (a float's ``Number``,
    nesting past its depth) are worked out for their row alone. A row's own values go
    into one flat list, ``len(_ROW)`` a row, and cells that repeat from row to row (the
    version, a score, a reason) are kept once: fewer objects, and each entry's memory is
    free for the next one as it is decoded."""

    def __init__(self) -> None:
        self.values: list = []  # per row, its ``_ROW`` values, one row after another
        self.unreadable: list[tuple[int, str]] = []
        self.known: dict[bytes, int] = {}  # marshalled case values -> the number of their shared cells
        # Per number: (case number, assert cell, expected cell, the vars./metadata. cells).
        self.shared: list[tuple[int, str | None, str | None, dict[str, str]]] = []
        self.cases: dict[tuple, int] = {}  # (description, vars, assertions) -> case number
        self.case_index: list[int] = []  # per case: its first row's test index (or its number)
        self.made: dict[bytes, tuple] = {}  # marshalled (assertions, metadata) -> their cells
        self.prompts: dict[str, int] = {}  # prompt label (or text) -> prompt number, in order of first use
        self.versions: dict[str, int] = {}  # version -> its number
        self.same: dict[str | None, str | None] = {}  # each repeating cell, once
        self.number = 0

    def add(self, r: Any, _fields=_FIELDS, _defaults=_DEFAULTS, _dumps=marshal.dumps, _scalar=_SCALAR.get) -> None:
        self.number += 1
        if type(r) is not dict:
            self.unreadable.append((self.number, f"is {_kind(r)}, not an object"))
            return
        (provider, test, vars_, metadata, description, test_idx, prompt, response, grading, success, score,
         latency, cost, error) = map(r.get, _fields, _defaults)
        version = provider.get("label") if type(provider) is dict else None
        if type(version) is not str or not version:
            version = _version(provider)
            if version is None:
                self.unreadable.append((self.number, "has no provider"))
                return
        if type(test) is not dict:
            test = _EMPTY
        if type(vars_) is not dict:
            vars_ = test.get("vars")
            if type(vars_) is not dict:
                vars_ = _EMPTY
        if metadata is _ABSENT:
            metadata = test.get("metadata")
        case = (test.get("description", description), vars_, test.get("assert"), metadata)
        try:
            key: bytes | None = _dumps(case, 2)
        except (ValueError, RecursionError):
            key = None
        shared = self.known.get(key)
        if shared is None:
            shared = self._shared(*case, test_idx)
            if key is not None:
                self.known[key] = shared
        if type(prompt) is not dict:
            prompt = _EMPTY
        if type(response) is not dict:
            response = _EMPTY
        if type(grading) is not dict:
            grading = _EMPTY
        raw = prompt.get("raw")
        label = prompt.get("label")
        output = response.get("output")
        reason = grading.get("reason", error)
        if cost is _ABSENT:
            cost = response.get("cost")
        error = response.get("error")
        prompt_key = label if type(label) is str and label else raw if type(raw) is str else ""
        same = self.same.setdefault
        version = same(version, version)
        label = label if type(label) is str else scalar_or_none(label)
        score = _scalar(type(score), scalar_or_none)(score)
        reason = reason if type(reason) is str else scalar_or_none(reason)
        latency = _scalar(type(latency), scalar_or_none)(latency)
        cost = _scalar(type(cost), scalar_or_none)(cost)
        self.values.extend((
            version,
            raw if type(raw) is str else compact(vars_),  # the input
            same(label, label),
            output if type(output) is str else scalar_or_none(output),
            "true" if success is True else "false" if success is False else scalar_or_none(success),
            same(score, score),
            same(reason, reason),
            same(latency, latency),
            same(cost, cost),
            None if error is None else text(error),
            shared,
            test_idx if type(test_idx) is int else -1,
            self.prompts.setdefault(prompt_key, len(self.prompts)),
            self.versions.setdefault(version, len(self.versions)),
        ))

    def _shared(self, description: Any, vars_: dict, asserts: Any, metadata: Any, test_idx: Any) -> int:
        """Make the cells the rows of one test case share (``self.shared``); their number."""
        # The assertions and metadata of many tests are the same: their cells are made once.
        try:
            key: bytes | None = marshal.dumps((asserts, metadata), 2)
        except (ValueError, RecursionError):
            key = None
        made = self.made.get(key)
        if made is None:
            made = _assertions_and_metadata(asserts, metadata)
            if key is not None:
                self.made[key] = made
        assert_text, equals, cells = made
        expected = scalar_or_none(vars_["expected"]) if "expected" in vars_ else equals
        if type(description) is not str or not description:
            description = None
        # The vars as part of the case key: their items when all are strings (most tests),
        # else their JSON text.
        if _STR.issuperset(map(type, vars_.values())):
            vars_key: Any = tuple(vars_.items())
            cells = {**dict(zip(map("vars.".__add__, vars_), vars_.values())), **cells}
        else:
            vars_key = compact(vars_)
            cells = {**{"vars." + key: text(value) for key, value in vars_.items()}, **cells}
        number = self.cases.setdefault((description, vars_key, assert_text), len(self.cases))
        if number == len(self.case_index):  # a new case: this is its first row
            self.case_index.append(test_idx if type(test_idx) is int and test_idx >= 0 else number)
        self.shared.append((number, assert_text, expected, cells))
        return len(self.shared) - 1

    def finish(self, prompts: Any) -> ResultsFile:
        if not self.values:
            if self.unreadable:
                number, reason = self.unreadable[0]
                raise ResultsFileError(f"no readable results in the promptfoo file (result {number} {reason})")
            raise ResultsFileError("the promptfoo results file holds no results")
        k = len(_ROW)
        values = {name: self.values[i::k] for i, name in enumerate(_ROW)}
        del self.values
        n = len(values["version"])
        unreadable = {number for number, _ in self.unreadable}
        records = [i for i in range(1, self.number + 1) if i not in unreadable] if unreadable else range(1, n + 1)
        shared = np.fromiter(values["shared"], dtype=np.intp, count=n)

        def by_row(cells: list, dtype: Any = object) -> np.ndarray:  # one per shared number -> one per row
            return np.array(cells, dtype=dtype)[shared]

        columns: dict[str, Any] = {
            "version": values["version"], "input": values["input"], "expected": by_row([s[2] for s in self.shared]),
            "output": values["output"], "assert": by_row([s[1] for s in self.shared]),
        }
        for name in ("harness.pass", "harness.score", "harness.reason", "latency_ms", "cost", "prompt.label"):
            columns[name] = values[name]
        if values["harness.error"].count(None) < n:
            columns["harness.error"] = values["harness.error"]
        numbers = _prompt_numbers(prompts, list(self.prompts))
        columns["id"], columns["repeat"] = _name_rows(
            by_row([s[0] for s in self.shared], np.intp), np.fromiter(values["prompt"], dtype=np.intp, count=n),
            values["test_idx"], np.fromiter(values["version_no"], dtype=np.intp, count=n), len(self.versions),
            self.case_index, self.cases, [numbers[key] for key in self.prompts] if len(numbers) > 1 else None)
        # The vars. and metadata. columns, in order of first appearance (the shared cells
        # are numbered in order of first use).
        groups = [s[3] for s in self.shared]
        names = list(dict.fromkeys(name for cells in groups for name in cells))
        if names:
            columns.update(zip(names, by_row([tuple(map(cells.get, names)) for cells in groups]).T))
        return build(None, records, FORMAT, self.unreadable, _FIRST, columns)


def _assertions_and_metadata(asserts: Any, metadata: Any) -> tuple[str | None, str | None, dict[str, str]]:
    """A test's assertions cell, the expected answer they give (``_expected``), and its
    metadata cells (without promptfoo's own bookkeeping)."""
    cells = {}
    if type(metadata) is dict:
        cells = {"metadata." + key: value if type(value) is str else text(value)
                 for key, value in metadata.items() if not key.startswith("_promptfoo")}
    if asserts is None:
        return None, None, cells
    return compact(asserts), _expected(None, asserts), cells


def _prompt_numbers(prompts: Any, used: list[str]) -> dict[str, int]:
    """1-based number of each distinct prompt label: ``results.prompts`` order, then the
    order of first use in the results."""
    numbers: dict[str, int] = {}
    for p in prompts if type(prompts) is list else ():
        if type(p) is dict:
            numbers.setdefault(_prompt_key(p), len(numbers) + 1)
    for key in used:
        if key not in numbers:
            numbers[key] = len(numbers) + 1
    return numbers


def _prompt_key(prompt: dict) -> str:
    label = prompt.get("label")
    if type(label) is str and label:
        return label
    raw = prompt.get("raw")
    return raw if type(raw) is str else ""


def _version(provider: Any) -> str | None:
    if type(provider) is str:
        return provider
    if type(provider) is dict:
        label = provider.get("label")
        if type(label) is str and label:
            return label
        pid = provider.get("id")
        return pid if type(pid) is str else scalar_or_none(pid)
    return None


def _expected(vars_: Any, asserts: Any) -> str | None:
    if type(vars_) is dict and "expected" in vars_:
        return scalar_or_none(vars_["expected"])
    if type(asserts) is list:
        equals = [a for a in asserts if type(a) is dict and a.get("type") == "equals"]
        if len(equals) == 1 and "value" in equals[0]:
            return scalar_or_none(equals[0]["value"])
    return None


def _name_rows(case: np.ndarray, prompt: np.ndarray, test_index: list[int], version: np.ndarray, versions: int,
               case_index: list[int], cases: dict[tuple, int],
               prompt_numbers: list[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``id`` and ``repeat`` (module docstring). Per row: its ``case`` number,
    ``prompt`` number, test index (-1: none) and ``version`` number (of ``versions``);
    ``case_index``: per case, its first row's test index (or its number); ``cases``: the
    cases in number order; ``prompt_numbers``: per prompt number, its number in the id
    (None: one prompt, no suffix)."""
    names = [d if d is not None else str(i) for (d, _, _), i in zip(cases, case_index)]
    cases_by_name: dict[str, list[int]] = {}
    for number, name in enumerate(names):
        cases_by_name.setdefault(name, []).append(number)
    for name, same in cases_by_name.items():
        if len(same) > 1:
            for number in same:
                names[number] = f"{name} (test {case_index[number]})"
    if prompt_numbers:
        ids = np.array([f"{name} (prompt {n})" for name in names for n in prompt_numbers],
                       dtype=object)[case * len(prompt_numbers) + prompt]
    else:
        ids = np.array(names, dtype=object)[case]
    # Repeats: the same case, prompt and version, in test-index order (then file order).
    n = len(case)
    slot = case * (int(prompt.max()) + 1) + prompt
    if (int(slot.max()) + 1) * versions < 1 << 62:
        slot = slot * versions + version
        if len(np.unique(slot)) == n:  # no repeats (most files)
            return ids, np.full(n, "0", dtype=object)
        keys: tuple = (slot,)
    else:
        keys = (version, prompt, case)
    try:
        index = np.asarray(test_index, dtype=np.int64)
    except OverflowError:  # an index past 64 bits: its rank among them instead
        index = np.unique(np.array(test_index, dtype=object), return_inverse=True)[1]
    order = np.lexsort((np.arange(n), index) + keys)
    first = np.ones(n, dtype=bool)
    first[1:] = np.any([k[order][1:] != k[order][:-1] for k in keys], axis=0)
    starts = np.flatnonzero(first)
    repeat = np.empty(n, dtype=np.intp)
    repeat[order] = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))
    return ids, np.array([str(k) for k in range(repeat.max() + 1)], dtype=object)[repeat]


def _kind(value: Any) -> str:
    if type(value) is list:
        return "an array"
    if type(value) is str:
        return "a string"
    if value is None or type(value) is bool:
        return compact(value)
    return "a number"
