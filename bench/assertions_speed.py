"""Per-row regex assertions against the regex grader: the same pattern, the same rows, one run.

    python bench/assertions_speed.py [N]        (N rows, default 5,000)

For each pattern, the rows are scored twice through the batch layer (``score_frame``, one
worker): with the pattern as the regex grader (the configuration's column grader), and with
it as every row's ``{"type": "regex", "value": ...}`` assertion (no grader). CPU time of
the process (V8 runs in it), median of 5 interleaved runs, each on fresh copies of the
texts (V8 keeps the texts it was last given; a run pays the first pass). The ratio is the
assertions' time over the grader's: issue 36 asks for at most 1.5. Then the same from a
JSON lines file, read, scored and written as a scored CSV (the command line's path).

With promptfoo installed (``npm install --prefix tests/js``), also the golden file of
``tests/files/promptfoo_assertions`` (10,000 rows, 59,515 assertions of promptfoo's kinds):
``score_file`` on it, against promptfoo's own in-process ``runAssertion`` over the same
rows (``make_golden.mjs --judge``, node's CPU time).
"""

from __future__ import annotations

import gzip
import io
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from graders._testing import pairs as generate  # noqa: E402
from graders.config import RunConfig  # noqa: E402
from graders.pipeline import score_file, score_prepared  # noqa: E402
from graders.readers import read_results  # noqa: E402
from graders.scoring.parallel import score_frame  # noqa: E402

PATTERNS = [r"\d+", r"refund|return", r"^(?:the|a|an)\b", r"(?:refund|return)s?\b"]
RUNS = 5


def cpu() -> float:
    return time.process_time()


def rows_frame(outputs: list[str], assertion: dict | None) -> pd.DataFrame:
    n = len(outputs)
    fresh = [(o + "\0")[:-1] for o in outputs]  # new objects: V8 receives them again
    frame = pd.DataFrame({"record": range(1, n + 1), "item": [str(i) for i in range(n)], "system": ["v1"] * n,
                          "repeat": [""] * n, "refs": [()] * n, "output": fresh}, dtype=object)  # as rows.prepare
    if assertion is not None:
        frame["assertions"] = [(assertion,)] * n
    return frame


def library(outputs: list[str], pattern: str) -> tuple[float, float]:
    """Median CPU seconds of (the grader, the assertions) over ``outputs``, interleaved."""
    grader = RunConfig.from_dict({"graders": [{"name": "regex", "pattern": pattern}]})
    none = RunConfig.from_dict({"graders": []})
    a, b = [], []
    for _ in range(RUNS):
        rows = rows_frame(outputs, None)
        t0 = cpu()
        score_frame(rows, grader, workers=1)
        a.append(cpu() - t0)
        rows = rows_frame(outputs, {"type": "regex", "value": pattern})
        t0 = cpu()
        score_frame(rows, none, workers=1)
        b.append(cpu() - t0)
    return statistics.median(a), statistics.median(b)


def files(outputs: list[str], pattern: str, tmp: Path) -> tuple[float, float]:
    """The same from a JSON lines file, read and scored with the scored CSV written (to
    memory), as ``gradeboard score`` does."""
    plain, asserted = tmp / "plain.jsonl", tmp / "asserted.jsonl"
    with open(plain, "w", encoding="utf-8") as f, open(asserted, "w", encoding="utf-8") as g:
        for i, o in enumerate(outputs):
            f.write(json.dumps({"id": str(i), "output": o}) + "\n")
            g.write(json.dumps({"id": str(i), "output": o, "assert": [{"type": "regex", "value": pattern}]}) + "\n")
    grader = RunConfig.from_dict({"graders": [{"name": "regex", "pattern": pattern}]})
    none = RunConfig.from_dict({"graders": []})
    a, b = [], []
    for _ in range(RUNS):
        t0 = cpu()
        score_prepared(read_results(plain), grader, workers=1, write_to=io.BytesIO())
        a.append(cpu() - t0)
        t0 = cpu()
        score_prepared(read_results(asserted), none, workers=1, write_to=io.BytesIO())
        b.append(cpu() - t0)
    return statistics.median(a), statistics.median(b)


def against_promptfoo(tmp: Path) -> None:
    here = ROOT / "tests" / "files" / "promptfoo_assertions"
    node = shutil.which("node")
    if not (node and (ROOT / "tests" / "js" / "node_modules" / "promptfoo").is_dir()):
        print("\n(promptfoo is not installed: npm install --prefix tests/js, for the comparison with it)")
        return
    path = tmp / "results.json"
    path.write_bytes(gzip.decompress((here / "results.json.gz").read_bytes()))
    ours = []
    for _ in range(3):
        t0 = cpu()
        score_file(path, RunConfig.from_dict({"graders": []}), workers=1)
        ours.append(cpu() - t0)
    theirs = []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([node, str(here / "make_golden.mjs"), "--judge", str(here / "results.json.gz")],
                       capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        theirs.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    n = json.loads((here / "verdicts.json").read_text())["assertions"]
    o, t = statistics.median(ours), statistics.median(theirs)
    print(f"\nthe golden file, {n:,} assertions of promptfoo's kinds on 10,000 rows (CPU s, median of 3):")
    print(f"  gradeboard score_file (read, rows, assertions, summary)  {o:6.2f}  ({o / n * 1e6:.0f} µs an assertion)")
    print(f"  promptfoo runAssertion in node (with node's start-up)    {t:6.2f}  ({t / n * 1e6:.0f} µs an assertion)")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    outputs = [o for _, o in generate(n, seed=2024)]
    library(outputs[:200], PATTERNS[0])  # warm: V8's isolate, imports
    print(f"{n:,} rows; CPU seconds, median of {RUNS} interleaved runs; µs a row; ratio assertions / grader")
    print(f"{'pattern':<22} {'path':<12} {'grader':>9} {'assertions':>11} {'grader µs':>10} {'assert µs':>10} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for pattern in PATTERNS:
            for name, (a, b) in (("score_frame", library(outputs, pattern)),
                                 ("file to CSV", files(outputs, pattern, Path(tmp)))):
                print(f"{pattern:<22} {name:<12} {a:9.3f} {b:11.3f} {a / n * 1e6:10.1f} {b / n * 1e6:10.1f} {b / a:6.2f}")
        against_promptfoo(Path(tmp))


if __name__ == "__main__":
    main()
