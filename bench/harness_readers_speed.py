"""Time the harness readers against ``graders.readers.read_results`` on the same rows.

    python bench/harness_readers_speed.py [--n 200000] [--repeat 3]

For each format, a synthetic file of ``n`` rows in the shape of the fixtures (cloned from
them, ids made unique, written with the tools' own 2-space indentation), and the frame the
reader makes of it written as JSON lines; both read from bytes in memory, ``repeat`` runs
each, interleaved, in one process; medians. Printed: sizes (MB), the reader's time,
``read_results`` on the JSON lines, their ratio in wall-clock and in CPU time, and one
plain ``json.loads`` of the harness file for scale (with the garbage collector on, as a
caller would run it).

The Inspect log's samples keep every field of the fixture's samples except the event
transcript (``events: []``, no ``events_data``): with it a sample is ~13 KB and 200,000 of
them 2.6 GB, which measures JSON parsing, not the reader. promptfoo results keep their
whole shape (grading results, token usage).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from graders.readers import inspect_log, promptfoo, read_results  # noqa: E402


def fixture(*parts: str) -> bytes:
    with open(os.path.join(ROOT, "tests", "files", "harness", *parts), "rb") as fh:
        return fh.read()


def _indent(text: str, spaces: int) -> str:
    return text.replace("\n", "\n" + " " * spaces)


def promptfoo_file(n: int) -> bytes:
    """promptfoo output with ``n`` results: the fixture's 10 (5 tests x 2 providers) repeated,
    each group of 10 with its own test indexes and descriptions."""
    doc = json.loads(fixture("promptfoo", "results.json"))
    templates = []
    for r in doc["results"]["results"]:
        r = json.loads(json.dumps(r))
        r["testIdx"] = 987654321
        if "description" in r["testCase"]:
            r["testCase"]["description"] += " __G__"
        r["id"] = "__U__"
        templates.append((_indent(json.dumps(r, indent=2, ensure_ascii=False), 6), r.get("testIdx")))
    base_idx = [r["testIdx"] for r in doc["results"]["results"]]
    parts = []
    for i in range(n):
        g, k = divmod(i, len(templates))
        text, _ = templates[k]
        parts.append(text.replace("987654321", str(g * 5 + base_idx[k])).replace("__G__", str(g))
                     .replace("__U__", f"r{i}"))
    doc["results"]["results"] = ["__RESULTS__"]
    head, tail = json.dumps(doc, indent=2, ensure_ascii=False).split('"__RESULTS__"')
    return (head + (",\n      ".join(parts)) + tail).encode()


def inspect_file(n: int) -> bytes:
    """An Inspect JSON log with ``n`` samples: the fixture's 6 (3 samples x 2 epochs)
    repeated with new ids, events left out (see the module docstring)."""
    doc = json.loads(fixture("inspect", "inspect_log.json"))
    templates = []
    for s in doc["samples"]:
        s = {k: v for k, v in s.items() if k != "events_data"}
        s["events"] = []
        sid = s["id"]
        s["id"] = "__ID__"
        templates.append((_indent(json.dumps(s, indent=2, ensure_ascii=False), 4), sid))
    parts = []
    for i in range(n):
        g, k = divmod(i, len(templates))
        text, sid = templates[k]
        new_id = json.dumps(g * 10 + sid if type(sid) is int else f"{sid}-{g}")
        parts.append(text.replace('"__ID__"', new_id, 1))
    doc["samples"] = ["__SAMPLES__"]
    head, tail = json.dumps(doc, indent=2, ensure_ascii=False).split('"__SAMPLES__"')
    return (head + (",\n    ".join(parts)) + tail).encode()


def as_jsonl(result) -> bytes:
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    cols = list(result.frame.columns)
    lines = []
    for values in zip(*(result.frame[c].tolist() for c in cols)):
        lines.append(dumps({c: v for c, v in zip(cols, values) if v is not None}))
    return ("\n".join(lines) + "\n").encode()


def timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call, after a full collection."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    del out
    return wall, cpu


def bench_one(name: str, make, reader, n: int, repeat: int) -> None:
    data = make(n)
    result = reader(data)
    assert len(result.frame) == n, (name, len(result.frame))
    assert not result.frame.duplicated(subset=["id", "version", "repeat"]).any()
    jsonl = as_jsonl(result)
    del result
    runs: dict[str, list[tuple[float, float]]] = {"reader": [], "generic": [], "loads": []}
    for _ in range(repeat):  # interleaved, so a busy moment of the machine hits both sides
        runs["reader"].append(timed(lambda: reader(data)))
        runs["generic"].append(timed(lambda: read_results(jsonl, name="rows.jsonl")))
    runs["loads"].append(timed(lambda: json.loads(data)))
    wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
    print(f"{name:<14}{len(data) / 1e6:>7.0f}{len(jsonl) / 1e6:>7.0f}{wall['reader']:>9.2f}{wall['generic']:>9.2f}"
          f"{wall['reader'] / wall['generic']:>7.2f}{cpu['reader'] / cpu['generic']:>7.2f}{wall['loads']:>9.2f}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print("wall-clock medians of interleaved runs; ratio = reader / read_results on the JSONL "
          "(also in CPU time); json.loads: one run, for scale")
    print(f"{'format':<14}{'MB':>7}{'JSONL':>7}{'reader':>9}{'generic':>9}{'ratio':>7}{'cpu':>7}{'loads':>9}")
    bench_one("promptfoo", promptfoo_file, promptfoo.read, args.n, args.repeat)
    bench_one("inspect-json", inspect_file, inspect_log.read, args.n, args.repeat)


if __name__ == "__main__":
    main()
