"""`gradeboard score` in one process against `--scheduler local` (a Dask LocalCluster on
this machine), on ROWS generated rows in FILES files; with `--compare`, `gradeboard compare`
(each case in two versions, A and B; on the cluster the rows are paired in buckets and the
client gathers a few numbers a pair).

    python bench/dask_speed.py [--rows 2000000] [--files 8] [--workers 2] [--only cheap|twelve] [--compare]

For the cheap four (exact, normalized, contains, numeric) and all twelve graders, each run
writes a new scored file and a summary; printed per run: wall time, the command's own CPU
time (in the cluster run: the client's, which reads no file and holds no row: it writes
the parts' lines in order and adds the summary up), the client's peak RSS and the largest
worker's. The two runs' scored files and summaries are compared byte for byte.

From the figures: the cluster's fixed cost (starting the LocalCluster, the workers
importing the graders: timed alone), the workers' CPU time per row and the client's (CPU
time: on a machine other work shares, wall time says more about the others than about
the run): the time with W workers, each with a core, is about fixed + rows x (worker CPU
a row / W), while that stays above rows x the client's CPU a row (the one serial part:
writing the lines in order). The README's Dask section quotes these.
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from file_bench import ALL_TWELVE, CHEAP_FOUR, row  # noqa: E402

# Runs the command line in this process (the client) and prints its peak RSS and CPU
# seconds, then the largest finished child's RSS (the cluster's workers, or the local pool's).
_RUN = (
    "import resource, sys; from graders.cli import main; code = main(sys.argv[1:]); "
    "me = resource.getrusage(resource.RUSAGE_SELF); kids = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(me.ru_maxrss, me.ru_utime + me.ru_stime, kids.ru_maxrss, kids.ru_utime + kids.ru_stime, file=sys.stderr); "
    "sys.exit(code)"
)


def write_files(folder: Path, rows: int, files: int, versions: int = 1) -> list[Path]:
    """``files`` CSV files of ``rows`` rows in all (file_bench's rows), ids unique over the
    files; each case in ``versions`` versions (bench-v1, bench-v2, …), one row each."""
    paths = []
    rng = random.Random(35)
    for k in range(files):
        path = folder / f"part-{k}.csv"
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["id", "expected", "output", "version"])
            for i in range(rows // files):
                e, o = row(rng)
                w.writerow([f"f{k}-case-{i // versions}", e, o, f"bench-v{i % versions + 1}"])
        paths.append(path)
    return paths


def run(args: list[str]) -> dict[str, float]:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", _RUN, *args], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"gradeboard failed: {r.stderr.strip()[-2000:]}")
    rss, cpu, kids, kids_cpu = r.stderr.strip().splitlines()[-1].split()
    return {"wall": wall, "client_mb": int(rss) / 1024, "client_cpu": float(cpu), "worker_mb": int(kids) / 1024,
            "worker_cpu": float(kids_cpu)}


def cluster_start(workers: int) -> float:
    """Seconds to start a LocalCluster of ``workers``, import the graders in each, and close it."""
    code = ("import time; t = time.perf_counter()\n"
            "from graders.distributed import connect\n"
            f"with connect('local', workers={workers}) as c: c.run(__import__, 'graders.scoring.parallel')\n"
            "print(time.perf_counter() - t)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return float(r.stdout.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2, help="the LocalCluster's worker processes")
    ap.add_argument("--only", choices=("cheap", "twelve"))
    ap.add_argument("--compare", action="store_true", help="gradeboard compare (each case as A and B) instead of score")
    opts = ap.parse_args()
    command = "compare" if opts.compare else "score"
    with tempfile.TemporaryDirectory(prefix="dask-bench-") as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        paths = write_files(folder, opts.rows, opts.files, versions=2 if opts.compare else 1)
        size = sum(p.stat().st_size for p in paths) / 1e6
        print(f"{opts.rows:,} rows in {opts.files} files, {size:.0f} MB, written in {time.perf_counter() - t:.1f} s")
        start = cluster_start(opts.workers)
        print(f"LocalCluster of {opts.workers} workers: started, graders imported and closed in {start:.1f} s")
        configs = {"cheap four": CHEAP_FOUR, "all twelve": ALL_TWELVE}
        if opts.only:
            configs = {k: v for k, v in configs.items() if k.startswith({"cheap": "cheap", "twelve": "all"}[opts.only])}
        for name, config in configs.items():
            cfg = folder / "config.json"
            cfg.write_text(json.dumps(config))
            base = [command, *map(str, paths), "--config", str(cfg)]
            one = run(base + ["--out", str(folder / "one.csv"), "--summary", str(folder / "one.json"), "--workers", "1"]
                      + (["--resamples", "1000"] if opts.compare else []))
            dask = run(base + ["--out", str(folder / "dask.csv"), "--summary", str(folder / "dask.json"),
                               "--scheduler", "local", "--workers", str(opts.workers)]
                       + (["--resamples", "1000"] if opts.compare else []))
            same = filecmp.cmp(folder / "one.csv", folder / "dask.csv", shallow=False) and \
                filecmp.cmp(folder / "one.json", folder / "dask.json", shallow=False)
            out_mb = (folder / "one.csv").stat().st_size / 1e6
            n = opts.rows
            print(f"\n{name}: {'comparison' if opts.compare else 'scored file'} {out_mb:.0f} MB, identical: {same}")
            print(f"  one process        {one['wall']:7.1f} s wall, {one['client_cpu']:7.1f} s CPU "
                  f"({one['client_cpu'] / n * 1e6:.1f} µs a row); peak {one['client_mb']:.0f} MB")
            print(f"  --scheduler local  {dask['wall']:7.1f} s wall; client {dask['client_cpu']:.1f} s CPU "
                  f"({dask['client_cpu'] / n * 1e6:.1f} µs a row), peak {dask['client_mb']:.0f} MB; workers "
                  f"{dask['worker_cpu']:.1f} s CPU ({dask['worker_cpu'] / n * 1e6:.1f} µs a row), the largest "
                  f"{dask['worker_mb']:.0f} MB")
            per_row = dask["worker_cpu"] / n * 1e6
            print(f"  expected wall with W workers, each a core of its own: {start:.0f} s + {n:,} x {per_row:.1f} µs / W "
                  f"= {start + n * per_row / 1e6 / opts.workers:.0f} s at W = {opts.workers}, "
                  f"{start + n * per_row / 1e6 / 8:.0f} s at 8, while that stays above the client's "
                  f"{dask['client_cpu']:.0f} s")
            for p in ("one.csv", "dask.csv"):
                (folder / p).unlink()


if __name__ == "__main__":
    main()
