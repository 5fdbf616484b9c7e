"""Compare A and B: a paired comparison that tells change from noise (SPEC §8).

Load a file (wide: output and output_b; long: two versions), map its columns, pick graders,
then read the metric table, the charts, the grader-sensitivity ladder and the rows where A
and B disagree. The cached comparison, its sections and the session keys they use live in
``ui.comparing``.
"""

import streamlit as st

from ui import comparing, graders_form, guide, in_app, loading, scoring, slicing

in_app()

st.title("Compare A and B")
st.caption(
    "Two outputs of the same cases — a wide file's output and output_b columns, or two versions of a long "
    "file — scored with the same graders and paired on (id, repeat). Every difference is A − B, with a "
    "bootstrap 95% interval and, for pass-or-fail graders, an exact McNemar test, Holm-adjusted across the "
    "metrics on screen, so that a change can be told from noise."
)
st.caption("To try it, load **A/B wide** (output and output_b columns) or **A/B long** (two versions, three "
           "repeats each) from the samples below.")
guide.compare_guide()  # background, tips and questions (collapsed)
file = loading.load_file_widget(comparing.PREFIX, default_sample="returns_ab_wide.csv")
if file is None:
    st.stop()
loading.carry_mapping(file, comparing.PREFIX)  # the mapping another page made for this file
graders_form.config_upload(file, comparing.PREFIX)  # after the seeded mapping: a restored configuration's wins
mapping = comparing.columns_section(file)

scoring.warm_workers()
st.header("Graders")
config = comparing.graders_section(mapping, file)
if not config.graders:
    st.info("Pick at least one grader that can run.")
    st.stop()

prepared = scoring.prepared_for(file, mapping, config.needs_expected)
comparing.left_out_expander(prepared)
if isinstance(prepared, str):
    st.stop()

st.header("A and B")
sides = comparing.sides_section(mapping, prepared)
run = comparing.comparison_for(file, prepared, config, mapping, sides)  # cached; None: its error is shown
if run is None:
    st.stop()

st.header("Metrics")
comparing.metrics_section(run.comparison)

st.header("Charts")
comparing.charts_section(run)

st.header("Slices")
slicing.compare_slices_section(run)  # A − B per value of a column, from the cached comparison

st.header("Does the verdict depend on the grader?")
comparing.sensitivity_section(run)

st.header("Where A and B disagree")
comparing.review_section(run.comparison)

st.header("Downloads")
comparing.downloads_section(run)
