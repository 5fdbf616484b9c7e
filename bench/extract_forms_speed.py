"""Column speed of answer extraction: 200,000 realistic replies, each form's extract_many.

Reference, same rows, same run: ``pandas.Series.str.extract`` of an equivalent pattern
(the form's own pattern where one exists; pandas uses Python's ``re`` per row). Ratio =
our rows/s over pandas' rows/s (above 1: faster). Usage:

    python bench/extract_forms_speed.py [--rows 200000] [--repeat 3]

(``bench/extract_speed.py`` measures what extraction adds to a whole run of the graders.)
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graders.text import extract as E  # noqa: E402

STEPS = [
    "Let's think step by step.",
    "First, we compute the total cost: 12 * 3 = 36 dollars.",
    "Option A ignores the discount, so it overestimates the price.",
    "Option (B) double-counts the tax, which is a common mistake.",
    "The ratio is 3/4, i.e. 0.75 of the original 1,200 units.",
    "Since P(A) = 0.3 and P(B) = 0.5, the events are not independent.",
    "We substitute $x = 2$ into $f(x) = x^{2} + 1$ and get $5$.",
    "Checking the units: meters per second, as expected.",
    "Die Antwort hängt von der Größe ab — wir prüfen beide Fälle.",
    "Now consider the edge case where n = 0; the formula still holds.",
    "Rechecking the arithmetic: 48 / 2 = 24, and 48 + 24 = 72.",
    "This contradicts the assumption, so we discard that branch.",
]
ENDINGS = [
    lambda r: f"ANSWER: {r.choice('ABCD')}",
    lambda r: f"The answer is ({r.choice('ABCD')}).",
    lambda r: f"answer: {r.choice('abcd')}",
    lambda r: f"**Answer:** {r.choice('ABCD')}",
    lambda r: f"ANSWER: {r.choice('ABCD')}, {r.choice('ABCD')}",
    lambda r: f"#### {r.randint(-50, 5000):,}",
    lambda r: f"The final answer is $\\boxed{{\\frac{{{r.randint(1, 9)}}}{{{r.randint(2, 12)}}}}}$.",
    lambda r: f"So the result is $\\boxed{{{r.randint(0, 999)}}}$.",
    lambda r: f"{r.choice('ABCD')}) {r.choice(['Paris', 'Berlin', 'Rome', 'Madrid'])}",
    lambda r: "I'm not sure; could you clarify the question?",
    lambda r: f'```json\n{{"answer": "{r.choice("ABCD")}", "confidence": 0.{r.randint(10, 99)}}}\n```',
    lambda r: f"ANSWER: {r.choice(['yes', 'no', 'Paris', 'The Treaty of Versailles'])}",
]


def json_replies(n: int, seed: int = 1) -> list[str]:
    """Replies that are JSON, a third of them fenced, for the json_path form."""
    r = random.Random(seed)
    out = []
    for i in range(n):
        doc = json.dumps({
            "answer": r.choice(["A", "B", "C", "D", 42, 3.5, None, {"value": 7, "unit": "kg"}]),
            "confidence": round(r.random(), 2),
            "steps": [r.choice(STEPS) for _ in range(r.randint(0, 3))],
        }, indent=r.choice([None, 2]))
        out.append(f"```json\n{doc}\n```" if i % 3 == 0 else doc)
    return out


def replies(n: int, seed: int = 0) -> list[str]:
    r = random.Random(seed)
    out = []
    for _ in range(n):
        body = " ".join(r.choice(STEPS) for _ in range(r.randint(1, 8)))
        sep = r.choice(["\n", "\n\n", "\r\n", " "])
        out.append(body + sep + r.choice(ENDINGS)(r) + r.choice(["", "\n", "  "]))
    return out


# pandas equivalents (None: no pattern pandas' `re` can run for this form). pandas runs
# re.search; our `(?s:.*)…` forms run re.match, so pandas gets them anchored with \A
# (unanchored, search would retry the failed `.*` from every position: quadratic).
PANDAS = {
    "answer_letter": E.ANSWER_PATTERN_LETTER,
    "answer_word": E.ANSWER_PATTERN_WORD,
    "answer_line": E.ANSWER_PATTERN_LINE,
    "choice": rf"\A(?:{E._CHOICE.pattern})",
    "gsm8k": E.GSM8K_PATTERN,
    "last_number": rf"\A(?:{E._LAST_NUMBER.pattern})",
    "boxed": r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}",  # two levels only: `re` has no recursion
    "first_line": f"({E._FIRST_LINE.pattern})",
}
SPECS = list(E.NAMED_FORMS) + [
    {"regex": r"ANSWER:\s*([A-Z])", "which": "last"},
    {"json_path": "$.answer"},
]
REGEX_REFERENCE = r"\A(?s:.*)ANSWER:\s*([A-Z])"  # Python `re` spelling of "last match, group 1"


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = replies(args.rows)
    series = pd.Series(rows)  # pandas' default string dtype
    chars = sum(map(len, rows))
    print(f"{len(rows):,} replies, mean {chars / len(rows):.0f} characters; pandas {pd.__version__}, "
          f"Series dtype {series.dtype}; best of {args.repeat}")
    print(f"{'form':<34}{'rows/s':>12}{'pandas rows/s':>16}{'ratio':>8}  found")
    for spec in SPECS:
        ex = E.parse_extract(spec)
        if ex.form == "regex":
            E.extract_many(ex, rows[:100])  # start V8 outside the timing
        got = E.extract_many(ex, rows)
        ours = best(lambda ex=ex: E.extract_many(ex, rows), args.repeat)
        pattern = REGEX_REFERENCE if ex.form == "regex" else PANDAS.get(ex.form)
        if pattern is not None:
            flags = re.IGNORECASE if ex.form.startswith("answer_") else 0
            theirs = best(lambda p=pattern, f=flags: series.str.extract(p, flags=f, expand=False), args.repeat)
            ref = f"{len(rows) / theirs:>16,.0f}{theirs / ours:>8.2f}"
        else:
            ref = f"{'n/a':>16}{'':>8}"
        name = ex.describe() if isinstance(spec, str) else json.dumps(spec)
        found = sum(g is not None for g in got)
        print(f"{name[:33]:<34}{len(rows) / ours:>12,.0f}{ref}  {found / len(rows):.0%}")
    json_rows = json_replies(args.rows)
    ex = E.parse_extract({"json_path": "$.answer"})
    got = E.extract_many(ex, json_rows)
    ours = best(lambda: E.extract_many(ex, json_rows), args.repeat)
    print(f"{'json_path $.answer, JSON replies':<34}{len(rows) / ours:>12,.0f}{'n/a':>16}{'':>8}  "
          f"{sum(g is not None for g in got) / len(rows):.0%}")


if __name__ == "__main__":
    main()
