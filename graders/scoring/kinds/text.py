"""``levenshtein`` and ``rouge-n`` as promptfoo 0.121 computes them.

* ``levenshtein``: the edit distance between the output and the value counted in UTF-16
  code units (``fastest-levenshtein``'s ``distance``, which reads ``charCodeAt``: an emoji is
  two units), passing when it is at most ``threshold`` (default 5). Hyyrö's bit-parallel
  form of Myers' algorithm over Python integers: one pass over the longer text, a few
  operations on an integer as wide as the shorter one per unit.
* ``rouge-n``: promptfoo's clipped ROUGE-1 F-measure of the lowercased output and value,
  tokenized by js-rouge 3.2's Penn Treebank tokenizer (ported below, JavaScript's regular
  expressions spelled for the ``regex`` module), passing at ``threshold`` (default 0.75).
  More than js-rouge's 1,000,000 units of n-gram work is an error, as it throws there.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

import regex

from graders.scoring.kinds.js import WHITESPACE_CLASS

# --------------------------------------------------------------------------- levenshtein


def utf16_units(text: str) -> str | tuple[int, ...]:
    """``text`` as JavaScript indexes it: itself when every character is one UTF-16 unit
    (no character past U+FFFF), else the tuple of its units."""
    if text.isascii() or max(text) < "\U00010000":
        return text
    raw = text.encode("utf-16-le", "surrogatepass")
    return tuple(memoryview(raw).cast("H"))


def levenshtein(a: str, b: str) -> int:
    """Edit distance in UTF-16 code units (insert, delete, substitute: each 1)."""
    if a == b:
        return 0
    ua, ub = utf16_units(a), utf16_units(b)
    if isinstance(ua, str) != isinstance(ub, str):  # one has astral characters: both as units
        ua = ua if not isinstance(ua, str) else tuple(map(ord, ua))
        ub = ub if not isinstance(ub, str) else tuple(map(ord, ub))
    if len(ua) > len(ub):
        ua, ub = ub, ua
    m = len(ua)
    if m == 0:
        return len(ub)
    peq: dict = {}
    for i, c in enumerate(ua):
        peq[c] = peq.get(c, 0) | (1 << i)
    mask = (1 << m) - 1
    last = 1 << (m - 1)
    pv, mv, score = mask, 0, m
    get = peq.get
    for c in ub:
        eq = get(c, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & last:
            score += 1
        elif mh & last:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
    return score


# --------------------------------------------------------------------------- js-rouge's tokenizer

_JS_SPACE = WHITESPACE_CLASS
_SPACES = regex.compile(f"[{_JS_SPACE}\u0085]+")
_QUOTES = regex.compile(r"``|''|\"")
_OPEN_BEFORE = regex.compile(rf"[{_JS_SPACE}\p{{Ps}}<]")
_PUNCT_BEFORE = regex.compile(rf"[{_JS_SPACE}\p{{P}}<]")
_QUOTE_NEXT = regex.compile(r"[\p{L}\p{N}\p{Sc}\p{Ps}]")
_LM_END = regex.compile(r"\p{Lm}$")
_NUMBER_END = regex.compile(r"\p{N}$")
_TERMINAL_QUOTE_END = regex.compile("[.!?][\"'\u201d\u2019]$")
_FOOTNOTE = regex.compile(r"\p{Lm}(?:[" + _JS_SPACE + ".,;:!?\"'\u201c\u2018\u201d\u2019\\])}>]|$)")
_STEPS = (
    (regex.compile(r"\.{3}"), " ... "),
    (regex.compile(r"[:,](?!\p{Nd})"), r" \g<0> "),
    (regex.compile(r"[;@#$%&]"), r" \g<0> "),
    # /([^.])(?<!\b[A-Za-z]\.[A-Za-z])(\.)([\])}>'\s]*)$/: \b ASCII, $ the very end
    (regex.compile(rf"([^.])(?<!(?<![A-Za-z0-9_])[A-Za-z]\.[A-Za-z])(\.)([\])}}>'{_JS_SPACE}]*)\Z"), r"\1 \2\3 "),
    (regex.compile(r"[?!]"), r" \g<0> "),
    (regex.compile(r"[\][(){}<>]"), r" \g<0> "),
    (regex.compile(r"--"), " -- "),
)
_APOSTROPHES = (
    (regex.compile(r"([^'])' "), r"\1 ' "),
    (regex.compile(r"'([sSmMdD]) "), r" '\1 "),
    (regex.compile(r"('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r" \1 "),
)
_WORD = r"[\p{ID_Continue}\u200c\u200d]"
_CONTRACTIONS = tuple(
    regex.compile(rf"(?<!{_WORD}){p}(?!{_WORD})", regex.IGNORECASE | regex.V0)
    for p in ("(can)(not)", "(d)('ye)", "(gim)(me)", "(gon)(na)", "(got)(ta)", "(lem)(me)", "(more)('n)",
              "(wan)(na)(?= )", "('t)(is)", "('t)(was)")
)
_RUNS = regex.compile(" {2,}")


def _follows_quoted_modifier(text: str, index: int) -> bool:
    m = _LM_END.search(text[max(0, index - 2):index])
    if m is None:
        return False
    modifier = m.group()
    at = index - len(modifier) - 1
    following = text[at + 1:at + 2]
    if not (following != unicodedata.normalize("NFKC", following) and _FOOTNOTE.match(text[at + 1:at + 5])):
        return False
    start = index - len(modifier)
    while start > 0:
        n = _NUMBER_END.search(text[max(0, start - 2):start])
        if n is None:
            break
        start -= len(n.group())
    return bool(_TERMINAL_QUOTE_END.search(text[max(0, start - 2):start]))


def _opens(text: str, index: int) -> bool:
    """js-rouge's quoteOpeningContext."""
    return (index == 0 or bool(_PUNCT_BEFORE.match(text, index - 1)) or text[index - 2:index] == "``"
            or _follows_quoted_modifier(text, index))


def _quotes(text: str) -> str:
    """Each ``, '' and " as `` (opening) or '' (closing), as js-rouge classifies them."""
    inside = False
    out = []
    at = 0
    for m in _QUOTES.finditer(text):
        q, i = m.group(), m.start()
        before = text[i - 1] if i > 0 else ""
        if q == "``":
            inside = True
        else:
            inside = bool(
                (i + len(q) < len(text) or i == 0 or (before and _OPEN_BEFORE.match(before)))
                and not inside and _opens(text, i)
                and not (before and before in ".!?")
                and (q == '"' or (i > 0 and _QUOTE_NEXT.fullmatch(text[i + 2:i + 3]) is not None
                                  and _first_quote(text, i + 2) == "''"))
            )
        out.append(text[at:i])
        out.append(" `` " if inside else " '' ")
        at = m.end()
    out.append(text[at:])
    return "".join(out)


def _first_quote(text: str, start: int) -> str | None:
    m = _QUOTES.search(text, start)
    return m.group() if m else None


def treebank_tokens(text: str) -> list[str]:
    """js-rouge's ``treeBankTokenize``."""
    text = _SPACES.sub(" ", text).strip(" ")  # every JavaScript space is " " now: trim() is strip(" ")
    if not text:
        return []
    parse = _quotes(text)
    for pattern, replacement in _STEPS:
        parse = pattern.sub(replacement, parse)
    parse = f" {parse} "
    for pattern, replacement in _APOSTROPHES:
        parse = pattern.sub(replacement, parse)
    for pattern in _CONTRACTIONS:
        parse = pattern.sub(r" \1 \2 ", parse)
    parse = _RUNS.sub(" ", parse)
    if parse.startswith(" "):
        parse = parse[1:]
    if parse.endswith(" "):
        parse = parse[:-1]
    return parse.split(" ")


# --------------------------------------------------------------------------- ROUGE-N

MAX_NGRAM_WORK = 1_000_000  # js-rouge's MAX_NGRAM_MATERIALIZATION_WORK


def _units(token: str) -> int:
    return len(token) if token.isascii() else len(token.encode("utf-16-le", "surrogatepass")) // 2


def _work(tokens: list[str]) -> int:
    """js-rouge's n-gram materialization work for n = 1 (a token of k units counts k)."""
    return len(tokens) + sum(max(_units(t) - 1, 0) for t in tokens)


def f_measure(p: float, r: float) -> float:
    """js-rouge's ``fMeasure(p, r, 1)``, its special cases and rounding guards included."""
    if p == r:
        return p
    if p == 0 or r == 0:
        return 0.0
    if p > r:
        return min(p, r * (2 / (1 + (r / p))))
    return min(r, p * (2 / (1 + (p / r))))


class RougeWorkError(ValueError):
    """More n-gram work than js-rouge allows (it throws a RangeError)."""


def rouge_1(candidate: str, reference: str) -> float:
    """promptfoo's ``rougeNScore(candidate.toLowerCase(), reference.toLowerCase())``: clipped
    unigram overlap, F1."""
    cand = treebank_tokens(candidate.lower())
    ref = treebank_tokens(reference.lower())
    if not cand or not ref:
        return 0.0
    for tokens in (cand, ref):
        if _work(tokens) > MAX_NGRAM_WORK:
            raise RougeWorkError("N-gram generation exceeds the materialization limit (js-rouge's 1,000,000)")
    ref_counts = Counter(ref)
    overlap = sum(min(c, ref_counts.get(g, 0)) for g, c in Counter(cand).items())
    if overlap == 0:
        return 0.0
    return f_measure(overlap / len(cand), overlap / len(ref))
