"""valid_json: the output parses as JSON.

Settings (``details["signature"]``: ``valid_json|fence:tolerated|numbers:finite|max_depth:100000``):
one surrounding Markdown fence (```` ```json ```` or a bare ```` ``` ````, whitespace
around it allowed) is removed first; then ``graders.engines.jsonparse.loads`` (JSON whitespace
only, finite numbers, the last duplicate key wins, at most 100,000 levels of nesting: node's
``JSON.parse`` reads any depth memory allows, so 600 or 100,000 levels pass; past 100,000 the
fail says "nesting deeper than 100,000 levels" and where).
Near-miss probe: ``strip_fence`` (a second fence) then ``trim`` (whitespace JSON does not
allow, such as U+00A0 or U+3000, around the JSON), each tried after the tolerated fence.
"""

from __future__ import annotations

from graders.engines.jsonparse import (
    MAX_DEPTH,
    apply_steps,
    describe_value,
    explain_parse_error,
    json_type,
    parse,
    strip_fence,
)
from graders.metrics.base import GraderSpec
from graders.result import Grade, verdict

SIGNATURE = f"valid_json|fence:tolerated|numbers:finite|max_depth:{MAX_DEPTH}"


def _grade(output: str, steps: tuple[str, ...]) -> Grade:
    text = apply_steps(output, steps)
    value, e = parse(text)
    if e is not None:
        return verdict(False, explain_parse_error(e, text), signature=SIGNATURE, parse_error=e.as_dict())
    fenced = strip_fence(output) is not output
    where = " (inside a ``` code fence, which is allowed)" if fenced else ""
    return verdict(
        True, f"The output is valid JSON: {describe_value(value)}{where}.",
        signature=SIGNATURE, type=json_type(value), fence=fenced,
    )


def _probe(refs: tuple[str, ...], output: str) -> tuple[str, ...]:
    base = strip_fence(output)
    codes = []
    for step in ("strip_fence", "trim"):
        if apply_steps(base, (step,)) != base and _grade(output, ("strip_fence", step)).passed:
            codes.append(step)
    return tuple(codes)


def grade_valid_json(refs: tuple[str, ...], output: str) -> Grade:
    """Pass when the output, less one surrounding code fence, is one JSON value."""
    return _grade(output, ("strip_fence",))


SPEC = GraderSpec(
    name="valid_json",
    func=grade_valid_json,
    params=[],
    binary=True,
    uses_expected=False,
    label="Valid JSON",
    summary="the output parses as JSON (one surrounding ```json fence is tolerated)",
    probe=_probe,
)
