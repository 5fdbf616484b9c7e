"""The regex engine (V8 through mini-racer) on a 200,000-output column, against references
in the same run, and a catastrophic pattern over 10,000 rows.

    python bench/regex_speed.py [N]

Prints rows per second for ``graders.engines.regex.match_many`` (the engine alone) and for
``graders.metrics.regex.grade_many`` (grades with explanations and the near-miss probe), beside the
same two calls of the project before V8 (``regress`` in a worker process, commit
``BEFORE``, run from ``git archive`` in a subprocess, when git and regress are here), and
Python's ``re`` in-process as a floor; then the wall time of ``(a+)+$`` over 10,000 rows
that each backtrack catastrophically, with the 1 s limit and the batch layer's cap of 3
time-outs a column.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graders._testing import pairs as generate  # noqa: E402
from graders.engines import regex as ecma  # noqa: E402
from graders.metrics.regex import COLUMN_MAX_TIMEOUTS, grade_many  # noqa: E402

PATTERNS = [(r"\d+", "anywhere"), (r"^(?:the|a|an)\b", "start"), (r"[\s\S]*\.", "whole"), (r"refund|return", "anywhere")]


def best(fn, outputs: list[str], repeat: int = 3) -> float:
    """Best of ``repeat`` runs of ``fn(texts)``, each on fresh copies of the texts: V8 keeps
    the texts it was last given (graders.engines.regex.STORE_CHARS), and a first pass over a column
    is what a run pays."""
    times = []
    for _ in range(repeat):
        fresh = [(o + "\0")[:-1] for o in outputs]
        t0 = time.perf_counter()
        fn(fresh)
        times.append(time.perf_counter() - t0)
    return min(times)


BEFORE = "4877948"  # the last commit on regress and the worker process
ROOT = Path(__file__).resolve().parent.parent
_OLD = """
import json, sys, time
from graders import ecma  # the module paths of commit BEFORE
from graders.pairgen import pairs
from graders.regex_grader import COLUMN_MAX_TIMEOUTS, grade_many
n, patterns = int(sys.argv[1]), json.loads(sys.argv[2])
outputs = [o for _, o in pairs(n, seed=2024)]
out = []
for pattern, at in patterns:
    ecma.match_many(pattern, "", at, outputs[:100])
    times = []
    for _ in range(3):
        t0 = time.perf_counter(); ecma.match_many(pattern, "", at, outputs, 1.0); times.append(time.perf_counter() - t0)
    t0 = time.perf_counter(); grade_many(outputs, pattern=pattern, at=at, max_timeouts=COLUMN_MAX_TIMEOUTS)
    out.append((min(times), time.perf_counter() - t0))
print(json.dumps(out))
"""


def before(n: int) -> list[tuple[float, float]] | None:
    """(match_many, grade_many) seconds per pattern for the project at BEFORE, or None."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", BEFORE, "graders"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            got = subprocess.run([sys.executable, "-c", _OLD, str(n), json.dumps(PATTERNS)], cwd=tmp,
                                 capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"(the engine before V8 could not be run: {e})")
            return None
    return json.loads(got.stdout)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    outputs = [out for _, out in generate(n, seed=2024)]
    old = before(n) or [(float("nan"), float("nan"))] * len(PATTERNS)
    print(f"{n:,} outputs (graders._testing seed 2024), best of 3, time limit 1 s; engine {ecma.engine_version()}; "
          f"before: {BEFORE} (regress in a worker process)")
    print(f"{'pattern':<22}{'at':<10}{'V8 rows/s':>11}{'before':>11}{'ratio':>7}"
          f"{'grades/s':>11}{'before':>11}{'ratio':>7}{'re/s':>12}")
    for (pattern, at), (old_match, old_grade) in zip(PATTERNS, old):
        ecma.match_many(pattern, "", at, outputs[:100])  # warm: the isolate and the compiled pattern
        ours = best(lambda texts, p=pattern, a=at: ecma.match_many(p, "", a, texts, 1.0), outputs)
        graded = best(lambda texts, p=pattern, a=at: grade_many(texts, pattern=p, at=a, max_timeouts=COLUMN_MAX_TIMEOUTS),
                      outputs, 1)
        py = re.compile(pattern)
        method = {"anywhere": py.search, "start": py.match, "whole": py.fullmatch}[at]
        py_t = best(lambda texts, m=method: [m(o) for o in texts], outputs)
        print(f"{pattern:<22}{at:<10}{n / ours:>11,.0f}{n / old_match:>11,.0f}{old_match / ours:>6.2f}x"
              f"{n / graded:>11,.0f}{n / old_grade:>11,.0f}{old_grade / graded:>6.2f}x{n / py_t:>12,.0f}")
    evil = ["a" * 40 + "!"] * 10_000
    t0 = time.perf_counter()
    grades = grade_many(evil, pattern=r"(a+)+$", max_timeouts=COLUMN_MAX_TIMEOUTS)
    wall = time.perf_counter() - t0
    errors = sum(g.status == "error" for g in grades)
    print(f"catastrophic (a+)+$ over {len(evil):,} rows: {wall:.2f} s wall, {errors:,} errors "
          f"({COLUMN_MAX_TIMEOUTS} time-outs, the rest not run and named as such)")


if __name__ == "__main__":
    main()
