"""Speed of json_schema against a prebuilt jsonschema validator, on the same outputs.

    python bench/json_schema_speed.py [N]      # N generated outputs, default 20,000

The baseline is the strongest reasonable one: ``validator = Draft202012Validator(schema)``
built once, then per row ``json.loads`` and ``validator.is_valid(instance)`` (a bare
verdict, stopping at the first error); a second baseline lists every error
(``list(validator.iter_errors(instance))``), which is what the grader reports on a fail.
(An earlier version of this script compared with ``jsonschema.validate()`` per row, which
checks the schema and builds a validator on every call, about 95 times slower than a
prebuilt validator: a weak baseline.) JSON parsing is timed in all three.

Ours is timed as the batch layer calls the grader: its column form (``SPEC.batch``,
``graders.engines.schema_run.grade_many``) over the whole column, with the schema's compile
cache and the kept pattern results emptied first, so that its one compile and every V8
pattern call are counted; the near-miss probe of each fail and the violation list of
each fail (pointer by pointer) are included. ``bench_all`` checks that ours and
the prebuilt validator agree on pass/fail for every row (``bench_json_schema``: ours and the
prebuilt ``is_valid``, for ``graders_bench.py``). The rows repeat a little (about 15%); a
second table makes every output distinct, so that the per-output cache saves nothing.

Times are CPU seconds (``time.process_time``: V8's thread included), each the median of
3 rounds; within a round the three are run one after the other, in a rotating order, in
the same process. The ``pattern`` schema uses a pattern Python's ``re`` (the baseline) and
ECMAScript (ours, in V8) read alike. Target: ours at most 1.0x the prebuilt validator's
time, i.e. at least its rate.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jsonschema import Draft202012Validator  # noqa: E402

from graders.engines import schema_patterns  # noqa: E402
from graders.metrics import json_schema  # noqa: E402

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


def distinct_rows(n: int, seed: int = 0) -> list[str]:
    """``rows(n)`` made all different (the row number appended to the name, or to the
    text where it is not JSON), so that no output repeats: the per-output cache saves nothing."""
    out = []
    for i, text in enumerate(rows(n, seed)):
        try:
            obj = json.loads(text)
        except ValueError:
            out.append(f"{text}{i}")
            continue
        obj["name"] = f"{obj.get('name', '')}{i}"
        out.append(json.dumps(obj, ensure_ascii=i % 2 == 0))
    return out


def _ours(outputs: list[str], schema) -> list[bool]:
    json_schema._compile_key.cache_clear()
    json_schema._compile_marshalled.cache_clear()
    schema_patterns.clear_kept()
    block = json_schema.SPEC.batch([("",)] * len(outputs), outputs, schema=schema, pre_parse=())
    return [p is True for p in block.passed]


def _prebuilt(outputs: list[str], schema) -> list[bool]:
    validator = Draft202012Validator(schema)
    passed = []
    for o in outputs:
        try:
            instance = json.loads(o)
        except ValueError:  # json.JSONDecodeError is a ValueError
            passed.append(False)
            continue
        passed.append(validator.is_valid(instance))
    return passed


def _prebuilt_listing(outputs: list[str], schema) -> list[bool]:
    validator = Draft202012Validator(schema)
    passed = []
    for o in outputs:
        try:
            instance = json.loads(o)
        except ValueError:
            passed.append(False)
            continue
        passed.append(not list(validator.iter_errors(instance)))
    return passed


RUNNERS = {"ours": _ours, "prebuilt is_valid": _prebuilt, "prebuilt iter_errors": _prebuilt_listing}


def bench_json_schema(outputs: list[str], schema, rounds: int = 3) -> tuple[float, float]:
    """(our CPU seconds, the prebuilt ``is_valid`` validator's) over ``outputs``, as ``bench_all``."""
    t = bench_all(outputs, schema, rounds)
    return t["ours"], t["prebuilt is_valid"]


def bench_all(outputs: list[str], schema, rounds: int = 3) -> dict[str, float]:
    """CPU seconds of each runner (``RUNNERS``) over ``outputs``: the median of ``rounds``
    interleaved rounds. Raises AssertionError where ours and the prebuilt validator disagree."""
    times: dict[str, list[float]] = {name: [] for name in RUNNERS}
    verdicts: dict[str, list[bool]] = {}
    names = list(RUNNERS)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            start = time.process_time()
            verdicts[name] = RUNNERS[name](outputs, schema)
            times[name].append(time.process_time() - start)
    for name in names[1:]:
        disagree = [i for i, (a, b) in enumerate(zip(verdicts["ours"], verdicts[name])) if a != b]
        if disagree:
            first = disagree[0]
            raise AssertionError(f"{len(disagree)} rows disagree with {name}, e.g. row {first}: {outputs[first]!r}")
    return {name: statistics.median(ts) for name, ts in times.items()}


def main(argv: list[str]) -> None:
    n = int(argv[1]) if len(argv) > 1 else 20_000
    outputs, unique = rows(n), distinct_rows(n)
    print(f"json_schema on {n:,} outputs ({len(set(outputs)):,} distinct; then the same made all distinct), "
          "against a prebuilt jsonschema.Draft202012Validator (built once; json.loads per row included)")
    print("CPU seconds, median of 3 interleaved rounds; ratio = ours / baseline (<= 1.0: at least its rate)")
    print(f"{'schema':<30}{'ours s':>9}{'is_valid s':>12}{'ratio':>8}{'iter_errors s':>15}{'ratio':>8}{'fails':>8}")
    for label, schema, texts in (("objects", SCHEMA, outputs), ("objects + pattern", SCHEMA_WITH_PATTERN, outputs),
                                 ("objects, all distinct", SCHEMA, unique),
                                 ("objects + pattern, all distinct", SCHEMA_WITH_PATTERN, unique)):
        t = bench_all(texts, schema)
        fails = _prebuilt(texts, schema).count(False)
        print(f"{label:<30}{t['ours']:>9.3f}{t['prebuilt is_valid']:>12.3f}{t['ours'] / t['prebuilt is_valid']:>7.2f}x"
              f"{t['prebuilt iter_errors']:>15.3f}{t['ours'] / t['prebuilt iter_errors']:>7.2f}x{fails / n:>8.0%}")
    print("same verdicts as the prebuilt validator on every row; ours also lists each fail's violations "
          "(pointer, keyword, message) and probes it for a near miss")


if __name__ == "__main__":
    main(sys.argv)
