"""A and B's scored rows side by side, joined with numpy (``_pair``), and the cases on one
side only (``_unpaired``).

The comparison pairs each scorer's row of a case on side A with its row on side B: an
outer join on (pairing key, scorer). pandas' ``merge`` did it in most of Compare's time
on 200,000 wide pairs (factorizing the keys again, then taking every column twice);
here the keys are already integer codes, so the join is a sort of one integer per row
and a take per column. The result is the merge's, column for column and row for row
(tests/compare/test_pairing.py): sorted by scorer (in ``scorers``' order), then by key;
a row missing on a side has NaN in that side's record and "" in its other cells.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from graders.scoring.rows import group_codes

SIDE_COLUMNS = ("score", "pass", "status", "explanation")
LISTED = 20  # how many unpaired keys are listed by name


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


def paired_sides(scored: pd.DataFrame, a: str, b: str, scorers: Sequence[str], key: np.ndarray, *,
                 with_key: bool = False) -> pd.DataFrame | None:
    """The scored rows of systems ``a`` and ``b`` joined on (``key``, scorer): columns
    ``item, repeat, grader, score_a, pass_a, status_a, explanation_a, record_a, score_b,
    pass_b, status_b, explanation_b, record_b, _merge`` ("both", "left_only",
    "right_only"), and each pair's ``key`` as ``_key`` when asked. None when a (key, scorer)
    repeats on a side (the merge's product is then the caller's to make)."""
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
    if with_key:
        data["_key"], columns = joined % size, columns + ["_key"]
    return pd.concat([pd.Series(data[c], name=c, dtype=object) for c in columns], axis=1)


_PASS_VALUE = {"true": 1.0, "false": 0.0}


def _numeric(cells: pd.Series) -> np.ndarray:
    """Score cells ("" = none) as floats, NaN for none; each distinct cell parsed once."""
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    values = np.array([float(u) if u else math.nan for u in uniques] + [math.nan], dtype=float)
    return values[codes]


def _pass_numeric(cells: pd.Series) -> np.ndarray:
    """Pass cells ("true" / "false" / "") as 1.0 / 0.0 / NaN."""
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    values = np.array([_PASS_VALUE.get(u, math.nan) for u in uniques] + [math.nan], dtype=float)
    return values[codes]


def _pair_keys(frame: pd.DataFrame, source: str) -> np.ndarray:
    """What pairs a row with its other side, as an integer code: a wide file's record (its
    two output columns), a long file's (id, repeat)."""
    if source == "wide":
        return group_codes([frame["record"].to_numpy()])
    return group_codes([frame["item"].to_numpy(dtype=object), frame["repeat"].to_numpy(dtype=object)])


def _pair(scored: pd.DataFrame, a: str, b: str, scorers: list[str], source: str = "long") -> pd.DataFrame:
    # joined with numpy on the integer keys, in the order the figures want (pairing.py)
    merged = paired_sides(scored, a, b, scorers, _pair_keys(scored, source))
    if merged is None:  # a key repeats on a side: the merge's product
        merged = _merged(scored, a, b, scorers, source)
    return outcomes(merged)


def outcomes(merged: pd.DataFrame) -> pd.DataFrame:
    """``paired_sides``' rows with each pair's scores as floats (``value_a``, ``value_b``), its
    ``diff``, ``difference`` cell, ``outcome`` and whether both sides have a score (``paired``)."""
    sa, sb = _numeric(merged["score_a"]), _numeric(merged["score_b"])
    both = ~(np.isnan(sa) | np.isnan(sb))
    diff = np.where(both, sa - sb, np.nan)
    outcome = np.select(
        [merged["_merge"].to_numpy() == "left_only", merged["_merge"].to_numpy() == "right_only", ~both, diff > 0, diff < 0],
        ["a only", "b only", "unscored", "win", "loss"], default="tie",
    )
    merged["diff"] = diff
    merged["value_a"], merged["value_b"] = sa, sb  # the scores as floats (NaN = none)
    # the cell without the subtraction's last-bit noise (0.7 - 1.0 is -0.30000000000000004):
    # 15 significant digits, which every double holds exactly
    distinct, which = np.unique(diff, return_inverse=True)  # each distinct difference formatted once
    cells = np.array(["" if math.isnan(d) else repr(float(f"{d:.15g}")) for d in distinct.tolist()], dtype=object)
    merged["difference"] = cells[which.reshape(-1)] if len(diff) else np.array([], dtype=object)
    merged["outcome"] = outcome
    merged["paired"] = both
    return merged.drop(columns="_merge")


def _merged(scored: pd.DataFrame, a: str, b: str, scorers: list[str], source: str = "long") -> pd.DataFrame:
    """``paired_sides`` with pandas' merge, for sides where a (key, scorer) repeats."""
    keep = scored["scorer"].isin(scorers).to_numpy()
    system = scored["system"].to_numpy(dtype=object)
    cols = ["item", "repeat", "scorer", "score", "pass", "status", "explanation", "record"]
    keyed = scored.loc[:, cols].assign(_key=_pair_keys(scored, source))
    side_a = keyed[keep & (system == a)]
    side_b = keyed[keep & (system == b)]
    # Joined on the integer key: pandas would turn text keys into its string dtype,
    # which cannot hold a lone surrogate.
    merged = side_a.merge(side_b, on=["_key", "scorer"], how="outer", suffixes=("_a", "_b"), indicator=True, sort=False)
    for at, col in enumerate(("item", "repeat")):  # a side's item and repeat, first
        merged.insert(at, col, merged[f"{col}_a"].where(merged[f"{col}_a"].notna(), merged[f"{col}_b"]))
    merged = merged.drop(columns=["_key", "item_a", "item_b", "repeat_a", "repeat_b"])
    merged = merged.rename(columns={"scorer": "grader"})
    for col in ("score_a", "score_b", "pass_a", "pass_b", "status_a", "status_b", "explanation_a", "explanation_b"):
        merged[col] = merged[col].fillna("")
    order = {s: i for i, s in enumerate(scorers)}
    merged["_o"] = merged["grader"].map(order)
    return merged.sort_values(["_o"], kind="stable").drop(columns="_o").reset_index(drop=True)


def _unpaired(rows: pd.DataFrame, a: str, b: str, source: str = "long") -> dict[str, Any]:
    key = _pair_keys(rows, source)  # codes in order of first appearance
    system = rows["system"].to_numpy(dtype=object)
    size = int(key.max()) + 1 if len(key) else 0
    in_a = np.bincount(key[system == a], minlength=size) > 0
    in_b = np.bincount(key[system == b], minlength=size) > 0
    _, first_row = np.unique(key, return_index=True)  # each key's first row

    def listed(mask: np.ndarray) -> dict[str, Any]:
        shown = []
        for at in first_row[np.flatnonzero(mask)[:LISTED]]:  # in file order
            r = rows.iloc[at]
            shown.append(key_name(r["item"], r["version"] if "version" in rows.columns else "", r["repeat"]))
        return {"count": int(mask.sum()), "keys": shown}

    return {"a_only": listed(in_a & ~in_b), "b_only": listed(in_b & ~in_a), "pairs": int((in_a & in_b).sum())}


def key_name(item: Any, version: Any, repeat: Any) -> str:
    """A case on one side only as the report lists it: its id, and its version and repeat."""
    where = ", ".join(([f"version {version}"] if version else []) + ([f"repeat {repeat}"] if repeat not in ("", "0") else []))
    return f"{item} ({where})" if where else str(item)
