"""Which metrics Holm's adjustment runs over (issue 34): the primary metrics, which on the
command line are the gated ones (``--fail-if-worse``), and without any, every grader
compared. ``overall`` is built from the graders, so it is never in a family with them:
it is tested on its own. Any other metric is shown with its unadjusted p, and says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from graders.stats import holm_adjust

ALPHA = 0.05  # the level every verdict and gate reads a p-value at


class FamilyError(ValueError):
    """A primary metric that was not compared."""


@dataclass(frozen=True)
class HolmFamilies:
    """``family``: the metrics Holm-adjusted together; ``alone``: ``("overall",)`` when
    the overall verdict is tested, on its own; ``unadjusted``: the others; ``chosen_by``
    says how the family was chosen."""

    family: tuple[str, ...]
    alone: tuple[str, ...]
    unadjusted: tuple[str, ...]
    chosen_by: str

    def role(self, name: str) -> str:
        """"holm" (in the family), "alone" (overall, on its own) or "unadjusted"."""
        return "holm" if name in self.family else "alone" if name in self.alone else "unadjusted"

    def size(self, name: str) -> int:
        """The number of metrics ``name``'s p-value is adjusted over (1: none)."""
        return len(self.family) if name in self.family else 1

    def adjust(self, pvalues: Mapping[str, float]) -> dict[str, float | None]:
        """Holm-adjusted p-values of the family; ``overall`` alone keeps its p; the others
        None (shown unadjusted). A p that is NaN (no pairs) stays out of the family's count."""
        usable = [None if not math.isfinite(pvalues[n]) else pvalues[n] for n in self.family]
        out: dict[str, float | None] = dict(zip(self.family, holm_adjust(usable)))
        for name in self.alone:
            p = pvalues[name]
            out[name] = p if math.isfinite(p) else None
        for name in self.unadjusted:
            out[name] = None
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"family": list(self.family), "chosen_by": self.chosen_by, "alone": list(self.alone),
                "unadjusted": list(self.unadjusted), "alpha": ALPHA}

    def line(self) -> str:
        """The report's line on what was adjusted."""
        parts = [f"Holm-adjusted across {', '.join(self.family)} ({self.chosen_by})" if self.family
                 else "No Holm family"]
        if self.alone:
            parts.append("overall tested on its own (it is built from the graders)")
        if self.unadjusted:
            parts.append(f"unadjusted p for {', '.join(self.unadjusted)}")
        return "; ".join(parts) + "."


def holm_families(scorers: Sequence[str], primary: Sequence[str] | None) -> HolmFamilies:
    """The families of ``scorers`` (the metrics compared, ``overall`` last when on) for
    these ``primary`` metrics (None: every grader). ``FamilyError`` for a primary metric
    that was not compared."""
    if primary is None:
        family = tuple(n for n in scorers if n != "overall")
        alone = ("overall",) if "overall" in scorers else ()
        return HolmFamilies(family, alone, (), "every grader compared")
    chosen = list(dict.fromkeys(primary))
    for name in chosen:
        if name not in scorers:
            raise FamilyError(f"--fail-if-worse (primary metrics): grader {name!r} was not compared; "
                              f"compared: {', '.join(scorers) or 'none'}")
    family = tuple(n for n in scorers if n in chosen and n != "overall")
    alone = ("overall",) if "overall" in chosen else ()
    rest = tuple(n for n in scorers if n not in chosen)
    return HolmFamilies(family, alone, rest, "the primary metrics (on the command line --primary, else the --fail-if-worse graders; on the Compare page, those marked primary)")
