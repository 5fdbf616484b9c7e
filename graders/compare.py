"""Model A versus model B (SPEC §8): a paired comparison that tells change from noise.

Two sources: a wide file (an ``output`` and an ``output_b`` column; A and B are named
after them) or a long file with a version column (two versions chosen, paired on
(id, repeat)). Both sides are scored with the same configuration; per metric (each
grader, and the overall row when on) the pairs where both sides have a score give mean
A, mean B, wins (A higher), losses, ties, the paired mean difference A − B with a
seeded bootstrap 95% interval (whole cases resampled when there are repeats), a p-value
(exact McNemar for pass-or-fail graders, a sign-flip test otherwise), Holm-adjusted
across the metrics, and the minimum detectable difference at this n. Cases present on
one side only are counted and listed, never dropped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .batch import score_frame
from .config import RunConfig
from .pipeline import resolve_mapping
from .readers import ResultsFile
from .registry import get_spec
from .rows import Prepared, prepare
from .stats import PairedSummary, holm_adjust, summarize_pairs, verdict_words

COMPARISON_COLUMNS = ("item", "repeat", "grader", "score_a", "score_b", "difference", "outcome")
FILTERS = ("a_fails_b_passes", "a_passes_b_fails", "disagree")
LISTED = 20  # how many unpaired keys are listed by name


class CompareError(ValueError):
    """A comparison that cannot be made; the message says why and what to choose."""


@dataclass(frozen=True)
class MetricComparison:
    name: str
    binary: bool
    stats: PairedSummary
    p_holm: float | None
    words: str

    def to_dict(self) -> dict[str, Any]:
        s = self.stats

        def num(x: Any) -> Any:
            return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x

        return {
            "binary": self.binary, "n": s.n, "n_cases": s.n_cases, "dropped": s.dropped,
            "mean_a": num(s.mean_a), "mean_b": num(s.mean_b), "mean_diff": num(s.mean_diff),
            "ci95": [num(s.ci_low), num(s.ci_high)], "wins": s.wins, "losses": s.losses, "ties": s.ties,
            "sd_diff": num(s.sd_diff), "min_detectable_difference": num(s.mdd),
            "clustered": s.clustered, "resamples": s.resamples,
            "pass_rate_a": num(s.pass_rate_a), "pass_rate_a_ci95": list(s.pass_rate_a_ci) if s.pass_rate_a_ci else None,
            "pass_rate_b": num(s.pass_rate_b), "pass_rate_b_ci95": list(s.pass_rate_b_ci) if s.pass_rate_b_ci else None,
            "mcnemar_b": s.b, "mcnemar_c": s.c, "p_value": num(s.p_value), "p_method": s.p_method,
            "p_holm": num(self.p_holm), "verdict": self.words,
        }


@dataclass(frozen=True)
class Comparison:
    label_a: str
    label_b: str
    source: str  # "wide" | "long"
    pairs: pd.DataFrame  # one row per (item, repeat, grader) seen on either side
    metrics: Mapping[str, MetricComparison]
    unpaired: Mapping[str, Any]
    prepared: Prepared
    scored: pd.DataFrame
    resamples: int
    seed: int
    settings: Mapping[str, Any] = field(default_factory=dict)

    def worse_beyond_interval(self, name: str) -> bool:
        """A is worse than B on ``name``: the whole 95% interval of A − B is below 0."""
        s = self.metrics[name].stats
        return s.n > 0 and math.isfinite(s.ci_high) and s.ci_high < 0

    def rows(self, kind: str, grader: str | None = None) -> pd.DataFrame:
        """Paired rows for review: ``a_fails_b_passes``, ``a_passes_b_fails`` or ``disagree``
        (a different verdict, or a different score for continuous graders)."""
        p = self.pairs[self.pairs["paired"]]
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
        p = self.pairs[(self.pairs["grader"] == grader) & self.pairs["paired"] & (self.pairs["diff"] < 0)]
        return p.sort_values(["diff", "item"], kind="stable").head(k)

    def summary(self) -> dict[str, Any]:
        return {
            "a": self.label_a, "b": self.label_b, "source": self.source,
            "resamples": self.resamples, "seed": self.seed,
            "clustered": any(m.stats.clustered for m in self.metrics.values()),
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
            "unpaired": dict(self.unpaired),
            "left_out": self.prepared.left_out.to_dict(),
            "config": dict(self.settings),
        }

    def report(self) -> str:
        lines = [f"A = {self.label_a}, B = {self.label_b} ({self.source} file)"]
        clustered = any(m.stats.clustered for m in self.metrics.values())
        if clustered:
            lines.append("Repeats found: intervals resample whole cases (cluster bootstrap).")
        for name, m in self.metrics.items():
            s = m.stats
            lines.append(f"  {name:<12} n {s.n:>6}  A {s.mean_a:.4f}  B {s.mean_b:.4f}  "
                         f"W/L/T {s.wins}/{s.losses}/{s.ties}  {m.words}" if s.n else f"  {name:<12} no pairs with both scores")
        for side in ("a_only", "b_only"):
            if self.unpaired[side]["count"]:
                who = self.label_a if side == "a_only" else self.label_b
                lines.append(f"  {self.unpaired[side]['count']} cases only in {who}: {', '.join(self.unpaired[side]['keys'])}")
        return "\n".join(lines)


_PASS_VALUE = {"true": 1.0, "false": 0.0}


def _numeric(cells: pd.Series) -> np.ndarray:
    """Score cells ("" = none) as floats, NaN for none; each distinct cell parsed once."""
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    values = np.array([float(u) if u else math.nan for u in uniques] + [math.nan], dtype=float)
    return values[codes]


def _pass_numeric(cells: pd.Series) -> np.ndarray:
    """Pass cells ("true" / "false" / "") as 1.0 / 0.0 / NaN."""
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    values = np.array([_PASS_VALUE.get(u, math.nan) for u in uniques] + [math.nan], dtype=float)
    return values[codes]


def choose_sides(prepared: Prepared, mapping: Mapping[str, str | None], version_a: str | None, version_b: str | None) -> tuple[str, str, str]:
    """(A label, B label, source) from the mapping and the versions in the file."""
    if mapping.get("output_b"):
        if version_a or version_b:
            raise CompareError("--a/--b choose versions of a long file; this file is wide (output and output_b)")
        a, b = mapping["output"], mapping["output_b"]
        return str(a), str(b), "wide"
    versions = list(prepared.systems)
    if not mapping.get("version"):
        raise CompareError("compare needs two outputs: an output_b column (wide file) or a version column with two versions (long file)")
    if version_a or version_b:
        for v in (version_a, version_b):
            if v is None:
                raise CompareError("give both --a and --b, or neither")
            if v not in versions:
                raise CompareError(f"unknown version {v!r}; the file has: {', '.join(versions)}")
        if version_a == version_b:
            raise CompareError("A and B are the same version; choose two different ones")
        return str(version_a), str(version_b), "long"
    if len(versions) < 2:
        only = versions[0] if versions else "none"
        raise CompareError(f"the file has only one version ({only}); compare needs two")
    if len(versions) > 2:
        raise CompareError(f"the file has {len(versions)} versions ({', '.join(versions)}); choose two with --a and --b")
    return str(versions[0]), str(versions[1]), "long"


def _pair(scored: pd.DataFrame, a: str, b: str, scorers: list[str]) -> pd.DataFrame:
    keep = scored["scorer"].isin(scorers)
    cols = ["item", "repeat", "scorer", "score", "pass", "status", "explanation", "record"]
    side_a = scored.loc[keep & (scored["system"] == a), cols]
    side_b = scored.loc[keep & (scored["system"] == b), cols]
    merged = side_a.merge(side_b, on=["item", "repeat", "scorer"], how="outer", suffixes=("_a", "_b"), indicator=True, sort=False)
    merged = merged.rename(columns={"scorer": "grader"})
    for col in ("score_a", "score_b", "pass_a", "pass_b", "status_a", "status_b", "explanation_a", "explanation_b"):
        merged[col] = merged[col].fillna("")
    sa, sb = _numeric(merged["score_a"]), _numeric(merged["score_b"])
    both = ~(np.isnan(sa) | np.isnan(sb))
    diff = np.where(both, sa - sb, np.nan)
    outcome = np.select(
        [merged["_merge"].to_numpy() == "left_only", merged["_merge"].to_numpy() == "right_only", ~both, diff > 0, diff < 0],
        ["a only", "b only", "unscored", "win", "loss"], default="tie",
    )
    merged["diff"] = diff
    merged["value_a"], merged["value_b"] = sa, sb  # the scores as floats (NaN = none)
    merged["difference"] = ["" if math.isnan(d) else repr(float(d)) for d in diff]
    merged["outcome"] = outcome
    merged["paired"] = both
    order = {s: i for i, s in enumerate(scorers)}
    merged["_o"] = merged["grader"].map(order)
    return merged.drop(columns="_merge").sort_values(["_o"], kind="stable").drop(columns="_o").reset_index(drop=True)


def _unpaired(rows: pd.DataFrame, a: str, b: str) -> dict[str, Any]:
    key = rows["item"].astype(str) + "\x00" + rows["repeat"].astype(str)
    ka = pd.Index(key[rows["system"] == a].unique())
    kb = pd.Index(key[rows["system"] == b].unique())

    def listed(ks: pd.Index) -> dict[str, Any]:
        shown = []
        for k in sorted(ks)[:LISTED]:
            item, _, repeat = k.partition("\x00")
            shown.append(f"{item} (repeat {repeat})" if repeat not in ("", "0") else item)
        return {"count": len(ks), "keys": shown}

    return {"a_only": listed(ka.difference(kb)), "b_only": listed(kb.difference(ka)), "paired_cases": len(ka.intersection(kb))}


def compare_prepared(
    prepared: Prepared, config: RunConfig, mapping: Mapping[str, str | None], *, version_a: str | None = None,
    version_b: str | None = None, resamples: int = 2000, seed: int = 0, workers: int | None = None,
    start_method: str = "fork",
) -> Comparison:
    """Compare the prepared rows of two systems; ``workers`` and ``start_method`` as in
    ``batch.score_frame`` ("forkserver" inside a threaded host such as Streamlit)."""
    if not config.graders:
        raise CompareError("no graders configured; add at least one")
    a, b, source = choose_sides(prepared, mapping, version_a, version_b)
    rows = prepared.rows[prepared.rows["system"].isin([a, b])]
    if "repeat_number" in rows.columns:  # pair "03" with "3": repeats are whole numbers
        rows = rows.assign(repeat=rows["repeat_number"].astype(str).where(rows["repeat"] != "", ""))
    if rows.empty:
        raise CompareError("no rows left to compare after leaving out unusable ones")
    # Details stay in the workers: no comparison figure reads them, and pickling them back costs
    # more than scoring (BLEU's and chrF's travel summed, and are not read either).
    scored = score_frame(rows, config, workers=workers, details=False, start_method=start_method, statistics={})
    return compare_scored(scored, rows, prepared, config, mapping, a, b, source, resamples=resamples, seed=seed)


def compare_scored(
    scored: pd.DataFrame, rows: pd.DataFrame, prepared: Prepared, config: RunConfig, mapping: Mapping[str, str | None],
    a: str, b: str, source: str, *, resamples: int = 2000, seed: int = 0,
) -> Comparison:
    """The comparison figures from already scored rows of systems ``a`` and ``b``."""
    scorers = list(config.grader_names) + (["overall"] if config.overall else [])
    pairs = _pair(scored, a, b, scorers)
    unpaired = _unpaired(rows, a, b)
    if unpaired["paired_cases"] == 0:
        raise CompareError(f"no case appears in both {a} and {b}: nothing to pair on (id, repeat)")
    # Repeats: resample whole cases (a cluster bootstrap).
    metrics_in: dict[str, dict[str, Any]] = {}
    keys: dict[str, np.ndarray] = {}
    case_codes = pd.factorize(pairs["item"].astype(str) + "\x00" + pairs["repeat"].astype(str))[0]
    item_codes = pd.factorize(pairs["item"])[0]
    groups = pairs.groupby("grader", sort=False).indices
    for name in scorers:
        at = groups.get(name, np.array([], dtype=int))
        binary = name == "overall" or get_spec(name).binary
        arrays: dict[str, Any] = {"score_a": pairs["value_a"].to_numpy()[at], "score_b": pairs["value_b"].to_numpy()[at]}
        if binary:
            arrays["passed_a"] = _pass_numeric(pairs["pass_a"].iloc[at])
            arrays["passed_b"] = _pass_numeric(pairs["pass_b"].iloc[at])
        metrics_in[name] = arrays
        keys[name] = at
    # Every scorer has a row per case on each side, in the same order: one call draws the
    # resamples once for all metrics. Repeats: whole cases are resampled (cluster bootstrap).
    first = case_codes[keys[scorers[0]]]
    if all(np.array_equal(case_codes[at], first) for at in keys.values()):
        clusters = item_codes[keys[scorers[0]]]
        results = summarize_pairs(metrics_in, clusters=clusters, resamples=resamples, seed=seed)
    else:  # pragma: no cover - defensive: align per metric
        results = {}
        for name in scorers:
            clusters = item_codes[keys[name]]
            results.update(summarize_pairs({name: metrics_in[name]}, clusters=clusters, resamples=resamples, seed=seed))
    adjusted = holm_adjust([None if not math.isfinite(results[n].p_value) else results[n].p_value for n in scorers])
    metrics = {}
    for name, p_adj in zip(scorers, adjusted):
        binary = name == "overall" or get_spec(name).binary
        metrics[name] = MetricComparison(name, binary, results[name], p_adj, verdict_words(results[name], p_adj))
    return Comparison(a, b, source, pairs, metrics, unpaired, prepared, scored, resamples, seed,
                      {**config.to_dict(), "columns": {k: v for k, v in mapping.items() if v}})


def compare_file(
    file: ResultsFile, config: RunConfig, *, mapping: Mapping[str, str | None] | None = None,
    version_a: str | None = None, version_b: str | None = None, resamples: int = 2000, seed: int = 0,
    workers: int | None = None, start_method: str = "fork",
) -> Comparison:
    """Map, prepare and compare a results file (see the module docstring)."""
    from .rows import MappingError

    mapping = dict(mapping) if mapping is not None else resolve_mapping(file, config)
    if mapping.get("output_b"):
        # A wide file compares its two output columns; a version column plays no part.
        mapping["version"] = None
    try:
        prepared = prepare(file, mapping, needs_expected=config.needs_expected)
    except MappingError as e:
        raise CompareError(str(e)) from None
    return compare_prepared(prepared, config, mapping, version_a=version_a, version_b=version_b,
                            resamples=resamples, seed=seed, workers=workers, start_method=start_method)


def write_comparison(result: Comparison, path_or_buffer: Any) -> None:
    result.pairs.loc[:, list(COMPARISON_COLUMNS)].to_csv(path_or_buffer, index=False, lineterminator="\n")
