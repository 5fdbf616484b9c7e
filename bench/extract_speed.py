"""What answer extraction (SPEC §9) adds to a large run: the cheap four graders (exact,
normalized, contains, numeric) on the same rows without ``extract`` and with it
(``gsm8k``, ``answer_letter``), in the same run.

    python bench/extract_speed.py [--rows 200000] [--repeat 3] [--workers 1]

Rows: realistic replies (a few sentences of reasoning, then an ending: a GSM8K ``#### N``
line, an Inspect ``ANSWER: X`` line, or neither), expected a number or a letter to match.
Each configuration is scored as the command line scores it after reading (``score_to_csv``
into a scored file, ``--workers`` processes), the configurations alternated ``--repeat``
times; the best time of each is reported, with its ratio to the run without extraction,
and the share of rows where something was extracted. Also the extraction alone
(``extract_many`` over the outputs) for each form.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graders.config import RunConfig  # noqa: E402
from graders.readers import read_results  # noqa: E402
from graders.scoring.parallel import score_to_csv  # noqa: E402
from graders.scoring.rows import prepare  # noqa: E402
from graders.text.extract import extract_many, parse_extract  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from extract_forms_speed import STEPS as REPLY_STEPS  # noqa: E402

STEPS = REPLY_STEPS  # the reasoning sentences the forms' bench writes too
CHEAP_FOUR = ("exact", "normalized", "contains", "numeric")
FORMS = ("gsm8k", "answer_letter")


def rows(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """(expected, output): half GSM8K-style, half multiple choice; a tenth end with neither."""
    r = random.Random(seed)
    out = []
    for i in range(n):
        body = " ".join(r.choice(STEPS) for _ in range(r.randint(1, 6)))
        if i % 2:
            expected = str(r.randint(0, 5000))
            got = expected if r.random() < 0.7 else str(r.randint(0, 5000))
            end = f"\n#### {int(got):,}" if r.random() < 0.9 else f" So the answer is {got}."
        else:
            expected = r.choice("ABCD")
            got = expected if r.random() < 0.6 else r.choice("ABCD")
            end = f"\nANSWER: {got}" if r.random() < 0.9 else f" I would pick ({got})."
        out.append((expected, body + end))
    return out


def write(path: Path, data: list[tuple[str, str]]) -> None:
    import csv

    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "expected", "output"])
        for i, (e, o) in enumerate(data):
            w.writerow([i, e, o])


def config(extract: str | None) -> RunConfig:
    params = {} if extract is None else {"extract": extract}
    graders = [{"name": g, **params, **({"read": "last"} if g == "numeric" else {})} for g in CHEAP_FOUR]
    return RunConfig.from_dict({"graders": graders})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    data = rows(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "rows.csv"
        write(src, data)
        file = read_results(str(src))
        prepared = prepare(file, {"id": "id", "expected": "expected", "output": "output"}, needs_expected=True)
        runs = {"no extract": config(None), **{f"extract={f}": config(f) for f in FORMS}}
        best = {name: float("inf") for name in runs}
        for _ in range(args.repeat):
            for name, cfg in runs.items():
                t = time.perf_counter()
                score_to_csv(prepared.rows, cfg, os.path.join(tmp, "scored.csv"), workers=args.workers)
                best[name] = min(best[name], time.perf_counter() - t)
        outputs = list(prepared.rows["output"])
        alone = {}
        for form in FORMS:
            ex = parse_extract(form)
            t = time.perf_counter()
            got = extract_many(ex, outputs)
            alone[form] = (time.perf_counter() - t, sum(g is not None for g in got) / len(got))
    print(f"{len(data):,} rows, graders {', '.join(CHEAP_FOUR)} (numeric read=last), workers {args.workers}, "
          f"best of {args.repeat}, scored file written")
    base = best["no extract"]
    for name, t in best.items():
        print(f"  {name:<22} {t:7.3f} s   ratio {t / base:5.2f}")
    for form, (t, share) in alone.items():
        print(f"  extract_many {form:<13} {t:7.3f} s   ({share:.0%} of rows have an answer)")


if __name__ == "__main__":
    main()
