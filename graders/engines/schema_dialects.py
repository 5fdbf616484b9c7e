"""The JSON Schema dialects the grader runs (draft-04 to 2020-12) and the keywords it
supports in each: a keyword outside them makes the schema ``not_judged``, by name."""

from __future__ import annotations

from dataclasses import dataclass

from jsonschema import validators as js_validators

ANNOTATIONS = frozenset({
    "title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
    "writeOnly", "format", "contentMediaType", "contentEncoding", "contentSchema",
})


# Hold subschemas reached only through $ref; accepted in every dialect.
CONTAINERS = frozenset({"$defs", "definitions"})


_VALIDATION_DRAFT4 = frozenset({
    "type", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties",
    "minProperties", "required",
})


_APPLICATOR_DRAFT4 = frozenset({
    "items", "additionalItems", "properties", "patternProperties", "additionalProperties",
    "dependencies", "allOf", "anyOf", "oneOf", "not",
})


# Where subschemas sit (polymorphic keywords are resolved by the value's JSON type).
_SUBSCHEMA = frozenset({
    "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then",
    "else", "items", "unevaluatedItems", "unevaluatedProperties", "contentSchema",
})


_SUBSCHEMA_ARRAY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items", "additionalItems"})


_SUBSCHEMA_MAP = frozenset({
    "properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions",
})


_REFS = ("$ref", "$dynamicRef", "$recursiveRef")


# Drafts 4-7 ignore every keyword beside $ref; these are harmless to ignore.
_HARMLESS_BESIDE_REF = ANNOTATIONS | CONTAINERS | {"$ref", "$id", "id", "$schema"}


_HINTS = {
    "nullable": 'an OpenAPI keyword; write "type": [..., "null"] instead',
    "discriminator": "an OpenAPI keyword",
    "example": 'JSON Schema spells it "examples", an array',
    "dependencies": "Draft 2019-09 and later split it into dependentRequired and dependentSchemas",
    "additionalItems": "Draft 2020-12 uses items together with prefixItems",
    "$recursiveRef": "Draft 2020-12 uses $dynamicRef",
    "$recursiveAnchor": "Draft 2020-12 uses $dynamicAnchor",
    "$dynamicRef": "only Draft 2020-12 has it",
    "prefixItems": "only Draft 2020-12 has it; earlier drafts use an array in items",
}


@dataclass(frozen=True)
class Dialect:
    name: str
    uri: str
    base: type
    id_keyword: str

    @property
    def label(self) -> str:
        return f"Draft {self.name.removeprefix('draft-').lstrip('0')}"


def _dialects() -> dict[str, Dialect]:
    out = {}
    for name, uri in [
        ("draft-04", "http://json-schema.org/draft-04/schema#"),
        ("draft-06", "http://json-schema.org/draft-06/schema#"),
        ("draft-07", "http://json-schema.org/draft-07/schema#"),
        ("2019-09", "https://json-schema.org/draft/2019-09/schema"),
        ("2020-12", "https://json-schema.org/draft/2020-12/schema"),
    ]:
        base = js_validators.validator_for({"$schema": uri}, default=js_validators.Draft202012Validator)
        out[name] = Dialect(name, uri, base, "id" if name == "draft-04" else "$id")
    return out


DIALECTS = _dialects()


DEFAULT_DIALECT = DIALECTS["2020-12"]


def _dialect_key(uri: str) -> str:
    u = uri.strip()
    u = u[:-1] if u.endswith("#") else u
    return u.removeprefix("https://").removeprefix("http://")


_DIALECT_BY_URI = {_dialect_key(d.uri): d for d in DIALECTS.values()}


KEYWORDS: dict[str, frozenset[str]] = {
    "draft-04": _VALIDATION_DRAFT4 | _APPLICATOR_DRAFT4 | CONTAINERS
    | {"id", "$schema", "$ref", "title", "description", "default", "format"},
    "draft-06": _VALIDATION_DRAFT4 | _APPLICATOR_DRAFT4 | CONTAINERS
    | {"const", "contains", "propertyNames"}
    | {"$id", "$schema", "$ref", "title", "description", "default", "examples", "format"},
    "draft-07": _VALIDATION_DRAFT4 | _APPLICATOR_DRAFT4 | CONTAINERS
    | {"const", "contains", "propertyNames", "if", "then", "else"}
    | {"$id", "$schema", "$ref", "$comment", "title", "description", "default", "examples",
       "readOnly", "writeOnly", "format", "contentMediaType", "contentEncoding"},
    # Core, applicator, validation, meta-data, format-annotation and content vocabularies.
    "2019-09": (_VALIDATION_DRAFT4 - {"dependencies"}) | CONTAINERS | ANNOTATIONS
    | {"$schema", "$id", "$anchor", "$recursiveAnchor", "$ref", "$recursiveRef", "$vocabulary"}
    | {"items", "additionalItems", "unevaluatedItems", "contains", "properties",
       "patternProperties", "additionalProperties", "unevaluatedProperties",
       "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf",
       "not", "const", "maxContains", "minContains", "dependentRequired"},
    "2020-12": _VALIDATION_DRAFT4 | CONTAINERS | ANNOTATIONS
    | {"$schema", "$id", "$anchor", "$dynamicAnchor", "$ref", "$dynamicRef", "$vocabulary"}
    | {"prefixItems", "items", "unevaluatedItems", "contains", "properties",
       "patternProperties", "additionalProperties", "unevaluatedProperties",
       "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf",
       "not", "const", "maxContains", "minContains", "dependentRequired"},
}
