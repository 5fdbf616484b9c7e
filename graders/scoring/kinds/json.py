"""``is-json`` and ``contains-json`` as promptfoo 0.121 decides them.

* ``is-json``: ``JSON.parse`` of the whole output (JSON's four whitespace characters around
  it, nothing else: no code fence, no BOM; ``graders.engines.jsonparse.parse``). With a
  value, the parsed output must also be valid under that JSON Schema.
* ``contains-json``: promptfoo's ``extractJsonObjects``: from each ``{``, the span up to
  where the braces balance (counted naively, strings and all; a span cut by the end of the
  output, or by 100,000 UTF-16 units, is closed with the braces it lacks), its ``//``
  comments turned into ``#`` ones, read by js-yaml (``yaml_load``): so ``{a: 1}`` and
  ``{'a': 'b'}`` count, and a truncated ``{"a": 1`` too. The first span that reads as a
  mapping is an object, and the search goes on after it. Without a value, any object
  passes; with one, an object valid under the schema.
* A schema (the value: an object, or text read as YAML, JSON included) is checked by
  ``graders.engines.schema`` as draft-07 unless it names its ``$schema`` (ajv's default
  dialect is draft-07). As in promptfoo, the value is looked at only once there is JSON to
  check: a malformed schema is an error on those rows alone. ``format`` is an annotation
  here, where promptfoo's ajv asserts it (see the README).
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Mapping, Sequence

from graders.engines.jsonparse import describe_value, explain_parse_error, parse
from graders.result import Grade, error, verdict
from graders.scoring.kinds.js import WHITESPACE, from_units, to_units
from graders.scoring.kinds.yaml_load import MAX_DEPTH, YamlError, load

MAX_JSON_UNITS = 100_000  # promptfoo's maxJsonLength: the longest span read, in UTF-16 units
MAX_SCAN_UNITS = 20_000_000  # the span characters read in one output before it is an error
DRAFT_07 = "http://json-schema.org/draft-07/schema#"


# --------------------------------------------------------------------------- promptfoo's extraction


def _escaped(line: str, i: int) -> bool:
    n = 0
    while i - 1 - n >= 0 and line[i - 1 - n] == "\\":
        n += 1
    return n % 2 == 1


def truthy(value: Any) -> bool:
    """JavaScript's truthiness of a JSON value (an empty array or object is true)."""
    return isinstance(value, (list, dict)) or bool(value)


def _letter(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def slash_comments_to_hash(text: str) -> str:
    """promptfoo's ``convertSlashCommentsToHash``: per line, a ``//`` outside quotes (and not
    in a token holding ``://``) becomes half as many ``#``. A quote at the end of a line
    never closes a single-quoted run: JavaScript tests ``/[a-zA-Z]/`` on ``undefined``."""
    if "//" not in text:
        return text
    out = []
    for line in text.split("\n"):
        state, result, i, n = 0, [], 0, len(line)  # 0 normal, 1 single-quoted, 2 double-quoted
        done = None
        while i < n:
            ch = line[i]
            nxt = line[i + 1] if i + 1 < n else "undefined"
            if state == 0:
                if ch == "'" and not (i > 0 and _letter(line[i - 1])):
                    state = 1
                    result.append(ch)
                elif ch == '"':
                    state = 2
                    result.append(ch)
                elif ch == "/" and nxt == "/":
                    start = 0
                    for j in range(i - 1, -1, -1):
                        if line[j] in WHITESPACE:
                            start = j + 1
                            break
                    if "://" in line[start:i + 2]:
                        result.append(ch)
                    else:
                        count = 2
                        while i + count < n and line[i + count] == "/":
                            count += 1
                        done = "".join(result) + "#" * (count // 2) + line[i + count:]
                        break
                else:
                    result.append(ch)
            elif state == 1:
                result.append(ch)
                if ch == "'" and not _escaped(line, i) and not any(map(_letter, nxt)):
                    state = 0
            else:
                result.append(ch)
                if ch == '"' and not _escaped(line, i):
                    state = 0
            i += 1
        out.append(done if done is not None else "".join(result))
    return "\n".join(out)


def _deepest_node(value: Any) -> int:
    """The level of the deepest node (a container or scalar; the top one is level 1), as
    js-yaml counts the nesting it refuses at 100."""
    deepest, todo = 1, [(value, 1)]
    while todo:
        v, level = todo.pop()
        deepest = max(deepest, level)
        if isinstance(v, dict):
            todo.extend((x, level + 1) for x in v.values())
            if v:
                deepest = max(deepest, level + 1)  # the keys
        elif isinstance(v, list):
            todo.extend((x, level + 1) for x in v)
    return deepest


def _read_span(span: str) -> Any:
    """The span as promptfoo's ``loadYaml`` reads it, or raise ``YamlError``. Strict JSON
    reads the same through Python's parser (JSON is YAML that js-yaml reads as JSON does),
    up to js-yaml's 100 levels of nesting, past which it throws."""
    value, err = parse(span)
    if err is None and isinstance(value, dict):
        if span.count("{") + span.count("[") < 99 or _deepest_node(value) < 100:  # level 100 needs 99 containers
            return value
        raise YamlError(f"nesting exceeded maxDepth ({MAX_DEPTH})")
    return load(slash_comments_to_hash(span))


class TooLong(ValueError):
    """More span to read than ``MAX_SCAN_UNITS``."""


_BRACES = re.compile("[{}]")


def extract_json_objects(output: str, first_only: bool = False) -> list[Any]:
    """promptfoo's ``extractJsonObjects`` over the output (in UTF-16 units, as JavaScript
    indexes it): from each ``{``, the first span where the braces balance (or, never
    balanced, the span to the end or to ``MAX_JSON_UNITS``, closed with the braces it
    lacks), read once; an object found, the search goes on after it. Braces are found by
    position, so text between them costs nothing. ``first_only``: stop at the first object."""
    s = to_units(output)
    n = len(s)
    braces = [m.start() for m in _BRACES.finditer(s)]
    objects: list[Any] = []
    read = 0
    k = 0
    while k < len(braces):
        i = braces[k]
        if s[i] != "{":
            k += 1
            continue
        stop = min(i + MAX_JSON_UNITS, n)
        opened, closed, end = 1, 0, None
        m = k + 1
        while m < len(braces) and braces[m] < stop:
            if s[braces[m]] == "{":
                opened += 1
            else:
                closed += 1
            if opened == closed:
                end = braces[m] + 1
                break
            m += 1
        if end is None and i + 1 >= stop:  # a "{" ending the output: no span at all
            k += 1
            continue
        if end is None:  # never balanced: the span to the end (or the length limit), closed
            span = s[i:stop] + "}" * (_count(s, i, stop, "{") - _count(s, i, stop, "}"))
        else:
            span = s[i:end]
        read += len(span)
        if read > MAX_SCAN_UNITS:
            raise TooLong(f"the output holds too many braces to read within {MAX_SCAN_UNITS:,} characters")
        try:
            value = _read_span(span)
        except (YamlError, RecursionError):
            value = None
        if value is not None and not isinstance(value, (str, int, float)):  # typeof "object", not null
            objects.append(value)
            if first_only:
                break
            if end is None:  # the search goes on after the span's end
                k = bisect.bisect_left(braces, stop)
            else:
                k = m + 1  # after the object (its end is a balance point)
            continue
        k += 1
    return objects


def _count(s: str, start: int, stop: int, ch: str) -> int:
    return s.count(ch, start, stop)


# --------------------------------------------------------------------------- schemas


def schema_of(value: Any) -> Any:
    """The schema an ``is-json`` / ``contains-json`` value gives: an object as it is, text
    read as YAML (JSON included); ``ValueError`` with promptfoo's reason otherwise."""
    if isinstance(value, str):
        if value.startswith("file://"):
            raise ValueError("a file:// schema is not read here (give the schema itself)")
        try:
            schema = load(to_units(value))
        except YamlError as e:
            raise ValueError(f"the schema is not YAML or JSON ({e})") from None
    elif isinstance(value, (dict, list)):
        schema = value
    else:
        raise ValueError("the assertion must have a string or object value")
    if isinstance(schema, dict) and "$schema" not in schema:
        schema = {"$schema": DRAFT_07, **schema}
    return schema


class _Checker:
    """One schema compiled once for a column (``graders.engines.schema``)."""

    def __init__(self, schema: Any) -> None:
        from graders.engines.schema import compile_schema

        self.compiled = compile_schema(schema)
        problem = self.compiled.problem
        self.problem = None if problem is None else problem.explanation

    def check(self, instance: Any) -> tuple[bool, str]:
        """(valid, the first violations in words)."""
        from graders.engines.schema import violations

        found, count = violations(self.compiled, _jsonish(instance))
        if not count:
            return True, ""
        shown = "; ".join(f"at {v['path'] or '/'} ({v['keyword']}): {v['message']}" for v in found[:3])
        return False, f"{count} violation{'s' if count != 1 else ''}: {shown}"


def _jsonish(value: Any) -> Any:
    """A YAML value with its strings' surrogate pairs joined (values from JSON are as they are)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in list(v.items()):
                if isinstance(x, str):
                    v[k] = from_units(x)
                else:
                    stack.append(x)
        elif isinstance(v, list):
            for idx, x in enumerate(v):
                if isinstance(x, str):
                    v[idx] = from_units(x)
                else:
                    stack.append(x)
    return value


# --------------------------------------------------------------------------- the kinds


def is_json_column(value: Any, outputs: Sequence[str]) -> list[Grade]:
    """``is-json`` over a column (the value: nothing, or a schema)."""
    has_schema = truthy(value)
    schema = _LazySchema(value, "is-json")
    grades = []
    for output in outputs:
        parsed, err = parse(output)
        if err is not None:
            grades.append(verdict(False, explain_parse_error(err, output) + " (is-json parses the whole output, "
                                                                             "as JSON.parse does: no code fence)"))
            continue
        if not has_schema:
            grades.append(verdict(True, f"The whole output is valid JSON: {describe_value(parsed)}."))
            continue
        checker, problem = schema.get()
        if problem is not None:
            grades.append(error(f"The output is JSON, but the schema cannot be used: {problem}"))
            continue
        try:
            ok, why = checker.check(parsed)
        except Exception as e:  # the validator's own failure on an odd schema or value: this row's error
            grades.append(error(f"The output is JSON, but checking it against the schema failed ({type(e).__name__})."))
            continue
        grades.append(verdict(True, "The whole output is JSON valid under the schema.") if ok
                      else verdict(False, f"The whole output is JSON, not valid under the schema: {why}."))
    return grades


class _LazySchema:
    """The assertion value's schema checker, built on first use: (checker, problem)."""

    def __init__(self, value: Any, kind: str) -> None:
        self.value, self.kind, self.built = value, kind, None

    def get(self) -> tuple[Any, str | None]:
        if self.built is None:
            try:
                checker = _Checker(schema_of(self.value))
                self.built = (checker, checker.problem)
            except ValueError as e:
                self.built = (None, f"{self.kind}: {e}")
        return self.built


def contains_json_column(value: Any, outputs: Sequence[str]) -> list[Grade]:
    """``contains-json`` over a column (the value: nothing, or a schema)."""
    has_schema = truthy(value)
    schema = _LazySchema(value, "contains-json")
    grades = []
    for output in outputs:
        try:
            objects = extract_json_objects(output, first_only=not has_schema)
        except TooLong as e:
            grades.append(error(f"contains-json: {e}."))
            continue
        if not objects:
            grades.append(verdict(False, "No JSON object found in the output (promptfoo's search: a span from a { to "
                                         "where braces balance, read as JSON or YAML)."))
            continue
        if not has_schema:
            grades.append(verdict(True, f"The output contains a JSON object: {_shown(objects[0])}."))
            continue
        checker, problem = schema.get()
        if problem is not None:
            grades.append(error(f"The output contains JSON, but the schema cannot be used: {problem}"))
            continue
        grades.append(_first_valid(checker, objects))
    return grades


def _first_valid(checker: _Checker, objects: list[Any]) -> Grade:
    why = ""
    for k, obj in enumerate(objects, 1):
        try:
            ok, why = checker.check(obj)
        except Exception as e:  # the validator's own failure: this row's error
            return error(f"Checking object {k} against the schema failed ({type(e).__name__}).")
        if ok:
            return verdict(True, f"JSON object {k} of {len(objects)} in the output is valid under the schema: "
                                 f"{_shown(obj)}.")
    return verdict(False, f"None of the {len(objects)} JSON object{'s' if len(objects) != 1 else ''} in the output "
                          f"is valid under the schema (the last: {why}).")


def _shown(value: Any) -> str:
    from graders.engines.jsonparse import compact

    try:
        return compact(_jsonish(value), 60)
    except Exception:  # a YAML date or binary value: no JSON form
        return type(value).__name__


def value_of(assertion: Mapping[str, Any]) -> Any:
    return assertion.get("value")
