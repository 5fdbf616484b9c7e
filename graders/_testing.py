"""Seeded generators of realistic (expected, output) pairs for golden tests and benchmarks.

Not used when grading. The mix covers what the reference comparisons must survive:
short answers, sentences, long paragraphs, empty sides, several references,
punctuation, numbers with commas and periods, hyphens and underscores, and non-ASCII
text (accents, CJK, emoji, combining marks, no-break spaces).
"""

from __future__ import annotations

import random
from typing import Iterator

WORDS = (
    "the a an of to and in is it that for on with as was at by be this from or have not are "
    "refund order return policy customer item shipping days store credit receipt package "
    "delivery status account label warranty exchange price total damaged replacement "
    "Paris Canberra Eiffel Tower capital river mountain model answer question reason "
    "quickly never always before after because however therefore "
).split()
NON_ASCII = (
    "café naïve Zürich São Paulo Ελλάδα Москва 東京 北京 日本語 한국어 العربية हिन्दी "
    "straße façade coöperate ﬁne ＡＢＣ １２３ 😀 👍🏽 🇫🇷 e\u0301 n\u0303 "
).split()
PUNCT = list(".,;:!?-_'\"()[]{}/\\@#$%&*+=<>|~`") + ["...", "--", "—", "–", "“", "”", "‘", "’", "«", "»"]
NUMBERS = ("42", "3.14", "1,234", "1,234,567.89", "0.5", "-7", "+12", "100%", "$42.00", "2024", "v2.0", "1e5", "007")
JOINERS = ("refund-status", "snake_case", "re-enter", "e-mail", "state-of-the-art", "x_1", "__init__", "a-b-c")
SPACES = (" ", " ", " ", " ", "  ", "\t", "\n", "\u00a0", "\u2009", "\u3000")


def _token(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.62:
        return rng.choice(WORDS)
    if r < 0.72:
        return rng.choice(NON_ASCII)
    if r < 0.82:
        return rng.choice(NUMBERS)
    if r < 0.90:
        return rng.choice(JOINERS)
    return rng.choice(PUNCT)


def sentence(rng: random.Random, lo: int, hi: int) -> str:
    n = rng.randint(lo, hi)
    parts = []
    for i in range(n):
        tok = _token(rng)
        if rng.random() < 0.1:
            tok = tok.capitalize()
        if rng.random() < 0.08:
            tok += rng.choice(",.;:!?")
        parts.append(tok)
        if i < n - 1:
            parts.append(rng.choice(SPACES))
    text = "".join(parts)
    if rng.random() < 0.3:
        text += rng.choice(".!?")
    return text


def mutate(rng: random.Random, text: str) -> str:
    """A plausible model output near ``text``: dropped, swapped, added or recased words."""
    words = text.split()
    if not words:
        return sentence(rng, 0, 3)
    ops = rng.randint(0, max(1, len(words) // 3))
    for _ in range(ops):
        op = rng.random()
        i = rng.randrange(len(words)) if words else 0
        if op < 0.3 and words:
            del words[i]
        elif op < 0.55:
            words.insert(i, _token(rng))
        elif op < 0.75 and words:
            words[i] = _token(rng)
        elif op < 0.85 and len(words) > 1:
            j = rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
        elif words:
            words[i] = words[i].upper() if rng.random() < 0.5 else words[i].lower()
    out = " ".join(words)
    if rng.random() < 0.1:
        out = " " + out + rng.choice(["", ".", "!", "\n"])
    return out


def text_of(rng: random.Random, shape: str) -> str:
    if shape == "short":
        return sentence(rng, 1, 4)
    if shape == "sentence":
        return sentence(rng, 5, 30)
    if shape == "paragraph":
        return sentence(rng, 60, 250)
    if shape == "empty":
        return rng.choice(["", " ", "\n"])
    raise ValueError(shape)


def pairs(n: int, seed: int = 0, max_refs: int = 3) -> Iterator[tuple[list[str], str]]:
    """``n`` seeded pairs of (references, output); about a quarter have several references."""
    rng = random.Random(seed)
    shapes = ["short"] * 35 + ["sentence"] * 45 + ["paragraph"] * 12 + ["empty"] * 3
    for _ in range(n):
        shape = rng.choice(shapes)
        ref = text_of(rng, shape)
        r = rng.random()
        if r < 0.04:
            out = text_of(rng, "empty")
        elif r < 0.12:
            out = ref
        elif r < 0.2:
            out = text_of(rng, shape)  # unrelated
        else:
            out = mutate(rng, ref)
        refs = [ref]
        if max_refs > 1 and rng.random() < 0.25:
            for _ in range(rng.randint(1, max_refs - 1)):
                refs.append(mutate(rng, ref) if rng.random() < 0.7 else text_of(rng, shape))
        yield refs, out
