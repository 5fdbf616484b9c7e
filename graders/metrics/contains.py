"""Contains: the output contains one (``require="any"``) or every (``"all"``) reference,
anywhere (``at="anywhere"``) or at its start (``at="start"``); no normalization."""

from __future__ import annotations

from typing import Sequence

from graders.metrics.base import GraderSpec, Param
from graders.metrics.nearmiss import probe_many, screen_contains_many
from graders.result import Block, Grade
from graders.text.show import visible

REQUIRE = Param("require", "choice", "any", choices=("any", "all"), help="one reference is enough, or every one")
AT = Param("at", "choice", "anywhere", choices=("anywhere", "start"), help="anywhere in the output, or at its start")


def _hits(refs: tuple[str, ...], output: str, at: str) -> list[bool]:
    return [output.startswith(r) for r in refs] if at == "start" else [r in output for r in refs]


def check_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], require: str, at: str) -> list[bool]:
    combine = all if require == "all" else any
    if at == "start":
        return [combine(o.startswith(x) for x in r) for r, o in zip(refs, outputs)]
    return [combine(x in o for x in r) for r, o in zip(refs, outputs)]


def _quote(s: str) -> str:
    """A reference as the explanation shows it: its first 60 characters, invisible ones
    (a no-break space, a line break, a lone surrogate) as their codes, as exact's are."""
    shown = s[:60]
    if not shown.isprintable():
        shown = visible(shown).replace("\n", "")
    return f"“{shown}{'…' if len(s) > 60 else ''}”"


def explain_one(refs: tuple[str, ...], output: str, require: str, at: str) -> tuple[bool, str, dict]:
    hits = _hits(refs, output, at)
    where = "at its start" if at == "start" else "anywhere"
    passed = all(hits) if require == "all" else any(hits)
    if len(refs) == 1:
        text = f"The output {'contains' if passed else 'does not contain'} {_quote(refs[0])} {where}."
        if not passed and at == "start" and refs[0] in output:
            text += f" It appears later, at position {output.index(refs[0])}."
    else:
        missing = [r for r, h in zip(refs, hits) if not h]
        text = (f"The output contains {sum(hits)} of {len(refs)} references {where} (needs {require});"
                f" missing: {', '.join(_quote(m) for m in missing) or 'none'}.")
    return passed, text, {"found": sum(hits), "references": len(refs)}


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], *, require: str, at: str,
               explain: bool = True) -> Block:
    """Contains over a column: rows with one reference decided and explained in one pass
    (what ``explain_one`` says for them), the others through ``explain_one``; the probe on
    the fails. ``explain=False``: the same verdicts and details, explanations None."""
    n = len(outputs)
    block = Block(n)
    if not explain:
        block.explanation = [None] * n  # type: ignore[list-item]
    status, passed, score, explanation, details = block.status, block.passed, block.score, block.explanation, block.details
    where = "at its start" if at == "start" else "anywhere"
    facts = ({"found": 0, "references": 1}, {"found": 1, "references": 1})  # shared, never changed
    fails = []
    for i, (r, o) in enumerate(zip(refs, outputs)):
        if len(r) != 1:
            ok, text, details[i] = explain_one(r, o, require, at)
            if explain:
                explanation[i] = text
        else:
            x = r[0]
            ok = o.startswith(x) if at == "start" else x in o
            details[i] = facts[ok]
            if explain:
                quoted = f"“{x}”" if len(x) <= 60 and x.isprintable() else _quote(x)
                if ok:
                    text = f"The output contains {quoted} {where}."
                else:
                    text = f"The output does not contain {quoted} {where}."
                    if at == "start" and x in o:
                        text += f" It appears later, at position {o.index(x)}."
                explanation[i] = text
        if ok:
            status[i], passed[i], score[i] = "pass", True, 1.0
        else:
            fails.append(i)  # status, passed, score: a fail's defaults
    if fails:
        codes = probe_many(
            check_many, [refs[i] for i in fails], [outputs[i] for i in fails],
            screen=lambda r, o: screen_contains_many(r, o, require), require=require, at=at,
        )
        for i, c in zip(fails, codes):
            block.near_miss[i] = c
    return block


def grade_contains(refs: tuple[str, ...], output: str, *, require: str, at: str) -> Grade:
    return grade_many([refs], [output], require=require, at=at).grade(0)


SPEC = GraderSpec(
    name="contains",
    func=grade_contains,
    params=[REQUIRE, AT],
    binary=True,
    label="Contains",
    summary="the output contains the reference (any or all), anywhere or at the start",
    batch=grade_many,
    defers_explanations=True,
)
