"""Shared Streamlit widgets for the dashboard pages (a plain package at the repo root).

``ui.loading`` loads a results file and maps its columns, ``ui.detail`` shows one row in
detail, ``ui.graders_form`` builds the grader configuration from the registry,
``ui.scoring`` runs the scoring behind the Score page (cached per grader and its
parameters), ``ui.results`` the Score page's results grid, ``ui.slicing`` its slices (and
Compare's), ``ui.comparing``,
``ui.normalizing`` and ``ui.pass_rate`` hold the sections of the Compare, Normalizer and Pass
rate pages, and ``ui.display`` makes the user's text safe to show (lone surrogates escaped,
Markdown literal). ``ui.present`` holds what is pure pandas and Altair (no streamlit): tables,
charts, and the one link builder to the pass-rate page (``ui.present.links``). Scoring logic
lives in ``graders``; these modules only arrange widgets around it.
"""

from pathlib import Path
from typing import Hashable


def count(n: int, word: str, words: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,000 rows`` (``words``: the plural when not ``word`` + s)."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def keep_selection_if_listed(table_key: str, listed: Hashable) -> None:
    """Forget the row selected in the table ``table_key`` unless it lists what it listed on
    the last run (``listed``: the filter, file or comparison behind it): a selection is a
    position, and in another list it would open a row the user never picked. Call it
    before the table is drawn; ``<table_key>_listed`` keeps what was listed."""
    import streamlit as st

    marker = f"{table_key}_listed"
    if st.session_state.get(marker) != listed:
        st.session_state.pop(table_key, None)
        st.session_state[marker] = listed


def page_link(path: str, label: str, url: str) -> None:
    """A link to another page of the app (``path`` as app.py names it) that keeps the
    session, so the loaded file goes along (``st.page_link``); where the page runs outside
    app.py's navigation (AppTest runs one page), a Markdown link to its address ``url``."""
    import streamlit as st
    from streamlit.errors import StreamlitPageNotFoundError

    try:
        st.page_link(path, label=label, icon=":material/arrow_forward:")
    except StreamlitPageNotFoundError:
        st.markdown(f"[{label}]({url})")


def in_app() -> None:
    """Every page's first call: the page runs inside app.py's navigation. Until some
    session has run app.py's ``st.navigation``, Streamlit runs a script from the
    ``pages/`` folder on its own when a link names it (its first multipage form: no title,
    no layout, the folder's file names as the menu), as a shared link that is a new
    server's first request is. The page then runs app.py in its place, which turns that
    form off as ``st.navigation`` does and runs this page, on the same address, inside it."""
    import streamlit as st

    try:  # Streamlit's own flag (1.36 to 1.67 at least); a release without it needs nothing
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return
    if not getattr(PagesManager, "uses_pages_directory", None):
        return
    PagesManager.uses_pages_directory = False
    app = Path(__file__).resolve().parent.parent / "app.py"
    exec(compile(app.read_text(encoding="utf-8"), str(app), "exec"), {"__name__": "__main__", "__file__": str(app)})
    st.stop()
