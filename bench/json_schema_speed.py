"""Speed of json_schema against a per-row ``jsonschema.validate``, on the same outputs.

    python bench/json_schema_speed.py [N]      # N generated outputs, default 20,000

``bench_json_schema(rows, schema)`` takes a list of output strings and a schema and returns
(our_seconds, reference_seconds). Ours is timed as the batch layer calls a grader:
``registry.run`` with parameters resolved once (validator cache emptied first, so its one
build is counted; near-miss probe included). The reference parses each row with
``json.loads`` and calls ``jsonschema.validate(instance, schema)`` (which checks the schema
and builds a validator every call). Both must agree on pass/fail for every row; the
generated schemas use only patterns Python's ``re`` and ECMAScript read alike.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jsonschema  # noqa: E402

from graders.metrics import json_schema  # noqa: E402
from graders.registry import REGISTRY, resolve_params, run  # noqa: E402

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "status": {"enum": ["active", "inactive", "pending"]},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            "required": ["city"],
        },
    },
    "required": ["name", "age", "status"],
    "additionalProperties": False,
}
SCHEMA_WITH_PATTERN = {
    **SCHEMA,
    "properties": {
        **SCHEMA["properties"],
        "email": {"type": "string", "pattern": "^[a-z0-9.]+@[a-z0-9]+\\.[a-z]{2,}$"},
    },
}

NAMES = ("Maria", "José", "Li Wei", "Ana", "Tomás", "", "Ola", "Zoë")
CITIES = ("Paris", "São Paulo", "東京", "Canberra", "Zürich")


def rows(n: int, seed: int = 0) -> list[str]:
    """``n`` realistic model outputs: mostly valid objects, some typed wrong, some not JSON."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        obj: dict = {
            "name": rng.choice(NAMES),
            "age": rng.choice([34, 7, 150, -1, "34", 41.0, 200]),
            "status": rng.choice(["active", "inactive", "pending", "Active"]),
        }
        if rng.random() < 0.6:
            obj["tags"] = rng.sample(["a", "b", "c", "d", 1], rng.randint(0, 3))
        if rng.random() < 0.5:
            obj["address"] = {"city": rng.choice(CITIES), "zip": f"{rng.randint(0, 99999):05d}"}
            if rng.random() < 0.1:
                del obj["address"]["city"]
        if rng.random() < 0.4:
            obj["email"] = rng.choice([f"user{i}@example.com", "bad@", f"x.{i}@mail.org", "Upper@x.io"])
        if rng.random() < 0.05:
            obj["extra"] = True
        if rng.random() < 0.1:
            del obj["status"]
        text = json.dumps(obj, ensure_ascii=rng.random() < 0.5)
        r = rng.random()
        if r < 0.03:
            text = text[:-1]  # truncated: not JSON
        elif r < 0.06:
            text = f"```json\n{text}\n```"
        out.append(text)
    return out


def _ours(outputs: list[str], schema) -> list[bool]:
    spec = REGISTRY["json_schema"]
    params = resolve_params("json_schema", {"schema": schema})
    return [run(spec, ("",), o, params).passed for o in outputs]


def _reference(outputs: list[str], schema) -> list[bool]:
    passed = []
    for o in outputs:
        try:
            jsonschema.validate(json.loads(o), schema)
        except (ValueError, jsonschema.ValidationError):  # json.JSONDecodeError is a ValueError
            passed.append(False)
        else:
            passed.append(True)
    return passed


def bench_json_schema(rows: list[str], schema) -> tuple[float, float]:
    """(our_seconds, reference_seconds) for json_schema over ``rows`` (output strings)."""
    json_schema._compile_key.cache_clear()
    json_schema._compile_marshalled.cache_clear()
    json_schema._cached_search.cache_clear()
    start = time.perf_counter()
    ours = _ours(rows, schema)
    mid = time.perf_counter()
    ref = _reference(rows, schema)
    end = time.perf_counter()
    disagree = [i for i, (a, b) in enumerate(zip(ours, ref)) if a != b]
    if disagree:
        first = disagree[0]
        raise AssertionError(f"{len(disagree)} rows disagree with jsonschema.validate, e.g. row {first}: {rows[first]!r}")
    return mid - start, end - mid


def main(argv: list[str]) -> None:
    n = int(argv[1]) if len(argv) > 1 else 20_000
    outputs = rows(n)
    print(f"json_schema on {n:,} outputs (same verdicts as jsonschema.validate)")
    print(f"{'schema':<22}{'ours rows/s':>14}{'reference rows/s':>19}{'ratio':>8}")
    for label, schema in (("objects", SCHEMA), ("objects + pattern", SCHEMA_WITH_PATTERN)):
        ours, ref = bench_json_schema(outputs, schema)
        print(f"{label:<22}{n / ours:>14,.0f}{n / ref:>19,.0f}{ref / ours:>7.1f}x")


if __name__ == "__main__":
    main(sys.argv)
