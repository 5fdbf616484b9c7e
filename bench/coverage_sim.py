"""How often the A-versus-B intervals cover the truth (issue 34): a benchmark, not a test.

    python bench/coverage_sim.py [--reps 2000] [--resamples 1000] [--only KIND ...]

Nominal 95% everywhere; n = 12, 20, 40 and 100 cases. Prints one Markdown table (the
README's) and the seconds each part took.

* pass-or-fail, no repeats: the issue's discordance rates, P(A passes, B fails) /
  P(A fails, B passes) = .05 / .15 and .02 / .08. Coverage is exact, not simulated: every
  outcome (b, c) is enumerated with its multinomial probability, and each outcome's
  interval computed once (the bootstrap with its seed, as the command line's default).
* pass-or-fail, 5 repeats per case: the same marginal rates, repeats of a case sharing
  its propensity to differ (40% of cases carry all of the discordance), simulated.
* continuous: two score-difference laws a grader gives: "ties" (about 60% of pairs tie,
  atoms at +-1, the rest spread, like token F1), and "skewed" (70% tie, B sometimes far
  better); and "ties" with 5 repeats per case (a case effect), simulated.
* per-side pass rate with 5 repeats: Wilson over rows (before) and Wilson at n / design
  effect (now), for a pass rate of .6 with repeats correlated within a case, simulated.

A simulated cell's Monte Carlo standard error is about 0.5 points at 2,000 repetitions.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graders.stats.bca import intervals_by  # noqa: E402
from graders.stats.binary import clustered_pass_rate, paired_rate_interval, tango_interval  # noqa: E402
from graders.stats.bootstrap import _bootstrap_means, _unit_sums  # noqa: E402
from graders.stats.intervals import wilson_interval  # noqa: E402

NS = (12, 20, 40, 100)
RATES = ((0.05, 0.15), (0.02, 0.08))
REPEATS = 5


def _log_multinomial(n: int, b: int, c: int, p12: float, p21: float) -> float:
    rest = n - b - c
    return (math.lgamma(n + 1) - math.lgamma(b + 1) - math.lgamma(c + 1) - math.lgamma(rest + 1)
            + b * math.log(p12) + c * math.log(p21) + rest * math.log(1 - p12 - p21))


def _percentile_pass_fail(b: int, c: int, n: int, resamples: int, seed: int) -> tuple[float, float]:
    d = np.zeros(n)
    d[:b], d[b:b + c] = 1.0, -1.0
    means = _bootstrap_means(d[None, :], None, resamples, seed)
    low, high, _ = intervals_by("percentile", means, d[None, :], None, 0.95)
    return float(low[0]), float(high[0])


def exact_pass_fail(resamples: int) -> dict[str, dict[int, float]]:
    """Exact coverage of Tango's interval and of the percentile bootstrap (before)."""
    out: dict[str, dict[int, float]] = {}
    for p12, p21 in RATES:
        truth = p12 - p21
        tango, boot = {}, {}
        for n in NS:
            cov_t = cov_b = 0.0
            for b in range(n + 1):
                for c in range(n + 1 - b):
                    prob = math.exp(_log_multinomial(n, b, c, p12, p21))
                    if prob < 1e-13:
                        continue
                    lo, hi = tango_interval(b, c, n)
                    cov_t += prob * (lo <= truth <= hi)
                    lo, hi = _percentile_pass_fail(b, c, n, resamples, 0)
                    cov_b += prob * (lo - 1e-12 <= truth <= hi + 1e-12)
            tango[n], boot[n] = cov_t, cov_b
        label = f"pass-or-fail, {p12:.2f} / {p21:.2f}"
        out[f"{label}: Tango score (now), exact"] = tango
        out[f"{label}: percentile bootstrap (before), exact"] = boot
    return out


def _repeated_pass_fail(rng: np.random.Generator, cases: int, p12: float, p21: float) -> tuple[np.ndarray, ...]:
    """Pass/fail of A and B for ``cases`` x REPEATS rows: 40% of cases carry the discordance."""
    prone = np.repeat(rng.random(cases) < 0.4, REPEATS)
    u = rng.random(cases * REPEATS)
    a_only = prone & (u < p12 / 0.4)
    b_only = prone & (u >= p12 / 0.4) & (u < (p12 + p21) / 0.4)
    both = ~a_only & ~b_only & (rng.random(cases * REPEATS) < 0.5)
    pa = (a_only | both).astype(float)
    pb = (b_only | both).astype(float)
    return pa, pb, np.repeat(np.arange(cases), REPEATS)


def simulated_pass_fail_repeats(reps: int, resamples: int) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for p12, p21 in RATES:
        truth = p12 - p21
        now, before = {}, {}
        rng = np.random.default_rng(34)
        for n in NS:
            hit_now = hit_before = 0
            for r in range(reps):
                pa, pb, ids = _repeated_pass_fail(rng, n, p12, p21)
                lo, hi, _ = paired_rate_interval(pa, pb, ids)
                hit_now += lo <= truth <= hi
                sums, sizes = _unit_sums(pa - pb, ids)  # every case repeats: sizes are its rows
                means = _bootstrap_means(sums[None, :], sizes, resamples, r)
                low, high, _ = intervals_by("percentile", means, sums[None, :], sizes, 0.95)
                hit_before += low[0] - 1e-12 <= truth <= high[0] + 1e-12
            now[n], before[n] = hit_now / reps, hit_before / reps
        label = f"pass-or-fail, {p12:.2f} / {p21:.2f}, {REPEATS} repeats"
        out[f"{label}: Tango, Rao-Scott (now)"] = now
        out[f"{label}: cluster percentile bootstrap (before)"] = before
    return out


def _continuous(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "skewed":  # most cases tie, B is sometimes far better
        u = rng.random(n)
        return np.where(u < 0.7, 0.0, np.where(u < 0.78, rng.uniform(0, 0.3, n), -rng.beta(4, 2, n)))

    def side(p1: float, p0: float) -> np.ndarray:
        u = rng.random(n)
        return np.where(u < p1, 1.0, np.where(u < p1 + p0, 0.0, rng.beta(3, 2, n)))

    same = rng.random(n) < 0.5
    a = side(0.5, 0.2)
    return a - np.where(same, a, side(0.4, 0.2))


def _truth(kind: str) -> float:
    return float(np.mean(_continuous(np.random.default_rng(0), 4_000_000, kind)))


CONTINUOUS_METHODS = (("expanded", "expanded percentile (now)"), ("bca", "BCa"),
                      ("percentile", "percentile (before)"))


def simulated_continuous(reps: int, resamples: int) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for kind, repeats in (("ties", 1), ("skewed", 1), ("ties", REPEATS)):
        truth = _truth(kind)
        hits = {m: {} for m, _ in CONTINUOUS_METHODS}
        rng = np.random.default_rng(7)
        for n in NS:
            counts = dict.fromkeys(hits, 0)
            for r in range(reps):
                if repeats == 1:
                    sums, sizes = _continuous(rng, n, kind), None
                else:  # a case effect shared by its repeats, plus each repeat's own difference
                    case = np.repeat(_continuous(rng, n, kind), repeats)
                    rows = 0.5 * case + 0.5 * _continuous(rng, n * repeats, kind)
                    sums, sizes = _unit_sums(rows, np.repeat(np.arange(n), repeats))
                means = _bootstrap_means(sums[None, :], sizes, resamples, r)
                for method in hits:
                    low, high, _ = intervals_by(method, means, sums[None, :], sizes, 0.95)
                    counts[method] += low[0] - 1e-12 <= truth <= high[0] + 1e-12
            for method in hits:
                hits[method][n] = counts[method] / reps
        label = f"continuous, {kind}" + (f", {repeats} repeats" if repeats > 1 else "")
        for method, name in CONTINUOUS_METHODS:
            out[f"{label}: {name}"] = hits[method]
    return out


def simulated_pass_rates(reps: int) -> dict[str, dict[int, float]]:
    """One side's pass rate .6 over cases x 5 repeats, each case's repeats passing with its
    own probability (Beta(1.2, 0.8): an ICC of 0.5)."""
    rng = np.random.default_rng(5)
    rows, clustered = {}, {}
    for n in NS:
        hit_rows = hit_cases = 0
        for _ in range(reps):
            p_case = np.repeat(rng.beta(1.2, 0.8, n), REPEATS)
            passed = (rng.random(n * REPEATS) < p_case).astype(float)
            lo, hi = wilson_interval(int(passed.sum()), len(passed))
            hit_rows += lo <= 0.6 <= hi
            rate = clustered_pass_rate(passed, np.repeat(np.arange(n), REPEATS))
            hit_cases += rate.low <= 0.6 <= rate.high
        rows[n], clustered[n] = hit_rows / reps, hit_cases / reps
    return {f"pass rate .6, {REPEATS} repeats (ICC .5): Wilson at n / design effect (now)": clustered,
            f"pass rate .6, {REPEATS} repeats (ICC .5): Wilson over rows (before)": rows}


def table(results: dict[str, dict[int, float]]) -> str:
    lines = ["| Interval (nominal 95%) | " + " | ".join(f"n = {n}" for n in NS) + " |",
             "|---|" + "---:|" * len(NS)]
    for name, cells in results.items():
        lines.append(f"| {name} | " + " | ".join(f"{100 * cells[n]:.1f}" for n in NS) + " |")
    return "\n".join(lines)


PARTS = {"exact": lambda a: exact_pass_fail(a.resamples),
         "repeats": lambda a: simulated_pass_fail_repeats(a.reps, a.resamples),
         "continuous": lambda a: simulated_continuous(a.reps, a.resamples),
         "rates": lambda a: simulated_pass_rates(a.reps)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000, help="simulated data sets per cell (default 2000)")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per interval (default 1000)")
    ap.add_argument("--only", nargs="*", choices=list(PARTS), help="run only these parts")
    args = ap.parse_args()
    results: dict[str, dict[int, float]] = {}
    for name in args.only or PARTS:
        t0 = time.perf_counter()
        results.update(PARTS[name](args))
        print(f"{name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
