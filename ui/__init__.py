"""Shared Streamlit widgets for the dashboard pages (a plain package at the repo root).

``ui.loading`` loads a results file and maps its columns, ``ui.detail`` shows one row in
detail, ``ui.graders_form`` builds the grader configuration from the registry and
``ui.scoring`` runs the cached scoring behind the Score page. Scoring logic lives in
``graders``; these modules only arrange widgets around it.
"""
