"""The one value type every grader returns, and the helpers that build it.

Statuses:

* ``pass`` / ``fail`` – a pass-or-fail verdict (``passed`` is True / False);
* ``scored`` – a continuous grader run without a threshold (``passed`` is None);
* ``not_judged`` – the grader cannot apply to this pair (``score`` is None);
* ``error`` – the grader could not run (bad pattern, time limit; ``score`` is None).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

STATUSES = ("pass", "fail", "not_judged", "error", "scored")


@dataclass(frozen=True)
class Grade:
    """One grader's verdict on one (expected, output) pair.

    * ``status``: ``"pass"``, ``"fail"``, ``"scored"`` (a continuous grader without a
      threshold), ``"not_judged"`` (the grader does not apply) or ``"error"`` (it could not run);
    * ``passed``: True / False on pass / fail, else None;
    * ``score``: a float in [0, 1] (1.0 / 0.0 for pass-or-fail graders), None when not
      judged or on error;
    * ``explanation``: one human sentence or short paragraph;
    * ``near_miss``: None, or on a fail the tuple of probe codes that would flip it
      (``("trim",)``, ``("below_threshold",)``, ...);
    * ``details``: the settings and facts behind the verdict (``details["signature"]``).
    """

    status: str
    passed: bool | None
    score: float | None
    explanation: str
    near_miss: tuple[str, ...] | None = None
    # Settings and structured facts behind the verdict (signature, numbers read,
    # schema violations, ...). Not part of equality: two grades with the same verdict
    # are equal whatever detail they carry.
    details: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}; valid statuses: {', '.join(STATUSES)}")

    def to_dict(self) -> dict[str, Any]:
        """The grade as plain data for ``json.dumps``: every field, ``near_miss`` a list
        (or None), ``details`` a copy."""
        return {
            "status": self.status, "passed": self.passed, "score": self.score, "explanation": self.explanation,
            "near_miss": None if self.near_miss is None else list(self.near_miss), "details": dict(self.details),
        }


def verdict(passed: bool, explanation: str, **details: Any) -> Grade:
    """A pass-or-fail grade: score 1.0 on pass, 0.0 on fail."""
    return Grade("pass" if passed else "fail", passed, 1.0 if passed else 0.0, explanation, details=details)


def not_judged(explanation: str, **details: Any) -> Grade:
    return Grade("not_judged", None, None, explanation, details=details)


def error(explanation: str, **details: Any) -> Grade:
    return Grade("error", None, None, explanation, details=details)


_new = object.__new__


def _grade(status: str, passed: bool | None, score: float, explanation: str, details: dict) -> Grade:
    """``Grade(status, passed, score, explanation, details=details)`` for a status known
    to be valid: the frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``, which costs more than the grade's numbers on a short pair."""
    g = _new(Grade)
    g.__dict__.update(
        status=status, passed=passed, score=score, explanation=explanation, near_miss=None, details=details
    )
    return g


def score_text(score: float) -> str:
    """A score to four decimals, or to more where four would round a score that is not 0
    or 1 to 0.0000 or 1.0000 (0.99997 is not shown as a perfect 1.0000)."""
    for places in range(4, 18):
        shown = f"{score:.{places}f}"
        if score in (0.0, 1.0) or float(shown) not in (0.0, 1.0):
            return shown
    return repr(score)


def threshold_words(score: float, threshold: float) -> str:
    """``Score 0.8000 is at or above the threshold 0.8.``: the score to four decimals, or to
    as many as it takes to fall on its own side of the threshold (0.99997 against 1 reads
    0.99997, not 1.0000, which would be "below the threshold 1"); the threshold as given."""
    passed = score >= threshold
    for places in range(4, 18):
        shown = f"{score:.{places}f}"
        value = float(shown)
        if (value >= threshold) == passed and (value != threshold or score == threshold):
            break
    else:
        shown = repr(score)
    limit = f"{threshold:g}"
    if float(limit) != threshold:
        limit = repr(threshold)
    return f"Score {shown} is {'at or above' if passed else 'below'} the threshold {limit}."


def continuous(score: float, threshold: float | None, explanation: str, **details: Any) -> Grade:
    """A continuous grade: ``scored`` without a threshold, else pass when score >= threshold."""
    score = float(score)
    if threshold is None:
        return _grade("scored", None, score, explanation, details)
    passed = score >= threshold
    return _grade("pass" if passed else "fail", passed, score, f"{explanation} {threshold_words(score, threshold)}", details)


# --- Block: one grader's results over a column -----------------------------------
#
# ``Block``: one grader's results over a column of rows, held as columns.
#
# The batch layer works in blocks so that the cheap graders never build a ``Grade`` per
# row; ``Block.grade(i)`` gives row ``i`` back as the ``Grade`` that ``grade()`` returns,
# and ``Block.from_grades`` wraps graders that only grade one row at a time.


class Block:
    __slots__ = ("status", "passed", "score", "explanation", "near_miss", "details")

    def __init__(self, n: int) -> None:
        self.status: list[str] = ["fail"] * n
        self.passed: list[bool | None] = [False] * n
        self.score: list[float | None] = [0.0] * n
        self.explanation: list[str] = [""] * n
        self.near_miss: list[tuple[str, ...] | None] = [None] * n
        self.details: list[dict[str, Any]] = [{}] * n

    def __len__(self) -> int:
        return len(self.status)

    def set(self, i: int, g: Grade) -> None:
        self.status[i], self.passed[i], self.score[i] = g.status, g.passed, g.score
        self.explanation[i], self.near_miss[i], self.details[i] = g.explanation, g.near_miss, dict(g.details)

    def grade(self, i: int) -> Grade:
        return Grade(self.status[i], self.passed[i], self.score[i], self.explanation[i], self.near_miss[i], self.details[i])

    def take(self, index: Sequence[int]) -> "Block":
        """Row ``index[i]`` of this block as row ``i`` of a new one."""
        b = Block.__new__(Block)
        for name in self.__slots__:
            col = getattr(self, name)
            setattr(b, name, [col[j] for j in index])
        return b

    @classmethod
    def from_grades(cls, grades: Sequence[Grade]) -> "Block":
        b = cls(len(grades))
        for i, g in enumerate(grades):
            b.set(i, g)
        return b
