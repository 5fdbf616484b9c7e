"""Corpus BLEU and chrF of A and B over their paired rows, with the sacrebleu-style
signature, and the paired bootstrap of the corpus difference (``stats.corpus``: the
draws and p-value of sacrebleu's ``--paired-bs``, whole cases resampled with repeats).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from graders.stats.corpus import paired_corpus_bootstrap

CORPUS_METRICS = ("bleu", "chrf")


def row_statistics(name: str, detail: Any) -> list[int] | None:
    """A row's sentence statistics from its details (as ``summary.statistic_sums`` reads them)."""
    try:
        if name == "bleu":
            return [int(detail["hyp_len"]), int(detail["ref_len"]), *map(int, detail["correct"]),
                    *map(int, detail["total"])]
        return [int(x) for x in detail["stats"]]
    except (KeyError, TypeError, ValueError):
        return None


def _score_and_signature(name: str, nrefs: int | str, resamples: int, seed: int) -> tuple[Any, str]:
    if name == "bleu":
        from graders.metrics.bleu import compute_bleu, signature

        base = signature(nrefs, False)

        def score(stats: list[int]) -> float:
            return compute_bleu(stats, effective_order=False).score
    else:
        from graders.metrics.chrf import compute_chrf, signature

        base = signature(nrefs)

        def score(stats: list[int]) -> float:
            return compute_chrf(stats).score
    head, *rest = base.split("|")
    nref, *others = rest
    return score, "|".join([head, nref, f"bs:{resamples}", f"seed:{seed}", *others])


def paired_corpus(scored: pd.DataFrame, pairs: pd.DataFrame, rows: pd.DataFrame, config: Any, a: str, b: str,
                  cases: np.ndarray, *, resamples: int, seed: int) -> dict[str, Any]:
    """Per corpus metric run (BLEU, chrF): each side's corpus score over the rows paired
    with a score on both sides, the difference A - B with its paired-bootstrap interval and
    p (``stats.corpus.paired_corpus_bootstrap``), and the signature. ``cases``: each row
    of ``pairs``' case code (the unit resampled). Empty when neither is run, or when the
    rows' statistics did not come back (they are read from ``scored``'s details)."""
    out: dict[str, Any] = {}
    wanted = [n for n in CORPUS_METRICS if n in config.grader_names]
    if not wanted or "details" not in scored.columns:
        return out
    for name in wanted:
        keep, stats_a, stats_b = pair_statistics(scored, pairs, name, a, b)
        if keep and len({len(x) for x in stats_a}) == 1:
            out[name] = corpus_figure(name, stats_a, stats_b, cases[keep], ref_counts(rows), resamples=resamples,
                                      seed=seed)
    return out


def ref_counts(rows: pd.DataFrame) -> set[int]:
    """How many references the rows have (one number each way it varies)."""
    return {len(r) for r in rows["refs"]} if "refs" in rows.columns else set()


def pair_statistics(scored: pd.DataFrame, pairs: pd.DataFrame, name: str, a: str,
                    b: str) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """The rows of ``pairs`` of metric ``name`` paired with a score on both sides whose
    sentence statistics (``scored``'s ``statistics``, each row's read already, else read
    from its details) both came back, of one length: their positions, and A's and B's."""
    source = "statistics" if "statistics" in scored.columns else "details" if "details" in scored.columns else None
    cells = scored[source].to_numpy(dtype=object) if source else None

    def read(i: int) -> list[int] | None:
        if i < 0 or cells is None:
            return None
        return cells[i] if source == "statistics" else row_statistics(name, cells[i])

    mine = np.flatnonzero((scored["scorer"] == name).to_numpy())
    systems = scored["system"].to_numpy(dtype=object)[mine]
    records = scored["record"].to_numpy()[mine]
    at = np.flatnonzero((pairs["grader"] == name).to_numpy() & pairs["paired"].to_numpy(dtype=bool))
    found_rows = []
    for side, column in ((a, "record_a"), (b, "record_b")):
        own = np.flatnonzero(systems == side)  # a system's records are unique
        where = pd.Index(records[own]).get_indexer(pairs[column].to_numpy()[at])
        found_rows.append(np.where(where >= 0, mine[own[np.maximum(where, 0)]] if len(own) else -1, -1))
    stats_a, stats_b, keep = [], [], []
    for j, ia, ib in zip(at.tolist(), *(f.tolist() for f in found_rows)):
        sa, sb = read(ia), read(ib)
        if sa is None or sb is None or len(sa) != len(sb):
            continue
        stats_a.append(sa)
        stats_b.append(sb)
        keep.append(j)
    return keep, stats_a, stats_b


def corpus_figure(name: str, stats_a: Any, stats_b: Any, cases: np.ndarray, refs: set[int], *, resamples: int,
                  seed: int) -> dict[str, Any]:
    """One corpus metric's paired figures from the paired rows' statistics (``pair_statistics``)
    and their case codes; ``refs``: the rows' reference counts (``ref_counts``)."""
    nrefs: int | str = next(iter(refs)) if len(refs) == 1 else "var"
    score, signature = _score_and_signature(name, nrefs, resamples, seed)
    found = paired_corpus_bootstrap(stats_a, stats_b, score, clusters=cases, resamples=resamples, seed=seed)
    return {
        "signature": signature, "rows": found.n, "cases": found.cases,
        "a": found.score_a, "b": found.score_b, "difference": found.diff, "ci95": [found.ci_low, found.ci_high],
        "p_value": found.p_value, "p_method": f"paired bootstrap (sacrebleu --paired-bs), {resamples:,} resamples",
        "bootstrap_a": {"mean": found.mean_a, "half_width95": found.half_width_a},
        "bootstrap_b": {"mean": found.mean_b, "half_width95": found.half_width_b},
    }


def corpus_lines(paired: Mapping[str, Any]) -> list[str]:
    """The report's lines on the corpus scores (in sacrebleu's percent)."""
    lines = []
    for name, c in paired.items():
        lines.append(f"  corpus {name:<5} A {100 * c['a']:.2f}  B {100 * c['b']:.2f}  A − B {100 * c['difference']:+.2f} "
                     f"(95% CI {100 * c['ci95'][0]:+.2f} to {100 * c['ci95'][1]:+.2f}, paired bootstrap p = "
                     f"{c['p_value']:.2g}; {c['rows']:,} paired rows) {c['signature']}")
    return lines
