"""Text steps shared by the normalized grader, the near-miss probe, token F1 and the
normalizer builder (what a person needs to see in a text is in ``graders.text.show``).

Whitespace everywhere means the 29 characters Python's ``str.strip()`` and
``str.split()`` treat as whitespace (``WHITESPACE``); Python's ``re`` ``\\s`` on ``str``
is exactly that set, so the compiled patterns below agree with ``strip``.
"""

from __future__ import annotations

import re
import string
import unicodedata
from typing import Callable, Iterable, Sequence

# Written out: deriving it from every code point costs half a second at each import
# (tests/test_string_graders.py checks it against str.isspace over all of Unicode).
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

_PUNCT_TABLE = str.maketrans("", "", string.punctuation)
# The SQuAD v1.1 script's article pattern, replaced by one space (Python `re`, Unicode \b).
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_QUOTE_PAIRS = {('"', '"'), ("'", "'"), ("`", "`"), ("\u201c", "\u201d"), ("\u2018", "\u2019")}


def trim(s: str) -> str:
    return s.strip()


def lower(s: str) -> str:
    return s.lower()


def nfc(s: str) -> str:
    # ASCII text is in every normal form; the quick check is faster than normalizing.
    return s if s.isascii() or unicodedata.is_normalized("NFC", s) else unicodedata.normalize("NFC", s)


def nfkc(s: str) -> str:
    return s if s.isascii() or unicodedata.is_normalized("NFKC", s) else unicodedata.normalize("NFKC", s)


def _join_runs(s: str, sep: str) -> str:
    # Same result as re.sub(r"\s+", sep, s), through C-speed str methods. A printable
    # text's only whitespace is the plain space (the other 28 are control or separator
    # characters, which isprintable rejects): without two in a row, each is a run.
    if "  " not in s and s.isprintable():
        return s if sep == " " else s.replace(" ", sep)
    words = s.split()
    if not words:
        return sep if s else ""
    inner = sep.join(words)
    return (sep if s[0].isspace() else "") + inner + (sep if s[-1].isspace() else "")


def collapse_whitespace(s: str) -> str:
    return _join_runs(s, " ")


_PUNCT_BYTES = string.punctuation.encode("ascii")
_PUNCT_RE = re.compile("[" + re.escape(string.punctuation) + "]+")


def remove_punctuation(s: str) -> str:
    # Same result as s.translate(_PUNCT_TABLE); bytes.translate is several times faster.
    if s.isascii():
        return s.encode("ascii").translate(None, _PUNCT_BYTES).decode("ascii")
    return _PUNCT_RE.sub("", s)


def remove_articles(s: str) -> str:
    return _ARTICLES.sub(" ", s)


def strip_trailing_punctuation(s: str) -> str:
    return s[:-1] if s[-1:] in (".", "!") else s


def strip_quotes(s: str) -> str:
    if len(s) >= 2 and (s[0], s[-1]) in _QUOTE_PAIRS:
        return s[1:-1]
    return s


def underscore_join(s: str) -> str:
    return _join_runs(s, "_")


# The normalized grader's pipeline steps, in the order the builder lists them.
STEPS: dict[str, Callable[[str], str]] = {
    "trim": trim,
    "lower": lower,
    "nfc": nfc,
    "nfkc": nfkc,
    "collapse_whitespace": collapse_whitespace,
    "remove_punctuation": remove_punctuation,
    "remove_articles": remove_articles,
    "strip_trailing_punctuation": strip_trailing_punctuation,
    "strip_quotes": strip_quotes,
}

STEP_DESCRIPTIONS: dict[str, str] = {
    "trim": "remove leading and trailing whitespace (the 29 characters str.strip() removes)",
    "lower": "lowercase (str.lower)",
    "nfc": "Unicode NFC normalization",
    "nfkc": "Unicode NFKC normalization (compatibility forms: full-width, ligatures, no-break space)",
    "collapse_whitespace": "replace each run of whitespace with one space",
    "remove_punctuation": "remove ASCII punctuation (string.punctuation)",
    "remove_articles": "replace the words a, an, the with a space",
    "strip_trailing_punctuation": "remove one trailing . or !",
    "strip_quotes": "remove one pair of outer quotes (\" ' ` “” ‘’)",
}

# SQuAD v1.1 normalize_answer: lower, remove_punc, remove_articles, white_space_fix.
SQUAD_PIPELINE: tuple[str, ...] = ("lower", "remove_punctuation", "remove_articles", "collapse_whitespace", "trim")
DEFAULT_PIPELINE: tuple[str, ...] = ("trim", "lower")


def resolve_pipeline(pipeline: str | Sequence[str]) -> tuple[str, ...]:
    """``"squad"`` or a sequence of step names -> a validated tuple of step names."""
    if isinstance(pipeline, str):
        if pipeline == "squad":
            return SQUAD_PIPELINE
        if pipeline in STEPS:
            return (pipeline,)
        raise ValueError(
            f"unknown pipeline {pipeline!r}; use 'squad' or a list of steps from: {', '.join(STEPS)}"
        )
    steps = tuple(pipeline)
    for step in steps:
        if step not in STEPS:
            raise ValueError(f"unknown normalization step {step!r}; valid steps: {', '.join(STEPS)}")
    return steps


_C_STEPS = {"trim": str.strip, "lower": str.lower}


def compose(steps: Iterable[str]) -> Callable[[str], str]:
    """One function applying the named steps in order."""
    steps = tuple(steps)
    if steps == SQUAD_PIPELINE:
        return squad_normalize
    # trim and lower as the C methods they wrap: no Python frame per call.
    funcs = [_C_STEPS.get(s, STEPS[s]) for s in steps]
    if not funcs:
        return str
    if len(funcs) == 1:
        return funcs[0]
    if len(funcs) == 2:
        f, g = funcs
        return lambda s: g(f(s))

    def run(s: str) -> str:
        for f in funcs:
            s = f(s)
        return s

    return run


def compose_column(steps: Iterable[str]) -> Callable[[Iterable[str]], list[str]]:
    """``compose(steps)`` over a column: each step mapped over the texts in turn (the C
    string methods then run without a Python call per text)."""
    steps = tuple(steps)
    funcs = [squad_normalize] if steps == SQUAD_PIPELINE else [_C_STEPS.get(s, STEPS[s]) for s in steps]

    def run(texts: Iterable[str]) -> list[str]:
        for f in funcs:
            texts = map(f, texts)
        return list(texts)

    return run


def squad_normalize(s: str) -> str:
    """The SQuAD v1.1 script's ``normalize_answer``, step for step."""
    return " ".join(_ARTICLES.sub(" ", remove_punctuation(s.lower())).split())


# --- Showing characters ---------------------------------------------------------------

