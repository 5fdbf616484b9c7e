"""The 13a tokenizer of mteval-v13a.pl, as sacrebleu 2.x applies it (``tok:13a``).

Steps, in sacrebleu's order: drop ``<skipped>``, join ``-\\n`` line breaks, newlines to
spaces, unescape ``&quot; &amp; &lt; &gt;``; then

1. split off every ASCII symbol ``{|}~ [\\]^_` !"#$%& ()*+ :;<=>?@ /``
   (not ``'``, ``,``, ``-``, ``.``, letters or digits);
2. split off ``.`` and ``,`` unless preceded by a digit;
3. split off ``.`` and ``,`` unless followed by a digit;
4. split off ``-`` when preceded by a digit;

and split on whitespace (the 29 ``str.split`` characters). ``refund-status`` stays one
token, ``snake_case`` becomes three, ``1,234.5`` stays one, ``x-5`` stays one, ``5-x``
becomes three.

sacrebleu runs four ``re.sub`` passes with group templates (a Python call per match).
Here step 4 is one C-level substitution, and steps 1-3 one split, except for runs of
marks: every step looks only at a character's neighbours, and no step changes whether
a neighbour is a digit, so the order of the passes does not matter. A run of marks such
as ``...`` goes through ``_split_run``, which reproduces the pairing of sacrebleu's
non-overlapping matches (``a..5`` gives ``a . .5``). Patterns are compiled once at
import. There is no cache here (sacrebleu keeps 2**16 lines): BLEU caches a reference's
n-grams.
"""

from __future__ import annotations

import re

# Step 1 (sacrebleu's class less the space, which splits nothing), and steps 2-3 for a
# lone mark ("." or "," with no mark beside it), which stays in its token only between
# two digits. One character class first, so the regex engine scans for it quickly.
_SPLIT = re.compile(r"([!-&(-+/:-@\[-`{-~.,])(?:(?<![.,])|(?<![.,][.,])(?![.,])(?:(?![0-9])|(?<![0-9][.,])))")
_DASH_AFTER_DIGIT = re.compile(r"-(?<=[0-9]-)")  # step 4
# Steps 2 and 3 for a run of marks.
_MARK_RUN = re.compile(r"[.,]{2,}")
# Whether a line has a run at all, searched before the split: the split only inserts
# spaces (which end runs, never start them), so a line without two marks side by side
# has no run after it either. One regex scan beats four substring tests on non-ASCII text.
_TWO_MARKS = re.compile(r"[.,][.,]")
_DIGITS = frozenset("0123456789")


def _split_run(m: re.Match) -> str:
    """sacrebleu's steps 2-3 over a run ``P1..Pk`` (k >= 2) between neighbours ``X`` and ``Y``.

    Their non-overlapping matches pair ``(X, P1), (P2, P3), ...`` (``X`` not a digit) or
    ``(P1, P2), (P3, P4), ...`` (``X`` a digit), so every mark becomes a token, except
    that ``Pk`` stays on a following digit when the pairing leaves it unpaired.
    """
    text, start, end = m.string, m.start(), m.end()
    run = m[0]
    before_digit = start > 0 and text[start - 1] in _DIGITS
    after_digit = end < len(text) and text[end] in _DIGITS
    join_right = after_digit and before_digit != (len(run) % 2 == 0)
    return f" {' '.join(run)}{'' if join_right else ' '}"


def _unescape(line: str) -> str:
    if "<skipped>" in line:
        line = line.replace("<skipped>", "")
    if "\n" in line:
        line = line.replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return line


def tokens_13a(line: str) -> list[str]:
    """The 13a tokens of ``line`` (the caller strips trailing whitespace first, as BLEU does)."""
    line = _unescape(line)
    if "-" in line:
        line = _DASH_AFTER_DIGIT.sub(" - ", line)
    if _TWO_MARKS.search(line) is None:
        return " ".join(_SPLIT.split(line)).split()
    return _MARK_RUN.sub(_split_run, " ".join(_SPLIT.split(line))).split()


def tokenize_13a(line: str) -> str:
    """``line`` tokenized by 13a, tokens joined by single spaces (sacrebleu's ``Tokenizer13a``)."""
    return " ".join(tokens_13a(line))
