"""The regex worker: matches ECMAScript patterns with ``regress`` in its own process.

The client (``graders.ecma``) starts it once and kills it when a match runs past the
time limit; ``regress`` holds the GIL inside a match, so a separate process is the only
place where such a match can be stopped. This module imports nothing from ``graders``
(it is started as ``python -P .../_regex_worker.py`` so it starts in tens of ms).

Protocol (stdin -> stdout, both binary):

* request: 8-byte little-endian length, then a pickle of
  ``(pattern, engine_flags, mode, texts, backstop_seconds)``; ``mode`` is ``anywhere``,
  ``start`` or ``whole``; texts are free of lone surrogates (the client replaces them);
* replies: ``R`` once at start-up (ready); per request either ``C`` + u32 length + UTF-8
  message (the pattern does not compile), or ``A`` (accepted) followed by one reply per
  text, in order and written as soon as that text is done: ``N`` (no match),
  ``M`` + two u64 code-point offsets ``[start, end)``, or ``E`` + u32 length + message.

The worker exits when its stdin closes. As a backstop for a worker whose client died in
the middle of a match, a real-time timer is armed while matching whose signal (SIGALRM, default
action) ends the process at the kernel level, GIL or not.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
from time import monotonic

_LEN = struct.Struct("<Q")
_SPAN = struct.Struct("<QQ")
_MSG = struct.Struct("<I")
_CACHE_SIZE = 256


def anchored(pattern: str, mode: str, multiline: bool) -> str:
    """Wrap ``pattern`` so it must match from the text's start (and, for ``whole``, to its end).

    Without the m flag, JavaScript's ``^``/``$`` are exactly the text's start and end, and
    the engine tries only index 0. Under m they also match at line breaks, so lookarounds
    on ``[\\s\\S]`` pin the true start and end instead. The groups are non-capturing, so
    backreference numbers stay.
    """
    if mode == "anywhere":
        return pattern
    start, end = (r"(?<![\s\S])", r"(?![\s\S])") if multiline else ("^", "$")
    if mode == "start":
        return f"{start}(?:{pattern})"
    if mode == "whole":
        return f"{start}(?:{pattern}){end}"
    raise ValueError(f"unknown mode {mode!r}")


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _message(tag: bytes, text: str) -> bytes:
    body = text.encode("utf-8", "replace")
    return tag + _MSG.pack(len(body)) + body


def main() -> None:
    import regress

    out = os.dup(1)
    os.dup2(2, 1)  # anything printed by accident goes to stderr, never into the protocol
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the client decides when this process ends
    inp = sys.stdin.buffer
    cache: dict[tuple[str, str, str], object] = {}
    no_match = b"N"
    try:
        _write(out, b"R")
        while True:
            head = inp.read(_LEN.size)
            if len(head) < _LEN.size:
                return
            (size,) = _LEN.unpack(head)
            body = inp.read(size)
            if len(body) < size:
                return
            pattern, flags, mode, texts, backstop = pickle.loads(body)
            key = (pattern, flags, mode)
            rx = cache.get(key)
            if rx is None:
                try:
                    rx = regress.Regex(anchored(pattern, mode, "m" in flags), flags)
                except BaseException as e:  # RegressError, or a Rust panic surfaced by PyO3
                    if isinstance(e, (KeyboardInterrupt, SystemExit)):
                        raise
                    _write(out, _message(b"C", str(e) or type(e).__name__))
                    continue
                if len(cache) >= _CACHE_SIZE:
                    cache.clear()
                cache[key] = rx
            _write(out, b"A")
            find = rx.find
            # Re-arm at most once a second (two syscalls per text would cost more than a
            # typical match): the timer then fires at least backstop - 1 s into a match.
            armed = monotonic()
            signal.setitimer(signal.ITIMER_REAL, backstop)
            for text in texts:
                now = monotonic()
                if now - armed > 1.0:
                    signal.setitimer(signal.ITIMER_REAL, backstop)
                    armed = now
                try:
                    m = find(text)
                except BaseException as e:
                    if isinstance(e, (KeyboardInterrupt, SystemExit)):
                        raise
                    _write(out, _message(b"E", f"{type(e).__name__}: {e}"))
                    continue
                if m is None:
                    _write(out, no_match)
                    continue
                r = m.range()  # UTF-8 byte offsets
                start, end = r.start, r.stop
                if not text.isascii():
                    raw = text.encode("utf-8")
                    start = len(raw[:start].decode("utf-8"))
                    end = start + len(raw[r.start : r.stop].decode("utf-8"))
                _write(out, b"M" + _SPAN.pack(start, end))
            signal.setitimer(signal.ITIMER_REAL, 0)  # idle: waiting for the next request
    except (BrokenPipeError, ConnectionResetError):
        return  # the client went away


if __name__ == "__main__":
    main()
