"""Issue 34: corpus BLEU and chrF of A and B with sacrebleu's paired bootstrap (the same
p-value as ``sacrebleu.significance`` on the same seed and resamples), and pass-rate
intervals clustered by case when there are repeats, in compare and in score's summary."""

from __future__ import annotations

import csv
import io
import json
import random

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import _paired_bs_test

from graders._testing import WORDS
from graders.cli import main
from graders.compare.comparison import compare_file
from graders.pipeline import score_file
from graders.readers.files import read_results
from graders.stats import resample_indices
from graders.stats.binary import clustered_pass_rate
from graders.stats.corpus import paired_corpus_bootstrap
from graders.stats.intervals import wilson_interval


def mt_rows(n=60, seed=3):
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        ref = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))

        def noisy(p, ref=ref):
            return " ".join(w if rng.random() > p else rng.choice(WORDS) for w in ref.split())
        rows.append((f"c{i}", ref, noisy(0.3), noisy(0.4)))
    return rows


def wide_file(rows) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "expected", "output", "output_b"])
    w.writerows(rows)
    return buf.getvalue().encode()


@pytest.mark.parametrize("seed, resamples", [(12345, 1000), (3, 500)])
def test_the_paired_corpus_bootstrap_is_sacrebleus(seed, resamples):
    rows = mt_rows()
    c = compare_file(read_results(wide_file(rows)), {"graders": ["bleu", "chrf"]}, resamples=resamples, seed=seed)
    hyp_a, hyp_b, refs = [r[2] for r in rows], [r[3] for r in rows], [[r[1] for r in rows]]
    for name, metric in (("bleu", BLEU()), ("chrf", CHRF())):
        stats_b = metric._extract_corpus_statistics(hyp_b, refs)
        base = metric._aggregate_and_compute(stats_b)
        _, out = _paired_bs_test({name: (stats_b, base)}, "A", hyp_a, refs, {name: metric}, n_samples=resamples,
                                 seed=seed)
        ref, ours = out[name], c.paired_corpus[name]
        assert ours["p_value"] == ref.p_value  # the same draws, the same count
        assert 100 * ours["a"] == pytest.approx(ref.score, abs=1e-9)
        assert 100 * ours["b"] == pytest.approx(base.score, abs=1e-9)
        # sacrebleu sums float32 statistics: its bootstrap figures agree to float32's digits
        assert 100 * ours["bootstrap_a"]["mean"] == pytest.approx(ref.mean, abs=1e-5)
        assert 100 * ours["bootstrap_a"]["half_width95"] == pytest.approx(ref.ci, abs=1e-5)
        assert ours["ci95"][0] <= ours["difference"] <= ours["ci95"][1] or ours["p_value"] > 0.05
        assert ours["rows"] == 60 and ours["cases"] == 60
    assert c.paired_corpus["bleu"]["signature"] == "bleu|nrefs:1|bs:%d|seed:%d|case:mixed|eff:no|tok:13a|smooth:exp" % (
        resamples, seed)
    assert c.paired_corpus["chrf"]["signature"].startswith(f"chrf|nrefs:1|bs:{resamples}|seed:{seed}|case:mixed")
    assert any(line.startswith("  corpus bleu ") for line in c.report().splitlines())
    assert set(c.summary()["corpus_paired"]) == {"bleu", "chrf"}


def test_with_repeats_whole_cases_are_resampled():
    rng = np.random.default_rng(2)
    ids = np.repeat(np.arange(12), 3)
    sa, sb = rng.integers(0, 9, (36, 4)), rng.integers(0, 9, (36, 4))

    def score(s):
        return (s[0] + 1) / (s[1] + s[2] + 2) - s[3] / 100

    found = paired_corpus_bootstrap(sa, sb, score, clusters=ids, resamples=300, seed=8)
    case_a = np.array([sa[ids == g].sum(axis=0) for g in range(12)])
    case_b = np.array([sb[ids == g].sum(axis=0) for g in range(12)])
    diffs = []
    for _, draws in resample_indices(12, 300, 8):
        for row in draws:
            diffs.append(score(case_a[row].sum(axis=0)) - score(case_b[row].sum(axis=0)))
    assert found.cases == 12 and found.n == 36
    assert (found.ci_low, found.ci_high) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])), rel=1e-12)
    observed = abs(score(sa.sum(axis=0)) - score(sb.sum(axis=0)))
    centred = np.abs(diffs) - np.abs(diffs).mean()
    assert found.p_value == (1 + int(np.sum(centred > observed))) / 301


# ---------------------------------------------------------------------------------------
# Pass rates clustered by case with repeats


def repeated_file(tmp_path):
    rng = random.Random(5)
    lines = []
    for i in range(30):
        good = rng.random() < 0.6
        for version in ("v1", "v2"):
            for r in range(4):
                out = f"x{i}" if (good if version == "v1" else rng.random() < 0.5) else "nope"
                lines.append(json.dumps({"id": f"c{i}", "version": version, "repeat": r, "expected": f"x{i}",
                                         "output": out}))
    f = tmp_path / "rep.jsonl"
    f.write_text("\n".join(lines) + "\n")
    return f


def test_scores_summary_clusters_pass_rates_by_case_with_repeats(tmp_path):
    f = repeated_file(tmp_path)
    summary = tmp_path / "s.json"
    assert main(["score", str(f), "--grader", "exact", "--out", str(tmp_path / "o.csv"), "--summary", str(summary)]) == 0
    from_file = json.loads(summary.read_text())  # the command line writes while scoring (a Tally)
    run = score_file(f, {"graders": ["exact"]})  # the library keeps the scored frame
    assert json.loads(json.dumps(run.summary))["systems"] == from_file["systems"]
    assert json.loads(json.dumps(run.summary))["graders"] == from_file["graders"]
    scored = run.scores()
    for version in ("v1", "v2"):
        st = from_file["systems"][version]["exact"]
        mine = scored[(scored["system"] == version) & (scored["scorer"] == "exact")]
        rate = clustered_pass_rate(mine["pass"].to_numpy(dtype=bool), mine["item"].to_numpy(dtype=object))
        assert st["pass_rate_ci95"] == pytest.approx([rate.low, rate.high], abs=1e-15)
        assert st["pass_rate_clustered"]["cases"] == 30
        assert st["pass_rate_clustered"]["design_effect"] == pytest.approx(rate.design.design_effect)
        assert st["pass_rate_ci95"][1] - st["pass_rate_ci95"][0] > np.subtract(*wilson_interval(st["passed"], 120)[::-1])
    v1 = from_file["systems"]["v1"]["exact"]["pass_rate_clustered"]
    assert v1["icc"] == pytest.approx(1.0) and v1["design_effect"] == pytest.approx(4.0)  # v1's repeats agree


def test_without_repeats_the_summary_is_as_before(tmp_path):
    f = tmp_path / "w.csv"
    f.write_text("id,expected,output,repeat\n" + "".join(f"{i},x,{'x' if i % 3 else 'y'},0\n" for i in range(30)))
    run = score_file(f, {"graders": ["exact"]})
    st = run.summary["graders"]["exact"]
    assert "pass_rate_clustered" not in st and st["pass_rate_ci95"] == list(wilson_interval(st["passed"], 30))


def test_compare_clusters_each_sides_pass_rate(tmp_path):
    f = repeated_file(tmp_path)
    c = compare_file(read_results(f), {"graders": ["exact"]}, resamples=200)
    s = c.metrics["exact"].stats
    assert s.clustered and s.pass_rate_a_design.cases == 30 and s.pass_rate_a_design.icc == pytest.approx(1.0)
    summary = c.summary()
    assert summary["metrics"]["exact"]["pass_rate_a_design"]["design_effect"] == pytest.approx(4.0)
    assert summary["metrics"]["exact"]["pass_rate_a_ci95"] == list(s.pass_rate_a_ci)
    assert summary["graders"]["v1"]["exact"]["pass_rate_ci95"] == pytest.approx(list(s.pass_rate_a_ci))
