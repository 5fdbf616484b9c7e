"""Speed of the A-versus-B figures: 100,000 paired cases, five metrics, every figure
(pairing, means, wins/losses/ties, bootstrap intervals, McNemar / sign-flip, Holm, MDD).

    python bench/compare_bench.py [--cases 100000] [--resamples 2000]

The rows are scored first (not timed in the target); then `compare_scored` is timed.
Target (issue 4): under 5 s on this 2-core machine.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graders._testing import WORDS  # noqa: E402
from graders.compare.comparison import compare_scored  # noqa: E402
from graders.config import GraderConfig, RunConfig  # noqa: E402
from graders.scoring.parallel import score_frame  # noqa: E402
from graders.scoring.rows import LeftOut, Prepared  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--resamples", type=int, default=2000)
    args = ap.parse_args()
    rng = random.Random(0)
    n = args.cases
    exp = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(n)]
    out_a = [e if rng.random() < 0.6 else rng.choice(WORDS) for e in exp]
    out_b = [e if rng.random() < 0.55 else e.upper() for e in exp]
    rows = pd.DataFrame({
        "record": list(range(1, n + 1)) * 2,
        "item": [f"c{i}" for i in range(n)] * 2,
        "system": ["A"] * n + ["B"] * n,
        "repeat": ["0"] * (2 * n),
        "refs": [(e,) for e in exp] * 2,
        "output": out_a + out_b,
    })
    config = RunConfig({}, tuple(GraderConfig.make(g) for g in ("exact", "normalized", "contains", "token_f1", "rouge_l")), None)
    t = time.perf_counter()
    scored = score_frame(rows, config)
    print(f"scoring {2 * n} rows x 5 graders: {time.perf_counter() - t:.2f} s (not part of the target)")
    prepared = Prepared(rows, LeftOut({}, {}, {}, 0), ("A", "B"))
    t = time.perf_counter()
    result = compare_scored(scored, rows, prepared, config, {"output": "output"}, "A", "B", "long", resamples=args.resamples)
    dt = time.perf_counter() - t
    for name, m in result.metrics.items():
        s = m.stats
        print(f"  {name:<11} n {s.n}  diff {s.mean_diff:+.4f} [{s.ci_low:+.4f}, {s.ci_high:+.4f}]  p {s.p_value:.3g} ({s.p_method})")
    print(f"compare figures, {n} cases x 5 metrics, {args.resamples} resamples: {dt:.2f} s (target < 5 s)")


if __name__ == "__main__":
    main()
