"""The harness's own verdict beside ours (issue 30): where a results file carries the
verdict of the harness that wrote it (promptfoo's ``harness.pass``, Inspect's
``harness.<scorer>.value``, lm-evaluation-harness's ``harness.<metric>``), how often each of
our pass-or-fail graders agrees with it, and on which rows they part.

A harness column counts as a verdict when every non-empty cell is one of ``VERDICTS``
(``true``/``false``, Inspect's ``C``/``I``, ``1``/``0``, ``1.0``/``0.0``; any case); a
column of other scores is not a verdict and is left out. Only rows both sides decided are
counted (a harness cell left empty, or our grader not judging, is neither agreement nor not).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from graders.readers.frame import ResultsFile
from graders.result import STATUSES

VERDICTS = {"true": True, "false": False, "c": True, "i": False, "correct": True, "incorrect": False,
            "1": True, "0": False, "1.0": True, "0.0": False, "pass": True, "fail": False}
_PASS, _FAIL = STATUSES.index("pass"), STATUSES.index("fail")


def verdict_columns(file: ResultsFile) -> dict[str, np.ndarray]:
    """{harness column: its verdicts per file row as 1 (pass), 0 (fail) or -1 (none)}."""
    return column_verdicts(file)[0]


def column_verdicts(file: ResultsFile) -> tuple[dict[str, np.ndarray], set[str]]:
    """``verdict_columns`` and the harness columns that hold something else than a verdict
    (a part of a file read in parts says which columns no other part may count)."""
    out, other = {}, set()
    for column in file.columns:
        if not column.startswith("harness."):
            continue
        cells = file.frame[column]
        folded = cells.map(lambda v: v.strip().lower() if isinstance(v, str) else None)
        known = folded.dropna()
        known = known[known != ""]
        if known.empty:
            continue
        if not known.isin(list(VERDICTS)).all():
            other.add(column)
            continue
        # an absent cell comes back from map as NaN, not None
        out[column] = folded.map(lambda v: int(VERDICTS[v]) if isinstance(v, str) and v else -1).to_numpy(dtype=np.int8)
    return out, other


def harness_agreement(file: ResultsFile, rows: pd.DataFrame, binary: list[str], scorer: np.ndarray,
                      status: np.ndarray, positions: np.ndarray) -> dict[str, Any]:
    """For each harness verdict column and each of ``binary`` (our pass-or-fail scorers):
    rows both decided, agreeing, the harness passing where we fail and the reverse, and the
    first twenty cases where they part. ``scorer``/``status`` (status codes into
    ``STATUSES``) per scored row, ``positions`` its row in ``rows`` (the prepared rows)."""
    verdicts = verdict_columns(file)
    if not verdicts:
        return {}
    at_record = {record: i for i, record in enumerate(file.records)}
    file_row = np.array([at_record.get(r, -1) for r in rows["record"].tolist()], dtype=np.intp)
    items = rows["item"].to_numpy(dtype=object)
    out: dict[str, Any] = {}
    for column, verdict in verdicts.items():
        per: dict[str, Any] = {}
        for name in binary:
            mine = np.flatnonzero((scorer == name) & ((status == _PASS) | (status == _FAIL)))
            where = file_row[positions[mine]]
            theirs = np.where(where >= 0, verdict[np.maximum(where, 0)], -1)
            decided = theirs >= 0
            ours = (status[mine] == _PASS)[decided]
            theirs = theirs[decided].astype(bool)
            parted = mine[decided][ours != theirs]
            per[name] = {
                "rows": int(decided.sum()),
                "agree": int((ours == theirs).sum()),
                "harness_pass_ours_fail": int((theirs & ~ours).sum()),
                "harness_fail_ours_pass": int((~theirs & ours).sum()),
                "first_disagreements": [str(items[positions[i]]) for i in parted[:20]],
            }
        out[column] = per
    return out


def add_agreement(total: dict[str, Any], part: dict[str, Any]) -> None:
    """``part``'s ``harness_agreement`` (the next rows of the run) added to ``total``: counts
    add, the first disagreements run on to twenty. (A column is the file's verdict only
    where no part holds anything else in it: ``column_verdicts``.)"""
    for column, per in part.items():
        mine = total.setdefault(column, {})
        for name, a in per.items():
            t = mine.setdefault(name, {"rows": 0, "agree": 0, "harness_pass_ours_fail": 0,
                                       "harness_fail_ours_pass": 0, "first_disagreements": []})
            for key in ("rows", "agree", "harness_pass_ours_fail", "harness_fail_ours_pass"):
                t[key] += a[key]
            t["first_disagreements"] = (t["first_disagreements"] + a["first_disagreements"])[:20]


def agreement_lines(agreement: dict[str, Any]) -> list[str]:
    """The report's lines: ``harness.pass vs exact: 8 of 10 rows agree (harness pass, ours fail: 1; …)``."""
    lines = []
    for column, per in agreement.items():
        for name, a in per.items():
            lines.append(f"{column} vs {name}: {a['agree']} of {a['rows']} rows agree (harness pass, ours fail: "
                         f"{a['harness_pass_ours_fail']}; harness fail, ours pass: {a['harness_fail_ours_pass']})")
    return lines
