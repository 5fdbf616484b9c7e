"""Speed of slices (issue 33) on 200,000 rows: the Score page's slice change, beside the
same run's command-line time.

    python bench/slices_speed.py [--rows 200000] [--compare]

Generates ROWS rows (bench/file_bench.py's generator) with a ``category`` column (12
values) and a ``difficulty`` column (3 values), then times:

* the command line, `gradeboard score` with the cheap four, without and with
  ``--by category`` (each writing a new scored file);
* the library alone on the scored rows: building the ``Slicer`` (once per scored view) and
  slicing by each column;
* the Score page through AppTest (whole script runs: what a user waits for after a click,
  minus the browser's drawing): the first scoring, then "Slice by" category (the first
  slice builds the ``Slicer``), difficulty, category again (kept) and none. No slice
  change may rescore.

``--compare`` adds ``compare_file`` on the same rows as a wide file (output_b a shuffled
copy of output) with and without ``by="category"``: what a slice costs beside the comparison.

Target: a slice change under 1 s. The machine may be shared: the load average is printed,
and each page run's CPU time beside its wall time.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from file_bench import CHEAP_FOUR, row, timed_cli  # noqa: E402

CATEGORIES = ("billing", "shipping", "returns", "refunds", "accounts", "orders", "warranty", "gift cards",
              "loyalty", "privacy", "stores", "other")


def write_rows(path: Path, n: int, wide: bool = False, seed: int = 0) -> None:
    rng = random.Random(seed)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "expected", "output"] + (["output_b"] if wide else ["version"]) + ["category", "difficulty"])
        for i in range(n):
            e, o = row(rng)
            other = [row(rng)[1] if rng.random() < 0.3 else o] if wide else ["bench-v1"]
            w.writerow([f"case-{i}", e, o, *other, rng.choice(CATEGORIES), rng.choice(("easy", "medium", "hard"))])


def timed_run(at, label: str, results: dict[str, float]) -> float:
    """One AppTest script run: its wall time (kept in ``results``) and this process's CPU
    time beside it (the page runs here; on a shared machine the CPU time is the work)."""
    t, cpu = time.perf_counter(), time.process_time()
    at.run()
    dt, dcpu = time.perf_counter() - t, time.process_time() - cpu
    if at.exception or at.error:
        raise SystemExit(f"{label}: {[e.value for e in at.exception] + [e.value for e in at.error]}")
    results[label] = dt
    print(f"  {label:<44} {dt:7.2f} s  (CPU {dcpu:.2f} s)")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--compare", action="store_true", help="also time compare_file with and without by=")
    args = ap.parse_args()
    from streamlit.testing.v1 import AppTest

    from graders.pipeline import score_file
    from graders.scoring.slices import Slicer, row_values

    with tempfile.TemporaryDirectory() as tmp:
        data, cfg = Path(tmp) / "rows.csv", Path(tmp) / "cheap.json"
        write_rows(data, args.rows)
        cfg.write_text(json.dumps(CHEAP_FOUR))
        print(f"{args.rows:,} rows, {data.stat().st_size / 1e6:.1f} MB; cores {os.cpu_count()}, "
              f"load average {os.getloadavg()[0]:.2f}")

        print("Command line, cheap four:")
        plain, _ = timed_cli(["score", str(data), "--config", str(cfg), "--out", str(Path(tmp) / "a.csv")])
        sliced, _ = timed_cli(["score", str(data), "--config", str(cfg), "--out", str(Path(tmp) / "b.csv"),
                               "--by", "category"])
        print(f"  gradeboard score                  {plain:7.2f} s")
        print(f"  gradeboard score --by category    {sliced:7.2f} s  (+{sliced - plain:.2f} s)")

        print("Library, on the scored rows:")
        run = score_file(data, CHEAP_FOUR)
        t = time.perf_counter()
        slicer = Slicer(run.scored, run.prepared.rows)
        print(f"  Slicer (once per scored view)     {time.perf_counter() - t:7.2f} s")
        for column in ("category", "difficulty"):
            t = time.perf_counter()
            slicer.by(column, row_values(run.file, run.prepared.rows, column))
            print(f"  by {column:<30} {time.perf_counter() - t:7.2f} s")

        print("Score page, AppTest script runs:")
        results: dict[str, float] = {}
        at = AppTest.from_file(str(ROOT / "pages" / "score.py"), default_timeout=1800)
        at.run()
        at.file_uploader(key="gb_config_upload").set_value(("cheap.json", cfg.read_bytes(), "application/json"))
        at.run()
        from ui import scoring

        for thread in scoring._warming:  # the app's worker forkserver, started when it opens
            thread.join()
        at.file_uploader(key="score_upload").set_value((data.name, data.read_bytes(), "text/csv"))
        timed_run(at, "first scoring, cheap four (upload run)", results)
        scored = at.session_state["gb_score_count"]
        for column in ("category", "difficulty", "category", "(none)"):
            at.selectbox(key="gb_w_score_slice_by").set_value(column)
            again = " (kept)" if f"slice change: {column}" in results else ""
            timed_run(at, f"slice change: {column}{again}", results)
        assert at.session_state["gb_score_count"] == scored, "a slice change rescored"

        if args.compare:
            from graders.compare.comparison import compare_file
            from graders.readers.files import read_results

            wide = Path(tmp) / "wide.csv"
            write_rows(wide, args.rows, wide=True)
            file = read_results(wide)
            print("compare_file, wide, cheap four (library):")
            t = time.perf_counter()
            compare_file(file, CHEAP_FOUR)
            whole = time.perf_counter() - t
            t = time.perf_counter()
            compare_file(file, CHEAP_FOUR, by="category")
            print(f"  without by {whole:7.2f} s, with by='category' {time.perf_counter() - t:7.2f} s")

    changes = [v for k, v in results.items() if k.startswith("slice change")]
    print("Target:")
    print(f"  slice change worst {max(changes):5.2f} s (target < 1 s) {'ok' if max(changes) < 1 else 'MISSED'}; "
          f"the same rows on the command line: {plain:.2f} s, with --by {sliced:.2f} s")


if __name__ == "__main__":
    main()
