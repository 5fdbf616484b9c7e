"""The twelve graders, one module each, and ``SPECS``: the one ordered list of them.

The order is SPEC §2's ``GRADER_NAMES``, and every list shown to a user follows it.
Importing a grader module registers nothing: ``graders.registry`` builds ``REGISTRY``
from ``SPECS``.
"""

from graders.metrics import (
    bleu,
    chrf,
    contains,
    exact,
    json_fields,
    json_schema,
    normalized,
    numeric,
    regex,
    rouge_l,
    token_f1,
    valid_json,
)
from graders.metrics.base import GraderSpec

SPECS: tuple[GraderSpec, ...] = (
    exact.SPEC, normalized.SPEC, contains.SPEC, regex.SPEC, numeric.SPEC, json_schema.SPEC,
    valid_json.SPEC, json_fields.SPEC, token_f1.SPEC, bleu.SPEC, rouge_l.SPEC, chrf.SPEC,
)
