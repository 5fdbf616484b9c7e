"""Safe JSON parsing shared by the JSON graders (``json_schema``, ``valid_json``, ``json_fields``).

``loads(text)`` is ``json.loads`` with the edges a hostile model output can reach made
into one exception type, ``JSONParseError``, whose message reads like the parser's own
(``Expecting ',' delimiter: line 1 column 14 (char 13)``). Settings:

* nesting: at most ``MAX_DEPTH`` (500) levels of arrays/objects; deeper fails with
  ``nesting deeper than 500 levels: line … column … (char …)`` at the bracket that opens
  level 501. (Python's C parser counts one stack frame per level against a recursion limit
  of 1000 shared with the caller, so 500 parses whatever the caller's depth.)
* numbers: a float that overflows a 64-bit double (``1e999999``) fails, as do the
  literals ``NaN``, ``Infinity``, ``-Infinity`` (Python accepts them; JSON has none).
  Integers stay exact Python ints up to Python's 4,300-digit conversion limit; a longer
  one fails.
* duplicate keys: the last one wins, as in JavaScript's ``JSON.parse``.
* strings: any code point, lone surrogates included (raw or as ``\\ud800`` escapes).
* whitespace: JSON's own four (space, tab, LF, CR); no BOM.

``parse(text)`` returns ``(value, None)`` or ``(None, error)`` instead of raising (the
graders call it), answers prose (a first character no JSON value starts with) without
running the decoder, and inside ``shared_parses()`` remembers each text's result, so that
JSON graders over the same chunk of rows parse each output once.

Also here: the pre-parse steps ``strip_fence`` and ``trim``, JSON types and JSON
equality (``"34" != 34``, ``true != 1``, ``1 == 1.0``), RFC 6901 pointers and short,
always-encodable renderings of values for explanations.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
from contextlib import contextmanager
from decimal import Decimal
from json.encoder import encode_basestring  # the C string step of json.dumps(ensure_ascii=False)
from typing import Any, Callable, Iterable, Iterator

from graders.text.show import snippet

MAX_DEPTH = 500
# Python refuses to convert longer digit strings to int (sys.get_int_max_str_digits()).
_INT_DIGITS = sys.get_int_max_str_digits() or None


class JSONParseError(ValueError):
    """The text is not JSON this module accepts. ``str(e)`` is ``msg`` with line and column."""

    def __init__(self, msg: str, doc: str, pos: int | None):
        self.msg = msg
        self.pos = pos
        if pos is None:
            self.lineno = self.colno = None
            text = msg
        else:
            self.lineno = doc.count("\n", 0, pos) + 1
            self.colno = pos - doc.rfind("\n", 0, pos)
            text = f"{msg}: line {self.lineno} column {self.colno} (char {pos})"
        super().__init__(text)
        self.near = snippet(doc, pos) if pos is not None and doc else None

    def as_dict(self) -> dict[str, Any]:
        return {"message": str(self), "line": self.lineno, "column": self.colno, "char": self.pos}


class _NumberError(ValueError):
    def __init__(self, msg: str, token: Callable[[re.Match[str]], bool]):
        super().__init__(msg)
        self.token = token


class JsonFloat(float):
    """A parsed JSON number with a fraction or an exponent that its float's repr does not
    spell (``2.50``, ``1e2``, ``9007199254740993.0``): the float, which Python's ``json``
    and jsonschema read, and ``text``, the number as written, which ``json_equal`` compares
    exactly (a 64-bit float cannot tell 9007199254740993.0 from 9007199254740992.0, while
    the integer 9007199254740993 is read exactly) and ``compact`` shows. A number its
    float's repr spells (``1.5``) stays a float: the repr is the number as written."""

    def __new__(cls, text: str) -> "JsonFloat":
        f = super().__new__(cls, text)
        f.text = text
        return f


def _finite_float(s: str) -> float:
    f = float(s)
    if math.isinf(f):
        shown = s if len(s) <= 40 else s[:37] + "..."
        raise _NumberError(
            f"the number {shown} is outside the range of a 64-bit float (it would be "
            f"{'-' if f < 0 else ''}Infinity)",
            lambda m: m.group("num") is not None and math.isinf(float(m.group("num"))),
        )
    return f if repr(f) == s else JsonFloat(s)


def _refuse_constant(name: str) -> Any:
    raise _NumberError(
        f"{name} is not a JSON value (JSON has no NaN or Infinity)", lambda m: m.group("const") == name
    )


_DECODER = json.JSONDecoder(parse_float=_finite_float, parse_constant=_refuse_constant)

# Tokens in order: a whole string (so nothing inside it is mistaken for a number), a number,
# or a non-finite constant. Used only after a failure, to point at the offending number.
_TOKEN = re.compile(
    r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
    r"|(?P<num>-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][-+]?[0-9]++)?)"
    r"|(?P<const>NaN|-?Infinity)",
    re.DOTALL,
)
_SPECIAL = re.compile(r'[\[\]{}"\\]')


def _locate(text: str, is_culprit: Callable[[re.Match[str]], bool]) -> int | None:
    for m in _TOKEN.finditer(text):
        if m.group("num") is None and m.group("const") is None:
            continue
        try:
            if is_culprit(m):
                return m.start()
        except (ValueError, OverflowError):
            continue
    return None


def nesting_overflow(text: str, limit: int = MAX_DEPTH) -> int | None:
    """Index of the bracket that opens nesting level ``limit + 1`` outside strings, or None.

    Linear in the number of brackets, quotes and backslashes; the text need not be valid.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    in_string = False
    skip = -1
    for m in _SPECIAL.finditer(text):
        i = m.start()
        if i == skip:
            continue
        c = text[i]
        if in_string:
            if c == "\\":
                skip = i + 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "[" or c == "{":
            depth += 1
            if depth > limit:
                return i
        elif c == "]" or c == "}":
            depth = max(depth - 1, 0)
    return None


# What a JSON value can start with (after JSON whitespace), as Python's scanner reads it:
# a string, an object, an array, the literals, a number, or the constants it refuses.
_VALUE_STARTS = frozenset('"{[ntfNI-0123456789')
_JSON_WHITESPACE = " \t\n\r"


def _parse(text: str) -> tuple[Any, JSONParseError | None]:
    """``(value, None)`` or ``(None, error)``: ``loads`` without raising."""
    if text.startswith("\ufeff"):
        return None, JSONParseError("Unexpected byte order mark U+FEFF before the JSON", text, 0)
    deep = nesting_overflow(text)
    if deep is not None:
        return None, JSONParseError(f"nesting deeper than {MAX_DEPTH} levels", text, deep)
    # Most model outputs are prose: a first character no JSON value starts with is the
    # decoder's "Expecting value" at that character, found without raising its error.
    start = len(text) - len(text.lstrip(_JSON_WHITESPACE))
    if start == len(text) or text[start] not in _VALUE_STARTS:
        return None, JSONParseError("Expecting value", text, start)
    try:
        return _DECODER.decode(text), None
    except json.JSONDecodeError as e:
        return None, JSONParseError(e.msg, text, e.pos)
    except _NumberError as e:
        return None, JSONParseError(str(e), text, _locate(text, e.token))
    except RecursionError:
        return None, JSONParseError("nesting too deep for the parser at the caller's stack depth", text, None)
    except ValueError as e:  # an integer past Python's int-from-str digit limit
        if "integer string conversion" not in str(e):
            raise
        msg = f"an integer has more than {_INT_DIGITS} digits, the most this parser reads"
        return None, JSONParseError(
            msg, text, _locate(text, lambda m: m.group("num") is not None and len(m.group("num")) > (_INT_DIGITS or 0))
        )


def loads(text: str) -> Any:
    """Parse ``text`` as one JSON value; raise ``JSONParseError`` for anything else."""
    value, err = _parse(text)
    if err is not None:
        raise err
    return value


_shared = threading.local()


@contextmanager
def shared_parses() -> Iterator[None]:
    """Within the block (in this thread), ``parse`` remembers each text's result, so that
    several JSON graders over the same column parse each output once. The batch layer
    opens it around one chunk: what it holds lives no longer than the chunk's rows."""
    outer = getattr(_shared, "memo", None)
    if outer is None:
        _shared.memo = {}
    try:
        yield
    finally:
        if outer is None:
            _shared.memo = None


def parse(text: str) -> tuple[Any, JSONParseError | None]:
    """``(value, None)``, or ``(None, error)`` where ``loads`` would raise ``error``; inside
    ``shared_parses`` the same text gives the same objects again (treat them as read-only)."""
    memo = getattr(_shared, "memo", None)
    if memo is None:
        return _parse(text)
    hit = memo.get(text)
    if hit is None:
        hit = memo[text] = _parse(text)
    return hit


def explain_parse_error(e: JSONParseError, text: str, what: str = "The output") -> str:
    """``The output is not valid JSON: <parser message>. Near: <snippet>.``"""
    if not text.strip():
        return f"{what} is empty or only whitespace, so it is not JSON ({e})."
    near = f" Near: {e.near}." if e.near else ""
    return f"{what} is not valid JSON: {e}.{near}"


# --- Pre-parse steps -------------------------------------------------------------------

PRE_PARSE_CHOICES = ("strip_fence", "trim")  # the steps apply_steps knows, in probe order
_FENCE = "```"


def strip_fence(text: str) -> str:
    """The body of one surrounding Markdown code fence: ```` ```json ```` or a bare ```` ``` ````.

    Whitespace (the 29 characters ``str.strip`` removes) may surround the fence; the info
    string must be empty or ``json`` (any case) and end its line. Anything else: unchanged.
    """
    if _FENCE not in text:  # most texts: no fence to look for
        return text
    s = text.strip()
    if len(s) < 2 * len(_FENCE) or not (s.startswith(_FENCE) and s.endswith(_FENCE)):
        return text
    newline = s.find("\n", len(_FENCE))
    if newline < 0:
        return text
    info = s[len(_FENCE):newline].strip()
    if info.lower() not in ("", "json"):
        return text
    body = s[newline + 1:-len(_FENCE)]
    return body[:-1] if body.endswith("\n") else body


def trim(text: str) -> str:
    """Remove leading and trailing whitespace (the 29 characters ``str.strip`` removes)."""
    return text.strip()


PRE_PARSE_STEPS: dict[str, Callable[[str], str]] = {"strip_fence": strip_fence, "trim": trim}


def apply_steps(text: str, steps: Iterable[str]) -> str:
    for step in steps:
        text = PRE_PARSE_STEPS[step](text)
    return text


def parse_fenced(text: str) -> tuple[Any, JSONParseError | None, str]:
    """``parse`` tolerating one surrounding code fence: (value, error, the text parsed)."""
    body = strip_fence(text)
    value, err = parse(body)
    return value, err, body


# --- JSON values -----------------------------------------------------------------------


def json_type(value: Any) -> str:
    """The JSON type name of a parsed value: object, array, string, number, boolean, null."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: same JSON type and value at every level; ``1 == 1.0``, ``1 != true``,
    ``"34" != 34``; numbers compare as the decimals they are written as (``JsonFloat``),
    so ``1e2 == 100`` and ``9007199254740993 != 9007199254740992.0``; object key order
    does not matter. Iterative, so depth is no concern."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        tx = json_type(x)
        if tx != json_type(y):
            return False
        if tx == "array":
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif tx == "object":
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif tx == "number" and (type(x) is JsonFloat or type(y) is JsonFloat):
            if _exact(x) != _exact(y):
                return False
        elif x != y:
            return False
    return True


def _exact(number: int | float) -> Decimal:
    """A number's value as written: a ``JsonFloat``'s text, a float as ``json.dumps``
    writes it (its repr), an int itself."""
    if type(number) is JsonFloat:
        return Decimal(number.text)
    return Decimal(repr(number)) if isinstance(number, float) else Decimal(number)


def describe_value(value: Any) -> str:
    """``an object with 3 members``, ``an array of 2 items``, ``a string``, ``null``, …"""
    t = json_type(value)
    if t == "object":
        n = len(value)
        return f"an object with {n} member{'s' * (n != 1)}"
    if t == "array":
        n = len(value)
        return f"an array of {n} item{'s' * (n != 1)}"
    if t == "boolean":
        return "true" if value else "false"
    return {"null": "null", "string": "a string", "number": "a number"}.get(t, t)


_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(s: str) -> str:
    """``s`` with each lone surrogate written as a ``\\udXXX`` escape, so it encodes as UTF-8."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)


def shorten(s: str, limit: int) -> str:
    """``s`` cut to ``limit`` characters, ending in an ellipsis when cut."""
    return s if len(s) <= limit else s[: max(limit - 1, 0)] + "…"


def shorten_middle(s: str, limit: int) -> str:
    """``s`` cut to ``limit`` characters in the middle, so the end of a message survives:
    ``'xxxx…xxxx' is too long``."""
    if len(s) <= limit:
        return s
    tail = limit // 3
    return s[: limit - tail - 1] + "…" + s[len(s) - tail:]


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


_SCALARS = {None: "null", True: "true", False: "false"}


def compact(value: Any, limit: int = 80) -> str:
    """Short JSON text of a parsed value (``"34"``, ``[1, 2]``), cut at ``limit`` characters."""
    if type(value) is str:  # the encoder's own string step, without setting up an encoder
        return shorten(encodable(encode_basestring(value[:limit] if len(value) > limit else value)), limit)
    if value is None or type(value) is bool:
        return shorten(_SCALARS[value], limit)
    if type(value) is JsonFloat:  # as written: the float's own digits may differ
        return shorten(value.text, limit)
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]
    out: list[str] = []
    size = 0
    try:
        for chunk in _ENCODER.iterencode(value):
            out.append(chunk)
            size += len(chunk)
            if size > limit:
                break
    except (RecursionError, ValueError, TypeError):
        out.append("…")
    return shorten(encodable("".join(out)), limit)


def pointer(path: Iterable[Any]) -> str:
    """RFC 6901 JSON Pointer of a path (``~`` -> ``~0``, ``/`` -> ``~1``): the root is ``""``
    and ``/`` is the root's member named ``""``. ``shown_pointer`` words it for a sentence."""
    parts = ["/" + str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return encodable("".join(parts))


def shown_pointer(text: str) -> str:
    """A JSON Pointer in a sentence ("at /a/0", "at the root"): the root's ``""`` as words."""
    return text or "the root"


def path_sort_key(path: Iterable[Any]) -> tuple[tuple[int, Any], ...]:
    """Sort key for instance paths: array indices numerically, before member names."""
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in path)
