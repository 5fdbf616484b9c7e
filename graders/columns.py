"""Column roles and the mapping suggested from SPEC §5's aliases.

    >>> suggest_mapping(["case_id", "prompt", "answer", "response"])["output"]
    'response'

Matching, in order of preference: the full name equal to an alias with the same case,
then case-insensitively (and ignoring surrounding spaces), then a dotted column whose last part is an alias
(``vars.expected``), same case before any case. Within one of those tiers the earlier
alias wins (``expected`` before ``label``), then the earlier column. A column serves one
role at most. ``label`` is a weak alias: taken for expected only when no other expected
alias matches, dotted ones included; it is never an expected *kind*.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["ROLES", "ALIASES", "REQUIRED", "suggest_mapping"]

ROLES = ("id", "expected", "output", "output_b", "input", "version", "repeat", "expected_kind", "assert")
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "case_id"),
    "expected": ("expected", "reference", "answer", "target", "ideal", "label"),
    "output": ("output", "actual", "prediction", "response", "completion"),
    "output_b": ("output_b", "model_b", "baseline"),
    "input": ("input", "prompt", "question"),
    "version": ("version",),
    "repeat": ("repeat",),
    "expected_kind": ("expected_kind",),
    "assert": ("assert",),
}
REQUIRED = ("id", "output")  # without these nothing can be scored
# A weak alias is taken only when no other alias of its role matches, even a dotted one:
# a column called ``label`` is often a class label, not the reference answer.
_WEAK = frozenset({"label"})


def suggest_mapping(columns: Sequence[str]) -> dict[str, str | None]:
    """A column for every role in ``ROLES`` (None when no column fits)."""
    taken: set[str] = set()
    mapping: dict[str, str | None] = {}
    for role in ROLES:
        best: tuple[int, ...] | None = None
        choice: str | None = None
        for position, column in enumerate(columns):
            if column in taken:
                continue
            rank = _rank(column, ALIASES[role])
            if rank is not None and (best is None or (*rank, position) < best):
                best = (*rank, position)
                choice = column
        mapping[role] = choice
        if choice is not None:
            taken.add(choice)
    return mapping


def _rank(column: str, aliases: tuple[str, ...]) -> tuple[int, int, int] | None:
    """(weak, tier, alias index) of the best alias ``column`` matches; lower is better."""
    last = column.rsplit(".", 1)[-1] if "." in column else None
    best: tuple[int, int, int] | None = None
    for index, alias in enumerate(aliases):
        for tier, name, fold in ((0, column, False), (1, column, True), (2, last, False), (3, last, True)):
            if name is None:
                continue
            if (name.strip().casefold() == alias) if fold else (name == alias):
                rank = (alias in _WEAK, tier, index)
                if best is None or rank < best:
                    best = rank
                break
    return best
