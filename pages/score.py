"""Score a file: load, map columns, pick graders, read the counts, charts and failing rows."""

import streamlit as st

from ui import extracting, graders_form, guide, in_app, loading, page_link, results, scoring, slicing, views

in_app()

st.title("Score a file")
st.caption(
    "Load a results file, pick code graders, and get pass, fail and near-miss counts for each grader. "
    "For each failing row the near-miss probe names the formatting step that would make it pass."
)
page_link("pages/playground.py", "To try one pair first, use the grader playground", "playground")
guide.score_guide()  # how this is calculated, and questions (collapsed)

file = loading.load_file_widget("score", default_sample="returns_desk.csv")
if file is None:
    st.stop()
graders_form.apply_sample_config(file, "score")  # a sample's own configuration, once per load
graders_form.config_upload(file, "score")  # sidebar: restore mapping and graders

st.header("Columns")
with st.expander("Column mapping (the suggested column is preselected for each role)"):
    mapping = loading.mapping_widget(file, "score")
st.caption(loading.mapping_words(mapping))
prepared = scoring.prepared_for(file, mapping, graders_form.needs_expected("score"))
views.left_out_section(prepared)
views.compare_pointer(prepared)

st.header("Graders")
extract, _ = extracting.extract_widget("score", file, mapping)
config, problems = graders_form.graders_form("score", mapping, extract)
if isinstance(prepared, str):  # the form stays: graders without an expected column may fix it
    st.stop()
if not config.graders:
    st.info("Pick at least one grader that can run.")
    st.stop()
if scoring.nothing_to_score(file, mapping, config):
    st.warning("No row can be scored: every row is left out (the report under Columns says why). "
               "Change the column mapping, the graders or the file.")
    st.stop()

view = scoring.scored_view(file, mapping, config)  # cached: only new inputs rescore
if view is None:
    st.stop()

st.header("Counts")
views.counts_section(view)
results.harness_section(view)
views.corpus_section(view)
views.unknown_assertions_section(view)
results.grid_section(view)  # one row per case: texts, each grader's verdict and score; paged, sorted, filtered
views.near_miss_section(view)
views.charts_section(view)
slicing.score_slices_section(view)  # per value of a column, from the scored rows held: no rescoring
filtered = views.filter_section(view)
views.downloads_section(view, filtered)
