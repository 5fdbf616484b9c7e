"""The exported normalizers reproduce graders.text.normalize: Python by exec, TypeScript in Node.js.

The TypeScript runs in one Node process for the whole module (JSON lines in and out): the
test strips the type annotations with a transform it controls (``strip_types``: the exact
annotation spellings graders.explore.export emits, nothing else), imports the result as an ES
module from a data: URL and calls ``normalize`` / ``normalizedMatch``.

Strings are compared as UTF-16 code units, which is what a JavaScript string is: a Python
result holding a lone high surrogate followed by a lone low surrogate is the same
JavaScript string as the astral character they encode. Inputs never hold such a pair.

What is generated: every step alone and in many orders (with repeats), over pairgen's
realistic answers, seeded strings built from the characters that make each step subtle,
hypothesis text (any character Python's Unicode assigns, plus lone surrogates), and
code-point sweeps (every assigned character alone, and in the contexts that decide
Final_Sigma and the article word boundaries).
"""

from __future__ import annotations

import ast
import json
import random
import re
import shutil
import subprocess
import unicodedata
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders import grade
from graders._testing import pairs
from graders.config import RunConfig
from graders.explore.export import UNICODE_VERSION, character_data, config_snippet, python_source, typescript_source
from graders.text.normalize import SQUAD_PIPELINE, STEPS, WHITESPACE, compose

NODE = shutil.which("node")
STEP_NAMES = tuple(STEPS)

# ----------------------------------------------------------------------------- corpora

# Characters that make one step or another subtle.
TRICKY = (
    list(WHITESPACE)
    + ["\ufeff", "\u180e", "\u200b", "\u2060", "\u200d", "\ufe0f"]  # not whitespace in Python
    + [chr(c) for c in range(0x20, 0x7F)]
    + list("“”‘’«»„‟‛")
    + list("ΣσςΑΒΓάέΐΰ") + ["\u0345", "\u0307", "\u0301", "\u0300", "\u0323", "\u031b", "\u0308"]
    + list("İIıiẞßKΩÅǅǄǆﬁﬀﬃＡＢａ１½²³ⅷⅫ①〇٣۳߁")
    + ["\u1100", "\u1161", "\u11a8", "가", "각", "e\u0301", "A\u030a", "Ḁ", "Ꭰ", "ꭰ", "Ა", "ა"]
    + ["𐐀", "𐐨", "𝐀", "😀", "👍🏽", "東", "ก", "\u0e31", "क", "\u093e", "\u094d", "\u0670"]
    + ["'", ".", ":", "^", "`", "¨", "·", "\u00ad", "\u02b0", "\u02bc", "\u2019", "\u0483", "\u1dc0"]
    + ["a", "an", "the", "The", "A", "AN", "_", "0", "9", "a_", "_a", "an'", "the.", "theΣ"]
    + ["\ud800", "\udbff", "\udc00", "\udfff"]
)
ASSIGNED = [
    chr(c) for c in range(0x110000)
    if unicodedata.category(chr(c)) not in ("Cn", "Cs", "Co")
]
_PAIR = re.compile("([\ud800-\udbff])(?=[\udc00-\udfff])")


def no_surrogate_pairs(s: str) -> str:
    """Break a lone high + lone low surrogate apart: JavaScript cannot hold them apart."""
    return _PAIR.sub(r"\1x", s)


def tricky_strings(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 12)):
            r = rng.random()
            parts.append(rng.choice(TRICKY) if r < 0.7 else rng.choice(ASSIGNED) if r < 0.9 else " ")
        out.append(no_surrogate_pairs("".join(parts)))
    return out


@lru_cache(maxsize=1)
def corpus() -> tuple[str, ...]:
    strings: list[str] = []
    for refs, out in pairs(600, seed=7):
        strings.extend(refs)
        strings.append(out)
    strings += tricky_strings(3000, seed=11)
    strings += ["", " ", "a", "the", "“”", '""', "'", ".", "!", "Σ", "ΑΣ", "ΑΣ.", "ΑΣ'Α", "\u0345Σ", " a an the "]
    return tuple(strings)


def pipelines() -> list[tuple[str, ...]]:
    rng = random.Random(3)
    out: list[tuple[str, ...]] = [(s,) for s in STEP_NAMES]
    out += [(), ("trim", "lower"), SQUAD_PIPELINE, STEP_NAMES, tuple(reversed(STEP_NAMES))]
    for _ in range(12):
        out.append(tuple(rng.choice(STEP_NAMES) for _ in range(rng.randint(2, 7))))
    return out


pipeline_strategy = st.lists(st.sampled_from(STEP_NAMES), max_size=6).map(tuple)
text_strategy = st.lists(
    st.one_of(st.sampled_from(TRICKY), st.characters(exclude_categories=("Cs", "Cn"))), max_size=30,
).map(lambda parts: no_surrogate_pairs("".join(parts)))


def utf16(s: str) -> bytes:
    return s.encode("utf-16-le", "surrogatepass")


def mismatches(inputs, got, want) -> list:
    return [(s, g, w) for s, g, w in zip(inputs, got, want) if utf16(g) != utf16(w)]


# ----------------------------------------------------------------------------- Python


@lru_cache(maxsize=None)
def python_module(steps: tuple[str, ...]) -> dict:
    namespace: dict = {"__name__": "exported_normalizer"}
    exec(compile(python_source(steps), "<exported>", "exec"), namespace)
    return namespace


def test_python_source_is_standard_library_only():
    for steps in pipelines():
        tree = ast.parse(python_source(steps))
        modules = {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        modules |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert modules <= {"re", "unicodedata", "__future__"}, steps


@pytest.mark.parametrize("steps, words", [
    (("trim", "lower"), "str.lower follows the interpreter's Unicode data."),
    (("nfc", "nfkc"), "unicodedata follows the interpreter's Unicode data."),
    (("lower", "nfkc"), "str.lower and unicodedata follow the interpreter's Unicode data."),
])
def test_the_unicode_note_agrees_with_its_subject(steps, words):
    assert words in " ".join(python_source(steps).split())


@pytest.mark.parametrize("steps", pipelines(), ids=lambda p: "+".join(p) or "none")
def test_python_export_matches_library_on_corpus(steps):
    normalize, reference = python_module(steps)["normalize"], compose(steps)
    strings = corpus()
    assert mismatches(strings, map(normalize, strings), map(reference, strings)) == []


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=pipeline_strategy, text=text_strategy)
def test_python_export_matches_library_hypothesis(steps, text):
    assert python_module(steps)["normalize"](text) == compose(steps)(text)


@pytest.mark.parametrize("steps", [("trim", "lower"), SQUAD_PIPELINE, ("nfkc", "strip_quotes", "trim")])
def test_python_normalized_match_is_the_grader_verdict(steps):
    match = python_module(steps)["normalized_match"]
    for refs, out in pairs(600, seed=5):
        assert match(refs, out) == grade("normalized", expected=refs, output=out, pipeline=list(steps)).passed


def test_config_snippet_configures_the_same_grader():
    for steps in [("trim", "lower"), SQUAD_PIPELINE, ("strip_quotes", "nfc"), ()]:
        entry = json.loads(config_snippet(steps))
        config = RunConfig.from_dict({"columns": {}, "graders": [entry], "overall": None})
        assert config.graders[0].name == "normalized"
        assert config.graders[0].resolved["pipeline"] == steps


# ----------------------------------------------------------------------------- TypeScript

# Every type annotation graders.explore.export writes, spelled exactly; longest first.
_TS_TYPES = (
    "string | readonly string[]",
    "ReadonlyArray<readonly [string, string]>",
    "Map<string, string>",
    "readonly string[]",
    "string",
    "number",
    "boolean",
    "RegExp",
)
_ANNOTATION = re.compile(r":\s(?:" + "|".join(map(re.escape, _TS_TYPES)) + r")(?=[,)=;{\s])")


def strip_types(ts: str) -> str:
    """TypeScript as graders.explore.export writes it -> JavaScript: drop the annotations in code lines."""
    return "\n".join(line if line.lstrip().startswith("//") else _ANNOTATION.sub("", line) for line in ts.split("\n"))


@lru_cache(maxsize=None)
def javascript(steps: tuple[str, ...]) -> str:
    return strip_types(typescript_source(steps))


HARNESS = r"""
import readline from "node:readline";
const modules = new Map();
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  let reply;
  try {
    const req = JSON.parse(line);
    let mod = modules.get(req.source);
    if (!mod) {
      mod = await import("data:text/javascript;charset=utf-8," + encodeURIComponent(req.source));
      modules.set(req.source, mod);
    }
    const f = mod[req.fn];
    reply = { out: req.strings ? req.strings.map((s) => f(s)) : req.calls.map((args) => f(...args)) };
  } catch (e) {
    reply = { error: String(e && e.stack || e) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
"""


class Node:
    def __init__(self, directory):
        script = directory / "harness.mjs"
        script.write_text(HARNESS, encoding="utf-8")
        self.proc = subprocess.Popen(
            [NODE, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )

    def call(self, steps: tuple[str, ...], fn: str, calls: list[list] | None = None, strings=None) -> list:
        source = javascript(steps)
        request = json.dumps({"source": source, "fn": fn, "calls": calls, "strings": strings}, ensure_ascii=True)
        self.proc.stdin.write(request.encode("ascii") + b"\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("node exited: " + self.proc.stderr.read().decode("utf-8", "replace"))
        reply = json.loads(line)
        if "error" in reply:
            raise AssertionError(reply["error"])
        return reply["out"]

    def normalize(self, steps: tuple[str, ...], strings) -> list[str]:
        return self.call(steps, "normalize", strings=list(strings))

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (.ci/run installs it)")


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    if NODE is None:
        pytest.skip("node is not installed (.ci/run installs it)")
    n = Node(tmp_path_factory.mktemp("node"))
    yield n
    n.close()


def test_strip_types_removes_only_annotations():
    ts = typescript_source(STEP_NAMES)
    js = strip_types(ts)
    assert ts.count(": ") - js.count(": ") == len(_ANNOTATION.findall(ts)) > 0
    # What remains has no TypeScript syntax left in code lines.
    code = [line for line in js.split("\n") if not line.lstrip().startswith("//")]
    assert not any(re.search(r"\breadonly\b|ReadonlyArray|:\s*(string|boolean|RegExp)\b", line) for line in code)


@needs_node
def test_stripped_typescript_is_valid_javascript(tmp_path):
    # (Every pipeline is also imported and run by the tests below.)
    for i, steps in enumerate([STEP_NAMES, ()]):
        path = tmp_path / f"n{i}.mjs"
        path.write_text(strip_types(typescript_source(steps)), encoding="utf-8")
        result = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True)
        assert result.returncode == 0, (steps, result.stderr)


def test_typescript_avoids_javascript_builtins_with_other_semantics():
    ts = typescript_source(STEP_NAMES)
    code = "\n".join(line for line in ts.split("\n") if not line.lstrip().startswith("//"))
    assert ".trim()" not in code and "trimStart" not in code and "trimEnd" not in code
    assert "\\s" not in code and "\\b" not in code and "\\w" not in code


@pytest.mark.parametrize("steps", pipelines(), ids=lambda p: "+".join(p) or "none")
def test_typescript_matches_library_on_corpus(node, steps):
    strings = list(corpus())
    got = node.normalize(steps, strings)
    assert mismatches(strings, got, map(compose(steps), strings)) == []


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=pipeline_strategy, texts=st.lists(text_strategy, min_size=1, max_size=20))
def test_typescript_matches_library_hypothesis(node, steps, texts):
    got = node.normalize(steps, texts)
    assert mismatches(texts, got, map(compose(steps), texts)) == []


def test_typescript_normalized_match_is_the_grader_verdict(node):
    for steps in [("trim", "lower"), SQUAD_PIPELINE, ("nfkc", "strip_quotes", "trim")]:
        cases = [[refs if k % 2 else refs[0], out] for k, (refs, out) in enumerate(pairs(600, seed=9))]
        got = node.call(steps, "normalizedMatch", cases)
        want = [grade("normalized", expected=e, output=o, pipeline=list(steps)).passed for e, o in cases]
        assert got == want


# The subtle cases, spelled out: (step, input, what Python gives). Both exports must agree.
SUBTLE = [
    ("lower", "İ", "i\u0307"),                # SpecialCasing: one character to two
    ("lower", "ΟΔΟΣ", "οδος"),                 # Final_Sigma at the end of a word
    ("lower", "ΟΔΟΣ.", "οδος."),               # '.' is case-ignorable and not cased
    ("lower", "Σ", "σ"),                       # nothing cased before it
    ("lower", "ΑΣ\u0295", "ασ\u0295"),         # ʕ is cased (Ll) in Unicode 14.0; Lo later
    ("lower", "\u02b0Σ", "\u02b0σ"),           # ʰ is cased and case-ignorable: skipped
    ("trim", "\x1c a \x85", "a"),              # Python strips U+001C and U+0085 ...
    ("trim", "\ufeffa\ufeff", "\ufeffa\ufeff"),  # ... and not U+FEFF (JavaScript's trim does)
    ("collapse_whitespace", "a\x85\u2028b", "a b"),
    ("collapse_whitespace", "a\ufeffb", "a\ufeffb"),
    ("remove_articles", "the café", "  café"),
    ("remove_articles", "a\u0301", " \u0301"),  # a combining mark is not a word character
    ("remove_articles", "²a", "²a"),             # No is a word character
    ("remove_articles", "\U0001d400a", "\U0001d400a"),  # an astral letter
    ("remove_articles", "a_b", "a_b"),
    ("remove_articles", "anthe the", "anthe  "),
    ("remove_punctuation", "a-b_c«»", "abc«»"),   # ASCII only
    ("strip_trailing_punctuation", "a!!", "a!"),
    ("strip_quotes", "“x”", "x"),
    ("strip_quotes", "”x“", "”x“"),
    ("strip_quotes", '"', '"'),
    ("nfkc", "ﬁ", "fi"),
    ("nfc", "e\u0301", "é"),
]


@pytest.mark.parametrize("step, text, want", SUBTLE)
def test_subtle_cases_python(step, text, want):
    assert compose((step,))(text) == want
    assert python_module((step,))["normalize"](text) == want


def test_subtle_cases_typescript(node):
    for step, text, want in SUBTLE:
        assert node.normalize((step,), [text]) == [want], (step, text)


# Code-point sweeps. The character data the TypeScript carries is checked against the
# library on every code point (in Python); then Node runs every character Python's Unicode
# assigns, alone and in the contexts that decide Final_Sigma and the article boundaries,
# plus a sample of the unassigned ones (which the engine's newer Unicode may know).

ALL_CODE_POINTS = range(0x110000)
UNASSIGNED_SAMPLE = [chr(c) for c in range(0, 0x110000, 53) if unicodedata.category(chr(c)) in ("Cn", "Co")]


def _decode(ranges: str) -> set[int]:
    out = set()
    for field in ranges.split(","):
        lo, _, hi = field.partition("-")
        out.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return out


def test_character_data_is_the_library_on_every_code_point():
    data = character_data()
    word = {c for lo, hi in data.word for c in range(lo, hi + 1)}
    cased = {c for lo, hi in data.cased for c in range(lo, hi + 1)}
    ignorable = {c for lo, hi in data.case_ignorable for c in range(lo, hi + 1)}
    lowered = dict(data.lowercase_special)
    for start, count, stride, delta in data.lowercase_runs:
        for k in range(count):
            lowered[chr(start + k * stride)] = chr(start + k * stride + delta)
    remove_articles, lower = STEPS["remove_articles"], STEPS["lower"]
    for c in ALL_CODE_POINTS:
        ch = chr(c)
        assert (remove_articles(ch + "a") == ch + "a") == (c in word), hex(c)
        sigma_after = lower(ch + "\u03a3")[-1] == "\u03c2"
        sigma_skip = lower("\u0391" + ch + "\u03a3")[-1] == "\u03c2"
        assert sigma_after == (c in cased), hex(c)
        assert (sigma_skip and not sigma_after) == (c in ignorable), hex(c)
        if c != 0x3A3:
            assert lowered.get(ch, ch) == lower(ch), hex(c)


def test_emitted_ranges_are_the_character_data():
    ts = typescript_source(STEP_NAMES)
    data = character_data()

    def constant(name):
        m = re.search(rf"const {name}: string =\n((?:  .*\n)+?)(?=\S)", ts + "\n")
        return "".join(json.loads(piece) for piece in re.findall(r'"[^"]*"', m.group(1)))

    for name, ranges in [("WORD_RANGES", data.word), ("CASED_RANGES", data.cased),
                         ("CASE_IGNORABLE_RANGES", data.case_ignorable)]:
        assert _decode(constant(name)) == {c for lo, hi in ranges for c in range(lo, hi + 1)}, name


def _sweep(node, steps, strings, joiner=None, chunk=1000):
    """Compare Node and the library on ``strings``; with ``joiner``, on chunks of them joined
    by it (one long input per chunk: cheaper, and just as strict when the joiner is neutral
    for the step, as a space is for Final_Sigma and for word boundaries)."""
    inputs = list(strings)
    if joiner is not None:
        inputs = [joiner.join(inputs[i:i + chunk]) for i in range(0, len(inputs), chunk)]
    got = node.normalize(steps, inputs)
    bad = mismatches(inputs, got, map(compose(steps), inputs))
    if bad and joiner is not None:  # name the items, not the chunks
        items = [x for s, _, _ in bad for x in s.split(joiner)] if joiner else [c for s, _, _ in bad for c in s]
        return _sweep(node, steps, items)
    shown = [(s.encode("unicode_escape").decode(), g, w) for s, g, w in bad[:10]]
    assert bad == [], f"{len(bad)} differences (Python's Unicode {UNICODE_VERSION}), e.g. {shown}"


def test_typescript_sweep_lower_every_code_point(node):
    # Python's tables travel with the code: exact on every code point, assigned or not.
    # Lowercasing is context-free apart from Σ, so the characters go in joined, 1000 at a time.
    _sweep(node, ("lower",), [chr(c) for c in ALL_CODE_POINTS if not 0xD800 <= c <= 0xDFFF], joiner="")


@pytest.mark.parametrize("steps", [("nfc",), ("nfkc",)])
def test_typescript_sweep_normal_forms_every_assigned_character(node, steps):
    # The engine's own normalize: every character Python's Unicode assigns (see the header).
    _sweep(node, steps, ASSIGNED)


@pytest.mark.parametrize("steps", [("trim",), ("collapse_whitespace",)])
def test_typescript_sweep_whitespace_every_bmp_character(node, steps):
    # Every whitespace character is in the BMP; astral characters are never whitespace.
    bmp = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    _sweep(node, steps, bmp + ["x" + c + "x" for c in bmp if c.isspace() or c in "\ufeff\u180e\u200b"])


def test_typescript_sweep_final_sigma_contexts(node):
    # After a cased letter, at the end: ς; a character after decides (cased: σ, case-ignorable:
    # look further); before Σ, a case-ignorable character is skipped and a cased one counts.
    strings = []
    for c in ASSIGNED + UNASSIGNED_SAMPLE:
        strings += ["ΑΣ" + c, c + "Σ", "Α" + c + "Σ", "ΑΣ" + c + "Α"]
    # A space is neither cased nor case-ignorable: to Final_Sigma it is as good as either end.
    _sweep(node, ("lower",), strings, joiner=" ")


def test_typescript_sweep_article_word_boundaries(node):
    # The character on either side of "a" decides whether Python's \b holds there.
    strings = []
    for c in ASSIGNED + UNASSIGNED_SAMPLE:
        strings += ["a" + c, c + "a", "the" + c]
    # A space is not a word character: to \b it is as good as either end.
    _sweep(node, ("remove_articles",), strings, joiner=" ")
