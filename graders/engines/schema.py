"""Validating a parsed output against a JSON Schema, for the ``json_schema`` grader
(``graders.metrics.json_schema``, which holds the settings and imports this module on first use,
so that a run without the grader never loads jsonschema).

A schema is compiled once (its dialect, the keyword walk, a validator class whose
``pattern`` keywords are ECMAScript, and the fast check of ``schema_fast``) and cached by
its canonical JSON. ``graders.engines.schema_run`` grades outputs with it (``grade_many``
a column, ``grade_output`` and ``probe_output`` one output); the words of a grade are here
(``listed``, ``stopped``, ``passed_explanation``, ``failed_explanation``).
"""

from __future__ import annotations

import functools
import json
import marshal
from dataclasses import dataclass
from typing import Any, Iterator, Sequence
from urllib.parse import urldefrag, urljoin

import referencing
import referencing.exceptions
from jsonschema import exceptions as js_exceptions
from jsonschema import validators as js_validators
from jsonschema.exceptions import ValidationError
from jsonschema_specifications import REGISTRY as META_SCHEMAS
from referencing.jsonschema import lookup_recursive_ref

from graders.engines.jsonparse import (
    MAX_DEPTH,
    depth,
    encodable,
    path_sort_key,
    pointer,
    shorten,
    shorten_middle,
    shown_pointer,
)
from graders.engines.regex import check_pattern
from graders.engines.schema_dialects import (  # noqa: F401  (the names this module has always offered)
    _DIALECT_BY_URI,
    _HARMLESS_BESIDE_REF,
    _HINTS,
    _REFS,
    _SUBSCHEMA,
    _SUBSCHEMA_ARRAY,
    _SUBSCHEMA_MAP,
    ANNOTATIONS,
    CONTAINERS,
    DEFAULT_DIALECT,
    DIALECTS,
    KEYWORDS,
    Dialect,
    _dialect_key,
)
from graders.engines.schema_patterns import MAX_TIMEOUTS, REGEX_TIMEOUT  # noqa: F401  (the grader's settings)
from graders.engines.schema_patterns import PatternProblem as _PatternProblem
from graders.engines.schema_patterns import search as _search
from graders.result import Grade, error, not_judged

try:  # the fast path reads jsonschema's keyword functions (private modules, pinned below 5)
    from graders.engines.schema_fast import compile_fast
except ImportError:  # pragma: no cover - a jsonschema that moved them: jsonschema judges every row
    compile_fast = None


def extras_msg(extras: Sequence[Any]) -> tuple[str, str]:  # jsonschema's _utils.extras_msg (private)
    return ", ".join(repr(extra) for extra in extras), "was" if len(extras) == 1 else "were"


def is_valid(errors: Iterator[Any]) -> bool:  # jsonschema's _utils.is_valid (private)
    return next(errors, None) is None


# Private jsonschema names used: a validator's ``_resolver`` here (no public accessor in 4.x);
# the keyword functions (``_keywords``, ``_legacy_keywords``) and ``_utils.equal``/``uniq`` in
# the fast path (schema_fast*), which matches keywords by those functions. pyproject.toml
# pins jsonschema below 5; tests fail when they move (and the fast path then stands aside).
MAX_LISTED = 1000  # violations kept in details
MAX_COUNTED = 10_000  # violations counted before validation stops
MAX_SHOWN = MAX_LISTED  # violations written out in the explanation: every one details keeps (SPEC §3)
MESSAGE_LIMIT = 300


# --- ECMAScript patterns ---------------------------------------------------------------------
# ``_search`` answers from the current run's pattern results (``schema_patterns``: batched
# into V8, one time-out budget per run), or matches at once outside a run.


def _pattern(validator, patrn, instance, schema):
    if validator.is_type(instance, "string") and not _search(patrn, instance):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def _pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in pattern_properties.items():
        for k, v in instance.items():
            if _search(patrn, k):
                yield from validator.descend(v, subschema, path=k, schema_path=patrn)


def _additional(instance, schema) -> Iterator[str]:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    for prop in instance:
        if prop not in properties and not any(_search(p, prop) for p in patterns):
            yield prop


def _additional_properties(validator, aP, instance, schema):
    # jsonschema's additionalProperties, with ECMAScript patterns.
    if not validator.is_type(instance, "object"):
        return
    extras = set(_additional(instance, schema))
    if validator.is_type(aP, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], aP, path=extra)
    elif not aP and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            error_ = "Additional properties are not allowed (%s %s unexpected)"
            yield ValidationError(error_ % extras_msg(sorted(extras, key=str)))


def _evaluated_keys(validator, instance, schema, draft2019: bool) -> list[str]:
    # jsonschema's find_evaluated_property_keys_by_schema (2020-12 and 2019-09 variants),
    # with ECMAScript patterns.
    if validator.is_type(schema, "boolean"):
        return []
    keys: list[str] = []

    def via(resolved):
        return _evaluated_keys(
            validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
            instance, resolved.contents, draft2019,
        )

    if (ref := schema.get("$ref")) is not None:
        keys += via(validator._resolver.lookup(ref))
    if draft2019:
        if "$recursiveRef" in schema:
            keys += via(lookup_recursive_ref(validator._resolver))
        for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
            if keyword in schema:
                value = schema[keyword]
                if validator.is_type(value, "boolean") and value:
                    keys += instance.keys()
                elif validator.is_type(value, "object"):
                    keys += [p for p in value if p in instance]
    else:
        if (dynamic_ref := schema.get("$dynamicRef")) is not None:
            keys += via(validator._resolver.lookup(dynamic_ref))
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            keys += properties.keys() & instance.keys()
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            if (subschema := schema.get(keyword)) is not None:
                keys += [k for k, v in instance.items() if is_valid(validator.descend(v, subschema))]
    if "patternProperties" in schema:
        for prop in instance:
            for patrn in schema["patternProperties"]:
                if _search(patrn, prop):
                    keys.append(prop)
    for prop, subschema in schema.get("dependentSchemas", {}).items():
        if prop in instance:
            keys += _evaluated_keys(validator, instance, subschema, draft2019)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if is_valid(validator.descend(instance, subschema)):
                keys += _evaluated_keys(validator, instance, subschema, draft2019)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys += _evaluated_keys(validator, instance, schema["if"], draft2019)
            if "then" in schema:
                keys += _evaluated_keys(validator, instance, schema["then"], draft2019)
        elif "else" in schema:
            keys += _evaluated_keys(validator, instance, schema["else"], draft2019)
    return keys


def _unevaluated_properties(draft2019: bool):
    def unevaluatedProperties(validator, uP, instance, schema):
        if not validator.is_type(instance, "object"):
            return
        evaluated = _evaluated_keys(validator, instance, schema, draft2019)
        unevaluated = []
        for prop in instance:
            if prop not in evaluated:
                for _ in validator.descend(instance[prop], uP, path=prop, schema_path=prop):
                    unevaluated.append(prop)  # noqa: PERF401
        if unevaluated:
            if uP is False:
                msg = "Unevaluated properties are not allowed (%s %s unexpected)"
                yield ValidationError(msg % extras_msg(sorted(unevaluated, key=str)))
            else:
                msg = "Unevaluated properties are not valid under the given schema (%s %s unevaluated and invalid)"
                yield ValidationError(msg % extras_msg(unevaluated))

    return unevaluatedProperties


def _false_schema_errors(instance, path, schema_path) -> Iterator[ValidationError]:
    err = ValidationError(
        f"False schema does not allow {instance!r}",
        validator=None, validator_value=None, instance=instance, schema=False,
    )
    if path is not None:
        err.path.appendleft(path)
    if schema_path is not None:
        err.schema_path.appendleft(schema_path)
    yield err


def _validator_class(dialect: Dialect) -> type:
    keywords = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    }
    if "unevaluatedProperties" in dialect.base.VALIDATORS:
        keywords["unevaluatedProperties"] = _unevaluated_properties(dialect.name == "2019-09")
    cls = js_validators.extend(dialect.base, keywords)
    stock_descend = cls.descend

    # jsonschema's descend drops the path of an error from a `false` subschema
    # ({"properties": {"a": false}} reports the root instead of "/a"); this keeps it.
    def descend(self, instance, schema, path=None, schema_path=None, resolver=None):
        if schema is False:
            return _false_schema_errors(instance, path, schema_path)
        return stock_descend(self, instance, schema, path, schema_path, resolver)

    cls.descend = descend
    return cls


_CLASSES = {name: _validator_class(d) for name, d in DIALECTS.items()}
# The keyword functions above, for the compiled fast path (schema_fast), by what they stand for.
_OWN_KEYWORDS = {_pattern: "pattern", _pattern_properties: "pattern_properties",
                 _additional_properties: "additional_properties"}
# Never fetch: only the schema itself and the bundled meta-schemas resolve.
_NO_FETCH = referencing.Registry()


def _meta_validator(dialect: Dialect):
    # The dialect's own format checks, except "regex", which would compile with Python's
    # `re`; the walk below checks every pattern as ECMAScript instead.
    checker = js_validators.validator_for(dialect.base.META_SCHEMA, default=dialect.base).FORMAT_CHECKER
    fc = type(checker)(formats=())
    fc.checkers = {k: v for k, v in checker.checkers.items() if k != "regex"}
    return dialect.base(dialect.base.META_SCHEMA, format_checker=fc)


_META_VALIDATORS = {name: _meta_validator(d) for name, d in DIALECTS.items()}


# --- Compiling a schema ----------------------------------------------------------------------


@dataclass(frozen=True)
class Compiled:
    dialect: Dialect
    validator: Any = None
    problem: Grade | None = None  # not_judged / error, when the schema cannot be used
    uses_format: bool = False
    fast: Any = None  # schema_fast.Fast: the compiled check, None where jsonschema runs every row


@dataclass
class _Walk:
    unsupported: list[tuple[str, str]]
    beside_ref: list[tuple[str, str]]
    refs: list[tuple[str, str, str, str]]  # keyword, value, base URI, location
    patterns: list[tuple[str, str]]  # pattern, location
    resources: set[str]
    uses_format: bool = False


def _walk(schema: Any, dialect: Dialect) -> _Walk:
    keywords = KEYWORDS[dialect.name]
    legacy_ref = dialect.name in ("draft-04", "draft-06", "draft-07")
    w = _Walk([], [], [], [], {""})
    stack: list[tuple[Any, tuple[str, ...], str]] = [(schema, (), "")]
    while stack:
        node, loc, base = stack.pop()
        if not isinstance(node, dict):
            continue
        ident = node.get(dialect.id_keyword)
        if isinstance(ident, str) and not ident.startswith("#"):
            base = urldefrag(urljoin(base, ident)).url
            w.resources.add(base)
        has_ref = legacy_ref and "$ref" in node
        for kw, value in node.items():
            here = (*loc, kw)
            if kw not in keywords:
                w.unsupported.append((kw, pointer(here)))
                continue
            if has_ref and kw not in _HARMLESS_BESIDE_REF:
                w.beside_ref.append((kw, pointer(here)))
            if kw in _REFS and isinstance(value, str):
                w.refs.append((kw, value, base, pointer(here)))
            elif kw == "pattern" and isinstance(value, str):
                w.patterns.append((value, pointer(here)))
            elif kw == "format":
                w.uses_format = True
            if kw == "patternProperties" and isinstance(value, dict):
                w.patterns.extend((p, pointer((*here, p))) for p in value)
            if isinstance(value, list) and kw in _SUBSCHEMA_ARRAY:
                stack.extend((v, (*here, str(i)), base) for i, v in enumerate(value))
            elif isinstance(value, (dict, bool)) and kw in _SUBSCHEMA:
                stack.append((value, here, base))
            elif isinstance(value, dict) and kw in _SUBSCHEMA_MAP:
                stack.extend((v, (*here, k), base) for k, v in value.items() if isinstance(v, (dict, bool)))
    w.unsupported.sort(key=lambda item: item[1])
    w.beside_ref.sort(key=lambda item: item[1])
    return w


def _listing(items: list[tuple[str, str]], limit: int = 5) -> str:
    shown = [f"{kw} (at {loc})" + (f" — {_HINTS[kw]}" if kw in _HINTS else "") for kw, loc in items[:limit]]
    more = f"; and {len(items) - limit} more" if len(items) > limit else ""
    return "; ".join(encodable(shorten(s, 200)) for s in shown) + more


@functools.lru_cache(maxsize=64)
def _signature(dialect: Dialect, steps: tuple[str, ...] = ()) -> str:
    return (
        f"json_schema|draft:{dialect.name}|pattern:ecmascript|format:annotation|refs:local"
        f"|pre_parse:{'+'.join(steps) or 'none'}|max_depth:{MAX_DEPTH}"
    )


def _show(s: str, limit: int = 80) -> str:
    return encodable(shorten(repr(s), limit))


def _compile_schema(schema: Any) -> Compiled:
    dialect = DEFAULT_DIALECT
    sig = {"signature": _signature(dialect)}
    if isinstance(schema, dict) and "$schema" in schema and isinstance(schema["$schema"], str):
        uri = schema["$schema"]
        found = _DIALECT_BY_URI.get(_dialect_key(uri))
        if found is None:
            known = _dialect_key(uri) == "json-schema.org/draft-03/schema"
            why = "Draft 3 is not supported" if known else "it is not a JSON Schema dialect this grader knows"
            return Compiled(dialect, problem=not_judged(
                f"The schema's $schema is {_show(uri)}: {why}. Supported: draft-04, draft-06, "
                "draft-07, 2019-09 and 2020-12 (the default when $schema is absent).",
                signature="json_schema|draft:unknown", schema_uri=encodable(uri),
            ))
        dialect = found
        sig = {"signature": _signature(dialect)}
        schema = {**schema, "$schema": dialect.uri}  # the canonical spelling, for `referencing`

    meta_error = js_exceptions.best_match(_META_VALIDATORS[dialect.name].iter_errors(schema))
    if meta_error is not None:
        where = pointer(meta_error.absolute_path)
        message = encodable(shorten_middle(meta_error.message, MESSAGE_LIMIT))
        return Compiled(dialect, problem=error(
            f"The schema is not a valid {dialect.label} schema: at {shown_pointer(where)}: {message}",
            **sig, schema_error={"location": where, "message": message},
        ))

    w = _walk(schema, dialect)
    if w.unsupported:
        return Compiled(dialect, problem=not_judged(
            f"The schema uses {'a keyword' if len(w.unsupported) == 1 else 'keywords'} outside the "
            f"supported {dialect.label} set, which would be silently ignored: {_listing(w.unsupported)}.",
            **sig, unsupported=[{"keyword": encodable(k), "location": loc} for k, loc in w.unsupported[:100]],
        ))
    if w.beside_ref:
        return Compiled(dialect, problem=not_judged(
            f"In {dialect.label}, keywords beside $ref are ignored: {_listing(w.beside_ref)}. Put the "
            '$ref and the other keywords in an "allOf", or use Draft 2019-09 or later.',
            **sig, unsupported=[{"keyword": k, "location": loc} for k, loc in w.beside_ref[:100]],
        ))

    for pattern, loc in w.patterns:
        problem = check_pattern(pattern, "")
        if problem is not None:
            return Compiled(dialect, problem=error(
                f"The schema's pattern at {loc} is refused: {encodable(shorten(problem, MESSAGE_LIMIT))}",
                **sig, schema_error={"location": loc, "message": encodable(problem)},
            ))

    validator = _CLASSES[dialect.name](schema, registry=_NO_FETCH)
    for kw, ref, base, loc in w.refs:
        target = urljoin(base, ref)
        document = urldefrag(target).url
        if document not in w.resources and document not in META_SCHEMAS:
            return Compiled(dialect, problem=not_judged(
                f"The schema's {kw} {_show(ref)} at {loc} points outside the schema; remote "
                "references are not fetched. Inline the referenced schema under $defs.",
                **sig, remote_ref=encodable(ref), location=loc,
            ))
        if kw == "$recursiveRef":
            continue
        try:
            validator._resolver.lookup(target)
        except referencing.exceptions.Unresolvable as e:
            return Compiled(dialect, problem=error(
                f"The schema's {kw} {_show(ref)} at {loc} points to nothing in the schema "
                f"({encodable(shorten(str(e), 200))}).",
                **sig, schema_error={"location": loc, "message": f"unresolvable {kw}"},
            ))
    fast = None if compile_fast is None else compile_fast(
        schema, validator, dialect.name, dialect.id_keyword, _OWN_KEYWORDS, MAX_LISTED)
    return Compiled(dialect, validator=validator, uses_format=w.uses_format, fast=fast)


@functools.lru_cache(maxsize=256)
def _compile_key(key: str) -> Compiled:
    try:
        return _compile_schema(json.loads(key))  # the cache's own copy: the caller may mutate theirs
    except RecursionError:
        return Compiled(DEFAULT_DIALECT, problem=error(
            "The schema nests too deeply to check.", signature=_signature(DEFAULT_DIALECT)
        ))


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)


def _compile_canonical(schema: Any) -> Compiled:
    try:
        key = _CANONICAL.encode(schema)
    except RecursionError:
        return Compiled(DEFAULT_DIALECT, problem=error(
            "The schema nests too deeply to check.", signature=_signature(DEFAULT_DIALECT)
        ))
    except (TypeError, ValueError) as e:
        return Compiled(DEFAULT_DIALECT, problem=error(
            f"The schema is not JSON: {e}", signature=_signature(DEFAULT_DIALECT)
        ))
    return _compile_key(key)


@functools.lru_cache(maxsize=256)
def _compile_marshalled(blob: bytes) -> Compiled:
    return _compile_canonical(marshal.loads(blob))


def compile_schema(schema: Any) -> Compiled:
    """The cached ``Compiled`` for a schema (a dict or bool), keyed by its canonical JSON.

    In front of that cache sits one keyed by ``marshal.dumps(schema)``: exact (it tells
    ``1`` from ``1.0`` and ``true``), several times cheaper than sorting keys into JSON, and
    a fresh snapshot on every call, so a schema mutated between calls is seen as new.
    """
    try:
        blob = marshal.dumps(schema)
    except (ValueError, RecursionError):
        return _compile_canonical(schema)
    return _compile_marshalled(blob)


# --- Grading ---------------------------------------------------------------------------------


def _violation(err: ValidationError) -> tuple[tuple, dict[str, str]]:
    path = tuple(err.absolute_path)
    message = err.message
    if err.validator in ("anyOf", "oneOf") and err.context:
        best = js_exceptions.best_match(err.context)
        if best is not None:
            message += f" (closest alternative: at {shown_pointer(pointer(best.absolute_path))}: {best.message})"
    keyword = "false" if err.validator is None else str(err.validator)
    v = {"path": pointer(path), "keyword": keyword, "message": encodable(shorten_middle(message, MESSAGE_LIMIT))}
    return (path_sort_key(path), keyword, v["message"]), v


def violations(compiled: Compiled, instance: Any) -> tuple[list[dict[str, str]], int]:
    """(the first ``MAX_LISTED`` violations, sorted; how many were counted, at most ``MAX_COUNTED``)."""
    found = []
    count = 0
    for err in compiled.validator.iter_errors(instance):
        count += 1
        if count <= MAX_LISTED:
            found.append(_violation(err))
        if count >= MAX_COUNTED:
            break
    found.sort(key=lambda kv: kv[0])
    return [v for _, v in found], count


def _too_deep(instance: Any, schema: Any) -> str:
    for what, value in (("output", instance), ("schema", schema)):
        if (levels := depth(value)) >= 100:  # counted without recursion
            return (f"Validation stopped: the {what} is nested {levels:,} levels deep, too deeply to validate: "
                    "jsonschema recurses at each level it checks or quotes in a message, past Python's recursion "
                    "limit (about 250 levels fit under a recursive $ref, about 990 in a message).")
    return ("Validation stopped: checking this output against the schema's recursive references "
            "nests deeper than Python's recursion limit allows (about 200 levels).")


def _evaluator_failed(e: Exception) -> str:
    why = encodable(shorten(f"{type(e).__name__}: {e}", 200))
    return f"Validation stopped: the schema evaluator (jsonschema) failed on this schema and output ({why})."


def stopped(e: BaseException, instance: Any, compiled: Compiled) -> str | None:
    """Why validating ``instance`` stopped with ``e`` (an error grade's explanation), or None
    for an exception that is not the evaluator's to report (re-raise it)."""
    if isinstance(e, _PatternProblem):
        return f"Validation stopped: {e}."
    if isinstance(e, (referencing.exceptions.Unresolvable, js_exceptions._RefResolutionError)):
        return f"Validation stopped: a $ref could not be resolved ({encodable(shorten(str(e), 200))})."
    if isinstance(e, RecursionError):
        return _too_deep(instance, compiled.validator.schema)
    if isinstance(e, Exception):  # the evaluator's own fault on an odd schema: an error row, not a crash
        return _evaluator_failed(e)
    # The Rust core of `referencing` panics (PanicException, not an Exception) where a
    # recursion limit trips inside it, as RecursionError does in Python.
    if type(e).__name__ == "PanicException":
        return _too_deep(instance, compiled.validator.schema)
    return None


_PATHS: dict[tuple, tuple[tuple, str]] = {}  # path -> (its sort key, its JSON Pointer): paths repeat across rows


def listed(errors: Sequence[tuple[tuple, str, str]]) -> tuple[list[dict[str, str]], int]:
    """``violations`` for the fast path's ``(path, keyword, message)`` triples (at most MAX_LISTED)."""
    if len(errors) == 1:  # most fails: nothing to sort
        (path, keyword, message), = errors
        got = _PATHS.get(path)
        where = got[1] if got is not None else pointer(path)
        return [{"path": where, "keyword": keyword, "message": encodable(shorten_middle(message, MESSAGE_LIMIT))}], 1
    found = []
    for path, keyword, message in errors:
        got = _PATHS.get(path)
        if got is None:
            if len(_PATHS) >= 10_000:
                _PATHS.clear()
            got = _PATHS[path] = (path_sort_key(path), pointer(path))
        shown = encodable(shorten_middle(message, MESSAGE_LIMIT))
        found.append(((got[0], keyword, shown), {"path": got[1], "keyword": keyword, "message": shown}))
    found.sort(key=lambda kv: kv[0])
    return [v for _, v in found], len(errors)


def details_of(compiled: Compiled, steps: tuple[str, ...]) -> dict[str, Any]:
    return {"signature": _signature(compiled.dialect, steps), "draft": compiled.dialect.name}


def passed_explanation(compiled: Compiled) -> str:
    note = " (format is an annotation here, not checked)" if compiled.uses_format else ""
    return f"The output is valid JSON and matches the schema ({compiled.dialect.label}){note}."


def failed_explanation(compiled: Compiled, found: list[dict[str, str]], count: int) -> str:
    shown = "; ".join(f"at {shown_pointer(v['path'])} ({v['keyword']}): {v['message']}" for v in found[:MAX_SHOWN])
    counted = f"{count:,}" if count < MAX_COUNTED else f"at least {MAX_COUNTED:,}"
    more = f"; … and {count - MAX_SHOWN:,} more" if count > MAX_SHOWN else ""
    noun = "violation" if count == 1 else "violations"
    return f"The output does not match the schema ({compiled.dialect.label}), {counted} {noun}: {shown}{more}."
