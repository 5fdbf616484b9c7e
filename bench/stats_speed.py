"""Speed of the A-versus-B statistics (graders.stats) at the issue-4 size.

    python bench/stats_speed.py [N] [--reference]     # N paired cases, default 100,000

Five metrics over the same N cases, 2,000 resamples each, every figure included
(bootstrap interval, McNemar or sign-flip p-value, Wilson intervals, MDD):

* ``joint``     one ``summarize_pairs`` call: two pass-or-fail metrics, three continuous
* ``all continuous``  the same with five continuous metrics (five sign-flip tests)
* ``separate``  five ``summarize_pair`` calls (each metric draws its own resamples)
* ``repeats``   N rows as N/5 cases x 5 repeats (cluster bootstrap)

Prints the best of three wall and CPU seconds; CPU seconds above wall seconds mean the
second core was used. The load average is printed too: the machine may be shared.
``--reference`` also times ``scipy.stats.bootstrap`` (percentile, paired, 2,000
resamples) on one continuous metric, the interval alone.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graders.stats.paired import summarize_pair, summarize_pairs  # noqa: E402


def metrics(n: int, continuous: int, seed: int = 0) -> dict[str, dict[str, np.ndarray]]:
    """Scores shaped like an eval: B a little better, many identical outputs (ties)."""
    rng = np.random.default_rng(seed)
    same = rng.random(n) < 0.4  # A and B gave the same output on 40% of the cases
    out: dict[str, dict[str, np.ndarray]] = {}
    for j in range(5 - continuous):
        pa = rng.random(n) < 0.70
        pb = np.where(same | (rng.random(n) < 0.8), pa, rng.random(n) < 0.75)
        out[f"pass_fail_{j}"] = dict(score_a=pa.astype(float), score_b=pb.astype(float), passed_a=pa, passed_b=pb)
    for j in range(continuous):
        a = rng.beta(2, 3, n)
        b = np.where(same, a, np.clip(a + rng.normal(0.004 * j, 0.15, n), 0, 1))
        out[f"continuous_{j}"] = dict(score_a=a, score_b=b)
    return out


def best_of(runs: int, fn) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main(argv: list[str]) -> None:
    n = int(next((a for a in argv if a.isdigit()), 100_000))
    mixed, continuous = metrics(n, 3), metrics(n, 5)
    ids = np.repeat(np.arange(n // 5), 5)[:n]
    print(f"{n:,} paired cases x 5 metrics x 2,000 resamples; load average {os.getloadavg()[0]:.2f}")
    cases = {
        "joint (2 pass/fail + 3 continuous)": lambda: summarize_pairs(mixed),
        "all continuous, joint": lambda: summarize_pairs(continuous),
        "separate summarize_pair calls": lambda: [summarize_pair(**m) for m in mixed.values()],
        "repeats: cluster bootstrap, joint": lambda: summarize_pairs(mixed, clusters=ids),
    }
    for label, fn in cases.items():
        wall, cpu = best_of(3, fn)
        print(f"  {label:<38} wall {wall:6.2f} s   cpu {cpu:6.2f} s")
    if "--reference" in argv:
        import scipy.stats

        m = continuous["continuous_1"]
        wall, cpu = best_of(1, lambda: scipy.stats.bootstrap(
            (m["score_a"], m["score_b"]), lambda a, b, axis=-1: np.mean(a - b, axis=axis), paired=True,
            n_resamples=2000, batch=20, method="percentile", random_state=0))
        print(f"  {'scipy.stats.bootstrap, 1 metric, CI only':<38} wall {wall:6.2f} s   cpu {cpu:6.2f} s")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
