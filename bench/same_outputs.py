"""Show that a change of structure changed no output: the command line's scored files,
summaries and comparisons, byte for byte, for this tree and for another commit.

    python bench/same_outputs.py [REV] [--rows 200000] [--timing N]

REV (default ``HEAD``) is checked out with ``git archive`` into a temporary folder and run
from there (its own ``graders``), then this working tree; every run writes its files into
its own folder, and the two folders are compared file by file. The runs: ``gradeboard
score`` on each bundled sample (with its configuration where it has one, otherwise all
twelve graders), ``gradeboard compare`` on the two A/B samples, and ``gradeboard score``
with all twelve graders on ``bench/file_bench.py``'s generated file (``--rows`` rows).
Prints one line per file and exits 1 when any differs. ``--timing N``: then N more runs
of each side on the generated file (all twelve graders, and the cheap four), alternating
old and new, with each run's wall time and the median ratio new / old.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from file_bench import ALL_TWELVE, CHEAP_FOUR, write_rows  # noqa: E402

SAMPLES = ROOT / "sample_data"


def runs(data: Path, twelve: Path) -> list[tuple[str, list[str]]]:
    """(name, command line arguments after ``gradeboard``) for each run."""
    out = []
    for path in sorted(SAMPLES.glob("returns_*")):
        if path.suffix not in (".csv", ".jsonl") :
            continue
        config = path.with_suffix(".config.json")
        conf = ["--config", str(config)] if config.exists() else ["--config", str(twelve)]
        out.append((f"score_{path.stem}", ["score", str(path), *conf]))
    for name in ("returns_ab_wide.csv", "returns_ab_long.jsonl"):
        out.append((f"compare_{name.split('.')[0]}", ["compare", str(SAMPLES / name), "--grader", "exact",
                                                      "--grader", "token_f1", "--grader", "bleu"]))
    out.append(("score_generated", ["score", str(data), "--config", str(twelve)]))
    return out


def checkout(rev: str, into: Path) -> Path:
    """The ``graders`` package of commit ``rev``, from ``git archive``, in ``into``."""
    into.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "graders"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run_all(code: Path, into: Path, plan: list[tuple[str, list[str]]]) -> None:
    into.mkdir()
    for name, args in plan:
        outs = ["--out", str(into / f"{name}.csv"), "--summary", str(into / f"{name}.json")]
        proc = subprocess.run([sys.executable, "-m", "graders", *args, *outs], cwd=code,
                              capture_output=True, text=True)
        (into / f"{name}.exit").write_text(f"{proc.returncode}\n{proc.stdout}{proc.stderr}", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("rev", nargs="?", default="HEAD")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--timing", type=int, default=0)
    ap.add_argument("--after", help="a commit to run as the new side instead of this working tree")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "generated.csv"
        write_rows(data, args.rows)
        twelve = tmp / "twelve.json"
        twelve.write_text(json.dumps(ALL_TWELVE), encoding="utf-8")
        old = checkout(args.rev, tmp / "old")
        new = checkout(args.after, tmp / "new") if args.after else ROOT
        plan = runs(data, twelve)
        run_all(old, tmp / "before", plan)
        run_all(new, tmp / "after", plan)
        bad = 0
        for f in sorted((tmp / "before").iterdir()):
            same = filecmp.cmp(f, tmp / "after" / f.name, shallow=False)
            bad += not same
            print(f"{'same' if same else 'DIFFERENT'}  {f.name}  ({f.stat().st_size:,} bytes)")
        print(f"{bad} of {len(list((tmp / 'before').iterdir()))} files differ from {args.rev}")
        if args.timing:
            cheap = tmp / "cheap.json"
            cheap.write_text(json.dumps(CHEAP_FOUR), encoding="utf-8")
            for name, config in (("all twelve", twelve), ("cheap four", cheap)):
                times: dict[str, list[float]] = {"before": [], "after": []}
                for _ in range(args.timing):
                    for side, code in (("before", old), ("after", new)):
                        t0 = time.perf_counter()
                        subprocess.run([sys.executable, "-m", "graders", "score", str(data), "--config", str(config),
                                        "--out", str(tmp / "t.csv")], cwd=code, capture_output=True, check=True)
                        times[side].append(time.perf_counter() - t0)
                ratio = statistics.median(times["after"]) / statistics.median(times["before"])
                print(f"{name}: before {' / '.join(f'{t:.2f}' for t in times['before'])} s, "
                      f"after {' / '.join(f'{t:.2f}' for t in times['after'])} s, median ratio {ratio:.2f}")
        return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
