"""Answer extraction around a grader (SPEC §9): the grader sees only what ``extract`` returns.

``extracted_block`` grades a column: the extractor runs over the outputs once
(``graders.text.extract.extract_many``, or the extraction the caller already has), the
grader (with its near-miss probe) runs on the rows where something was extracted, each
distinct (references, answer) pair once, and the other rows are graded here:

* nothing extracted: status ``fail``, score 0 (continuous graders too), explanation "No
  answer found by <extractor> …", near miss ``("no_answer",)``, plus
  ``"extracted_anywhere"`` when a (non-empty) reference occurs in the raw output: the
  answer is there, in a form the extractor does not read;
* the extractor could not run on the row (a ``regex`` extractor past its time limit, or a
  failed engine): status ``error`` saying so.

Where an answer was extracted, the explanation starts with a sentence naming the
extractor, what it takes and the answer (``Answer extracted by gsm8k (the number after
“#### ”, …): “42”.``), then the grader's own; the grader's signature gains
``|extract:<form>``; every row's details carry ``extracted`` (the answer, or None). Rows
without a reference, for a grader that needs one, go to the grader as they are (it says
"not judged"). ``extract_then`` is the same for one row (``graders.metrics.base.run``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from graders.engines.regex import ErrorResult, TimeoutResult
from graders.result import Block, Grade
from graders.text.extract import Extractor, extract_many
from graders.text.show import visible

NO_ANSWER = "no_answer"
EXTRACTED_ANYWHERE = "extracted_anywhere"
_NO_ANSWER_CODES = (NO_ANSWER,)
_ANYWHERE_CODES = (NO_ANSWER, EXTRACTED_ANYWHERE)

GradeColumn = Callable[[list, list], Block]  # (refs, outputs) -> the grader's block, probe included


def shown(text: str, limit: int = 120) -> str:
    """An answer or reference in an explanation: in quotes, invisible characters named,
    shortened past ``limit`` characters; "an empty answer" for ""."""
    if not text:
        return "an empty answer"
    v = visible(text[: limit + 1]).replace("\n", "")
    return "“" + (v if len(v) <= limit else v[: limit - 1] + "…") + "”"


def lead(ex: Extractor) -> str:
    """``Answer extracted by gsm8k (the number after “#### ”, …): `` (the answer follows)."""
    return f"Answer extracted by {ex.describe()} ({ex.rule()}): "


def no_answer_text(ex: Extractor, reference: str | None) -> str:
    """The explanation of a row where ``ex`` found nothing; ``reference``: one that occurs
    in the raw output, if any."""
    text = f"No answer found by {ex.describe()} ({ex.rule()}): the grader did not run."
    if reference is not None:
        text += (f" The expected answer {shown(reference)} does occur in the output: it is stated in a form "
                 f"{ex.describe()} does not read.")
    return text


def failed_text(ex: Extractor, r: TimeoutResult | ErrorResult) -> str:
    if isinstance(r, TimeoutResult):
        return (f"Answer extraction by {ex.describe()} ran past the time limit of {r.timeout:g} s and was stopped: "
                "the grader did not run. The pattern probably backtracks catastrophically.")
    return f"Answer extraction by {ex.describe()} could not run: {r.message}"


def _occurring(refs: Sequence[str], output: str) -> str | None:
    for r in refs:
        if r and r in output:
            return r
    return None


def extracted_block(
    ex: Extractor,
    refs: Sequence[tuple[str, ...]],
    outputs: Sequence[str],
    grade: GradeColumn,
    *,
    extracted: Sequence[Any] | None = None,
    uses_expected: bool = True,
) -> Block:
    """The grader ``grade`` over a column, on what ``ex`` extracts from each output
    (``extracted``: ``extract_many(ex, outputs)`` when the caller has it already). A
    deferred explanation (None, ``explain=False``) stays None, without the lead sentence."""
    got = extract_many(ex, outputs) if extracted is None else extracted
    n = len(outputs)
    found: list[int] = []  # rows graded on their answer
    raw: list[int] = []  # rows without the reference the grader needs: graded as they are
    block = Block(n)
    status, passed, score, explanation, near_miss, details = (
        block.status, block.passed, block.score, block.explanation, block.near_miss, block.details)
    for i, x in enumerate(got):
        if isinstance(x, str):
            if uses_expected and not refs[i]:
                raw.append(i)
            else:
                found.append(i)
        elif x is None:
            if uses_expected and not refs[i]:
                raw.append(i)
                continue
            ref = _occurring(refs[i], outputs[i])
            explanation[i] = no_answer_text(ex, ref)
            near_miss[i] = _NO_ANSWER_CODES if ref is None else _ANYWHERE_CODES
            details[i] = {"extracted": None}
        else:  # TimeoutResult / ErrorResult: the extractor could not run on this row
            status[i], passed[i], score[i] = "error", None, None
            explanation[i] = failed_text(ex, x)
            details[i] = {"extracted": None, "reason": "timeout" if isinstance(x, TimeoutResult) else "engine"}
    if found:
        sub = _distinct(grade, [refs[i] for i in found], [got[i] for i in found])
        tag = "|extract:" + ex.form
        head = lead(ex)
        leads: dict[str, str] = {}
        for j, i in enumerate(found):
            answer = got[i]
            status[i], passed[i], score[i], near_miss[i] = sub.status[j], sub.passed[j], sub.score[j], sub.near_miss[j]
            text = sub.explanation[j]
            if text is not None:
                first = leads.get(answer)
                if first is None:
                    first = leads[answer] = f"{head}{shown(answer)}. "
                text = first + text
            explanation[i] = text
            d = sub.details[j]
            sig = d.get("signature") if d else None
            details[i] = {**d, "extracted": answer, "signature": sig + tag} if sig else {**d, "extracted": answer}
    if raw:
        sub = grade([refs[i] for i in raw], [outputs[i] for i in raw])
        for j, i in enumerate(raw):
            block.set(i, sub.grade(j))
    return block


def _distinct(grade: GradeColumn, refs: list, answers: list) -> Block:
    """``grade(refs, answers)``, each distinct pair graded once: extraction makes many
    outputs one answer ("42", "B")."""
    index: dict[tuple[Any, str], int] = {}
    inverse = [index.setdefault(key, len(index)) for key in zip(refs, answers)]
    if len(index) == len(inverse):
        return grade(refs, answers)
    return grade([k[0] for k in index], [k[1] for k in index]).take(inverse)


def extract_then(ex: Extractor, refs: tuple[str, ...], output: str, grade: Callable[[tuple[str, ...], str], Grade],
                 uses_expected: bool = True) -> Grade:
    """One row: ``grade`` (the grader with its probe) on what ``ex`` extracts from ``output``."""
    def column(rs: list, outs: list) -> Block:
        return Block.from_grades([grade(r, o) for r, o in zip(rs, outs)])

    return extracted_block(ex, [refs], [output], column, uses_expected=uses_expected).grade(0)
