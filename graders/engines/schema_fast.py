"""The json_schema grader's fast path: a schema compiled once into Python closures that
decide validity, and on a fail list the violations, exactly as jsonschema's validator
for the dialect would (the same keywords, type checks, equality and messages).

jsonschema walks the schema on every row (a generator per keyword, an error object per
failure, a resolver per subschema); a compiled check is a few function calls per keyword.
Each keyword is matched by the jsonschema function the dialect's validator class runs for
it (``VALIDATORS[keyword]``), so a keyword whose function is not one handled here makes
the whole schema ``Unsupported``, and the grader runs jsonschema itself. A row's
violations are listed only when it fails, and only under the subschemas that fail; their
words are jsonschema's (written out for the common keywords, ``schema_fast_scalars``, and
held to jsonschema's by tests/metrics/test_json_schema_fast.py; jsonschema's own keyword
function for the rare ones). The keywords come in three files: this one (the compiler,
objects, applicators, ``$ref``), ``schema_fast_scalars`` (values) and
``schema_fast_arrays``.

Outside the fast path (jsonschema runs the row instead, with the same result as before):
``$dynamicRef``, ``$recursiveRef``, ``unevaluatedItems``/``Properties``, anchors, an
embedded ``$id``, a ``$ref`` that is not a JSON Pointer into the schema; at run time
(``Delegate``) a row whose violations include ``anyOf``/``oneOf`` (their messages name the
closest alternative), more than ``limit`` violations, or anything that raises. Outputs
nested deeper than ``MAX_NESTING`` are left to jsonschema by the caller, so that its
recursion limit says the same thing it always said.
"""

from __future__ import annotations

from typing import Any, Callable
from urllib.parse import unquote

from jsonschema import _keywords as K
from jsonschema import _legacy_keywords as L

from graders.engines.schema_fast_arrays import Arrays
from graders.engines.schema_fast_scalars import Scalars, Unsupported, is_number
from graders.engines.schema_patterns import search

MAX_NESTING = 32  # outputs nested deeper than this are validated by jsonschema itself

Error = tuple[tuple, str, str]  # (path, keyword, message)


class Delegate(Exception):
    """This row's violations are to be listed by jsonschema itself."""


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool) or isinstance(x, float) and x.is_integer()


def _is_int4(x):
    return isinstance(x, int) and not isinstance(x, bool)


_TYPES = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": is_number,
    "integer": _is_int,
}
_TYPES4 = {**_TYPES, "integer": _is_int4}


class _Node:
    """A compiled subschema: ``valid(x)``, ``errors(x, path, out)``, and ``collect(x, want)``
    (None where no pattern is beneath): ``want(pattern, string)`` for each pattern pair that
    validating ``x`` runs whatever the other results, so that a run can match them in one
    batch before validating (patterns under anyOf, oneOf, then, else, contains, $ref or
    a patternProperties value are left to the rounds, ``schema_patterns.settle``)."""

    __slots__ = ("valid", "errors", "collect", "parts", "fail")  # fail: errors(), known invalid


def _all(checks: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda x: a(x) and b(x)
    if len(checks) == 3:
        a, b, c = checks
        return lambda x: a(x) and b(x) and c(x)
    if len(checks) == 4:
        a, b, c, d = checks
        return lambda x: a(x) and b(x) and c(x) and d(x)

    def valid(x):
        for c in checks:
            if not c(x):
                return False
        return True

    return valid


def _errors_all(valid: Callable[[Any], bool],
                parts: list[Callable[[Any, tuple, list], None]]) -> Callable[[Any, tuple, list], None]:
    """A subschema's violations: none where it is valid (the check is cheaper than the walk),
    else each keyword's."""
    if not parts:
        return lambda x, path, out: None

    def errors(x, path, out):
        if not valid(x):
            for p in parts:
                p(x, path, out)

    return errors


def _run_all(parts: list[Callable[[Any, tuple, list], None]]) -> Callable[[Any, tuple, list], None]:
    if len(parts) == 1:
        return parts[0]

    def fail(x, path, out):
        for p in parts:
            p(x, path, out)

    return fail


def _collect_all(collects: list) -> Callable[[Any, Callable], None] | None:
    if not collects:
        return None
    if len(collects) == 1:
        return collects[0]

    def collect(x, want):
        for c in collects:
            c(x, want)

    return collect


def _false_errors(x, path, out):
    out.append((path, "false", f"False schema does not allow {x!r}"))


_ANCHORS = ("$anchor", "$dynamicAnchor", "$recursiveAnchor", "$dynamicRef", "$recursiveRef")


def _check_resources(schema: Any, id_keyword: str) -> None:
    """Unsupported where a $ref could resolve other than as a JSON Pointer into this
    document: an embedded $id (anywhere but the root), an anchor, a dynamic reference. A
    property *named* like one of them is refused too: simple, and on the safe side."""
    stack = [(schema, True)]
    while stack:
        node, root = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if k in _ANCHORS or (k == id_keyword and not root and isinstance(v, str)):
                    raise Unsupported(k)
                if isinstance(v, (dict, list)):
                    stack.append((v, False))
        elif isinstance(node, list):
            stack.extend((v, False) for v in node if isinstance(v, (dict, list)))


class Compiler(Scalars, Arrays):
    """Compiles one schema of one dialect; ``validator`` is the dialect's jsonschema
    validator for the schema (its keyword functions give the messages)."""

    def __init__(self, schema: Any, validator: Any, dialect_name: str, id_keyword: str):
        self.root = schema
        self.v = validator
        self.fns = type(validator).VALIDATORS
        self.legacy_ref = dialect_name in ("draft-04", "draft-06", "draft-07")
        self.types = _TYPES4 if dialect_name == "draft-04" else _TYPES
        self.refs: dict[str, _Node] = {}
        if validator.format_checker is not None:
            raise Unsupported("format assertion")
        _check_resources(schema, id_keyword)
        self.handlers = {
            K.type: self._type, K.required: self._required, K.properties: self._properties,
            K.enum: self._enum, K.const: self._const, K.allOf: self._all_of, K.anyOf: self._any_of,
            K.oneOf: self._one_of, K.not_: self._not, K.if_: self._if, K.ref: self._ref,
            K.items: self._items, K.prefixItems: self._prefix_items,
            L.items_draft6_draft7_draft201909: self._items_legacy, L.items_draft3_draft4: self._items_legacy,
            L.additionalItems: self._additional_items, K.contains: self._contains,
            L.contains_draft6_draft7: self._contains_legacy, K.dependentSchemas: self._dependent_schemas,
            L.dependencies_draft4_draft6_draft7: self._dependencies, K.propertyNames: self._property_names,
            K.minimum: self._compare, K.maximum: self._compare, K.exclusiveMinimum: self._compare,
            K.exclusiveMaximum: self._compare, L.minimum_draft3_draft4: self._compare,
            L.maximum_draft3_draft4: self._compare,
            K.minLength: self._size, K.maxLength: self._size, K.minItems: self._size, K.maxItems: self._size,
            K.minProperties: self._size, K.maxProperties: self._size,
            K.multipleOf: self._leaf, K.uniqueItems: self._unique, K.dependentRequired: self._leaf,
            K.format: self._nothing,
        }

    def extend(self, handlers: dict[Callable, str]) -> None:
        """The grader's own keyword functions (ECMAScript patterns), by the name they stand for."""
        for fn, name in handlers.items():
            self.handlers[fn] = getattr(self, "_" + name)

    def compile(self) -> _Node:
        return self.node(self.root)

    def node(self, schema: Any) -> _Node:
        n = _Node()
        n.collect, n.parts = None, []
        if schema is True:
            n.valid, n.errors = (lambda x: True), (lambda x, path, out: None)
            n.fail = n.errors
            return n
        if schema is False:
            n.valid, n.errors = (lambda x: False), _false_errors
            n.fail = _false_errors
            return n
        if not isinstance(schema, dict):
            raise Unsupported("a schema that is not an object or a boolean")
        items = [("$ref", schema["$ref"])] if self.legacy_ref and schema.get("$ref") is not None else schema.items()
        checks, errs, collects = [], [], []
        for kw, value in items:
            fn = self.fns.get(kw)
            if fn is None:
                continue  # not a keyword of this dialect's validator: jsonschema ignores it too
            handler = self.handlers.get(fn)
            if handler is None:
                raise Unsupported(kw)
            got = handler(kw, value, schema, fn)
            if got is not None:
                checks.append(got[0])
                errs.append(got[1])
                if len(got) > 2 and got[2] is not None:
                    collects.append(got[2])
        n.valid, n.parts = _all(checks), errs
        n.errors = _errors_all(n.valid, errs)
        n.fail = _run_all(errs)
        n.collect = _collect_all(collects)
        return n

    # --- keywords: each returns (valid, errors) or None when it never fails -------------------

    def _properties(self, kw, value, schema, fn):
        props = [(name, self.node(sub)) for name, sub in value.items()]
        pairs = [(name, n.valid) for name, n in props]

        def valid(x):
            if isinstance(x, dict):
                for name, check in pairs:
                    if name in x and not check(x[name]):
                        return False
            return True

        def errors(x, path, out):
            if isinstance(x, dict):
                for name, n in props:
                    if name in x:
                        v = x[name]
                        if not n.valid(v):
                            n.fail(v, (*path, name), out)

        reach = [(name, n.collect) for name, n in props if n.collect is not None]

        def collect(x, want):
            if isinstance(x, dict):
                for name, c in reach:
                    if name in x:
                        c(x[name], want)

        return valid, errors, (collect if reach else None)

    def _pattern_properties(self, kw, value, schema, fn):
        pats = [(p, self.node(sub)) for p, sub in value.items()]

        def valid(x):
            if isinstance(x, dict):
                for p, n in pats:
                    for k, v in x.items():
                        if search(p, k) and not n.valid(v):
                            return False
            return True

        def errors(x, path, out):
            if isinstance(x, dict):
                for p, n in pats:
                    for k, v in x.items():
                        if search(p, k):
                            n.errors(v, (*path, k), out)

        def collect(x, want):  # every key meets every pattern; the values, only where it matches
            if isinstance(x, dict):
                for p, _ in pats:
                    for k in x:
                        want(p, k)

        return valid, errors, collect

    def _additional_properties(self, kw, value, schema, fn):
        if value is True:
            return None
        properties = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        if not isinstance(properties, dict):
            raise Unsupported("properties that is not an object")

        def extra(k):
            if k in properties:
                return False
            for p in patterns:
                if search(p, k):
                    return False
            return True

        if isinstance(value, dict):
            n = self.node(value)

            def valid(x):
                if isinstance(x, dict):
                    for k, v in x.items():
                        if extra(k) and not n.valid(v):
                            return False
                return True

            def errors(x, path, out):
                if isinstance(x, dict):
                    for k in {k for k in x if extra(k)}:
                        n.errors(x[k], (*path, k), out)

            return valid, errors
        if value is not False:
            raise Unsupported("additionalProperties neither a schema nor a boolean")

        if not patterns:  # the extras are a set difference
            names = frozenset(properties)

            def valid(x):
                return not isinstance(x, dict) or x.keys() <= names

            def errors(x, path, out):
                if isinstance(x, dict) and not x.keys() <= names:
                    out.append((path, kw, _extras_message(x.keys() - names, schema)))

            return valid, errors

        def valid(x):
            if isinstance(x, dict):
                for k in x:
                    if extra(k):
                        return False
            return True

        def errors(x, path, out):
            if isinstance(x, dict):
                extras = {k for k in x if extra(k)}
                if extras:
                    out.append((path, kw, _extras_message(extras, schema)))

        return valid, errors

    def _all_of(self, kw, value, schema, fn):
        nodes = [self.node(s) for s in value]
        checks = [n.valid for n in nodes]

        def errors(x, path, out):
            for n in nodes:
                n.errors(x, path, out)

        return _all(checks), errors, _collect_all([n.collect for n in nodes if n.collect is not None])

    def _any_of(self, kw, value, schema, fn):
        checks = [self.node(s).valid for s in value]

        def valid(x):
            for c in checks:
                if c(x):
                    return True
            return False

        return valid, _delegate_on_fail(valid)

    def _one_of(self, kw, value, schema, fn):
        checks = [self.node(s).valid for s in value]

        def valid(x):
            found = 0
            for c in checks:
                if c(x):
                    found += 1
                    if found > 1:
                        return False
            return found == 1

        return valid, _delegate_on_fail(valid)

    def _not(self, kw, value, schema, fn):
        check = self.node(value).valid
        return self._words(kw, value, schema, fn, lambda x: not check(x))

    def _if(self, kw, value, schema, fn):
        cond = self.node(value)
        then = self.node(schema["then"]) if "then" in schema else None
        else_ = self.node(schema["else"]) if "else" in schema else None

        def valid(x):
            if cond.valid(x):
                return then is None or then.valid(x)
            return else_ is None or else_.valid(x)

        def errors(x, path, out):
            branch = then if cond.valid(x) else else_
            if branch is not None:
                branch.errors(x, path, out)

        return valid, errors

    def _ref(self, kw, value, schema, fn):
        if not isinstance(value, str) or "%" in value or not (value == "#" or value.startswith("#/")):
            raise Unsupported("$ref other than a plain JSON Pointer into the schema")
        n = self.refs.get(value)
        if n is None:
            n = self.refs[value] = _Node()
            target = self._resolve(value)
            compiled = self.node(target)
            n.valid, n.errors, n.fail = compiled.valid, compiled.errors, compiled.fail
        return (lambda x: n.valid(x)), (lambda x, path, out: n.errors(x, path, out))

    def _resolve(self, ref: str) -> Any:
        node = self.root
        for part in ref[2:].split("/") if ref != "#" else ():
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and str(int(part)) == part and int(part) < len(node):
                node = node[int(part)]
            else:
                raise Unsupported(f"$ref {ref!r} not found by its JSON Pointer")
        return node

    def _dependent_schemas(self, kw, value, schema, fn):
        deps = [(name, self.node(sub)) for name, sub in value.items()]

        def valid(x):
            if isinstance(x, dict):
                for name, n in deps:
                    if name in x and not n.valid(x):
                        return False
            return True

        def errors(x, path, out):
            if isinstance(x, dict):
                for name, n in deps:
                    if name in x:
                        n.errors(x, path, out)

        reach = [(name, n.collect) for name, n in deps if n.collect is not None]

        def collect(x, want):
            if isinstance(x, dict):
                for name, c in reach:
                    if name in x:
                        c(x, want)

        return valid, errors, (collect if reach else None)

    def _dependencies(self, kw, value, schema, fn):
        deps = [(name, list(d) if isinstance(d, list) else self.node(d)) for name, d in value.items()]

        def valid(x):
            if isinstance(x, dict):
                for name, d in deps:
                    if name in x:
                        if isinstance(d, list):
                            if any(each not in x for each in d):
                                return False
                        elif not d.valid(x):
                            return False
            return True

        def errors(x, path, out):
            if isinstance(x, dict):
                for name, d in deps:
                    if name not in x:
                        continue
                    if isinstance(d, list):
                        out.extend((path, kw, f"{each!r} is a dependency of {name!r}") for each in d if each not in x)
                    else:
                        d.errors(x, path, out)

        return valid, errors

    def _property_names(self, kw, value, schema, fn):
        n = self.node(value)

        def valid(x):
            if isinstance(x, dict):
                for k in x:
                    if not n.valid(k):
                        return False
            return True

        def errors(x, path, out):
            if isinstance(x, dict):
                for k in x:
                    n.errors(k, path, out)

        c = n.collect

        def collect(x, want):
            if isinstance(x, dict):
                for k in x:
                    c(k, want)

        return valid, errors, (collect if c is not None else None)


def _delegate_on_fail(valid):
    def errors(x, path, out):
        if not valid(x):
            raise Delegate

    return errors


def _extras_message(extras: set, schema: dict) -> str:
    """additionalProperties: false, worded as the grader's keyword (``schema.py``) words it."""
    if "patternProperties" in schema:
        verb = "does" if len(extras) == 1 else "do"
        joined = ", ".join(repr(each) for each in sorted(extras))
        patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
        return f"{joined} {verb} not match any of the regexes: {patterns}"
    ordered = sorted(extras, key=str)
    return "Additional properties are not allowed (%s %s unexpected)" % (
        ", ".join(repr(extra) for extra in ordered), "was" if len(ordered) == 1 else "were")


class Fast:
    """A compiled schema: ``valid(instance)``; ``errors(instance)``, the violations as
    ``(path, keyword, message)`` (``Delegate`` where jsonschema is to list them)."""

    def __init__(self, root: _Node, limit: int):
        self.valid = root.valid
        self._errors = root.fail  # the root is known to fail: its keywords straight away
        self.collect = root.collect  # None where the schema has no pattern reached unconditionally
        self.limit = limit

    def errors(self, instance: Any) -> list[Error]:
        out: list[Error] = []
        self._errors(instance, (), out)
        if not out or len(out) > self.limit:
            raise Delegate  # no violation found where valid() said fail, or too many to order as jsonschema does
        return out


def compile_fast(schema: Any, validator: Any, dialect_name: str, id_keyword: str,
                 own: dict[Callable, str], limit: int) -> Fast | None:
    """The fast check for ``schema``, or None where it uses what the fast path does not
    compile (jsonschema then runs every row). ``own``: the grader's keyword functions
    (``_pattern`` → ``"pattern"``, …)."""
    try:
        c = Compiler(schema, validator, dialect_name, id_keyword)
        c.extend(own)
        return Fast(c.compile(), limit)
    except (Unsupported, RecursionError, TypeError, ValueError, KeyError, AttributeError):
        return None
