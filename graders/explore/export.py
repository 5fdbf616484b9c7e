"""A normalization pipeline as source code another harness can paste: Python and TypeScript.

``python_source(pipeline)`` and ``typescript_source(pipeline)`` return a self-contained
module defining ``normalize(text)`` — what the normalized grader compares, i.e.
``graders.text.normalize.compose(pipeline)(text)`` — and the grader's verdict
(``normalized_match`` / ``normalizedMatch``: any reference equal after normalizing).
``config_snippet(pipeline)`` is the grader's entry in a SPEC §7 configuration file.

The Python is the library's own operations spelled out with the standard library
(``str.strip``, ``str.lower``, ``unicodedata``, ``re``), so it is exact on the same Python.

The TypeScript is exact on every string (tests/test_export.py: every code point, the
contexts that matter, and generated strings, run in Node), NFC / NFKC aside:

* ``trim`` / ``collapse_whitespace``: an explicit class of the 29 characters
  ``str.isspace()`` accepts. JavaScript's ``String.prototype.trim`` and ``\\s`` use another
  set (they add U+FEFF and lack U+001C..U+001F and U+0085). Trim is a loop, not a regex:
  ``/\\s+$/``-style patterns backtrack quadratically on long runs of spaces.
* ``lower``: not ``toLowerCase()``, whose Unicode version is the engine's (Node 20 with
  ICU 78 knows Unicode 17; Python 3.11 knows 14.0, and e.g. U+0295 changed from Ll to Lo
  in between, which moves Final_Sigma). The module carries Python's own per-character
  lowercase table and Python's Final_Sigma rule with Python's cased / case-ignorable sets
  (``character_data``), all derived from ``str.lower`` itself.
* ``remove_articles``: Python's ``\\b`` is Unicode-aware and JavaScript's is ASCII-only even
  with the ``u`` flag, so the word boundary is written as lookarounds over the exact set
  Python's ``\\w`` accepts on ``str`` (``str.isalnum()`` or ``_``; under Unicode 14.0 that
  is exactly letters and numbers, ``[\\p{L}\\p{N}_]`` — marks are not word characters —
  but the engine's ``\\p{...}`` would follow its own Unicode version, so ranges are emitted).
* ``remove_punctuation``: the 32 ASCII characters of ``string.punctuation``.
* ``strip_trailing_punctuation`` / ``strip_quotes``: all the characters involved are in the
  BMP, so UTF-16 indexing gives the same answer as Python's code-point indexing.
* ``nfc`` / ``nfkc``: ``String.prototype.normalize``, the engine's data. It agrees with
  ``unicodedata`` on every character Python's Unicode assigns (normalization is stable for
  assigned characters); characters assigned later are left alone by Python and may be
  normalized by the engine. The emitted header says so when the pipeline uses them.
"""

from __future__ import annotations

import json
import string
import sys
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from graders.config import GraderConfig
from graders.text.normalize import STEP_DESCRIPTIONS, WHITESPACE, resolve_pipeline

__all__ = [
    "CharacterData",
    "UNICODE_VERSION",
    "UNICODE_STEPS",
    "character_data",
    "config_snippet",
    "pipeline_label",
    "python_source",
    "typescript_source",
]

UNICODE_VERSION = unicodedata.unidata_version
# Steps whose result depends on the runtime's Unicode character data.
UNICODE_STEPS = frozenset({"lower", "nfc", "nfkc", "remove_articles"})

# Python's quote pairs for strip_quotes, in the order the library documents them.
_QUOTE_PAIRS = (('"', '"'), ("'", "'"), ("`", "`"), ("\u201c", "\u201d"), ("\u2018", "\u2019"))


def pipeline_label(pipeline: str | Sequence[str]) -> str:
    steps = resolve_pipeline(pipeline)
    return ", ".join(steps) if steps else "no steps (exact match)"


_PY_UNICODE_WORDS = (("lower", "str.lower"), ("nfc", "unicodedata"), ("nfkc", "unicodedata"),
                     ("remove_articles", "re's \\w"))


def _join_words(words: list[str]) -> str:
    words = list(dict.fromkeys(words))
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _python_version() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


# --------------------------------------------------------------------------- Python

_PY_STEP = {
    "trim": "text = text.strip()",
    "lower": "text = text.lower()",
    "nfc": 'text = unicodedata.normalize("NFC", text)',
    "nfkc": 'text = unicodedata.normalize("NFKC", text)',
    "collapse_whitespace": '''text = _WHITESPACE_RUN.sub(" ", text)''',
    "remove_punctuation": "text = text.translate(_ASCII_PUNCTUATION)",
    "remove_articles": '''text = _ARTICLE.sub(" ", text)''',
    "strip_trailing_punctuation": 'if text.endswith((".", "!")):\n        text = text[:-1]',
    "strip_quotes": "if len(text) >= 2 and (text[0], text[-1]) in _QUOTE_PAIRS:\n        text = text[1:-1]",
}
_PY_DEFS = {
    "collapse_whitespace": (
        "# Python's \\s on str is exactly the 29 characters str.isspace() accepts.\n"
        '_WHITESPACE_RUN = re.compile(r"\\s+")'
    ),
    "remove_punctuation": (
        "# string.punctuation: the 32 ASCII punctuation characters.\n"
        f"_ASCII_PUNCTUATION = str.maketrans(\"\", \"\", {string.punctuation!r})"
    ),
    "remove_articles": (
        "# The SQuAD v1.1 script's pattern; \\b is Unicode-aware on str (\\w = str.isalnum() or _).\n"
        '_ARTICLE = re.compile(r"\\b(a|an|the)\\b")'
    ),
    "strip_quotes": "_QUOTE_PAIRS = {" + ", ".join(f"({a!r}, {b!r})" for a, b in _QUOTE_PAIRS) + "}",
}


def python_source(pipeline: str | Sequence[str]) -> str:
    """A standard-library Python module reproducing the pipeline (see the module docstring)."""
    steps = resolve_pipeline(pipeline)
    used = set(steps)
    imports = []
    if used & {"collapse_whitespace", "remove_articles"}:
        imports.append("import re")
    if used & {"nfc", "nfkc"}:
        imports.append("import unicodedata")
    defs = [_PY_DEFS[s] for s in _PY_DEFS if s in used]
    body = []
    for s in steps:
        body.append(f"    # {s}: {STEP_DESCRIPTIONS[s]}")
        body.append(f"    {_PY_STEP[s]}")
    unicode_note = []
    if used & UNICODE_STEPS:
        which = list(dict.fromkeys(w for step, w in _PY_UNICODE_WORDS if step in used))
        unicode_note = [
            "",
            f"{_join_words(which)} {'follows' if len(which) == 1 else 'follow'} the interpreter's Unicode data. "
            "Generated on Python",
            f"{_python_version()} (Unicode {UNICODE_VERSION}), where it matches Gradeboard exactly; on another",
            "Python version it matches on the characters both Unicode versions assign.",
        ]
    parts = [
        f'r"""Gradeboard normalization pipeline: {pipeline_label(steps)}.',
        "",
        "normalize(text) returns what Gradeboard's normalized grader compares:",
        f"    graders.text.normalize.compose({list(steps)!r})(text)",
        "normalized_match(expected, output) is the grader's verdict: expected is one reference",
        "or a list of references, and any of them may match. Standard library only.",
        *unicode_note,
        '"""',
        "",
        "from __future__ import annotations",
        "",
    ]
    if imports:
        parts += [*imports, ""]
    if defs:
        parts += [*defs, ""]
    parts += ["", "def normalize(text: str) -> str:"]
    parts += body
    parts += ["    return text", "", ""]
    parts += [
        "def normalized_match(expected: str | list[str], output: str) -> bool:",
        "    references = [expected] if isinstance(expected, str) else list(expected)",
        "    normalized_output = normalize(output)",
        "    return any(normalize(reference) == normalized_output for reference in references)",
        "",
    ]
    return "\n".join(parts)


# --------------------------------------------------------------------------- TypeScript


@dataclass(frozen=True)
class CharacterData:
    """What the TypeScript needs of this Python's Unicode data, as code-point ranges.

    Derived from the very operations graders.text.normalize runs, so it is exact by construction
    (tests/test_export.py checks each table against the library on every code point):

    * ``word``: Python ``re``'s ``\\w`` on ``str`` (``str.isalnum()`` or ``_``).
    * ``cased`` / ``case_ignorable``: what ``str.lower``'s Final_Sigma rule looks at. Python
      skips case-ignorable characters around ``Σ`` and then asks whether the next character
      is cased, so ``cased`` holds only characters that are cased and not case-ignorable.
    * ``lowercase``: ``str.lower`` of each character (context-free apart from ``Σ``), as
      runs ``(start, count, stride, delta)``, plus the mappings to several characters.
    """

    word: tuple[tuple[int, int], ...]
    cased: tuple[tuple[int, int], ...]
    case_ignorable: tuple[tuple[int, int], ...]
    lowercase_runs: tuple[tuple[int, int, int, int], ...]
    lowercase_special: tuple[tuple[str, str], ...]


def _ranges(codes: Sequence[int]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for c in codes:
        if out and out[-1][1] == c - 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return tuple(out)


def _runs(pairs: Sequence[tuple[int, int]]) -> tuple[tuple[int, int, int, int], ...]:
    """(code, lowered code) pairs, ascending -> greedy (start, count, stride, delta) runs."""
    out, i = [], 0
    while i < len(pairs):
        start, low = pairs[i]
        delta, best = low - start, (1, 1)
        for stride in (1, 2):
            k = 1
            while i + k < len(pairs) and pairs[i + k] == (start + stride * k, start + stride * k + delta):
                k += 1
            if k > best[0]:
                best = (k, stride)
        out.append((start, best[0], best[1], delta))
        i += best[0]
    return tuple(out)


@lru_cache(maxsize=1)
def character_data() -> CharacterData:
    # Unassigned, private-use and surrogate code points have no case, are not word
    # characters and lower to themselves (the tests check every code point).
    codes = [c for c in range(0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs")]
    sigma_after = [c for c in codes if (chr(c) + "\u03a3").lower()[-1] == "\u03c2"]
    sigma_skip = [c for c in codes if ("\u0391" + chr(c) + "\u03a3").lower()[-1] == "\u03c2"]
    cased = set(sigma_after)
    single, special = [], []
    for c in codes:
        low = chr(c).lower()
        if c != 0x3A3 and low != chr(c):
            (single.append((c, ord(low))) if len(low) == 1 else special.append((chr(c), low)))
    return CharacterData(
        word=_ranges([c for c in codes if chr(c).isalnum() or c == 0x5F]),
        cased=_ranges(sigma_after),
        case_ignorable=_ranges([c for c in sigma_skip if c not in cased]),
        lowercase_runs=_runs(single),
        lowercase_special=tuple(special),
    )


def _js_char(ch: str, space: str = " ") -> str:
    """A JavaScript escape for one BMP character, readable for the ASCII controls."""
    named = {"\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", " ": space}
    if ch in named:
        return named[ch]
    cp = ord(ch)
    return f"\\x{cp:02X}" if cp < 0x100 else f"\\u{cp:04X}"


def _js_class(chars: str) -> str:
    """The inside of a regex character class for ``chars`` (BMP only), with ranges."""
    space = "\\x20"  # a bare space is easy to misread inside a class
    out = []
    for lo, hi in _ranges(sorted(set(map(ord, chars)))):
        assert hi < 0x10000
        if hi - lo >= 2:
            out.append(_js_char(chr(lo), space) + "-" + _js_char(chr(hi), space))
        else:
            out.extend(_js_char(chr(c), space) for c in range(lo, hi + 1))
    return "".join(out)


def _js_string(s: str) -> str:
    return json.dumps(s, ensure_ascii=True)


def _hex_ranges(ranges: Sequence[tuple[int, int]]) -> str:
    return ",".join(f"{lo:x}" if lo == hi else f"{lo:x}-{hi:x}" for lo, hi in ranges)


def _js_long_string(name: str, value: str, width: int = 96) -> str:
    """``const NAME: string =`` a long ASCII string, cut at commas into lines of ``width``."""
    lines, line = [], ""
    for field in value.split(","):
        piece = field if not line else "," + field
        if line and len(line) + len(piece) > width:
            lines.append(line + ",")
            line = field
        else:
            line += piece
    lines.append(line)
    body = "\n  + ".join(json.dumps(x) for x in lines)
    return f"const {name}: string =\n  {body};"


_WS_CLASS = _js_class(WHITESPACE)
_WS_STRING = "".join(_js_char(c) for c in WHITESPACE)
# string.punctuation as ranges: !-/ :-@ [-` {-~
_PUNCT_CLASS = "!-\\/:-@\\[-`{-~"
assert len(string.punctuation) == 32 and "".join(
    chr(c) for lo, hi in ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)) for c in range(lo, hi + 1)
) == string.punctuation

_TS_STEP = {
    "trim": "text = trim(text);",
    "lower": "text = lower(text);",
    "nfc": 'text = text.normalize("NFC");',
    "nfkc": 'text = text.normalize("NFKC");',
    "collapse_whitespace": 'text = text.replace(WHITESPACE_RUN, " ");',
    "remove_punctuation": 'text = text.replace(ASCII_PUNCTUATION, "");',
    "remove_articles": 'text = text.replace(ARTICLE, " ");',
    "strip_trailing_punctuation": 'if (text.endsWith(".") || text.endsWith("!")) {\n    text = text.slice(0, -1);\n  }',
    "strip_quotes": "text = stripQuotes(text);",
}

_TS_FUNCTIONS = {
    "trim": """\
// Python's str.strip(): the 29 characters str.isspace() accepts. Not String.prototype.trim,
// whose set adds U+FEFF and lacks U+001C..U+001F and U+0085. A loop, not a regex: /\\s+$/-style
// patterns backtrack quadratically on long runs of spaces.
function trim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && WHITESPACE.includes(text.charAt(start))) start++;
  while (end > start && WHITESPACE.includes(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}""",
    "lower": """\
// Python's str.lower(): each character's full lowercase mapping (İ -> i + U+0307), and Σ by
// the Final_Sigma rule: ς when a cased letter precedes it and none follows, skipping
// case-ignorable characters on both sides; otherwise σ. Python's own tables are used
// (below), not toLowerCase(), whose Unicode version is the engine's.
function lower(text: string): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  const chars = Array.from(text); // code points; a lone surrogate stays one element
  let out = "";
  for (const [i, ch] of chars.entries()) {
    if (ch === "\\u03A3") out += finalSigma(chars, i) ? "\\u03C2" : "\\u03C3";
    else out += LOWERCASE.get(ch) ?? ch;
  }
  return out;
}

function finalSigma(chars: readonly string[], i: number): boolean {
  let j = i - 1;
  while (j >= 0 && CASE_IGNORABLE.test(chars[j] ?? "")) j--;
  if (j < 0 || !CASED.test(chars[j] ?? "")) return false;
  j = i + 1;
  while (j < chars.length && CASE_IGNORABLE.test(chars[j] ?? "")) j++;
  return j === chars.length || !CASED.test(chars[j] ?? "");
}""",
    "strip_quotes": """\
// Every quote is one UTF-16 unit, so the first and last units are whole characters.
function stripQuotes(text: string): string {
  if (text.length < 2) return text;
  for (const [open, close] of QUOTE_PAIRS) {
    if (text.charAt(0) === open && text.charAt(text.length - 1) === close) return text.slice(1, -1);
  }
  return text;
}""",
}

_TS_SHARED = """\
// "lo-hi,cp,..." (hex code points) -> the regex class [\\u{lo}-\\u{hi}\\u{cp}...].
function charClass(ranges: string): string {
  return "[" + ranges.replace(/[0-9a-f]+/g, "\\\\u{$&}").replace(/,/g, "") + "]";
}"""


def _ts_data(used: set[str]) -> list[str]:
    data = character_data()
    out = []
    if "trim" in used:
        out.append(f'const WHITESPACE: string = "{_WS_STRING}";')
    if "collapse_whitespace" in used:
        out.append(f"const WHITESPACE_RUN: RegExp = /[{_WS_CLASS}]+/g;")
    if "remove_punctuation" in used:
        out.append(f"const ASCII_PUNCTUATION: RegExp = /[{_PUNCT_CLASS}]/g; // string.punctuation")
    if "strip_quotes" in used:
        out.append(
            "const QUOTE_PAIRS: ReadonlyArray<readonly [string, string]> = [\n"
            + "".join(f"  [{_js_string(a)}, {_js_string(b)}],\n" for a, b in _QUOTE_PAIRS)
            + "];"
        )
    if "lower" in used:
        runs = ",".join(f"{s:x}:{n:x}:{k:x}:{d:x}" if d >= 0 else f"{s:x}:{n:x}:{k:x}:-{-d:x}"
                        for s, n, k, d in data.lowercase_runs)
        special = "".join(f"  [{_js_string(a)}, {_js_string(b)}],\n" for a, b in data.lowercase_special)
        out += [
            "// str.lower of each character other than Σ, as runs start:count:stride:delta (hex):",
            "// start + k * stride lowercases to itself + delta, for k < count.",
            _js_long_string("LOWERCASE_RUNS", runs),
            "const LOWERCASE_SPECIAL: ReadonlyArray<readonly [string, string]> = [\n" + special + "];",
            "const LOWERCASE: Map<string, string> = new Map(LOWERCASE_SPECIAL);",
            "for (const run of LOWERCASE_RUNS.split(\",\")) {",
            "  const [start = 0, count = 0, stride = 0, delta = 0] = run.split(\":\").map((field) => parseInt(field, 16));",
            "  for (let k = 0; k < count; k++) {",
            "    const code = start + k * stride;",
            "    LOWERCASE.set(String.fromCodePoint(code), String.fromCodePoint(code + delta));",
            "  }",
            "}",
            "const ASCII_ONLY: RegExp = /^[\\x00-\\x7F]*$/;",
            "// Cased and not case-ignorable / case-ignorable, as Final_Sigma sees them.",
            _js_long_string("CASED_RANGES", _hex_ranges(data.cased)),
            _js_long_string("CASE_IGNORABLE_RANGES", _hex_ranges(data.case_ignorable)),
            'const CASED: RegExp = new RegExp("^" + charClass(CASED_RANGES) + "$", "u");',
            'const CASE_IGNORABLE: RegExp = new RegExp("^" + charClass(CASE_IGNORABLE_RANGES) + "$", "u");',
        ]
    if "remove_articles" in used:
        out += [
            "// Python's \\w on str: str.isalnum() or _ (letters Lu Ll Lt Lm Lo, numbers Nd Nl No).",
            _js_long_string("WORD_RANGES", _hex_ranges(data.word)),
            "// Python's \\b(a|an|the)\\b. JavaScript's \\b is ASCII-only even with the u flag, so the",
            "// boundaries are lookarounds over Python's \\w.",
            "const WORD: string = charClass(WORD_RANGES);",
            'const ARTICLE: RegExp = new RegExp("(?<!" + WORD + ")(?:a|an|the)(?!" + WORD + ")", "gu");',
        ]
    return out


def typescript_source(pipeline: str | Sequence[str]) -> str:
    """A dependency-free TypeScript module (ES2020) reproducing the pipeline."""
    steps = resolve_pipeline(pipeline)
    used = set(steps)
    parts = [
        f"// Gradeboard normalization pipeline: {pipeline_label(steps)}.",
        "//",
        "// normalize(text) returns what Gradeboard's normalized grader compares, in Python:",
        f"//     graders.text.normalize.compose({json.dumps(list(steps))})(text)",
        "// normalizedMatch(expected, output) is the grader's verdict: expected is one reference",
        "// or a list of references, and any of them may match.",
        "// No dependencies; needs ES2020 (regex lookbehind, the u flag and ??).",
    ]
    if used & {"lower", "remove_articles"}:
        parts += [
            "//",
            f"// Character data below comes from Python {_python_version()} (Unicode {UNICODE_VERSION}), as Gradeboard's",
            "// does, so the result does not depend on the JavaScript engine's Unicode version.",
        ]
    if used & {"nfc", "nfkc"}:
        parts += [
            "//",
            "// String.prototype.normalize uses the engine's Unicode data: it agrees with Python's",
            f"// unicodedata on every character Unicode {UNICODE_VERSION} assigns (normalization is stable for",
            "// assigned characters); Python leaves characters assigned later unchanged, the engine may not.",
        ]
    parts.append("")
    parts.append("export function normalize(text: string): string {")
    for s in steps:
        parts.append(f"  // {s}: {STEP_DESCRIPTIONS[s]}")
        parts.append(f"  {_TS_STEP[s]}")
    parts += ["  return text;", "}", ""]
    parts += [
        "export function normalizedMatch(expected: string | readonly string[], output: string): boolean {",
        '  const references = typeof expected === "string" ? [expected] : expected;',
        "  const normalizedOutput = normalize(output);",
        "  return references.some((reference) => normalize(reference) === normalizedOutput);",
        "}",
        "",
    ]
    functions = [_TS_FUNCTIONS[s] for s in _TS_FUNCTIONS if s in used]
    if used & {"lower", "remove_articles"}:
        functions.append(_TS_SHARED)
    for f in functions:
        parts += [f, ""]
    data = _ts_data(used)
    if data:
        parts += [f"// Character data (Python {_python_version()}, Unicode {UNICODE_VERSION}). " + "-" * 40, ""]
        parts += ["\n".join(data), ""]
    return "\n".join(parts)


# --------------------------------------------------------------------------- configuration


def config_snippet(pipeline: str | Sequence[str]) -> str:
    """The normalized grader's entry in a configuration file's ``graders`` list, as JSON."""
    steps = resolve_pipeline(pipeline)
    entry = GraderConfig.make("normalized", {"pipeline": list(steps)}).to_dict()
    return json.dumps(entry, indent=2, ensure_ascii=False)
