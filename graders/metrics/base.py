"""What every grader is made of: its parameters, their kinds and checks, and ``run``.

A grader module defines a function ``(refs, output, **params) -> Grade`` (``refs`` a
non-empty tuple of references; no near miss) and a ``SPEC = GraderSpec(...)`` naming it;
``graders.metrics.SPECS`` lists them in SPEC order and ``graders.registry`` builds the
registry from that one tuple. ``run`` adds the near-miss probe on a fail.

Every grader also takes the parameters of ``COMMON_PARAMS``, defined here once: ``extract``
(SPEC §9), the answer extraction that runs on the output before the grader and its probe
(``graders.metrics.extraction``). A grader's function, probe and column form never see it:
``resolve`` leaves it out when it is not set, and ``run`` / the batch layer take it off
before they call them.
"""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Callable, Mapping, Sequence

from graders.result import Grade, not_judged

# Parameter kinds and what they accept:
#   choice    one of `choices`
#   tolerance a finite float >= 0
#   threshold None or a finite float in [0, 1]
#   seconds   a finite float >= MIN_SECONDS (a microsecond)
#   text      a str
#   pipeline  "squad" or a list of normalization step names
#   steps     a list drawn from `choices` (order kept, no repeats)
#   schema    a dict, or a str holding a JSON object
#   extract   None, a form name, a dict, or a dict's JSON text: an ``Extractor``
#             (``graders.text.extract.parse_extract``)

# The shortest time limit: below a microsecond no match could finish, and the dashboard's
# field and the command line refuse the same values.
MIN_SECONDS = 1e-6


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: Any = None
    choices: tuple[str, ...] = ()
    required: bool = False
    help: str = ""


@dataclass(frozen=True, kw_only=True)
class GraderSpec:
    """One grader: its name, function ``(refs, output, **params) -> Grade`` and settings."""

    name: str
    func: Callable[..., Grade]
    params: tuple[Param, ...] = ()
    binary: bool  # a pass-or-fail grader; False = continuous (score in [0, 1])
    uses_expected: bool = True
    label: str
    summary: str
    probe: Callable[..., tuple[str, ...] | None] | None = None
    # Optional column form: batch(refs_list, outputs, **params) -> list[Grade], equal to
    # calling run() per row (the regex grader uses it for one worker round trip per batch).
    batch: Callable[..., list[Grade]] | None = None
    # The batch form takes ``explain=False``: verdicts, scores and near misses without the
    # explanations (None) or the facts behind them, for a view that explains only the rows
    # it shows (``batch.explain_rows``).
    defers_explanations: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", tuple(self.params))

    @property
    def all_params(self) -> tuple[Param, ...]:
        """The grader's own parameters, then those every grader takes (``COMMON_PARAMS``).
        ``params`` holds the grader's own: the dashboard's form builds a widget for each."""
        return self.params + COMMON_PARAMS

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.all_params)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params if not p.required}


EXTRACT = Param(
    "extract", "extract", None,
    help="answer extraction before the grader (SPEC §9): a form (answer_letter, answer_word, answer_line, choice, "
         "gsm8k, last_number, boxed, first_line), {\"regex\": P, \"group\": 1, \"flags\": \"\", \"which\": "
         "\"first\"|\"last\"} or {\"json_path\": \"$.a.b[0]\"}; the grader sees only what it returns, and nothing "
         "found is a fail (no_answer); None = the whole output",
)
# The parameters every grader takes besides its own (``GraderSpec.all_params``).
COMMON_PARAMS: tuple[Param, ...] = (EXTRACT,)

THRESHOLD = Param("threshold", "threshold", None, help="pass when score >= threshold; None = report the score only")
# Near-miss margin for continuous graders with a threshold (SPEC §4): a fail scoring at
# least threshold - BELOW_THRESHOLD_REACH is ``below_threshold``. "Within 0.1" includes 0.1
# itself, whichever way ``threshold - 0.1`` rounds (0.8 - 0.1 is 0.7000000000000001).
BELOW_THRESHOLD_MARGIN = 0.1
BELOW_THRESHOLD_REACH = BELOW_THRESHOLD_MARGIN + 1e-9


def check_value(grader: str, p: Param, value: Any) -> Any:
    where = f"parameter {p.name!r} of grader {grader!r}"
    if p.kind == "choice":
        if value not in p.choices:
            raise ValueError(f"{where} must be one of {', '.join(map(repr, p.choices))}, not {value!r}")
        return value
    if p.kind in ("tolerance", "threshold", "seconds"):
        if value is None and p.kind == "threshold":
            return None
        # Any real number: int, float, a NumPy scalar (a threshold sweep's np.linspace),
        # Fraction, Decimal; not a bool. -0.0 is 0.0 (an explanation would print "-0").
        if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal)):
            raise ValueError(f"{where} must be a finite number, not {value!r}")
        try:
            value = float(value) + 0.0
        except OverflowError:  # an int past 1.8e308
            raise ValueError(f"{where} must be a finite number, not an integer of {len(str(abs(value)))} digits") from None
        if not math.isfinite(value):
            raise ValueError(f"{where} must be a finite number, not {value!r}")
        if p.kind == "tolerance" and value < 0:
            raise ValueError(f"{where} must be >= 0, not {value!r}")
        if p.kind == "threshold" and not 0.0 <= value <= 1.0:
            raise ValueError(f"{where} must be between 0 and 1, not {value!r}")
        if p.kind == "seconds" and not value >= MIN_SECONDS:
            raise ValueError(f"{where} must be at least {MIN_SECONDS:g} seconds, not {value!r}")
        return value
    if p.kind == "text":
        if not isinstance(value, str):
            raise ValueError(f"{where} must be a string, not {value!r}")
        return value
    if p.kind == "pipeline":
        from graders.text.normalize import resolve_pipeline

        if not isinstance(value, (str, list, tuple)) or any(not isinstance(s, str) for s in value):
            raise ValueError(f"{where} must be 'squad' or a list of step names, not {value!r}")
        try:
            return resolve_pipeline(value)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
    if p.kind == "steps":
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise ValueError(f"{where} must be a list drawn from {', '.join(p.choices)}, not {value!r}")
        for s in value:
            if s not in p.choices:
                raise ValueError(f"{where}: unknown step {s!r}; valid steps: {', '.join(p.choices)}")
        if len(set(value)) != len(value):
            raise ValueError(f"{where} lists a step twice: {value!r}")
        return tuple(value)
    if p.kind == "schema":
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError as e:
                raise ValueError(f"{where} is not valid JSON: {e}") from None
            except RecursionError:
                raise ValueError(f"{where} is nested too deeply to read") from None
        if not isinstance(value, (dict, bool)):
            raise ValueError(f"{where} must be a JSON object (or true/false), not {type(value).__name__}")
        return value
    if p.kind == "extract":
        from graders.text.extract import parse_extract

        try:
            return parse_extract(value)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        except RecursionError:
            raise ValueError(f"{where} is nested too deeply to read") from None
    raise AssertionError(f"unknown parameter kind {p.kind!r}")


def resolve(spec: GraderSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``params`` for ``spec``; return every parameter with defaults filled. The
    common ``extract`` is there only when set (an ``Extractor``): without it, the
    parameters are the grader's own, as its function takes them."""
    name, valid = spec.name, spec.param_names
    for key in params:
        if key not in valid:
            listed = ", ".join(valid) if valid else "none"
            raise ValueError(f"unknown parameter {key!r} for grader {name!r}; valid parameters: {listed}")
    out: dict[str, Any] = {}
    for p in spec.params:
        if p.name in params:
            out[p.name] = check_value(name, p, params[p.name])
        elif p.required:
            raise ValueError(f"grader {name!r} needs the parameter {p.name!r}")
        else:
            out[p.name] = check_value(name, p, p.default) if p.default is not None else None
    for p in COMMON_PARAMS:
        if params.get(p.name) is not None:
            value = check_value(name, p, params[p.name])
            if value is not None:
                out[p.name] = value
    return out


def own_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` without the common ones (``extract``): what the grader's function takes."""
    return {k: v for k, v in params.items() if k not in _COMMON_NAMES}


_COMMON_NAMES = frozenset(p.name for p in COMMON_PARAMS)


def as_refs(expected: str | Sequence[str], what: str = "expected") -> tuple[str, ...]:
    """A reference or list of references as a tuple; ``ValueError`` naming the first
    value that is not text (``what``: the argument's name in the message)."""
    if isinstance(expected, str):
        return (expected,)
    if isinstance(expected, (list, tuple)):
        for i, r in enumerate(expected):
            if not isinstance(r, str):
                raise ValueError(f"{what}[{i}] must be a str, not {type(r).__name__}")
        return tuple(expected)
    raise ValueError(f"{what} must be a str or a list of str, not {type(expected).__name__}")


def run(spec: GraderSpec, refs: tuple[str, ...], output: str, params: Mapping[str, Any]) -> Grade:
    """Run one grader on validated arguments, near-miss probe included; with ``extract``,
    on what it extracts from the output (``graders.metrics.extraction``)."""
    if spec.uses_expected and not refs:
        return not_judged("No reference answer was given.")
    ex = params.get("extract")
    if ex is not None:
        from graders.metrics.extraction import extract_then

        plain = own_params(params)
        return extract_then(ex, refs, output, lambda r, o: run(spec, r, o, plain), spec.uses_expected)
    g = spec.func(refs, output, **params)
    if g.status != "fail":
        return g
    codes: tuple[str, ...] | None = None
    if spec.probe is not None:
        codes = spec.probe(refs, output, **params) or None
    elif not spec.binary:
        threshold = params.get("threshold")
        if threshold is not None and g.score is not None and g.score >= threshold - BELOW_THRESHOLD_REACH:
            codes = ("below_threshold",)
    return replace(g, near_miss=codes) if codes else g
