"""Each named form against the harness's own code, on the table of realistic replies.

* answer_letter / answer_word / answer_line: Inspect's ``answer()`` scorer itself
  (inspect-ai 0.3.285), run on a TaskState holding the reply.
* choice: Inspect's ``multiple_choice`` parsing (``parse_answers``, single answer,
  26 choices) and ``choice()`` scorer: wherever Inspect reads a letter, ours is the same.
* gsm8k: lm-eval 0.4.13's "strict-match" filter ensemble built from its gsm8k.yaml and
  the yaml's exact_match settings (regexes_to_ignore, ignore_case); skipped without lm-eval
  (``pip install --no-deps lm-eval==0.4.13``, extract_harnesses.py).
* boxed: lm-eval 0.4.13 minerva_math ``last_boxed_only_string`` + ``remove_boxed``
  (copied in lm_eval_reference.py; checked against the installed file's text where lm-eval is).
* last_number: graders/text/numbers.py's reader (SPEC §3), whose grammar it shares.
* first_line: ``str.splitlines`` + ``str.strip``.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path

import inspect_ai._util.pattern as inspect_pattern
import lm_eval_reference as ref
import pytest
from extract_harnesses import (
    LM_EVAL,
    exact_match_hf_evaluate,
    first_line_reference,
    gsm8k_yaml,
    inspect_answer,
    inspect_choice,
    lm_eval_gsm8k,
    minerva_boxed,
    needs_lm_eval,
)
from extract_table import EXPECTED, ROWS
from inspect_ai.scorer import AnswerPattern

from graders.text import extract as E
from graders.text import numbers

IDS = [r[0] for r in ROWS]
TEXTS = [r[1] for r in ROWS]


def test_versions():
    # The docstrings and comments name these versions; a different install needs a re-read.
    from importlib.metadata import version

    assert version("inspect-ai") == "0.3.285"
    if LM_EVAL:
        assert version("lm-eval") == "0.4.13"


def test_table_size():
    assert len(ROWS) >= 40
    assert len(set(IDS)) == len(IDS)


# --- Inspect ---------------------------------------------------------------------------


def test_answer_patterns_are_inspects():
    assert E.ANSWER_PATTERN_LETTER == AnswerPattern.LETTER.value == inspect_pattern.ANSWER_PATTERN_LETTER
    assert E.ANSWER_PATTERN_WORD == AnswerPattern.WORD.value == inspect_pattern.ANSWER_PATTERN_WORD
    assert E.ANSWER_PATTERN_LINE == AnswerPattern.LINE.value == inspect_pattern.ANSWER_PATTERN_LINE


@pytest.mark.parametrize("kind", ["letter", "word", "line"])
@pytest.mark.parametrize("text", TEXTS, ids=IDS)
def test_answer_forms_equal_inspect_scorer(kind, text):
    ours = E.extract(E.parse_extract(f"answer_{kind}"), text)
    assert ours == inspect_answer(kind, text)


def test_answer_forms_extract_something_on_the_table():
    # The table exercises the three patterns, not only their no-match branch.
    for kind in ("letter", "word", "line"):
        got = E.extract_many(E.parse_extract(f"answer_{kind}"), TEXTS)
        assert sum(g is not None for g in got) >= 15, kind


@pytest.mark.parametrize("name,text,expected", ROWS, ids=IDS)
def test_choice_pinned_and_agrees_with_inspect(name, text, expected):
    ours = E.extract(E.parse_extract("choice"), text)
    assert ours == expected
    theirs = inspect_choice(text)
    if theirs is not None:
        assert ours == theirs  # where Inspect reads a letter, the same letter


def test_choice_overlap_is_substantial():
    both = [r for r in ROWS if inspect_choice(r[1]) is not None]
    assert len(both) >= 12


# Deliberate differences, documented in extract.py: replies where Inspect reads no letter
# (its format is strict) and ours does.
CHOICE_ONLY_OURS = {
    "answer_is_paren", "answer_is_bold", "answer_i_think", "answer_a_is_correct", "lone_letter",
    "lone_letter_newline", "lone_bold_letter", "option_label", "option_label_dot",
    "paren_mid_text", "ending_letter", "boxed_letter", "markdown_answer_label",
    "answer_then_explanation",
}


def test_choice_differences_are_the_documented_ones():
    ours_only = {
        name for name, text, expected in ROWS
        if expected is not None and inspect_choice(text) is None
    }
    assert ours_only <= CHOICE_ONLY_OURS, ours_only - CHOICE_ONLY_OURS


# --- lm-evaluation-harness: GSM8K strict-match ------------------------------------------


@needs_lm_eval
def test_gsm8k_pattern_is_the_yamls():
    cfg = gsm8k_yaml()
    (strict,) = [f for f in cfg["filter_list"] if f["name"] == "strict-match"]
    assert strict["filter"][0] == {"function": "regex", "regex_pattern": E.GSM8K_PATTERN}
    assert strict["filter"][1] == {"function": "take_first"}


def _metric_kwargs() -> dict:
    (metric,) = gsm8k_yaml()["metric_list"]
    assert metric["metric"] == "exact_match"
    return {k: metric[k] for k in ("regexes_to_ignore", "ignore_case", "ignore_punctuation")}


@needs_lm_eval
@pytest.mark.parametrize("text", TEXTS, ids=IDS)
def test_gsm8k_equals_lm_eval_strict_match(text):
    ours = E.extract(E.parse_extract("gsm8k"), text)
    filtered = lm_eval_gsm8k(text)
    if filtered == "[invalid]":
        assert ours is None
        return
    kw = _metric_kwargs()
    processed = filtered
    for pat in kw["regexes_to_ignore"]:
        processed = re.sub(pat, "", processed)
    if kw["ignore_case"]:
        processed = processed.lower()
    assert ours == processed
    # and the harness's own metric scores our extraction equal to its filtered response
    assert exact_match_hf_evaluate([filtered], [ours], **kw)["exact_match"] == 1.0


def test_gsm8k_table_cases():
    got = dict(zip(IDS, E.extract_many(E.parse_extract("gsm8k"), TEXTS)))
    assert got["gsm8k_basic"] == "72"
    assert got["gsm8k_commas"] == "1234"
    assert got["gsm8k_negative_dot"] == "-5"
    assert got["gsm8k_dollar"] is None  # "$" cannot follow "#### "
    assert got["gsm8k_two_hashes"] == "10"  # strict-match takes the FIRST match
    assert got["gsm8k_decimal"] == "7.50"
    assert got["gsm8k_no_space"] is None


# --- lm-evaluation-harness: minerva_math boxed ------------------------------------------


@needs_lm_eval
def test_reference_copy_is_lm_evals_text():
    spec = importlib.util.find_spec("lm_eval")
    utils = Path(spec.origin).parent / "tasks" / "minerva_math" / "utils.py"
    installed = utils.read_text()
    for fn in (ref.last_boxed_only_string, ref.remove_boxed):
        assert inspect.getsource(fn) in installed


@pytest.mark.parametrize("text", TEXTS, ids=IDS)
def test_boxed_equals_minerva(text):
    ours = E.extract(E.parse_extract("boxed"), text)
    try:
        theirs = minerva_boxed(text)
    except AssertionError:
        # lm-eval's remove_boxed only takes "\boxed{…}": for the last \fbox{…} we give its
        # contents (deliberate); for a last "\boxed" not followed by "{", nothing.
        assert "\\fbox" in text and "\\boxed" not in text
        assert ours == text[text.rfind("\\fbox{") + 6 : text.rfind("}")]
        return
    assert ours == theirs


def test_boxed_table_cases():
    got = dict(zip(IDS, E.extract_many(E.parse_extract("boxed"), TEXTS)))
    assert got["boxed_frac"] == "\\frac{1}{2}"
    assert got["boxed_nested"] == "\\sqrt{\\frac{a^{2}+b^{2}}{2}}"
    assert got["boxed_two"] == "-3"
    assert got["boxed_space"] == "5"
    assert got["boxed_unbalanced"] is None
    assert got["fbox"] == "42"
    assert got["boxed_letter"] == "B"


# --- SPEC §3 numbers and first_line -------------------------------------------------------


@pytest.mark.parametrize("text", TEXTS, ids=IDS)
def test_last_number_equals_graders_numbers(text):
    r = numbers.read_number(text, "last")
    assert E.extract(E.parse_extract("last_number"), text) == (r.text if r else None)


def test_last_number_grammar_is_graders_numbers():
    assert E._NUMERAL is numbers._NUMERAL and E._NOT_DIGITS is numbers._NOT_DIGITS


@pytest.mark.parametrize("form", sorted(EXPECTED))
def test_pinned_values(form):
    got = dict(zip(IDS, E.extract_many(E.parse_extract(form), TEXTS)))
    for name, want in EXPECTED[form].items():
        assert got[name] == want, name


@pytest.mark.parametrize("text", TEXTS, ids=IDS)
def test_first_line_equals_splitlines(text):
    assert E.extract(E.parse_extract("first_line"), text) == first_line_reference(text)


@pytest.mark.parametrize("form", E.NAMED_FORMS)
def test_extract_many_equals_extract_on_table(form):
    ex = E.parse_extract(form)
    assert E.extract_many(ex, TEXTS) == [E.extract(ex, t) for t in TEXTS]


def test_choice_documented_divergence():
    # A later "ANSWER:" line Inspect's strict pattern does not take: Inspect keeps the
    # earlier strict line's letter; ours takes the later statement (extract.py docstring).
    text = "ANSWER: B\nOn reflection:\nANSWER: (C) Paris"
    assert inspect_choice(text) == "B"
    assert E.extract(E.parse_extract("choice"), text) == "C"
    # while a later answer stated in another form does not outrank an ANSWER: line
    text = "**ANSWER: B**\nOn reflection:\n**Answer:** C"
    assert inspect_choice(text) == "B"
    assert E.extract(E.parse_extract("choice"), text) == "C"
    # while a later answer stated in another form does not outrank an ANSWER:
    text = "ANSWER: B\nThe answer is C"
    assert inspect_choice(text) == E.extract(E.parse_extract("choice"), text) == "B"
    text = "**ANSWER: B**\nThe answer is (C)."
    assert inspect_choice(text) == E.extract(E.parse_extract("choice"), text) == "B"
