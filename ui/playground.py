"""The playground's widgets: examples, the pair, every grader's parameters, and the grades.

Session state: ``gb_w_<prefix>_expected``, ``gb_w_<prefix>_output``, ``gb_w_<prefix>_multi``
(one reference per line) and the parameter widgets of ``ui.graders_form`` under the same
prefix (``gb_w_<prefix>_<grader>_<param>``).
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from graders import GRADER_NAMES, grade
from graders.registry import REGISTRY

from .graders_form import grader_params, reset_params, wkey

# The seeds' examples: (label, expected, output, parameters to set).
EXAMPLES: tuple[tuple[str, str, str, dict[str, dict[str, Any]]], ...] = (
    ("Canberra", "Canberra", "Canberra is the capital", {}),
    ("Maria JSON", '{"name": "Maria", "age": 34}', '{"name": "Maria", "age": "34"}', {}),
    ("3.11 vs About 3.1 miles", "3.11", "About 3.1 miles", {"numeric": {"read": "last", "rel_tol": 0.01}}),
    ('"the" / "a"', "the", "a", {}),
    ("NBSP Paris", "Paris", "Paris\u00a0", {}),
    ("$42.00", "42", "The refund is $42.00.", {"numeric": {"read": "last"}}),
)
DEFAULT_PARAMS: dict[str, dict[str, Any]] = {
    "regex": {"pattern": r"^\w+$"},
    "json_schema": {"schema": json.dumps({"type": "object"}, indent=2)},
}


def _load_example(prefix: str, index: int) -> None:
    _, expected, output, params = EXAMPLES[index]
    ss = st.session_state
    ss[wkey(prefix, "expected")] = expected
    ss[wkey(prefix, "output")] = output
    ss[wkey(prefix, "multi")] = False
    for name in REGISTRY:  # every parameter back to the playground's default, then the example's own
        reset_params(prefix, name, {**DEFAULT_PARAMS.get(name, {}), **params.get(name, {})})


def examples_bar(prefix: str) -> None:
    bar = st.container(horizontal=True, vertical_alignment="center")  # wraps: no label cut short
    bar.markdown("**Examples**", width="content")
    for i, ex in enumerate(EXAMPLES):
        bar.button(ex[0], key=f"gb_{prefix}_example_{i}", on_click=_load_example, args=(prefix, i))


def pair_inputs(prefix: str) -> tuple[str | list[str], str]:
    ss = st.session_state
    ss.setdefault(wkey(prefix, "expected"), EXAMPLES[0][1])
    ss.setdefault(wkey(prefix, "output"), EXAMPLES[0][2])
    ss.setdefault(wkey(prefix, "multi"), False)
    left, right = st.columns(2)
    expected = left.text_area("Expected", key=wkey(prefix, "expected"), persist_state="session", height=110)
    multi = left.checkbox("Several references, one per line", key=wkey(prefix, "multi"), persist_state="session")
    output = right.text_area("Output", key=wkey(prefix, "output"), persist_state="session", height=110)
    if multi:
        return [line for line in expected.split("\n") if line] or [""], output
    return expected, output


def all_params(prefix: str) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Every grader's parameter widgets in expanders; (params by grader, problems by grader)."""
    ss = st.session_state
    for name, values in DEFAULT_PARAMS.items():
        for p, value in values.items():
            ss.setdefault(wkey(prefix, name, p), value)
    params: dict[str, dict[str, Any]] = {}
    problems: dict[str, str] = {}
    cols = st.columns(3)
    with_params = [n for n in GRADER_NAMES if REGISTRY[n].params]
    for i, name in enumerate(with_params):
        with cols[i % 3].expander(REGISTRY[name].label):
            values, problem = grader_params(prefix, name)
        params[name] = values
        if problem:
            problems[name] = problem
    return params, problems


def _json_params(name: str, values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    for p in REGISTRY[name].params:
        if p.kind == "schema" and isinstance(out.get(p.name), str):
            out[p.name] = json.loads(out[p.name])
    return out


def grade_all(
    expected: str | list[str], output: str, params: dict[str, dict[str, Any]], problems: dict[str, str]
) -> list[tuple[str, str, Any, str, Any]]:
    """(label, status, score, explanation, near_miss) for every grader, in GRADER_NAMES order."""
    rows = []
    for name in GRADER_NAMES:
        label = REGISTRY[name].label
        if name in problems:
            rows.append((label, "error", None, f"Not run: {problems[name]}", None))
            continue
        try:
            g = grade(name, expected, output, **_json_params(name, params.get(name, {})))
        except ValueError as e:
            rows.append((label, "error", None, f"Not run: {e}", None))
            continue
        rows.append((label, g.status, g.score, g.explanation, g.near_miss))
    return rows
