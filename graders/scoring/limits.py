"""What a run's numeric settings may be, checked alike in the library and on the command line.

* ``workers``: a whole number >= 1 (None: the default, one process per core, at most four);
* ``max_bytes``: a whole number of bytes >= 1;
* ``resamples``: a whole number from ``MIN_RESAMPLES`` to ``MAX_RESAMPLES`` (fewer gives
  intervals too coarse to read, one resample a single point; more changes no figure worth
  reading, and a typo's extra digits would run for hours);
* ``seed``: a whole number >= 0.

A bool is not a number here, nor is 2.5 or "2": each gets a ``ValueError`` naming the range.
"""

from __future__ import annotations

import numbers
from typing import Any

MIN_RESAMPLES = 100
MAX_RESAMPLES = 1_000_000


def whole(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int in [low, high]; ``ValueError`` naming ``name`` and the range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        ok = False
    else:
        value = int(value)
        ok = value >= low and (high is None or value <= high)
    if not ok:
        span = f"from {low:,} to {high:,}" if high is not None else f">= {low:,}"
        raise ValueError(f"{name} must be a whole number {span}, not {value!r}")
    return value


def check_workers(workers: Any) -> int | None:
    return None if workers is None else whole("workers", workers, 1)


def check_resamples(resamples: Any) -> int:
    return whole("resamples", resamples, MIN_RESAMPLES, MAX_RESAMPLES)


def check_seed(seed: Any) -> int:
    return whole("seed", seed, 0)


def check_max_bytes(max_bytes: Any) -> int:
    return whole("max_bytes", max_bytes, 1)
