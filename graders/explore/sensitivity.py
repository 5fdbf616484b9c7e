"""Grader sensitivity: does the A-versus-B verdict depend on the grader?

The same pairs are compared under a ladder of graders, strict to lenient::

    exact -> normalized -> contains -> token_f1 -> numeric (with a tolerance)

and each rung gives the paired mean difference A - B with its bootstrap 95% interval and
a Holm-adjusted p-value (adjusted across the rungs). ``sensitivity`` runs the comparison
under a ladder and returns a tidy frame, one row per grader; ``metric_frame`` gives the
same frame for a comparison already made; ``grader_dependence`` says in one sentence
whether the readings agree.

``reading`` is the one place that turns a metric's figures into a word: "A better" or
"B better" when the Holm-adjusted p-value is below 0.05 *and* the interval excludes 0
(the rule of ``graders.compare.words.verdict_words``), "noise?" when A and B differ on some
cases but that is not established, "no difference" when they never differ, "too few"
with fewer than two cases and "no pairs" with none.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import pandas as pd

from graders.compare.comparison import Comparison, MetricComparison, compare_prepared
from graders.config import GraderConfig, RunConfig
from graders.registry import get_spec
from graders.scoring.rows import Prepared

# The rungs, strict to lenient; graders not on the ladder follow it in the order given.
LADDER = ("exact", "normalized", "contains", "token_f1", "numeric")
# The ladder's own settings where a rung's registry defaults are not what it stands for:
# "numeric tolerance" reads the last number and accepts 1% relative error.
LADDER_PARAMS: Mapping[str, Mapping[str, object]] = {"numeric": {"read": "last", "rel_tol": 0.01}}
READINGS = ("A better", "B better", "noise?", "no difference", "too few", "no pairs")
ALPHA = 0.05
FRAME_COLUMNS = (
    "grader", "label", "binary", "n", "n_cases", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high",
    "p_value", "p_method", "p_holm", "reading", "words",
)


def _finite(x: float | None) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def reading(metric: MetricComparison, alpha: float = ALPHA) -> str:
    """One word for a metric: see the module docstring."""
    s = metric.stats
    if s.n == 0:
        return "no pairs"
    if s.wins == 0 and s.losses == 0:
        return "no difference"
    if s.n_cases < 2:
        return "too few"
    p = metric.p_holm if _finite(metric.p_holm) else s.p_value
    excludes_zero = _finite(s.ci_low) and _finite(s.ci_high) and (s.ci_low > 0 or s.ci_high < 0)
    if _finite(p) and p < alpha and excludes_zero:
        return "A better" if s.mean_diff > 0 else "B better"
    return "noise?"


def default_ladder() -> tuple[GraderConfig, ...]:
    """The standard ladder's grader configurations (registry defaults but ``LADDER_PARAMS``)."""
    return tuple(GraderConfig.make(name, dict(LADDER_PARAMS.get(name, {}))) for name in LADDER)


def ladder_order(names: Sequence[str]) -> list[str]:
    """``names`` with the ladder's graders first, strict to lenient, then the rest as given."""
    rank = {name: i for i, name in enumerate(LADDER)}
    return sorted(names, key=lambda n: (rank.get(n, len(LADDER)), list(names).index(n)))


def _label(name: str, config: GraderConfig | None) -> str:
    if name == "overall":
        return "Overall"
    label = get_spec(name).label
    if name == "numeric" and config is not None:
        p = config.resolved
        tol = [f"±{p['abs_tol']:g}" if p.get("abs_tol") else "", f"±{p['rel_tol']:.0%}" if p.get("rel_tol") else ""]
        tol_text = " or ".join(t for t in tol if t)
        label = f"{label} ({p.get('read', 'whole')} number{', ' + tol_text if tol_text else ''})"
    return label


def metric_frame(comparison: Comparison, names: Sequence[str] | None = None,
                 configs: Mapping[str, GraderConfig] | None = None) -> pd.DataFrame:
    """One row per metric of ``comparison`` (``names`` to choose and order them): the
    columns of ``FRAME_COLUMNS``. Differences are A - B in score units (pass-rate
    fractions for pass-or-fail graders)."""
    names = list(comparison.metrics) if names is None else list(names)
    configs = dict(configs or {})
    rows = []
    for name in names:
        m = comparison.metrics[name]
        s = m.stats
        rows.append({
            "grader": name, "label": _label(name, configs.get(name)), "binary": m.binary, "n": s.n,
            "n_cases": s.n_cases, "mean_a": s.mean_a, "mean_b": s.mean_b, "mean_diff": s.mean_diff,
            "ci_low": s.ci_low, "ci_high": s.ci_high, "p_value": s.p_value, "p_method": s.p_method,
            "p_holm": math.nan if m.p_holm is None else m.p_holm, "reading": reading(m), "words": m.words,
        })
    frame = pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
    for col in ("mean_a", "mean_b", "mean_diff", "ci_low", "ci_high", "p_value", "p_holm"):
        frame[col] = frame[col].astype(float)
    return frame


def sensitivity(
    prepared: Prepared, mapping: Mapping[str, str | None], graders: Sequence[GraderConfig] | None = None, *,
    version_a: str | None = None, version_b: str | None = None, resamples: int = 2000, seed: int = 0,
    workers: int | None = None, start_method: str = "fork",
) -> pd.DataFrame:
    """Compare A with B under each of ``graders`` (default: ``default_ladder()``), ordered
    strict to lenient, with no overall row; Holm's adjustment runs across these graders.
    Returns ``metric_frame`` of that comparison. Raises ``CompareError`` like the comparison.
    ``workers``, ``start_method``: as in ``compare.compare_prepared``."""
    graders = tuple(default_ladder() if graders is None else graders)
    by_name = {g.name: g for g in graders}
    ordered = tuple(by_name[n] for n in ladder_order(list(by_name)))
    config = RunConfig({k: v for k, v in mapping.items() if v}, ordered, None)
    comparison = compare_prepared(prepared, config, mapping, version_a=version_a, version_b=version_b,
                                  resamples=resamples, seed=seed, workers=workers, start_method=start_method)
    return metric_frame(comparison, [g.name for g in ordered], by_name)


def grader_dependence(frame: pd.DataFrame) -> str:
    """One sentence: do the graders in ``frame`` (a ``metric_frame``) agree on the verdict?"""
    decided = frame[frame["reading"].isin(["A better", "B better"])]
    if frame.empty:
        return "No graders to compare."
    groups: dict[str, list[str]] = {}
    for r in frame.itertuples():
        groups.setdefault(r.reading, []).append(r.label)
    if len(groups) == 1:
        (word, labels), = groups.items()
        if word in ("A better", "B better"):
            return f"Every grader agrees: {word} ({', '.join(labels)})."
        if word == "noise?":
            return "No grader shows a difference beyond noise."
        return f"Every grader reads: {word}."
    if decided["reading"].nunique() > 1:
        lead = "The verdict flips with the grader"
    elif not decided.empty:
        lead = "The verdict depends on the grader"
    else:
        lead = "No grader shows a difference beyond noise"
    parts = [f"{word} under {', '.join(groups[word])}" for word in READINGS if word in groups]
    return f"{lead}: {'; '.join(parts)}."
