"""Peak memory of `gradeboard score` against the file's size (issue 36): flat, since a large
CSV, TSV or JSON lines file is scored a block at a time (``readers.chunks``,
``scoring.stream``).

    python bench/memory_flat.py [--rows 50000,200000,1000000] [--workers N] [--cheap]

For each size, ``file_bench``'s generated rows (about 85 bytes a row: short answers,
sentences, numbers and JSON) are scored with all twelve graders (``--cheap``: also the
four cheap ones), once as the command runs (streamed) and once read whole (the reference:
the same command with the block as large as the file, as every file was read before),
each run alone in a fresh process. Printed per run: the largest process's peak RSS (the
command or one of its workers, ``ru_maxrss``) and the wall time; then, per configuration,
the largest peak over the smallest file's (flat: at most 1.20).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.file_bench import ALL_TWELVE, CHEAP_FOUR, write_rows  # noqa: E402

# The command in a fresh interpreter; "whole" sets the block larger than any file first.
_RUN = ("import sys, graders.readers.chunks as c\n"
        "if sys.argv[1] == 'whole': c.BLOCK_BYTES = 1 << 62\n"
        "from graders.cli import main\n"
        "sys.exit(main(sys.argv[2:]))")
_MEASURE = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "sys.stderr.write(r.stderr); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(r.returncode)"
)


def peak(mode: str, args: list[str]) -> tuple[float, float]:
    """(peak RSS MB of the largest process, seconds) of one run."""
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-c", _RUN, mode, *args],
                       capture_output=True, text=True, cwd=ROOT)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"gradeboard failed: {r.stderr.strip()}")
    return int(r.stdout.split()[-1]) / 1024, dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="50000,200000,1000000")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--cheap", action="store_true", help="the four cheap graders too")
    ap.add_argument("--no-whole", action="store_true", help="skip the read-whole reference")
    a = ap.parse_args()
    sizes = [int(n) for n in a.rows.split(",")]
    configs = [("all twelve", ALL_TWELVE)] + ([("cheap four", CHEAP_FOUR)] if a.cheap else [])
    modes = ["stream"] + ([] if a.no_whole else ["whole"])
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        results: dict[tuple[str, str], list[float]] = {}
        for n in sizes:
            data = t / f"rows{n}.csv"
            write_rows(data, n)
            mb = data.stat().st_size / 2**20
            for name, config in configs:
                cfg = t / "config.json"
                cfg.write_text(json.dumps(config))
                for mode in modes:
                    args = ["score", str(data), "--config", str(cfg), "--out", str(t / f"out-{mode}-{n}.csv")]
                    if a.workers:
                        args += ["--workers", str(a.workers)]
                    rss, dt = peak(mode, args)
                    (t / f"out-{mode}-{n}.csv").unlink()
                    results.setdefault((name, mode), []).append(rss)
                    print(f"{n:>9,} rows ({mb:6.1f} MB)  {name:<10}  {mode:<6}  peak {rss:7.0f} MB  {dt:7.1f} s",
                          flush=True)
            data.unlink()
        print()
        for (name, mode), peaks in results.items():
            print(f"{name:<10} {mode:<6} peaks {' / '.join(f'{p:.0f}' for p in peaks)} MB; "
                  f"largest over the smallest file's: {max(peaks) / peaks[0]:.2f}")


if __name__ == "__main__":
    main()
