"""Read promptfoo's ``promptfoo eval -o results.json`` output (SPEC §10).

One row per entry of ``results.results`` (``{"evalId", "results": {"version": 2 or 3, ...,
"results": [...]}, "config", ...}`` as promptfoo 0.2x to 0.121 write it; also an older bare
summary whose own ``results`` is the list), in file order; the record number is the entry's
1-based position there. The entries are decoded one at a time as the file is read
(``_common.decode_streaming``), so a large file costs little more than its JSON parsing.

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
from typing import Any

from graders.readers._common import (
    STREAMED,
    ResultsFile,
    ResultsFileError,
    build,
    compact,
    decode_streaming,
    decode_utf8,
    no_gc,
    scalar_or_none,
    text,
)
from graders.text.show import quoted_name

__all__ = ["FORMAT", "looks_like", "read"]

FORMAT = "promptfoo"
_FIRST = ("id", "version", "repeat", "input", "expected", "output", "assert",
          "harness.pass", "harness.score", "harness.reason", "harness.error", "latency_ms", "cost", "prompt.label")
_FIXED = ("version", "input", "expected", "output", "assert", "harness.pass", "harness.score", "harness.reason",
          "latency_ms", "cost", "prompt.label")  # every row has these (in this order in ``_Rows.add``)


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
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = decode_utf8(bytes(source), "the promptfoo results file")
    rows = _Rows()
    with no_gc():
        if isinstance(source, str):
            # The results array is handled entry by entry as it is decoded (_common).
            try:
                doc = decode_streaming(source, ("results", "results"), rows.add)
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
    """The rows of the results, one ``add`` per entry of ``results.results``."""

    def __init__(self) -> None:
        # The cells of the columns every row has (``_FIXED``), a tuple per row; the others
        # (vars, metadata) in a dict per row.
        self.cells: list[tuple] = []
        self.rows: list[dict[str, str | None]] = []
        self.records: list[int] = []
        self.unreadable: list[tuple[int, str]] = []
        # Per row, for the id and repeat: (case number, test index, prompt number).
        self.keys: list[tuple[int, int, int]] = []
        self.cases: dict[tuple, int] = {}  # (description, vars, assertions) -> case number
        self.prompts: dict[str, int] = {}  # prompt label -> prompt number, in order of use
        self.number = 0

    def add(self, r: Any, _empty: dict = {}) -> None:  # noqa: B006 - read only
        self.number += 1
        if type(r) is not dict:
            self.unreadable.append((self.number, f"is {_kind(r)}, not an object"))
            return
        provider = r.get("provider")
        if type(provider) is dict:
            version = provider.get("label")
            if type(version) is not str or not version:
                version = _version(provider)
        else:
            version = _version(provider)
        if version is None:
            self.unreadable.append((self.number, "has no provider"))
            return
        test = r.get("testCase")
        if type(test) is not dict:
            test = _empty
        vars_ = r.get("vars")
        if type(vars_) is not dict:
            vars_ = test.get("vars")
            if type(vars_) is not dict:
                vars_ = _empty
        asserts = test.get("assert")
        assert_text = None if asserts is None else compact(asserts)
        # The vars as part of the case key: their items when all are strings (most tests),
        # else their JSON text.
        if all(type(v) is str for v in vars_.values()):
            vars_key: Any = tuple(vars_.items())
        else:
            vars_key = compact(vars_)
        prompt = r.get("prompt")
        if type(prompt) is not dict:
            prompt = _empty
        response = r.get("response")
        if type(response) is not dict:
            response = _empty
        grading = r.get("gradingResult")
        if type(grading) is not dict:
            grading = _empty
        description = test.get("description", r.get("description"))
        if type(description) is not str or not description:
            description = None

        raw = prompt.get("raw")
        output = response.get("output")
        label = prompt.get("label")
        reason = grading.get("reason", r.get("error"))
        success = r.get("success")
        expected = vars_.get("expected") if "expected" in vars_ else _expected(vars_, asserts)
        self.cells.append((
            version,
            raw if type(raw) is str else compact(vars_),
            expected if type(expected) is str else scalar_or_none(expected),
            output if type(output) is str else scalar_or_none(output),
            assert_text,
            "true" if success is True else "false" if success is False else scalar_or_none(success),
            scalar_or_none(r.get("score")),
            reason if type(reason) is str else scalar_or_none(reason),
            scalar_or_none(r.get("latencyMs")),
            scalar_or_none(r.get("cost", response.get("cost"))),
            label if type(label) is str else scalar_or_none(label),
        ))
        row: dict[str, str | None] = {}
        error = response.get("error")
        if error is not None:
            row["harness.error"] = text(error)
        for key, value in vars_.items():
            row["vars." + key] = value if type(value) is str else text(value)
        metadata = r.get("metadata", test.get("metadata"))
        if type(metadata) is dict:
            for key, value in metadata.items():
                if not key.startswith("_promptfoo"):  # promptfoo's own bookkeeping
                    row["metadata." + key] = value if type(value) is str else text(value)
        test_idx = r.get("testIdx")
        # The case (description, vars, assertions) and the prompt, each as a small number.
        case = self.cases.setdefault((description, vars_key, assert_text), len(self.cases))
        prompt_key = label if type(label) is str and label else raw if type(raw) is str else ""
        prompt_no = self.prompts.setdefault(prompt_key, len(self.prompts))
        self.keys.append((case, test_idx if type(test_idx) is int else -1, prompt_no))
        self.rows.append(row)
        self.records.append(self.number)

    def finish(self, prompts: Any) -> ResultsFile:
        numbers = _prompt_numbers(prompts, list(self.prompts))
        by_use = [numbers[label] for label in self.prompts] if len(numbers) > 1 else None
        columns = dict(zip(_FIXED, map(list, zip(*self.cells)))) if self.cells else {k: [] for k in _FIXED}
        columns["id"], columns["repeat"] = _name_rows(self.keys, columns["version"],
                                                      [case[0] for case in self.cases], by_use)
        if not self.rows:
            if self.unreadable:
                number, reason = self.unreadable[0]
                raise ResultsFileError(f"no readable results in the promptfoo file (result {number} {reason})")
            raise ResultsFileError("the promptfoo results file holds no results")
        return build(self.rows, self.records, FORMAT, self.unreadable, _FIRST, columns)


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


def _name_rows(keys: list[tuple[int, int, int]], versions: list[str], descriptions: list[str | None],
               prompt_numbers: list[int] | None) -> tuple[list[str], list[str]]:
    """Each row's ``id`` and ``repeat`` (module docstring). ``keys``: per row (case
    number, test index, prompt number); ``versions``: per row; ``descriptions``: per case;
    ``prompt_numbers``: per prompt number, its number in the id (None: one prompt, no suffix)."""
    # A case's index: its first row's test index (the order of first appearance without one).
    case_index = [-1] * len(descriptions)
    for case, test_idx, _ in keys:
        if case_index[case] < 0:
            case_index[case] = test_idx if test_idx >= 0 else case
    names = [d if d is not None else str(i) for d, i in zip(descriptions, case_index)]
    cases_by_name: dict[str, list[int]] = {}
    for case, name in enumerate(names):
        cases_by_name.setdefault(name, []).append(case)
    for name, cases in cases_by_name.items():
        if len(cases) > 1:
            for case in cases:
                names[case] = f"{name} (test {case_index[case]})"
    if prompt_numbers:
        names_by_prompt = [[f"{name} (prompt {n})" for n in prompt_numbers] for name in names]
        ids = [names_by_prompt[case][prompt] for case, _, prompt in keys]
    else:
        ids = [names[case] for case, _, _ in keys]
    # Repeats: the same case, prompt and version, in test-index order.
    test_index = [k[1] for k in keys]
    repeats: list[str] = [""] * len(keys)
    seen: dict[tuple, int] = {}
    for i in sorted(range(len(keys)), key=test_index.__getitem__):
        case, _, prompt = keys[i]
        slot = (case, prompt, versions[i])
        n = seen.get(slot, 0)
        repeats[i] = _REPEAT[n] if n < 16 else str(n)
        seen[slot] = n + 1
    return ids, repeats


_REPEAT = [str(n) for n in range(16)]


def _kind(value: Any) -> str:
    if type(value) is list:
        return "an array"
    if type(value) is str:
        return "a string"
    if value is None or type(value) is bool:
        return compact(value)
    return "a number"
