"""A and B joined with numpy (graders/compare/pairing.py) give pandas' outer merge, column
for column and row for row: wide and long files, repeats, an overall row, cases on one
side only, deferred explanations, and a scorer missing on one side."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from graders.compare.pairing import _merged, _pair_keys, paired_sides
from graders.config import GraderConfig, RunConfig
from graders.scoring.parallel import score_frame


def _rows(n: int, seed: int, *, wide: bool, repeats: bool, drop: float) -> pd.DataFrame:
    rng = random.Random(seed)
    words = ["refund", "UPS", "store credit", "30 days", "42", "approved", "denied", "\ud800x", ""]
    out = []
    record = 0
    for i in range(n):
        expected = rng.choice(words[:-1])
        for r in (range(rng.randint(1, 3)) if repeats else [0]):
            record += 1
            for system in ("A", "B"):
                if rng.random() < drop:  # this case is on one side only
                    continue
                out.append({"record": record if wide else record * 2 + (system == "B"), "item": f"c{i}",
                            "system": system, "repeat": str(r) if repeats else "", "refs": (expected,),
                            "output": rng.choice(words)})
    rows = pd.DataFrame({c: pd.Series([r[c] for r in out], dtype=object) for c in out[0]})  # a lone surrogate: objects
    rows["record"] = rows["record"].astype(np.int64)
    return rows.sample(frac=1, random_state=seed).reset_index(drop=True) if not wide else rows


CONFIG = RunConfig({}, tuple(GraderConfig.make(g) for g in ("exact", "normalized", "token_f1")), "any")


@pytest.mark.parametrize("wide", [True, False])
@pytest.mark.parametrize("repeats", [False, True])
@pytest.mark.parametrize("drop", [0.0, 0.2])
@pytest.mark.parametrize("explain", [True, False])
def test_the_numpy_join_is_the_merge(wide, repeats, drop, explain):
    rows = _rows(60, 7, wide=wide, repeats=repeats, drop=drop)
    scored = score_frame(rows, CONFIG, explain=explain)
    scorers = list(CONFIG.grader_names) + ["overall"]
    source = "wide" if wide else "long"
    fast = paired_sides(scored, "A", "B", scorers, _pair_keys(scored, source))
    slow = _merged(scored, "A", "B", scorers, source)
    slow["_merge"] = slow["_merge"].astype(object)
    assert fast is not None
    pd.testing.assert_frame_equal(fast, slow)


def test_a_scorer_on_one_side_only_and_scorers_left_out():
    rows = _rows(20, 3, wide=True, repeats=False, drop=0.0)
    scored = score_frame(rows, CONFIG)
    scored = scored[~((scored["scorer"] == "token_f1") & (scored["system"] == "B"))].reset_index(drop=True)
    scorers = ["normalized", "token_f1", "exact"]  # not the frame's order; overall left out
    fast = paired_sides(scored, "A", "B", scorers, _pair_keys(scored, "wide"))
    slow = _merged(scored, "A", "B", scorers, "wide")
    slow["_merge"] = slow["_merge"].astype(object)
    pd.testing.assert_frame_equal(fast, slow)


def test_a_repeated_key_is_left_to_the_merge():
    rows = _rows(5, 1, wide=False, repeats=False, drop=0.0)
    rows = pd.concat([rows, rows.iloc[:1].assign(record=999)], ignore_index=True)
    scored = score_frame(rows, CONFIG)
    assert paired_sides(scored, "A", "B", list(CONFIG.grader_names), _pair_keys(scored, "long")) is None
    assert np.isnan(np.nan)
