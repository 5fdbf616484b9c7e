"""json_schema: the output, parsed as JSON, is valid under a JSON Schema.

Settings (``details["signature"]``, e.g. ``json_schema|draft:2020-12|pattern:ecmascript|
format:annotation|refs:local|pre_parse:none|max_depth:100000``):

* dialect: Draft 2020-12 unless ``$schema`` names draft-04, -06, -07 or 2019-09 (``http``
  or ``https``, with or without the empty ``#``); any other ``$schema`` is not judged.
* keywords: each dialect's supported set is written down below (``KEYWORDS``); a keyword
  outside it, anywhere a subschema can sit, makes the pair ``not_judged``, naming the
  keyword and its JSON Pointer in the schema. ``$defs`` and ``definitions`` are accepted
  in every dialect: they hold subschemas that only ``$ref`` reaches. In drafts 4–7, where
  keywords beside ``$ref`` are ignored, an assertion beside ``$ref`` is not judged too.
* ``pattern`` and ``patternProperties`` (also where ``additionalProperties`` and
  ``unevaluatedProperties`` consult them) use ECMAScript regular expressions with the
  ``u`` flag (``graders.engines.regex``), as JSON Schema requires. Each match has a time limit
  (``REGEX_TIMEOUT``, 1 s); a row whose pattern runs past it is an ``error``, and a run (one
  column, or one call) allows ``MAX_TIMEOUTS`` (3) such time-outs in all: past them the rows
  that need a pattern not yet run are an ``error`` saying so, so a pattern that backtracks
  catastrophically costs seconds, not the limit on every row. ``format`` is an annotation,
  not asserted (the 2020-12 default).
* ``$ref`` must stay inside the schema (or point at a JSON Schema meta-schema); a remote
  reference is not fetched: ``not_judged``. A ``$ref`` to nothing in the schema: ``error``.
* an invalid schema (fails its meta-schema; patterns checked as ECMAScript): ``error``.
* parsing: ``graders.engines.jsonparse.parse`` (``loads`` without raising) after the ``pre_parse`` steps, in the order given.
* depth: an output nested up to 100,000 levels parses (``jsonparse.MAX_DEPTH``; deeper is a
  parse ``fail``). jsonschema validates by recursion, so where checking a deep output (or
  quoting it, or a deep ``const``/``enum`` value of the schema, in a violation's message)
  passes Python's recursion limit, the grade is ``error``: "the output (or: the schema) is
  nested N levels deep, too deeply to validate" (about 250 levels fit under a recursive
  ``$ref``, about 990 in a message); a schema that does not descend that far
  (``{"type": "array"}``, ``required``, ``additionalProperties``) judges any depth.
* a fail lists every violation (up to ``MAX_LISTED``, counted up to ``MAX_COUNTED``) as
  ``{path, keyword, message}`` in ``details["violations"]``: ``path`` is the RFC 6901 JSON
  Pointer of the offending value (``/`` shown for the document root), ``keyword`` is
  jsonschema's ``error.validator`` (``false`` for a ``false`` subschema), sorted by path
  (array indices numerically) then keyword then message.

Speed: the schema is compiled once into a fast check (``graders.engines.schema_fast``) that
decides validity as jsonschema's validator for the dialect would, and lists the violations
only of the rows that fail; each distinct output is judged once, and the patterns of a
column run in a few batches (``graders.engines.schema_patterns``). Where the fast check does
not reach (``$dynamicRef``, ``unevaluated*``, anchors, a failing ``anyOf``/``oneOf``, an
output nested deeper than 32 levels), jsonschema itself judges the row: the same verdicts
and violations either way (``bench/json_schema_speed.py`` measures it against a prebuilt
``Draft202012Validator``).

The validation (jsonschema, the dialects, ECMAScript patterns, the compile cache) is
``graders.engines.schema`` and the column runner ``graders.engines.schema_run``, imported
when the grader first runs or a schema is first checked; the former's names are reachable
from here too (``json_schema.compile_schema``).
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any, Sequence

from graders.engines.jsonparse import PRE_PARSE_CHOICES
from graders.metrics.base import GraderSpec, Param
from graders.result import Block, Grade


def _validation() -> ModuleType:
    return import_module("graders.engines.schema")


def _runner() -> ModuleType:
    return import_module("graders.engines.schema_run")


def __getattr__(name: str) -> Any:
    """The validation module's names (``compile_schema``, ``DIALECTS``, ``KEYWORDS``, …),
    loading it on first use."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_validation(), name)


def _probe(refs: tuple[str, ...], output: str, *, schema: Any, pre_parse: tuple[str, ...] = ()) -> tuple[str, ...]:
    return _runner().probe_output(output, schema, tuple(pre_parse or ()))


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], *, schema: Any,
               pre_parse: tuple[str, ...] = ()) -> Block:
    """The grader over a column: the verdict, then the probe on each fail, the schema compiled once."""
    return _runner().grade_many(refs, outputs, schema=schema, pre_parse=pre_parse)


def grade_json_schema(refs: tuple[str, ...], output: str, *, schema: Any, pre_parse: tuple[str, ...] = ()) -> Grade:
    """Pass when the output (after ``pre_parse``) is JSON valid under ``schema``."""
    return _runner().grade_output(output, schema, tuple(pre_parse or ()))


SPEC = GraderSpec(
    name="json_schema",
    func=grade_json_schema,
    params=[
        Param("schema", "schema", required=True,
              help="a JSON Schema: a JSON object or true/false, as a dict or bool or as JSON text"),
        Param("pre_parse", "steps", (), choices=PRE_PARSE_CHOICES,
              help="steps applied to the output before parsing: strip_fence, trim"),
    ],
    binary=True,
    uses_expected=False,
    label="JSON Schema",
    summary="the output parses as JSON and is valid under the schema (Draft 2020-12 unless $schema says otherwise)",
    probe=_probe,
    batch=grade_many,
)
