"""The Score page's result views: counts table, corpus figures, unknown assertions, the
near-miss table, charts, the filter view with row detail, and the downloads.

Each function takes the view built by ``ui.scoring.scored_view`` and draws one section.
``kind_mask``, ``disagreement_masks``, ``text_cases`` and ``filter_parts`` are pure pandas, and
so are ``counts_markdown`` and ``rate_links`` (``ui.present.counts``; tests/test_page_score.py
calls them directly as well as through the page). The results grid is ``ui.results``'s.

Session state set here: ``gb_w_score_filter_kinds``, ``gb_w_score_filter_graders``,
``gb_w_score_filter_text`` (the filter view's widgets), ``gb_filter_table`` (the
filtered table's row selection), ``gb_filter_table_listed`` (what that table lists:
``ui.keep_selection_if_listed``), ``gb_w_score_include_output`` (the scored CSV option),
``gb_row_facts`` (the prepared rows' systems, repeats and words, found once per file).
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from graders.metrics.nearmiss import PROBE_CODES
from graders.scoring.batch import explain_rows, with_output
from graders.scoring.output import scored_csv_bytes, spreadsheet_safe_bytes
from ui.present import charts
from ui.present.counts import COUNT_COLUMNS, counts_markdown, not_run, rate_links  # noqa: F401  (the page's names)
from ui.present.grid import label
from ui.present.links import pass_rate_link
from ui.present.search import haystack, text_cases  # noqa: F401  (text_cases: the search the page runs)

from . import count, display, keep_selection_if_listed, page_link
from .detail import row_detail
from .loading import read_flags

# "graders disagree": a case that one grader passes and another fails (exact fails where
# normalized passes); "systems disagree": a case and grader that one system's output
# passes and another's fails (offered when the file has several systems).
DISAGREEMENT_KINDS = ("graders disagree", "systems disagree")
FILTER_KINDS = ("failures", "near misses", "not judged", "errors", "passes", "scored", *DISAGREEMENT_KINDS)
TABLE_ROWS = 1000  # rows of a filtered table sent to the browser; the CSV has them all
NEAR_ROWS = 200


def rate_link(text: str, query: Mapping[str, str]) -> None:
    """A link to the pass-rate page with ``query`` that keeps the session (``st.page_link``:
    no new tab, the loaded file kept); where the page runs outside app.py's navigation, a
    Markdown link to its address."""
    from streamlit.errors import StreamlitPageNotFoundError

    try:
        st.page_link("pages/pass_rate.py", label=display.inert(text), query_params=dict(query))  # a label is Markdown
    except StreamlitPageNotFoundError:
        st.markdown(f"[{display.md(text)}]({pass_rate_link(int(query['k']), int(query['n']), label=query.get('label'))})")


def row_facts(rows: pd.DataFrame) -> dict[str, Any]:
    """What the sections ask of the prepared rows on every rerun, found once per rows frame:
    its ``systems`` (in order), whether it has ``repeats``, and its ``words`` (``outputs_words``)."""
    ss = st.session_state
    memo = ss.get("gb_row_facts")
    if memo is None or memo[0] is not rows:
        systems = list(dict.fromkeys(rows["system"].tolist()))
        memo = (rows, {"systems": systems, "repeats": bool(rows["repeat"].ne("").any()), "words": outputs_words(rows)})
        ss["gb_row_facts"] = memo
    return memo[1]


def outputs_words(rows: pd.DataFrame) -> str:
    """What the rows are: "40 cases" for one system without repeats; else the outputs (one
    per case, system and repeat) with the cases and systems they are, as in "80 outputs
    (40 cases, 2 systems)"."""
    n = len(rows)
    systems = rows["system"].nunique()
    repeats = bool(rows["repeat"].ne("").any())
    if systems <= 1 and not repeats:
        return count(n, "case")
    parts = [count(rows["item"].nunique(), "case")] + ([count(systems, "system")] if systems > 1 else []) + (["with repeats"] if repeats else [])
    return f"{count(n, 'output')} ({', '.join(parts)})"


def scored_words(rows: pd.DataFrame) -> str:
    """What was scored, in bold: "**40 cases scored**", or "**80 outputs scored** (40 cases,
    2 systems)" (``outputs_words``)."""
    what, _, rest = row_facts(rows)["words"].partition(" (")
    return f"**{what} scored**" + (f" ({rest}" if rest else "")


def counts_section(view: Mapping[str, Any]) -> None:
    summary = view["summary"]
    left = summary.get("left_out", {})
    st.markdown(
        scored_words(view["run"].prepared.rows)
        + (f", {count(left.get('total', 0), 'row')} left out" if left.get("total") else "")
        + f" · {sum(len(p) for p in view['parts'].values()):,} scored rows."
    )
    order = list(view["config"].grader_names) + ["overall"]
    # in a box that scrolls sideways: ten columns do not fit a narrow window (the cells are
    # Markdown-escaped by counts_markdown, so the HTML allowed here is the box alone)
    st.markdown(f"<div class='gb-counts' style='overflow-x:auto'>\n\n"
                f"{counts_markdown(summary, order)}\n\n</div>",
                unsafe_allow_html=True)
    st.caption(
        "Each grader is counted on its own. Pass rate = passed / (passed + failed); the interval is "
        "Wilson's at 95%. Open a pass count in the pass-rate calculator (this session, the file kept):"
    )
    with st.container(horizontal=True, key="gb_rate_links", gap="small"):
        for text, query in rate_links(summary, order):
            rate_link(text, query)


def corpus_section(view: Mapping[str, Any]) -> None:
    corpus = view["summary"].get("corpus") or {}
    if not corpus:
        return
    st.subheader("Corpus beside mean sentence scores")
    for system, figures in corpus.items():
        cols = st.columns(4)
        i = 0
        for name, words in (("bleu", "BLEU"), ("chrf", "chrF")):
            if name not in figures:
                continue
            f = figures[name]
            of = f" · {display.md(system)}" if len(corpus) > 1 else ""
            cols[i].metric(f"Corpus {words}{of}", "–" if f["corpus"] is None else f"{f['corpus']:.3f}")
            cols[i + 1].metric(f"Mean sentence {words}{of}", "–" if f["mean_sentence"] is None else f"{f['mean_sentence']:.3f}")
            i += 2
    st.caption("Corpus figures pool n-gram statistics over all rows (sacrebleu's corpus_bleu / corpus_chrf); "
               "the means average sentence scores. Quote which one you report.")


def unknown_assertions_section(view: Mapping[str, Any]) -> None:
    unknown = view["summary"].get("unknown_assertions") or {}
    if unknown:
        st.subheader("Assertion kinds not run")
        kinds = pd.DataFrame({"kind": pd.Series(list(unknown), dtype=object), "rows": list(unknown.values())})
        st.dataframe(display.frame(kinds), hide_index=True)  # a kind from the file may hold a lone surrogate
        st.caption("Listed and counted here, never counted as passes, and left out of the counts table and "
                   "the outcome chart (each of their rows is an error in the scored file that says so).")


def near_miss_frame(scored: pd.DataFrame) -> pd.DataFrame:
    near = scored.loc[scored["near_miss"] != "", ["item", "system", "repeat", "scorer", "near_miss"]]
    return pd.DataFrame({
        "Case": near["item"], "System": near["system"], "Repeat": near["repeat"],
        "Grader": near["scorer"].map(label),
        "Step that would pass it": near["near_miss"].map(
            lambda codes: "; ".join(f"{c}: {PROBE_CODES.get(c, c)}" for c in codes.split(";"))),
    })


def near_miss_section(view: dict[str, Any]) -> None:
    st.subheader("Near misses")
    if "near_table" not in view:
        heads = [h for h in view["near_heads"] if len(h)]
        first = pd.concat(heads).sort_index(kind="stable").head(NEAR_ROWS) if heads else None
        view["near_table"] = (near_miss_frame(first) if first is not None else pd.DataFrame(), view["near_total"])
    frame, total = view["near_table"]
    if frame.empty:
        st.caption("No fail has a near miss.")
        return
    facts = row_facts(view["run"].prepared.rows)  # the file's systems and repeats, not only the shown rows'
    if len(facts["systems"]) <= 1:
        frame = frame.drop(columns=["System"])
    if not facts["repeats"]:
        frame = frame.drop(columns=["Repeat"])
    st.dataframe(display.frame(frame), hide_index=True)
    if total > NEAR_ROWS:
        st.caption(f"First {NEAR_ROWS} of {total:,}; Rows by grader lists them all.")


def chart_specs(view: Mapping[str, Any]) -> dict[str, dict]:
    """The Vega-Lite specs of the view's Altair charts, built once per view: a rerun that
    only changes a filter draws them from these dicts. Altair's schema validation is
    skipped here (it is most of the cost); tests/test_charts.py validates every builder."""
    if "specs" in view:
        return view["specs"]
    order = list(view["config"].grader_names) + ["overall"]
    present = set(view["outcomes"]["scorer"]) - not_run(view["summary"])
    specs: dict[str, dict] = {
        "outcomes": charts.outcome_chart(view["outcomes"][view["outcomes"]["scorer"].isin(present)],
                                         [s for s in order if s in present]).to_dict(validate=False),
    }
    if len(view["near"]):
        specs["near"] = charts.near_miss_chart(view["near"]).to_dict(validate=False)
    if len(view["bins"]):
        specs["bins"] = charts.score_distribution_chart(view["bins"], view["thresholds"]).to_dict(validate=False)
    static = view.get("static_specs")  # independent of thresholds: kept across threshold changes
    if static is None:
        static = {}
        numeric = next((g for g in view["config"].graders if g.name == "numeric"), None)
        for sweep in view["sweeps"]:
            vary = sweep["vary"].iloc[0]
            static[f"sweep_{vary}"] = charts.tolerance_chart(sweep, numeric.resolved[vary]).to_dict(validate=False)
        if view["violations"] is not None and len(view["violations"]):
            static["violations"] = charts.schema_violation_chart(view["violations"]).to_dict(validate=False)
        view["static_specs"] = static
    specs.update(static)
    view["specs"] = specs
    return specs


def charts_section(view: Mapping[str, Any]) -> None:
    st.subheader("Charts")
    specs = chart_specs(view)
    systems = len(view["summary"].get("systems") or {})
    if systems > 1:
        st.caption(f"Outcomes per grader and system; the other charts count the {systems} systems together "
                   "(the counts table above has each system's figures).")
    # One above the other, each the page's width: side by side, a 1,024-pixel window cut the
    # near-miss chart's bars and legend off (its whole probe codes need the room).
    st.markdown("**Outcomes per grader" + (" and system" if systems > 1 else "") + "**")
    st.vega_lite_chart(specs["outcomes"], width="stretch")
    st.markdown("**Near misses by probe code**")
    if "near" in specs:
        st.vega_lite_chart(specs["near"], width="stretch")
    else:
        st.caption("No near misses.")
    if "bins" in specs:
        st.markdown("**Score distribution of the continuous graders** (20 bins; dashed line: threshold)")
        st.vega_lite_chart(specs["bins"])
    sweeps = [k for k in specs if k.startswith("sweep_")]
    if sweeps:
        st.markdown("**Numeric: pass rate as the tolerance grows** (red point: the configured tolerance)")
        for col, k in zip(st.columns(len(sweeps)), sweeps):
            col.vega_lite_chart(specs[k], width="stretch")
    if "violations" in specs:
        st.markdown("**JSON Schema violations by (path, keyword)**, share of rows")
        st.vega_lite_chart(specs["violations"], width="stretch")


# --------------------------------------------------------------------------- filter view


_KIND_STATUS = {"failures": "fail", "not judged": "not_judged", "errors": "error", "passes": "pass", "scored": "scored"}


def kind_masks(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """One boolean array per filter kind (built once per grader frame, then OR-ed)."""
    status = frame["status"].to_numpy(dtype=object)
    masks = {k: status == v for k, v in _KIND_STATUS.items()}
    masks["near misses"] = frame["near_miss"].to_numpy(dtype=object) != ""
    return masks


def _disagreeing(groups: np.ndarray, passed: np.ndarray, taking_part: np.ndarray) -> np.ndarray:
    """Rows taking part whose group (``groups``: a code per row) has both a pass and a fail
    among the rows taking part."""
    codes = groups[taking_part]
    size = int(groups.max()) + 1 if len(groups) else 0
    n = np.bincount(codes, minlength=size)
    ok = np.bincount(codes, weights=passed[taking_part], minlength=size)
    out = np.zeros(len(groups), dtype=bool)
    out[taking_part] = (ok[codes] > 0) & (ok[codes] < n[codes])
    return out


def disagreement_masks(parts: Mapping[str, pd.DataFrame],
                       among: Sequence[str] = ()) -> dict[str, dict[str, np.ndarray]]:
    """Per scorer, the rows of each ``DISAGREEMENT_KINDS`` filter. Only passes and fails take
    part. "graders disagree": the case (one system's output of a row) has a pass and a fail
    among the scorers ``among`` (fewer than two given: every grader and assertion, but the
    overall row, which sums them up); "systems disagree": the same scorer has a pass and a
    fail on the case's id and repeat across systems."""
    names = list(parts)
    frames = [parts[s] for s in names]
    if not frames:
        return {}
    sizes = [len(f) for f in frames]
    rows = pd.concat([f[["record", "system", "item", "repeat"]] for f in frames], ignore_index=True)
    status = np.concatenate([f["status"].to_numpy(dtype=object) for f in frames])
    scorer = np.repeat(np.arange(len(names)), sizes)
    passed = status == "pass"
    decided = passed | (status == "fail")
    rows["scorer"] = scorer
    by_case = rows.groupby(["record", "system"], sort=False).ngroup().to_numpy()
    by_grader = rows.groupby(["item", "repeat", "scorer"], sort=False).ngroup().to_numpy()
    # Among the chosen scorers; with fewer than two chosen, among every grader (the chosen
    # one's rows where it disagrees with another: one grader alone never disagrees).
    among = among if len(among) > 1 else ()
    chosen = [i for i, name in enumerate(names) if (name in among if among else name != "overall")]
    graders = decided & np.isin(scorer, chosen)
    found = {"graders disagree": _disagreeing(by_case, passed, graders),
             "systems disagree": _disagreeing(by_grader, passed, decided)}
    ends = np.cumsum(sizes)[:-1]
    split = {kind: np.split(mask, ends) for kind, mask in found.items()}
    return {name: {kind: split[kind][i] for kind in found} for i, name in enumerate(names)}


def kind_mask(frame: pd.DataFrame, kinds: Sequence[str], masks: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
    """Rows matching any of ``kinds`` (empty: every row). The disagreement kinds need
    ``masks`` holding them (``disagreement_masks``: they compare rows across graders)."""
    for k in kinds:
        if k not in FILTER_KINDS:
            raise ValueError(f"unknown filter {k!r}; valid filters: {', '.join(FILTER_KINDS)}")
    if not kinds:
        return np.ones(len(frame), dtype=bool)
    masks = kind_masks(frame) if masks is None else masks
    missing = [k for k in kinds if k not in masks]
    if missing:
        raise ValueError(f"the filter {missing[0]!r} compares rows across graders: use filter_parts")
    out = np.zeros(len(frame), dtype=bool)
    for k in kinds:
        out |= masks[k]
    return out


def filter_parts(
    parts: Mapping[str, pd.DataFrame],
    rows: pd.DataFrame,
    *,
    kinds: Sequence[str] = (),
    scorers: Sequence[str] = (),
    text: str = "",
    limit: int = TABLE_ROWS,
    hay: pd.Series | None = None,
    masks: Mapping[str, Mapping[str, np.ndarray]] | None = None,
    across: Mapping[str, Mapping[str, np.ndarray]] | None = None,
) -> tuple[int, pd.DataFrame, dict[str, pd.Index]]:
    """Filter the per-grader frames: (matching rows, the first ``limit`` in file order,
    the matching index of each grader's frame). ``masks``: ``kind_masks`` per grader;
    ``across``: ``disagreement_masks(parts, scorers)``, made here when a disagreement kind
    is asked for and it is not given (graders disagree among the chosen ``scorers``)."""
    cases = text_cases(rows, text, hay) if text.strip() else None
    one_system = rows["system"].nunique() <= 1
    if across is None and any(k in DISAGREEMENT_KINDS for k in kinds):
        across = disagreement_masks(parts, scorers)
    hits: dict[str, pd.Index] = {}
    for scorer, frame in parts.items():
        if scorers and scorer not in scorers:
            continue
        own = masks.get(scorer) if masks else None
        if across is not None:
            own = {**(own or kind_masks(frame)), **across[scorer]}
        mask = kind_mask(frame, kinds, own)
        if cases is not None:
            # A wide file's systems share their records: a hit in one system's output is
            # that system's row alone, so the record is enough only in a one-system file.
            if one_system:
                mask &= frame["record"].isin(cases["record"].tolist()).to_numpy()
            else:
                keys = set(zip(cases["record"], cases["system"]))
                mask &= np.fromiter((k in keys for k in zip(frame["record"], frame["system"])), bool, len(frame))
        hits[scorer] = frame.index[mask]
    count = sum(len(ix) for ix in hits.values())
    heads = [parts[s].loc[ix[:limit]] for s, ix in hits.items() if len(ix)]
    shown = pd.concat(heads).sort_index(kind="stable").head(limit) if heads else next(iter(parts.values())).iloc[:0]
    return count, shown, hits


def _table(frame: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "case": frame["item"], "system": frame["system"], "repeat": frame["repeat"],
        "grader": frame["scorer"].map(label), "status": frame["status"], "score": frame["score"],
        "near miss": frame["near_miss"], "explanation": frame["explanation"],
    })


def filter_section(view: dict[str, Any]):
    """The filter view; selecting a row opens its detail. Returns a function building the
    filtered rows (for the download)."""
    ss = st.session_state
    st.subheader("Rows by grader")
    st.caption("One row per case and grader, with its explanation; the Filtered rows CSV below holds them.")
    parts = view["parts"]
    scorers = list(parts)
    total = sum(len(p) for p in parts.values())
    ss.setdefault("gb_w_score_filter_kinds", ["failures"])
    ss.setdefault("gb_w_score_filter_graders", [])
    ss.setdefault("gb_w_score_filter_text", "")
    ss["gb_w_score_filter_graders"] = [s for s in ss["gb_w_score_filter_graders"] if s in scorers]
    rows = view["run"].prepared.rows
    several = len(row_facts(rows)["systems"]) > 1
    offered = [k for k in FILTER_KINDS if several or k != "systems disagree"]
    ss["gb_w_score_filter_kinds"] = [k for k in ss["gb_w_score_filter_kinds"] if k in offered]
    c1, c2, c3 = st.columns([2, 2, 1])
    kinds = c1.multiselect("Show", offered, key="gb_w_score_filter_kinds", persist_state="session",
                           help="Rows matching any of these; none selected shows every row. **graders disagree**: "
                                "a case one of the chosen graders passes and another fails (both are shown; with one "
                                "grader chosen, its rows that another grader decides the other way)"
                                + ("; **systems disagree**: a case and grader one system passes and another fails"
                                   if several else "") + ".")
    chosen = c2.multiselect("Graders", scorers, key="gb_w_score_filter_graders", persist_state="session", format_func=label,
                            help="None selected: every grader.")
    text = c3.text_input("Search", key="gb_w_score_filter_text", persist_state="session", help="In the case id, input, expected or output.")
    hay = None
    if text.strip():
        if "haystack" not in view:
            view["haystack"] = haystack(rows)  # built once per view, on the first search
        hay = view["haystack"]
    if "masks" not in view:
        view["masks"] = {}
    masks = view["masks"]
    for scorer in (chosen or scorers):
        if kinds and scorer not in masks:
            masks[scorer] = kind_masks(parts[scorer])
    across = None
    if any(k in DISAGREEMENT_KINDS for k in kinds):  # made once per view and choice of graders
        made = view.setdefault("disagreements", {})
        across = made.get(tuple(chosen))
        if across is None:
            across = made[tuple(chosen)] = disagreement_masks(parts, chosen)
    memo = view.setdefault("filtered", {})  # a rerun with the same filter (a click elsewhere) reuses its table
    fkey = (tuple(kinds), tuple(chosen), text)
    if fkey not in memo:
        while len(memo) >= 4:
            memo.pop(next(iter(memo)))
        count, shown, hits = filter_parts(parts, rows, kinds=kinds, scorers=chosen, text=text, hay=hay, masks=masks,
                                          across=across)
        shown = explain_rows(shown, rows, view["config"])  # the deferred explanations of these rows
        memo[fkey] = (count, shown, hits, display.frame(_table(shown)))
    count, shown, hits, table = memo[fkey]
    st.caption(f"{count:,} of {total:,} scored rows"
               + (f"; the first {TABLE_ROWS:,} are shown, the CSV below has them all" if count > TABLE_ROWS else "")
               + (". Select a row to see it in detail." if count else "."))
    keep_selection_if_listed("gb_filter_table", (id(view), tuple(kinds), tuple(chosen), text))
    event = st.dataframe(table, hide_index=True, on_select="rerun", selection_mode="single-row",
                         key="gb_filter_table", width="stretch")
    picked = event.selection.rows if event is not None and hasattr(event, "selection") else []
    if picked and picked[0] < len(shown):
        detail_for(view, shown.iloc[picked[0]])

    def filtered() -> pd.DataFrame:
        frames = [parts[s].loc[ix] for s, ix in hits.items() if len(ix)]
        return explain_rows(pd.concat(frames).sort_index(kind="stable"), rows, view["config"]) if frames else shown

    return count, filtered


def detail_for(view: dict[str, Any], row: pd.Series) -> None:
    """Expected and output of one scored row's case, and every grader's result on it."""
    rows = view["run"].prepared.rows
    case = rows[(rows["record"] == row["record"]) & (rows["system"] == row["system"])]
    if case.empty:
        st.info("This row has no source row to show.")
        return
    case = case.iloc[0]
    same = pd.concat([p[(p["record"] == row["record"]) & (p["system"] == row["system"])] for p in view["parts"].values()])
    same = explain_rows(same.sort_index(kind="stable"), rows, view["config"])
    grades = [(label(s), st_, sc, ex, nm) for s, st_, sc, ex, nm in
              zip(same["scorer"], same["status"], same["score"], same["explanation"], same["near_miss"])]
    refs = list(case["refs"])
    st.markdown(f"#### Case {display.md(case['item'])}" + (f" · {display.md(case['system'])}" if case["system"] else "")
                + (f" · repeat {display.md(case['repeat'])}" if case["repeat"] else ""))
    if case.get("input"):
        st.caption(f"Input: {display.md(case['input'])}")
    label_out = f"Output ({case['output_column']})"
    row_detail(refs, {label_out: case["output"]}, grades, extracted={label_out: extracted_answer(same)})


def extracted_answer(same: pd.DataFrame) -> tuple[str, str | None] | None:
    """(the extractor, what it took from the output, or None) from the first scored row of a
    case whose grader extracted (its metadata cell), or None when no grader extracts."""
    for cell in same["metadata"]:
        try:
            meta = json.loads(cell) if isinstance(cell, str) and cell else {}
        except ValueError:
            continue
        if isinstance(meta, dict) and meta.get("extract") is not None:
            form = meta["extract"] if isinstance(meta["extract"], str) else json.dumps(meta["extract"])
            return form, meta.get("extracted")
    return None


# --------------------------------------------------------------------------- downloads


def scored_download(view: dict[str, Any], include_output: bool) -> bytes:
    """The scored CSV of the view, what ``gradeboard score`` writes with the exported
    configuration (and ``--include-output``: the output column joined from the rows)."""
    from ui.scoring import full_scored

    scored = full_scored(view)
    if include_output:
        scored = with_output(scored, view["run"].prepared.rows)
    return scored_csv_bytes(scored, include_output=include_output)


def downloads_section(view: dict[str, Any], filtered: tuple[int, Any]) -> None:
    """Scored CSV (SPEC §6), the filtered rows and the configuration JSON (SPEC §7). The
    CSVs are built when the button is clicked (Streamlit runs the callable then)."""
    st.subheader("Downloads")
    ss = st.session_state
    ss.setdefault("gb_w_score_include_output", False)
    include = st.checkbox("Include the output column in the scored CSV", key="gb_w_score_include_output", persist_state="session")
    count, build = filtered
    c1, c2, c3 = st.columns(3)
    c1.download_button("Scored CSV", data=lambda: scored_download(view, include),
                       file_name="scored.csv", mime="text/csv", on_click="ignore", key="gb_dl_scored")
    c2.download_button(f"Filtered rows CSV ({count:,})",
                       data=lambda: scored_csv_bytes(with_output(build(), view["run"].prepared.rows), include_output=True),
                       file_name="filtered.csv", mime="text/csv", on_click="ignore", key="gb_dl_filtered")
    c3.download_button("Export configuration", data=view["config"].to_json(), file_name="gradeboard.config.json",
                       mime="application/json", on_click="ignore", key="gb_dl_config")
    c1.download_button("Scored CSV, spreadsheet-safe", data=lambda: spreadsheet_safe_bytes(scored_download(view, include)),
                       file_name="scored.spreadsheet.csv", mime="text/csv", on_click="ignore", key="gb_dl_scored_safe",
                       help="For opening in Excel or Sheets: a cell that starts with = + - @, a tab or a CR gets a ' "
                            "in front, so it is never run as a formula (a plain number is left as it is). "
                            "The scored CSV beside it is exact, cell for cell.")
    flags = read_flags(view["run"].file) + (" --include-output" if include else "")
    st.caption(f"The configuration reproduces this run: `gradeboard score FILE{flags} --config gradeboard.config.json "
               "--out scored.csv --summary summary.json`.")


def compare_pointer(prepared: Any) -> None:
    """Where a file has several systems (a wide file's output columns, a long file's
    versions): the counts here are per system; the Compare page pairs them."""
    if isinstance(prepared, str):
        return
    systems = row_facts(prepared.rows)["systems"]
    if len(systems) < 2:
        return
    names = ", ".join(display.code(s) for s in systems[:4]) + (", …" if len(systems) > 4 else "")
    st.info(f"This file has {len(systems)} systems ({names}). The counts below are per system; "
            "Compare A and B pairs two of them case by case: wins, losses, ties and how sure the difference is.")
    page_link("pages/compare.py", "Compare A and B", "compare")


def left_out_section(prepared: Any) -> None:
    """The left-out report (counts by reason, first row numbers), or the mapping's one error."""
    if isinstance(prepared, str):
        st.error(display.inert(prepared))
        return
    report = prepared.left_out.to_dict()
    what = row_facts(prepared.rows)["words"]
    if not report["total"]:
        st.success(f"All rows can be scored: {what}.")
        return
    st.warning(f"{count(report['total'], 'row')} left out; {what} can be scored.")
    st.dataframe(pd.DataFrame([
        {"reason": reason, "rows": r["count"], "first row numbers": ", ".join(map(str, r["rows"])),
         "notes": "; ".join(r["notes"][:3])}
        for reason, r in report["reasons"].items()
    ]), hide_index=True)
