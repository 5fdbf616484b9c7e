"""The fast path's keywords that do not descend (``schema_fast.Compiler`` inherits them):
each compiles to ``(valid, errors)``, the check inline and the violation worded as
jsonschema words it (the differential test holds the words to jsonschema's), or by
jsonschema's own keyword function where a keyword is rare (``_leaf``)."""

from __future__ import annotations

import operator

from jsonschema import _legacy_keywords as L
from jsonschema._utils import equal, uniq  # private, as `_resolver`: pinned below jsonschema 5, tested

from graders.engines.schema_patterns import search


class Unsupported(Exception):
    """The schema uses something the fast path does not compile."""


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


class Scalars:
    """Keyword compilers for values, not subschemas; ``self.v`` is the dialect's validator,
    ``self.types`` its type checks by name."""

    def _leaf(self, kw, value, schema, fn):
        """A keyword that does not descend: jsonschema's own function decides and words it."""
        v = self.v

        def valid(x):
            for _ in fn(v, value, x, schema) or ():
                return False
            return True

        def errors(x, path, out):
            for e in fn(v, value, x, schema) or ():
                out.append((path, e.validator if isinstance(e.validator, str) else kw, e.message))

        return valid, errors

    def _nothing(self, kw, value, schema, fn):
        return None

    def _words(self, kw, value, schema, fn, valid):
        """``valid`` inline; the messages from jsonschema's function, called only on a fail."""
        v = self.v

        def errors(x, path, out):
            if not valid(x):
                for e in fn(v, value, x, schema) or ():
                    out.append((path, e.validator if isinstance(e.validator, str) else kw, e.message))

        return valid, errors

    def _said(self, kw, valid, message):
        """``valid`` inline; on a fail, one violation worded by ``message(x)``: jsonschema's
        words for the keyword, which the differential test holds to its own."""
        def errors(x, path, out):
            if not valid(x):
                out.append((path, kw, message(x)))

        return valid, errors

    def _type(self, kw, value, schema, fn):
        types = value if isinstance(value, list) else [value]
        preds = [self.types[t] for t in types]
        if len(preds) == 1:
            valid = preds[0]
        else:
            def valid(x):
                return any(p(x) for p in preds)
        reprs = ", ".join(repr(t) for t in types)
        return self._said(kw, valid, lambda x: f"{x!r} is not of type {reprs}")

    def _required(self, kw, value, schema, fn):
        names = list(value)

        def valid(x):
            if isinstance(x, dict):
                for k in names:
                    if k not in x:
                        return False
            return True

        def errors(x, path, out):
            if isinstance(x, dict):
                out.extend((path, kw, f"{k!r} is a required property") for k in names if k not in x)

        return valid, errors

    def _enum(self, kw, value, schema, fn):
        if all(isinstance(e, str) for e in value):
            strings = frozenset(value)

            def valid(x):
                return isinstance(x, str) and x in strings
        else:
            def valid(x):
                return any(equal(e, x) for e in value)
        shown = repr(value)
        return self._said(kw, valid, lambda x: f"{x!r} is not one of {shown}")

    def _const(self, kw, value, schema, fn):
        shown = f"{value!r} was expected"
        return self._said(kw, lambda x: equal(x, value), lambda x: shown)

    def _unique(self, kw, value, schema, fn):
        if not value:
            return None

        def valid(x):
            if not isinstance(x, list):
                return True
            if all(type(e) is str for e in x):
                return len(set(x)) == len(x)
            return uniq(x)

        return self._said(kw, valid, lambda x: f"{x!r} has non-unique elements")

    _COMPARE = {
        "minimum": (operator.ge, "is less than the minimum of"),
        "maximum": (operator.le, "is greater than the maximum of"),
        "exclusiveMinimum": (operator.gt, "is less than or equal to the minimum of"),
        "exclusiveMaximum": (operator.lt, "is greater than or equal to the maximum of"),
    }

    def _compare(self, kw, value, schema, fn):
        if fn in (L.minimum_draft3_draft4, L.maximum_draft3_draft4):  # draft-04: a boolean exclusive* beside
            if schema.get("exclusiveMinimum" if kw == "minimum" else "exclusiveMaximum", False):
                kw_as = "exclusiveMinimum" if kw == "minimum" else "exclusiveMaximum"
            else:
                kw_as = kw
        else:
            kw_as = kw
        ok, words = self._COMPARE[kw_as]

        def valid(x):
            t = type(x)
            if t is int or t is float:
                return ok(x, value)
            return not is_number(x) or ok(x, value)

        return self._said(kw, valid, lambda x: f"{x!r} {words} {value!r}")

    _SIZE_WORDS = {  # (the word at 1 for min / 0 for max, otherwise)
        "minLength": ("should be non-empty", "is too short"), "maxLength": ("is expected to be empty", "is too long"),
        "minItems": ("should be non-empty", "is too short"), "maxItems": ("is expected to be empty", "is too long"),
        "minProperties": ("should be non-empty", "does not have enough properties"),
        "maxProperties": ("is expected to be empty", "has too many properties"),
    }

    def _size(self, kw, value, schema, fn):
        kind = {"Length": str, "Items": list, "Properties": dict}[kw[3:]]
        edge, other = self._SIZE_WORDS[kw]
        if kw.startswith("min"):
            words = edge if value == 1 else other

            def valid(x):
                return not isinstance(x, kind) or len(x) >= value
        else:
            words = edge if value == 0 else other

            def valid(x):
                return not isinstance(x, kind) or len(x) <= value
        return self._said(kw, valid, lambda x: f"{x!r} {words}")

    def _pattern(self, kw, value, schema, fn):
        def valid(x):
            return not isinstance(x, str) or search(value, x)

        def errors(x, path, out):
            if not valid(x):
                out.append((path, kw, f"{x!r} does not match {value!r}"))

        def collect(x, want):
            if isinstance(x, str):
                want(value, x)

        return valid, errors, collect

