"""Answer extraction on the Score and Compare pages (SPEC §9): one choice above the graders,
applied to every grader, with a live preview of what it takes from the file's first rows;
each grader's settings may override it (``own_widget``, keys ``gb_w_<prefix>_<grader>_…``).

Session keys (``gb_w_<prefix>_…``, persisted like the other grader widgets): ``extract``
(``none``, a named form, ``regex`` or ``json_path``), ``extract_pattern``,
``extract_group``, ``extract_flags``, ``extract_which`` and ``extract_path``.
"""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd
import streamlit as st

from graders.text.extract import NAMED_FORMS, RULES, extract_many, parse_extract
from ui import display

CHOICES = ("none", *NAMED_FORMS, "regex", "json_path")
WORDS = {"none": "None: grade the whole reply", "regex": "A regular expression (JavaScript)…",
         "json_path": "A JSON path…", **{f: f"{f}: {RULES[f]}" for f in NAMED_FORMS}}
PREVIEW_ROWS = 5
PERSIST = "session"  # as every gb_w_ widget (ui.graders_form)


def wkey(prefix: str, name: str) -> str:
    """``gb_w_<prefix>_<name>``, the grader widgets' keys (ui.graders_form.wkey)."""
    return f"gb_w_{prefix}_{name}"


def spec_of(prefix: str) -> Any:
    """The ``extract`` value the widgets say (None for none), before it is checked."""
    ss = st.session_state
    form = ss.get(wkey(prefix, "extract"), "none")
    if form == "none":
        return None
    if form == "regex":
        group = ss.get(wkey(prefix, "extract_group"), "1").strip()
        return {"regex": ss.get(wkey(prefix, "extract_pattern"), ""),
                "group": int(group) if group.isdigit() else group,
                "flags": ss.get(wkey(prefix, "extract_flags"), ""), "which": ss.get(wkey(prefix, "extract_which"), "last")}
    if form == "json_path":
        return {"json_path": ss.get(wkey(prefix, "extract_path"), "$")}
    return form


def set_state(prefix: str, spec: Any) -> None:
    """Put a configuration's ``extract`` into the widgets (before they render)."""
    ss = st.session_state
    if spec is None or isinstance(spec, str):
        ss[wkey(prefix, "extract")] = spec or "none"
    elif "regex" in spec:
        ss[wkey(prefix, "extract")] = "regex"
        ss[wkey(prefix, "extract_pattern")] = spec["regex"]
        ss[wkey(prefix, "extract_group")] = str(spec.get("group", 1))
        ss[wkey(prefix, "extract_flags")] = spec.get("flags", "")
        ss[wkey(prefix, "extract_which")] = spec.get("which", "first")
    else:
        ss[wkey(prefix, "extract")] = "json_path"
        ss[wkey(prefix, "extract_path")] = spec.get("json_path", "$")


def _fields(prefix: str, form: str) -> None:
    """The fields of a ``regex`` or ``json_path`` extraction."""
    if form == "regex":
        c1, c2, c3, c4 = st.columns([4, 1, 1, 1])
        c1.text_input("Pattern (JavaScript)", key=wkey(prefix, "extract_pattern"), persist_state=PERSIST,
                      value=r"ANSWER:\s*(\S+)")
        c2.text_input("Group", key=wkey(prefix, "extract_group"), persist_state=PERSIST, value="1",
                      help="0 for the whole match, a number, or a group's name")
        c3.text_input("Flags", key=wkey(prefix, "extract_flags"), persist_state=PERSIST, value="")
        c4.selectbox("Match", ("last", "first"), key=wkey(prefix, "extract_which"), persist_state=PERSIST)
    elif form == "json_path":
        st.text_input("JSON path", key=wkey(prefix, "extract_path"), persist_state=PERSIST, value="$.answer")


INHERIT = "page"  # a grader's own choice: the page's, above the graders
OWN_WORDS = {INHERIT: "As chosen above, for every grader", **WORDS}


def _own(prefix: str, name: str) -> str:
    """The widget keys' prefix of grader ``name``'s own extraction."""
    return f"{prefix}_{name}"


def set_own(prefix: str, name: str, spec: Any) -> None:
    """Put grader ``name``'s own ``extract`` into its widgets (``INHERIT``: the page's)."""
    if spec == INHERIT:
        st.session_state[wkey(_own(prefix, name), "extract")] = INHERIT
    else:
        set_state(_own(prefix, name), spec)


def own_widget(prefix: str, name: str) -> tuple[Any, str | None]:
    """Grader ``name``'s own answer extraction, in its settings: ``INHERIT`` (the page's
    choice, the default), none, a named form, or a regex or JSON path of its own. Returns
    (``INHERIT`` or the grader's ``extract`` value, the problem shown under it or None)."""
    sub = _own(prefix, name)
    st.session_state.setdefault(wkey(sub, "extract"), INHERIT)
    form = st.selectbox("Answer extraction for this grader", (INHERIT, *CHOICES), key=wkey(sub, "extract"),
                        persist_state=PERSIST, format_func=OWN_WORDS.get,
                        help="Overrides the page's answer extraction for this grader alone (SPEC §9: every "
                             "grader takes its own extract).")
    if form == INHERIT:
        return INHERIT, None
    _fields(sub, form)
    spec = spec_of(sub)
    if spec is not None:
        try:
            parse_extract(spec)
        except ValueError as e:
            st.error(display.inert(str(e)))
            return INHERIT, str(e)
    return spec, None


def extract_widget(prefix: str, file: Any, mapping: Mapping[str, str | None]) -> tuple[Any, str | None]:
    """The choice, its fields, a problem under them (a ``st.error``) or the preview.
    Returns (the ``extract`` value for every grader, or None; the problem, or None)."""
    ss = st.session_state
    ss.setdefault(wkey(prefix, "extract"), "none")
    form = st.selectbox("Answer extraction (before every grader)", CHOICES, key=wkey(prefix, "extract"),
                        persist_state=PERSIST, format_func=WORDS.get,
                        help="Real evals grade the answer, not the whole reply: Inspect's answer() and choice(), "
                             "lm-evaluation-harness's GSM8K filter, MATH's \\boxed{…}. Nothing found is a fail "
                             "(near miss no_answer).")
    _fields(prefix, form)
    spec = spec_of(prefix)
    if spec is None:
        return None, None
    try:
        extractor = parse_extract(spec)
    except ValueError as e:
        st.error(display.inert(str(e)))
        return None, str(e)
    column = mapping.get("output")
    if column and column in file.frame.columns:
        outputs = [o for o in file.frame[column].head(PREVIEW_ROWS * 4).tolist() if isinstance(o, str)][:PREVIEW_ROWS]
        got = extract_many(extractor, outputs)
        shown = pd.DataFrame({"Output": [display.text(o) for o in outputs],
                              "Extracted": ["— no answer found —" if g is None else display.text(str(g)) for g in got]})
        st.caption(f"What {display.md(extractor.describe())} takes from the first rows:")
        st.dataframe(shown, hide_index=True, width="stretch")
    return spec, None
