"""The Score page's text search: each case's searchable text, and the cases that hold a text."""

from __future__ import annotations

import pandas as pd

from ui import display

SEARCHED = ("item", "input", "expected", "output")


def haystack(rows: pd.DataFrame) -> pd.Series:
    """Each case's searchable text, casefolded: id, input, expected and output as the page
    shows them: an any-of expected's references as well as its JSON cell (which may spell
    "Zürich" as "Z\\u00fcrich"), and a lone surrogate as its escape ("\\ud800", which a
    browser can send where it cannot send the surrogate)."""
    # object, not str: pandas' string dtype cannot hold a lone surrogate ("\ud800" in JSON)
    parts = [rows[c].fillna("").astype(object) for c in SEARCHED if c in rows.columns]
    if "refs" in rows.columns:
        parts.append(pd.Series(["\x00".join(r) if r else "" for r in rows["refs"]], index=rows.index, dtype=object))
    text = parts[0]
    for p in parts[1:]:
        text = text + "\x00" + p
    odd = text.str.contains("[\ud800-\udfff]", regex=True).to_numpy(dtype=bool)
    if odd.any():
        text = text.copy()
        text[odd] = [display.text(t) for t in text[odd]]
    return text.str.casefold()


def text_cases(rows: pd.DataFrame, text: str, hay: pd.Series | None = None) -> pd.DataFrame:
    """The (record, system) of the cases whose id, input, expected or output contains
    ``text`` (case-insensitive). ``hay``: ``haystack(rows)``, when already built."""
    hay = haystack(rows) if hay is None else hay
    hit = hay.str.contains(text.strip().casefold(), regex=False)
    return rows.loc[hit.to_numpy(), ["record", "system"]]
