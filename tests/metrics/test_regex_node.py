"""The regex grader against Node.js itself: a golden table of what JavaScript says.

tests/files/regex_node_golden.json holds a few thousand cases (hand-picked Unicode-mode
traps plus seeded random patterns), each with Node's answer: a SyntaxError, or the
match's code-point span under the grader's anchoring (``start`` is sticky matching from
index 0, ``whole`` also ends at the end of the text). tests/files/make_regex_golden.py
writes it with tests/files/regex_node_truth.js. The grader must agree with every case,
except the short list of engine divergences below; and where node is on PATH, node must
still give the golden answers (so the file is honest).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from graders.engines.regex import ErrorResult, MatchResult, check_pattern, match_many

FILES = Path(__file__).resolve().parents[1] / "files"
GOLDEN = json.loads((FILES / "regex_node_golden.json").read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]

def _key(case: dict) -> tuple[str, str, str, str]:
    return case["pattern"], case["flags"], case["text"], case["at"]


def _grader_answers(cases: list[dict]) -> list[dict]:
    """The grader's answer per case, in the golden file's terms, in one batch per
    (pattern, flags, mode)."""
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for i, c in enumerate(cases):
        groups[c["pattern"], c["flags"], c["at"]].append(i)
    out: list[dict] = [{}] * len(cases)
    for (pattern, flags, at), idx in groups.items():
        if check_pattern(pattern, flags) is not None:
            for i in idx:
                out[i] = {"error": True, "span": None}
            continue
        for i, r in zip(idx, match_many(pattern, flags, at, [cases[i]["text"] for i in idx])):
            if isinstance(r, MatchResult):
                out[i] = {"error": False, "span": list(r.span) if r.span else None}
            else:
                out[i] = {"error": "engine", "message": r.message if isinstance(r, ErrorResult) else repr(r)}
    return out


def _js(case: dict) -> dict:
    return {"error": case["error"], "span": case["span"]}


def _show(case: dict, got: dict, who: str = "grader") -> str:
    return (f"pattern={case['pattern']!r} flags={case['flags']!r} text={case['text']!r} at={case['at']}: "
            f"golden {_js(case)}, {who} {got}")


def test_golden_table_is_broad():
    assert 1000 <= len(CASES) <= 5000
    assert sum(c["error"] for c in CASES) >= 200
    assert {c["at"] for c in CASES} == {"anywhere", "start", "whole"}
    assert len({_key(c) for c in CASES}) == len(CASES)


def test_grader_agrees_with_javascript():
    got = _grader_answers(CASES)
    bad = [_show(c, g) for c, g in zip(CASES, got) if g != _js(c)]
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(bad[:40])


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH: the golden answers are not re-derived")
def test_node_still_gives_the_golden_answers():
    sys.path.insert(0, str(FILES))
    try:
        from make_regex_golden import node_answers, node_versions
    finally:
        sys.path.remove(str(FILES))
    table = [{k: c[k] for k in ("pattern", "flags", "text", "at")} for c in CASES]
    try:
        answers = node_answers(table)
    except (subprocess.CalledProcessError, OSError) as e:
        pytest.fail(f"regex_node_truth.js failed: {e}")
    bad = [_show(c, {"error": a["error"], "span": a.get("span")}, "node") for c, a in zip(CASES, answers)
           if {"error": a["error"], "span": a.get("span")} != _js(c)]
    versions = node_versions()
    assert not bad, (f"node {versions} disagrees with the golden file (written by {GOLDEN['about']}) "
                     f"on {len(bad)} cases:\n" + "\n".join(bad[:20]))


@pytest.mark.parametrize("pattern,flags,message", [
    (r"\b+", "", "(Nothing to repeat)."),
    (r"a\B{2}", "v", "(Nothing to repeat)."),
    (r"[^\q{ab}]", "v", "(Negated character class may contain strings)."),
    (r"[\1]", "v", "(Invalid decimal escape)."),
    (r"\k<n>", "v", "(Invalid named capture referenced)."),
    ("}", "v", "is not a valid JavaScript regular expression"),
])
def test_syntax_errors_have_v8s_message(pattern, flags, message):
    msg = check_pattern(pattern, flags)
    assert msg is not None and message in msg
    if "Nothing to repeat" in message:
        assert "would compile without" not in msg  # JavaScript refuses it in every mode
