"""Normalized exact match: run the pipeline on both sides, then code-point equality.

``pipeline`` is a list of steps from ``graders.text.normalize.STEPS`` applied in order (default
``["trim", "lower"]``) or ``"squad"`` (lower, remove_punctuation, remove_articles,
collapse_whitespace, trim: the SQuAD v1.1 script's order).
"""

from __future__ import annotations

from typing import Sequence

from graders.metrics.base import GraderSpec, Param
from graders.metrics.exact import closest_reference, explain_differences
from graders.metrics.nearmiss import probe_many, screen_equal_many
from graders.result import Block, Grade
from graders.text.normalize import DEFAULT_PIPELINE, SQUAD_PIPELINE, STEPS, compose, compose_column

PIPELINE = Param(
    "pipeline", "pipeline", list(DEFAULT_PIPELINE), choices=tuple(STEPS),
    help="ordered normalization steps (" + ", ".join(STEPS) + "), or 'squad' (" + ", ".join(SQUAD_PIPELINE) + ")",
)


_KEY_SAFE_STEPS = {"trim", "lower", "nfc", "nfkc", "collapse_whitespace", "strip_trailing_punctuation", "strip_quotes"}


def pipeline_name(steps: tuple[str, ...]) -> str:
    return "squad" if steps == SQUAD_PIPELINE else "+".join(steps) or "none"


def _normalized_columns(
    refs: Sequence[tuple[str, ...]], outputs: Sequence[str], pipeline: tuple[str, ...]
) -> tuple[list[tuple[str, ...]], list[str]]:
    """Both sides through the pipeline, column by column."""
    column = compose_column(pipeline)
    if all(len(r) == 1 for r in refs):
        normed = [(x,) for x in column([r[0] for r in refs])]
    else:
        norm = compose(pipeline)
        normed = [tuple(map(norm, r)) for r in refs]
    return normed, column(outputs)


def check_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], pipeline: tuple[str, ...]) -> list[bool]:
    normed, outs = _normalized_columns(refs, outputs, pipeline)
    return [o in r for r, o in zip(normed, outs)]


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], *, pipeline: tuple[str, ...],
               explain: bool = True) -> Block:
    """Normalized match over a column; ``explain=False``: verdicts and near misses, every
    row's details only the signature (the metadata's), explanations None."""
    name = pipeline_name(pipeline)
    sig = f"normalized|pipeline:{name}"
    passed_details = {"signature": sig}
    n = len(outputs)
    block = Block(n)
    block.details = [passed_details] * n  # shared, never changed: a fail with facts gets its own
    if not explain:
        block.explanation = [None] * n  # type: ignore[list-item]
    status, passed, score, explanation = block.status, block.passed, block.score, block.explanation
    fails, fail_refs, fail_outs, closest = [], [], [], []
    for i, (normed, out) in enumerate(zip(*_normalized_columns(refs, outputs, pipeline))):
        if out in normed:
            status[i], passed[i], score[i] = "pass", True, 1.0
            if explain:
                explanation[i] = f"After the pipeline ({name}) the output equals the reference: “{out[:80]}”. [{sig}]"
            continue
        fails.append(i)
        if explain:
            k = 0 if len(normed) == 1 else closest_reference(normed, out)
            fail_refs.append(normed[k])
            fail_outs.append(out)
            closest.append(k)
    if fails:
        if explain:
            words = {"what": "normalized reference", "other": "normalized output", "tail": f" [{sig}]"}
            if all(len(refs[i]) == 1 for i in fails):
                sentences, facts = explain_differences(
                    fail_refs, fail_outs, lead=f"After the pipeline ({name}) the output still differs. ", **words)
            else:
                sentences, facts = explain_differences(fail_refs, fail_outs, **words)
                for j, (i, k) in enumerate(zip(fails, closest)):
                    m = len(refs[i])
                    sentences[j] = (f"After the pipeline ({name}) the output still differs"
                                    + (f" from all {m} references (closest: reference {k + 1})" if m > 1 else "")
                                    + ". " + sentences[j])
            for i, sentence, f in zip(fails, sentences, facts):
                explanation[i] = sentence
                f["signature"] = sig
                block.details[i] = f
        # The ASCII key also survives these steps, so the same screen is safe for them.
        screen = screen_equal_many if set(pipeline) <= _KEY_SAFE_STEPS else None
        codes = probe_many(check_many, [refs[i] for i in fails], [outputs[i] for i in fails], screen=screen, pipeline=pipeline)
        for i, c in zip(fails, codes):
            block.near_miss[i] = c
    return block


def grade_normalized(refs: tuple[str, ...], output: str, *, pipeline: tuple[str, ...]) -> Grade:
    return grade_many([refs], [output], pipeline=pipeline).grade(0)


SPEC = GraderSpec(
    name="normalized",
    func=grade_normalized,
    params=[PIPELINE],
    binary=True,
    label="Normalized match",
    summary="equality after a normalization pipeline (default trim, lower)",
    batch=grade_many,
    defers_explanations=True,
)
