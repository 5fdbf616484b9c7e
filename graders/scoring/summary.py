"""The run summary (SPEC §7): counts per scorer, pass rates with Wilson 95% intervals,
corpus beside mean-sentence BLEU and chrF, the left-out report and unknown assertions.

Counts are over scored rows: ``graded`` is every row the scorer produced; ``passed`` +
``failed`` are the decided rows the pass rate is taken over; ``scored`` counts continuous
scores without a threshold; ``mean_score`` is over rows that have a score. A grader run
with ``extract`` (SPEC §9), or a scorer with a row where nothing was extracted, also has
``no_answer``: its rows where the extractor found no answer (near miss ``no_answer``),
which ``failed`` and ``near_misses`` count too; ``failed - no_answer`` are wrong answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from graders.result import STATUSES
from graders.stats.binary import clustered_pass_rate
from graders.stats.intervals import wilson_interval
from graders.stats.sums import score_total, total_mean
from graders.text.show import quoted_name


def summary_text(summary: Mapping[str, Any]) -> str:
    """A summary as the ``--summary`` file holds it (and the dashboard's download): indented
    JSON, non-ASCII as written, no NaN, a final line break. A lone surrogate (a JSON cell's
    "\\ud800") can only sit inside a JSON string, where the file's backslashreplace writes it
    as the JSON escape it came from."""
    return json.dumps(summary, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def score_values(scores: pd.Series) -> pd.Series:
    """The score cells as floats (NaN where empty): each distinct cell parsed once."""
    codes, distinct = pd.factorize(scores.to_numpy(dtype=object))
    values = pd.to_numeric(pd.Series(distinct, dtype=object).where(lambda v: v != ""), errors="coerce").to_numpy(float)
    out = np.append(values, np.nan)[codes]  # code -1 (a missing cell) takes the NaN at the end
    return pd.Series(out, index=scores.index)


NO_ANSWER = "no_answer"  # the near-miss code of a row where extraction found nothing


def is_no_answer(codes: Sequence[str] | None) -> bool:
    """Whether a row's near-miss codes say its extractor found no answer."""
    return bool(codes) and codes[0] == NO_ANSWER


def scorer_stats(statuses: pd.Series, scores: pd.Series, near: pd.Series) -> dict[str, Any]:
    """One scorer's counts, mean score and pass rate (Wilson 95%) over its scored rows."""
    codes, names = factorized(statuses.to_numpy(dtype=object))
    return _stats(codes, names, score_values(scores).to_numpy(), near.to_numpy(dtype=object) != "")


def _stats(status_codes: np.ndarray, status_names: Sequence[str], values: np.ndarray, near: np.ndarray,
           no_answer: np.ndarray | None = None) -> dict[str, Any]:
    """``scorer_stats`` over arrays: the statuses as codes into ``status_names``, the
    parsed scores, near miss or not; ``no_answer`` (no answer extracted or not): counted
    under ``no_answer``, after ``failed``, when given."""
    counted = np.bincount(status_codes[status_codes >= 0], minlength=len(status_names))
    counts = dict(zip(status_names, counted.tolist()))
    return stats_of_counts(int(len(status_codes)), counts, int(near.sum()),
                           None if no_answer is None else int(no_answer.sum()), score_total(values))


def stats_of_counts(graded: int, counts: Mapping[str, int], near: int, no_answer: int | None,
                    total: tuple[int | float, int]) -> dict[str, Any]:
    """``_stats`` from what adds up over parts of the rows (``graders.distributed`` adds
    them): the scored rows, the rows per status name, the near misses, the rows with no
    answer (None: not counted), and ``stats.sums.score_total`` of the scores."""
    passed, failed = int(counts.get("pass", 0)), int(counts.get("fail", 0))
    decided = passed + failed
    lo, hi = wilson_interval(passed, decided) if decided else (None, None)
    return {
        "graded": graded,
        "passed": passed,
        "failed": failed,
        **({} if no_answer is None else {NO_ANSWER: no_answer}),
        "not_judged": int(counts.get("not_judged", 0)),
        "errors": int(counts.get("error", 0)),
        "scored": int(counts.get("scored", 0)),
        "near_misses": near,
        "mean_score": total_mean(total),
        "pass_rate": None if not decided else passed / decided,
        "pass_rate_ci95": None if not decided else [lo, hi],
    }


def factorized(values: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """(codes, names): each value's code into the distinct values in order of first
    appearance (-1 for None or NaN), as 16-bit codes when they fit (``positions_by_code``)."""
    codes, names = pd.factorize(values)
    return _narrow(codes, len(names)), names.tolist()


def _narrow(codes: np.ndarray, n_names: int) -> np.ndarray:
    # numpy sorts 16-bit keys stably by radix: ten times faster than wider ones
    return codes.astype(np.int16) if n_names < 1 << 15 else codes


def positions_by_code(codes: np.ndarray, names: Sequence[Any], within: np.ndarray | None = None) -> dict[Any, np.ndarray]:
    """Each name's row positions (those of its code, -1 standing for none), in row order;
    the names in order of first appearance among the rows (``within``: those rows only)."""
    at = np.arange(len(codes)) if within is None else within
    mine = codes[at]
    order = np.argsort(mine, kind="stable")
    present, starts = np.unique(mine[order], return_index=True)
    bounds = np.append(starts, len(order))
    groups = [(order[starts[k]], names[code], at[order[bounds[k]:bounds[k + 1]]])
              for k, code in enumerate(present.tolist()) if code >= 0]
    return {name: where for _, name, where in sorted(groups, key=lambda g: g[0])}


def positions_by_value(values: np.ndarray, within: np.ndarray | None = None) -> dict[Any, np.ndarray]:
    """Each distinct value (in order of first appearance) and its row positions, in row
    order: what ``groupby(sort=False)`` gives, without moving the frame's columns."""
    at = np.arange(len(values)) if within is None else within
    codes, names = factorized(values[at])
    return {name: at[where] for name, where in positions_by_code(codes, names).items()}


# Per (scorer, system): (rows, their statistics summed, or None when a row's were missing).
CorpusStatistics = dict[tuple[str, Any], tuple[int, "list[int] | None"]]


def _object_array(names: Sequence[Any]) -> np.ndarray:
    return np.fromiter(names, dtype=object, count=len(names))


@dataclass(frozen=True)
class Tally:
    """What the summary reads of scored rows that were written out instead of kept
    (``batch.score_to_csv``). Per scored row, in the scored frame's order: its scorer and
    system as codes into ``scorer_names`` and ``system_names``, its status as a code into
    ``result.STATUSES``, ``values`` (the score, NaN where its cell is empty) and ``near``
    (a near miss or not); ``scorer``, ``system`` and ``status`` spell them out.
    ``unknown_assertions``: the assertion kinds no grader knows, with their counts.
    ``statistics``: BLEU's and chrF's corpus statistics summed per (scorer, system)."""

    scorer_codes: np.ndarray
    scorer_names: tuple[str, ...]
    system_codes: np.ndarray
    system_names: tuple[Any, ...]
    status_codes: np.ndarray
    values: np.ndarray
    near: np.ndarray
    unknown_assertions: dict[str, int] = field(default_factory=dict)
    statistics: CorpusStatistics = field(default_factory=dict)
    no_answer: np.ndarray | None = None  # per scored row: no answer extracted (None: no row extracted)
    positions: np.ndarray | None = None  # per scored row: its row in the prepared rows

    def __len__(self) -> int:
        return len(self.scorer_codes)

    @property
    def scorer(self) -> np.ndarray:
        return _object_array(self.scorer_names)[self.scorer_codes]

    @property
    def system(self) -> np.ndarray:
        return _object_array(self.system_names)[self.system_codes]

    @property
    def status(self) -> np.ndarray:
        return _object_array(STATUSES)[self.status_codes]


class _Columns:
    """The scored rows' cells the summary reads, as arrays, each made once: from a scored
    frame, or a ``Tally``. The scorers, systems and statuses are codes into their names
    (``factorized``), which the rows are grouped and counted by."""

    def __init__(self, scored: "pd.DataFrame | Tally", extracting: Sequence[str] | None = ()) -> None:
        if isinstance(scored, Tally):
            self.scorer_codes, self.scorer_names = scored.scorer_codes, list(scored.scorer_names)
            self.system_codes = _narrow(scored.system_codes, len(scored.system_names))
            self.system_names = list(scored.system_names)
            self.status_codes, self.status_names = scored.status_codes, list(STATUSES)
            self.values, self.near = scored.values, scored.near
            self.no_answer = scored.no_answer
        else:
            self.scorer_codes, self.scorer_names = factorized(scored["scorer"].to_numpy(dtype=object))
            self.system_codes, self.system_names = factorized(scored["system"].to_numpy(dtype=object))
            self.status_codes, self.status_names = factorized(scored["status"].to_numpy(dtype=object))
            self.values = score_values(scored["score"]).to_numpy()
            cells = scored["near_miss"].to_numpy(dtype=object)
            self.near = cells != ""
            # the near-miss cells that start with the code: each distinct cell looked at once
            at = np.flatnonzero(self.near)
            codes, distinct = pd.factorize(cells[at])
            starts = np.array([str(c).split(";", 1)[0] == NO_ANSWER for c in distinct], dtype=np.bool_)
            hits = at[starts[codes]] if len(distinct) else at
            if extracting is None:  # not told: the graders whose metadata names an extractor
                extracting = self._extracting(scored)
            self.no_answer = None
            if len(hits) or extracting:
                self.no_answer = np.zeros(len(cells), dtype=np.bool_)
                self.no_answer[hits] = True
        # scorers whose stats count ``no_answer``: those run with extract, and any with such a row
        self.extracting = set(extracting or ())
        if self.no_answer is not None and self.no_answer.any():
            self.extracting.update(self.scorer_names[c] for c in np.unique(self.scorer_codes[self.no_answer]).tolist())
        self._scorers: dict[Any, np.ndarray] | None = None

    def _extracting(self, scored: pd.DataFrame) -> list[str]:
        """The graders of a scored frame run with ``extract``: their first row's metadata says so."""
        if "metadata" not in scored.columns or not len(scored):
            return []
        codes, first = np.unique(self.scorer_codes, return_index=True)
        meta = scored["metadata"].to_numpy(dtype=object)
        out = []
        for code, at in zip(codes.tolist(), first.tolist()):
            name, cell = self.scorer_names[code], meta[at]
            if code < 0 or str(name).startswith("assert:") or not isinstance(cell, str) or '"extract"' not in cell:
                continue
            try:
                if json.loads(cell).get("extract") is not None:
                    out.append(name)
            except (ValueError, AttributeError):
                continue
        return out

    @property
    def scorers(self) -> dict[Any, np.ndarray]:
        """Each scorer's row positions over the whole frame (``positions_by_code``), found once."""
        if self._scorers is None:
            self._scorers = positions_by_code(self.scorer_codes, self.scorer_names)
        return self._scorers

    def systems(self) -> dict[Any, np.ndarray]:
        """Each system's row positions."""
        return positions_by_code(self.system_codes, self.system_names)

    def of_system(self, at: np.ndarray, system: Any) -> np.ndarray:
        """The positions among ``at`` whose system is ``system``."""
        code = self.system_names.index(system) if system in self.system_names else -2
        return at[self.system_codes[at] == code]

    def by_scorer(self, within: np.ndarray | None = None, cases: np.ndarray | None = None) -> dict[str, dict[str, Any]]:
        """Each scorer's figures over the rows ``within`` (None: all); with ``cases``
        (``repeat_cases``), the pass rates clustered by case (``clustered_rates``)."""
        groups = self.scorers if within is None else positions_by_code(self.scorer_codes, self.scorer_names, within)
        out = {
            str(name): _stats(self.status_codes[at], self.status_names, self.values[at], self.near[at],
                              self._no_answer(name, at))
            for name, at in groups.items()
        }
        if cases is not None:
            clustered_rates(out, groups, self, cases)
        return out

    def _no_answer(self, name: Any, at: np.ndarray) -> np.ndarray | None:
        """The scorer's no-answer flags at ``at``, or None when it does not count them."""
        if name not in self.extracting:
            return None
        return self.no_answer[at] if self.no_answer is not None else np.zeros(len(at), dtype=np.bool_)


def statistic_sums(name: str, details: Sequence[Any]) -> list[int] | None:
    """BLEU's or chrF's sentence statistics in these rows' details summed (the integers
    ``corpus_bleu`` / ``corpus_chrf`` sum), or None when a row's are missing, ragged or
    beyond 64 bits."""
    try:
        if name == "bleu":
            rows = [[d["hyp_len"], d["ref_len"], *d["correct"], *d["total"]] for d in details]
        else:
            rows = [d["stats"] for d in details]
        table = np.array(rows, dtype=np.int64)
    except (KeyError, TypeError, ValueError, OverflowError):  # a row without them, or ragged
        return None
    if table.ndim != 2 or len(table) != len(details):
        return None
    return table.sum(axis=0).tolist()


def add_statistics(total: CorpusStatistics, part: CorpusStatistics) -> None:
    """Add one chunk's ``CorpusStatistics`` into ``total`` (a None stays None)."""
    for key, (rows, sums) in part.items():
        if key not in total:
            total[key] = (rows, sums)
            continue
        have_rows, have = total[key]
        total[key] = (have_rows + rows, None if have is None or sums is None else [a + b for a, b in zip(have, sums)])


def _summed_statistics(name: str, details: np.ndarray, n: int) -> list[int] | None:
    """``statistic_sums`` of one system's ``n`` rows, or None when some rows have none."""
    if not n or len(details) != n:
        return None
    return statistic_sums(name, details)


def corpus_figures(rows: pd.DataFrame, graders: tuple[str, ...], scored: "pd.DataFrame | Tally",
                   columns: _Columns | None = None,
                   statistics: CorpusStatistics | None = None) -> dict[str, dict[str, Any]]:
    """Per system: corpus BLEU / chrF beside the mean of the sentence scores; the corpus
    figure from the rows' statistics (``statistics`` when given, else a ``Tally``'s, else
    the scored frame's details), from a second pass over the corpus where some are missing."""
    from graders.metrics.bleu import compute_bleu, corpus_bleu
    from graders.metrics.chrf import compute_chrf, corpus_chrf

    out: dict[str, dict[str, Any]] = {}
    if "bleu" not in graders and "chrf" not in graders:
        return out
    cols = columns if columns is not None else _Columns(scored)
    if isinstance(scored, Tally) and statistics is None:
        statistics = scored.statistics
    details = None if isinstance(scored, Tally) or "details" not in scored.columns else scored["details"].to_numpy(dtype=object)
    mine_at = {key: at for key, at in cols.scorers.items() if key in ("bleu", "chrf")}
    # positions_by_value, not groupby: pandas would put the systems into its string
    # dtype, which cannot hold a lone surrogate (a JSON version "\ud800")
    for system, where in positions_by_value(rows["system"].to_numpy(dtype=object)).items():
        part = rows.iloc[where]
        figures: dict[str, Any] = {}
        n = len(part)
        for name, corpus in (("bleu", corpus_bleu), ("chrf", corpus_chrf)):
            if name not in graders:
                continue
            at = mine_at.get(name, np.empty(0, dtype=int))
            at = cols.of_system(at, system)
            sentence = cols.values[at]
            if statistics is not None:
                counted, summed = statistics.get((name, system), (0, None))
                summed = summed if counted == n and n else None
            else:
                summed = None if details is None else _summed_statistics(name, details[at], n)
            if summed is not None:
                value = compute_bleu(summed, effective_order=False).score if name == "bleu" else compute_chrf(summed).score
            else:
                value = corpus(list(part["output"]), [list(r) for r in part["refs"]]) if n else None
            figures[name] = {
                "corpus": value,
                "mean_sentence": total_mean(score_total(sentence)),
                "rows": int(n),
            }
        if figures:
            out[str(system)] = figures
    return out


def unknown_assertion_kinds(scored: pd.DataFrame, scorers: Sequence[Any] | None = None) -> dict[str, int]:
    """Assertion kinds the rows asked for that no grader knows, with their counts.
    ``scorers``: the frame's distinct scorer names, when known already."""
    names = scored["scorer"].unique() if scorers is None else scorers
    if not any(str(s).startswith("assert:") for s in names):
        return {}
    asserts = scored[scored["scorer"].str.startswith("assert:") & (scored["status"] == "error")]
    counts: dict[str, int] = {}
    for meta in asserts["metadata"]:
        m = json.loads(meta)
        if m.get("unsupported"):
            counts[m["kind"]] = counts.get(m["kind"], 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def summarize(
    scored: "pd.DataFrame | Tally",
    rows: pd.DataFrame,
    *,
    graders: tuple[str, ...],
    left_out: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    statistics: CorpusStatistics | None = None,
) -> dict[str, Any]:
    """The run's summary (SPEC §7): counts per grader, overall and per system, the corpus
    figures, the left-out report and unknown assertion kinds. ``statistics``: BLEU's and
    chrF's corpus statistics summed per (scorer, system), as ``batch.score_frame`` fills
    them (used instead of ``scored``'s details). ``scored``: the scored frame, or the
    ``Tally`` of ``batch.score_to_csv`` (which holds its statistics)."""
    cols = _Columns(scored, None if config is None else extracting_graders(config))
    cases = repeat_cases(scored, rows, cols)  # with repeats: pass rates clustered by case (issue 34)
    overall = cols.by_scorer(cases=cases)
    by_system = cols.systems()
    if len(by_system) == 1:  # one system: its figures are the overall ones
        systems = {str(name): {k: dict(v) for k, v in overall.items()} for name in by_system}
    else:
        systems = {str(name): cols.by_scorer(at, cases) for name, at in by_system.items()}
    return {
        "cases": int(len(rows)),
        "graders": overall,
        "systems": systems,
        "corpus": corpus_figures(rows, graders, scored, cols, statistics),
        "left_out": dict(left_out or {}),
        "unknown_assertions": (dict(scored.unknown_assertions) if isinstance(scored, Tally)
                               else unknown_assertion_kinds(scored, list(cols.scorers))),
        "config": dict(config or {}),
    }


def repeat_cases(scored: "pd.DataFrame | Tally", rows: pd.DataFrame, cols: _Columns,
                 positions: np.ndarray | None = None) -> np.ndarray | None:
    """Each scored row's case, a code of its (system, item), when some case repeats among
    ``rows``; else None. ``positions``: each scored row's position in ``rows``, when known.
    A ``Tally`` holds no items: each row's scored rows follow one another, its first
    scorer's first, so a running count of that scorer finds the row (checked against the
    systems; None when it does not hold)."""
    from graders.scoring.rows import group_codes

    if not len(rows) or not (rows["repeat"].to_numpy(dtype=object) != "").any():
        return None
    row_cases = group_codes([rows["system"].to_numpy(dtype=object), rows["item"].to_numpy(dtype=object)])
    if int(row_cases.max()) + 1 == len(rows):  # every case once
        return None
    if positions is not None:
        return row_cases[positions]
    if not isinstance(scored, Tally):
        return group_codes([scored["system"].to_numpy(dtype=object), scored["item"].to_numpy(dtype=object)])
    if not len(cols.scorer_codes):
        return None
    at = np.cumsum(cols.scorer_codes == cols.scorer_codes[0]) - 1
    row_systems, _ = factorized(rows["system"].to_numpy(dtype=object))
    if at[-1] != len(rows) - 1 or not np.array_equal(row_systems[at], cols.system_codes):
        return None
    return row_cases[at]


def clustered_rates(figures: dict[str, dict[str, Any]], groups: Mapping[Any, np.ndarray], cols: _Columns,
                    cases: np.ndarray) -> None:
    """Each scorer's pass-rate interval in ``figures`` clustered by case where its decided
    rows (``groups``' positions) repeat a case: Wilson at n / design effect
    (``stats.binary.clustered_pass_rate``), with the design effect and ICC beside it."""
    codes = {name: cols.status_names.index(name) if name in cols.status_names else -2 for name in ("pass", "fail")}
    for name, at in groups.items():
        st = figures.get(str(name))
        status = cols.status_codes[at]
        decided = at[(status == codes["pass"]) | (status == codes["fail"])]
        if st is None or not len(decided) or len(np.unique(cases[decided])) == len(decided):
            continue
        clustered_rate(st, cols.status_codes[decided] == codes["pass"], cases[decided])


def clustered_rate(st: dict[str, Any], passed: np.ndarray, cases: np.ndarray) -> None:
    """One scorer's figures given its decided rows' verdicts and cases (some repeating):
    the pass rate's interval clustered by case, with the design effect and ICC beside it."""
    rate = clustered_pass_rate(passed, cases)
    d = rate.design
    st["pass_rate_ci95"] = [rate.low, rate.high]
    st["pass_rate_clustered"] = {"cases": d.cases, "design_effect": d.design_effect, "icc": d.icc,
                                 "design_effect_used": d.used, "effective_cases": d.rows / d.divisor,
                                 "method": rate.method}


def extracting_graders(config: Mapping[str, Any] | None) -> list[str]:
    """The graders a configuration's JSON form runs with ``extract`` set."""
    graders = (config or {}).get("graders") or []
    return [g["name"] for g in graders if isinstance(g, Mapping) and g.get("extract") is not None and "name" in g]


# --- What the command line reports, and its gates ------------------------------------


def report_text(summary: Mapping[str, Any]) -> str:
    """The report ``gradeboard score`` prints: rows scored and left out, each system's
    figures per grader, the left-out reasons and the assertion kinds not run."""
    from graders.scoring.rows import report_lines

    lines = []
    lo = summary["left_out"]
    n = summary["cases"]
    # With several systems each row of the file gives several outputs; rows left out are the file's.
    what = "row" if len(summary["systems"]) <= 1 else "output"
    left = lo.get("total", 0)
    lines.append(f"{n} {what}{'' if n == 1 else 's'} scored"
                 + (f", {left} {'row' if left == 1 else 'rows'} left out" if left else ""))
    if not summary.get("config", {}).get("columns", {}).get("id"):
        lines.append("no column is mapped to id: each row's id is its row number "
                     "(map one with the configuration's columns)")
    for system, per in summary["systems"].items():
        lines.append(f"[{system}]")
        lines += _scorer_lines(per)
    lines += report_lines(lo)
    if summary.get("unknown_assertions"):
        kinds = ", ".join(f"{k} ×{v}" for k, v in summary["unknown_assertions"].items())
        lines.append(f"assertion kinds not run: {kinds}")
    if summary.get("harness_agreement"):
        from graders.scoring.agreement import agreement_lines

        lines += agreement_lines(summary["harness_agreement"])
    if summary.get("by"):
        lines += slice_lines(summary["by"])
    return "\n".join(lines) + "\n"


def _scorer_lines(per: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One report line per grader (assertions left out): its counts, mean and pass rate."""
    lines = []
    for scorer, st in per.items():
        if scorer.startswith("assert:"):
            continue
        rate = "" if st["pass_rate"] is None else (
            f" pass rate {st['pass_rate']:.3f} [{st['pass_rate_ci95'][0]:.3f}, {st['pass_rate_ci95'][1]:.3f}]"
            + ("" if "pass_rate_clustered" not in st else
               f" (clustered by case: {st['pass_rate_clustered']['cases']} cases, "
               f"design effect {st['pass_rate_clustered']['design_effect_used']:.2f}, "
               f"as {st['pass_rate_clustered']['effective_cases']:.1f} independent cases)"))
        mean = "" if st["mean_score"] is None else f" mean {st['mean_score']:.4f}"
        no_answer = "" if "no_answer" not in st else f" (no answer {st['no_answer']})"
        lines.append(f"  {scorer:<12} passed {st['passed']:>6} failed {st['failed']:>6}{no_answer} not judged "
                     f"{st['not_judged']:>5} errors {st['errors']:>5} near misses {st['near_misses']:>5}{mean}{rate}")
    return lines


def slice_lines(by: Mapping[str, Any]) -> list[str]:
    """The report's slices (``scoring.slices``): per slice (and system, with several) one
    line per grader, as the whole file's."""
    column, slices = by["column"], by["slices"]
    lines = [f"by {quoted_name(column)}: {len(slices)} slice{'' if len(slices) == 1 else 's'}"
             + ("; (missing): rows whose cell is absent or empty" if slices and slices[-1]["value"] is None else "")]
    for s in slices:
        value = "(missing)" if s["value"] is None else quoted_name(str(s["value"]))
        lines.append(f"[{quoted_name(column)} = {value}] {s['rows']} {'row' if s['rows'] == 1 else 'rows'}")
        for system, per in (s.get("systems") or {None: s["graders"]}).items():
            lines += ([] if system is None else [f" · {system}"]) + _scorer_lines(per)
    return lines


def parse_fail_under(values: Sequence[str], graders: Sequence[str]) -> list[tuple[str, float]]:
    """``GRADER=RATE`` gates (``--fail-under``) as (grader, rate); ``ValueError`` naming a
    bad one. ``graders``: the names a gate may take (``overall`` besides)."""
    gates = []
    for v in values:
        name, sep, rate = v.partition("=")
        try:
            r = float(rate)
        except ValueError:
            r = -1.0
        if not sep or not 0.0 <= r <= 1.0:
            raise ValueError(f"--fail-under takes GRADER=RATE with RATE between 0 and 1, not {v!r}")
        if name not in graders and name != "overall":
            raise ValueError(f"--fail-under: unknown grader {name!r}; valid graders: {', '.join(graders)}, overall")
        gates.append((name, r))
    return gates


def check_fail_under(gates: Sequence[tuple[str, float]], config: Any) -> None:
    """Each gated grader has a pass rate to gate on, checked before any row is scored: it is
    run, and a continuous grader has a threshold (without one it only scores). ``ValueError``."""
    from graders.registry import get_spec

    run = {g.name: g for g in config.graders}
    for name, _ in gates:
        if name == "overall":
            if config.overall is None:
                raise ValueError("--fail-under: overall needs an overall rule ('all' or 'any') in the configuration")
        elif name not in run:
            raise ValueError(f"--fail-under: grader {name!r} is not run; run: {', '.join(run)} (add it with --grader)")
        elif not get_spec(name).binary and run[name].resolved.get("threshold") is None:
            raise ValueError(f"--fail-under: grader {name!r} has no pass rate without a threshold; "
                             "give it one in the configuration")


def fail_under_failures(summary: Mapping[str, Any], gates: Sequence[tuple[str, float]]) -> list[str]:
    """The gates a summary does not meet, one line each (empty: every gate is met). A gate
    with nothing to measure is not met."""
    failed = []
    for name, rate in gates:
        if not summary["systems"]:
            failed.append(f"{name}: no rows scored")
        for system, per in summary["systems"].items():
            st = per.get(name)
            if st is None:
                raise ValueError(f"--fail-under: grader {name!r} was not run")
            if st["pass_rate"] is None:
                failed.append(f"{name} has no pass rate: no row judged ({system})")
            elif st["pass_rate"] < rate:
                failed.append(f"{name} pass rate {st['pass_rate']:.4f} < {rate:g} ({system})")
    return failed
