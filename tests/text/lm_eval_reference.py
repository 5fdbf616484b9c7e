"""Verbatim copies of lm-evaluation-harness functions whose modules cannot be imported light.

Source: lm-eval 0.4.13 (PyPI wheel lm_eval-0.4.13-py3-none-any.whl),
file lm_eval/tasks/minerva_math/utils.py
(https://github.com/EleutherAI/lm-evaluation-harness/blob/main/lm_eval/tasks/minerva_math/utils.py).
That module imports sympy, math_verify and antlr4 4.11 at import time and raises without
them, so the two functions are copied here; tests/text/test_extract_harness.py checks that
the installed lm-eval's file still holds exactly this text (where lm-eval is installed).
"""

from __future__ import annotations


def last_boxed_only_string(string: str) -> str | None:
    idx = string.rfind("\\boxed")
    if "\\boxed " in string:
        return "\\boxed " + string.split("\\boxed ")[-1].split("$")[0]
    if idx < 0:
        idx = string.rfind("\\fbox")
        if idx < 0:
            return None

    i = idx
    right_brace_idx = None
    num_left_braces_open = 0
    while i < len(string):
        if string[i] == "{":
            num_left_braces_open += 1
        if string[i] == "}":
            num_left_braces_open -= 1
            if num_left_braces_open == 0:
                right_brace_idx = i
                break
        i += 1

    if right_brace_idx is None:
        retval = None
    else:
        retval = string[idx : right_brace_idx + 1]

    return retval


def remove_boxed(s: str) -> str:
    if "\\boxed " in s:
        left = "\\boxed "
        assert s[: len(left)] == left
        return s[len(left) :]

    left = "\\boxed{"

    assert s[: len(left)] == left
    assert s[-1] == "}"

    return s[len(left) : -1]
