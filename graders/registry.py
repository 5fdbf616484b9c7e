"""The registry: grader name -> ``GraderSpec``, built from ``graders.metrics.SPECS``.

The CLI, the batch layer and the pages all read ``REGISTRY``; nothing else lists graders
or their parameters (``graders.metrics`` holds the one ordered tuple). ``grade()``
validates a call, extracts the answer when ``extract`` is set (SPEC §9), runs the grader,
then the near-miss probe on a fail.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from graders.metrics import SPECS
from graders.metrics.base import (  # noqa: F401  (the names this module has always offered)
    BELOW_THRESHOLD_MARGIN,
    BELOW_THRESHOLD_REACH,
    MIN_SECONDS,
    THRESHOLD,
    GraderSpec,
    Param,
    as_refs,
    check_value,
    resolve,
    run,
)
from graders.result import Grade

REGISTRY: dict[str, GraderSpec] = {spec.name: spec for spec in SPECS}


def get_spec(name: str) -> GraderSpec:
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown grader {name!r}; valid graders: {', '.join(REGISTRY)}") from None


def resolve_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``params`` for grader ``name``; return every parameter with defaults filled."""
    return resolve(get_spec(name), params)


_DEFAULTS: dict[str, dict[str, Any]] = {}


def grade(name: str, expected: str | Sequence[str] | None = None, output: str | None = None, **params: Any) -> Grade:
    """Grade one output against one reference (a str) or several (a list of str).

    >>> grade("numeric", expected="42", output="The refund is $42.00.", read="last").status
    'pass'

    Several references: a pass-or-fail grader passes when any passes, a continuous one
    takes the best score (BLEU and chrF use them jointly, as sacrebleu does); ``None`` is no
    reference, as is leaving it out (not judged by a grader that needs one; regex,
    valid_json and json_schema need none). ``output`` is required. Returns a ``Grade``
    (its docstring gives the statuses; ``Grade.to_dict`` its JSON form). An unknown
    grader or parameter, a missing required one or a bad value raises
    ``ValueError`` naming it and listing the valid ones. A regex pattern or flags that
    JavaScript refuses and a schema that is not a valid JSON Schema are not raised: each
    call gives a ``Grade`` with status ``"error"`` saying why (``RunConfig`` refuses them
    at once).
    """
    spec = get_spec(name)
    if params:
        resolved = resolve_params(name, params)
    else:  # the defaults, validated once per grader
        resolved = _DEFAULTS.get(name)
        if resolved is None:
            resolved = _DEFAULTS[name] = resolve_params(name, {})
    refs = () if expected is None else as_refs(expected)
    if not isinstance(output, str):
        raise ValueError("grade needs the output (a str)" if output is None else
                         f"output must be a str, not {type(output).__name__}")
    return run(spec, refs, output, resolved)
