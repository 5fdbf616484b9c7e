"""Shared Streamlit widgets for the dashboard pages (a plain package at the repo root).

``ui.loading`` loads a results file and maps its columns, ``ui.detail`` shows one row in
detail, ``ui.graders_form`` builds the grader configuration from the registry and
``ui.scoring`` runs the cached scoring behind the Score page, and ``ui.display`` makes
the user's text safe to show (lone surrogates escaped, Markdown literal). Scoring logic lives in
``graders``; these modules only arrange widgets around it.
"""


def count(n: int, word: str, words: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,000 rows`` (``words``: the plural when not ``word`` + s)."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"
