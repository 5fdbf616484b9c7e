"""Safe JSON parsing shared by the JSON graders (``json_schema``, ``valid_json``, ``json_fields``).

``loads(text)`` is ``json.loads`` with the edges a hostile model output can reach made
into one exception type, ``JSONParseError``, whose message reads like the parser's own
(``Expecting ',' delimiter: line 1 column 14 (char 13)``). Settings:

* nesting: at most ``MAX_DEPTH`` (100,000) levels of arrays/objects; deeper fails with
  ``nesting deeper than 100,000 levels: line … column … (char …)`` at the bracket that opens
  level 100,001 (unless the text fails before it). node's ``JSON.parse`` has no depth
  limit short of memory (it reads 10,000,000 levels); 100,000 levels read in 0.1 to 0.2 s
  and take about 9 MB. A text nested at most ``C_DEPTH`` (500) levels is read by Python's
  C decoder, which recurses one frame per level against a recursion limit of 1000 shared
  with the caller (500 is safe whatever the caller's depth, and the C stack never runs
  out); a deeper text (or one the C decoder stops on for the caller's deep stack) is read
  by ``_read``: a loop with an explicit stack, json's own ``scanstring`` for strings and a
  compiled number pattern, giving the same values and the same messages at the same
  places. No other code here recurses on a value's depth (``json_equal``, ``depth``,
  ``compact``, ``pointer``).
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
from itertools import accumulate
from json.decoder import scanstring  # the C string scanner the decoder itself runs
from json.encoder import encode_basestring  # the C string step of json.dumps(ensure_ascii=False)
from typing import Any, Callable, Iterable, Iterator

from graders.text.show import snippet

C_DEPTH = 500  # the C decoder reads texts nested at most this deep; deeper ones, _read
MAX_DEPTH = 100_000  # the deepest nesting parsed; deeper is refused
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
    """A number or constant the hooks refuse (the message says why; ``_read`` says where)."""


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
            f"{'-' if f < 0 else ''}Infinity)"
        )
    return f if repr(f) == s else JsonFloat(s)


def _refuse_constant(name: str) -> Any:
    raise _NumberError(f"{name} is not a JSON value (JSON has no NaN or Infinity)")


_DECODER = json.JSONDecoder(parse_float=_finite_float, parse_constant=_refuse_constant)
_TOO_MANY_DIGITS = f"an integer has more than {_INT_DIGITS} digits, the most this parser reads"

# --- Nesting deeper than the C decoder's depth: the iterative reader ----------------------

# A string as the decoder reads it (an escape is a backslash and one character), or what is
# left of the text after an opening quote never closed; and the text that is no bracket.
_STRING_SPAN = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _deeper_than(text: str, limit: int) -> bool:
    """Whether the decoder could open more than ``limit`` arrays/objects at once on ``text``.

    The running count of brackets outside strings (C loops: ``re.sub``, ``accumulate``). Up
    to the first place the text is not JSON it is the decoder's own depth, and the decoder
    reads no further, so the answer never falls short of the depth the decoder reaches (a
    text that is not JSON may get True where the decoder stops sooner: ``_read`` then
    reads it, with the same result).
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    outside = _STRING_SPAN.sub("", text) if '"' in text else text
    return max(accumulate(map(_STEP.__getitem__, _NOT_BRACKET.sub("", outside))), default=0) > limit


_WS = re.compile(r"[ \t\n\r]*+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*+)(\.[0-9]++)?([eE][-+]?[0-9]++)?")  # the C scanner's grammar
_WORDS = {"n": ("null", None), "t": ("true", True), "f": ("false", False)}
_CONSTANTS = {"N": "NaN", "I": "Infinity", "-": "-Infinity"}


def _string(s: str, idx: int) -> tuple[str, int]:
    """The string whose opening quote is at ``idx - 1``, and the index after it."""
    try:
        return scanstring(s, idx, True)
    except json.JSONDecodeError as e:
        raise JSONParseError(e.msg, s, e.pos) from None


def _key(s: str, idx: int) -> tuple[str, int]:
    """An object's member name at ``idx``, its ``:`` and the whitespace after: (name, index)."""
    if not s.startswith('"', idx):
        raise JSONParseError("Expecting property name enclosed in double quotes", s, idx)
    key, idx = _string(s, idx + 1)
    idx = _WS.match(s, idx).end()
    if not s.startswith(":", idx):
        raise JSONParseError("Expecting ':' delimiter", s, idx)
    return key, _WS.match(s, idx + 1).end()


def _scalar(s: str, idx: int) -> tuple[Any, int]:
    """The number, literal or refused constant at ``idx`` (as the C scanner reads them)."""
    m = _NUMBER.match(s, idx)
    if m is not None:
        try:
            if m.group(1) is None and m.group(2) is None:
                return int(m.group()), m.end()
            return _finite_float(m.group()), m.end()
        except _NumberError as e:
            raise JSONParseError(str(e), s, idx) from None
        except ValueError:  # an integer past Python's int-from-str digit limit
            raise JSONParseError(_TOO_MANY_DIGITS, s, idx) from None
    c = s[idx:idx + 1]
    word = _WORDS.get(c)
    if word is not None and s.startswith(word[0], idx):
        return word[1], idx + len(word[0])
    constant = _CONSTANTS.get(c)
    if constant is not None and s.startswith(constant, idx):
        try:
            _refuse_constant(constant)
        except _NumberError as e:
            raise JSONParseError(str(e), s, idx) from None
    raise JSONParseError("Expecting value", s, idx)


def _read(s: str, limit: int = MAX_DEPTH, number: Callable[[str], Any] | None = None) -> Any:
    """``_DECODER.decode(s)`` without recursion, at most ``limit`` levels deep: the open
    arrays and objects are a stack, with the member name being read for each open object.
    Raises ``JSONParseError`` with the decoder's message at the decoder's place.
    ``number``: each number's text to its value (``parse_int``/``parse_float`` in one), in
    place of int and float."""
    ws = _WS.match
    stack: list[Any] = []  # open arrays (lists) and objects (dicts), outermost first
    keys: list[str] = []  # the member name being read in each open object
    idx = ws(s).end()
    while True:
        c = s[idx:idx + 1]  # a value starts here
        if c == "[" or c == "{":
            if len(stack) >= limit:
                raise JSONParseError(f"nesting deeper than {limit:,} levels", s, idx)
            idx = ws(s, idx + 1).end()
            if c == "[":
                if not s.startswith("]", idx):
                    stack.append([])
                    continue
                value, idx = [], idx + 1
            elif not s.startswith("}", idx):
                key, idx = _key(s, idx)
                stack.append({})
                keys.append(key)
                continue
            else:
                value, idx = {}, idx + 1
        elif c == '"':
            value, idx = _string(s, idx + 1)
        elif number is not None and (m := _NUMBER.match(s, idx)) is not None:
            value, idx = number(m.group()), m.end()
        else:
            value, idx = _scalar(s, idx)
        while stack:  # a value ends here: into its array or object, then what that closes
            top = stack[-1]
            idx = ws(s, idx).end()
            c = s[idx:idx + 1]
            if type(top) is list:
                top.append(value)
                if c == ",":
                    idx = ws(s, idx + 1).end()
                    break
                if c != "]":
                    raise JSONParseError("Expecting ',' delimiter", s, idx)
            else:
                top[keys[-1]] = value
                if c == ",":
                    keys[-1], idx = _key(s, ws(s, idx + 1).end())
                    break
                if c != "}":
                    raise JSONParseError("Expecting ',' delimiter", s, idx)
                keys.pop()
            value, idx = stack.pop(), idx + 1
        else:
            idx = ws(s, idx).end()
            if idx != len(s):
                raise JSONParseError("Extra data", s, idx)
            return value


# What a JSON value can start with (after JSON whitespace), as Python's scanner reads it:
# a string, an object, an array, the literals, a number, or the constants it refuses.
_VALUE_STARTS = frozenset('"{[ntfNI-0123456789')
_JSON_WHITESPACE = " \t\n\r"


def read_deep(text: str, number: Callable[[str], Any] | None = None) -> Any:
    """JSON ``text`` parsed without recursion, up to ``MAX_DEPTH`` levels (for a value too
    deep for Python's decoder; ``number`` as in ``_read``). Raises ``JSONParseError``."""
    return _read(text, MAX_DEPTH, number)


def _parse(text: str) -> tuple[Any, JSONParseError | None]:
    """``(value, None)`` or ``(None, error)``: ``loads`` without raising."""
    if text.startswith("\ufeff"):
        return None, JSONParseError("Unexpected byte order mark U+FEFF before the JSON", text, 0)
    # Most model outputs are prose: a first character no JSON value starts with is the
    # decoder's "Expecting value" at that character, found without raising its error.
    start = len(text) - len(text.lstrip(_JSON_WHITESPACE))
    if start == len(text) or text[start] not in _VALUE_STARTS:
        return None, JSONParseError("Expecting value", text, start)
    if not _deeper_than(text, C_DEPTH):
        try:
            return _DECODER.decode(text), None
        except json.JSONDecodeError as e:
            return None, JSONParseError(e.msg, text, e.pos)
        except (_NumberError, RecursionError):  # _read says where; or reads past the caller's deep stack
            pass
        except ValueError as e:  # an integer past Python's int-from-str digit limit: _read says where
            if "integer string conversion" not in str(e):
                raise
    try:
        return _read(text), None
    except JSONParseError as e:
        return None, e


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


def pre_parse_hint(text: str, steps: tuple[str, ...]) -> str:
    """A parse error's hint: the pre-parse step, not among ``steps``, that removes what
    stands around the JSON (a code fence, or whitespace JSON does not allow), or ""."""
    if "strip_fence" not in steps and strip_fence(text) is not text:
        return " The JSON is inside a ``` code fence: the pre-parse step strip_fence removes it."
    if "trim" not in steps and trim(text) != text and text[:1] not in " \t\n\r":
        return " It starts or ends with whitespace JSON does not allow: the pre-parse step trim removes it."
    return ""


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


def depth(value: Any) -> int:
    """How many arrays/objects deep a parsed value nests (0 for a scalar, 1 for ``[1]``),
    counted with a stack: any depth the parser reads."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        v, level = stack.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, level)
            stack.extend((x, level + 1) for x in (v.values() if isinstance(v, dict) else v)
                         if isinstance(x, (list, dict)))
    return deepest


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
