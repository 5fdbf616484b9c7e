"""Per-row assertions judged as promptfoo judges them: every verdict equal to promptfoo's own.

``tests/files/promptfoo_assertions/results.json.gz`` is a promptfoo results file of 10,000
seeded rows and 59,515 assertions of promptfoo's kinds (regex, is-json, contains-json, is-xml,
contains-xml, levenshtein, rouge-n, latency, cost, each also with ``not-``), and
``verdicts.json`` what promptfoo 0.121.20's in-process ``runAssertion`` said of each, both
written by ``make_golden.mjs`` beside them. The file is scored here as a user scores it
(``score_file``: the promptfoo reader, the rows, the batch layer), and every verdict must
equal promptfoo's but for the deliberate differences the README states, listed in
``EXCEPTIONS``. With promptfoo installed (``npm install --prefix tests/js``), the live tests
run it: on the golden file (it must still say the same) and on a fresh seeded file.
"""

from __future__ import annotations

import collections
import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from graders.config import RunConfig
from graders.pipeline import score_file

TESTS = Path(__file__).resolve().parents[1]
HERE = TESTS / "files" / "promptfoo_assertions"
MAKE = HERE / "make_golden.mjs"
PROMPTFOO = TESTS / "js" / "node_modules" / "promptfoo"
NODE = shutil.which("node")

# The README's deliberate differences ("Per-row assertions"), the only verdicts allowed to differ.
EXCEPTIONS = {
    "invalid regex": "a pattern JavaScript refuses is an error row here (the file's mistake, not the output's); "
                     "promptfoo counts it as a fail (\"Invalid regex pattern\")",
    "empty output": "a row with an empty output is left out (\"no output\", SPEC §5), so its assertions are not run",
}
_CODE = {"pass": "p", "fail": "f", "error": "e", "not_judged": "e"}

live = pytest.mark.skipif(not (PROMPTFOO.is_dir() and NODE), reason="promptfoo not installed: npm install --prefix tests/js")


def _unpacked(gz: Path, tmp_path: Path) -> Path:
    path = tmp_path / "results.json"
    path.write_bytes(gzip.decompress(gz.read_bytes()))
    return path


def _ours(path: Path) -> tuple[dict, dict]:
    """Our grades by (row, assertion index): (verdict code, status, details, score); the
    promptfoo file's rows."""
    run = score_file(path, RunConfig.from_dict({"graders": []}), workers=1)
    s = run.scored
    s = s[s["scorer"].str.startswith("assert:")]
    got = {}
    for item, scorer, status, details, score in zip(s["item"], s["scorer"], s["status"], s["details"], s["score"]):
        got[int(item.split()[1]) - 1, int(scorer.split(":")[1])] = (_CODE[status], status, details, score)
    return got, json.loads(path.read_text(encoding="utf-8"))["results"]["results"]


def _compare(rows: list, verdicts: list[str], ours: dict, scores: dict | None = None) -> tuple[collections.Counter, list]:
    """(the deliberate differences met, by name; every other difference)."""
    allowed: collections.Counter = collections.Counter()
    wrong = []
    for i, line in enumerate(verdicts):
        r = rows[i]
        for j, want in enumerate(line):
            a = r["testCase"]["assert"][j]
            kind = a["type"].removeprefix("not-")
            if (i, j) not in ours:
                if r["response"]["output"] == "":
                    allowed["empty output"] += 1
                else:
                    wrong.append((i + 1, a, repr(r["response"]["output"])[:80], want, "not scored"))
                continue
            code, status, details, score = ours[i, j]
            if code == want:
                if scores is not None and kind == "rouge-n" and f"{i}:{j}" in scores and code != "e":
                    pf = scores[f"{i}:{j}"]  # promptfoo reports 1 - score under not-; the measurement is ours
                    ours_pf = 1 - float(score) if a["type"].startswith("not-") else float(score)
                    if ours_pf != pf:
                        wrong.append((i + 1, a, repr(r["response"]["output"])[:80], f"score {pf}", f"score {ours_pf}"))
                continue
            if kind == "regex" and want == "f" and status == "error" and details.get("reason") == "syntax":
                allowed["invalid regex"] += 1
                continue
            wrong.append((i + 1, a, repr(r["response"]["output"])[:80], want, code))
    return allowed, wrong


def test_every_verdict_equals_promptfoo_on_the_golden_file(tmp_path):
    golden = json.loads((HERE / "verdicts.json").read_text(encoding="utf-8"))
    ours, rows = _ours(_unpacked(HERE / "results.json.gz", tmp_path))
    assert golden["rows"] == len(rows) == 10_000 and golden["assertions"] == sum(map(len, golden["verdicts"])) >= 50_000
    kinds = collections.Counter(a["type"].removeprefix("not-") for r in rows for a in r["testCase"]["assert"])
    assert set(kinds) == {"regex", "is-json", "contains-json", "is-xml", "contains-xml", "levenshtein", "rouge-n",
                          "latency", "cost"}
    allowed, wrong = _compare(rows, golden["verdicts"], ours, golden["rouge_n_scores"])
    assert not wrong, f"{len(wrong)} verdicts differ from promptfoo's, first: {wrong[:5]}"
    assert set(allowed) <= set(EXCEPTIONS)
    agree = golden["assertions"] - sum(allowed.values())
    assert agree / golden["assertions"] > 0.95, allowed


@live
def test_promptfoo_still_says_what_the_golden_file_says():
    golden = json.loads((HERE / "verdicts.json").read_text(encoding="utf-8"))
    done = subprocess.run([NODE, str(MAKE), "--judge", str(HERE / "results.json.gz"), "2000"], capture_output=True,
                          text=True, timeout=600, check=True)
    assert json.loads(done.stdout)["verdicts"] == golden["verdicts"][:2000]


@live
def test_every_verdict_equals_promptfoo_live_on_a_fresh_seeded_file(tmp_path):
    subprocess.run([NODE, str(MAKE), "--seed", "7", "--rows", "1500", "--out", str(tmp_path)], capture_output=True,
                   text=True, timeout=600, check=True)
    fresh = json.loads((tmp_path / "verdicts.json").read_text(encoding="utf-8"))
    ours, rows = _ours(_unpacked(tmp_path / "results.json.gz", tmp_path))
    allowed, wrong = _compare(rows, fresh["verdicts"], ours, fresh["rouge_n_scores"])
    assert not wrong, f"{len(wrong)} verdicts differ from promptfoo's, first: {wrong[:5]}"
    assert set(allowed) <= set(EXCEPTIONS)
