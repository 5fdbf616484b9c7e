"""Which graders apply to a file's data: the Compare page's default metrics (issue 33, 5).

Read from the first ``SAMPLE`` rows that have an output (their expected answers where the
file maps one); a kind of data counts when it holds in at least ``MOST`` of them:

- ``exact`` and ``normalized``: always;
- ``numeric``: the expected answers are one number each (SPEC §3's numeral, the whole cell);
- ``valid_json``: the outputs are JSON (one code fence tolerated);
- ``json_fields``: the outputs are JSON and the expected answers JSON objects;
- ``contains`` and ``token_f1``: the expected answers are text, not JSON;
- ``bleu``, ``rouge_l`` and ``chrf``: besides, they run to ``LONG_WORDS`` words or more on
  average (a translation or a summary, not a short answer).

Graders that need a parameter (``regex``, ``json_schema``) are never suggested. The names
come back in SPEC order (the registry's).
"""

from __future__ import annotations

from typing import Sequence

from graders.engines.jsonparse import parse_fenced
from graders.registry import REGISTRY
from graders.text.numbers import read_number

SAMPLE = 200
MOST = 0.5
LONG_WORDS = 4.0


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def _structured(text: str) -> object:
    """The JSON object or array ``text`` holds (one fence tolerated), else None."""
    value, err, _ = parse_fenced(text)
    return value if err is None and isinstance(value, (dict, list)) else None


def applicable_graders(expected: Sequence[str | None] | None, outputs: Sequence[str | None]) -> tuple[str, ...]:
    """The graders that apply to these rows (``expected``: None when the file has no expected
    answers; a cell None or empty counts as missing)."""
    at = [i for i, o in enumerate(outputs) if isinstance(o, str) and o.strip()][:SAMPLE]
    exps = [] if expected is None else [e for e in (expected[i] for i in at) if isinstance(e, str) and e.strip()]
    chosen = {"exact", "normalized"}
    if _share([_structured(outputs[i]) is not None for i in at]) >= MOST:
        chosen.add("valid_json")
        if _share([isinstance(_structured(e), dict) for e in exps]) >= MOST:
            chosen.add("json_fields")
    if exps:
        if _share([read_number(e, "whole") is not None for e in exps]) >= MOST:
            chosen.add("numeric")
        if _share([_structured(e) is not None for e in exps]) < MOST:
            chosen |= {"contains", "token_f1"}
            if sum(len(e.split()) for e in exps) / len(exps) >= LONG_WORDS:
                chosen |= {"bleu", "rouge_l", "chrf"}
    return tuple(name for name in REGISTRY if name in chosen)
