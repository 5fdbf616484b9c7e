"""The numeric grader re-graded over a grid of tolerances, without grading row by row.

Each row's numbers are read once; the row then passes at every tolerance at or above its
*critical tolerance* (the smallest tolerance at which it passes), so one sorted array of
critical values answers the whole grid by binary search. The comparison is exact decimal
arithmetic, as in ``graders.metrics.numeric``: the sweep's count at the configured tolerance equals
the numeric grader's pass count.

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"refs": [("3.11",), ("42",), ("n/a",)],
    ...                      "output": ["About 3.1 miles", "$42.00", "7"]})
    >>> sweep = numeric_tolerance_sweep(rows, read="last", vary="abs_tol", grid=[0, 0.01])
    >>> sweep[["tolerance", "passed", "judged"]].to_dict("records")
    [{'tolerance': 0.0, 'passed': 1, 'judged': 2}, {'tolerance': 0.01, 'passed': 2, 'judged': 2}]
"""

from __future__ import annotations

from bisect import bisect_right
from decimal import Decimal, localcontext
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from graders.text.numbers import EXACT, Reading, read_number

__all__ = ["ABS_GRID", "REL_GRID", "critical_tolerances", "numeric_tolerance_sweep"]

ABS_GRID = (0.0, 0.001, 0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 100.0)
REL_GRID = (0.0, 0.0001, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
_INF = Decimal("Infinity")


def _dec(x: float) -> Decimal:
    return Decimal(repr(float(x)))


def critical_tolerances(
    refs: Sequence[tuple[str, ...]],
    outputs: Sequence[str],
    *,
    read: str,
    vary: str,
    abs_tol: float = 0.0,
    rel_tol: float = 0.0,
    readings: dict[tuple[str, str], Reading | None] | None = None,
    numeric_details: Sequence[Mapping[str, Any]] | None = None,
) -> list[Decimal | None]:
    """Per row: the smallest value of ``vary`` ("abs_tol" or "rel_tol") at which numeric
    passes with the other tolerance held fixed; ``Infinity`` when no value passes; None when
    the row is not judged (no number in any reference). ``readings``: a cache of
    ``read_number`` keyed by (text, read mode), to share between sweeps of the same rows.
    ``numeric_details``: the numeric grader's details of each row, graded with the same
    ``read``; a row with one reference then needs no reading (its difference and expected
    number are there), a row with several is read as usual."""
    if vary not in ("abs_tol", "rel_tol"):
        raise ValueError(f"vary must be 'abs_tol' or 'rel_tol', not {vary!r}")
    cache: dict[tuple[str, str], Reading | None] = {} if readings is None else readings

    def reader(text: str) -> Reading | None:
        key = (text, read)
        found = cache.get(key, cache)
        if found is cache:
            found = cache[key] = read_number(text, read)
        return found

    a, r = _dec(abs_tol), _dec(rel_tol)
    out: list[Decimal | None] = []
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.Emax, ctx.Emin = 999999999, -999999999
        for k, (row_refs, output) in enumerate(zip(refs, outputs)):
            if numeric_details is not None and len(row_refs) == 1:
                d = numeric_details[k]
                if "difference" in d:  # judged: |out - exp| and exp, as exact decimal text
                    out.append(_need(Decimal(d["difference"]), EXACT.abs(Decimal(d["expected_number"])), vary, a, r))
                else:  # {"read": ...}: the output has no number; {}: not judged
                    out.append(_INF if "read" in d else None)
                continue
            exps = [e for e in map(reader, row_refs) if e is not None]
            if not exps:
                out.append(None)
                continue
            got = reader(output)
            if got is None:
                out.append(_INF)
                continue
            best = _INF
            for e in exps:
                best = min(best, _need(EXACT.abs(EXACT.subtract(got.value, e.value)), EXACT.abs(e.value), vary, a, r))
            out.append(best)
    return out


def _need(diff: Decimal, size: Decimal, vary: str, a: Decimal, r: Decimal) -> Decimal:
    """The smallest ``vary`` at which ``diff <= max(abs_tol, rel_tol * size)`` holds, the
    other tolerance fixed at ``a`` or ``r``; products exact, as the grader's are."""
    if vary == "abs_tol":
        # passes when diff <= max(t, r * size): at t = 0 if the fixed part covers it.
        return Decimal(0) if diff <= EXACT.multiply(r, size) else diff
    if diff <= a:
        return Decimal(0)
    if size == 0:
        return _INF
    need = diff / size  # in the caller's 60-digit context
    # Division rounds at 60 digits: nudge up until it really passes.
    while EXACT.multiply(need, size) < diff:
        need = need.next_plus()
    return need


def numeric_tolerance_sweep(
    rows: pd.DataFrame,
    *,
    read: str = "whole",
    vary: str = "abs_tol",
    abs_tol: float = 0.0,
    rel_tol: float = 0.0,
    grid: Iterable[float] | None = None,
    readings: dict[tuple[str, str], Reading | None] | None = None,
    numeric_details: Sequence[Mapping[str, Any]] | None = None,
) -> pd.DataFrame:
    """Numeric pass counts over a tolerance grid for the prepared rows (``refs``, ``output``);
    ``readings`` and ``numeric_details`` as in ``critical_tolerances``.

    Columns: ``vary``, ``tolerance``, ``passed``, ``judged`` (pass + fail), ``pass_rate``.
    The configured value of ``vary`` is added to the grid so the curve goes through the
    page's own count.
    """
    fixed = abs_tol if vary == "abs_tol" else rel_tol
    grid = sorted({float(t) for t in (grid if grid is not None else (ABS_GRID if vary == "abs_tol" else REL_GRID))} | {float(fixed)})
    critical = critical_tolerances(
        list(rows["refs"]), list(rows["output"]), read=read, vary=vary, abs_tol=abs_tol, rel_tol=rel_tol,
        readings=readings, numeric_details=numeric_details,
    )
    judged_values = sorted(c for c in critical if c is not None)
    judged = len(judged_values)
    records = []
    for t in grid:
        passed = bisect_right(judged_values, _dec(t))
        records.append({
            "vary": vary, "tolerance": t, "passed": passed, "judged": judged,
            "pass_rate": (passed / judged) if judged else None,
        })
    return pd.DataFrame(records, columns=["vary", "tolerance", "passed", "judged", "pass_rate"])
