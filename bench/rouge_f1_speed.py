"""Speed of rouge_l and token_f1 against their references, on the same pairs.

    python bench/rouge_f1_speed.py [N]      # N generated pairs, default 20,000

``bench_rouge(pairs)`` and ``bench_token_f1(pairs)`` take a list of (refs, output) and
return (our_seconds, reference_seconds): CPU seconds, the two run in alternating chunks
so that a busy machine slows both alike. Ours is timed through the public ``grade()``,
parameter checks and the ``Grade`` with its explanation included. The references are
rouge_score's ``RougeScorer(["rougeL"]).score_multi`` and the SQuAD v1.1 script's
``metric_max_over_ground_truths(f1_score, ...)``. Both functions assert that the scores
agree: rouge_l on the pairs that are all ASCII, token_f1 on every pair except where a
reference and the output are both empty after normalization (1 for us, 0 for v1.1).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "metrics"))

from squad_v11 import f1_score, metric_max_over_ground_truths, normalize_answer  # noqa: E402  (the script, verbatim)

from graders import grade  # noqa: E402
from graders._testing import pairs as generate_pairs  # noqa: E402


def _race(ours, reference, pairs, chunk=500):
    """CPU seconds and scores of two scorers, run in alternating chunks of ``pairs``.

    Alternating chunks and CPU time (not wall time) keep the ratio fair on a busy machine.
    """
    clock = time.process_time
    seconds = [0.0, 0.0]
    scores = ([], [])
    for i in range(0, len(pairs), chunk):
        part = pairs[i : i + chunk]
        for j, fn in enumerate((ours, reference)):
            start = clock()
            scores[j].extend([fn(refs, out) for refs, out in part])
            seconds[j] += clock() - start
    return seconds, scores


def bench_rouge(pairs):
    """(our_seconds, reference_seconds) for rouge_l over ``pairs``."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    (ours, ref), (our_scores, ref_scores) = _race(
        lambda refs, out: grade("rouge_l", refs, out).score,
        lambda refs, out: scorer.score_multi(refs, out)["rougeL"].fmeasure,
        pairs,
    )
    for (refs, out), a, b in zip(pairs, our_scores, ref_scores):
        if out.isascii() and all(r.isascii() for r in refs):
            assert abs(a - b) <= 1e-9, (refs, out, a, b)
    return ours, ref


def bench_token_f1(pairs):
    """(our_seconds, reference_seconds) for token_f1 over ``pairs``."""
    (ours, ref), (our_scores, ref_scores) = _race(
        lambda refs, out: grade("token_f1", refs, out).score,
        lambda refs, out: metric_max_over_ground_truths(f1_score, out, refs),
        pairs,
    )
    for (refs, out), a, b in zip(pairs, our_scores, ref_scores):
        both_empty = not normalize_answer(out) and any(not normalize_answer(r) for r in refs)
        assert (a == 1.0) if both_empty else abs(a - b) <= 1e-9, (refs, out, a, b)
    return ours, ref


def main(argv: list[str]) -> None:
    n = int(argv[1]) if len(argv) > 1 else 20_000
    pairs = list(generate_pairs(n, seed=2024))
    print(f"{n:,} generated pairs (graders._testing, seed 2024)")
    print(f"{'grader':<10} {'ours rows/s':>12} {'ref rows/s':>12} {'ratio':>7}  reference")
    for name, bench, label in (
        ("rouge_l", bench_rouge, "rouge_score RougeScorer rougeL"),
        ("token_f1", bench_token_f1, "SQuAD v1.1 f1_score"),
    ):
        ours, ref = bench(pairs)
        print(f"{name:<10} {n / ours:>12,.0f} {n / ref:>12,.0f} {ref / ours:>6.1f}x  {label}")


if __name__ == "__main__":
    main(sys.argv)
