"""Grader selection and parameters, built from ``graders.registry.REGISTRY`` (the one list
of graders and parameters): every ``Param`` kind has one widget here.

Widget state lives in ``st.session_state`` under ``gb_w_<prefix>_...`` keys. Widgets are
created without a ``value=``/``default=`` argument: the value is put in session state
first (``setdefault``), so a configuration upload can write a new value before the widgets
render. Every such widget has ``persist_state=PERSIST`` (Streamlit >= 1.67), so its value
survives while it is off screen — on another page, or a grader deselected.

Keys: ``gb_w_<prefix>_graders`` (selected names, in selection order),
``gb_w_<prefix>_overall`` ("off" / "all" / "any"),
``gb_w_<prefix>_<grader>_<param>`` (a parameter; thresholds add ``..._threshold_on``).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import streamlit as st

from graders.config import DEFAULT_GRADERS, OVERALL_GRADERS, ConfigError, GraderConfig, RunConfig, loads
from graders.engines.regex import check_pattern, python_pattern_hint
from graders.metrics.json_schema import compile_schema
from graders.registry import MIN_SECONDS, REGISTRY, GraderSpec, Param
from graders.text.normalize import SQUAD_PIPELINE, STEP_DESCRIPTIONS

from . import count, display, extracting

WIDGET_PREFIX = "gb_w_"
PERSIST = "session"  # persist_state of every gb_w_ widget

OVERALL_CHOICES = ("off", "all", "any")
OVERALL_WORDS = {"off": "No overall row", "all": "All pass", "any": "Any passes"}
DEFAULT_SCHEMA = '{\n  "type": "object"\n}'


def wkey(prefix: str, *parts: str) -> str:
    return WIDGET_PREFIX + "_".join((prefix, *parts))


def _label(name: str) -> str:
    return f"{REGISTRY[name].label} ({name})"


# --------------------------------------------------------------------------- state <-> values


def _state_value(p: Param, value: Any) -> Any:
    """A parameter value as its widget holds it."""
    if p.kind == "pipeline":
        return list(SQUAD_PIPELINE) if value == "squad" else list(value or ())
    if p.kind == "steps":
        return list(value or ())
    if p.kind == "schema":
        if value is None:
            return DEFAULT_SCHEMA
        return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    if p.kind in ("tolerance", "seconds"):
        return float(value)
    if p.kind == "text":
        return "" if value is None else str(value)
    return value


def _seed(prefix: str, name: str, p: Param, value: Any, *, force: bool = False) -> None:
    ss = st.session_state
    k = wkey(prefix, name, p.name)
    if p.kind == "threshold":
        on = wkey(prefix, name, p.name, "on")
        if force or on not in ss:
            ss[on] = value is not None
        if force or k not in ss:
            ss[k] = 0.5 if value is None else float(value)
        return
    if force or k not in ss:
        ss[k] = _state_value(p, value)


def set_graders_state(prefix: str, config: RunConfig) -> None:
    """Write a configuration's graders and overall rule into the widgets' state (call
    before the widgets render: from a callback, or earlier in the script)."""
    ss = st.session_state
    ss[wkey(prefix, "graders")] = list(config.grader_names)
    ss[wkey(prefix, "overall")] = config.overall or "off"
    extracts = [gc.params.get("extract") for gc in config.graders]
    common = extracts[0] if extracts and all(e == extracts[0] for e in extracts) else None
    extracting.set_state(prefix, common)
    for gc, own in zip(config.graders, extracts):  # a grader whose extract is not the page's keeps its own
        extracting.set_own(prefix, gc.name, extracting.INHERIT if own == common else own)
    for gc in config.graders:
        for p in REGISTRY[gc.name].params:
            _seed(prefix, gc.name, p, gc.resolved.get(p.name, p.default), force=True)


def reset_params(prefix: str, name: str, values: Mapping[str, Any]) -> None:
    """Every parameter widget of grader ``name``: its default, or ``values``' (call before
    the widgets render)."""
    for p in REGISTRY[name].params:
        _seed(prefix, name, p, values.get(p.name, p.default), force=True)


# --------------------------------------------------------------------------- one parameter


def relative_tolerance_words(rel_tol: float) -> str:
    """What a relative tolerance allows, as a percentage ("1% of |expected|"), with a word of
    warning from 1 up, where a percentage was likely typed as the fraction."""
    words = f"= {rel_tol * 100:g}% of |expected|."
    if rel_tol >= 1:
        words += f" For {rel_tol:g}%, enter {rel_tol / 100:g}."
    return words


def param_widget(prefix: str, name: str, p: Param) -> tuple[Any, str | None]:
    """Render the widget of one parameter; return (JSON-ready value, problem or None).

    A problem (invalid schema, refused pattern) is shown here as the one ``st.error`` and
    returned so the caller can leave the grader out of the run until it is fixed.
    """
    _seed(prefix, name, p, p.default)
    k = wkey(prefix, name, p.name)
    label = p.name.replace("_", " ")
    if p.kind == "choice":
        return st.radio(label, list(p.choices), key=k, persist_state=PERSIST, horizontal=True, help=p.help or None), None
    if p.kind == "tolerance":
        value = st.number_input(label, min_value=0.0, step=0.01, format="%g", key=k, persist_state=PERSIST, help=p.help or None)
        if p.name == "rel_tol" and value:
            st.caption(relative_tolerance_words(value))
        return value, None
    if p.kind == "seconds":
        return st.number_input(label, min_value=MIN_SECONDS, step=0.5, format="%g", key=k, persist_state=PERSIST,
                               help=p.help or None), None
    if p.kind == "threshold":
        on = st.checkbox("Pass or fail with a threshold", key=wkey(prefix, name, p.name, "on"), persist_state=PERSIST,
                         help="Without a threshold the grader only reports its score.")
        value = st.number_input("threshold", min_value=0.0, max_value=1.0, step=0.05, format="%g", key=k, persist_state=PERSIST,
                                disabled=not on, help=p.help or None)
        return (value if on else None), None
    if p.kind == "pipeline":
        steps = st.multiselect(
            "Normalization steps, in the order they run", list(p.choices), key=k, persist_state=PERSIST,
            help="; ".join(f"{s}: {STEP_DESCRIPTIONS.get(s, s)}" for s in p.choices),
        )
        st.button("Use the SQuAD pipeline", key=wkey(prefix, name, p.name, "squad"),
                  on_click=_set, args=(k, list(SQUAD_PIPELINE)))
        return list(steps), None
    if p.kind == "steps":
        return list(st.multiselect(label, list(p.choices), key=k, persist_state=PERSIST, help=p.help or None)), None
    if p.kind == "schema":
        text = st.text_area("JSON Schema", key=k, persist_state=PERSIST, height=180, help=p.help or None)
        problem = schema_problem(text)
        if problem is None:
            note = schema_note(text)
            if note:
                st.warning(display.inert(note))
        return text, problem
    if p.kind == "text":
        # the pattern commits after a pause in typing, so a refused pattern's hint shows as you
        # type (a superseded scoring is cancelled); flags commit on Enter
        live = p.name == "pattern"
        value = st.text_input(label, key=k, persist_state=PERSIST, help=p.help or None, live=live)
        return value, None
    raise AssertionError(f"no widget for parameter kind {p.kind!r}")


def _set(key: str, value: Any) -> None:
    st.session_state[key] = value


def schema_problem(text: str) -> str | None:
    """Why the schema text cannot be used (None when it can)."""
    try:
        schema = json.loads(text)
    except ValueError as e:
        return f"The schema is not valid JSON: {e}"
    except RecursionError:
        return "The schema nests too deeply to read."
    if not isinstance(schema, (dict, bool)):
        return f"The schema must be a JSON object (or true/false), not {type(schema).__name__}."
    problem = compile_schema(schema).problem
    if problem is not None and problem.status == "error":
        return problem.explanation
    return None


def schema_note(text: str) -> str | None:
    """What the grader will say of every row when the schema itself makes it not judged
    (a keyword outside the supported set, a remote $ref), or None."""
    try:
        problem = compile_schema(json.loads(text)).problem
    except (ValueError, RecursionError):
        return None  # schema_problem says what is wrong
    return problem.explanation if problem is not None and problem.status == "not_judged" else None


def pattern_problem(pattern: str, flags: str) -> str | None:
    if not pattern:
        return "The regex grader needs a pattern."
    return check_pattern(pattern, flags)


def grader_params(prefix: str, name: str) -> tuple[dict[str, Any], str | None]:
    """Every parameter widget of grader ``name``; (params, the first problem or None).

    Problems are shown in place: one ``st.error`` each.
    """
    spec: GraderSpec = REGISTRY[name]
    params: dict[str, Any] = {}
    problem = None
    for p in spec.params:
        value, why = param_widget(prefix, name, p)
        params[p.name] = value
        if why:
            st.error(display.inert(why))
            problem = problem or why
    if name == "regex":
        why = pattern_problem(params.get("pattern", ""), params.get("flags", ""))
        if why:
            st.error(display.inert(why))
            problem = problem or why
        else:
            hint = python_pattern_hint(params.get("pattern", ""))
            if hint:
                st.info(display.inert(hint))
    if spec.params and problem is None:
        try:
            GraderConfig.make(name, _json_ready(spec, params))
        except ConfigError as e:
            st.error(display.inert(str(e)))
            problem = str(e)
    return params, problem


def _json_ready(spec: GraderSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(params)
    for p in spec.params:
        if p.kind == "schema" and isinstance(out.get(p.name), str):
            try:
                out[p.name] = json.loads(out[p.name])
            except ValueError:
                pass
    return out


# --------------------------------------------------------------------------- the whole form


def graders_form(prefix: str, mapping: Mapping[str, str | None], extract: Any = None) -> tuple[RunConfig, dict[str, str]]:
    """Grader selection (with every parameter) and the overall rule.

    Returns (the configuration of the graders that can run, {grader: problem} for those
    left out until fixed). The configuration's columns are ``mapping``; ``extract`` (from
    ``ui.extracting``) is every grader's answer extraction but where a grader's settings
    choose its own (``extracting.own_widget``).
    """
    ss = st.session_state
    names = list(REGISTRY)
    ss.setdefault(wkey(prefix, "graders"), list(DEFAULT_GRADERS))
    ss.setdefault(wkey(prefix, "overall"), "off")
    chosen = st.multiselect(
        "Graders", names, key=wkey(prefix, "graders"), persist_state=PERSIST, format_func=_label,
        help="Each grader is counted on its own; the list keeps the order you pick them in.",
    )
    graders: list[GraderConfig] = []
    problems: dict[str, str] = {}
    cols = st.columns(2)
    for i, name in enumerate(chosen):
        spec = REGISTRY[name]
        with cols[i % 2].expander(f"{spec.label} — {spec.summary}", expanded=False):
            params, problem = grader_params(prefix, name)
            own, why = extracting.own_widget(prefix, name)
            problem = problem or why
        if problem:
            problems[name] = problem
            continue
        chosen_extract = extract if own == extracting.INHERIT else own
        if chosen_extract is not None:
            params = {**params, "extract": chosen_extract}
        graders.append(GraderConfig.make(name, _json_ready(spec, params)))
    if problems:
        st.warning("Left out of the run until fixed: " + ", ".join(REGISTRY[n].label for n in problems)
                   + " (see the message under its parameters).")
    overall = st.radio(
        "Overall row over the pass-or-fail graders (" + ", ".join(OVERALL_GRADERS) + ")",
        list(OVERALL_CHOICES), key=wkey(prefix, "overall"), persist_state=PERSIST, horizontal=True, format_func=OVERALL_WORDS.get,
    )
    config = RunConfig(dict(mapping), tuple(graders), None if overall == "off" else overall)
    return config, problems


# --------------------------------------------------------------------------- configuration files


def parse_config(data: bytes | str | Mapping[str, Any]) -> RunConfig:
    """An uploaded configuration, read as the command line reads one (``config.loads``)."""
    return loads(data)


def restore_config(config: RunConfig, file: Any, prefix: str) -> str | None:
    """Put a configuration's mapping and graders into the widgets (before they render).

    Returns a problem to show (columns the file does not have), or None.
    """
    set_graders_state(prefix, config)
    return restore_mapping(config, file, prefix)


def restore_mapping(config: RunConfig, file: Any, prefix: str) -> str | None:
    """Put a configuration's mapping into the select boxes; a role whose column this file
    lacks keeps the file's suggestion. Returns the missing columns as a problem, or None."""
    from graders.config import suggest_mapping
    from graders.pipeline import resolve_mapping

    from .loading import set_mapping

    missing = [f"{role} → {col!r}" for role, col in config.columns.items() if col and col not in file.columns]
    suggested = suggest_mapping(file.columns)
    mapping = resolve_mapping(file, config)
    # a role set to null stays off; a column the file lacks falls back to the suggestion
    set_mapping({r: (c if c is None or c in file.columns else suggested.get(r)) for r, c in mapping.items()}, prefix)
    if missing:
        return ("The configuration maps columns this file does not have: " + ", ".join(missing)
                + "; those roles keep the file's suggested columns.")
    return None


def needs_expected(prefix: str) -> bool:
    """Whether the graders selected right now need an expected column."""
    chosen = st.session_state.get(wkey(prefix, "graders"), list(DEFAULT_GRADERS))
    return any(REGISTRY[n].uses_expected for n in chosen if n in REGISTRY)


def apply_sample_config(file: Any, prefix: str) -> None:
    """Once per loaded file: a sample's own configuration (``<stem>.config.json``) sets the
    mapping and graders; a file that is not a sample, loaded after one, starts from the
    default graders (exact and normalized, as the command line), every parameter at its
    default, unless the user restored a configuration, which is applied only when restored.
    State: ``gb_config_applied_for_<prefix>`` (the file hash it was applied for on that
    page), ``gb_sample_graders_<prefix>`` (the graders now shown came from a sample)."""
    from .loading import sample_config

    ss = st.session_state
    applied = f"gb_config_applied_for_{prefix}"
    if ss.get(applied) == ss.get("gb_file_hash"):
        return
    ss[applied] = ss.get("gb_file_hash")
    data = sample_config(ss.get("gb_file_sample"))
    from_sample = f"gb_sample_graders_{prefix}"
    if data is not None:
        config = parse_config(data)
        restore_config(config, file, prefix)
        ss[from_sample] = config.grader_names
    elif ss.get("gb_file_sample") is None and ss.pop(from_sample, None) is not None and not isinstance(
            (ss.get("gb_config_restored") or (None, None, None))[2], RunConfig):
        for name in REGISTRY:  # the sample's parameters go too (numeric read=last, its regex, its schema)
            reset_params(prefix, name, {})
        set_graders_state(prefix, RunConfig(graders=tuple(GraderConfig.make(n) for n in DEFAULT_GRADERS)))


def config_upload(file: Any, prefix: str) -> None:
    """Sidebar uploader that restores mapping and graders from a configuration JSON.

    The configuration is the session's, and each page that has the uploader applies it to
    its own widgets the first time it is shown after the upload (the Score page and the
    Compare page each say what they restored, and run what they say). State:
    ``gb_config_seen`` (the upload already read), ``gb_config_restored`` (its id, name and
    configuration, or an error message), ``gb_config_on_<prefix>`` (the upload and the file
    this page applied it to), ``gb_config_message_<prefix>`` (kind, text) about this
    page's file and ``gb_config_held_on`` (the page whose uploader held it in the last run:
    emptied there, it is forgotten). A bad configuration is one ``st.error``.

    A file uploaded or pasted after the configuration gets the configuration's mapping
    too (the usual order: the app opens on a sample, the configuration comes first); a
    sample keeps its own.
    """
    ss = st.session_state
    up = st.sidebar.file_uploader("Restore a configuration (JSON)", type=["json"], key="gb_config_upload",
                                  help="What “Export configuration” downloads (SPEC §7).")
    # Removed from the uploader on this page (not a page switch, which empties it too):
    # the configuration is forgotten, and files loaded next keep their own mapping.
    if up is None and ss.get("gb_config_held_on") == prefix:
        for key in ("gb_config_restored", "gb_config_seen", *(k for k in ss if str(k).startswith("gb_config_message_"))):
            ss.pop(key, None)
    ss["gb_config_held_on"] = prefix if up is not None else None
    if up is not None and ss.get("gb_config_seen") != up.file_id:
        ss["gb_config_seen"] = up.file_id
        try:
            ss["gb_config_restored"] = (up.file_id, up.name, parse_config(up.getvalue()))
        except ConfigError as e:
            ss["gb_config_restored"] = (up.file_id, up.name, f"Could not use the configuration {up.name}: {e}")
    restored = ss.get("gb_config_restored")
    here = ss.get("gb_file_hash")
    on, message = f"gb_config_on_{prefix}", f"gb_config_message_{prefix}"
    if restored is not None:
        upload_id, name, config = restored
        applied = ss.get(on)
        if isinstance(config, str):  # a bad configuration: the same error on every page
            ss[message] = ("error", config)
        elif applied is None or applied[0] != upload_id:  # new to this page
            problem = restore_config(config, file, prefix)
            ss[message] = ("error", problem) if problem else (
                "success", f"Restored the mapping and {count(len(config.graders), 'grader')} from {name}.")
        elif applied[1] != here:  # another file since: the message was about the last one
            ss.pop(message, None)
            if ss.get("gb_file_sample") is None:
                problem = restore_mapping(config, file, prefix)
                ss[message] = ("error", problem) if problem else (
                    "success", f"Mapped the columns of {ss.get('gb_file_name')} as {name} says.")
        ss[on] = (upload_id, here)
    shown = ss.get(message)
    if shown:
        (st.error if shown[0] == "error" else st.success)(display.inert(shown[1]))
