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

import re
import string
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graders import grade  # noqa: E402
from graders.pairgen import pairs as generate_pairs  # noqa: E402


# --- SQuAD v1.1 evaluate-v1.1.py, verbatim -------------------------------------------
def normalize_answer(s):
    """Lower text and remove punctuation, articles and extra whitespace."""
    def remove_articles(text):
        return re.sub(r'\b(a|an|the)\b', ' ', text)

    def white_space_fix(text):
        return ' '.join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return ''.join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth):
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def metric_max_over_ground_truths(metric_fn, prediction, ground_truths):
    scores_for_ground_truths = []
    for ground_truth in ground_truths:
        score = metric_fn(prediction, ground_truth)
        scores_for_ground_truths.append(score)
    return max(scores_for_ground_truths)
# --------------------------------------------------------------------------------------


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
    print(f"{n:,} generated pairs (graders.pairgen, seed 2024)")
    print(f"{'grader':<10} {'ours rows/s':>12} {'ref rows/s':>12} {'ratio':>7}  reference")
    for name, bench, label in (
        ("rouge_l", bench_rouge, "rouge_score RougeScorer rougeL"),
        ("token_f1", bench_token_f1, "SQuAD v1.1 f1_score"),
    ):
        ours, ref = bench(pairs)
        print(f"{name:<10} {n / ours:>12,.0f} {n / ref:>12,.0f} {ref / ours:>6.1f}x  {label}")


if __name__ == "__main__":
    main(sys.argv)
