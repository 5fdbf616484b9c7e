"""The fast path's array keywords (``schema_fast.Compiler`` inherits them): ``items``,
``prefixItems``, ``additionalItems``, ``contains``, each in its dialect's form, compiled to
``(valid, errors[, collect])`` as ``schema_fast`` describes."""

from __future__ import annotations

from jsonschema import _legacy_keywords as L

from graders.engines.schema_fast_scalars import Unsupported


class Arrays:
    """Keyword compilers for arrays; ``self.node`` compiles a subschema."""

    def _each(self, n, start: int):
        def valid(x):
            if isinstance(x, list):
                check = n.valid
                for i in range(start, len(x)):
                    if not check(x[i]):
                        return False
            return True

        def errors(x, path, out):
            if isinstance(x, list):
                for i in range(start, len(x)):
                    v = x[i]
                    if not n.valid(v):
                        n.fail(v, (*path, i), out)

        c = n.collect

        def collect(x, want):
            if isinstance(x, list):
                for i in range(start, len(x)):
                    c(x[i], want)

        return valid, errors, (collect if c is not None else None)

    def _zip(self, subs: list):
        nodes = [self.node(s) for s in subs]

        def valid(x):
            if isinstance(x, list):
                for n, item in zip(nodes, x):
                    if not n.valid(item):
                        return False
            return True

        def errors(x, path, out):
            if isinstance(x, list):
                for i, (n, item) in enumerate(zip(nodes, x)):
                    n.errors(item, (*path, i), out)

        def collect(x, want):
            if isinstance(x, list):
                for n, item in zip(nodes, x):
                    if n.collect is not None:
                        n.collect(item, want)

        return valid, errors, (collect if any(n.collect for n in nodes) else None)

    def _items(self, kw, value, schema, fn):  # 2020-12: after prefixItems
        prefix = len(schema.get("prefixItems", []))
        if value is True:
            return None
        if value is False:
            return self._words(kw, value, schema, fn, lambda x: not isinstance(x, list) or len(x) <= prefix)
        return self._each(self.node(value), prefix)

    def _prefix_items(self, kw, value, schema, fn):
        return self._zip(value)

    def _items_legacy(self, kw, value, schema, fn):
        if isinstance(value, list):
            return self._zip(value)
        if fn is L.items_draft3_draft4 and not isinstance(value, dict):
            raise Unsupported("draft-04 items neither an object nor an array")
        return self._each(self.node(value), 0)

    def _additional_items(self, kw, value, schema, fn):
        items = schema.get("items", {})
        if isinstance(items, dict) or value is True:
            return None
        if not isinstance(items, list):
            raise Unsupported("additionalItems beside items that is neither a schema nor an array")
        if isinstance(value, dict):
            return self._each(self.node(value), len(items))
        if value is not False:
            raise Unsupported("additionalItems neither a schema nor a boolean")
        return self._words(kw, value, schema, fn, lambda x: not isinstance(x, list) or len(x) <= len(items))

    def _contains(self, kw, value, schema, fn):  # 2019-09, 2020-12: with minContains, maxContains
        check = self.node(value).valid
        low = schema.get("minContains", 1)
        high = schema.get("maxContains")

        def valid(x):
            if not isinstance(x, list):
                return True
            most = len(x) if high is None else high
            matches = 0
            for each in x:
                if check(each):
                    matches += 1
                    if matches > most:
                        return False
            return matches >= low

        return self._words(kw, value, schema, fn, valid)

    def _contains_legacy(self, kw, value, schema, fn):
        check = self.node(value).valid
        return self._words(kw, value, schema, fn, lambda x: not isinstance(x, list) or any(map(check, x)))

