"""A comparison's figures by the value of one column of its file: A − B per slice (issue 33).

Settings, stated once (the slices themselves as ``scoring.slices`` has them: any column,
a dotted one too; a missing cell, absent or empty, is the last slice, with value None):

- A pair's slice is the cell of its A row, or of its B row where A has none (a wide
  file's A and B are one row of the file).
- Each slice's metrics are ``Comparison.metrics_of`` its pairs: the mean difference A − B
  with its 95% interval as the whole comparison computes it (Tango's score interval for a
  pass-or-fail grader, Rao-Scott adjusted with repeats; the bootstrap for a continuous
  one, whole cases resampled with repeats), each side's pass rate with its interval, wins,
  losses and ties, at the comparison's resamples and seed. Each p is unadjusted: a slice
  is a closer look; the verdict a release hangs on is the whole comparison's.
- ``pairs`` counts the slice's keys with both sides, ``a_only`` / ``b_only`` those with one.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from graders.readers.frame import ResultsFile
from graders.scoring.slices import MISSING, record_cells, slice_codes
from graders.scoring.summary import positions_by_code
from graders.text.show import quoted_name

_READ = ("item", "repeat", "version", "grader", "value_a", "value_b", "pass_a", "pass_b")
UNADJUSTED = "each slice's p is unadjusted (the Holm-adjusted verdict is the whole comparison's)"


def comparison_slices(comparison: Any, file: ResultsFile, column: str) -> dict[str, Any]:
    """``{"column", "missing", "side", "p", "slices": [{"value", "pairs", "a_only", "b_only",
    "metrics": {name: MetricComparison.to_dict()}}]}`` for a ``Comparison`` of ``file``."""
    pairs = comparison.pairs
    record = pairs["record_a"].where(pairs["record_a"].notna(), pairs["record_b"]).to_numpy(dtype=np.int64)
    codes, names = slice_codes(record_cells(file, column, record), column)
    groups = positions_by_code(codes, list(range(len(names))))
    first = (pairs["grader"] == next(iter(comparison.metrics))).to_numpy()  # one row per key
    outcome = pairs["outcome"].to_numpy(dtype=object)
    read = pairs[[c for c in pairs.columns if c in _READ]]  # what metrics_of reads: each slice takes these alone
    slices = []
    for k, name in enumerate(names):
        at = groups.get(k, np.empty(0, dtype=np.intp))
        keys = outcome[at[first[at]]]
        a_only, b_only = int((keys == "a only").sum()), int((keys == "b only").sum())
        metrics = comparison.metrics_of(read.iloc[at])
        slices.append({"value": name, "pairs": len(keys) - a_only - b_only, "a_only": a_only, "b_only": b_only,
                       "metrics": {n: m.to_dict() for n, m in metrics.items()}})
    return {"column": column, "missing": MISSING, "side": "a pair's slice is its A row's cell (B's where A has none)",
            "p": UNADJUSTED, "slices": slices}


def slice_lines(by: Mapping[str, Any]) -> list[str]:
    """The comparison report's slices: per slice and metric, n, A − B and its interval."""
    slices = by["slices"]
    lines = [f"by {quoted_name(by['column'])}: {len(slices)} slice{'' if len(slices) == 1 else 's'}; {UNADJUSTED}"]
    for s in slices:
        value = "(missing)" if s["value"] is None else quoted_name(str(s["value"]))
        lines.append(f"[{quoted_name(by['column'])} = {value}] {s['pairs']} pair{'' if s['pairs'] == 1 else 's'}")
        for name, m in s["metrics"].items():
            if not m["n"]:
                lines.append(f"  {name:<12} no pairs with both scores")
                continue
            low, high = m["ci95"]
            interval = "" if low is None or high is None else f" [{low:+.4f}, {high:+.4f}]"
            p = "" if m["p_value"] is None else f"  p {m['p_value']:.2g}"
            lines.append(f"  {name:<12} n {m['n']:>6}  A {m['mean_a']:.4f}  B {m['mean_b']:.4f}  "
                         f"A - B {m['mean_diff']:+.4f}{interval}{p}")
    return lines
