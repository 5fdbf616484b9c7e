"""Each overlap grader and the JSON Schema grader against its reference library, on the
same 20,000 generated pairs, scores checked identical as they run.

    python bench/graders_bench.py [N]

Prints rows per second for ours (through ``graders.registry.grade``) and for the reference,
the ratio, and the issue's target. The per-metric timing helpers live beside this file
(bleu_chrf_speed.py, rouge_f1_speed.py, json_schema_speed.py) and can run alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bleu_chrf_speed  # noqa: E402
import json_schema_speed  # noqa: E402
import rouge_f1_speed  # noqa: E402

from graders._testing import pairs as generate  # noqa: E402

TARGETS = {"bleu": 3.0, "chrf": 2.0, "rouge_l": 10.0, "token_f1": 2.0, "json_schema": 1.0}
REFERENCES = {
    "bleu": "sacrebleu.sentence_bleu",
    "chrf": "sacrebleu.sentence_chrf",
    "rouge_l": "rouge_score rougeL",
    "token_f1": "SQuAD v1.1 f1_score",
    "json_schema": "a prebuilt Draft202012Validator.is_valid per row",
}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    pairs = list(generate(n, seed=2024))
    outputs = json_schema_speed.rows(n)
    runs = {
        "bleu": lambda: bleu_chrf_speed.bench_bleu(pairs),
        "chrf": lambda: bleu_chrf_speed.bench_chrf(pairs),
        "rouge_l": lambda: rouge_f1_speed.bench_rouge(pairs),
        "token_f1": lambda: rouge_f1_speed.bench_token_f1(pairs),
        "json_schema": lambda: json_schema_speed.bench_json_schema(outputs, json_schema_speed.SCHEMA),
    }
    print(f"{n:,} pairs per grader (graders._testing seed 2024; JSON outputs for json_schema)")
    print(f"{'grader':<12}{'ours rows/s':>13}{'ref rows/s':>13}{'ratio':>8}{'target':>8}  reference")
    for name, run in runs.items():
        ours, ref = run()
        ratio = ref / ours
        flag = "ok" if ratio >= TARGETS[name] else "MISSED"
        print(f"{name:<12}{n / ours:>13,.0f}{n / ref:>13,.0f}{ratio:>7.1f}x{TARGETS[name]:>7.0f}x  {REFERENCES[name]}  {flag}")


if __name__ == "__main__":
    main()
