"""Gradeboard dashboard: `streamlit run app.py`. Navigation only; each page is a script."""

import streamlit as st

st.set_page_config(page_title="Gradeboard", layout="wide")

st.navigation([
    st.Page("pages/score.py", title="Score a file", default=True),  # at the root: a default page has no path of its own
    st.Page("pages/playground.py", title="Grader playground", url_path="playground"),
    st.Page("pages/compare.py", title="Compare A and B", url_path="compare"),
    st.Page("pages/pass_rate.py", title="Pass rate", url_path="pass_rate"),
    st.Page("pages/normalizer.py", title="Normalizer builder", url_path="normalizer"),
]).run()
