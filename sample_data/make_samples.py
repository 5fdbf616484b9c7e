"""Writes the bundled sample files. Run from the repo root: python sample_data/make_samples.py

* returns_desk.csv – 40 cases of a returns-desk assistant, version returns-assistant-v2:
  short answers, numbers and JSON actions, with formatting gaps that trip exact match
  (so exact and normalized differ) and near misses of every probe code.
* returns_desk.config.json – a configuration that runs the graders those cases exercise.
* returns_ab_wide.csv – the same cases answered by two prompt versions side by side
  (output, output_b).
* returns_ab_long.jsonl – two versions in long form, with three repeats per case.
* returns_assertions.jsonl – cases carrying promptfoo-style per-row assertions,
  including kinds Gradeboard does not run.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERSION = "returns-assistant-v2"

# (id, question, expected, output) — outputs are the v2 model's, formatting gaps included.
CASES = [
    ("r01", "Which carrier ships free returns?", "UPS", "UPS"),
    ("r02", "What do we call a refund to store balance?", "store credit", "Store credit"),
    ("r03", "Which form starts a return?", "return request", " return request "),
    ("r04", "What is the status after approval?", "approved", "approved."),
    ("r05", "What is the label called?", "prepaid label", "prepaid  label"),
    ("r06", "Which field holds the reason?", "refund_status", "refund status"),
    ("r07", "What is the policy name?", "Easy Returns", '"Easy Returns"'),
    ("r08", "Which team handles damaged items?", "claims", "ＣＬＡＩＭＳ"),
    ("r09", "Which warehouse receives returns?", "Reno", " 'reno'. "),
    ("r10", "What do customers need to show?", "receipt", "receipt"),
    ("r11", "Can sale items be returned?", "yes", "Yes!"),
    ("r12", "Who pays return shipping on damaged items?", "we do", "We do"),
    ("r13", "What is the exchange called?", "like-for-like exchange", "like-for-like exchange"),
    ("r14", "Which city is the returns hub in?", "Reno", "Sparks"),
    ("r15", "What is the support email?", "returns@example.com", "returns@example.com"),
    ("r16", "How are refunds issued?", "original payment method", "to the original payment method"),
    ("r17", "Is a restocking fee charged?", "no", "No."),
    ("r18", "What is the return window called?", "return window", "return\u00a0window"),
    ("r19", "What do we send after drop-off?", "confirmation email", "confirmation e-mail"),
    ("r20", "Which status means in transit?", "shipped", "shipped"),
    ("r21", "How many days is the return window?", "30", "You have 30 days."),
    ("r22", "How much is the restocking fee in percent?", "0", "0"),
    ("r23", "What is the refund for order A-1042?", "42", "The refund is $42.00."),
    ("r24", "How many business days until the refund posts?", "5", "3 to 5 business days"),
    ("r25", "What is the store credit bonus in percent?", "10", "10%"),
    ("r26", "How much is the shipping refund?", "7.95", "$7.95"),
    ("r27", "How many items can one label cover?", "3", "3"),
    ("r28", "What is the price of the replacement charger?", "1,299.00", "1299"),
    ("r29", "How many days for holiday returns?", "60", "45"),
    ("r30", "What is the return fee for oversized items?", "25", "It costs 25, or 0 with a label"),
    ("r31", "Refund order A-1042 in full.", '{"action": "refund", "order_id": "A-1042"}',
     '{"action": "refund", "order_id": "A-1042"}'),
    ("r32", "Exchange order B-77 for size M.", '{"action": "exchange", "order_id": "B-77"}',
     '```json\n{"action": "exchange", "order_id": "B-77"}\n```'),
    ("r33", "Send a label for order C-9.", '{"action": "label", "order_id": "C-9"}',
     '{"action": "label", "order_id": 9}'),
    ("r34", "Deny the return of order D-3.", '{"action": "deny", "order_id": "D-3"}',
     "\u3000{\"action\": \"deny\", \"order_id\": \"D-3\"}\u3000"),
    ("r35", "Escalate order E-5.", '{"action": "escalate", "order_id": "E-5"}',
     '{"action": "escalate", "order_id": "E-5", "note": "vip"'),
    ("r36", "What should the agent say first?", "Sorry for the trouble", "Sorry for the trouble with your order"),
    ("r37", "Which tracking prefix do returns use?", "RT", "rt-88341"),
    ("r38", "Summarize the damaged-item policy.",
     "Damaged items are refunded in full once the claims team reviews the photos.",
     "Damaged items get a full refund after the claims team reviews photos."),
    ("r39", "Summarize the late-return policy.",
     "Late returns within 14 days of the window get store credit instead of a refund.",
     "Returns up to 14 days late receive store credit rather than a refund."),
    ("r40", "What is the code for an approved return?", "RET_OK", "RET OK"),
]

SCHEMA = {
    "type": "object",
    "required": ["action", "order_id"],
    "properties": {
        "action": {"enum": ["refund", "exchange", "label", "deny", "escalate"]},
        "order_id": {"type": "string", "pattern": "^[A-Z]-\\d+$"},
    },
    "additionalProperties": False,
}

CONFIG = {
    "columns": {"id": "id", "expected": "expected", "output": "output", "input": "input", "version": "version"},
    "graders": [
        {"name": "exact"},
        {"name": "normalized", "pipeline": ["trim", "lower"]},
        {"name": "contains", "require": "any", "at": "anywhere"},
        {"name": "regex", "pattern": "^RT-\\d+$", "at": "whole", "flags": ""},
        {"name": "numeric", "read": "last", "abs_tol": 0.0, "rel_tol": 0.0},
        {"name": "json_schema", "schema": SCHEMA, "pre_parse": []},
        {"name": "token_f1", "normalize": "squad", "threshold": 0.8},
        {"name": "bleu", "threshold": None},
        {"name": "rouge_l", "threshold": 0.6},
        {"name": "chrf", "threshold": None},
    ],
    "overall": "any",
}

# The second prompt version: fixes most formatting gaps, breaks a few answers.
B_OUTPUTS = {
    "r02": "store credit", "r03": "return request", "r04": "approved", "r05": "prepaid label",
    "r06": "refund_status", "r07": "Easy Returns", "r09": "Reno", "r11": "yes", "r14": "Reno",
    "r17": "no", "r18": "return window", "r21": "30", "r23": "42", "r10": "a receipt",
    "r20": "delivered", "r27": "4", "r01": "FedEx", "r32": '{"action": "exchange", "order_id": "B-77"}',
    "r33": '{"action": "label", "order_id": "C-9"}',
}


def write_csv(path: Path, header: list[str], rows: list[list[str]], delimiter: str = ",") -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=delimiter, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def main() -> None:
    write_csv(
        HERE / "returns_desk.csv",
        ["id", "input", "expected", "output", "version"],
        [[i, q, e, o, VERSION] for i, q, e, o in CASES],
    )
    (HERE / "returns_desk.schema.json").write_text(json.dumps(SCHEMA, indent=2) + "\n", encoding="utf-8")
    config = dict(CONFIG)
    (HERE / "returns_desk.config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")

    write_csv(
        HERE / "returns_ab_wide.csv",
        ["id", "input", "expected", "output", "output_b"],
        [[i, q, e, o, B_OUTPUTS.get(i, o)] for i, q, e, o in CASES],
    )

    rng = random.Random(11)
    with open(HERE / "returns_ab_long.jsonl", "w", encoding="utf-8") as f:
        for i, q, e, o in CASES:
            for version, answer in (("returns-assistant-v1", o), ("returns-assistant-v2", B_OUTPUTS.get(i, o))):
                for repeat in range(3):
                    # Repeats of a sampled model differ now and then.
                    out = answer if rng.random() < 0.8 else rng.choice([answer.upper(), answer + ".", e])
                    f.write(json.dumps({"id": i, "version": version, "repeat": repeat, "input": q,
                                        "expected": e, "output": out}, ensure_ascii=False) + "\n")

    with open(HERE / "returns_assertions.jsonl", "w", encoding="utf-8") as f:
        for i, q, e, o in CASES[:12]:
            asserts = [
                {"type": "icontains", "value": e},
                {"type": "not-contains", "value": "sorry"},
                {"type": "llm-rubric", "value": "answers the question politely"},
            ]
            if i in ("r03", "r09"):
                asserts.append({"type": "regex", "value": "^\\s"})
            f.write(json.dumps({"id": i, "input": q, "expected": e, "output": o,
                                "assert": json.dumps(asserts), "metadata": {"harnessPass": i != "r14"}},
                               ensure_ascii=False) + "\n")
        for i, q, e, o in CASES[20:30]:
            asserts = [{"type": "numeric", "value": e, "read": "last"}, {"type": "javascript", "value": "output.length < 40"}]
            f.write(json.dumps({"id": i, "input": q, "expected": e, "output": o,
                                "assert": json.dumps(asserts), "metadata": {"harnessPass": True}},
                               ensure_ascii=False) + "\n")
        for i, q, e, o in CASES[30:35]:
            asserts = [{"type": "is-json"}, {"type": "json-schema", "value": SCHEMA}]
            f.write(json.dumps({"id": i, "input": q, "expected": e, "output": o,
                                "assert": json.dumps(asserts), "metadata": {"harnessPass": True}},
                               ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
