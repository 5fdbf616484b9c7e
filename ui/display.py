"""Text and tables made safe to send to the browser.

Streamlit sends text as UTF-8 (protobuf messages, Arrow tables), and UTF-8 cannot hold a
lone surrogate, which a JSON results file can carry as ``"\\ud800"`` (an emoji cut in
half by a model's token limit, say). Before any cell of the user's data reaches a
Streamlit element it passes through ``text`` or ``frame``: each lone surrogate is shown
as its escape ``\\ud800``, as the scored CSV writes it. Only what is shown changes; the
data the graders score and the downloads hold stay exactly as read.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pandas as pd

from graders.engines.jsonparse import encodable

__all__ = ["decomposed", "frame", "inert", "inert_frame", "md", "numbers_as_text", "text"]

# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping them
# all keeps a cell's ``*``, ``_``, ``[``, ``|``, ``$`` or ``:red[…]`` from turning into
# formatting, a link, a table column, LaTeX or a Streamlit colour directive.
_MD_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")


def _clean(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text(s: Any) -> Any:
    """``s`` with each lone surrogate written as its escape; anything not a string as is."""
    return s if not isinstance(s, str) or _clean(s) else encodable(s)


_BREAKS = re.compile(r"\r\n|\r|\n")
_MARKS = {"\r\n": "⟨CR⟩⟨LF⟩", "\r": "⟨CR⟩", "\n": "⟨LF⟩"}


# Markdown makes a link of a bare address in text it has already unescaped (GFM's autolink
# literals: "http://…", "www.…", "name@host.…"), and Streamlit an icon of ":material/…:", so a
# backslash cannot stop them: a word joiner (U+2060, invisible, no break) goes where each would
# start. Only what is shown changes, as with ``text``.
_LINK_STARTS = re.compile(r"(?=://)|(?<=www)(?=\.)|(?=@)|(?<=:)(?=material/)", re.IGNORECASE)
WORD_JOINER = "\u2060"


def _unlinked(s: str) -> str:
    return _LINK_STARTS.sub(WORD_JOINER, s) if ("/" in s or "@" in s or "." in s) else s


def md(s: Any, *, breaks: str | None = None) -> str:
    """``s`` as literal Markdown text on one line: lone surrogates escaped (``text``), every
    ASCII punctuation character backslash-escaped, no address made a link (``_unlinked``),
    each line break shown as ``⟨LF⟩`` / ``⟨CR⟩`` (an id or a version name) or replaced by
    ``breaks`` (a prompt: ``" "``)."""
    escaped = _MD_SPECIAL.sub(r"\\\1", _unlinked(str(text(s))))
    return _BREAKS.sub(lambda m: _MARKS[m.group()] if breaks is None else breaks, escaped)


# What makes Markdown more than text, escaped one character at a time: links and images
# ([ ]), autolinks ("<" before a scheme and its colon), emphasis, code and strikethrough
# (* ` ~, and _ where it is not inside a word), LaTeX ($), entities (&), headings (#),
# backslashes, the colon that opens a ":shortcode:" (emoji), and a list or a quote at the
# start. Ordinary punctuation (. , : ' " ( ) - / | < >) stays as it is: raw HTML is shown as
# text by every element that is not asked to allow it.
_INERT = re.compile(r"[\\`*\[\]$~&#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|:(?=[\w+-]+:)|<(?=[A-Za-z][A-Za-z0-9+.-]{1,31}:)")
_BLOCK_START = re.compile(r"\s*(?:(?:[-+]|\d{1,9}[.)])(?=\s|$)|>)")


def inert(s: Any, *, breaks: str | None = None) -> str:
    """``s`` shown as written by any element that renders Markdown (``st.error``,
    ``st.table``'s cells, ``st.caption``): a message that quotes a file, a column name, a
    pattern or a model's output. Unlike ``md``, ordinary punctuation is left as it is, so the
    text stays readable as it is sent; line breaks as in ``md``."""
    s = _unlinked(str(text(s)))
    escaped = _INERT.sub(r"\\\g<0>", s)
    start = _BLOCK_START.match(escaped)  # a text that would open a list or a quote
    if start:
        escaped = escaped[:start.end() - 1] + "\\" + escaped[start.end() - 1:]
    return _BREAKS.sub(lambda m: _MARKS[m.group()] if breaks is None else breaks, escaped)


def inert_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``frame(df)`` with each text cell, column name and index label ``inert``: for
    ``st.table``, which renders its cells as Markdown."""
    out = frame(df).copy()
    for i in range(len(out.columns)):
        if pd.api.types.is_object_dtype(out.dtypes.iloc[i]):
            out.isetitem(i, pd.Series([inert(c) if isinstance(c, str) else c for c in out.iloc[:, i].tolist()],
                                      index=out.index, dtype=object))
    out.columns = [inert(c) if isinstance(c, str) else c for c in out.columns]
    out.index = pd.Index([inert(c) if isinstance(c, str) else c for c in out.index], dtype=object, name=out.index.name)
    return out


def code(s: Any) -> str:
    """``s`` as a Markdown code span, whatever backticks it holds (the fence is one longer
    than its longest run); lone surrogates escaped, line breaks shown as in ``md``."""
    body = _BREAKS.sub(lambda m: _MARKS[m.group()], str(text(s)))
    fence = "`" * (max((len(r) for r in re.findall("`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def decomposed(s: str) -> str:
    """A text NFC would change with its combining marks bracketed ("cafe⟨U+0301⟩", which
    otherwise looks like "café"); any other text as it is (a Devanagari or Arabic word in
    NFC keeps its marks on their letters)."""
    if unicodedata.is_normalized("NFC", s):
        return s
    return "".join(f"⟨U+{ord(ch):04X}⟩" if unicodedata.combining(ch) else ch for ch in s)


def numbers_as_text(df: pd.DataFrame, formats: dict[str, str], missing: str = "—") -> pd.DataFrame:
    """``df`` with the columns of ``formats`` written as text by their format (``"{:.3f}"``),
    ``missing`` where there is no number: a browser table shows a missing number as a grey
    "None", whatever a Styler's ``na_rep`` says."""
    out = df.copy()
    for column, form in formats.items():
        out[column] = [missing if v is None or (isinstance(v, float) and v != v) else form.format(v)
                       for v in df[column].tolist()]
    return out


def _column(values: pd.Series) -> pd.Series | None:
    """The escaped column, or None when it has nothing to escape (one join and one encode
    for a column of strings, so a clean table costs almost nothing)."""
    cells = values.tolist()
    try:
        if _clean("".join(cells)):
            return None
    except TypeError:  # not all strings: numbers, None, lists
        strings = [c for c in cells if isinstance(c, str)]
        if _clean("".join(strings)):
            return None
    return pd.Series([text(c) for c in cells], index=values.index, dtype=object, name=values.name)


def frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every lone surrogate in its text cells, column names and index escaped;
    ``df`` itself when there is none (the usual case: nothing is copied)."""
    out = df
    for i in range(len(df.columns)):
        dtype = df.dtypes.iloc[i]
        if not pd.api.types.is_object_dtype(dtype) and not isinstance(dtype, pd.StringDtype):
            continue
        fixed = _column(df.iloc[:, i])
        if fixed is not None:
            if out is df:
                out = df.copy()
            out.isetitem(i, fixed)
    names = [text(c) for c in df.columns]
    if names != list(df.columns):
        out = out.copy() if out is df else out
        out.columns = names
    if df.index.dtype == object:
        fixed = _column(pd.Series(df.index, dtype=object))
        if fixed is not None:
            out = out.copy() if out is df else out
            out.index = pd.Index(fixed.tolist(), dtype=object, name=text(df.index.name))
    return out
