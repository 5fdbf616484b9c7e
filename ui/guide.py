"""The explanatory prose of three pages, in Gradeboard's own words: how each grader works
and its sources (Grader playground), how a file is scored and its questions (Score a file),
and the background, tips and questions of a comparison (Compare A and B).

Every claim here is about this implementation, and ``tests/test_guide.py`` holds the
concrete ones to the code: the parameter defaults (written from ``REGISTRY``), the near-miss
order, the assertion kinds, the left-out reasons, the overall row's graders, the UI labels
quoted and the worked examples (``WORKED_EXAMPLES``, re-run with ``grade``).

The text is module-level constants; ``playground_guide``, ``score_guide`` and
``compare_guide`` draw it in collapsed ``st.expander``s, one ``st.markdown`` each.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

import streamlit as st

from graders import GRADER_NAMES
from graders.registry import REGISTRY, Param

PLAYGROUND_LABELS = ("How each grader works", "Sources")
SCORE_LABELS = ("How this is calculated", "Questions")
COMPARE_LABELS = ("Background", "Tips and limitations", "Questions")

# Widget labels, buttons and headings the text names (tests: each is in the text and in the
# pages' source), and the page titles (app.py's navigation).
UI_LABELS = (
    "Several references, one per line", "Pass or fail with a threshold", "Use the SQuAD pipeline",
    "Column mapping", "Corpus beside mean sentence scores", "All pass", "Any passes", "Assertion kinds not run",
    "Pass rate (Wilson 95%)", "Export configuration", "Restore a configuration (JSON)", "Downloads",
    "Second model output", "A (version)", "B (version)", "Bootstrap resamples", "Seed", "Reading", "In words",
    "Where A and B disagree", "A fails, B passes", "A passes, B fails", "Any disagreement",
    "Largest drops (A below B)", "Does the verdict depend on the grader?", "Comparison CSV", "Rows",
    "graders disagree", "systems disagree",
)
PAGE_TITLES = ("Score a file", "Grader playground", "Compare A and B", "Pass rate")

# Worked examples the text quotes: (grader, expected, output, parameters, status, score), each
# reproduced by tests/test_guide.py with ``graders.grade``.
WORKED_EXAMPLES: tuple[tuple[str, str, str, dict[str, Any], str, float | None], ...] = (
    ("contains", "Canberra", "No, Canberra is not the capital", {}, "pass", 1.0),
    ("token_f1", "Canberra", "Canberra is the capital", {}, "scored", 0.5),
    ("token_f1", "the", "a", {}, "scored", 1.0),
    ("numeric", "3.11", "About 3.1 miles", {}, "fail", 0.0),
    ("numeric", "3.11", "About 3.1 miles", {"read": "last", "rel_tol": 0.01}, "pass", 1.0),
    ("json_fields", '{"name": "Maria", "age": 34}', '{"name": "Maria", "age": "34"}', {}, "scored", 0.5),
    ("regex", "", "ab", {"pattern": "a|ab", "at": "whole"}, "pass", 1.0),
)

# ----------------------------------------------------------------------------- playground


def _value(value: Any) -> str:
    return json.dumps(list(value) if isinstance(value, tuple) else value)


def param_words(name: str) -> str:
    """The grader's parameters with their defaults as ``REGISTRY`` holds them (JSON), as one
    sentence: `name` = `default`, or `name` (required)."""
    params: tuple[Param, ...] = REGISTRY[name].params
    if not params:
        return "No parameters."
    return "Parameters: " + ", ".join(
        f"`{p.name}` (required)" if p.required else f"`{p.name}` = `{_value(p.default)}`" for p in params
    ) + "."


PLAYGROUND_INTRO = (
    "Each grader runs on its own. With **Several references, one per line**, a pass-or-fail grader passes "
    "when one reference does (Contains with `all` needs every one); a continuous one takes its best score "
    "(BLEU and chrF use all at once, as sacrebleu does) and, with **Pass or fail with a threshold**, passes "
    "when score ≥ threshold. Whitespace: the 29 characters `str.strip()` removes."
)

GRADER_TEXT: dict[str, str] = {
    "exact": (
        "Code-point equality, no normalization. A fail names the first differing position (0-based), both "
        "characters with their `U+` codes, and whether only outer whitespace, case, or NFC or NFKC form "
        "differs."
    ),
    "normalized": (
        "The pipeline runs on both sides, then code-point equality. Steps: `trim`, `lower`, `nfc`, `nfkc`, "
        "`collapse_whitespace`, `remove_punctuation` (ASCII), `remove_articles` (a, an, the), "
        "`strip_trailing_punctuation` (one `.` or `!`), `strip_quotes`. **Use the SQuAD pipeline** sets the "
        "SQuAD v1.1 script's order: lower, remove_punctuation, remove_articles, collapse_whitespace, trim."
    ),
    "contains": (
        "The output contains one reference (`any`) or every one (`all`), anywhere or at its start; no "
        "normalization."
    ),
    "regex": (
        "Matches `pattern` as a JavaScript regular expression (`u` flag always on); expected is not used. "
        "`at`: anywhere, from index 0, or the whole text (`a|ab` matches `ab` whole). Python-only syntax such "
        "as `(?P<n>…)` is an error whose hint gives the JavaScript form. A match past `timeout` seconds is "
        "stopped: error."
    ),
    "numeric": (
        "One number from each side, by `read`: `whole` (the entire trimmed text), `first` or `last`; commas "
        "only in groups of three, `%` ignored. Passes when |output − expected| ≤ max(`abs_tol`, "
        "`rel_tol` × |expected|). Expected without a number: not judged; output without one: fail. `About 3.1 "
        "miles` against `3.11` fails with the defaults, passes with `read` = last and `rel_tol` = 0.01."
    ),
    "json_schema": (
        "The output, after the `pre_parse` steps, must parse as JSON and validate: Draft 2020-12 unless "
        "`$schema` names draft-04, -06, -07 or 2019-09; `pattern` is JavaScript; `format` is not asserted. An "
        "unsupported keyword or a remote `$ref` (never fetched; meta-schemas excepted): not judged. A fail "
        "names the parse error's line and column, or each violation's JSON Pointer path and keyword."
    ),
    "valid_json": (
        "The output is one JSON value once one surrounding code fence (bare or tagged json) is removed. "
        "`NaN` and `Infinity` fail."
    ),
    "json_fields": (
        "Expected must be a JSON object (else not judged). Score: the share of its top-level fields that the "
        "output has with the same JSON type and value (`\"34\"` ≠ `34`, `true` ≠ `1`); an output that is not "
        "an object scores 0. `{\"name\": \"Maria\", \"age\": \"34\"}` against `{\"name\": \"Maria\", "
        "\"age\": 34}` scores 0.5."
    ),
    "token_f1": (
        "F1 of the bags of whitespace-split tokens, after `squad` normalization or `none`. `Canberra is the "
        "capital` against `Canberra`: precision 1/3, recall 1, F1 0.5. Both sides empty scores 1 (`the` "
        "against `a`: SQuAD v2's convention), one empty 0; apart from that, `squad` is tested equal to the "
        "SQuAD v1.1 script."
    ),
    "bleu": (
        "Sentence BLEU-4 as sacrebleu computes it, tested to 1e-9: 13a tokens, clipped counts, effective "
        "order, exponential smoothing (Chen and Cherry's method 3), closest-reference brevity penalty. The "
        "explanation states the settings: "
        "`bleu|nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp`."
    ),
    "rouge_l": (
        "F1 (beta 1) of the longest common subsequence of lowercased tokens, split at every run of non-letters "
        "and non-numbers. Token counts whose product exceeds 25,000,000: not judged. Tested equal to "
        "rouge-score's rougeL F-measure on ASCII text."
    ),
    "chrf": (
        "Character 1- to 6-grams, whitespace removed, clipped against the best reference; precision and recall "
        "averaged over the orders both sides have, combined with beta 2 (recall weighs more). Tested equal to "
        "sacrebleu's sentence chrF to 1e-9."
    ),
}

GRADER_PARAGRAPHS: dict[str, str] = {
    name: f"**{REGISTRY[name].label}** (`{name}`). {GRADER_TEXT[name]} {param_words(name)}" for name in GRADER_NAMES
}

# The probe's step order, as the text states it (tests: equal to graders.metrics.nearmiss.PROBE_STEPS).
PROBE_ORDER_TEXT = (
    "`trim`, `lowercase`, `nfkc`, `collapse_whitespace`, `strip_trailing_punctuation`, `underscore_join`, "
    "`strip_quotes`"
)
NEAR_MISS_TEXT = (
    "**Near misses.** A probe runs on every fail. Exact, normalized, contains: each step alone on both "
    f"sides, in the order {PROBE_ORDER_TEXT}; each that passes is named, or `several` if only all seven "
    "together do. Regex: `case_insensitive`. JSON Schema, Valid JSON: `strip_fence`, `trim`. Numeric: "
    "`read_whole`, `read_first`, `read_last`. With a threshold: `below_threshold`, within 0.1 below it."
)

PLAYGROUND_HOW = "\n\n".join([PLAYGROUND_INTRO, *GRADER_PARAGRAPHS.values(), NEAR_MISS_TEXT])

SOURCES: tuple[str, ...] = (
    "Rajpurkar et al. (2016). SQuAD: 100,000+ questions for machine comprehension of text. EMNLP.",
    "Papineni et al. (2002). BLEU: a method for automatic evaluation of machine translation. ACL.",
    "Chen and Cherry (2014). A systematic comparison of smoothing techniques for sentence-level BLEU. WMT.",
    "Post (2018). A call for clarity in reporting BLEU scores. WMT.",
    "Lin (2004). ROUGE: a package for automatic evaluation of summaries. ACL workshop.",
    "Popović (2015). chrF: character n-gram F-score for automatic MT evaluation. WMT.",
    "Popović (2016). chrF deconstructed: beta parameters and n-gram weights. WMT.",
    "Wilson (1927). Probable inference, the law of succession, and statistical inference. JASA.",
    "McNemar (1947). Note on the sampling error of the difference between correlated proportions or "
    "percentages. Psychometrika.",
    "Efron (1979). Bootstrap methods: another look at the jackknife. Annals of Statistics.",
    "Holm (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics.",
    "RFC 6901 (2013). JavaScript Object Notation (JSON) Pointer.",
    "ECMA-262, ECMAScript Language Specification: RegExp objects.",
)
PLAYGROUND_SOURCES = "\n".join(f"- {s}" for s in SOURCES)

# ----------------------------------------------------------------------------- score a file

# The graders the overall row combines, as the text names them (tests: graders.config.OVERALL_GRADERS).
OVERALL_GRADERS_TEXT = "`exact`, `normalized`, `contains`, `regex`, `numeric` and `json_schema`"

SCORE_HOW = (
    "**Reading.** CSV, TSV, JSON lines, a JSON array of objects or a JSON document with a `rows` array, UTF-8 "
    "with or without a BOM. Cells stay text exactly as written (`NA`, `007`, `3.10`); an object field is its "
    "JSON text, and its fields one level deep are dotted columns too (`metadata.harnessPass`). Columns are "
    "suggested from their names; change them "
    "under **Column mapping**. A row's key is (id, version, repeat).\n\n"
    "**Counting.** Each selected grader scores every row on its own, with the Grader playground's code, and "
    "the near-miss probe runs on every fail. Mean score is over the rows that have a score; the pass rate is "
    "passed / (passed + failed).\n\n"
    "**Corpus figures.** Under **Corpus beside mean sentence scores**, corpus BLEU sums n-gram statistics "
    "over the rows (each row's closest reference length), with exponential smoothing and no effective order; "
    "corpus chrF sums per-order statistics with each row's best reference. Both are tested equal to "
    "sacrebleu's.\n\n"
    f"**Overall row.** **All pass** or **Any passes** over the selected graders among {OVERALL_GRADERS_TEXT}; "
    "the others and per-row assertions never count. All pass is undecided when none failed but one was not "
    "judged or an error, Any passes when none passed but one was: pass and score blank, error `not-judged`. "
    "With none of those graders selected the error is `no-binary-grader`.\n\n"
    "**Scored file.** One row per case, system, repeat and scorer: `item, system, repeat, scorer, score, pass, "
    "error, near_miss, explanation, metadata`, and `output` if ticked. The scorer is a grader, `overall` or "
    "`assert:<index>:<kind>` (index from 0)."
)

# The kinds the text lists (tests: graders.scoring.assertions.KNOWN_KINDS).
ASSERTION_KINDS_TEXT = (
    "`exact`, `equals`, `normalized`, `contains`, `icontains`, `contains-any`, `contains-all`, "
    "`icontains-any`, `icontains-all`, `starts-with`, `regex`, `is-json`, `contains-json`, `json-schema`, "
    "`is-xml`, `contains-xml`, `numeric`, `token-f1`, `bleu`, `rouge-l`, `chrf`, `rouge-n`, `levenshtein`, "
    "`latency`, `cost`"
)
# The reasons the text names, in the report's order (tests: graders.scoring.rows.LEFT_OUT_REASONS).
LEFT_OUT_TEXT = (
    "`unreadable` (not a row), `no id`, `no output`, `no expected` (when a selected grader needs one), "
    "`bad repeat` (not a whole number ≥ 0), `unknown expected kind` (not exact, any-of or label), `bad any-of "
    "expected` (not a JSON array of strings), `malformed assertions`, `duplicate key` (an earlier row's id, "
    "version and repeat; that row is named)"
)

SCORE_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("What file formats and columns does this page read?",
     "The formats above. Suggested columns: `id` or `case_id`; `expected`, `reference`, `answer`, `target`, "
     "`ideal` or `label`; `output`, `actual`, `prediction`, `response` or `completion`; `input`, `prompt` or "
     "`question`; `version`, `repeat`, `expected_kind` and `assert`. Without an id column, each row's "
     "number is its id."),
    ("What is a near miss?",
     "A fail that passes after one formatting change, named by the probe (see the Grader playground). Many "
     "exact-match fails at `trim` or `lowercase` usually call for normalized match."),
    ("How do I list the cases where two graders disagree?",
     "Under **Rows**, choose the two graders and show **graders disagree**: the cases one passes and the "
     "other fails (exact against normalized gives the formatting misses). With several systems, **systems "
     "disagree** lists a grader's cases that one system passes and another fails."),
    ("Why does corpus BLEU differ from the mean of sentence BLEU?",
     "Sentence BLEU gives each row its own brevity penalty, smoothing and effective order; corpus BLEU pools "
     "the counts first. The returns-desk sample, with its own configuration, gives mean sentence BLEU 0.495 "
     "and corpus BLEU 0.611; mean sentence chrF 0.672 and corpus chrF 0.795. Say which one you report."),
    ("Why is there no single score across all graders?",
     "Each grader checks a different property; an average would hide which one failed. For one verdict per "
     "row, turn on the overall row."),
    ("Which per-row assertion kinds does this page run?",
     f"From the `assert` column, a JSON list such as `[{{\"type\": \"icontains\", \"value\": \"UPS\"}}]`: "
     f"{ASSERTION_KINDS_TEXT}, each also with a `not-` prefix that swaps pass and fail. The value is the "
     "reference, pattern or schema; without one, the row's expected answer. Other kinds (`llm-rubric`, "
     "`javascript`, …) are counted under **Assertion kinds not run** and never count as passes."),
    ("Why were some rows left out?",
     f"Each is counted once, under its first reason: {LEFT_OUT_TEXT}. The first twenty row numbers of each "
     "are listed (records from 1, the header not counted)."),
    ("Where is the confidence interval on the pass rate?",
     "In the counts table, **Pass rate (Wilson 95%)**. Each Passed count links to the Pass rate page, which "
     "gives the Wilson interval at any confidence."),
    ("How do I reproduce this run in CI?",
     "Under **Downloads**, **Export configuration** downloads the column mapping, the graders with their "
     "parameters and the overall rule (**Restore a configuration (JSON)** in the sidebar reads it back). "
     "Run `gradeboard score FILE --config gradeboard.config.json --out scored.csv --summary summary.json`; "
     "the caption there gives the exact command. `--fail-under GRADER=RATE` exits 1 when that grader's pass "
     "rate is below RATE (a continuous grader needs a threshold)."),
    ("Is my file sent anywhere?",
     "It is processed by the Streamlit server running this app: on your machine when you run it locally. "
     "Nothing is sent to any third party: Gradeboard's code makes no network requests, and Streamlit's "
     "usage statistics are off."),
)

# ----------------------------------------------------------------------------- compare

COMPARE_BACKGROUND = (
    "Compare A and B scores two outputs of the same cases with the same graders and reads each pair's "
    "difference, A − B.\n\n"
    "Exact match and token F1 come from the SQuAD benchmark (Rajpurkar et al. 2016). Here exact match "
    "compares code points with no normalization; SQuAD's exact match is Normalized match with the SQuAD "
    "pipeline, and token F1 normalizes the SQuAD way by default. ROUGE-L (Lin 2004) rewards the same words in "
    "the same order, not necessarily adjacent; its F1 weighs precision and recall equally. Overlap metrics "
    "measure agreement with the references: a correct paraphrase can score low.\n\n"
    "Numeric reads the whole text by default; set `read` to `last` for answers that end with the number, as "
    "in GSM8K-style maths sets. Regex matches its own `pattern`, not the expected column, case-sensitively "
    "unless the `i` flag is set.\n\n"
    "An interval of the difference (Tango's score interval for pass-or-fail graders, a bootstrap for "
    "continuous ones), an exact McNemar test for pass-or-fail graders (a sign-flip test for continuous ones "
    "and with repeats), and Holm's adjustment across the primary metrics tell a change from noise."
)

COMPARE_TIPS: tuple[str, ...] = (
    "Match the grader to the task: exact match or numeric for single answers, token F1 for short spans, "
    "ROUGE-L for summaries, JSON fields for extraction.",
    "Overlap metrics punish correct paraphrases: read the rows under **Where A and B disagree** before "
    "trusting a mean.",
    "With few cases, several points can be noise: read the interval and the Holm p, not only the means. "
    "When it finds no difference, **In words** gives the smallest change this many cases detect reliably.",
    "Contains is lenient: `No, Canberra is not the capital` passes a contains check for `Canberra`.",
    "Mark the primary metrics first: Holm's adjustment runs over them; the others show their unadjusted p.",
    "A continuous grader without a threshold neither passes nor fails, so **A fails, B passes** and **A "
    "passes, B fails** show nothing for it; use **Any disagreement** or **Largest drops (A below B)**.",
    "With repeats, the pass-rate intervals count cases, not rows (Wilson's at the effective number of cases, "
    "with the design effect beside them), and the differences resample whole cases.",
    "**Does the verdict depend on the grader?** compares again from strict to lenient (exact, normalized, "
    "contains, token F1, numeric). A difference only exact match sees is about formatting, not content.",
)

COMPARE_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("How are wins, losses and ties counted?",
     "Per metric, over the pairs where both sides have a score (a pass is 1, a fail 0): a win when A scores "
     "higher, a loss when B does, a tie when equal. A pair with a side not judged or an error is `unscored` "
     "in the **Comparison CSV**; a case on one side only is `a only` or `b only`."),
    ("How is the interval of A − B found?",
     "Pass-or-fail: Tango's score interval of the paired difference, which holds its 95% at few cases. "
     "Continuous: a paired bootstrap (**Bootstrap resamples**, **Seed**), its percentile interval widened "
     "for small samples."),
    ("Which test gives the p-value?",
     "Without repeats, for pass-or-fail graders and the overall row, the exact McNemar test on b (A "
     "passes, B fails) and c (A fails, B passes): p = min(1, 2 P(X ≤ min(b, c))), X binomial(b + c, 1/2). "
     "For continuous graders, a paired sign-flip test: exact when at most 16 cases differ or every "
     "difference is a whole number, else estimated from random flips."),
    ("What does Holm's adjustment do?",
     "It multiplies the smallest p-value by the number of metrics, the next by one fewer, and so on, keeping "
     "the order and capping at 1. **Reading** says A better or B better only when the Holm p is below 0.05 "
     "and the interval excludes 0. On the A/B wide sample with exact match and token F1, exact has 4 wins, "
     "15 losses and 21 ties: McNemar p 0.019, Holm p 0.038."),
    ("What happens with repeats?",
     "Whole cases are resampled with all their repeats (a cluster bootstrap), and pass-or-fail graders get a "
     "sign-flip test over whole cases instead of McNemar's, whose pairs would not be independent: exact "
     "up to some 20,000 cases of three repeats, estimated from random flips beyond."),
    ("Wide file or long file?",
     "Wide: an output column (A) beside a **Second model output** column (B); each row pairs its two "
     "outputs. Long: a version column; choose **A (version)** and **B (version)**, paired on (id, repeat), "
     "so an id column is needed. Rows on one side only are listed and left out of every figure."),
    ("Which column names does it understand?",
     "Second model: `output_b`, `model_b` or `baseline`; the rest as on Score a file. Names match in any "
     "case, and a dotted name by its last part (`vars.expected`); `label` is taken for expected only when "
     "nothing else matches."),
)

# ----------------------------------------------------------------------------- rendering


def faq_markdown(questions: Iterable[tuple[str, str]]) -> str:
    """Questions in bold, each answer below its question."""
    return "\n\n".join(f"**{q}**\n\n{a}" for q, a in questions)


def bullets(items: Iterable[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


PLAYGROUND_SECTIONS: tuple[tuple[str, str], ...] = tuple(zip(PLAYGROUND_LABELS, (PLAYGROUND_HOW, PLAYGROUND_SOURCES)))
SCORE_SECTIONS: tuple[tuple[str, str], ...] = tuple(zip(SCORE_LABELS, (SCORE_HOW, faq_markdown(SCORE_QUESTIONS))))
COMPARE_SECTIONS: tuple[tuple[str, str], ...] = tuple(zip(
    COMPARE_LABELS, (COMPARE_BACKGROUND, bullets(COMPARE_TIPS), faq_markdown(COMPARE_QUESTIONS))))


def _draw(sections: Iterable[tuple[str, str]]) -> None:
    for label, text in sections:
        with st.expander(label, expanded=False):
            st.markdown(text)


def playground_guide() -> None:
    """Grader playground: "How each grader works" and "Sources"."""
    _draw(PLAYGROUND_SECTIONS)


def score_guide() -> None:
    """Score a file: "How this is calculated" and "Questions"."""
    _draw(SCORE_SECTIONS)


def compare_guide() -> None:
    """Compare A and B: "Background", "Tips and limitations" and "Questions"."""
    _draw(COMPARE_SECTIONS)
