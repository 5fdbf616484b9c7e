"""BLEU and chrF against sacrebleu itself: 5,000+ generated pairs each, to 1e-9, plus
hand cases and the corpus figures. sacrebleu is a test dependency only."""

import pytest
import sacrebleu

from graders import corpus_bleu, corpus_chrf, grade
from graders._testing import pairs

N = 5200
PAIRS = list(pairs(N, seed=31337))
HAND = [
    (["the cat sat on the mat"], "the cat sat on the mat"),
    (["the cat sat on the mat"], ""),
    ([""], "the cat"),
    ([""], ""),
    (["a b c d"], "a"),
    (["refund-status is open"], "refund-status is open."),
    (["snake_case value"], "snake case value"),
    (["1,234.56 dollars"], "1,234.56 dollars"),
    (["It costs $42.00."], "It costs $42."),
    (["!!! ??? ..."], "..."),
    (["Zürich straße 東京 😀"], "Zurich strasse 東京"),
    (["the quick brown fox", "a fast brown fox", "the quick fox"], "the fast brown fox"),
    (["short", "a much longer reference here"], "short one"),
    (["e\u0301clair"], "éclair"),
    (["tab\tseparated\u00a0nbsp"], "tab separated nbsp"),
]


def _close(a, b):
    return abs(a - b) <= 1e-9


@pytest.mark.parametrize("refs, out", HAND)
def test_hand_cases(refs, out):
    assert _close(grade("bleu", expected=refs, output=out).score, sacrebleu.sentence_bleu(out, refs).score / 100)
    assert _close(grade("chrf", expected=refs, output=out).score, sacrebleu.sentence_chrf(out, refs).score / 100)


def test_sentence_bleu_golden():
    bad = [(r, o) for r, o in PAIRS if not _close(grade("bleu", expected=r, output=o).score, sacrebleu.sentence_bleu(o, r).score / 100)]
    assert not bad, bad[:3]


def test_sentence_chrf_golden():
    bad = [(r, o) for r, o in PAIRS if not _close(grade("chrf", expected=r, output=o).score, sacrebleu.sentence_chrf(o, r).score / 100)]
    assert not bad, bad[:3]


def _streams(refs_per_row):
    # sacrebleu takes reference streams; rows with fewer references pad with None.
    k = max(len(r) for r in refs_per_row)
    return [[r[j] if j < len(r) else None for r in refs_per_row] for j in range(k)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_corpus_figures(seed):
    data = list(pairs(800, seed=seed, max_refs=1))
    outs, refs = [o for _, o in data], [r for r, _ in data]
    assert _close(corpus_bleu(outs, refs), sacrebleu.corpus_bleu(outs, _streams(refs)).score / 100)
    assert _close(corpus_chrf(outs, refs), sacrebleu.corpus_chrf(outs, _streams(refs)).score / 100)


def test_corpus_figures_several_references():
    data = [(r + [r[0].upper()], o) for r, o in pairs(500, seed=9, max_refs=1)]
    outs, refs = [o for _, o in data], [r for r, _ in data]
    assert _close(corpus_bleu(outs, refs), sacrebleu.corpus_bleu(outs, _streams(refs)).score / 100)
    assert _close(corpus_chrf(outs, refs), sacrebleu.corpus_chrf(outs, _streams(refs)).score / 100)


def test_signatures_state_the_settings():
    g = grade("bleu", expected=["a b", "a c"], output="a b")
    assert g.details["signature"].startswith("bleu|nrefs:2") and "tok:13a" in g.details["signature"]
    assert "smooth:exp" in g.details["signature"] and "eff:yes" in g.details["signature"]
    assert g.details["signature"] in g.explanation
    c = grade("chrf", expected="a b", output="a b")
    assert c.details["signature"].startswith("chrf|nrefs:1") and "beta:2" in c.details["signature"]
