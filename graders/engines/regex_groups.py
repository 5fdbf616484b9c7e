"""Capture groups of JavaScript regular expressions over a column, on the V8 engine of
``graders.engines.regex`` (its isolates, batches, per-row time limit and transport).

* ``group_info(pattern, flags)``: the pattern's number of capture groups and the names of
  its named ones, as V8 reads them (``RegexSyntaxError`` with ``check_pattern``'s message
  when JavaScript refuses the pattern or the flags);
* ``group_problem(pattern, flags, group)``: why ``group`` cannot be taken from the pattern
  (a refused pattern, a number past its groups, a name it lacks), or None;
* ``groups_many(pattern, flags, texts, group, which)``: group ``group`` of the first or last
  match in each text.

Semantics are JavaScript's, with the ``u`` flag always on (``v`` replacing it), as for
``match_many``: ``which="first"`` is ``re.exec(text)`` from index 0 (``g`` changes nothing;
``y`` pins the match to index 0); ``which="last"`` is the last match of
``text.matchAll(re)`` (``g`` added), which steps over empty matches as JavaScript does.
``group`` is a number (0 = the whole match) or a group's name. No match, or a group that
did not take part in the match: None.

Transport: V8 records the group's span (the ``d`` flag's ``indices``) in the batch's span
array, as ``GB.run`` records a match's, and only numbers come back; the group's text is
then sliced from the Python text. So no JavaScript string crosses into Python (one holding
a lone surrogate would fail mini-racer's decoding), and the text returned is exactly the
Python text's code points, a high and a low surrogate side by side included.
"""

from __future__ import annotations

import functools
import json
from typing import Iterable, Sequence

from graders.engines.regex import (
    EXTENSIONS,
    ErrorResult,
    MatchResult,
    RegexSyntaxError,
    TimeoutResult,
    _dumps,
    _isolate,
    _match_many,
    check_pattern,
    parse_flags,
)

__all__ = ["WHICH", "group_info", "group_problem", "groups_many"]

WHICH = ("first", "last")

# GB.groups(pj, flags, which, gj): like GB.run, resumable at GB.i, the group's span in
# GB.spans (code points; -1: no match or the group took no part). GB.groupInfo: `p|`
# always matches the empty string, so exec("") reports every group of p.
EXTENSIONS["groups"] = r"""
GB.groupsCompile = function (pj, flags, which) {
  const key = "groups:" + which + "/" + flags + "/" + pj;
  let re = GB.cache.get(key);
  if (re === undefined) {
    let f = flags.replace("g", "");
    if (!f.includes("d")) f += "d";
    re = new RegExp(JSON.parse(pj), which === "last" ? f + "g" : f);
    if (GB.cache.size >= 256) GB.cache.clear();
    GB.cache.set(key, re);
  }
  return re;
};
GB.groups = function (pj, flags, which, gj) {
  const g = JSON.parse(gj), named = typeof g === "string";
  const re = GB.groupsCompile(pj, flags, which), texts = GB.texts, only = GB.only, spans = GB.spans;
  const n = only ? only.length : texts.length;
  for (; GB.i < n; GB.i++) {
    const i = GB.i, t = texts[only ? only[i] : i];
    let m = null;
    try {
      re.lastIndex = 0;
      if (which === "last") { for (const x of t.matchAll(re)) m = x; } else m = re.exec(t);
    } catch (e) { GB.errors[i] = String(e && e.message); continue; }
    if (m === null) continue;
    const at = named ? (m.indices.groups ? m.indices.groups[g] : undefined) : m.indices[g];
    if (at === undefined) continue;
    const pairs = GB.SURROGATE.test(t);
    spans[2 * i] = pairs ? GB.codePoints(t, at[0]) : at[0];
    spans[2 * i + 1] = pairs ? GB.codePoints(t, at[1]) : at[1];
  }
  return GB.i;
};
"""
EXTENSIONS["groupInfo"] = r"""
GB.groupInfo = function (pj, flags) {
  const m = new RegExp(JSON.parse(pj) + "|", flags.replace("g", "").replace("y", "")).exec("");
  return JSON.stringify([m.length - 1, m.groups ? Object.keys(m.groups) : []]);
};
"""


def group_info(pattern: str, flags: str = "") -> tuple[int, tuple[str, ...]]:
    """(number of capture groups, names of the named ones, in order) of ``pattern`` under
    ``flags`` (u always on). ``RegexSyntaxError`` with ``check_pattern``'s message when
    JavaScript refuses them."""
    msg = check_pattern(pattern, flags)
    if msg is not None:
        raise RegexSyntaxError(msg)
    return _group_info(pattern, parse_flags(flags).js)


@functools.lru_cache(maxsize=256)
def _group_info(pattern: str, js: str) -> tuple[int, tuple[str, ...]]:
    with _isolate() as iso:
        count, names = json.loads(iso.call("groupInfo", _dumps(pattern), js))
    return count, tuple(names)


def _valid_group(group: object) -> bool:
    return (isinstance(group, int) and not isinstance(group, bool) and group >= 0) or isinstance(group, str)


def group_problem(pattern: str, flags: str, group: int | str) -> str | None:
    """None when group ``group`` (a number, 0 = the whole match, or a name) can be taken from
    ``pattern``; otherwise one message for a person."""
    if not _valid_group(group):
        return f"the group must be a number >= 0 or a group name, not {group!r}"
    try:
        count, names = group_info(pattern, flags)
    except RegexSyntaxError as e:
        return str(e)
    shown = f"/{pattern}/{flags}"
    if isinstance(group, int) and group > count:
        return f"{shown} has no group {group}: it has {count} capture group{'' if count == 1 else 's'}"
    if isinstance(group, str) and group not in names:
        have = f"its named groups are {', '.join(names)}" if names else "it has no named groups"
        return f"{shown} has no group named {group!r}: {have}"
    return None


def groups_many(
    pattern: str,
    flags: str,
    texts: Iterable[str],
    group: int | str = 0,
    which: str = "first",
    timeout: float = 1.0,
    *,
    max_timeouts: int | None = None,
    only: Sequence[int] | None = None,
) -> list[str | None | TimeoutResult | ErrorResult]:
    """Group ``group`` of the first or last match of ``pattern`` (JavaScript, u always on)
    in each text: its text, None (no match, or the group took no part), a
    ``TimeoutResult`` (the row ran past ``timeout`` seconds and was stopped) or an
    ``ErrorResult`` (bad pattern or flags, for every text, as ``match_many``; the engine
    failed; not run once ``max_timeouts`` time-outs were spent). ``only``: just these
    indices of ``texts``. ``ValueError`` on a bad ``which`` or ``group`` (programming
    errors: ``group_problem`` checks a group against the pattern)."""
    if which not in WHICH:
        raise ValueError(f"which must be 'first' or 'last', not {which!r}")
    if not _valid_group(group):
        raise ValueError(f"group must be a number >= 0 or a group name, not {group!r}")
    texts = texts if isinstance(texts, list) else list(texts)
    results = _match_many(pattern, flags, which, texts, timeout, max_timeouts, only, "groups", (_dumps(group),))
    rows = range(len(texts)) if only is None else only
    return [
        (None if r.span is None else texts[k][r.span[0]:r.span[1]]) if isinstance(r, MatchResult) else r
        for k, r in zip(rows, results)
    ]
