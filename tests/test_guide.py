"""The pages' explanatory prose (ui/guide.py): it renders under AppTest, and its concrete
claims hold for the code — defaults, orders, lists, labels and worked examples."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from graders import GRADER_NAMES, grade
from graders.registry import BELOW_THRESHOLD_MARGIN, REGISTRY
from ui import guide

ROOT = Path(__file__).resolve().parent.parent
CODE = re.compile(r"`([^`]+)`")

ALL_SECTIONS = guide.PLAYGROUND_SECTIONS + guide.SCORE_SECTIONS + guide.COMPARE_SECTIONS
ALL_TEXT = "\n\n".join(text for _, text in ALL_SECTIONS)


def codes(text: str) -> list[str]:
    return CODE.findall(text)


# --------------------------------------------------------------------------- rendering

RENDERERS = [
    ("playground_guide", guide.PLAYGROUND_SECTIONS),
    ("score_guide", guide.SCORE_SECTIONS),
    ("compare_guide", guide.COMPARE_SECTIONS),
]


@pytest.mark.parametrize("function, sections", RENDERERS, ids=[r[0] for r in RENDERERS])
def test_guide_renders_collapsed_expanders(tmp_path, function, sections):
    script = tmp_path / f"{function}.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        f"from ui.guide import {function}\n"
        f"{function}()\n",
        encoding="utf-8",
    )
    at = AppTest.from_file(str(script), default_timeout=60).run()
    assert not at.exception
    assert [e.label for e in at.expander] == [label for label, _ in sections]
    for expander, (_, text) in zip(at.expander, sections):
        assert expander.proto.expanded is False
        assert [m.value for m in expander.markdown] == [text]


def test_expander_labels():
    assert guide.PLAYGROUND_LABELS == ("How each grader works", "Sources")
    assert guide.SCORE_LABELS == ("How this is calculated", "Questions")
    assert guide.COMPARE_LABELS == ("Background", "Tips and limitations", "Questions")


@pytest.mark.parametrize("name, sections", [
    ("playground", guide.PLAYGROUND_SECTIONS[:1]),  # the prose; Sources is a reference list
    ("score", guide.SCORE_SECTIONS),
    ("compare", guide.COMPARE_SECTIONS),
])
def test_guides_stay_short(name, sections):
    assert sum(len(text.split()) for _, text in sections) <= 800


def test_no_dollar_outside_code_spans():
    """st.markdown reads $…$ as LaTeX: every $ sits inside a code span."""
    for label, text in ALL_SECTIONS:
        assert "$" not in CODE.sub("", text), label


# --------------------------------------------------------------------------- playground

def test_every_grader_has_a_paragraph_in_order():
    assert list(guide.GRADER_PARAGRAPHS) == list(GRADER_NAMES)
    how = guide.PLAYGROUND_HOW
    positions = [how.index(f"**{REGISTRY[n].label}** (`{n}`).") for n in GRADER_NAMES]
    assert positions == sorted(positions)


@pytest.mark.parametrize("name", GRADER_NAMES)
def test_quoted_parameters_are_the_registry_defaults(name):
    paragraph = guide.GRADER_PARAGRAPHS[name]
    spec = REGISTRY[name]
    if not spec.params:
        assert paragraph.endswith("No parameters.")
        return
    sentence = paragraph[paragraph.index("Parameters: "):]
    quoted = dict(re.findall(r"`(\w+)` = `([^`]*)`", sentence))
    required = re.findall(r"`(\w+)` \(required\)", sentence)
    assert sorted([*quoted, *required]) == sorted(p.name for p in spec.params)
    for p in spec.params:
        if p.required:
            assert p.name in required
        else:
            default = list(p.default) if isinstance(p.default, tuple) else p.default
            assert json.loads(quoted[p.name]) == default, p.name


def test_defaults_the_prose_states():
    params = {n: {p.name: p.default for p in REGISTRY[n].params} for n in GRADER_NAMES}
    # "Numeric reads the whole text by default"; "token F1 normalizes the SQuAD way by default"
    assert "Numeric reads the whole text by default" in guide.COMPARE_BACKGROUND
    assert params["numeric"]["read"] == "whole"
    assert params["token_f1"]["normalize"] == "squad"
    assert params["contains"] == {"require": "any", "at": "anywhere"}
    assert list(params["normalized"]["pipeline"]) == ["trim", "lower"]
    assert params["regex"]["timeout"] == 1.0


def test_normalization_steps_and_squad_order():
    from graders.text.normalize import SQUAD_PIPELINE, STEPS, WHITESPACE

    text = guide.GRADER_TEXT["normalized"]
    listed = codes(text[text.index("Steps:"):text.index("**Use the SQuAD pipeline**")])
    assert [c for c in listed if c not in (".", "!")] == list(STEPS)
    order = text[text.index("order: ") + len("order: "):].rstrip(".").split(", ")
    assert tuple(order) == SQUAD_PIPELINE
    assert len(WHITESPACE) == 29 and "the 29 characters `str.strip()` removes" in guide.PLAYGROUND_INTRO


def test_probe_order_and_codes():
    from graders.metrics.nearmiss import PROBE_CODES, PROBE_STEPS

    assert codes(guide.PROBE_ORDER_TEXT) == list(PROBE_STEPS)
    assert guide.PROBE_ORDER_TEXT in guide.NEAR_MISS_TEXT
    assert set(PROBE_CODES) <= set(codes(guide.NEAR_MISS_TEXT))
    assert BELOW_THRESHOLD_MARGIN == 0.1 and "within 0.1 below" in guide.NEAR_MISS_TEXT


@pytest.mark.parametrize("example", guide.WORKED_EXAMPLES, ids=lambda e: f"{e[0]}:{e[2][:20]}")
def test_worked_examples_reproduce(example):
    name, expected, output, params, status, score = example
    g = grade(name, expected=expected, output=output, **params)
    assert g.status == status
    assert g.score == pytest.approx(score)
    assert f"`{output}`" in ALL_TEXT  # the text quotes the example's output


def test_token_f1_example_details():
    d = grade("token_f1", expected="Canberra", output="Canberra is the capital").details
    assert (d["precision"], d["recall"]) == (pytest.approx(1 / 3), 1.0)
    assert "precision 1/3, recall 1, F1 0.5" in guide.GRADER_TEXT["token_f1"]
    assert grade("token_f1", expected="Canberra", output="Canberra is the capital", threshold=0.6).near_miss == (
        "below_threshold",)


def test_stated_behaviours():
    from graders.engines.schema import DIALECTS
    from graders.metrics.chrf import BETA, CHAR_ORDER
    from graders.metrics.rouge_l import MAX_CELLS

    assert MAX_CELLS == 25_000_000 and "25,000,000" in guide.GRADER_TEXT["rouge_l"]
    assert (CHAR_ORDER, BETA) == (6, 2)
    assert set(DIALECTS) == {"draft-04", "draft-06", "draft-07", "2019-09", "2020-12"}
    for bad in ("NaN", "Infinity"):
        assert grade("valid_json", output=bad).status == "fail"
    g = grade("bleu", expected="a b c d", output="a b c d")
    assert g.details["signature"] in guide.GRADER_TEXT["bleu"] and g.details["signature"] in g.explanation
    assert grade("regex", output="x", pattern="(?P<n>x)").status == "error"
    assert grade("json_schema", output="{}", schema={"$ref": "other.json"}).status == "not_judged"
    meta = {"$ref": "https://json-schema.org/draft/2020-12/schema"}  # "meta-schemas excepted"
    assert grade("json_schema", output="{}", schema=meta).status == "pass"
    assert grade("json_schema", output="{}", schema={"type": "object", "foo": 1}).status == "not_judged"
    assert grade("contains", expected=["a", "b"], output="a", require="all").status == "fail"
    assert grade("numeric", expected="x", output="1").status == "not_judged"
    assert grade("numeric", expected="1", output="x").status == "fail"
    assert grade("numeric", expected="50", output="50%").status == "pass"


# --------------------------------------------------------------------------- score a file

def test_assertion_kinds_listed_are_the_supported_set():
    from graders.scoring.assertions import KNOWN_KINDS, run_assertion

    listed = codes(guide.ASSERTION_KINDS_TEXT)
    assert sorted(listed) == sorted(KNOWN_KINDS) and len(listed) == len(set(listed))
    answer = dict(guide.SCORE_QUESTIONS)["Which per-row assertion kinds does this page run?"]
    assert guide.ASSERTION_KINDS_TEXT in answer
    for kind in ("llm-rubric", "javascript"):
        assert kind not in KNOWN_KINDS
        g, meta = run_assertion({"type": kind}, ("x",), "x")
        assert g.status == "error" and meta.get("unsupported")
    g, _ = run_assertion({"type": "not-contains", "value": "sorry"}, ("x",), "fine")
    assert g.status == "pass"


def test_left_out_reasons_are_the_code_reasons():
    from graders.scoring.rows import EXPECTED_KINDS, LEFT_OUT_REASONS

    assert re.findall(r"`([a-z -]+)`", guide.LEFT_OUT_TEXT) == list(LEFT_OUT_REASONS)
    assert "(not exact, any-of or label)" in guide.LEFT_OUT_TEXT and EXPECTED_KINDS == ("exact", "any-of", "label")
    assert guide.LEFT_OUT_TEXT in dict(guide.SCORE_QUESTIONS)["Why were some rows left out?"]


def test_overall_graders_and_scored_columns():
    from graders.config import OVERALL_GRADERS
    from graders.scoring.batch import NO_BINARY_GRADER
    from graders.scoring.output import SCORED_COLUMNS

    assert codes(guide.OVERALL_GRADERS_TEXT) == list(OVERALL_GRADERS)
    assert f"`{', '.join(SCORED_COLUMNS)}`" in guide.SCORE_HOW
    assert f"`{NO_BINARY_GRADER}`" in guide.SCORE_HOW


def test_column_aliases():
    from graders.config import ALIASES, suggest_mapping

    answer = dict(guide.SCORE_QUESTIONS)["What file formats and columns does this page read?"]
    roles = ("id", "expected", "output", "input", "version", "repeat", "expected_kind", "assert")
    assert sorted(codes(answer)) == sorted(a for r in roles for a in ALIASES[r])
    compare = dict(guide.COMPARE_QUESTIONS)["Which column names does it understand?"]
    assert [c for c in codes(compare) if c not in ("vars.expected", "label")] == list(ALIASES["output_b"])
    # any case, a dotted name by its last part, and label only when nothing else matches
    assert suggest_mapping(["ID", "vars.expected", "Output"]) == {
        **dict.fromkeys(ALIASES), "id": "ID", "expected": "vars.expected", "output": "Output"}
    assert suggest_mapping(["label", "answer", "output"])["expected"] == "answer"
    assert suggest_mapping(["label", "output"])["expected"] == "label"


def test_corpus_example_reproduces():
    from graders.config import load_config
    from graders.pipeline import score_file

    run = score_file(ROOT / "sample_data" / "returns_desk.csv", load_config(ROOT / "sample_data" / "returns_desk.config.json"))
    (figures,) = run.summary["corpus"].values()  # one system
    answer = dict(guide.SCORE_QUESTIONS)["Why does corpus BLEU differ from the mean of sentence BLEU?"]
    for name, words in (("bleu", "BLEU"), ("chrf", "chrF")):
        assert f"mean sentence {words} {figures[name]['mean_sentence']:.3f}" in answer
        assert f"corpus {words} {figures[name]['corpus']:.3f}" in answer


def test_reproduce_in_ci_as_written(tmp_path, capsys):
    from graders.cli import main

    sample, config = ROOT / "sample_data" / "returns_desk.csv", ROOT / "sample_data" / "returns_desk.config.json"
    answer = dict(guide.SCORE_QUESTIONS)["How do I reproduce this run in CI?"]
    command = re.search(r"`gradeboard score FILE ([^`]*)`", answer).group(1).split()
    assert command == ["--config", "gradeboard.config.json", "--out", "scored.csv", "--summary", "summary.json"]
    views = (ROOT / "ui" / "views.py").read_text(encoding="utf-8")
    assert "--config gradeboard.config.json" in views and "--out scored.csv --summary summary.json" in views
    base = ["score", str(sample), "--config", str(config), "--out", str(tmp_path / "s.csv"),
            "--summary", str(tmp_path / "s.json"), "--workers", "1"]
    assert main(base + ["--fail-under", "exact=0.1"]) == 0  # exact passes 8 of 40
    assert main(base + ["--fail-under", "exact=0.5"]) == 1
    assert main(base + ["--fail-under", "bleu=0.1"]) == 2  # no threshold: no pass rate
    capsys.readouterr()


def test_nothing_is_sent_anywhere():
    config = (ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8")
    assert re.search(r"^gatherUsageStats\s*=\s*false", config, re.M)
    network = re.compile(r"^\s*(?:import|from)\s+(?:requests|httpx|socket|urllib\.request|http\.client|aiohttp)\b", re.M)
    files = [ROOT / "app.py", *(ROOT / "graders").glob("*.py"), *(ROOT / "ui").glob("*.py"),
             *(ROOT / "pages").glob("*.py")]
    for path in files:
        assert not network.search(path.read_text(encoding="utf-8")), path


# --------------------------------------------------------------------------- compare

def test_holm_example_reproduces():
    from graders.compare.comparison import compare_file
    from graders.config import RunConfig
    from graders.readers.files import read_results

    config = RunConfig.from_dict({"graders": [{"name": "exact"}, {"name": "token_f1"}]})
    ab = compare_file(read_results(ROOT / "sample_data" / "returns_ab_wide.csv"), config, workers=1)
    s = ab.metrics["exact"].stats
    answer = dict(guide.COMPARE_QUESTIONS)["What does Holm's adjustment do?"]
    assert f"{s.wins} wins, {s.losses} losses and {s.ties} ties" in answer
    assert s.p_method == "McNemar exact"
    assert f"McNemar p {s.p_value:.2g}, Holm p {ab.metrics['exact'].p_holm:.2g}" in answer
    assert ab.metrics["exact"].p_holm == pytest.approx(2 * s.p_value)  # the smaller of two p-values, times 2


def test_statistics_as_described():
    from graders.compare.comparison import compare_prepared
    from graders.explore.sensitivity import ALPHA, LADDER, LADDER_PARAMS
    from graders.stats import paired_bootstrap
    from graders.stats import tests as stats

    b, c = 4, 15
    tail = sum(math.comb(b + c, k) for k in range(min(b, c) + 1)) / 2 ** (b + c)
    assert stats.mcnemar_exact(b, c) == pytest.approx(min(1.0, 2 * tail))
    assert stats._EXACT_FLIP_UNITS == 16
    answer = dict(guide.COMPARE_QUESTIONS)["Which test gives the p-value?"]
    assert "exact when at most 16 cases differ or every difference is a whole number" in answer
    rng = np.random.default_rng(1)
    diffs = rng.normal(0.1, 0.3, 30)
    assert stats._sign_flip_pvalues(diffs[:16][None, :], 2000, 0)[0][1] == "exact"
    assert stats._sign_flip_pvalues(np.round(diffs * 3)[None, :], 2000, 0)[0][1] == "exact"
    assert stats._sign_flip_pvalues(diffs[None, :], 2000, 0)[0][1] == "2,000 random flips"
    assert stats.holm_adjust([0.04, 0.01, 0.9]) == pytest.approx([0.08, 0.03, 0.9])
    assert ALPHA == 0.05
    assert compare_prepared.__kwdefaults__["resamples"] == 2000
    compare_page = (ROOT / "ui" / "comparing.py").read_text(encoding="utf-8")  # the Compare page's sections
    assert 'ss.setdefault(w("resamples"), 2000)' in compare_page
    assert LADDER == ("exact", "normalized", "contains", "token_f1", "numeric")
    assert "(exact, normalized, contains, token F1, numeric)" in " ".join(guide.COMPARE_TIPS)
    assert LADDER_PARAMS["numeric"] == {"read": "last", "rel_tol": 0.01}
    # fewer than two cases: no interval
    assert all(math.isnan(x) for x in paired_bootstrap([0.5]))


def test_outcome_words_are_the_comparison_csv_values():
    answer = dict(guide.COMPARE_QUESTIONS)["How are wins, losses and ties counted?"]
    source = (ROOT / "graders" / "compare" / "pairing.py").read_text(encoding="utf-8")  # outcomes()
    for word in codes(answer):
        assert f'"{word}"' in source


# --------------------------------------------------------------------------- labels

def _ui_source() -> str:
    files = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").glob("*.py"),
             *(ROOT / "ui" / "present").glob("*.py")]
    return "\n".join(p.read_text(encoding="utf-8") for p in files if p.name != "guide.py")


def test_ui_labels_are_real_and_quoted():
    source = _ui_source()
    for label in guide.UI_LABELS:
        assert label in source, label
        assert f"**{label}**" in ALL_TEXT, label
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    for title in guide.PAGE_TITLES:
        assert f'title="{title}"' in app and title in ALL_TEXT
