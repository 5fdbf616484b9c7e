"""promptfoo's assertion kinds, decided as promptfoo 0.121 decides them, over a column.

One module per concern, as promptfoo keeps one file per assertion (``src/assertions/*.ts``):
``regex`` (V8 without the ``u`` flag), ``json`` (``is-json``, ``contains-json``, with
``yaml_scan``, ``yaml_parse``, ``yaml_load``: the js-yaml reading promptfoo applies), ``xml`` (``is-xml``,
``contains-xml``), ``text`` (``levenshtein``, ``rouge-n``); ``latency`` and ``cost`` are
here. ``promptfoo_plan(kind, assertion)`` checks an assertion once and returns the function
that judges a column of rows carrying it; ``not-`` is not seen here (the caller inverts).

Values as promptfoo reads them: ``regex``, ``levenshtein`` and ``rouge-n`` take a string
(without a value, the row's expected answer, Gradeboard's own rule); ``threshold`` defaults
to 5 (``levenshtein``, the most edits in UTF-16 units) and 0.75 (``rouge-n``), and is
required by ``latency`` (milliseconds) and ``cost``, which compare the row's ``latency_ms``
and ``cost`` (a promptfoo results file's ``latencyMs`` and ``cost``): at most the threshold
passes. A row without that field is an error, as promptfoo throws.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from graders.metrics.base import BELOW_THRESHOLD_REACH  # SPEC §4: a continuous fail this close under is a near miss
from graders.result import Block, Grade, continuous, error, verdict
from graders.scoring.kinds.regex import Budget

__all__ = ["PROMPTFOO_KINDS", "FIELD_OF", "Budget", "Fields", "Judge", "promptfoo_plan"]

PROMPTFOO_KINDS = ("regex", "is-json", "contains-json", "is-xml", "contains-xml", "levenshtein", "rouge-n",
                   "latency", "cost")
FIELD_OF = {"latency": "latency_ms", "cost": "cost"}  # the row field each measure reads


class Fields:
    """The rows' own fields (``latency_ms``, ``cost``) for the rows of one group; for a
    judge that takes it (``regex``), the chunk's whole output column and the group's rows
    in it (``column``: None when the group's outputs were deduplicated)."""

    def __init__(self, columns: Mapping[str, Sequence[Any]], rows: Sequence[int],
                 column: Sequence[str] | None = None) -> None:
        self._columns, self.rows, self.column = columns, rows, column

    def get(self, name: str) -> list[Any] | None:
        """The group's cells of ``name``, or None when the rows have no such field."""
        cells = self._columns.get(name)
        return None if cells is None else [cells[r] for r in self.rows]


# A group's grades from its rows: (refs, outputs, the rows' fields, the chunk's time-out budget).
Judge = Callable[[Sequence[tuple[str, ...]], Sequence[str], Fields, Budget], list[Grade]]


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _text_value(kind: str, value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f'"{kind}" assertion type must have a string value')
    return value


def _threshold(kind: str, assertion: Mapping[str, Any], default: float | None) -> float:
    t = assertion.get("threshold")
    if t is None:
        if default is None:
            what = "a threshold in milliseconds" if kind == "latency" else "a threshold"
            raise ValueError(f"{kind.capitalize()} assertion must have {what}")
        return default
    if not _number(t):
        raise ValueError(f"threshold must be a number, not {t!r}")
    return t


def _references(value: str | None, refs: Sequence[tuple[str, ...]]) -> list[str | None]:
    """Each row's reference: the value, or the row's expected answer (None: neither)."""
    return [value if value is not None else (r[0] if r else None) for r in refs]


def _no_reference(kind: str) -> Grade:
    return error(f'assertion {kind!r}: no value to compare with: give the assertion a "value", or the row an '
                 "expected answer")


def _regex(assertion: Mapping[str, Any]) -> tuple[Judge, dict[str, Any]]:
    from graders.scoring.kinds import regex

    p = regex.settings(assertion.get("value"), assertion.get("flags"), assertion.get("at"), assertion.get("timeout"))
    if isinstance(p, str):
        raise ValueError(p)
    meta: dict[str, Any] = {"flags": p.flags, "at": p.at, "timeout": p.timeout}

    def judge(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], fields: Fields, budget: Budget) -> list[Grade]:
        patterns = _references(p.pattern, refs)
        have = [i for i, pat in enumerate(patterns) if pat]
        grades = [error('assertion "regex": no pattern: give the assertion a "value", or the row an expected answer')
                  ] * len(outputs)
        if fields.column is not None:  # the chunk's column, sent to V8 once for every group
            got = regex.column(p, fields.column, [patterns[i] for i in have], budget, [fields.rows[i] for i in have])
        else:
            got = regex.column(p, [outputs[i] for i in have], [patterns[i] for i in have], budget)
        for i, g in zip(have, got):
            grades[i] = g
        return grades

    return judge, meta


def _json_kind(kind: str, assertion: Mapping[str, Any]) -> tuple[Judge, dict[str, Any]]:
    from graders.scoring.kinds import json

    value = assertion.get("value")
    column = json.is_json_column if kind == "is-json" else json.contains_json_column
    return (lambda refs, outputs, fields, budget: column(value, outputs)), {}


def _xml_kind(kind: str, assertion: Mapping[str, Any]) -> tuple[Judge, dict[str, Any]]:
    from graders.scoring.kinds import xml

    value = assertion.get("value")
    return (lambda refs, outputs, fields, budget: xml.xml_column(kind, value, outputs)), {}


def _levenshtein(assertion: Mapping[str, Any]) -> tuple[Judge, dict[str, Any]]:
    from graders.scoring.kinds.text import levenshtein

    value = _text_value("levenshtein", assertion.get("value"))
    t = _threshold("levenshtein", assertion, 5)

    def judge(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], fields: Fields, budget: Budget) -> list[Grade]:
        grades = []
        for ref, output in zip(_references(value, refs), outputs):
            if ref is None:
                grades.append(_no_reference("levenshtein"))
                continue
            d = levenshtein(output, ref)
            ok = d <= t
            grades.append(verdict(ok, f"Levenshtein distance {d} (edits in UTF-16 units) from the value, "
                                      f"{'at most' if ok else 'more than'} the threshold {t:g}.", distance=d, threshold=t))
        return grades

    return judge, {"threshold": t}


def _rouge_n(assertion: Mapping[str, Any]) -> tuple[Judge, dict[str, Any]]:
    from graders.scoring.kinds.text import RougeWorkError, rouge_1

    value = _text_value("rouge-n", assertion.get("value"))
    t = _threshold("rouge-n", assertion, 0.75)

    def judge(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], fields: Fields, budget: Budget) -> list[Grade]:
        grades = []
        for ref, output in zip(_references(value, refs), outputs):
            if ref is None:
                grades.append(_no_reference("rouge-n"))
                continue
            try:
                score = rouge_1(output, ref)
            except RougeWorkError as e:
                grades.append(error(f"assertion 'rouge-n': {e}."))
                continue
            g = continuous(score, t, "ROUGE-N (promptfoo: clipped unigram F1 of the lowercased output and value, "
                                     "Penn Treebank tokens).", continuous=True)
            if g.status == "fail" and score >= t - BELOW_THRESHOLD_REACH:
                g = Grade(g.status, g.passed, g.score, g.explanation, ("below_threshold",), g.details)
            grades.append(g)
        return grades

    return judge, {"threshold": t}


def _measure(kind: str, assertion: Mapping[str, Any]) -> tuple[Judge, dict[str, Any]]:
    t = _threshold(kind, assertion, None)
    field = FIELD_OF[kind]
    unit = " ms" if kind == "latency" else ""

    def judge(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], fields: Fields, budget: Budget) -> list[Grade]:
        cells = fields.get(field) or [None] * len(outputs)
        grades = []
        for cell in cells:
            try:
                x = float(cell) if cell not in (None, "") else None
            except (TypeError, ValueError):
                x = None
            if x is None:
                why = ("promptfoo's latency assertion needs a measured latency and refuses cached results"
                       if kind == "latency" else "promptfoo's cost assertion needs a provider that reports its cost")
                grades.append(error(f"assertion {kind!r}: the row has no {field}{'' if cell in (None, '') else f' number (it has {cell!r})'}: {why}."))
                continue
            ok = x <= t
            grades.append(verdict(ok, f"{field} {x:g}{unit} is {'at most' if ok else 'more than'} the threshold "
                                      f"{t:g}{unit}.", **{field: x, "threshold": t}))
        return grades

    return judge, {"threshold": t}


def _with_extract(judge: Judge, extract: Any) -> Judge:
    """``judge`` on what ``extract`` finds in each output (SPEC §9)."""
    from graders.metrics.extraction import extracted_block

    def judged(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], fields: Fields, budget: Budget) -> list[Grade]:
        block = extracted_block(extract, refs, outputs,  # answers, not the column's outputs: no column
                                lambda r, o: Block.from_grades(judge(r, o, Fields({}, ()), budget)), uses_expected=False)
        return [block.grade(k) for k in range(len(outputs))]

    return judged


def promptfoo_plan(kind: str, assertion: Mapping[str, Any]) -> tuple[Judge | None, dict[str, Any], str | None]:
    """(the column judge, the metadata's parameters, or the problem every row reports) for
    an assertion of promptfoo's ``kind`` (without ``not-``)."""
    try:
        if kind == "regex":
            judge, meta = _regex(assertion)
        elif kind in ("is-json", "contains-json"):
            judge, meta = _json_kind(kind, assertion)
        elif kind in ("is-xml", "contains-xml"):
            judge, meta = _xml_kind(kind, assertion)
        elif kind == "levenshtein":
            judge, meta = _levenshtein(assertion)
        elif kind == "rouge-n":
            judge, meta = _rouge_n(assertion)
        else:
            judge, meta = _measure(kind, assertion)
    except ValueError as e:
        return None, {}, str(e)
    if assertion.get("extract") is not None and kind not in FIELD_OF:
        from graders.text.extract import parse_extract

        try:
            ex = parse_extract(assertion["extract"])
        except ValueError as e:
            return None, {}, f"parameter 'extract': {e}"
        judge = _with_extract(judge, ex)
        meta = {**meta, "extract": assertion["extract"]}
    return judge, meta, None
