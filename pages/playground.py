"""Grader playground: one expected / output pair, every grader at once."""

import streamlit as st

from ui import detail, guide, in_app, playground

in_app()

st.title("Grader playground")
st.caption(
    "Every grader on one expected and output pair: verdict, score, explanation and near-miss codes. "
    "Each grader's parameters are in the expanders below the results."
)

playground.examples_bar("pg")
expected, output = playground.pair_inputs("pg")

results = st.container()
st.subheader("Parameters")
params, problems = playground.all_params("pg")

grades = playground.grade_all(expected, output, params, problems)  # one call per grader, via graders.grade
with results:
    detail.row_detail(expected, {"Output": output}, grades)

guide.playground_guide()  # how each grader works, and the sources
