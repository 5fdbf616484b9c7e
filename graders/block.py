"""``Block``: one grader's results over a column of rows, held as columns.

The batch layer works in blocks so that the cheap graders never build a ``Grade`` per
row; ``Block.grade(i)`` gives row ``i`` back as the ``Grade`` that ``grade()`` returns,
and ``Block.from_grades`` wraps graders that only grade one row at a time.
"""

from __future__ import annotations

from typing import Any, Sequence

from graders.result import Grade


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
