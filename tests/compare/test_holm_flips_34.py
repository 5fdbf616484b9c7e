"""Issue 34: the Holm family is the gated (primary) metrics, overall on its own; the
minimum detectable difference at the level each metric is tested at; sign-flip p-values
with their Monte Carlo error, more flips near the threshold; A and B of a long file in
file order."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats

from graders.cli import main
from graders.compare.comparison import CompareError, compare_file
from graders.config import GraderConfig, RunConfig
from graders.readers.files import read_results
from graders.stats import holm_adjust, mcnemar_exact, mcnemar_mdd, sign_flip_bits, summarize_pair
from graders.stats import tests as stats_tests


def cfg(*names, overall=None):
    return RunConfig({}, tuple(GraderConfig.make(n) for n in names), overall)


def issue_file(tmp_path):
    """100 cases: exact sees 5 wins of A and 16 losses (A answers in capitals where B does
    not, and the reverse); normalized (trim, lower) ties on every row."""
    lines = ["id,expected,output,output_b"]
    for i in range(100):
        a, b = (f"X{i}", f"x{i}") if i < 16 else (f"x{i}", f"X{i}") if i < 21 else (f"x{i}", f"x{i}")
        lines.append(f"{i},x{i},{a},{b}")
    f = tmp_path / "w.csv"
    f.write_text("\n".join(lines) + "\n")
    return f


def test_the_gate_is_not_weakened_by_an_exploratory_grader(tmp_path, capsys):
    """The issue's example: gating exact exits 1; adding normalized, which ties on all 100
    rows (p = 1), made it exit 0 (Holm p 0.027 -> 0.053). The family is the gated graders."""
    f = issue_file(tmp_path)
    p = mcnemar_exact(5, 16)
    assert p == pytest.approx(scipy.stats.binomtest(5, 21).pvalue) and round(p, 3) == 0.027
    assert holm_adjust([p, 1.0])[0] == pytest.approx(2 * p)  # what the old family gave: 0.053
    out, summary = tmp_path / "o.csv", tmp_path / "s.json"
    base = ["compare", str(f), "--grader", "exact", "--out", str(out), "--summary", str(summary), "--fail-if-worse", "exact"]
    assert main(base) == 1
    assert main([*base, "--grader", "normalized"]) == 1
    err = capsys.readouterr().err
    assert f"A is worse than B on exact beyond the 95% interval (Holm p = {p:.2g})" in err
    s = json.loads(summary.read_text())
    assert s["holm"]["family"] == ["exact"] and s["holm"]["unadjusted"] == ["normalized"]
    exact, normalized = s["metrics"]["exact"], s["metrics"]["normalized"]
    assert exact["holm"] == "holm" and exact["p_holm"] == exact["p_value"] == pytest.approx(p)
    assert normalized["holm"] == "unadjusted" and normalized["p_holm"] is None and normalized["p_value"] == 1.0
    assert exact["min_detectable_difference_alpha"] == 0.05 and exact["ci_method"] == "Tango score"
    # no gate: every grader is the family, as before
    assert main(base[:-2] + ["--grader", "normalized"]) == 0
    s = json.loads(summary.read_text())
    assert s["holm"]["family"] == ["exact", "normalized"] and s["metrics"]["exact"]["p_holm"] == pytest.approx(2 * p)
    assert s["holm"]["chosen_by"] == "every grader compared"


def test_the_report_says_what_was_adjusted(tmp_path, capsys):
    f = issue_file(tmp_path)
    args = ["compare", str(f), "--grader", "exact", "--grader", "normalized", "--out", str(tmp_path / "o.csv")]
    main([*args, "--fail-if-worse", "exact"])
    report = capsys.readouterr().out
    assert ("Holm-adjusted across exact (the primary metrics (on the command line --primary, else the --fail-if-worse "
            "graders; on the Compare page, those marked primary)); "
            "unadjusted p for normalized.") in report
    assert report.splitlines()[0] == "A = output, B = output_b (wide file; A is the output column, B the output_b column)"


def test_overall_is_never_in_a_family_with_its_parts(tmp_path):
    f = issue_file(tmp_path)
    c = compare_file(read_results(f), cfg("exact", "normalized", overall="all"), resamples=200)
    assert c.families.family == ("exact", "normalized") and c.families.alone == ("overall",)
    overall = c.metrics["overall"]
    assert overall.holm == "alone" and overall.p_holm == overall.stats.p_value
    assert c.metrics["exact"].p_holm == pytest.approx(holm_adjust([c.metrics["exact"].stats.p_value, 1.0])[0])
    gated = compare_file(read_results(f), cfg("exact", "normalized", overall="all"), resamples=200,
                         primary=["overall", "exact"])
    assert gated.families.family == ("exact",) and gated.families.alone == ("overall",)
    assert gated.families.unadjusted == ("normalized",)
    assert gated.metrics["exact"].p_holm == gated.metrics["exact"].stats.p_value
    assert "unadjusted" in gated.metrics["normalized"].words or gated.metrics["normalized"].stats.wins == 0
    assert gated.gate_pvalues(["exact", "normalized"])["exact"] == pytest.approx(c.metrics["exact"].p_holm)
    with pytest.raises(CompareError, match="grader 'bleu' was not compared"):
        compare_file(read_results(f), cfg("exact"), resamples=200, primary=["bleu"])


def test_an_unadjusted_metric_says_so():
    lines = ["id,expected,output,output_b"] + [f"{i},x{i},{'x' if i % 3 else 'y'}{i},x{i}" for i in range(60)]
    c = compare_file(read_results(("\n".join(lines) + "\n").encode()), cfg("exact", "contains"), resamples=200,
                     primary=["exact"])
    assert c.metrics["contains"].holm == "unadjusted" and c.metrics["contains"].p_holm is None
    assert ", unadjusted)" in c.metrics["contains"].words
    assert "Holm p" in c.metrics["exact"].words


def test_the_minimum_detectable_difference_is_at_the_level_tested():
    lines = ["id,expected,output,output_b"] + [f"{i},x{i},{'x' if i % 3 else 'y'}{i},{'x' if i % 4 else 'z'}{i}"
                                               for i in range(80)]
    c = compare_file(read_results(("\n".join(lines) + "\n").encode()), cfg("exact", "contains", "normalized"),
                     resamples=200)
    s = c.metrics["exact"].stats
    assert s.mdd_alpha == pytest.approx(0.05 / 3)
    assert s.mdd == pytest.approx(mcnemar_mdd((s.b + s.c) / s.n, s.n, alpha=0.05 / 3))
    assert s.mdd > mcnemar_mdd((s.b + s.c) / s.n, s.n)
    one = compare_file(read_results(("\n".join(lines) + "\n").encode()), cfg("exact", "contains", "normalized"),
                       resamples=200, primary=["exact"])
    assert one.metrics["exact"].stats.mdd == pytest.approx(mcnemar_mdd((s.b + s.c) / s.n, s.n))
    assert one.metrics["contains"].stats.mdd_alpha == 0.05


# ---------------------------------------------------------------------------------------
# Sign-flip p-values: Monte Carlo error, and more flips near the threshold


def loop_flips(sums, flips, seed):
    """The Monte Carlo p-value over the first ``flips`` flips of the stream, as a plain loop."""
    total = abs(sums.sum())
    hits = 0
    for _, rows in sign_flip_bits(len(sums), flips, seed):
        for keep in rows:
            signs = np.where(keep == 1, 1.0, -1.0)
            hits += abs(signs @ sums) >= total - 1e-9 * np.abs(sums).sum()
    return (1 + hits) / (1 + flips)


def test_more_flips_continue_the_same_stream():
    sums = np.random.default_rng(1).normal(size=70)
    whole = stats_tests._sign_flip_hits(sums[None, :], 900, 5)
    parts = stats_tests._sign_flip_hits(sums[None, :], 400, 5) + stats_tests._sign_flip_hits(sums[None, :], 500, 5, start=400)
    assert whole.tolist() == parts.tolist()


def test_a_random_flip_p_reports_its_monte_carlo_error():
    rng = np.random.default_rng(3)
    a, b = rng.random(60), rng.random(60)
    s = summarize_pair(a, b, resamples=1000, seed=2)
    assert s.p_flips == 1000 and s.p_method == "sign-flip, 1,000 random flips"
    assert s.p_mc_error == pytest.approx(math.sqrt(s.p_value * (1 - s.p_value) / 1000))
    assert s.p_value == pytest.approx(loop_flips(a - b, 1000, 2))
    exact = summarize_pair(a[:10], b[:10])
    assert exact.p_flips == 0 and exact.p_mc_error is None


def _near_the_threshold():
    """Differences whose sign-flip p is close to 0.05."""
    rng = np.random.default_rng(0)
    d = rng.normal(0.0, 1.0, 50)
    d = d - d.mean()
    shift = 1.96 * d.std(ddof=1) / math.sqrt(50)
    return d + shift


def test_near_alpha_the_test_adds_flips_until_the_decision_is_stable():
    d = _near_the_threshold()
    found = stats_tests._sign_flip_pvalues(d[None, :], 500, 0, [[0.05]])[0]
    assert found.flips > 500 and "more near the threshold" in found.method
    assert found.p == pytest.approx(loop_flips(d, found.flips, 0))
    low, high = stats_tests._band(round(found.p * (1 + found.flips)) - 1, found.flips)
    assert found.undecided is not None or not low <= 0.05 <= high
    # without a threshold (or far from it) no flips are added
    assert stats_tests._sign_flip_pvalues(d[None, :], 500, 0)[0].flips == 500
    assert stats_tests._sign_flip_pvalues(d[None, :], 500, 0, [[0.9]])[0].flips == 500


def test_a_p_that_cannot_be_told_from_alpha_says_so():
    d = _near_the_threshold()
    found = stats_tests._sign_flip_pvalues(d[None, :], 200, 0, [[0.05]], max_flips=400)[0]
    if found.undecided is not None:
        assert found.undecided == 0.05 and "p cannot be told from 0.05 at 400 flips" in found.method
    else:  # the band cleared 0.05 within 400 flips for this seed
        low, high = stats_tests._band(round(found.p * (1 + found.flips)) - 1, found.flips)
        assert not low <= 0.05 <= high


def test_a_summarys_flips_are_extended_for_its_holm_levels():
    d = _near_the_threshold()
    one = summarize_pair(d, np.zeros(50), resamples=500, seed=0)
    assert one.p_flips > 500
    assert one.p_value == pytest.approx(loop_flips(d, one.p_flips, 0))


# ---------------------------------------------------------------------------------------
# A and B of a long file: its first two versions in file order


LEFT_OUT_FIRST = (b"id,version,expected,output\n"
                  b"1,v1,a,\n"        # left out: no output
                  b"2,v2,a,a\n2,v1,a,b\n3,v2,b,b\n3,v1,b,b\n")


def test_a_left_out_first_row_does_not_swap_a_and_b(tmp_path, capsys):
    c = compare_file(read_results(LEFT_OUT_FIRST), cfg("exact"), resamples=200)
    assert (c.label_a, c.label_b) == ("v1", "v2")  # the rows kept start with v2
    assert c.sides == "A and B are the file's two versions in file order"
    assert c.metrics["exact"].stats.mean_diff == -0.5
    chosen = compare_file(read_results(LEFT_OUT_FIRST), cfg("exact"), resamples=200, version_a="v2", version_b="v1")
    assert (chosen.label_a, chosen.label_b, chosen.sides) == ("v2", "v1", "A and B as given (--a and --b, or two files in order)")
    f = tmp_path / "l.csv"
    f.write_bytes(LEFT_OUT_FIRST)
    assert main(["compare", str(f), "--grader", "exact", "--out", str(tmp_path / "o.csv"), "--summary",
                 str(tmp_path / "s.json"), "--fail-if-worse", "exact"]) == 0
    s = json.loads((tmp_path / "s.json").read_text())
    assert (s["a"], s["b"], s["sides"]) == ("v1", "v2", "A and B are the file's two versions in file order")
    assert capsys.readouterr().out.startswith(
        "A = v1, B = v2 (long file; A and B are the file's two versions in file order)")
