"""The harnesses' own code, called as the extraction tests' references.

* Inspect (inspect-ai 0.3.285, a test dependency): the ``answer()`` scorer on a TaskState
  holding the reply; ``multiple_choice``'s parsing (``parse_answers``, single answer, 26
  choices) and the ``choice()`` scorer.
* lm-evaluation-harness (lm-eval 0.4.13): the GSM8K "strict-match" filter ensemble built
  from the installed ``gsm8k.yaml``. Its package requires datasets, evaluate and
  scikit-learn, which these modules never import: install it light with
  ``pip install --no-deps lm-eval==0.4.13`` (numpy, PyYAML and sacrebleu are here already).
  Without it, ``LM_EVAL`` is False and the tests that need it are skipped
  (``needs_lm_eval``). Its minerva_math ``\\boxed`` helpers are copied verbatim in
  ``lm_eval_reference.py`` (their module imports sympy and more at import time).
"""

from __future__ import annotations

import asyncio
import importlib.resources

import lm_eval_reference as ref
import pytest
import yaml
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Target, answer, choice
from inspect_ai.solver import TaskState
from inspect_ai.solver._multiple_choice import parse_answers, set_choices_based_on_generated_response

try:
    from lm_eval.api.instance import Instance
    from lm_eval.api.metrics import exact_match_hf_evaluate
    from lm_eval.filters import build_filter_ensemble

    LM_EVAL = True
except ImportError:  # not installed: pip install --no-deps lm-eval==0.4.13
    LM_EVAL = False
    Instance = exact_match_hf_evaluate = build_filter_ensemble = None

needs_lm_eval = pytest.mark.skipif(
    not LM_EVAL, reason="lm-eval is not installed (pip install --no-deps lm-eval==0.4.13)")


def _state(text: str, n_choices: int = 26) -> TaskState:
    st = TaskState(
        model="test/model", sample_id=1, epoch=1, input="question", messages=[],
        output=ModelOutput.from_content("test/model", text),
        choices=[f"choice {i}" for i in range(n_choices)],
    )
    assert st.output.completion == text
    return st


def inspect_answer(kind: str, text: str) -> str | None:
    """What Inspect's answer(kind) scorer reports as the answer (None: pattern not matched)."""
    score = asyncio.run(answer(kind)(_state(text), Target("\x00no target matches this\x00")))
    return score.answer


def inspect_choice(text: str) -> str | None:
    """The letter Inspect's multiple_choice solver + choice() scorer read from a reply."""
    st = _state(text)
    answers = parse_answers(st, multiple_correct=False)
    if answers:
        set_choices_based_on_generated_response(st, answers)
    score = asyncio.run(choice()(st, Target("A")))
    return score.answer or None


def gsm8k_yaml() -> dict:
    path = importlib.resources.files("lm_eval") / "tasks" / "gsm8k" / "gsm8k.yaml"
    return yaml.safe_load(path.read_text())


def lm_eval_gsm8k(text: str) -> str:
    """lm-eval's strict-match filtered response (before the exact_match metric's preprocessing)."""
    cfg = gsm8k_yaml()
    (strict,) = [f for f in cfg["filter_list"] if f["name"] == "strict-match"]
    components = [[f["function"], {k: v for k, v in f.items() if k != "function"} or None] for f in strict["filter"]]
    ensemble = build_filter_ensemble("strict-match", components)
    inst = Instance(request_type="generate_until", doc={}, arguments=("", {}), idx=0)
    inst.resps = [text]
    ensemble.apply([inst])
    return inst.filtered_resps["strict-match"]


def minerva_boxed(text: str) -> str | None:
    """lm-eval's pipeline; AssertionError propagates (its remove_boxed asserts)."""
    s = ref.last_boxed_only_string(text)
    return None if s is None else ref.remove_boxed(s)


def first_line_reference(text: str) -> str | None:
    return next((line.strip() for line in text.splitlines() if line.strip()), None)
