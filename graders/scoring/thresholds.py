"""A threshold changed after scoring: re-decide pass and near miss from the scores, no regrading.

``split_thresholds(config)`` takes the continuous graders' thresholds out of a configuration
(score once without them); ``apply_thresholds(scored, thresholds)`` decides each row as
``score >= threshold`` and names ``below_threshold`` within 0.1 below it (SPEC §4).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from graders.config import GraderConfig, RunConfig
from graders.result import threshold_words


def split_thresholds(config: RunConfig) -> tuple[RunConfig, dict[str, float | None]]:
    """The configuration with every continuous grader's threshold removed, and the
    thresholds: score once with the first, then ``apply_thresholds`` as they change."""
    thresholds: dict[str, float | None] = {}
    graders = []
    for gc in config.graders:
        if "threshold" in gc.resolved:
            thresholds[gc.name] = gc.resolved["threshold"]
            params = {k: v for k, v in gc.params.items() if k != "threshold"}
            gc = GraderConfig.make(gc.name, params)
        graders.append(gc)
    return RunConfig(config.columns, tuple(graders), config.overall), thresholds


_PICK_STATUS = np.array(["fail", "pass"], dtype=object)


_PICK_PASS = np.array(["false", "true"], dtype=object)


_PICK_NEAR = np.array(["", "below_threshold"], dtype=object)


def apply_thresholds(scored: pd.DataFrame, thresholds: dict[str, float | None]) -> pd.DataFrame:
    """Turn thresholdless continuous scores into pass/fail without rescoring.

    Equal, cell for cell, to scoring with the thresholds in the configuration: pass when
    score >= threshold, ``below_threshold`` within 0.1 below, the explanation's threshold
    sentence and the threshold in the metadata. Works on the columns' arrays (a new frame
    shares every column it does not change).
    """
    from graders.registry import BELOW_THRESHOLD_REACH

    scorer = scored["scorer"].to_numpy(dtype=object)
    arrays: dict[str, np.ndarray] = {}

    def column(name: str) -> np.ndarray:  # a private copy, made once
        if name not in arrays:
            arrays[name] = scored[name].to_numpy(dtype=object, copy=True)
        return arrays[name]

    for name, t in thresholds.items():
        rows = np.flatnonzero(scorer == name)
        if not len(rows):
            continue
        # One JSON round trip per distinct metadata text (a grader's rows share their parameters).
        meta = column("metadata")
        codes, distinct_meta = pd.factorize(meta[rows])
        fresh = np.array([json.dumps({**json.loads(m), "threshold": t}, ensure_ascii=False, sort_keys=True)
                          for m in distinct_meta], dtype=object)
        meta[rows] = fresh[codes]
        if t is None:
            continue
        status = column("status")
        sel = rows[status[rows] == "scored"]
        if not len(sel):
            continue
        # Scored rows always hold a score: float() over the cells, in numpy's loop.
        values = scored["score"].to_numpy(dtype=object)[sel].astype(float)
        passed = values >= t
        # Cells picked from two-element object arrays: every row shares the same two strings.
        status[sel] = _PICK_STATUS[passed.view(np.int8)]
        column("pass")[sel] = _PICK_PASS[passed.view(np.int8)]
        near = (~passed) & (values >= t - BELOW_THRESHOLD_REACH)
        column("near_miss")[sel] = _PICK_NEAR[near.view(np.int8)]
        # The threshold sentence depends on the score alone: formatted once per distinct score.
        distinct, which = np.unique(values, return_inverse=True)
        sentence = np.array(
            [" " + threshold_words(v, t) for v in distinct.tolist()],
            dtype=object,
        )
        explanation = column("explanation")
        explanation[sel] = explanation[sel] + sentence[which]
    out = scored.copy(deep=False)
    for name, arr in arrays.items():  # as object columns (pandas would infer a string dtype)
        out[name] = pd.Series(arr, index=scored.index, dtype=object, copy=False)
    return out
