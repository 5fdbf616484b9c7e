"""Pass rate: k passes out of n cases -> the Wilson score interval at a chosen confidence.

Every count on the Score, Compare and Normalizer pages links here as a relative URL,
``pass_rate?k=34&n=40`` (optionally ``&confidence=0.95&label=exact%20·%20model-a``), built by
``ui.present.links.pass_rate_link``.

Session state: the four inputs are bound to those query parameters (``bind="query-params"``),
and Streamlit uses a bound widget's key as the parameter's name, so their keys are the
link's own names — ``k``, ``n``, ``confidence``, ``label`` — rather than ``gb_``-prefixed:
they are this page's public link contract. Editing an input rewrites the address, so the
page's URL can always be shared. Parsing and drawing live in ``ui.pass_rate``.
"""

import streamlit as st

from ui import display, in_app, pass_rate
from ui.present.rates import reading

in_app()

st.title("Pass rate")
st.caption(
    "How sure can you be of a pass rate measured on n cases? The Wilson score interval gives "
    "the range of true rates consistent with what was seen."
)

typed = pass_rate.inputs()  # k, n, confidence, label: bound to the link
if not typed.k.strip() and not typed.n.strip():
    st.info("Enter the number of passes (k) and of cases (n). Counts on the Score and Compare pages link here.")
    st.stop()
figure = pass_rate.figure(typed)
if isinstance(figure, str):
    st.error(display.inert(figure))
    st.stop()
if typed.label:
    st.subheader(display.md(typed.label))

if figure.n == 0:
    pass_rate.no_cases(figure)
    st.stop()

pass_rate.figures_section(figure)
st.markdown(reading(figure.k, figure.n, figure.low, figure.high, figure.level))  # a short plain-English reading
pass_rate.formula_section(figure)
pass_rate.other_levels_section(figure)
st.caption(f"Link to this figure: `{pass_rate.figure_link(figure, typed.label)}`")
