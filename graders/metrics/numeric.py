"""Numeric: read one number from each side with the same mode, compare with tolerance.

Settings: ``read`` = "whole" | "first" | "last" (grammar in ``graders.text.numbers``),
``abs_tol`` and ``rel_tol`` (>= 0). Passes when ``|out - exp| <= max(abs_tol, rel_tol *
|exp|)``, computed in exact decimal arithmetic (so 3.11 vs 3.1 at abs_tol 0.01 passes).
Expected has no number: not judged. Output has no number: fail. Several references:
passes when any passes.
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from operator import itemgetter
from typing import Callable, Sequence

from graders.metrics.base import GraderSpec, Param
from graders.result import Block, Grade, not_judged, verdict
from graders.text.numbers import EXACT, READ_MODES, Reading, read_number

READ = Param("read", "choice", "whole", choices=READ_MODES, help="the whole text, the first number or the last")
ABS_TOL = Param("abs_tol", "tolerance", 0.0, help="absolute tolerance")
REL_TOL = Param("rel_tol", "tolerance", 0.0, help="relative tolerance, a fraction of |expected|: 0.01 allows 1%")

_MODE_WORDS = {"whole": "the whole text", "first": "the first number", "last": "the last number"}


@lru_cache(maxsize=64)
def _dec(x: float) -> Decimal:
    return Decimal(repr(float(x)))


def compare(exp: Decimal, out: Decimal, abs_tol: float, rel_tol: float) -> tuple[bool, Decimal, Decimal]:
    """(passed, |out - exp|, allowed difference), exact for any number of digits."""
    return _comparer(abs_tol, rel_tol)(exp, out)


def _comparer(abs_tol: float, rel_tol: float) -> Callable[[Decimal, Decimal], tuple[bool, Decimal, Decimal]]:
    """``compare`` with the tolerances as decimals once; with no relative tolerance the
    allowed difference is the absolute one (max keeps the first of equals)."""
    dabs, drel = _dec(abs_tol), _dec(rel_tol)
    subtract, absolute, multiply = EXACT.subtract, EXACT.abs, EXACT.multiply
    if rel_tol == 0:
        def fixed(exp: Decimal, out: Decimal) -> tuple[bool, Decimal, Decimal]:
            diff = absolute(subtract(out, exp))
            return diff <= dabs, diff, dabs
        return fixed

    def relative(exp: Decimal, out: Decimal) -> tuple[bool, Decimal, Decimal]:
        diff = absolute(subtract(out, exp))
        allowed = max(dabs, multiply(drel, absolute(exp)))
        return diff <= allowed, diff, allowed
    return relative


def _fmt(d: Decimal) -> str:
    s = format(d, "f") if abs(d.adjusted()) < 30 else str(d)
    return s if len(s) <= 40 else s[:37] + "…"


def _where(r: Reading, mode: str) -> str:
    return f"{_MODE_WORDS[mode]}, “{r.text[:40]}” at position {r.start}"


@lru_cache(maxsize=None)
def _no_reference_number(read: str) -> Grade:  # a Grade is immutable: one per read mode
    return not_judged(f"The reference has no number when reading {_MODE_WORDS[read]}, so numeric does not apply.")


@lru_cache(maxsize=None)
def _no_output_number(read: str) -> Grade:
    return verdict(False, f"The output has no number when reading {_MODE_WORDS[read]}.", read=read)


Best = tuple[bool, int, Decimal, Decimal, Reading]  # passed, reference index, difference, allowed, its reading


def _best(refs: tuple[str, ...], out: Reading, read: str, cmp, reader) -> Best | None:
    """The best reference for the output's reading (a pass first, then the smallest
    difference, then the first), or None when no reference has a number."""
    best = None
    for i, r in enumerate(refs):
        exp = reader(r, read)
        if exp is None:
            continue
        passed, diff, allowed = cmp(exp.value, out.value)
        if best is None or (passed and not best[0]) or (passed == best[0] and diff < best[2]):
            best = (passed, i, diff, allowed, exp)
    return best


def _passes(refs: tuple[str, ...], output: str, read: str, cmp, reader) -> bool:
    out = reader(output, read)
    if out is None:  # no pass without an output number: the references need no reading
        return False
    best = _best(refs, out, read, cmp, reader)
    return best is not None and best[0]


def _tolerance_words(abs_tol: float, rel_tol: float) -> str:
    return f"tolerance max(abs_tol {abs_tol:g}, rel_tol {rel_tol:g} × |expected|)"


def _explain(out: Reading, best: Best, nrefs: int, read: str, tol: str) -> str:
    """The explanation of a verdict on a pair whose output and best reference (``_best``)
    both hold a number."""
    passed, i, diff, allowed, exp = best
    which = f" (reference {i + 1} of {nrefs})" if nrefs > 1 else ""
    return (
        f"Read {_fmt(out.value)} from the output ({_where(out, read)}) and {_fmt(exp.value)} from the "
        f"reference{which} ({_where(exp, read)}). The difference {_fmt(diff)} is {'within' if passed else 'outside'} "
        f"the allowed {_fmt(allowed)} ({tol})."
    )


def grade_many(refs: Sequence[tuple[str, ...]], outputs: Sequence[str], *, read: str, abs_tol: float, rel_tol: float,
               explain: bool = True) -> Block:
    """Numeric over a column; each distinct text is read once per mode. The references are
    read first: the rows where none holds a number are not judged, all at once.
    ``explain=False``: the same verdicts, near misses and details, explanations None."""
    cache: dict[tuple[str, str], Reading | None] = {}

    def reader(text: str, mode: str) -> Reading | None:
        key = (text, mode)
        found = cache.get(key, cache)
        if found is cache:
            found = cache[key] = read_number(text, mode)
        return found

    n = len(outputs)
    single = all(len(r) == 1 for r in refs)
    texts = set(map(itemgetter(0), refs)) if single else {t for r in refs for t in r}
    ref_reads = {t: read_number(t, read) for t in texts}
    cache.update(((t, read), x) for t, x in ref_reads.items())
    if single:
        judged = [i for i, r in enumerate(refs) if ref_reads[r[0]] is not None]
    else:
        judged = [i for i, r in enumerate(refs) if any(ref_reads[t] is not None for t in r)]

    block = Block(n)
    nj = _no_reference_number(read)
    if len(judged) < n:  # a fail is the block's default; start from not judged instead
        block.status, block.passed, block.score = [nj.status] * n, [None] * n, [None] * n
        block.explanation, block.details = [nj.explanation if explain else None] * n, [nj.details] * n
    status, passed, score, explanation, details = block.status, block.passed, block.score, block.explanation, block.details
    near_miss = block.near_miss
    others = [m for m in READ_MODES if m != read]
    tol = _tolerance_words(abs_tol, rel_tol)
    cmp = _comparer(abs_tol, rel_tol)
    no_number = _no_output_number(read)
    for i in judged:
        r, o = refs[i], outputs[i]
        out = reader(o, read)
        if out is None:
            ok = False
            status[i], passed[i], score[i], details[i] = "fail", False, 0.0, no_number.details
            explanation[i] = no_number.explanation if explain else None
        else:
            best = _best(r, out, read, cmp, reader)
            ok, _, diff, allowed, exp = best  # type: ignore[misc]
            status[i], passed[i], score[i] = ("pass", True, 1.0) if ok else ("fail", False, 0.0)
            details[i] = {"read": read, "output_number": str(out.value), "expected_number": str(exp.value),
                          "difference": str(diff), "allowed": str(allowed)}
            explanation[i] = _explain(out, best, len(r), read, tol) if explain else None  # type: ignore[arg-type]
        if not ok:
            codes = tuple(f"read_{m}" for m in others if _passes(r, o, m, cmp, reader))
            near_miss[i] = codes or None
    return block


def grade_numeric(refs: tuple[str, ...], output: str, *, read: str, abs_tol: float, rel_tol: float) -> Grade:
    return grade_many([refs], [output], read=read, abs_tol=abs_tol, rel_tol=rel_tol).grade(0)


SPEC = GraderSpec(
    name="numeric",
    func=grade_numeric,
    params=[READ, ABS_TOL, REL_TOL],
    binary=True,
    label="Numeric",
    summary="one number from each side, equal within an absolute or relative tolerance",
    batch=grade_many,
    defers_explanations=True,
)
