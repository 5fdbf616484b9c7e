"""The Compare page's comparison and its sections: which columns, graders and sides, the
cached comparison, the metric table, the charts, whether the verdict depends on the grader,
the rows where A and B disagree, and the downloads.

Figures come from ``graders.compare.comparison`` / ``graders.explore.sensitivity``; tables
from ``ui.present.compare_tables``; charts from ``ui.present.compare_charts``.

Session state set here (besides ``ui.loading``'s and ``ui.graders_form``'s ``gb_w_compare_*``):

- ``gb_w_compare_graders``        the graders picked (every metric that needs no setting, to start)
- ``gb_w_compare_side_a`` / ``gb_w_compare_side_b``  the versions of a long file chosen as A and B
- ``gb_w_compare_resamples`` / ``gb_w_compare_seed`` bootstrap resamples and seed
- ``gb_w_compare_chart_metric``   the metric the scatter and difference charts show
- ``gb_w_compare_ladder``         the sensitivity view's graders ("ladder" or "selected")
- ``gb_w_compare_review_kind`` / ``gb_w_compare_review_metric``  the disagreement filter
- ``gb_compare_review_table``     the review table's row selection
- ``gb_compare_fingerprint``      (file, content hash) when a file came without ``gb_file_hash``
- ``gb_carried_for_<PREFIX>``     the file whose columns this page's mapping boxes were set for (``ui.loading.carry_mapping``)
- ``gb_compare_count``            how many comparisons actually ran (not cached); tests read it

The comparison is cached (``st.cache_resource``: one shared, read-only object, not a pickled
copy per rerun, which costs seconds at 200,000 rows) by file content + mapping +
configuration + versions + resamples + seed.
"""

from __future__ import annotations

import hashlib
import io
import json
import shlex
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from graders import GRADER_NAMES
from graders.compare.comparison import CompareError, Comparison, compare_prepared, file_versions, write_comparison
from graders.config import ConfigError, RunConfig
from graders.explore.sensitivity import (
    LADDER,
    default_ladder,
    grader_dependence,
    ladder_order,
    metric_frame,
    sensitivity,
)
from graders.explore.suggest import SAMPLE, applicable_graders
from graders.registry import REGISTRY
from graders.scoring.output import spreadsheet_safe_bytes
from graders.scoring.rows import MappingError, Prepared
from graders.scoring.summary import summary_text
from ui.present import compare_charts as charts
from ui.present.compare_tables import (
    REVIEW_LABELS,
    REVIEWS,
    metric_label,
    metric_lines,
    metric_table,
    pair_detail,
    pass_counts,
    pass_rate_label,
    reading_css,
    review_note,
    review_rows,
)
from ui.present.links import pass_rate_query

from . import display, extracting, graders_form, keep_selection_if_listed, loading, scoring, views
from .detail import row_detail

PREFIX = "compare"
# Every metric that runs without a setting of its own (regex needs a pattern, JSON Schema a schema).
DEFAULT_GRADERS = tuple(n for n in GRADER_NAMES if not any(p.required for p in REGISTRY[n].params))
REVIEW_ROWS = 1000
PERSIST = graders_form.PERSIST  # this page's gb_w_ widgets keep their values across pages
# Large files are scored in the Score page's worker processes, forked from its forkserver
# (safe beside Streamlit's threads; graders.scoring._forkserver_init keeps them from re-running the
# page script). Files under batch.PARALLEL_MIN_ROWS rows are scored in this process.
WORKERS = scoring.WORKERS
START_METHOD = scoring.START_METHOD
# Above this many prepared rows the sensitivity view starts on the graders already scored
# (free) instead of rescoring the whole file under the standard ladder.
LADDER_AUTO_ROWS = 50_000


def w(name: str) -> str:
    return graders_form.wkey(PREFIX, name)


def file_key(file) -> str:
    """The content hash of ``file``: ``gb_file_hash`` from the loader, else a hash of the frame."""
    ss = st.session_state
    if ss.get("gb_file_hash") and ss.get("gb_file") is file:
        return ss["gb_file_hash"]
    memo = ss.get("gb_compare_fingerprint")
    if memo and memo[0] is file:
        return memo[1]
    h = hashlib.sha256(repr(file.columns).encode())
    h.update(pd.util.hash_pandas_object(file.frame, index=False).to_numpy().tobytes())
    ss["gb_compare_fingerprint"] = (file, h.hexdigest())
    return ss["gb_compare_fingerprint"][1]


@st.cache_resource(max_entries=4, show_spinner=False)
def cached_comparison(key: str, _prepared: Prepared, _config: RunConfig, mapping_json: str,
                      _version_a: str | None, _version_b: str | None, resamples: int, seed: int,
                      _primary: tuple[str, ...] = (), _versions: list[str] | None = None) -> Comparison | str:
    """The comparison, or the one message saying why it cannot be made. ``key`` holds the
    versions (JSON, escaped): they are not hashed as they are, since Streamlit's hash
    encodes them as UTF-8, which a version's lone surrogate ("\\ud800") cannot be."""
    ss = st.session_state
    ss["gb_compare_count"] = ss.get("gb_compare_count", 0) + 1
    try:
        return compare_prepared(_prepared, _config, json.loads(mapping_json), version_a=_version_a,
                                version_b=_version_b, resamples=resamples, seed=seed, workers=WORKERS,
                                start_method=START_METHOD, primary=list(_primary) or None, versions_in_file=_versions)
    except (CompareError, ConfigError, MappingError) as e:
        return str(e)
    except Exception as e:  # never a traceback on screen
        return f"The comparison failed: {type(e).__name__}: {e}"


@st.cache_resource(max_entries=4, show_spinner=False)
def cached_sensitivity(key: str, _prepared: Prepared, _graders: tuple, mapping_json: str,
                       _version_a: str | None, _version_b: str | None, resamples: int, seed: int) -> pd.DataFrame | str:
    """As ``cached_comparison``: the versions are in ``key``."""
    try:
        return sensitivity(_prepared, json.loads(mapping_json), _graders, version_a=_version_a,
                           version_b=_version_b, resamples=resamples, seed=seed, workers=WORKERS,
                           start_method=START_METHOD)
    except (CompareError, ConfigError, MappingError) as e:
        return str(e)
    except Exception as e:
        return f"The sensitivity run failed: {type(e).__name__}: {e}"


@st.cache_resource(max_entries=4, show_spinner=False)
def cached_chart_pairs(key: str, _comparison: Comparison) -> pd.DataFrame:
    """The comparison's paired rows with the scores parsed, for the charts."""
    return charts.chart_pairs(_comparison.pairs)


@dataclass(frozen=True)
class Sides:
    """What is compared: the versions of a long file chosen as A and B (None for a wide
    file), the bootstrap resamples and seed, and whether the file has two sides at all."""

    version_a: str | None
    version_b: str | None
    resamples: int
    seed: int
    two_sides: bool


@dataclass(frozen=True)
class Run:
    """A comparison made, with what it was made of: ``prepared`` (the file's prepared rows,
    as the comparison got them), the configuration, the sides and the cache ``key``
    (file content + configuration + sides + mapping) the sections cache their work by."""

    file: Any
    prepared: Prepared
    config: RunConfig
    sides: Sides
    mapping_json: str
    key: str
    comparison: Comparison


# --------------------------------------------------------------------------- load, map, configure


def columns_section(file) -> dict[str, str | None]:
    """The column mapping, in a collapsed expander."""
    with st.expander("Columns", expanded=False):
        st.caption("A wide file needs *Second model output* (output_b); a long file needs *Version*, and "
                   "*Repeat* when a case was run several times.")
        return loading.mapping_widget(file, PREFIX)


def graders_section(mapping: dict[str, str | None], file: Any) -> RunConfig:
    """Answer extraction and the graders form, starting on the graders that apply to the
    file's data (``graders.explore.suggest``; ``DEFAULT_GRADERS`` holds every one that
    could)."""
    ss = st.session_state
    if w("graders") not in ss:
        ss[w("graders")] = list(suggested_graders(file, mapping))
    extract, _ = extracting.extract_widget(PREFIX, file, mapping)
    config, _problems = graders_form.graders_form(PREFIX, mapping, extract)
    return config


def suggested_graders(file: Any, mapping: dict[str, str | None]) -> tuple[str, ...]:
    """``applicable_graders`` over the file's first rows: its expected answers and its
    first output column."""
    frame = getattr(file, "frame", None)
    output = mapping.get("output")
    if frame is None or not output or output not in frame.columns:
        return DEFAULT_GRADERS
    head = frame.head(SAMPLE)
    expected = mapping.get("expected")
    return applicable_graders(head[expected].tolist() if expected in head.columns else None, head[output].tolist())


def left_out_expander(prepared: Prepared | str) -> None:
    """The left-out report (or the mapping's one error, expanded) in an expander."""
    left_total = 0 if isinstance(prepared, str) else prepared.left_out.total
    with st.expander(f"Rows left out ({left_total:,})" if left_total else "Rows left out",
                     expanded=isinstance(prepared, str)):
        views.left_out_section(prepared)


def sides_section(mapping: dict[str, str | None], prepared: Prepared) -> Sides:
    """Which is A and which is B (a wide file's columns, or a long file's versions to pick),
    and the bootstrap's resamples and seed."""
    ss = st.session_state
    version_a = version_b = None
    if mapping.get("output_b"):
        versions = (f" Each row of every version ({display.code(mapping['version'])}) pairs its two outputs; a case is (id, version)."
                    if mapping.get("version") else "")
        st.markdown(f"Wide file: **A** = column {display.code(mapping['output'])}, **B** = column "
                    f"{display.code(mapping['output_b'])}.{versions} "
                    "To compare versions of a long file instead, set *Second model output* to none under Columns.")
    elif len(prepared.systems) >= 2:
        systems = list(prepared.systems)
        for side, default in (("side_a", systems[0]), ("side_b", systems[1])):
            if ss.get(w(side)) not in systems:
                ss[w(side)] = default
        c1, c2 = st.columns(2)
        version_a = c1.selectbox("A (version)", systems, key=w("side_a"), persist_state=PERSIST, format_func=display.text)
        version_b = c2.selectbox("B (version)", systems, key=w("side_b"), persist_state=PERSIST, format_func=display.text)
    ss.setdefault(w("resamples"), 2000)
    ss.setdefault(w("seed"), 0)
    two_sides = bool(mapping.get("output_b")) or len(prepared.systems) >= 2
    if two_sides:  # a file with one side gets its error below, without settings that cannot apply
        c1, c2 = st.columns(2)
        resamples = int(c1.number_input("Bootstrap resamples", min_value=2000, max_value=50_000, step=1000,
                                        key=w("resamples"), persist_state=PERSIST,
                                        help="Cases are resampled with replacement; with repeats, whole cases."))
        seed = int(c2.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key=w("seed"),
                                   persist_state=PERSIST, help="The same seed gives the same intervals and p-values."))
    else:
        resamples, seed = int(ss[w("resamples")]), int(ss[w("seed")])
    return Sides(version_a, version_b, resamples, seed, two_sides)


def primary_metrics(config: RunConfig) -> tuple[str, ...]:
    """The metrics Holm's adjustment runs over (issue 33, 34): the user's, the first grader
    chosen by default; the others are shown unadjusted and say so. ``gb_w_compare_primary``."""
    names = list(config.grader_names)
    key = w("primary")
    kept = [n for n in st.session_state.get(key, names[:1]) if n in names] or names[:1]
    st.session_state[key] = kept
    chosen = st.multiselect("Primary metrics (Holm's adjustment runs over these; the others are shown unadjusted)",
                            names, key=key, format_func=lambda n: REGISTRY[n].label)
    return tuple(chosen or names[:1])


def comparison_for(file, prepared: Prepared, config: RunConfig, mapping: dict[str, str | None],
                   sides: Sides) -> Run | None:
    """The comparison (cached), or None once its one error is on screen."""
    mapping_json = json.dumps(mapping)  # in role order, as the summary's config writes it (SPEC §7)
    primary = primary_metrics(config) if config.graders else ()
    base_key = json.dumps([file_key(file), config.to_dict(), sides.version_a, sides.version_b, sides.resamples,
                           sides.seed, primary], sort_keys=True, default=str)
    with st.spinner("Scoring both sides and resampling…"):
        comparison = cached_comparison(base_key + mapping_json, prepared, config, mapping_json,
                                       sides.version_a, sides.version_b, sides.resamples, sides.seed,
                                       primary, file_versions(file, mapping))
    if isinstance(comparison, str):
        st.error(display.inert(comparison[:1].upper() + comparison[1:] + ("" if comparison.endswith((".", ")")) else ".")))
        if not sides.two_sides:  # the file's shape is the trouble
            st.caption("A comparison needs a wide file (output and output_b columns) or a long file with a version "
                       "column and two versions; the A/B samples above show both.")
        return None
    return Run(file, prepared, config, sides, mapping_json, base_key + mapping_json, comparison)


# --------------------------------------------------------------------------- the metric table


def metrics_section(comparison: Comparison) -> None:
    """What A and B are, the repeats and unpaired rows, the metric table and one sentence per metric."""
    a, b = comparison.label_a, comparison.label_b
    paired = comparison.unpaired["pairs"]
    st.markdown(f"**A** = {display.code(a)}, **B** = {display.code(b)} ({comparison.source} file) · {paired:,} {'pair' if paired == 1 else 'pairs'} · "
                f"{comparison.resamples:,} bootstrap resamples, seed {comparison.seed}.")
    if any(m.stats.clustered for m in comparison.metrics.values()):
        st.info("Repeats found: the intervals and p-values of the differences resample whole cases with all "
                "their repeats (a cluster bootstrap and a cluster sign-flip test), so repeats do not pass for extra "
                "cases. The pass-rate intervals (Wilson's) count each repeat as a row of its own: with repeats of one "
                "case agreeing, they are narrower than the cases support.")
    for side, who in (("a_only", a), ("b_only", b)):
        u = comparison.unpaired[side]
        if u["count"]:
            more = f" (first {len(u['keys'])})" if u["count"] > len(u["keys"]) else ""
            rows_ = "row" if u["count"] == 1 else "rows"
            other = b if side == "a_only" else a
            st.warning(f"{u['count']:,} {rows_} only in {display.md(who)} (none in {display.md(other)} to pair with, "
                       f"or that one was left out), left out of every figure{more}: "
                       + ", ".join(display.md(k) for k in u["keys"]))

    table = metric_table(comparison)
    counts = pass_counts(comparison)
    shown = table.copy()
    for column, side in (("A passes", 0), ("B passes", 1)):  # the count; its link is below, in this session
        shown[column] = [str(counts[name][side]) if name in counts else "" for name in comparison.metrics]
    link_help = "Passes of the paired n; the links below the table open the pass-rate page with it filled in."
    st.dataframe(
        # a metric with no pairs has no means and no p: a dash, not "None"
        display.frame(display.numbers_as_text(shown, {"Mean A": "{:.3f}", "Mean B": "{:.3f}", "A − B": "{:+.3f}",
                                                      "p": "{:.3g}", "Holm p": "{:.3g}"}))
        .style.map(reading_css, subset=["Reading"]),
        hide_index=True, width="stretch",
        column_config={
            "A passes": st.column_config.TextColumn(help=link_help),
            "B passes": st.column_config.TextColumn(help=link_help),
            "b / c": st.column_config.TextColumn(help="McNemar's discordant pairs: b = A passes and B fails, "
                                                      "c = A fails and B passes."),
            "Holm p": st.column_config.TextColumn(help="Holm-adjusted across the metrics in this table."),
            "Reading": st.column_config.TextColumn(
                width="medium", help="A better / B better: Holm p < 0.05 and the interval excludes 0. "
                                     "noise?: A and B differ on some cases, but not beyond noise."),
            "Pass rate A (95% CI)": st.column_config.TextColumn(width="medium"),
            "Pass rate B (95% CI)": st.column_config.TextColumn(width="medium"),
            "In words": st.column_config.TextColumn(width="large"),
        },
    )
    st.markdown(metric_lines(comparison, table["Reading"]))
    for name, (ka, kb, n) in counts.items():  # the pass-rate page in this tab and session (issue 33, 6)
        for side, k in ((comparison.label_a, ka), (comparison.label_b, kb)):
            label = pass_rate_label(comparison, name, side)
            views.rate_link(f"{metric_label(name)} · {side}: {k:,} of {n:,} pass", pass_rate_query(k, n, label=label))
    left = comparison.prepared.left_out
    if left.total:
        # a warning when a tenth of the outputs or more never reached the figures (a repeat
        # column mapped to none turns repeats into duplicate keys)
        share = left.outputs / max(1, left.outputs + len(comparison.prepared.rows))
        (st.warning if share >= 0.1 else st.caption)(
            f"{left.total:,} {'row' if left.total == 1 else 'rows'} of the file "
            f"{'was' if left.total == 1 else 'were'} left out before pairing ({share:.0%} of the outputs; "
            f"see Rows left out above).")


# --------------------------------------------------------------------------- charts


def drawable(comparison: Comparison) -> tuple[dict[str, str], list[str]]:
    """({metric: label}, the metrics with pairs: the ones a chart or a review can show)."""
    labels = {name: metric_label(name) for name in comparison.metrics}
    return labels, [name for name, m in comparison.metrics.items() if m.stats.n]


def charts_section(run: Run) -> None:
    """Wins, losses and ties per metric; for the metric picked, A against B and the per-case A − B."""
    ss = st.session_state
    comparison = run.comparison
    a, b = comparison.label_a, comparison.label_b
    labels, metrics = drawable(comparison)
    plotted = cached_chart_pairs(run.key, comparison)
    st.altair_chart(charts.outcome_chart(plotted, a, b, graders=metrics, labels=labels), width="stretch")
    if metrics:
        if ss.get(w("chart_metric")) not in metrics:
            ss[w("chart_metric")] = metrics[0]
        metric = st.selectbox("Metric", metrics, key=w("chart_metric"), persist_state=PERSIST, format_func=labels.get)
        c1, c2 = st.columns(2)
        c1.altair_chart(charts.scatter_chart(plotted, metric, a, b, title=f"{labels[metric]}: A against B"))
        c2.altair_chart(charts.difference_chart(plotted, metric, title=f"{labels[metric]}: per-case A − B"))


# --------------------------------------------------------------------------- grader sensitivity


def sensitivity_section(run: Run) -> None:
    """The difference under each grader of the standard ladder (or the graders selected),
    and whether the verdict depends on the grader."""
    ss = st.session_state
    comparison, sides = run.comparison, run.sides
    ss.setdefault(w("ladder"), "ladder" if len(comparison.prepared.rows) <= LADDER_AUTO_ROWS else "selected")
    ladder_words = " → ".join(metric_label(n) for n in LADDER)
    choice = st.radio(
        "Graders", ["ladder", "selected"], key=w("ladder"), persist_state=PERSIST, horizontal=True,
        format_func={"ladder": f"Standard ladder ({ladder_words}, last number within 1%)",
                     "selected": "The graders selected above"}.get,
    )
    if choice == "ladder" and len(comparison.prepared.rows) > LADDER_AUTO_ROWS:
        st.caption(f"The ladder scores all {len(comparison.prepared.rows):,} rows again under five graders.")
    if choice == "ladder":
        with st.spinner("Comparing under each grader of the ladder…"):
            # the file's prepared rows, as the comparison got them (comparison.prepared is already
            # paired up: a wide file's versions would be read as outputs a second time)
            ladder = cached_sensitivity(run.key + "|ladder", run.prepared, default_ladder(), run.mapping_json,
                                        sides.version_a, sides.version_b, sides.resamples, sides.seed)
    else:
        ladder = metric_frame(comparison, ladder_order(list(run.config.grader_names)),
                              {g.name: g for g in run.config.graders})
    if isinstance(ladder, str):
        st.error(display.inert(ladder))
        return
    sentence = grader_dependence(ladder)
    (st.warning if sentence.startswith("The verdict") else st.info)(sentence)
    st.altair_chart(charts.sensitivity_chart(ladder), width="stretch")
    shown = ladder.assign(ci=[f"{lo:+.3f} to {hi:+.3f}" if pd.notna(lo) else "" for lo, hi in
                              zip(ladder["ci_low"], ladder["ci_high"])])
    st.dataframe(
        # a grader with no pairs has no means: a dash, not "None"
        display.numbers_as_text(
            shown.loc[:, ["label", "n", "mean_a", "mean_b", "mean_diff", "ci", "p_holm", "reading"]]
            .rename(columns={"label": "Grader", "n": "Paired n", "mean_a": "Mean A", "mean_b": "Mean B",
                             "mean_diff": "A − B", "ci": "95% CI", "p_holm": "Holm p", "reading": "Reading"}),
            {"Mean A": "{:.3f}", "Mean B": "{:.3f}", "A − B": "{:+.3f}", "Holm p": "{:.3g}"})
        .style.map(reading_css, subset=["Reading"]),
        hide_index=True, width="stretch",
    )
    st.caption("Holm's adjustment runs across the graders of this view, not the metrics above, so a reading "
               "here can differ from the Metrics table's. The ladder goes from strict to lenient: a difference "
               "that holds only under exact match is about formatting, not content.")


# --------------------------------------------------------------------------- rows to review


def review_section(comparison: Comparison) -> None:
    """The rows of one kind of disagreement on one metric; the row selected (else the
    first) in detail: both outputs beside the expected, and every grade."""
    labels, metrics = drawable(comparison)
    if not metrics:
        return
    ss = st.session_state
    a, b = comparison.label_a, comparison.label_b
    ss.setdefault(w("review_kind"), "a_passes_b_fails")
    if ss.get(w("review_metric")) not in metrics:
        ss[w("review_metric")] = metrics[0]
    c1, c2 = st.columns(2)
    kind = c1.selectbox("Show", list(REVIEWS), key=w("review_kind"), persist_state=PERSIST,
                        format_func=REVIEW_LABELS.get)
    rmetric = c2.selectbox("On", metrics, key=w("review_metric"), persist_state=PERSIST, format_func=labels.get)
    keep_selection_if_listed("gb_compare_review_table", (id(comparison), kind, rmetric))
    rows, total = review_rows(comparison, kind, rmetric, limit=REVIEW_ROWS)
    note = review_note(comparison, kind, rmetric)
    if note:
        st.info(note)
        return
    if total == 0:
        st.info(f"No rows to show on {labels[rmetric]}: “{REVIEW_LABELS[kind]}” matches none.")
        return
    more = f"; the first {len(rows):,} are shown" if total > len(rows) else ""
    st.caption(f"{total:,} {'row' if total == 1 else 'rows'}{more}. "
               "Select a row to see both outputs beside the expected (the first is shown until then).")
    shown = rows.drop(columns=["record_a", "record_b"]).assign(grader=lambda f: f["grader"].map(labels))
    shown = shown if shown["repeat"].astype(bool).any() else shown.drop(columns="repeat")
    event = st.dataframe(
        display.frame(shown.rename(columns={"output_a": f"A: {a}", "output_b": f"B: {b}"})),
        hide_index=True, on_select="rerun", selection_mode="single-row", key="gb_compare_review_table",
        width="stretch",
    )
    picked = list(event.selection.rows) if event is not None and hasattr(event, "selection") else []
    row = rows.iloc[picked[0] if picked and picked[0] < len(rows) else 0]
    d = pair_detail(comparison, row["record_a"], row["record_b"])
    st.markdown(f"#### Case {display.md(row['item'])}"
                + (f" · {display.md(row['version'])}" if "version" in row else "")
                + (f" · repeat {display.md(row['repeat'])}" if row["repeat"] else ""))
    if d["input"]:
        st.caption(f"Input: {display.md(d['input'], breaks=' ')}")
    row_detail(d["refs"] or d["expected"], {f"A: {k}" if k == a else f"B: {k}": v for k, v in d["outputs"].items()},
               d["grades"])


# --------------------------------------------------------------------------- downloads


def comparison_csv(comparison: Comparison) -> bytes:
    """The comparison CSV ``gradeboard compare --out`` writes."""
    buf = io.StringIO()
    write_comparison(comparison, buf)
    return buf.getvalue().encode("utf-8", errors="backslashreplace")


def primaries(run: Run) -> str:
    """``--primary NAME`` for each primary metric the page's comparison adjusted over."""
    family = run.comparison.summary().get("holm", {}).get("family") or []
    return "".join(f" --primary {name}" for name in family)


def downloads_section(run: Run) -> None:
    """Comparison CSV, summary JSON and the configuration, with the command that reproduces
    them. The CSV and JSON are built when their button is clicked."""
    comparison, sides = run.comparison, run.sides
    c1, c2, c3 = st.columns(3)
    c1.download_button("Comparison CSV", data=lambda: comparison_csv(comparison), file_name="comparison.csv",
                       mime="text/csv", on_click="ignore", key="gb_dl_compare_csv")
    c2.download_button("Summary JSON", data=lambda: summary_text(comparison.summary()).encode("utf-8", "backslashreplace"),
                       file_name="comparison.summary.json", mime="application/json", on_click="ignore",
                       key="gb_dl_compare_summary")
    c3.download_button("Export configuration", data=run.config.to_json(), file_name="gradeboard.config.json",
                       mime="application/json", on_click="ignore", key="gb_dl_compare_config")
    c1.download_button("Comparison CSV, spreadsheet-safe", data=lambda: spreadsheet_safe_bytes(comparison_csv(comparison)),
                       file_name="comparison.spreadsheet.csv", mime="text/csv", on_click="ignore",
                       key="gb_dl_compare_csv_safe",
                       help="For opening in Excel or Sheets: a cell that starts with = + - @, a tab or a CR gets a ' "
                            "in front (a plain number, such as a difference, is left as it is). The comparison CSV "
                            "beside it is exact, cell for cell (gradeboard compare --spreadsheet-safe writes this one).")
    # --a=NAME: a version named "-base" would read as a flag after a space
    versions = (f" --a={shlex.quote(display.text(sides.version_a))} --b={shlex.quote(display.text(sides.version_b))}"
                if sides.version_a is not None else "")
    command = (f"gradeboard compare FILE{loading.read_flags(run.file)} --config gradeboard.config.json{versions}"
               f"{primaries(run)} --resamples {sides.resamples} --seed {sides.seed} "
               "--out comparison.csv --summary comparison.summary.json")
    # a code span as long as the command needs: a version's own backtick cannot end it
    st.caption(f"The configuration reproduces this comparison: {display.code(command)}.")
