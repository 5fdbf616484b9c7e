"""Normalized exact match: run the pipeline on both sides, then code-point equality.

``pipeline`` is a list of steps from ``graders.text.STEPS`` applied in order (default
``["trim", "lower"]``) or ``"squad"`` (lower, remove_punctuation, remove_articles,
collapse_whitespace, trim: the SQuAD v1.1 script's order).
"""

from __future__ import annotations

from .exact import closest_reference, explain_difference
from .nearmiss import string_probe
from .registry import Param, register
from .result import Grade, verdict
from .text import DEFAULT_PIPELINE, SQUAD_PIPELINE, STEPS, compose

PIPELINE = Param(
    "pipeline", "pipeline", list(DEFAULT_PIPELINE), choices=tuple(STEPS),
    help="ordered normalization steps, or 'squad'",
)


def pipeline_name(steps: tuple[str, ...]) -> str:
    return "squad" if steps == SQUAD_PIPELINE else "+".join(steps) or "none"


def check(refs: tuple[str, ...], output: str, pipeline: tuple[str, ...]) -> bool:
    norm = compose(pipeline)
    out = norm(output)
    return any(norm(r) == out for r in refs)


@register(
    "normalized",
    params=[PIPELINE],
    binary=True,
    label="Normalized match",
    summary="equality after a normalization pipeline (default trim, lower)",
    probe=string_probe(check),
)
def grade_normalized(refs: tuple[str, ...], output: str, *, pipeline: tuple[str, ...]) -> Grade:
    norm = compose(pipeline)
    out = norm(output)
    normed = [norm(r) for r in refs]
    sig = f"normalized|pipeline:{pipeline_name(pipeline)}"
    if out in normed:
        return verdict(True, f"After the pipeline ({pipeline_name(pipeline)}) the output equals the reference: “{out[:80]}”. [{sig}]", signature=sig)
    i = closest_reference(tuple(normed), out)
    sentence, facts = explain_difference(normed[i], out, what="normalized reference", other="normalized output")
    lead = (f"After the pipeline ({pipeline_name(pipeline)}) the output still differs"
            + (f" from all {len(refs)} references (closest: reference {i + 1})" if len(refs) > 1 else "") + ". ")
    return verdict(False, lead + sentence + f" [{sig}]", signature=sig, **facts)
