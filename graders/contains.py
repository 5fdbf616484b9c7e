"""Contains: the output contains one (``require="any"``) or every (``"all"``) reference,
anywhere (``at="anywhere"``) or at its start (``at="start"``); no normalization."""

from __future__ import annotations

from .nearmiss import string_probe
from .registry import Param, register
from .result import Grade, verdict

REQUIRE = Param("require", "choice", "any", choices=("any", "all"), help="one reference is enough, or every one")
AT = Param("at", "choice", "anywhere", choices=("anywhere", "start"), help="anywhere in the output, or at its start")


def _found(ref: str, output: str, at: str) -> bool:
    return output.startswith(ref) if at == "start" else ref in output


def check(refs: tuple[str, ...], output: str, require: str, at: str) -> bool:
    found = (_found(r, output, at) for r in refs)
    return all(found) if require == "all" else any(found)


def _quote(s: str) -> str:
    return f"“{s[:60]}{'…' if len(s) > 60 else ''}”"


@register(
    "contains",
    params=[REQUIRE, AT],
    binary=True,
    label="Contains",
    summary="the output contains the reference (any or all), anywhere or at the start",
    probe=string_probe(check),
)
def grade_contains(refs: tuple[str, ...], output: str, *, require: str, at: str) -> Grade:
    hits = [_found(r, output, at) for r in refs]
    where = "at its start" if at == "start" else "anywhere"
    passed = all(hits) if require == "all" else any(hits)
    found = [r for r, h in zip(refs, hits) if h]
    missing = [r for r, h in zip(refs, hits) if not h]
    if len(refs) == 1:
        word = "contains" if passed else "does not contain"
        text = f"The output {word} {_quote(refs[0])} {where}."
        if not passed and at == "start" and refs[0] in output:
            text += f" It appears later, at position {output.index(refs[0])}."
    else:
        text = (f"The output contains {len(found)} of {len(refs)} references {where} (needs {require});"
                f" missing: {', '.join(_quote(m) for m in missing) or 'none'}.")
    return verdict(passed, text, found=len(found), references=len(refs))
