"""Gradeboard's grader core: code graders for LLM eval results.

    >>> from graders import grade
    >>> grade("exact", expected="Paris", output="Paris").status
    'pass'

The public surface is ``grade``, ``Grade``, ``GRADER_NAMES``, ``corpus_bleu`` and
``corpus_chrf``, and ``score_ddf`` and ``compare_ddf`` for a ``dask.dataframe`` of rows
(SPEC §11, with ``pip install 'gradeboard[dask]'``; ``graders.distributed`` has the
rest); the registry (``graders.registry.REGISTRY``) describes every grader's parameters
for the batch layer, the command line and the dashboard, and ``help(grade)`` lists them
with their defaults.
"""

from __future__ import annotations

import textwrap

from graders.metrics.base import COMMON_PARAMS
from graders.metrics.bleu import corpus_bleu
from graders.metrics.chrf import corpus_chrf
from graders.registry import REGISTRY, grade
from graders.result import Grade

GRADER_NAMES: tuple[str, ...] = tuple(REGISTRY)  # SPEC §2's order: graders.metrics.SPECS


def _settings_doc() -> str:
    """Every grader and its parameters, from the registry, for ``help(grade)``."""
    lines = ["", "Graders and their parameters (from ``graders.registry.REGISTRY``):", ""]
    for name, spec in REGISTRY.items():
        lines.append(f"    {name} — {spec.summary}")
        for p in spec.params:
            if p.required:
                form = f"{p.name} (required)"
            elif p.choices and p.kind == "choice":
                form = f"{p.name}=" + " | ".join(map(repr, (p.default, *(c for c in p.choices if c != p.default))))
            else:
                form = f"{p.name}={list(p.default) if isinstance(p.default, tuple) else p.default!r}"
            lines.append(f"        {form}: {p.help}")
    lines += ["", "Every grader also takes:", ""]
    lines += [f"    {p.name}={p.default!r}: {p.help}" for p in COMMON_PARAMS]
    return "\n".join(lines) + "\n"


# The docstring's indentation taken off first: help() keeps a margin that not every line
# has, and its paragraphs would be shown indented like code under the list's own lines.
_first, _, _rest = (grade.__doc__ or "").partition("\n")
grade.__doc__ = _first + "\n" + textwrap.dedent(_rest).rstrip() + "\n" + _settings_doc()
del _first, _rest



def __getattr__(name: str) -> object:
    """``score_ddf`` and ``compare_ddf`` (SPEC §11: a ``dask.dataframe`` of rows scored or
    compared on a cluster), imported when first asked for: ``import graders`` stays as light
    as ``grade`` needs."""
    if name in ("score_ddf", "compare_ddf"):
        import graders.distributed

        return getattr(graders.distributed, name)
    raise AttributeError(f"module 'graders' has no attribute {name!r}")


__all__ = ["grade", "Grade", "GRADER_NAMES", "corpus_bleu", "corpus_chrf", "score_ddf", "compare_ddf"]
