"""Sentence BLEU and chrF through ``graders.registry.grade`` against sacrebleu, same pairs.

    python bench/bleu_chrf_speed.py [N] [SEED]

Timing is CPU time over blocks of pairs, alternating ours and sacrebleu (which goes first
flips per block) and keeping each side's best of three runs per block, so other load on
the machine and its drift slow neither side more. The garbage collector stays on, but
runs to completion before each timed run, so neither side's collections land in the
other's time. Our reference caches are cleared before each of our runs: every
reference is new to us, as it is to sacrebleu.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sacrebleu  # noqa: E402

from graders._testing import pairs as generate  # noqa: E402
from graders.metrics import (
    bleu,  # noqa: E402
    chrf,  # noqa: E402
)
from graders.registry import grade  # noqa: E402

Pair = tuple[list[str], str]
BLOCK = 250
REPEAT = 3


def _interleaved(
    pairs: Sequence[Pair],
    ours: Callable[[Pair], object],
    theirs: Callable[[Pair], object],
    clear: Callable[[], None],
) -> tuple[float, float]:
    """Seconds of CPU time for each side: per block, the best of REPEAT runs, summed."""
    clock = time.process_time  # CPU time: other load on the machine does not count
    totals = [0.0, 0.0]
    for b, start in enumerate(range(0, len(pairs), BLOCK)):
        block = pairs[start : start + BLOCK]
        best = [float("inf"), float("inf")]
        for _ in range(REPEAT):
            for side in (0, 1) if b % 2 == 0 else (1, 0):
                if side == 0:
                    clear()  # every reference is new to us, as to sacrebleu
                fn = ours if side == 0 else theirs
                gc.collect()  # each side's run pays for its own garbage, not the other's
                t0 = clock()
                for p in block:
                    fn(p)
                best[side] = min(best[side], clock() - t0)
        totals[0] += best[0]
        totals[1] += best[1]
    return totals[0], totals[1]


def _check(pairs: Sequence[Pair], name: str, reference: Callable[[str, list[str]], object]) -> int:
    return sum(abs(grade(name, refs, out).score - reference(out, refs).score / 100) > 1e-9 for refs, out in pairs)


def bench_bleu(pairs: Sequence[Pair]) -> tuple[float, float]:
    """(our seconds, sacrebleu seconds) for sentence BLEU over ``pairs`` of (refs, output)."""
    return _interleaved(
        pairs,
        lambda p: grade("bleu", p[0], p[1]),
        lambda p: sacrebleu.sentence_bleu(p[1], p[0]),
        bleu.clear_caches,
    )


def bench_chrf(pairs: Sequence[Pair]) -> tuple[float, float]:
    """(our seconds, sacrebleu seconds) for sentence chrF over ``pairs`` of (refs, output)."""
    return _interleaved(
        pairs,
        lambda p: grade("chrf", p[0], p[1]),
        lambda p: sacrebleu.sentence_chrf(p[1], p[0]),
        chrf.clear_caches,
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 2024
    pairs = list(generate(n, seed=seed))
    print(f"{n} pairs, seed {seed}")
    for name, fn, reference in (
        ("bleu", bench_bleu, sacrebleu.sentence_bleu),
        ("chrf", bench_chrf, sacrebleu.sentence_chrf),
    ):
        ours, theirs = fn(pairs)
        mismatches = _check(pairs, name, reference)
        print(
            f"{name:5} ours {n / ours:8.0f} rows/s  sacrebleu {n / theirs:8.0f} rows/s  "
            f"ratio {theirs / ours:5.2f}x  mismatches {mismatches}"
        )


if __name__ == "__main__":
    main()
