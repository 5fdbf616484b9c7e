"""The Normalizer builder's sections: the pipeline's steps, the sample pairs, its effect on
the loaded file's exact fails, and the export as Python, TypeScript and configuration.

Session state set here:

- ``gb_norm_steps``     the pipeline, a list of step names in order (the multiselect's key,
                        kept for the session; the preset and ↑ ↓ buttons rewrite it in callbacks)
- ``gb_norm_pairs``     the sample pairs' starting table (DataFrame of expected, output): the
                        editor starts from it, and the edited table is saved back into it on
                        every run, so that the edits survive a visit to another page (which
                        drops the editor's own state); a table put here by anyone else
                        replaces the editor's
- ``gb_norm_pairs_editor``  the data editor's own state (its edits, relative to the table it
                        was drawn with)
- ``gb_norm_pairs_live``  (the table the live editor was drawn with, the table saved into
                        ``gb_norm_pairs`` after it): the editor keeps its table while its state lives
- ``gb_norm_cache``     results kept across reruns, keyed by (``gb_file_hash``, mapping[, steps]):
                        the file's prepared rows (with the left-out report), and each pipeline's
                        effect on them
- ``gb_norm_per_step``  the "what each step does" toggle
Read here, set by ui.loading: ``gb_file``, ``gb_file_hash``, ``gb_file_name``, ``gb_file_header``,
``gb_mapping`` (the column boxes start from another page's mapping of the same file:
``ui.loading.carry_mapping``, state ``gb_carried_for_gb_norm_file``).
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Iterable, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from graders.config import ConfigError, GraderConfig, RunConfig
from graders.explore.export import config_snippet, pipeline_label, python_source, typescript_source
from graders.explore.preview import effect_examples, order_notes, pipeline_effect, preview_pairs, step_effects
from graders.metrics.normalized import pipeline_name
from graders.scoring.rows import MappingError, prepare
from graders.text.normalize import DEFAULT_PIPELINE, SQUAD_PIPELINE, STEP_DESCRIPTIONS, STEPS
from graders.text.show import visible
from ui.present.links import pass_rate_query

from . import count, display, views
from .loading import carry_mapping, load_file_widget, mapping_widget, read_flags

SAMPLE_PAIRS = pd.DataFrame(
    [
        ("Paris", " paris\n"),
        ("store credit", "Store  credit"),
        ("42", "42\u00a0"),
        ("approved", "approved."),
        ("Easy Returns", '"Easy Returns"'),
        ("claims", "ＣＬＡＩＭＳ"),
        ("café", "cafe\u0301"),
        ("Eiffel Tower", "The Eiffel Tower"),
        ("yes", "Yes!"),
        ("state-of-the-art", "state of the art"),
        ("Reno", "Sparks"),
    ],
    columns=["expected", "output"],
)
EDITOR = "gb_norm_pairs_editor"
EXAMPLES = 20
CACHED_EFFECTS = 16
FILE_PREFIX = "gb_norm_file"  # the loader's and the column boxes' prefix on this page
TEXTS = ["expected", "output", "expected_normalized", "output_normalized"]


def cached(kind: str, key: Hashable, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per ``key`` in this session (the file is prepared once; each
    pipeline's effect on it is kept for the last CACHED_EFFECTS pipelines)."""
    store = st.session_state.setdefault("gb_norm_cache", {}).setdefault(kind, {})
    if key not in store:
        if len(store) >= (1 if kind == "rows" else CACHED_EFFECTS):
            store.pop(next(iter(store)))
        store[key] = compute()
    return store[key]


def set_steps(steps: Iterable[str]) -> None:
    st.session_state["gb_norm_steps"] = list(steps)


def move(i: int, offset: int) -> None:
    ss = st.session_state
    steps = list(ss["gb_norm_steps"])
    steps[i], steps[i + offset] = steps[i + offset], steps[i]
    ss["gb_norm_steps"] = steps


def case_columns(examples: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """``effect_examples`` with each row's case in front of its texts: the item, the system
    when the file has several, the repeat when it has repeats (two repeats of one case
    otherwise read as the same row twice)."""
    at = examples["position"].to_numpy()
    out = examples.drop(columns="position")
    cases = {"item": rows["item"]}
    if rows["system"].nunique() > 1:
        cases["system"] = rows["system"]
    if rows["repeat"].astype(bool).any():
        cases["repeat"] = rows["repeat"]
    for i, (name, column) in enumerate(cases.items()):
        out.insert(i, name, pd.Series(column.to_numpy(dtype=object)[at], index=out.index, dtype=object))
    return out


def shown(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Text columns with invisible characters made visible (⟨U+00A0⟩, ⟨TAB⟩, ⟨LF⟩), and the
    combining marks of a text NFC would compose (``display.decomposed``)."""
    out = frame.copy()
    for c in columns:
        out[c] = out[c].map(lambda s: visible(display.decomposed(s)).replace("\n", ""))
    return out


# ----------------------------------------------------------------------------- steps


def steps_section() -> tuple[str, ...]:
    """The presets, the steps in order with ↑ ↓ to reorder them, and the order's warnings."""
    ss = st.session_state
    ss.setdefault("gb_norm_steps", list(DEFAULT_PIPELINE))
    # Buttons as wide as their labels, in rows that wrap: fixed columns cut the labels and the
    # arrows short in a narrow window.
    presets = st.container(horizontal=True)
    presets.button("Default (trim, lower)", on_click=set_steps, args=(DEFAULT_PIPELINE,), key="gb_norm_default")
    presets.button("SQuAD preset", on_click=set_steps, args=(SQUAD_PIPELINE,), key="gb_norm_squad",
                   help="lower, remove_punctuation, remove_articles, collapse_whitespace, trim: the SQuAD v1.1 script's order")
    presets.button("No steps", on_click=set_steps, args=((),), key="gb_norm_clear")
    st.multiselect(
        "Steps, in the order they run",
        options=list(STEPS),
        key="gb_norm_steps",
        help="A step added later runs later; reorder with the arrows below.",
        persist_state="session",  # the pipeline survives a visit to another page
    )
    steps = tuple(ss["gb_norm_steps"])
    for i, step in enumerate(steps):
        arrows, text = st.columns([1, 4], vertical_alignment="center")
        arrows = arrows.container(horizontal=True, gap="small")  # the two side by side, each its glyph's width
        arrows.button("↑", key=f"gb_norm_up_{i}", disabled=i == 0, on_click=move, args=(i, -1), help=f"run {step} earlier")
        arrows.button("↓", key=f"gb_norm_down_{i}", disabled=i == len(steps) - 1, on_click=move, args=(i, 1),
                      help=f"run {step} later")
        text.markdown(f"{i + 1}. `{step}` — {STEP_DESCRIPTIONS[step]}")
    if not steps:
        st.info("No steps: the normalized grader is then the exact grader.")
    for note in order_notes(steps):
        st.warning(note)
    return steps


# ----------------------------------------------------------------------------- sample pairs


def pairs_section(steps: tuple[str, ...]) -> None:
    """The editable sample pairs, each side after the pipeline, and how many are equal."""
    ss = st.session_state
    st.caption("Edit, add or delete pairs; the table below shows each side after the pipeline. "
               "Invisible characters show as ⟨U+00A0⟩, ⟨TAB⟩, ⟨LF⟩, and a combining mark that NFC would compose "
               "as ⟨U+0301⟩.")
    start = ss.get("gb_norm_pairs")
    if not isinstance(start, pd.DataFrame):
        start = SAMPLE_PAIRS
    # The editor's edits are relative to the table it was drawn with: it keeps that table while its
    # state lives. When its state is gone (first visit, or back from another page) it starts from
    # gb_norm_pairs, the last edited table.
    live = ss.get("gb_norm_pairs_live")
    base = live[0] if live is not None and EDITOR in ss and live[1] is start else start.reset_index(drop=True)
    edited = st.data_editor(
        base, num_rows="dynamic", hide_index=True, key=EDITOR,
        column_config={
            "expected": st.column_config.TextColumn("Expected"),
            "output": st.column_config.TextColumn("Output"),
        },
    )
    ss["gb_norm_pairs"] = saved = edited.reset_index(drop=True)
    ss["gb_norm_pairs_live"] = (base, saved)
    pairs = edited.reindex(columns=["expected", "output"]).astype(object)
    pairs = pairs[~(pairs["expected"].isna() & pairs["output"].isna())].fillna("")
    preview = preview_pairs(pairs["expected"].tolist(), pairs["output"].tolist(), steps)
    st.dataframe(
        shown(preview, ["expected", "output", "expected_normalized", "output_normalized"]),
        hide_index=True,
        # the verdicts first: in a narrow window the text columns scroll, and the verdicts stay in view
        column_order=("normalized", "exact", "expected_normalized", "output_normalized", "expected", "output"),
        column_config={
            "expected": "Expected", "output": "Output",
            "expected_normalized": "Expected, normalized", "output_normalized": "Output, normalized",
            "exact": st.column_config.CheckboxColumn("Exact match"),
            "normalized": st.column_config.CheckboxColumn("Equal after the pipeline"),
        },
    )
    if len(preview):
        equal, exact = int(preview["normalized"].sum()), int(preview["exact"].sum())
        st.markdown(f"**{equal:,} of {len(preview):,}** {'sample pair' if len(preview) == 1 else 'sample pairs'} "
                    f"{'is' if equal == 1 else 'are'} equal after the pipeline; "
                    f"{exact:,} {'was' if exact == 1 else 'were'} equal as written.")


# ----------------------------------------------------------------------------- the loaded file


def file_inputs() -> tuple[Any, dict[str, str | None] | None]:
    """(the loaded file, its expected and output columns), in an expander that starts open
    while no file is loaded; either may be None."""
    file = st.session_state.get("gb_file")
    with st.expander("Results file and columns", expanded=file is None):
        file = load_file_widget(FILE_PREFIX)
        mapping = None
        if file is not None:
            carry_mapping(file, FILE_PREFIX, required=("expected", "output"))  # e.g. the Score page's
            mapping = mapping_widget(file, FILE_PREFIX)
    return file, mapping


def file_section(file: Any, mapping: dict[str, str | None], steps: tuple[str, ...]) -> None:
    """What the pipeline does to the file's exact fails: counts, pass-rate links, the split
    by system, examples turned and still failing, and (on request) each step's share."""
    ss = st.session_state
    key = (ss.get("gb_file_hash"), tuple(sorted(mapping.items(), key=lambda kv: kv[0])))
    rows = prepared = None
    try:
        prepared = cached("rows", key, lambda: prepare(file, mapping, needs_expected=True))
        rows = prepared.rows
    except MappingError as e:
        st.error(display.inert(f"These columns cannot be compared: {e}"))
    if rows is None:
        return
    if len(rows) == 0:
        st.info("No row of this file can be compared: every row is left out (the report below says why).")
        views.left_out_section(prepared)
        return
    left_out = prepared.left_out.total
    if left_out:
        with st.expander(f"{count(left_out, 'row')} left out, not in the figures below"):
            views.left_out_section(prepared)
    refs, outputs = rows["refs"].tolist(), rows["output"].tolist()
    with st.spinner("Running the pipeline over the file…"):
        effect = cached("effect", (key, steps), lambda: pipeline_effect(refs, outputs, steps))
    name = ss.get("gb_file_name") or "the file"
    m1, m2, m3 = st.columns(3)
    m1.metric("Exact fails", f"{effect.exact_fails:,}", help=f"of {effect.rows:,} rows in {display.md(name)}")
    m2.metric("Turned into passes", f"{effect.turned:,}",
              help="exact fails that pass the normalized grader with this pipeline")
    m3.metric("Still failing", f"{effect.still_failing:,}")
    passes_after = effect.exact_passes + effect.turned
    systems_word = " (every system's outputs together; the table below splits them)" if rows["system"].nunique() > 1 else ""
    normalized_words = f"Normalized, {pipeline_label(steps)}" if steps else "Normalized with no steps (exact match)"
    st.markdown(
        f"Exact grader: {effect.exact_passes:,} of {effect.rows:,} pass. "
        f"{normalized_words}: {passes_after:,} of {effect.rows:,} pass{systems_word}. "
        "A pipeline never turns a pass into a fail: equal texts stay equal."
    )
    # the pass-rate page in this tab and session, the file kept (issue 33, 6)
    for k, label in ((effect.exact_passes, "Exact match"), (passes_after, "Normalized match: " + pipeline_name(steps))):
        views.rate_link(f"{label}: {k:,} of {effect.rows:,} pass", pass_rate_query(k, effect.rows, label=label))
    # counted on integer codes: pandas' string dtype, where value_counts would put the
    # systems, cannot hold a version's lone surrogate ("\ud800" in JSON)
    systems = rows["system"].to_numpy(dtype=object)
    codes, names = pd.factorize(systems)
    if len(names) > 1:
        fails = np.concatenate([effect.turned_rows, effect.still_rows])
        by = pd.DataFrame({
            "system": pd.Series(names, dtype=object),
            "exact fails": np.bincount(codes[fails], minlength=len(names)),
            "turned into passes": np.bincount(codes[effect.turned_rows], minlength=len(names)),
        })
        st.dataframe(display.frame(by), hide_index=True)
    if effect.turned:
        st.subheader(f"Fails turned into passes ({min(effect.turned, EXAMPLES)} of {effect.turned:,})")
        ex = effect_examples(refs, outputs, effect.turned_rows, steps, limit=EXAMPLES)
        st.dataframe(display.frame(shown(case_columns(ex, rows), TEXTS)), hide_index=True)
    if effect.still_failing:
        with st.expander(f"Still failing after the pipeline ({effect.still_failing:,})"):
            ex = effect_examples(refs, outputs, effect.still_rows, steps, limit=EXAMPLES)
            st.dataframe(display.frame(shown(case_columns(ex, rows), TEXTS)), hide_index=True)
    if steps and effect.exact_fails and st.toggle(
        "What each step does here", key="gb_norm_per_step",
        help="Runs each step alone, and the pipeline without each step, over the exact fails.",
    ):
        with st.spinner("Running each step…"):
            per_step = cached("per_step", (key, steps), lambda: step_effects(refs, outputs, steps))
        st.dataframe(per_step, hide_index=True, column_config={
            "turned_alone": "exact fails it turns into passes on its own",
            "lost_without_it": "of this pipeline's passes, lost without it",
        })


# ----------------------------------------------------------------------------- export


def export_section(steps: tuple[str, ...], file: Any, mapping: dict[str, str | None] | None) -> None:
    """The pipeline as Python, as TypeScript and as configuration (on the loaded file's
    columns when there are some), each to download."""
    st.caption("Both functions reproduce the library exactly: tested on every code point and on generated "
               "strings against graders.text.normalize (the TypeScript in Node.js).")
    py_tab, ts_tab, cfg_tab = st.tabs(["Python", "TypeScript", "Configuration"])
    with py_tab:
        source = python_source(steps)
        st.download_button("Download normalize.py", source, file_name="normalize.py", mime="text/x-python",
                           on_click="ignore", key="gb_norm_dl_py")
        st.code(source, language="python")
    with ts_tab:
        source = typescript_source(steps)
        st.download_button("Download normalize.ts", source, file_name="normalize.ts", mime="text/plain",
                           on_click="ignore", key="gb_norm_dl_ts")
        st.code(source, language="typescript")
    with cfg_tab:
        st.markdown("The normalized grader's entry in a configuration file's `graders` list:")
        st.code(config_snippet(steps), language="json")
        st.markdown("In Python:")
        st.code(f'from graders import grade\n\ngrade("normalized", expected="…", output="…", pipeline={list(steps)!r})',
                language="python")
        columns = mapping if (file is not None and mapping) else {}
        try:
            config = RunConfig(columns, (GraderConfig.make("exact"), GraderConfig.make("normalized", {"pipeline": list(steps)})))
        except ConfigError as e:
            st.error(display.inert(f"Cannot build the configuration: {e}"))
            return
        flags = read_flags(file) if columns else ""  # as the page read the file: --format, --no-header
        st.markdown("A whole configuration (exact and this normalized grader"
                    + (" on the loaded file's columns" if columns else "") + "), for "
                    f"`gradeboard score FILE{flags} --config gradeboard.config.json --out scored.csv`:")
        st.download_button("Download gradeboard.config.json", config.to_json(), file_name="gradeboard.config.json",
                           mime="application/json", on_click="ignore", key="gb_norm_dl_cfg")
        st.code(config.to_json(), language="json")
