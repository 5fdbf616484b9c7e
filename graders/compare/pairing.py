"""A and B's scored rows side by side, joined with numpy (``comparison._pair``'s join).

The comparison pairs each scorer's row of a case on side A with its row on side B: an
outer join on (pairing key, scorer). pandas' ``merge`` did it in most of Compare's time
on 200,000 wide pairs (factorizing the keys again, then taking every column twice);
here the keys are already integer codes, so the join is a sort of one integer per row
and a take per column. The result is the merge's, column for column and row for row
(tests/compare/test_pairing.py): sorted by scorer (in ``scorers``' order), then by key;
a row missing on a side has NaN in that side's record and "" in its other cells.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

SIDE_COLUMNS = ("score", "pass", "status", "explanation")


def _side(values: np.ndarray, at: np.ndarray, missing: object) -> np.ndarray:
    """``values[at]`` where ``at`` >= 0, else ``missing`` (an object array)."""
    has = at >= 0
    if has.all():  # every case on both sides (a wide file): one take
        return values[at]
    out = np.empty(len(at), dtype=object)
    out[has] = values[at[has]]
    out[~has] = missing
    return out


def _blank_none(cells: np.ndarray) -> np.ndarray:
    """None (a deferred or missing cell) as "", as ``fillna("")`` makes it."""
    none = np.equal(cells, None)
    if none.any():
        cells = cells.copy()
        cells[none] = ""
    return cells


def paired_sides(scored: pd.DataFrame, a: str, b: str, scorers: Sequence[str], key: np.ndarray) -> pd.DataFrame | None:
    """The scored rows of systems ``a`` and ``b`` joined on (``key``, scorer): columns
    ``item, repeat, grader, score_a, pass_a, status_a, explanation_a, record_a, score_b,
    pass_b, status_b, explanation_b, record_b, _merge`` ("both", "left_only",
    "right_only"). None when a (key, scorer) repeats on a side (the merge's product is
    then the caller's to make)."""
    names = scored["scorer"].to_numpy(dtype=object)
    codes, distinct = pd.factorize(pd.Series(names, dtype=object))
    order = {s: i for i, s in enumerate(scorers)}
    rank = np.array([order.get(s, -1) for s in distinct], dtype=np.int64)[codes] if len(codes) else np.empty(0, np.int64)
    system = scored["system"].to_numpy(dtype=object)
    keep = rank >= 0
    ia = np.flatnonzero(keep & (system == a))
    ib = np.flatnonzero(keep & (system == b))
    size = int(key.max()) + 1 if len(key) else 1
    ca = rank[ia] * size + key[ia]
    cb = rank[ib] * size + key[ib]
    # sorted, not np.unique: numpy 2.4's hash-based unique takes seconds on 800,000 integers
    sa, sb = np.sort(ca), np.sort(cb)
    if (sa[1:] == sa[:-1]).any() or (sb[1:] == sb[:-1]).any():
        return None
    joined = np.sort(np.concatenate([sa, sb]))  # by scorer rank, then key
    joined = joined[np.concatenate([[True], joined[1:] != joined[:-1]])] if len(joined) else joined
    pa = np.full(len(joined), -1, dtype=np.intp)
    pb = np.full(len(joined), -1, dtype=np.intp)
    pa[np.searchsorted(joined, ca)] = ia
    pb[np.searchsorted(joined, cb)] = ib
    first = np.where(pa >= 0, pa, pb)
    data: dict[str, np.ndarray] = {
        "item": scored["item"].to_numpy(dtype=object)[first],
        "repeat": scored["repeat"].to_numpy(dtype=object)[first],
        "grader": names[first],
    }
    for suffix, at in (("_a", pa), ("_b", pb)):
        for col in SIDE_COLUMNS:  # only an explanation may be None (deferred)
            cells = _side(scored[col].to_numpy(dtype=object), at, "")
            data[col + suffix] = _blank_none(cells) if col == "explanation" else cells
        data["record" + suffix] = _side(scored["record"].to_numpy(dtype=object), at, np.nan)
    data["_merge"] = np.where(pa < 0, "right_only", np.where(pb < 0, "left_only", "both")).astype(object)
    columns = ["item", "repeat", "grader", *[c + "_a" for c in SIDE_COLUMNS], "record_a",
               *[c + "_b" for c in SIDE_COLUMNS], "record_b", "_merge"]
    return pd.concat([pd.Series(data[c], name=c, dtype=object) for c in columns], axis=1)
