"""What a normalization pipeline does, for the normalizer builder's live preview.

* ``preview_pairs``    sample (expected, output) pairs -> their normalized forms and verdicts
* ``pipeline_effect``  over a file's rows: the exact fails the pipeline turns into passes
* ``effect_examples``  those rows, with the reference they now match and both normalized forms
* ``step_effects``     for each step of the pipeline, what dropping it would cost
* ``order_notes``      step orders that quietly do less than they seem to

Normalizing is a function, so an exact pass (output equal to a reference) is always a
pass after any pipeline: a pipeline can only turn exact fails into passes. Verdicts come
from the normalized grader's own column check (``graders.metrics.normalized.check_many``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from graders.metrics.normalized import check_many
from graders.text.normalize import compose, resolve_pipeline

__all__ = ["PipelineEffect", "effect_examples", "order_notes", "pipeline_effect", "preview_pairs", "step_effects"]

PREVIEW_COLUMNS = ("expected", "output", "expected_normalized", "output_normalized", "exact", "normalized")


def _refs(refs: Sequence[str | Sequence[str]]) -> list[tuple[str, ...]]:
    return [(r,) if isinstance(r, str) else tuple(r) for r in refs]


def preview_pairs(expected: Sequence[str], outputs: Sequence[str], pipeline: str | Sequence[str]) -> pd.DataFrame:
    """One row per pair: both sides, both normalized, and the exact and normalized verdicts."""
    steps = resolve_pipeline(pipeline)
    norm = compose(steps)
    expected, outputs = [str(e) for e in expected], [str(o) for o in outputs]
    def texts(values: list[str]) -> pd.Series:  # objects: pandas' string dtype cannot hold a lone surrogate
        return pd.Series(values, dtype=object)

    return pd.DataFrame({
        "expected": texts(expected),
        "output": texts(outputs),
        "expected_normalized": texts([norm(e) for e in expected]),
        "output_normalized": texts([norm(o) for o in outputs]),
        "exact": [e == o for e, o in zip(expected, outputs)],
        "normalized": check_many([(e,) for e in expected], outputs, steps),
    }, columns=list(PREVIEW_COLUMNS))


@dataclass(frozen=True)
class PipelineEffect:
    rows: int
    exact_passes: int
    exact_fails: int
    turned: int  # exact fails that pass after the pipeline
    still_failing: int
    turned_rows: np.ndarray  # positions (into refs / outputs) of the turned rows, in order
    still_rows: np.ndarray  # positions of the rows that fail even after the pipeline


def _exact(refs: list[tuple[str, ...]], outputs: Sequence[str]) -> np.ndarray:
    return np.fromiter((o in r for r, o in zip(refs, outputs)), dtype=bool, count=len(outputs))


def pipeline_effect(
    refs: Sequence[str | Sequence[str]], outputs: Sequence[str], pipeline: str | Sequence[str],
) -> PipelineEffect:
    """Exact fails the pipeline turns into passes. ``refs[i]``: one reference or several."""
    steps = resolve_pipeline(pipeline)
    refs = _refs(refs)
    if len(refs) != len(outputs):
        raise ValueError(f"refs and outputs differ in length: {len(refs)} and {len(outputs)}")
    exact = _exact(refs, outputs)
    fails = np.flatnonzero(~exact)
    passed = np.asarray(check_many([refs[i] for i in fails], [outputs[i] for i in fails], steps), dtype=bool)
    turned, still = fails[passed], fails[~passed]
    return PipelineEffect(
        rows=len(outputs), exact_passes=int(exact.sum()), exact_fails=len(fails), turned=len(turned),
        still_failing=len(still), turned_rows=turned, still_rows=still,
    )


def effect_examples(
    refs: Sequence[str | Sequence[str]], outputs: Sequence[str], rows: Sequence[int],
    pipeline: str | Sequence[str], limit: int = 20,
) -> pd.DataFrame:
    """The first ``limit`` of ``rows``: position, the reference shown (the first one that
    matches after the pipeline, else the first), the output and both normalized forms."""
    steps = resolve_pipeline(pipeline)
    norm = compose(steps)
    refs = _refs(refs)
    out = []
    for i in list(rows)[:limit]:
        o = norm(outputs[i])
        normed = [norm(r) for r in refs[i]]
        k = normed.index(o) if o in normed else 0
        out.append((int(i), refs[i][k], outputs[i], normed[k], o))
    columns = ["position", "expected", "output", "expected_normalized", "output_normalized"]
    frame = pd.DataFrame(out, columns=columns, dtype=object)  # a cell may hold a lone surrogate
    return frame.astype({"position": np.int64})


def step_effects(
    refs: Sequence[str | Sequence[str]], outputs: Sequence[str], pipeline: str | Sequence[str],
) -> pd.DataFrame:
    """For each step of the pipeline (in order): exact fails it turns into passes alone,
    and how many of the pipeline's turned rows would fail again without it."""
    steps = resolve_pipeline(pipeline)
    refs = _refs(refs)
    whole = pipeline_effect(refs, outputs, steps)
    fail_refs = [refs[i] for i in whole.turned_rows]
    fail_outs = [outputs[i] for i in whole.turned_rows]
    exact = _exact(refs, outputs)
    all_fails = np.flatnonzero(~exact)
    all_refs, all_outs = [refs[i] for i in all_fails], [outputs[i] for i in all_fails]
    rows = []
    for k, step in enumerate(steps):
        alone = sum(check_many(all_refs, all_outs, (step,)))
        without = steps[:k] + steps[k + 1:]
        lost = len(fail_outs) - sum(check_many(fail_refs, fail_outs, without)) if fail_outs else 0
        rows.append((k + 1, step, int(alone), int(lost)))
    return pd.DataFrame(rows, columns=["position", "step", "turned_alone", "lost_without_it"])


def order_notes(pipeline: str | Sequence[str]) -> list[str]:
    """Plain-English notes on step orders that quietly do less than they seem to."""
    steps = resolve_pipeline(pipeline)

    def before(a: str, b: str) -> bool:  # some a runs before every b, and b is present
        return a in steps and b in steps and steps.index(a) < steps.index(b)

    notes = []
    if before("remove_articles", "lower"):
        notes.append("remove_articles runs before lower, so a capitalised “The” or “A” is kept.")
    if before("lower", "nfkc") and "lower" not in steps[steps.index("nfkc"):]:
        notes.append("nfkc runs after lower and can bring capitals back (ℝ → R, ™ → TM, ㎓ → GHz): "
                     "put nfkc before lower.")
    examples = {"strip_trailing_punctuation": "“approved. ” keeps its period",
                "strip_quotes": "with a space before it, \"Reno\" keeps its quotes"}
    for step in ("strip_trailing_punctuation", "strip_quotes"):
        if before(step, "trim"):
            notes.append(f"{step} runs before trim, so surrounding whitespace hides what it should "
                         f"remove ({examples[step]}).")
        if before("remove_punctuation", step):
            notes.append(f"{step} runs after remove_punctuation, which has already removed the ASCII "
                         f"characters it looks for.")
    if "nfc" in steps and "nfkc" in steps:
        notes.append("nfc adds nothing next to nfkc: NFKC text is already in NFC.")
    if "remove_articles" in steps:
        after = steps[steps.index("remove_articles") + 1:]
        if not ({"collapse_whitespace", "trim"} <= set(after)):
            notes.append("remove_articles leaves a space where each article was; collapse_whitespace "
                         "and trim after it remove the extra spaces.")
    return notes
