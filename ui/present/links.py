"""Links to the pass-rate page: the one builder of ``pass_rate?k=..&n=..`` (no streamlit here).

The Pass rate page binds its inputs to the query parameters ``k``, ``n``, ``confidence`` and
``label`` (its public link contract, pages/pass_rate.py). Every count that links there — the
Score page's counts table, the Compare page's metric table and sentences, the Normalizer
builder's pass counts — and the page's own "Link to this figure" are built by
``pass_rate_link``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any
from urllib.parse import quote, quote_plus, urlencode

__all__ = ["pass_rate_link", "pass_rate_query"]


def pass_rate_link(k: int, n: int, confidence: float | Decimal | None = None, label: str | None = None,
                   *, space: str = "+") -> str:
    """``pass_rate?k=34&n=40`` (optionally ``&confidence=..&label=..``): a relative link to
    the pass-rate page with its figures filled in.

    ``confidence``: a float is written with all its digits (``repr``: the link opens this
    figure), a ``Decimal`` as the exact fraction typed (``0.999``, never an exponent).
    ``label``: left out when empty. ``space``: how a space in the label is written, ``+``
    (form encoding: the pages' links) or ``%20`` (the pass-rate page's own link). A lone surrogate (a version named ``"\\ud800"`` in JSON)
    is written as its escape ``\\ud800``.
    """
    query: dict[str, Any] = pass_rate_query(k, n, confidence, label)
    if space not in ("+", "%20"):
        raise ValueError(f"space must be '+' or '%20', got {space!r}")
    return "pass_rate?" + urlencode(query, quote_via=quote_plus if space == "+" else quote, errors="backslashreplace")


def pass_rate_query(k: int, n: int, confidence: float | Decimal | None = None, label: str | None = None) -> dict[str, str]:
    """The pass-rate page's query parameters for k of n (``pass_rate_link``'s, as text):
    what ``st.page_link``/``st.switch_page`` take as ``query_params`` to open the page in
    the same session. A lone surrogate in the label is written as its escape."""
    query = {"k": str(int(k)), "n": str(int(n))}
    if confidence is not None:
        query["confidence"] = f"{confidence:f}" if isinstance(confidence, Decimal) else repr(float(confidence))
    if label:
        query["label"] = label.encode("utf-8", "backslashreplace").decode("utf-8")
    return query
