"""The time-outs a run's patterns have spent, kept across its chunks in each process.

A run of the batch layer (``scoring.parallel``: one ``score_frame`` or ``score_to_csv``)
scores each chunk inside ``chunk_of(run)``. Per-row regex assertions and JSON
Schema patterns start each chunk from what the run has spent (``spent``) and add their
time-outs (``add``), so a pattern that backtracks catastrophically costs a run a few time
limits in each worker process, not a few in every 4,000-row chunk. Outside a named run
(a single library call), nothing is kept and each call starts afresh.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Hashable, Iterator

_run = ""  # the run whose chunk this process is scoring ("": none)
_last = ""  # the run ``_spent`` counts for
_spent: dict[Hashable, int] = {}


@contextmanager
def chunk_of(run: str) -> Iterator[None]:
    """A chunk of ``run`` is scored inside the block ("": of no run, nothing kept). A run
    other than the last one this process saw starts from nothing spent."""
    global _run, _last
    if run and run != _last:
        _spent.clear()
        _last = run
    outer, _run = _run, run
    try:
        yield
    finally:
        _run = outer


def spent(key: Hashable) -> int:
    """The time-outs the current run has spent under ``key`` (0 outside a run)."""
    return _spent.get(key, 0) if _run else 0


def add(key: Hashable, n: int = 1) -> None:
    """``n`` more time-outs under ``key`` for the current run (kept only inside a run)."""
    if _run and n:
        _spent[key] = _spent.get(key, 0) + n
