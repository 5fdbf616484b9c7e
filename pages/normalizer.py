"""Normalizer builder: pick and order the normalized grader's steps (SPEC §3), watch them
work on sample pairs and on the loaded file, and export the pipeline as Python,
TypeScript and configuration. The sections and the session keys they use (``gb_norm_*``)
live in ``ui.normalizing``.
"""

import streamlit as st

from ui import in_app, normalizing

in_app()

st.title("Normalizer builder")
st.caption(
    "The normalized grader runs these steps on both sides, in order, then compares code points. "
    "Build a pipeline, see what it does, and take it with you as code or configuration."
)

steps = normalizing.steps_section()  # presets, the steps in order, ↑ ↓

st.header("Sample pairs")
normalizing.pairs_section(steps)

st.header("On the loaded file")
file, mapping = normalizing.file_inputs()
if file is not None and mapping:
    normalizing.file_section(file, mapping, steps)
else:
    st.caption("Load a file above (or on the Score page) to see what the pipeline does to its exact fails.")

st.header("Export")
normalizing.export_section(steps, file, mapping)
