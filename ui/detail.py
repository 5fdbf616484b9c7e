"""One row in detail: expected and output(s) side by side, the first difference marked,
invisible characters made visible, and every grader's result with its explanation."""

from __future__ import annotations

import html
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd
import streamlit as st

from graders.metrics.exact import closest_reference
from graders.metrics.nearmiss import PROBE_CODES
from graders.result import score_text
from graders.text.show import describe_char, first_difference, marked, visible

from . import count, display

MAX_CHARS = 4000  # longer texts are shown around the first difference
VERDICTS = {"pass": "pass", "fail": "fail", "not_judged": "not judged", "error": "error", "scored": "scored"}

# The text in a box that keeps every space and line break (white-space: pre-wrap). The
# outer <pre> keeps Markdown off the text (its HTML block ends only at </pre>, where a <div>
# block would end at a blank line); Streamlit draws a <pre> as its own element without the
# style, so the style is on the <div> inside (class gb-text, for the browser test).
_BOX = (
    "<pre style='margin:0'><div class='gb-text' style='white-space:pre-wrap;word-break:break-word;"
    "font-family:monospace;font-size:0.9rem;padding:0.5rem;border:1px solid rgba(128,128,128,0.35);"
    "border-radius:0.4rem'>{}</div></pre>"
)


# An explanation breaks inside a long word (a signature such as
# ``chrf|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|beta:2``) when the table would
# otherwise run past a narrow window's edge and be cut off there.
_WRAP_EXPLANATIONS = "<style>[data-testid='stTable'] td:last-child p { overflow-wrap: anywhere; }</style>"

def _window(s: str, at: int | None) -> tuple[str, int | None, str, str]:
    """(prefix marker, index in window, window, suffix marker) for long texts."""
    if len(s) <= MAX_CHARS:
        return "", at, s, ""
    centre = at if at is not None else 0
    start = max(0, centre - MAX_CHARS // 2)
    end = min(len(s), start + MAX_CHARS)
    return ("…" if start else ""), (None if at is None else at - start), s[start:end], ("…" if end < len(s) else "")


def marked_html(s: str, at: int | None) -> str:
    """``s`` with invisible characters shown and the character at ``at`` highlighted."""
    pre, at, s, post = _window(s, at)
    if at is None:
        body = html.escape(visible(s))
    else:
        ch = s[at] if at < len(s) else ""
        mark = html.escape(marked(ch)) if ch else "∎"
        title = html.escape(describe_char(ch) if ch else "end of text")
        body = (
            html.escape(visible(s[:at]))
            + f"<mark title='{title}' style='background:#ffd54f;color:#000'>{mark}</mark>"
            + html.escape(visible(s[at + 1:]))
        )
    return _BOX.format(html.escape(pre) + (body or "<i>(empty)</i>") + html.escape(post))


def difference_words(expected: str, output: str) -> str:
    at = first_difference(expected, output)
    if at is None:
        return "Identical, code point for code point."
    e = describe_char(expected[at]) if at < len(expected) else "end of text"
    o = describe_char(output[at]) if at < len(output) else "end of text"
    return f"First difference at position {at} (0-based): expected {e}, output {o}."


def near_miss_words(codes: str | Sequence[str] | None) -> str:
    if not codes:
        return ""
    if isinstance(codes, str):
        codes = [c for c in codes.split(";") if c]
    return "; ".join(f"{c} ({PROBE_CODES.get(c, c)})" for c in codes)


def grades_frame(grades: Iterable[tuple[str, str, Any, str, Any]]) -> pd.DataFrame:
    rows = []
    for label, status, score, explanation, near in grades:
        shown = "" if score is None or score == "" else score_text(float(score))
        rows.append({
            "Grader": label,
            "Verdict": VERDICTS.get(status, status),
            "Score": shown,
            "Near miss": near_miss_words(near),
            "Explanation": explanation,
        })
    # objects: pandas' string dtype cannot hold a lone surrogate, which display.frame escapes
    return pd.DataFrame(rows, columns=["Grader", "Verdict", "Score", "Near miss", "Explanation"], dtype=object)


def row_detail(
    expected: str | Sequence[str],
    outputs: dict[str, str],
    grades: list[tuple[str, str, Any, str, Any]],
    extracted: Mapping[str, tuple[str, str | None] | None] | None = None,
) -> None:
    """Expected and each output side by side, then every grader's result.

    ``expected``: the reference, or every reference; of several, the one the first output
    is closest to (equal to, else sharing the longest prefix, as exact match explains a
    fail) is shown and compared, and the others are listed. ``grades``: (label, status,
    score, explanation, near_miss) where near_miss is None, a ``;``-joined string or a
    sequence of probe codes. ``extracted``: per output, (the extractor, what it took, or
    None when it found no answer), shown under the output (SPEC §9).
    """
    refs = [expected] if isinstance(expected, str) else list(expected) or [""]
    k = closest_reference(tuple(refs), next(iter(outputs.values()), "")) if len(refs) > 1 else 0
    expected = refs[k]
    cols = st.columns(1 + len(outputs))
    ats = {label: first_difference(expected, out) for label, out in outputs.items()}
    first = next((a for a in ats.values() if a is not None), None)
    with cols[0]:
        st.markdown(f"**Expected** (reference {k + 1} of {len(refs)})" if len(refs) > 1 else "**Expected**")
        st.markdown(marked_html(expected, first), unsafe_allow_html=True)
        others = " · ".join(display.code(r) for i, r in enumerate(refs) if i != k)
        st.caption(count(len(expected), "character") + (f". Other references: {others}" if len(refs) > 1 else ""))
    for col, (label, out) in zip(cols[1:], outputs.items()):
        with col:
            st.markdown(f"**{display.md(label)}**")
            st.markdown(marked_html(out, ats[label]), unsafe_allow_html=True)
            st.caption(count(len(out), "character") + ". " + difference_words(expected, out))
            got = (extracted or {}).get(label)
            if got is not None:
                form, answer = got
                st.markdown(f"**Extracted by {display.code(form)}:** "
                            + ("no answer found" if answer is None else display.code(str(answer))))
    if grades:
        st.html(_WRAP_EXPLANATIONS)  # a style alone takes no room on the page
        # a static table: explanations wrap; its cells are Markdown, so each is shown inert
        st.table(display.inert_frame(grades_frame(grades).set_index("Grader")))
