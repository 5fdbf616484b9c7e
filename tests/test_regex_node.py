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

from graders.ecma import ErrorResult, MatchResult, check_pattern, match_many

FILES = Path(__file__).resolve().parent / "files"
GOLDEN = json.loads((FILES / "regex_node_golden.json").read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]

# Where regress cannot give JavaScript's answer and no faithful rewrite exists (the
# rewrites that do exist are in graders/ecma.py, "Where regress departs from JavaScript").
# Each (pattern, flags, text) is an xfail(strict=True) over the three modes below, and is
# left out of test_grader_agrees_with_javascript.
_V_I_COMPLEMENT = (
    "regress gives v + i the u-mode meaning of a complement: ECMA-262 folds \\p{…} first "
    "(MaybeSimpleCaseFolding) and complements within the code points that fold to themselves, "
    "so under vi \\P{Lu} and \\P{Ll} match neither A nor a, [^\\P{Lu}] matches both, "
    "and [\\p{L}--\\p{Lu}] matches neither"
)
_EMPTY_STRING = "regress never matches the empty string of \\q{} in a v-mode class"
_SURROGATE = ("texts reach regress as UTF-8, so a lone surrogate is matched as U+FFFD "
              "(graders.ecma's docstring); JavaScript matches it as itself")
_COUNTED_REPEAT = ("regress gives back nothing of a greedy atom inside a repeated group to the next round of a "
                   "counted repeat ({2} and up): ((a+)+){2} does not match aa")
_EMPTY_LOOP = ("regress never ends nested stars that can match empty (ECMAScript ends a round that matched "
               "nothing): the time limit turns it into an error, where JavaScript answers at once")
_SELF_BACKREF = ("regress fails a group's backreference to itself inside an alternative, which JavaScript "
                 "matches as empty (the group has no value yet)")
DIVERGENCES: list[tuple[str, str, list[str], str]] = [
    (r"((a+)+){2}", "", ["aa"], _COUNTED_REPEAT),
    (r"(?:(?:\d+)+){3}", "", ["123"], _COUNTED_REPEAT),
    (r"(?:(?:a|)*)*x", "", ["a"], _EMPTY_LOOP),
    (r"(a|\1)a", "", ["a"], _SELF_BACKREF),
    (r"\P{Lu}", "vi", ["A", "a"], _V_I_COMPLEMENT),
    (r"\P{Ll}", "vi", ["A", "a"], _V_I_COMPLEMENT),
    (r"[^\P{Lu}]", "vi", ["A", "a"], _V_I_COMPLEMENT),
    (r"[\p{L}--\p{Lu}]", "vi", ["A", "a"], _V_I_COMPLEMENT),
    (r"[\q{}]", "v", ["", "a"], _EMPTY_STRING),
    (r"^[\q{}a]$", "v", [""], _EMPTY_STRING),
    (r"^\p{Cs}$", "", ["\ud800", "\udfff"], _SURROGATE),
    (r"\ufffd", "", ["\ud800"], _SURROGATE),
]
KNOWN = {(p, f, t): why for p, f, texts, why in DIVERGENCES for t in texts}


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
    assert set(KNOWN) <= {_key(c)[:3] for c in CASES}


def test_grader_agrees_with_javascript():
    got = _grader_answers(CASES)
    bad = [_show(c, g) for c, g in zip(CASES, got) if _key(c)[:3] not in KNOWN and g != _js(c)]
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(bad[:40])


@pytest.mark.parametrize("key", [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=why), id=repr(k))
                                 for k, why in KNOWN.items()])
def test_known_engine_divergence(key):
    cases = [c for c in CASES if _key(c)[:3] == key]
    assert len(cases) == 3
    assert _grader_answers(cases) == [_js(c) for c in cases]


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
    (r"[\1]", "v", "(Invalid class escape)."),
    (r"\k<n>", "v", "(Backreference to invalid named capture group: n)."),
    ("}", "v", "is not a valid JavaScript regular expression"),
])
def test_syntax_errors_regress_misses_have_a_message(pattern, flags, message):
    msg = check_pattern(pattern, flags)
    assert msg is not None and message in msg
    if "Nothing to repeat" in message:
        assert "would compile without" not in msg  # JavaScript refuses it in every mode
