"""The near-miss probe for the string graders (exact, normalized, contains).

Each formatting step runs alone on both sides, in the fixed order of ``PROBE_STEPS``;
every step that alone turns the fail into a pass is named. When none does but all seven
together do, the code is ``several``. The other graders' probes live with them.
"""

from __future__ import annotations

from itertools import compress
from typing import Any, Callable, Sequence

from graders.text import normalize as text

PROBE_STEPS: dict[str, Callable[[str], str]] = {
    "trim": text.trim,
    "lowercase": text.lower,
    "nfkc": text.nfkc,
    "collapse_whitespace": text.collapse_whitespace,
    "strip_trailing_punctuation": text.strip_trailing_punctuation,
    "underscore_join": text.underscore_join,
    "strip_quotes": text.strip_quotes,
}

# Every code any probe can report, for the dashboard's legend and the CLI's summary.
PROBE_CODES: dict[str, str] = {
    "trim": "passes after trimming whitespace",
    "lowercase": "passes after lowercasing",
    "nfkc": "passes after NFKC normalization",
    "collapse_whitespace": "passes after collapsing whitespace runs",
    "strip_trailing_punctuation": "passes after removing a trailing . or !",
    "underscore_join": "passes after joining words with _",
    "strip_quotes": "passes after removing outer quotes",
    "several": "passes only after several formatting steps together",
    "case_insensitive": "passes with the i flag",
    "strip_fence": "passes after removing a code fence",
    "read_whole": "passes reading the whole text as the number",
    "read_first": "passes reading the first number",
    "read_last": "passes reading the last number",
    "below_threshold": "score within 0.1 below the threshold",
}


def _all_steps(s: str) -> str:
    for f in PROBE_STEPS.values():
        s = f(s)
    return s


CheckMany = Callable[..., list[bool]]

# A key every probe step leaves unchanged on ASCII text: lowercase, without whitespace,
# "_", a trailing "." / "!" or quote characters. On ASCII, step(x) == step(y) implies
# key(x) == key(y), and step(x) in step(y) implies key(x) in key(y), for each step and for
# all seven together; so a pair whose keys differ cannot be a near miss and is skipped.
# The key is bytes: bytes.lower and bytes.translate with a delete set are three times as
# fast as their str forms, and on ASCII they agree with them.
_KEY_DROP = ("".join(c for c in text.WHITESPACE if c.isascii()) + "_.!\"'`").encode("ascii")


def ascii_key(s: str) -> bytes | None:
    return s.encode("ascii").lower().translate(None, _KEY_DROP) if s.isascii() else None


def ascii_keys(texts: Sequence[str]) -> list[bytes | None]:
    """``ascii_key`` of each text; an all-ASCII column keyed at once, joined by NUL (which
    the key keeps, so it splits the keys apart again)."""
    joined = "\x00".join(texts)
    if joined.isascii():
        if joined.count("\x00") == len(texts) - 1:
            return joined.encode("ascii").lower().translate(None, _KEY_DROP).split(b"\x00")
        return [ascii_key(s) for s in texts]  # a text holds NUL itself
    # Some texts are not ASCII (their key is None): key the others at once.
    ascii_at = [i for i, s in enumerate(texts) if s.isascii()]
    keys: list[bytes | None] = [None] * len(texts)
    for i, k in zip(ascii_at, ascii_keys([texts[i] for i in ascii_at])):
        keys[i] = k
    return keys


def _ref_keys(refs: Sequence[tuple[str, ...]]) -> list[tuple[bytes | None, ...]]:
    if all(len(r) == 1 for r in refs):
        return [(k,) for k in ascii_keys([r[0] for r in refs])]
    return [tuple(map(ascii_key, r)) for r in refs]


def screen_equal_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str]) -> list[bool]:
    """``screen_equal`` over a column of pairs."""
    outs = ascii_keys(outputs)
    if all(len(r) == 1 for r in refs):
        return [a is None or b is None or a == b for a, b in zip(ascii_keys([r[0] for r in refs]), outs)]
    return [ko is None or None in kr or ko in kr for kr, ko in zip(_ref_keys(refs), outs)]


def screen_contains_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], require: str) -> list[bool]:
    """``screen_contains`` over a column of pairs."""
    every = require == "all"
    out = []
    for kr, ko in zip(_ref_keys(refs), ascii_keys(outputs)):
        if ko is None:
            out.append(True)
            continue
        hits = [k is None or k in ko for k in kr]
        out.append(all(hits) if every else any(hits))
    return out


def screen_equal(refs: tuple[str, ...], output: str) -> bool:
    """False only when no probe step can make ``output`` equal to a reference."""
    ko = ascii_key(output)
    if ko is None:
        return True
    for r in refs:
        kr = ascii_key(r)
        if kr is None or kr == ko:
            return True
    return False


def screen_contains(refs: tuple[str, ...], output: str, require: str) -> bool:
    """False only when no probe step can make ``output`` contain the references as required."""
    ko = ascii_key(output)
    if ko is None:
        return True
    keys = [ascii_key(r) for r in refs]
    hits = [k is None or k in ko for k in keys]
    return all(hits) if require == "all" else any(hits)


def probe_many(
    check_many: CheckMany, refs: Sequence[tuple[str, ...]], outputs: Sequence[str],
    screen: Callable[[Sequence[tuple[str, ...]], Sequence[str]], list[bool]] | None = None, **params: Any,
) -> list[tuple[str, ...] | None]:
    """The probe over a column of failing pairs; ``check_many(refs, outputs, **params)``
    is the grader's bare predicate over a column. ``screen(refs, outputs)``, when given,
    is a cheap necessary condition over the column for any step to pass on each pair
    (``screen_equal_many``, ``screen_contains_many``; see ``ascii_key``)."""
    if screen is not None:
        keep = [i for i, ok in enumerate(screen(refs, outputs)) if ok]
        if len(keep) < len(outputs):
            found = probe_many(check_many, [refs[i] for i in keep], [outputs[i] for i in keep], **params)
            result: list[tuple[str, ...] | None] = [None] * len(outputs)
            for i, c in zip(keep, found):
                result[i] = c
            return result
    codes: list[list[str]] = [[] for _ in outputs]
    rows = range(len(outputs))
    single = [r[0] for r in refs] if all(len(r) == 1 for r in refs) else None  # one reference a row, flat
    for code, step in PROBE_STEPS.items():
        stepped = [(x,) for x in map(step, single)] if single is not None else [tuple(map(step, r)) for r in refs]
        for i in compress(rows, check_many(stepped, list(map(step, outputs)), **params)):
            codes[i].append(code)
    rest = [i for i, c in enumerate(codes) if not c]
    if rest:
        hits = check_many(
            [tuple(map(_all_steps, refs[i])) for i in rest], [_all_steps(outputs[i]) for i in rest], **params
        )
        for i in compress(rest, hits):
            codes[i].append("several")
    return [tuple(c) if c else None for c in codes]
