"""Model A versus model B (SPEC §8): a paired comparison that tells change from noise.

Two sources: a wide file (an ``output`` and an ``output_b`` column; A and B are named
after them) or a long file with a version column (two versions chosen, paired on
(id, repeat)). Both sides are scored with the same configuration; per metric (each
grader, and the overall row when on) the pairs where both sides have a score give mean
A, mean B, wins (A higher), losses, ties, the paired mean difference A − B with a
95% interval (Tango's score interval for pass-or-fail graders, Rao-Scott adjusted with
repeats; a bootstrap one for continuous graders, resampling whole cases with repeats), a
p-value (exact McNemar for pass-or-fail graders, a sign-flip test otherwise),
Holm-adjusted across the primary metrics (``families``), and the minimum detectable
difference at this n and the level each metric is tested at. Cases present on one side
only are counted and listed, never dropped silently. A and B of a long file are its first
two versions in file order (rows left out included), unless chosen.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from graders.compare.corpus import CORPUS_METRICS, corpus_lines, paired_corpus
from graders.compare.families import ALPHA, FamilyError, HolmFamilies, holm_families
from graders.compare.pairing import _pair, _pass_numeric, _unpaired
from graders.compare.slices import comparison_slices, slice_lines
from graders.compare.words import verdict_words
from graders.config import RunConfig, as_run_config, mapping_dict
from graders.pipeline import resolve_mapping
from graders.readers.files import ResultsFile, read_results
from graders.registry import get_spec
from graders.scoring.limits import check_resamples, check_seed, check_workers
from graders.scoring.output import spreadsheet_cell, write_csv
from graders.scoring.parallel import score_frame
from graders.scoring.rows import Prepared, group_codes, prepare
from graders.scoring.slices import check_column
from graders.scoring.summary import summarize
from graders.stats import PairedSummary, summarize_pairs
from graders.text.show import quoted_name

COMPARISON_COLUMNS = ("item", "repeat", "grader", "score_a", "score_b", "difference", "outcome")
FILTERS = ("a_fails_b_passes", "a_passes_b_fails", "disagree")


class CompareError(ValueError):
    """A comparison that cannot be made; the message says why and what to choose."""


@dataclass(frozen=True)
class MetricComparison:
    name: str
    binary: bool
    stats: PairedSummary
    p_holm: float | None
    words: str
    holm: str = "holm"  # "holm" (in the Holm family), "alone" (overall) or "unadjusted"

    def to_dict(self) -> dict[str, Any]:
        s = self.stats

        def num(x: Any) -> Any:
            return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x

        def design(d: Any) -> Any:
            return None if d is None else {"cases": d.cases, "design_effect": num(d.design_effect),
                                           "icc": num(d.icc), "design_effect_used": d.used,
                                           "effective_cases": d.rows / d.divisor}

        return {
            "binary": self.binary, "n": s.n, "n_cases": s.n_cases, "dropped": s.dropped,
            "mean_a": num(s.mean_a), "mean_b": num(s.mean_b), "mean_diff": num(s.mean_diff),
            "ci95": [num(s.ci_low), num(s.ci_high)], "wins": s.wins, "losses": s.losses, "ties": s.ties,
            "sd_diff": num(s.sd_diff), "min_detectable_difference": num(s.mdd),
            "clustered": s.clustered, "resamples": s.resamples,
            "pass_rate_a": num(s.pass_rate_a), "pass_rate_a_ci95": list(s.pass_rate_a_ci) if s.pass_rate_a_ci else None,
            "pass_rate_b": num(s.pass_rate_b), "pass_rate_b_ci95": list(s.pass_rate_b_ci) if s.pass_rate_b_ci else None,
            "pass_rate_a_design": design(s.pass_rate_a_design), "pass_rate_b_design": design(s.pass_rate_b_design),
            "ci_method": s.ci_method, "design_effect": num(s.design_effect),
            "min_detectable_difference_alpha": s.mdd_alpha,
            "mcnemar_b": s.b, "mcnemar_c": s.c, "p_value": num(s.p_value), "p_method": s.p_method,
            "p_flips": s.p_flips or None, "p_mc_error": num(s.p_mc_error), "p_undecided_at": s.p_undecided,
            "holm": self.holm, "p_holm": num(self.p_holm), "verdict": self.words,
        }


def check_gates(names: Sequence[str], compared: Sequence[str]) -> None:
    """``CompareError`` for a ``--fail-if-worse`` grader that is not among ``compared``."""
    for name in names:
        if name not in compared:
            raise CompareError(f"--fail-if-worse: grader {name!r} was not compared; compared: {', '.join(compared) or 'none'}")


@dataclass(frozen=True)
class Comparison:
    label_a: str
    label_b: str
    source: str  # "wide" | "long"
    pairs: pd.DataFrame  # one row per (item, repeat, grader) seen on either side (None: on a cluster)
    metrics: Mapping[str, MetricComparison]
    unpaired: Mapping[str, Any]
    prepared: Prepared
    scored: pd.DataFrame
    resamples: int
    seed: int
    settings: Mapping[str, Any] = field(default_factory=dict)
    # BLEU's and chrF's corpus statistics per (scorer, system), as scoring summed them
    statistics: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    families: HolmFamilies | None = None  # which metrics Holm's adjustment ran over
    sides: str = ""  # how A and B were chosen
    paired_corpus: Mapping[str, Any] = field(default_factory=dict)  # corpus BLEU / chrF, paired bootstrap
    by: Mapping[str, Any] = field(default_factory=dict)  # the figures per slice (compare.slices), when asked
    # each side's run summary, when the rows were scored elsewhere (a cluster: ``pairs`` and ``scored`` are None)
    side_summary: Mapping[str, Any] | None = None

    @cached_property
    def _sides(self) -> Mapping[str, Any]:
        """Each side's run summary (``summarize`` over the scored rows of A and B), made once."""
        if self.side_summary is not None:
            return self.side_summary
        scored_rows = self.prepared.rows[self.prepared.rows["system"].isin([self.label_a, self.label_b])]
        graders = tuple(n for n in self.metrics if n != "overall")
        return summarize(self.scored, scored_rows, graders=graders, statistics=dict(self.statistics) or None)

    def worse_beyond_interval(self, name: str) -> bool:
        """A is worse than B on ``name``: the whole 95% interval of A − B is below 0."""
        s = self.metrics[name].stats
        return s.n > 0 and math.isfinite(s.ci_high) and s.ci_high < 0

    def worse(self, name: str, alpha: float = ALPHA, p: float | None = None) -> bool:
        """A is worse than B on ``name`` beyond noise, as the verdict words it: the 95%
        interval of A − B below 0 and the p-value below ``alpha`` (``p``, else the metric's
        Holm-adjusted p, else for a metric outside the family its unadjusted p). The
        interval alone is not enough: when every pair differs the same way it may have
        no width, even on two cases (p = 0.5)."""
        m = self.metrics[name]
        if p is None:
            p = m.p_holm if m.holm != "unadjusted" else m.stats.p_value
        return self.worse_beyond_interval(name) and p is not None and math.isfinite(p) and p < alpha

    def gate_pvalues(self, names: Sequence[str]) -> dict[str, float | None]:
        """The p-values gates on ``names`` read: Holm-adjusted across the gated graders
        (``overall`` on its own), which is ``p_holm`` when they were the primary metrics."""
        try:
            family = holm_families(list(self.metrics), names)
        except FamilyError as e:
            raise CompareError(str(e)) from None
        return family.adjust({n: m.stats.p_value for n, m in self.metrics.items()})

    def fail_if_worse(self, names: Sequence[str]) -> list[str]:
        """The ``--fail-if-worse`` gates that trip, one line each (empty: none does).
        ``CompareError`` for a grader that was not compared. A gate with nothing to measure
        trips: a comparison in which no case has a score on both sides (ids that do not
        match, a grader neither side is judged on) must not pass CI in silence."""
        check_gates(names, list(self.metrics))
        adjusted = self.gate_pvalues(names)
        tripped = []
        for name in dict.fromkeys(names):
            m = self.metrics[name]
            p = adjusted[name]
            if m.stats.n == 0:
                tripped.append(f"no pair has a {name} score on both sides, so A cannot be shown not to be worse")
            elif self.worse(name, p=p):
                label = "p" if name == "overall" else "Holm p"
                tripped.append(f"A is worse than B on {name} beyond the 95% interval ({label} = {p:.2g})")
        return tripped

    def _held(self) -> pd.DataFrame:
        if self.pairs is None:
            raise CompareError("a comparison made on a cluster keeps its pairs there; read them from the comparison "
                               "CSV it wrote (compare_files(write_to=...))")
        return self.pairs

    def rows(self, kind: str, grader: str | None = None) -> pd.DataFrame:
        """Paired rows for review: ``a_fails_b_passes``, ``a_passes_b_fails`` or ``disagree``
        (a different verdict, or a different score for continuous graders)."""
        p = self._held()
        p = p[p["paired"]]
        if grader is not None:
            p = p[p["grader"] == grader]
        if kind == "a_fails_b_passes":
            return p[(p["pass_a"] == "false") & (p["pass_b"] == "true")]
        if kind == "a_passes_b_fails":
            return p[(p["pass_a"] == "true") & (p["pass_b"] == "false")]
        if kind == "disagree":
            return p[(p["pass_a"] != p["pass_b"]) | (p["outcome"] != "tie")]
        raise ValueError(f"unknown filter {kind!r}; valid filters: {', '.join(FILTERS)}")

    def largest_drops(self, grader: str, k: int = 20) -> pd.DataFrame:
        """The ``k`` pairs where A scores furthest below B on ``grader``."""
        p = self._held()
        p = p[(p["grader"] == grader) & p["paired"] & (p["diff"] < 0)]
        return p.sort_values(["diff", "item"], kind="stable").head(k)

    def metrics_of(self, pairs: pd.DataFrame) -> dict[str, MetricComparison]:
        """Each metric over ``pairs``, some of ``self.pairs`` (a slice's), at this comparison's
        resamples and seed; each p unadjusted (a slice is a closer look, not Holm's family)."""
        results, _ = paired_summaries(pairs, list(self.metrics), resamples=self.resamples, seed=self.seed)
        return {name: MetricComparison(name, m.binary, results[name], None,
                                       verdict_words(results[name], unadjusted=True), "unadjusted")
                for name, m in self.metrics.items()}

    def summary(self) -> dict[str, Any]:
        """The comparison's figures (``metrics``), and beside them each side's own run summary
        as ``gradeboard score`` writes it (SPEC §7): ``graders`` {A label, B label: per
        grader graded, passed, failed, …}, ``corpus`` BLEU and chrF, ``unknown_assertions``."""
        sides = self._sides
        return {
            "a": self.label_a, "b": self.label_b, "source": self.source, "sides": self.sides,
            "resamples": self.resamples, "seed": self.seed,
            "clustered": any(m.stats.clustered for m in self.metrics.values()),
            "holm": self.families.to_dict() if self.families is not None else None,
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
            "corpus_paired": dict(self.paired_corpus),
            "graders": {side: sides["systems"].get(side, {}) for side in (self.label_a, self.label_b)},
            "corpus": sides["corpus"],
            "unknown_assertions": sides["unknown_assertions"],
            "unpaired": dict(self.unpaired),
            "left_out": self.prepared.left_out.to_dict(),
            "config": dict(self.settings),
            **({"by": dict(self.by)} if self.by else {}),
        }

    def report(self) -> str:
        lines = [f"A = {self.label_a}, B = {self.label_b} ({self.source} file{'; ' if self.sides else ''}{self.sides})"]
        clustered = any(m.stats.clustered for m in self.metrics.values())
        if clustered:
            lines.append("Repeats found: whole cases are resampled and flipped together, pass-or-fail intervals are "
                         "Rao-Scott adjusted, and each side's pass rate is clustered by case.")
        for name, m in self.metrics.items():
            s = m.stats
            lines.append(f"  {name:<12} n {s.n:>6}  A {s.mean_a:.4f}  B {s.mean_b:.4f}  "
                         f"W/L/T {s.wins}/{s.losses}/{s.ties}  {m.words}" if s.n else f"  {name:<12} no pairs with both scores")
        for side in ("a_only", "b_only"):
            count = self.unpaired[side]["count"]
            if count:
                who = self.label_a if side == "a_only" else self.label_b
                more = "…" if count > len(self.unpaired[side]["keys"]) else ""
                lines.append(f"  {count} {'row' if count == 1 else 'rows'} only in {who}: "
                             f"{', '.join(quoted_name(k) for k in self.unpaired[side]['keys'])}{more}")
        lines += self.prepared.left_out.lines()
        f = self.families
        if f is not None and (len(f.family) > 1 or f.alone or f.unadjusted):
            lines.append(f.line())
        lines += corpus_lines(self.paired_corpus)
        if any(str(x).startswith("assert:") for side in self._sides["systems"].values() for x in side):
            lines.append("Per-row assertions are scored on each side (the summary's graders), not compared.")
            unknown = self._sides["unknown_assertions"]
            if unknown:
                lines.append("assertion kinds not run: " + ", ".join(f"{k} ×{v}" for k, v in unknown.items()))
        return "\n".join(lines + (slice_lines(self.by) if self.by else []))


def _version_names(versions: list[str]) -> str:
    """Versions for a message, each as ``quoted_name`` shows it."""
    return ", ".join(map(quoted_name, versions))


def _left_out_phrase(prepared: Prepared) -> str:
    lo = prepared.left_out
    if not lo.total:
        return ""
    reasons = ", ".join(f"{reason} {count}" for reason, count in lo.counts.items())
    return f" ({lo.total} {'row' if lo.total == 1 else 'rows'} left out: {reasons})"


def file_versions(file: ResultsFile, mapping: Mapping[str, str | None]) -> list[str] | None:
    """A long file's versions in file order, rows that will be left out included (a
    missing cell is the version ""), or None without a version column."""
    column = mapping.get("version")
    if not column or mapping.get("output_b") or column not in file.frame.columns:
        return None
    values = file.frame[column].to_numpy(dtype=object)
    values = np.where(np.equal(values, None), "", values)
    return [str(v) for v in pd.unique(values)]


def choose_sides(prepared: Prepared, mapping: Mapping[str, str | None], version_a: str | None, version_b: str | None,
                 versions_in_file: Sequence[str] | None = None) -> tuple[str, str, str, str]:
    """(A label, B label, source, how they were chosen) from the mapping and the versions:
    a long file's first two versions in file order (``versions_in_file``, rows left out
    included; without it, those of the rows kept), unless ``version_a``/``version_b`` choose."""
    if mapping.get("output_b"):
        if not mapping.get("output"):
            raise CompareError(f"a wide file needs an output column for A beside {mapping['output_b']!r} for B; "
                               "no column is mapped to output")
        if version_a or version_b:
            raise CompareError("--a/--b choose versions of a long file; this file is wide (output and output_b)")
        a, b = mapping["output"], mapping["output_b"]
        return str(a), str(b), "wide", "A is the output column, B the output_b column"
    kept = list(prepared.systems)
    if not mapping.get("version"):
        raise CompareError("compare needs two outputs: an output_b column (wide file) or a version column with two versions (long file)")
    if not mapping.get("id"):
        raise CompareError("a long file pairs its two versions on (id, repeat), and no column is mapped to id; "
                           "map one, or put the two outputs side by side (output and output_b)")
    if not kept:
        raise CompareError(f"no rows left to compare{_left_out_phrase(prepared)}")
    versions = list(versions_in_file) if versions_in_file is not None else kept
    versions += [v for v in kept if v not in versions]
    have = f"the file has: {_version_names(versions)}{_left_out_phrase(prepared)}"
    if version_a or version_b:
        for v in (version_a, version_b):
            if v is None:
                raise CompareError("give both --a and --b, or neither")
            if v not in versions:
                raise CompareError(f"unknown version {v!r}; {have}")
        if version_a == version_b:
            raise CompareError("A and B are the same version; choose two different ones")
        a, b, how = str(version_a), str(version_b), "A and B as given (--a and --b, or two files in order)"
    else:
        if len(versions) < 2:
            raise CompareError(f"the file has only one version ({_version_names(versions)}){_left_out_phrase(prepared)}; compare needs two")
        if len(versions) > 2:
            raise CompareError(f"the file has {len(versions)} versions ({_version_names(versions)}); choose two with --a and --b")
        a, b = str(versions[0]), str(versions[1])
        how = ("A and B are the file's two versions in file order" if versions_in_file is not None
               else "A and B are the two versions in the order of the rows kept")
    for v in (a, b):
        if v not in kept:
            raise CompareError(f"every row of version {_version_names([v])} was left out{_left_out_phrase(prepared)}; "
                               "compare needs rows of both versions")
    return a, b, "long", how


def _wide_rows(prepared: Prepared, mapping: Mapping[str, str | None], a: str, b: str) -> Prepared:
    """A wide file's rows with ``system`` its output column (A or B). With a version column
    too, each row keeps its version in ``version`` (the key is (id, version, repeat), so
    one id may come once per version: its record pairs A with B)."""
    rows = prepared.rows
    rows = rows[rows["output_column"].isin([a, b])]
    if mapping.get("version"):  # prepare named B's rows "<version>/<b>"
        system = rows["system"]
        rows = rows.assign(version=system.where(rows["output_column"] == a, system.str[: -len(b) - 1]))
    rows = rows.assign(system=rows["output_column"])
    return Prepared(rows=rows, left_out=prepared.left_out, systems=(a, b))


def side_rows(prepared: Prepared, mapping: Mapping[str, str | None], a: str, b: str,
              source: str) -> tuple[Prepared, pd.DataFrame]:
    """The rows as the comparison has them (a wide file's: ``_wide_rows``), and of those the
    rows of A and B, each repeat as its whole number ("03" pairs with "3")."""
    if source == "wide":
        prepared = _wide_rows(prepared, mapping, a, b)
    rows = prepared.rows[prepared.rows["system"].isin([a, b])]
    if "repeat_number" in rows.columns:
        rows = rows.assign(repeat=rows["repeat_number"].astype(str).where(rows["repeat"] != "", ""))
    return prepared, rows


def compare_prepared(
    prepared: Prepared, config: RunConfig, mapping: Mapping[str, str | None], *, version_a: str | None = None,
    version_b: str | None = None, resamples: int = 2000, seed: int = 0, workers: int | None = None,
    start_method: str = "fork", primary: Sequence[str] | None = None, versions_in_file: Sequence[str] | None = None,
) -> Comparison:
    """Compare the prepared rows of two systems; ``workers`` and ``start_method`` as in
    ``batch.score_frame`` ("forkserver" inside a threaded host such as Streamlit);
    ``resamples``, ``seed`` and ``workers`` checked as ``scoring.limits`` says.
    ``primary``: the metrics Holm's adjustment runs over (``families.holm_families``;
    None: every grader). ``versions_in_file``: a long file's versions in file order, rows
    left out included (``file_versions``), of which A and B are the first two."""
    resamples, seed, workers = check_resamples(resamples), check_seed(seed), check_workers(workers)
    if not config.graders:
        raise CompareError("no graders configured; add at least one")
    a, b, source, sides = choose_sides(prepared, mapping, version_a, version_b, versions_in_file)
    prepared, rows = side_rows(prepared, mapping, a, b, source)
    if rows.empty:
        raise CompareError(f"no rows left to compare{_left_out_phrase(prepared)}")
    # Details stay in the workers: no comparison figure reads them, and pickling them back costs
    # more than scoring (BLEU's and chrF's travel summed, and are not read either).
    # BLEU's and chrF's come back per row when they are run: the paired corpus bootstrap reads them.
    corpus = any(name in CORPUS_METRICS for name in config.grader_names)
    statistics: dict | None = None if corpus else {}
    scored = score_frame(rows, config, workers=workers, details=False, start_method=start_method, statistics=statistics)
    return compare_scored(scored, rows, prepared, config, mapping, a, b, source, resamples=resamples, seed=seed,
                          statistics=statistics, primary=primary, sides=sides)


def compare_scored(
    scored: pd.DataFrame, rows: pd.DataFrame, prepared: Prepared, config: RunConfig, mapping: Mapping[str, str | None],
    a: str, b: str, source: str, *, resamples: int = 2000, seed: int = 0,
    statistics: Mapping[tuple[str, str], Any] | None = None, primary: Sequence[str] | None = None, sides: str = "",
) -> Comparison:
    """The comparison figures from already scored rows of systems ``a`` and ``b``;
    ``statistics``: BLEU's and chrF's corpus sums as scoring filled them (the summary's
    corpus figures; None: the summary sums the rows' details). ``primary``: as in
    ``compare_prepared``; ``sides``: how A and B were chosen, for the report."""
    scorers = list(config.grader_names) + (["overall"] if config.overall else [])
    try:
        families = holm_families(scorers, primary)
    except FamilyError as e:
        raise CompareError(str(e)) from None
    pairs = _pair(scored, a, b, scorers, source)
    if "version" in rows.columns:  # a wide file with versions: which version each pair is
        version_of = dict(zip(rows["record"], rows["version"]))
        record = pairs["record_a"].where(pairs["record_a"].notna(), pairs["record_b"])
        pairs.insert(1, "version", pd.Series([version_of.get(r, "") for r in record], index=pairs.index, dtype=object))
    unpaired = _unpaired(rows, a, b, source)
    check_paired(unpaired, a, b, source, prepared)
    sizes = {name: families.size(name) for name in scorers}
    results, item_codes = paired_summaries(pairs, scorers, resamples=resamples, seed=seed, family_sizes=sizes)
    metrics = metric_comparisons(results, families, unpaired)
    corpus = paired_corpus(scored, pairs, rows, config, a, b, item_codes, resamples=resamples, seed=seed)
    return Comparison(a, b, source, pairs, metrics, unpaired, prepared, scored, resamples, seed,
                      {**config.to_dict(), "columns": mapping_dict(mapping)}, dict(statistics or {}), families, sides,
                      corpus)


def check_paired(unpaired: Mapping[str, Any], a: str, b: str, source: str, prepared: Prepared) -> None:
    """``CompareError`` when no case is on both sides (``_unpaired``'s count of pairs)."""
    if unpaired["pairs"] == 0:
        on = "the same row" if source == "wide" else "(id, repeat)"
        raise CompareError(f"no case appears in both {_version_names([a])} and {_version_names([b])}: nothing to pair "
                           f"on {on}{_left_out_phrase(prepared)}")


def metric_comparisons(results: Mapping[str, PairedSummary], families: HolmFamilies,
                       unpaired: Mapping[str, Any]) -> dict[str, MetricComparison]:
    """Each metric's figures with its p Holm-adjusted in its family and its verdict in words;
    ``CompareError`` when no pair has a score on both sides for any metric."""
    scorers = list(results)
    if all(results[name].n == 0 for name in scorers):
        raise CompareError(f"nothing to compare: no pair has a score on both sides for {', '.join(scorers)} (each "
                           f"of the {unpaired['pairs']:,} pairs is not judged or an error on A's side or B's)")
    adjusted = families.adjust({n: results[n].p_value for n in scorers})
    metrics = {}
    for name in scorers:
        binary = name == "overall" or get_spec(name).binary
        role = families.role(name)
        words = verdict_words(results[name], adjusted[name] if role == "holm" else None, unadjusted=role == "unadjusted")
        metrics[name] = MetricComparison(name, binary, results[name], adjusted[name], words, role)
    return metrics


def paired_summaries(pairs: pd.DataFrame, scorers: Sequence[str], *, resamples: int, seed: int,
                     family_sizes: Mapping[str, int] | None = None) -> tuple[dict[str, PairedSummary], np.ndarray]:
    """Each metric's ``PairedSummary`` over ``pairs`` (``_pair``'s rows, or some of them),
    and each pair's case code (the unit resampled). Repeats: whole cases are resampled (a
    cluster bootstrap)."""
    item = pairs["item"].to_numpy(dtype=object)
    case_codes = group_codes([item, pairs["repeat"].to_numpy(dtype=object)])
    # The resampled unit is the case: (id) in a long file, (id, version) in a wide one with versions.
    item_codes = group_codes([item] + ([pairs["version"].to_numpy(dtype=object)] if "version" in pairs.columns else []))
    groups = pairs.groupby("grader", sort=False).indices
    results = summaries_of(groups, pairs["value_a"].to_numpy(), pairs["value_b"].to_numpy(), _pass_numeric(pairs["pass_a"]),
                           _pass_numeric(pairs["pass_b"]), case_codes, item_codes, scorers, resamples=resamples,
                           seed=seed, family_sizes=family_sizes)
    return results, item_codes


def summaries_of(groups: Mapping[str, np.ndarray], value_a: np.ndarray, value_b: np.ndarray, passed_a: np.ndarray,
                 passed_b: np.ndarray, case_codes: np.ndarray, item_codes: np.ndarray, scorers: Sequence[str], *,
                 resamples: int, seed: int, family_sizes: Mapping[str, int] | None = None) -> dict[str, PairedSummary]:
    """``paired_summaries`` over arrays, one entry per pair row: ``groups`` each scorer's
    rows, the scores as floats and verdicts as 1.0 / 0.0 / NaN, the case and item codes."""
    metrics_in: dict[str, dict[str, Any]] = {}
    keys: dict[str, np.ndarray] = {}
    for name in scorers:
        at = groups.get(name, np.array([], dtype=int))
        binary = name == "overall" or get_spec(name).binary
        arrays: dict[str, Any] = {"score_a": value_a[at], "score_b": value_b[at]}
        if binary:
            arrays["passed_a"], arrays["passed_b"] = passed_a[at], passed_b[at]
        metrics_in[name] = arrays
        keys[name] = at
    # Every scorer has a row per case on each side, in the same order: one call draws the
    # resamples once for all metrics.
    first = case_codes[keys[scorers[0]]]
    if all(np.array_equal(case_codes[at], first) for at in keys.values()):
        clusters = item_codes[keys[scorers[0]]]
        return summarize_pairs(metrics_in, clusters=clusters, resamples=resamples, seed=seed,
                               family_sizes=family_sizes, alpha=ALPHA)
    results = {}  # pragma: no cover - defensive: align per metric
    for name in scorers:  # pragma: no cover
        clusters = item_codes[keys[name]]
        results.update(summarize_pairs({name: metrics_in[name]}, clusters=clusters, resamples=resamples, seed=seed,
                                       family_sizes=family_sizes, alpha=ALPHA))
    return results


def compare_file(
    file: ResultsFile | str | os.PathLike[str], config: RunConfig | Mapping[str, Any] | str | os.PathLike[str], *,
    mapping: Mapping[str, str | None] | None = None, version_a: str | None = None, version_b: str | None = None,
    resamples: int = 2000, seed: int = 0, workers: int | None = None, start_method: str = "fork",
    primary: Sequence[str] | None = None, by: str | None = None,
) -> Comparison:
    """Map, prepare and compare a results file (see the module docstring): ``file`` as
    ``read_results`` returns it, or its path; ``config`` a ``RunConfig``, its JSON form as a
    dict, or the path of its JSON file. ``primary``: the metrics Holm's adjustment runs
    over (the command line passes its ``--fail-if-worse`` graders; None: every grader). A
    long file's A and B are its first two versions in file order, rows left out included.
    ``by``: a column whose values slice the figures (``Comparison.by``, ``compare.slices``)."""
    from graders.scoring.rows import MappingError

    if isinstance(file, (str, os.PathLike)):
        file = read_results(file)
    elif not isinstance(file, ResultsFile):
        raise TypeError(f"compare_file takes a file read by read_results, or its path, not {type(file).__name__}")
    config = as_run_config(config)
    if by is not None:
        check_column(file, by)
    mapping = dict(mapping) if mapping is not None else resolve_mapping(file, config)
    try:
        prepared = prepare(file, mapping, needs_expected=config.needs_expected)
    except MappingError as e:
        raise CompareError(str(e)) from None
    result = compare_prepared(prepared, config, mapping, version_a=version_a, version_b=version_b,
                              resamples=resamples, seed=seed, workers=workers, start_method=start_method,
                              primary=primary, versions_in_file=file_versions(file, mapping))
    return result if by is None else replace(result, by=comparison_slices(result, file, by))


def comparison_columns(result: Comparison | pd.DataFrame) -> list[str]:
    """``COMPARISON_COLUMNS``, with ``version`` after ``item`` for a wide file with versions
    (of a comparison, or of its pairs)."""
    cols = list(COMPARISON_COLUMNS)
    pairs = result.pairs if isinstance(result, Comparison) else result
    return cols[:1] + ["version"] + cols[1:] if "version" in pairs.columns else cols


def comparison_frame(pairs: pd.DataFrame, spreadsheet_safe: bool = False) -> pd.DataFrame:
    """The pairs as the comparison CSV writes them; ``spreadsheet_safe``: each cell a
    spreadsheet would run as a formula prefixed with ``'`` (``output.spreadsheet_cell``)."""
    if not spreadsheet_safe:
        return pairs
    return pairs[comparison_columns(pairs)].astype(object).map(lambda v: spreadsheet_cell(v) if isinstance(v, str) else v)


def write_comparison(result: Comparison, path_or_buffer: Any, *, spreadsheet_safe: bool = False) -> None:
    """Write the comparison CSV (``comparison_columns``, ``comparison_frame``) as
    ``output.write_csv`` writes every CSV. A comparison made on a cluster wrote its own
    (``graders.distributed.compare_files``' ``write_to``)."""
    write_csv(comparison_frame(result._held(), spreadsheet_safe), path_or_buffer, comparison_columns(result))
