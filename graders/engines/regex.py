"""ECMAScript regular expressions as JavaScript runs them: V8 through ``mini-racer``.

V8 is the engine of node and Chrome, so a pattern means here exactly what it means there.
The ``u`` flag is always on: ``\\d``, ``\\w`` and ``\\b`` are ASCII, ``.`` is one code
point and does not match line terminators without ``s``, ``\\p{…}`` works, ``$`` is the
very end without ``m``.

Flags (JavaScript's letters, each at most once): ``i`` ``m`` ``s`` as in JavaScript; ``u``
always on; ``v`` (unicodeSets: ``--`` ``&&``, ``\\q{…}``, string properties) replaces ``u``
and, as in JavaScript, cannot be combined with it; ``g`` and ``d`` change nothing in one
test from index 0; ``y`` pins the match to index 0 (``at="anywhere"`` is then ``"start"``).

Modes: ``anywhere`` is ``re.exec(text)`` from index 0; ``start`` is the same with the
sticky flag (a match beginning at index 0); ``whole`` is sticky ``(?:P)(?![\\s\\S])``, a
match from index 0 whose end is the end of the text whatever ``m`` says, alternatives
backtracking (``a|ab`` matches ``ab`` whole). Validity is decided on the pattern as given.

Texts travel to V8 as one ASCII JSON text per batch (lone surrogates arrive as themselves);
results come back as JSON, their offsets in code points of the Python text.

Time limit: a batch runs in one call whose limit is the per-row limit; V8 records the row
it is on. A terminated call's row is a time-out if it had the whole call to itself; else
matching resumes at that row with a fresh call (a row is stopped only after running the
whole limit alone; a runaway row costs at most twice the limit). The context stays usable.

Contexts: one V8 isolate per concurrent caller, from a small pool (Streamlit runs each
session's script in its own thread); each isolate's heap is capped (``HEAP_LIMIT``), and a
batch that exhausts it is an error for its rows, with a message, never a crash. A forked
process starts a fresh pool (V8 runs single-threaded: a child starts its own isolates).
"""

from __future__ import annotations

import atexit
import bisect
import functools
import itertools
import json
import operator
import os
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from graders.engines.regex_syntax import (  # noqa: F401  (the names this module has always offered)
    JS_FLAGS,
    Flags,
    RegexError,
    RegexSyntaxError,
    RegexTimeout,
    parse_flags,
    python_pattern_hint,
)
from graders.text.show import visible

__all__ = [
    "RegexError", "RegexSyntaxError", "RegexTimeout", "Flags", "parse_flags", "MatchResult", "TimeoutResult",
    "ErrorResult", "match_many", "ecma_search", "check_pattern", "python_pattern_hint", "literal",
    "count_surrogates", "MODES", "ENGINE", "engine_version", "forget_batches",
]

MODES = ("anywhere", "start", "whole")
ENGINE = "v8"
HEAP_LIMIT = 1 << 30  # bytes of V8 heap per isolate
CHUNK_TEXTS = 8192  # texts per batch
CHUNK_CHARS = 4_000_000  # code points per batch (at least one text)
STORE_CHARS = 40_000_000  # code points of batches an isolate keeps for the next pattern
POOL_SIZE = 4  # idle isolates kept for reuse
# GB methods other modules define (name -> the JavaScript that sets GB.<name>), evaluated in
# an isolate when first called there: engines.regex_groups adds capture groups this way.
EXTENSIONS: dict[str, str] = {}


def engine_version() -> str:
    """``v8 <version>`` of the embedded engine, read from a pooled isolate on first use."""
    return _engine_version()


@functools.cache
def _engine_version() -> str:
    with _isolate() as iso:
        return f"v8 {iso.ctx.v8_version}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def count_surrogates(text: str) -> int:
    """Number of lone surrogate code points in ``text``."""
    if text.isascii():
        return 0
    return len(_SURROGATE.findall(text))


# --- V8 ------------------------------------------------------------------------------

# The JavaScript side. Every value returned to Python is JSON text or a number: a JS string
# holding a lone surrogate cannot cross to Python (mini-racer decodes returned strings as
# UTF-8), and JSON.stringify escapes them.
_JS = r"""
"use strict";
const GB = {
  cache: new Map(),
  texts: [], spans: null, errors: {}, i: 0,
  reason(e, p, flags) {
    const m = String(e && e.message !== undefined ? e.message : e);
    const head = "Invalid regular expression: /" + p + "/" + flags + ": ";
    return m.startsWith(head) ? m.slice(head.length) : m;
  },
  check(pj, flags) {
    const p = JSON.parse(pj);
    try { new RegExp(p, flags); return ""; } catch (e) { return JSON.stringify(GB.reason(e, p, flags)); }
  },
  compile(pj, flags, mode) {
    const key = mode + "/" + flags + "/" + pj;
    let re = GB.cache.get(key);
    if (re === undefined) {
      const p = JSON.parse(pj);
      new RegExp(p, flags);  // validity is the pattern's own, before any wrapping
      const sticky = flags.includes("y") ? flags : flags + "y";
      re = mode === "anywhere" ? new RegExp(p, flags)
         : mode === "start" ? new RegExp(p, sticky)
         : new RegExp("(?:" + p + ")(?![\\s\\S])", sticky);
      if (GB.cache.size >= 256) GB.cache.clear();
      GB.cache.set(key, re);
    }
    return re;
  },
  store: new Map(),  // batches of texts kept for the next pattern over the same column
  put(key, json) { GB.store.set(key, JSON.parse(json)); return 0; },
  drop(key) { GB.store.delete(key); return 0; },
  select(key, only) {  // the batch to run, and the rows of it to run (JSON list, or "" for all)
    GB.texts = GB.store.get(key);
    GB.only = only ? JSON.parse(only) : null;
    const n = GB.only ? GB.only.length : GB.texts.length;
    GB.spans = new Int32Array(2 * n).fill(-1);
    GB.errors = {};
    GB.i = 0;
    return n;
  },
  run(pj, flags, mode) {
    const re = GB.compile(pj, flags, mode), texts = GB.texts, only = GB.only, spans = GB.spans;
    const n = only ? only.length : texts.length;
    for (; GB.i < n; GB.i++) {
      const i = GB.i, t = texts[only ? only[i] : i];
      re.lastIndex = 0;
      let m;
      try { m = re.exec(t); } catch (e) { GB.errors[i] = String(e && e.message); continue; }
      if (m !== null) {
        const end = m.index + m[0].length;
        const pairs = GB.SURROGATE.test(t);
        spans[2 * i] = pairs ? GB.codePoints(t, m.index) : m.index;
        spans[2 * i + 1] = pairs ? GB.codePoints(t, end) : end;
      }
    }
    return GB.i;
  },
  SURROGATE: /[\uD800-\uDFFF]/,
  codePoints(t, unit) {  // UTF-16 offset -> code points (a pair counts once)
    let n = unit;
    for (let k = 0; k + 1 < unit; k++) {
      const c = t.charCodeAt(k);
      if (c >= 0xD800 && c <= 0xDBFF) {
        const d = t.charCodeAt(k + 1);
        if (d >= 0xDC00 && d <= 0xDFFF) { n--; k++; }
      }
    }
    return n;
  },
  skip(i) { GB.i = i + 1; return GB.i; },
  at() { return GB.i; },
  results() { return JSON.stringify([Array.from(GB.spans), GB.errors]); },
  release() { GB.texts = null; GB.only = null; GB.spans = null; GB.errors = {}; return 0; },
};
globalThis.GB = GB;
"""


class _Isolate:
    """One V8 isolate with the matcher loaded; used by one thread at a time."""

    def __init__(self) -> None:
        from py_mini_racer import MiniRacer

        self.ctx = MiniRacer()
        self.ctx.set_hard_memory_limit(HEAP_LIMIT)
        self.ctx.eval(_JS)
        self._fns = {name: self.ctx.eval(f"GB.{name}") for name in
                     ("check", "put", "drop", "select", "run", "skip", "at", "results", "release")}
        self.pid = os.getpid()
        self.busy_until = 0.0  # when the call under way is stopped by its own time limit
        self.stored: dict[int, tuple[list[str], int]] = {}  # key -> (batch, code points), oldest first
        self._keys = itertools.count()

    def key_of(self, batch: list[str]) -> int:
        """The key of ``batch`` in V8's store, putting it there (and dropping the oldest
        batches past STORE_CHARS) unless the same texts, object for object, are there.
        The store holds the batch, so no text it names can be freed and its id reused."""
        for key, (kept, _) in self.stored.items():
            if len(kept) == len(batch) and all(map(operator.is_, kept, batch)):
                self.stored[key] = self.stored.pop(key)  # most recently used last
                return key
        chars = sum(map(len, batch))
        while self.stored and sum(c for _, c in self.stored.values()) + chars > STORE_CHARS:
            old = next(iter(self.stored))
            self.call("drop", old)
            del self.stored[old]
        key = next(self._keys)
        self.call("put", key, _dumps(batch))
        self.stored[key] = (batch, chars)
        return key

    def call(self, name: str, *args: object, limit: float = 60.0) -> object:
        """``GB.<name>(*args)``, stopped by V8 after ``limit`` seconds (``JSTimeoutException``)."""
        fn = self._fns.get(name)
        if fn is None:  # an extension's method (EXTENSIONS): defined in this isolate on first use
            self.ctx.eval(EXTENSIONS[name])
            fn = self._fns[name] = self.ctx.eval(f"GB.{name}")
        self.busy_until = time.monotonic() + limit
        for attempt in range(3):  # the last call's time limit, firing as it ended, can stop this one
            try:
                return fn(*args, timeout_sec=limit)
            except _js_errors()[2]:
                if attempt == 2:
                    raise

    def close(self) -> None:
        """Close the isolate; one whose call was abandoned (an interrupt while waiting) is
        closed once that call has met its time limit, since V8 still runs it."""
        if self.pid != os.getpid():
            return
        wait = self.busy_until - time.monotonic()
        if wait > 0:
            timer = threading.Timer(wait + 1.0, self.ctx.close)
            timer.daemon = True
            timer.start()
        else:
            self.ctx.close()


_POOL: list[_Isolate] = []
_POOL_LOCK = threading.Lock()
_FORKED_AWAY: list[_Isolate] = []  # a parent's isolates in a forked child: never touched, never freed


@atexit.register
def _close_pool() -> None:
    """Close the idle isolates while the interpreter still runs their event-loop threads."""
    with _POOL_LOCK:
        idle, _POOL[:] = list(_POOL), []
    for iso in idle:
        iso.close()


def _after_fork_in_child() -> None:
    global _POOL_LOCK
    _FORKED_AWAY.extend(_POOL)
    _POOL.clear()
    _POOL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def forget_batches() -> None:
    """Drop the texts idle isolates keep for the next pattern and let V8 free them (a run
    scored a block at a time, ``scoring.stream``, is done with a block's)."""
    with _POOL_LOCK:
        for iso in _POOL:
            for key in list(iso.stored):
                iso.call("drop", key)
            iso.stored.clear()
            iso.ctx.low_memory_notification()


class _EngineFailed(Exception):
    """V8 could not be started or a call failed outside any one row (a message for a person)."""


@contextmanager
def _isolate() -> Iterator[_Isolate]:
    """An isolate for this caller alone: a pooled one, or a new one. One left in an unknown
    state (an interrupted call, an exhausted heap) is closed instead of pooled."""
    with _POOL_LOCK:
        iso = _POOL.pop() if _POOL else None
    if iso is None:
        try:
            iso = _Isolate()
        except ImportError:
            raise _EngineFailed("the mini-racer package (V8) is not installed: pip install mini-racer") from None
        except Exception as e:  # the native library failed to load or to start an isolate
            raise _EngineFailed(f"V8 could not be started: {e}") from None
    ok = False
    try:
        yield iso
        ok = True
        iso.busy_until = 0.0
    finally:
        if ok and iso.pid == os.getpid() and not iso.ctx.was_hard_memory_limit_reached():
            with _POOL_LOCK:
                if len(_POOL) < POOL_SIZE:
                    _POOL.append(iso)
                    iso = None
        if iso is not None:
            try:
                iso.close()
            except Exception:  # pragma: no cover - closing a broken isolate
                pass


def _js_errors():
    from py_mini_racer import JSOOMException, JSTimeoutException
    from py_mini_racer._exc import JSTerminatedException  # not among mini-racer's public names

    return JSTimeoutException, JSOOMException, JSTerminatedException


def _show(pattern: str, limit: int = 80) -> str:
    s = visible(pattern).replace("\n", "")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def check_pattern(pattern: str, flags: str = "") -> str | None:
    """``None`` when ``pattern`` compiles as JavaScript with ``flags`` (u always on);
    otherwise one message for a person: V8's reason, and the JavaScript form of any
    Python-only syntax."""
    if not isinstance(pattern, str):
        return f"The pattern must be a string, not {type(pattern).__name__}."
    if not isinstance(flags, str):
        return f"Bad flags {flags!r}: flags must be a string of JavaScript flag letters."
    return _check_pattern(pattern, flags)


@functools.lru_cache(maxsize=512)
def _check_pattern(pattern: str, flags: str) -> str | None:
    try:
        fl = parse_flags(flags)
    except RegexSyntaxError as e:
        return f"Bad flags {flags!r}: {e}."
    try:
        err = _v8_reason(pattern, fl.js)
    except _EngineFailed as e:
        return f"/{_show(pattern)}/{fl.js} could not be checked: {e}."
    if err is None:
        return None
    head = f"/{_show(pattern)}/{fl.js} is not a valid JavaScript regular expression ({err})."
    hint = python_pattern_hint(pattern)
    if hint:
        return f"{head} {hint}"
    if _v8_reason(pattern, fl.js.replace("u", "").replace("v", "")) is None:
        mode = "v" if "v" in fl.js else "u"
        return (
            f"{head} It would compile without the {mode} flag, which this grader sets: in Unicode "
            "mode, lone { } ] must be escaped and characters that need no escape (such as \\-) must not be."
        )
    return head


def _v8_reason(pattern: str, js_flags: str) -> str | None:
    """V8's reason for refusing ``new RegExp(pattern, js_flags)``, or None."""
    timeout, oom, _ = _js_errors()
    with _isolate() as iso:
        try:
            got = iso.call("check", _dumps(pattern), js_flags)
        except (timeout, oom):
            return "the pattern is too large for V8 to compile within its limits"
    return json.loads(got) if got else None


# --- Results -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The text was searched: ``span`` is the match's ``[start, end)`` in code points, or None."""

    span: tuple[int, int] | None

    @property
    def matched(self) -> bool:
        return self.span is not None


@dataclass(frozen=True, slots=True)
class TimeoutResult:
    """The match ran past ``timeout`` seconds and was stopped."""

    timeout: float

    @property
    def message(self) -> str:
        return f"the match ran past the time limit of {self.timeout:g} s and was stopped"


@dataclass(frozen=True, slots=True)
class ErrorResult:
    """The text could not be matched: bad pattern or flags, or the engine failed."""

    message: str


Result = MatchResult | TimeoutResult | ErrorResult
_NO_MATCH = MatchResult(None)
_PAIR_OF_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def _span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span in Python code points of a match V8 gave in code points, where a surrogate
    pair counts once. They differ only for a Python text holding a high and a low surrogate
    as two code points side by side, which JavaScript reads as one."""
    if not _PAIR_OF_SURROGATES.search(text):
        return start, end
    i = cps = 0
    while cps < start:
        i += 2 if _PAIR_OF_SURROGATES.match(text, i) else 1
        cps += 1
    s = i
    while cps < end:
        i += 2 if _PAIR_OF_SURROGATES.match(text, i) else 1
        cps += 1
    return s, i


def literal(pattern: str, flags: Flags) -> str:
    """The pattern as a JavaScript literal for messages, ``/…/iu``, shortened when long."""
    return f"/{_show(pattern) or '(?:)'}/{flags.js}"  # JavaScript shows an empty source as (?:)


def _chunk_end(texts: Sequence[str], i: int) -> int:
    """End of the batch starting at ``i``: up to CHUNK_TEXTS texts and CHUNK_CHARS code
    points, at least one text."""
    j = min(len(texts), i + CHUNK_TEXTS)
    if sum(map(len, texts[i:j])) <= CHUNK_CHARS:
        return j
    k, chars = i + 1, len(texts[i])
    while k < j and chars + len(texts[k]) <= CHUNK_CHARS:
        chars += len(texts[k])
        k += 1
    return k


def _not_run(timeout: float, timeouts: int) -> ErrorResult:
    return ErrorResult(
        f"not run: the pattern already ran past the time limit of {timeout:g} s "
        f"on {timeouts} text{'s' if timeouts != 1 else ''} of this batch"
    )


def _run_batch(pattern: str, js: str, mode: str, batch: list[str], only: list[int] | None, timeout: float,
               budget: list[int | None], method: str = "run", extra: tuple = ()) -> list[Result | None]:
    """Match the rows ``only`` of ``batch`` (None: all) in a pooled isolate, one result per
    row run; ``budget[0]`` is the time-outs still allowed (None: no cap). Rows left unrun
    once the budget is spent are None. ``method``: the GB method filling the spans, as ``run``."""
    t_error, oom, _ = _js_errors()
    pj = _dumps(pattern)
    texts = batch if only is None else [batch[k] for k in only]
    with _isolate() as iso:
        try:
            key = iso.key_of(batch)
            n = iso.call("select", key, "" if only is None else _dumps(only))
            timed_out: set[int] = set()
            i = 0
            while i < n:
                try:
                    i = iso.call(method, pj, js, mode, *extra, limit=timeout)
                except t_error:
                    at = iso.call("at")
                    if at != i:
                        i = at  # it started late in the call: run it again with a fresh limit
                        continue
                    timed_out.add(at)  # this row had the whole call to itself
                    i = iso.call("skip", at)
                    if budget[0] is not None:
                        budget[0] -= 1
                        if budget[0] <= 0:
                            break
            spans, errors = json.loads(iso.call("results"))
            iso.call("release")
        except oom:  # the isolate is closed, not pooled
            return [ErrorResult(
                f"matching this batch of {len(texts)} texts exhausted V8's memory limit of {HEAP_LIMIT >> 20} MiB"
            )] * len(texts)
    starts, ends = spans[0:2 * i:2], spans[1:2 * i:2]
    out: list[Result | None] = [
        _NO_MATCH if s < 0 else MatchResult((s, e) if text.isascii() else _span(text, s, e))
        for text, s, e in zip(texts, starts, ends)
    ]
    out += [None] * (len(texts) - i)  # not run: the time-out budget was spent
    for k, message in errors.items():
        out[int(k)] = ErrorResult(f"the engine failed: {message}")
    for k in timed_out:
        out[k] = TimeoutResult(timeout)
    return out


def match_many(
    pattern: str,
    flags: str,
    mode: str,
    texts: Iterable[str],
    timeout: float = 1.0,
    *,
    max_timeouts: int | None = None,
    only: Sequence[int] | None = None,
) -> list[Result]:
    """Match ``pattern`` (JavaScript, u always on) against each text; one result per text.

    ``mode``: ``anywhere`` (a search), ``start`` (a match beginning at index 0) or
    ``whole`` (a match from index 0 to the end, alternatives backtracking). Each text has
    ``timeout`` seconds. A bad pattern or bad flags give an ``ErrorResult`` for every text
    (``check_pattern`` has the message). Never raises on any str; ``ValueError`` on a bad
    ``mode`` or ``timeout`` (programming errors).

    ``max_timeouts``: after that many time-outs in this call, the remaining texts are not
    run and get an ``ErrorResult`` saying so (a whole column of a catastrophic pattern
    would otherwise cost ``timeout`` per row). ``None``: run every text.

    ``only``: match just these indices of ``texts``, one result each, in that order. Each
    isolate keeps the last texts it was given (``STORE_CHARS``), so another pattern, or
    another pass over some rows, of the same list of texts is not sent to V8 again.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid modes: {', '.join(MODES)}")
    return _match_many(pattern, flags, mode, texts, timeout, max_timeouts, only)


def _match_many(pattern: str, flags: str, mode: str, texts: Iterable[str], timeout: float, max_timeouts: int | None,
                only: Sequence[int] | None, method: str = "run", extra: tuple = ()) -> list[Result]:
    """``match_many`` with the GB method that fills the spans (``_run_batch``)."""
    texts = list(texts)
    for t in texts:
        if not isinstance(t, str):
            raise TypeError(f"texts must be str, not {type(t).__name__}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds > 0, not {timeout!r}")
    msg = check_pattern(pattern, flags)
    if msg is not None:
        return [ErrorResult(msg)] * len(texts)
    if not texts:
        return []
    js = parse_flags(flags).js
    timeout = float(min(timeout, 1e6))
    budget: list[int | None] = [max_timeouts]
    wanted = None if only is None else sorted(set(only))
    if wanted and not (0 <= wanted[0] and wanted[-1] < len(texts)):
        raise ValueError(f"only holds an index outside the {len(texts)} texts")
    results: list[Result | None] = []
    i = 0
    while i < len(texts) and budget[0] != 0:
        j = _chunk_end(texts, i)
        rows = None
        if wanted is not None:
            lo, hi = bisect.bisect_left(wanted, i), bisect.bisect_left(wanted, j)
            rows = [k - i for k in wanted[lo:hi]]
        if rows is None or rows:
            try:
                results += _run_batch(pattern, js, mode, texts[i:j], rows, timeout, budget, method, extra)
            except _EngineFailed as e:
                results += [ErrorResult(str(e))] * (j - i if rows is None else len(rows))
        i = j
    size = len(texts) if wanted is None else len(wanted)
    if len(results) < size or None in results:
        spent = _not_run(timeout, max_timeouts or 0)
        results = [r if r is not None else spent for r in results] + [spent] * (size - len(results))
    if wanted is not None and list(only) != wanted:
        at = {k: r for k, r in zip(wanted, results)}
        results = [at[k] for k in only]
    return results


def ecma_search(pattern: str, text: str, timeout: float = 1.0) -> bool:
    """True when ``pattern`` matches somewhere in ``text`` (JavaScript, u flag, unanchored),
    as JSON Schema's ``pattern`` keyword requires.

    Raises ``RegexSyntaxError`` for a pattern JavaScript refuses, ``RegexTimeout`` when the
    match runs past ``timeout`` seconds, ``RegexError`` when the engine fails.
    """
    msg = check_pattern(pattern, "")
    if msg is not None:
        raise RegexSyntaxError(msg)
    r = _search(pattern, text, float(timeout))
    if isinstance(r, MatchResult):
        return r.matched
    if isinstance(r, TimeoutResult):
        raise RegexTimeout(f"/{_show(pattern)}/u: {r.message}")
    raise RegexError(f"/{_show(pattern)}/u: {r.message}")


@functools.lru_cache(maxsize=4096)
def _search(pattern: str, text: str, timeout: float) -> Result:
    (r,) = match_many(pattern, "", "anywhere", [text], timeout)
    return r
