r"""Answer extraction (SPEC §9): the part of a model's output a grader should see.

``parse_extract(spec)`` turns a configuration value into an ``Extractor`` (or None);
``extract(ex, output)`` gives the extracted text, or None when nothing was found;
``extract_many(ex, outputs)`` does the same over a column, fast: each named form is one
compiled pattern, and a row costs one regex call plus a few C-level string operations
(``json_path``: one JSON parse; ``regex``: V8 through ``graders.engines.regex_groups``, a
few round trips per batch of rows). Graders apply it through ``graders.metrics.extraction``.

The forms, exactly (``\s`` below is Python's: the 29 characters ``str.strip()`` removes):

``answer_letter`` / ``answer_word`` / ``answer_line``
    What Inspect's ``answer("letter"|"word"|"line")`` scorer extracts: group 1 of
    ``re.search`` with Inspect's own pattern (``inspect_ai._util.pattern``, inspect-ai
    0.3.285, copied verbatim below and held to the installed package by the tests)::

        letter  (?is)ANSWER\s*:\s*([A-Za-z])(?:[^\w]|\n|$)(?!.*ANSWER\s*:)
        word    (?is)ANSWER\s*:\s*(\S+?)(?=[.,;:!?]?\s*(?:\n|$))(?!.*ANSWER\s*:)
        line    (?i)ANSWER\s*:\s*([^\n]+)\s*\Z

    i.e. the letter / word after the last ``ANSWER:`` (any case) that such a letter / word
    follows, and for ``line`` the rest of the output's last non-blank line after an
    ``ANSWER:`` on it. The text is returned as Inspect returns it: not upper-cased, and
    for ``line`` with the line's trailing spaces (and the ``\r`` of a CRLF line) kept.

``choice``
    The letter (A-Z, returned upper-case) of a multiple-choice reply: the LAST mention of
    the highest tier that has one (a stated answer outranks a letter merely mentioned).
    "Last" is by where the mention starts; a list of letters counts as a mention that
    gives None.

    Tier 0, Inspect's own format, ``ANSWER`` (any case) then ``\s*:`` then the LETTER
    RULE below: first such mentions on a line that starts with ``ANSWER``, then (when
    none) such mentions anywhere, as Inspect reads its strict pattern before its lenient
    one.

    Tier 1, any other stated answer: ``answer``, ``choice`` or ``option`` (any case,
    starting a word) followed by ``:`` (``*``/``_`` marks may come between:
    ``**Answer**:``) or by ``is`` / ``would be`` / ``will be`` / ``should be`` (then an
    optional ``:``); or ``\boxed{``. Then the LETTER RULE.

    LETTER RULE: any run of whitespace (newlines too), ``* _ " ' ` ( [ { $``, ``\(``,
    ``\[``, ``\boxed{``, ``\text{``, ``\textbf{``, ``\mathbf{``, ``\mathrm{``; then

    * a list: an upper-case letter, closing marks ``* _ " ' ` ) ] } $ .``, then on the
      same line ``,`` ``/`` ``&`` ``and`` or ``or`` and a second upper-case letter
      (``ANSWER: A, C``, ``the answer is A or B``) -> the reply states no single answer:
      None (tier 2 is not consulted);
    * or an upper-case letter not followed by a word character; ``A`` and ``I`` moreover
      not followed by spaces/tabs and a lower-case word other than ``is``, ``was``,
      ``because``, ``since``, ``as`` (``Answer: I think…``, ``answer: A detailed…`` are
      English; ``ANSWER: A is correct`` is a choice);
    * or a lower-case letter ending its line (closing marks and one ``.``/``!`` may
      follow): ``answer: b``, ``the answer is (c).``; not ``answer: a detailed…``.

    Tier 2, a letter mentioned, always upper-case: (a) ``(B)``, the ``(`` not right after
    a word character (``P(A)`` is not a mention); (b) a line starting with an option
    label ``B)`` or ``B.`` (after spaces/tabs and ``*``/``_``), followed by a space, tab,
    ``*``, ``_``, CR or the line's end; (c) a line holding only the letter, with spaces
    and marks ``* _ " ' ( [`` before and ``* _ " ' ) ] . : !`` after (``B``, ``**B**``,
    ``B.``); (d) a letter ending the reply (only ``) ] . * !`` and whitespace after it),
    at the start or after whitespace, ``:``, ``,`` or ``*``: ``…the best fit is D.``
    (so ``…better than I.`` reads I: a known false positive of this last form).

    Lines here are Python's ``^``/``$`` with MULTILINE: ``\n``-separated (a CR before the
    ``\n`` is allowed where the rule says so).

    Against Inspect's ``multiple_choice`` parsing (``parse_answers``, single answer, 26
    choices, then the ``choice()`` scorer): wherever Inspect reads a letter, this reads the
    same one, on the table of realistic replies and on generated replies made of Inspect-
    format lines and noise, or of one stated answer of any form and noise. It reads more
    than Inspect (``ANSWER: B is correct``, ``The answer is (B).``, ``**Answer:** B``, a
    lone ``B``, ``B) Berlin``). Known divergence by design: a later ``ANSWER:`` that
    Inspect's patterns cannot read, its letter wrapped or followed by words
    (``ANSWER: B`` … ``ANSWER: (C) Paris``, or ``**ANSWER: B**`` … ``**Answer:** C``):
    Inspect keeps the earlier B, this takes the later C. (``ANSWER: B`` … ``The answer
    is C`` gives B in both: tier 0 outranks tier 1.)

``gsm8k``
    lm-evaluation-harness GSM8K "strict-match" (lm-eval 0.4.13, ``gsm8k.yaml``):
    ``RegexFilter`` with ``#### (\-?[0-9\.\,]+)`` takes group 1 of the FIRST match
    (``findall(...)[0]``), then the exact_match metric's ``regexes_to_ignore`` remove every
    ``,``, every ``$`` and one trailing ``.``. No match ("[invalid]" in lm-eval): None.
    ``#### 1,234.`` -> ``1234``; ``#### $5`` -> None (``$`` cannot follow ``#### ``);
    ``#### .`` -> ``""`` (lm-eval compares the empty string too).

``last_number``
    The last numeral of SPEC §3's number grammar, as written: its sign (when the grammar
    gives it one) and its digits, commas and decimal point; a following ``%`` not
    included. ``x-5`` -> ``5``; ``(-3)`` -> ``-3``; ``1,234.5`` -> ``1,234.5``; ``1,2345``
    -> None.

``boxed``
    As lm-eval's minerva_math ``last_boxed_only_string`` + ``remove_boxed`` (0.4.13):
    when ``\boxed `` (with a space) occurs anywhere, the text after its last occurrence up
    to the first ``$`` (or the end); otherwise the contents of the LAST ``\boxed`` if it
    is ``\boxed{`` with a balanced closing ``}`` (None when unbalanced, or when the last
    ``\boxed`` is not followed by ``{``, where lm-eval's ``remove_boxed`` fails an assert);
    with no ``\boxed`` at all, the same for the last ``\fbox{…}`` (lm-eval finds it but its
    ``remove_boxed`` then fails an assert: here its contents are returned).

``first_line``
    The first line with a non-whitespace character, ``str.strip()``-ed. Lines are those
    of ``str.splitlines()`` (``\n``, ``\r\n``, ``\r``, ``\v``, ``\f``, ``\x1c-\x1e``,
    ``\x85``, U+2028, U+2029). All-whitespace output: None.

``{"regex": P, "group": G, "flags": F, "which": "first"|"last"}``
    ECMAScript semantics (V8, ``graders.engines.regex_groups``), with the ``u`` flag always
    on, as for the regex grader (``v`` replaces it; ``g`` is ignored; ``y`` pins the first
    match to index 0). Group ``G`` of the first or last match (``which``; the last of
    ``matchAll``): a number (0 = the whole match) or a group's name; when ``group`` is left
    out, 1 if P has a capture group, else 0. No match, or a group that did not take part:
    None. Pattern, flags and group are checked by V8 when the spec is parsed. A row that
    runs past the time limit (1 s) gives the engine's ``TimeoutResult`` instead of a text
    (a grader's status ``error``); over a column, after ``MAX_TIMEOUTS`` of them the rows
    left are not run (an ``ErrorResult`` saying so).

``{"json_path": "$.a.b[0]"}``
    The output parsed as JSON (one surrounding ```` ```json ```` or bare ```` ``` ```` fence
    tolerated, the body as ``graders/engines/jsonparse.py``'s ``strip_fence`` takes it;
    NaN/Infinity refused; nesting too deep for Python's parser: None); the value at the path: ``$`` the root, ``.name``, ``['name']`` /
    ``["name"]`` (backslash escapes), ``[index]`` (negative from the end) on arrays only.
    A string value as itself; anything else as compact JSON text with numbers as written
    (``{"a":1}``, ``1.50``, ``true``, ``null``). Not JSON, or no value at the path: None.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any, Sequence

import regex

from graders.engines.jsonparse import read_deep
from graders.engines.jsonparse import strip_fence as _strip_fence  # the JSON graders' own fence rule
from graders.engines.regex import ErrorResult, TimeoutResult, check_pattern
from graders.engines.regex_groups import group_info, group_problem, groups_many
from graders.text.numbers import _NOT_DIGITS, _NUMERAL
from graders.text.show import visible

__all__ = ["Extractor", "NAMED_FORMS", "parse_extract", "extract", "extract_many", "TimeoutResult", "ErrorResult"]

NAMED_FORMS = (
    "answer_letter", "answer_word", "answer_line", "choice", "gsm8k",
    "last_number", "boxed", "first_line",
)
_DICT_FORMS = ('{"regex": P, "group": 1, "flags": "", "which": "first"|"last"}', '{"json_path": "$.a.b[0]"}')
_REGEX_KEYS = ("regex", "group", "flags", "which")
# Over a column, a regex that runs past its time limit this many times is not run on the
# rows left (each would cost the limit): as the regex grader's column form.
MAX_TIMEOUTS = 3
# What each named form takes, for explanations ("Answer extracted by gsm8k (…)").
RULES = {
    "answer_letter": "the letter after the last “ANSWER:”, as Inspect's answer(\"letter\")",
    "answer_word": "the word after the last “ANSWER:”, as Inspect's answer(\"word\")",
    "answer_line": "the rest of the last line after “ANSWER:”, as Inspect's answer(\"line\")",
    "choice": "the multiple-choice letter the reply states last",
    "gsm8k": "the number after “#### ”, as lm-evaluation-harness GSM8K strict-match",
    "last_number": "the last number",
    "boxed": "the contents of the last \\boxed{…}",
    "first_line": "the first non-empty line",
}
_JSON_PATH_KEYS = ("json_path",)


# --- the named forms' patterns ---------------------------------------------------------

# inspect_ai._util.pattern (inspect-ai 0.3.285), verbatim; tests/test_harness.py checks
# them against the installed package.
ANSWER_PATTERN_LETTER = r"(?is)ANSWER\s*:\s*([A-Za-z])(?:[^\w]|\n|$)(?!.*ANSWER\s*:)"
ANSWER_PATTERN_WORD = r"(?is)ANSWER\s*:\s*(\S+?)(?=[.,;:!?]?\s*(?:\n|$))(?!.*ANSWER\s*:)"
ANSWER_PATTERN_LINE = r"(?i)ANSWER\s*:\s*([^\n]+)\s*\Z"
# Inspect's pattern() scorer: re.search(pattern, completion, re.IGNORECASE).
_ANSWER = {
    "answer_letter": re.compile(ANSWER_PATTERN_LETTER, re.IGNORECASE),
    "answer_word": re.compile(ANSWER_PATTERN_WORD, re.IGNORECASE),
    "answer_line": re.compile(ANSWER_PATTERN_LINE, re.IGNORECASE),
}

# lm-eval gsm8k.yaml strict-match, and the exact_match metric's regexes_to_ignore.
GSM8K_PATTERN = r"#### (\-?[0-9\.\,]+)"
_GSM8K = re.compile(GSM8K_PATTERN)

# SPEC §3's numeral and the Nl/No code points: graders/text/numbers.py's own (``_NUMERAL``,
# ``_NOT_DIGITS``), so the two readers cannot drift apart.
# The LAST numeral in one match: `.*` runs to the end and gives back one character at a time,
# so the numeral found is the one starting furthest right, which is the last one
# re.finditer would give (numerals cannot start inside another: the lookbehind refuses a
# start after a digit, `.` or `,`), except that a signed numeral's digits could start one
# themselves: an unsigned start right after a sign the grammar would attach is refused.
def _build_last_number() -> re.Pattern[str]:
    sign = r"(?<![^\s(])[+-]"
    unsigned_ok = r"(?<![\s(][+-])(?<!\A[+-])"
    left = rf"(?:(?<![\w.,])|(?<=[{_NOT_DIGITS}]))"
    return re.compile(
        rf"(?s:.*)(?=[+-]?[0-9])(?P<n>(?:{sign}|{unsigned_ok}){left}(?:{_NUMERAL}))(?!\d|[.,]\d)"
    )


_LAST_NUMBER = _build_last_number()

# lm-eval minerva_math: the balanced contents of \boxed{…} / \fbox{…} (regex: recursion).
_BOXED_BRACES = regex.compile(r"\\boxed\{((?:[^{}]++|\{(?1)\})*+)\}")
_FBOX_BRACES = regex.compile(r"\\fbox\{((?:[^{}]++|\{(?1)\})*+)\}")

# str.splitlines() line boundaries; \S excludes them all (each is whitespace).
_FIRST_LINE = re.compile(r"\S(?:[^\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]*\S)?")


def _build_choice() -> re.Pattern[str]:
    open_marks = r"(?:\s|[*_\"'`(\[{$]|\\(?:boxed|text|textbf|mathbf|mathrm)\{|\\\(|\\\[)*+"
    close = r"[*_\"'`)\]}$.]*"
    # Tried first at each stated answer: a list of letters states no single answer (None).
    listed = (
        rf"(?P<several@>[A-Z])(?!\w){close}[ \t]*(?:,|/|&|\band\b|\bor\b)[ \t]*"
        r"[*_\"'`(\[{$ \t]*[A-Z](?!\w)"  # a second letter on the same line
    )
    english = r"(?<=[AI])(?![ \t]+(?!(?:is|was|because|since|as)\b)[a-z])"
    upper = rf"(?P<u@>[A-Z])(?!\w)(?:{english}|(?<![AI]))"
    lower = r"(?P<l@>[a-z])(?=[*_\"'`)\]}$]*[.!]?[*_\"'`)\]}$]*[ \t\r]*(?:\n|\Z))"
    letter = rf"{open_marks}(?:{listed}|{upper}|{lower})"

    def named(pattern: str, suffix: str) -> str:  # group names unique per use
        return pattern.replace("@>", suffix + ">")

    # `(?s:.*)X` finds the X starting furthest right: `.*` runs to the end and gives back
    # one character at a time. Python's engine skips ahead fast when X starts with a plain
    # character, so each tier starts with one (a "\n", or a lookahead on a character set),
    # and a tier's start-of-text case is a separate alternative after it, tried last as
    # the leftmost position.
    # Tier 0: Inspect's own format, "ANSWER:" (any case) starting a line, then anywhere.
    tier0 = r"(?i:answer)\s*:" + letter
    # Tier 1: any other stated answer.
    tier1 = (
        r"(?=[aAcCoO\\])(?:\b(?i:answer|choice|option)"
        r"(?:[*_]*\s*:|\s+(?i:is|would\s+be|will\s+be|should\s+be)\b\s*:?)"
        r"|\\boxed\{)" + letter
    )
    # Tier 2: a letter mentioned: (a) "(B)", (b) a line starting "B)" / "B.", (c) a line
    # holding only the letter and marks, (d) a letter ending the text.
    paren = r"(?<!\w)\((?P<p@>[A-Z])\)"
    label = r"[ \t]*[*_]*(?P<o@>[A-Z])[.)](?=[ \t*_\r]|(?m:$))"
    alone = r"[ \t]*[*_\"'(\[]*(?P<s@>[A-Z])[*_\"')\].:!]*[ \t\r]*(?m:$)"
    ending = r"(?P<e@>[A-Z])[)\].*!]*\s*\Z"
    return re.compile(
        rf"(?s:.*)\n{named(tier0, '0')}|{named(tier0, '0s')}"
        rf"|(?s:.*)(?=[aA]){named(tier0, '0b')}"  # tier 0b: "ANSWER:" anywhere
        rf"|(?s:.*){named(tier1, '1')}"
        rf"|(?s:.*)(?=[(\nA-Z])(?:{named(paren, '')}|\n(?:{named(label, '')}|{named(alone, '')})"
        rf"|(?<=[\s:,*]){named(ending, '')})"
        rf"|{named(label, 's')}|{named(alone, 's')}|{named(ending, 's')}"
    )


_CHOICE = _build_choice()


# --- spec parsing ----------------------------------------------------------------------


@dataclass(frozen=True)
class Extractor:
    """A parsed ``extract`` spec. ``form`` is a named form, ``"regex"`` or ``"json_path"``."""

    form: str
    pattern: str | None = None  # regex: the pattern as given
    flags: str = ""  # regex: the flags as given
    group: int | str = 0  # regex: number or name
    which: str = "first"  # regex
    path: tuple[int | str, ...] = ()  # json_path: the steps (str: a name, int: an index)
    path_text: str = ""  # json_path: the path as given
    source: Any = field(default=None, compare=False, hash=False, repr=False)

    def describe(self) -> str:
        """For messages: ``gsm8k``, ``the regex /…/i``, ``the JSON path $.a``."""
        if self.form == "regex":
            shown = visible(self.pattern).replace("\n", "")
            return f"the regex /{shown if len(shown) <= 80 else shown[:79] + '…'}/{self.flags}"
        if self.form == "json_path":
            return f"the JSON path {self.path_text}"
        return self.form

    def rule(self) -> str:
        """Where the answer is taken from, for explanations: ``the number after “#### ”, …``."""
        if self.form == "regex":
            group = f"group {self.group!r} of " if self.group != 0 else ""
            return f"{group}its {self.which} match"
        if self.form == "json_path":
            return "the value there in the output parsed as JSON"
        return RULES[self.form]

    def to_json(self) -> Any:
        """The spec as given (a str, or a fresh copy of the dict) for configurations."""
        return json.loads(json.dumps(self.source)) if isinstance(self.source, dict) else self.source


def _forms_list() -> str:
    return ", ".join(NAMED_FORMS) + ", " + ", ".join(_DICT_FORMS)


def parse_extract(spec: Any) -> Extractor | None:
    """The ``Extractor`` of an ``extract`` value: None, a form name, a dict (or its JSON text).

    Raises ValueError with one message naming the problem."""
    if spec is None:
        return None
    if isinstance(spec, Extractor):
        return spec
    if isinstance(spec, str):
        if spec in NAMED_FORMS:
            return Extractor(form=spec, source=spec)
        if spec.lstrip().startswith("{"):
            try:
                obj = json.loads(spec)
            except ValueError as e:
                raise ValueError(f"extract {spec!r} is not valid JSON: {e}") from None
            if isinstance(obj, dict):
                ex = parse_extract(obj)
                return Extractor(**{**ex.__dict__, "source": spec})
        raise ValueError(f"unknown extract form {spec!r}; valid forms: {_forms_list()}")
    if isinstance(spec, dict):
        if "regex" in spec and "json_path" in spec:
            raise ValueError("an extract dict takes 'regex' or 'json_path', not both")
        if "regex" in spec:
            return _parse_regex(spec)
        if "json_path" in spec:
            return _parse_json_path(spec)
        keys = ", ".join(map(repr, spec)) or "no keys"
        raise ValueError(
            f"an extract dict needs a 'regex' or a 'json_path' key (it has {keys}); "
            f"valid forms: {_forms_list()}"
        )
    raise ValueError(
        f"extract must be a form name, a dict or None, not {type(spec).__name__}; "
        f"valid forms: {_forms_list()}"
    )


def _unknown_keys(spec: dict, valid: tuple[str, ...], what: str) -> None:
    unknown = [k for k in spec if k not in valid]
    if unknown:
        raise ValueError(
            f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
            f"in a {what} extract; valid keys: {', '.join(valid)}"
        )


def _parse_regex(spec: dict) -> Extractor:
    _unknown_keys(spec, _REGEX_KEYS, "regex")
    pattern = spec["regex"]
    if not isinstance(pattern, str):
        raise ValueError(f"the extract regex must be a string, not {type(pattern).__name__}")
    flags = spec.get("flags", "")
    if not isinstance(flags, str):
        raise ValueError(f"the extract regex's flags must be a string like \"i\", not {flags!r}")
    which = spec.get("which", "first")
    if which not in ("first", "last"):
        raise ValueError(f"the extract regex's which must be 'first' or 'last', not {which!r}")
    problem = check_pattern(pattern, flags)  # V8's reason, with the JavaScript form of Python syntax
    if problem is not None:
        raise ValueError(f"the extract regex is refused: {problem}")
    if "group" not in spec:
        group: int | str = 1 if group_info(pattern, flags)[0] else 0
    else:
        group = spec["group"]
        if isinstance(group, bool) or not isinstance(group, (int, str)):
            raise ValueError(f"the extract regex's group must be a number or a group name, not {group!r}")
        if isinstance(group, int) and group < 0:
            raise ValueError(f"the extract regex's group must be 0 or more, not {group}")
        problem = group_problem(pattern, flags, group)
        if problem is not None:
            raise ValueError(f"the extract regex {problem}")
    return Extractor(form="regex", pattern=pattern, flags=flags, group=group, which=which, source=spec)


_PATH_STEP = re.compile(
    r"\.(?P<name>[^.\[\]'\"\s]+)"
    r"|\[\s*(?P<index>-?[0-9]+)\s*\]"
    r"|\[\s*'(?P<sq>(?:[^'\\]|\\.)*)'\s*\]"
    r'|\[\s*"(?P<dq>(?:[^"\\]|\\.)*)"\s*\]',
    re.DOTALL,
)


def _unescape(s: str) -> str:
    """A quoted name's text: a backslash stands for the character after it."""
    return re.sub(r"\\(.)", r"\1", s, flags=re.DOTALL) if "\\" in s else s


def _parse_json_path(spec: dict) -> Extractor:
    _unknown_keys(spec, _JSON_PATH_KEYS, "json_path")
    path = spec["json_path"]
    if not isinstance(path, str):
        raise ValueError(f"the extract json_path must be a string like \"$.a.b[0]\", not {path!r}")
    if not path.startswith("$"):
        raise ValueError(f"malformed JSON path {path!r}: it must start with $")
    steps: list[int | str] = []
    pos = 1
    while pos < len(path):
        m = _PATH_STEP.match(path, pos)
        if m is None:
            rest = path[pos:]
            what = (
                "wildcards, recursive descent, slices and filters are not supported"
                if re.match(r"\.\.|\.?\*|\[\s*(?:\*|-?[0-9]*:|\?)", rest)
                else f"expected .name, ['name'] or [index] at position {pos}"
            )
            raise ValueError(f"malformed JSON path {path!r}: {what}")
        if m.group("name") is not None:
            steps.append(m.group("name"))
        elif m.group("index") is not None:
            steps.append(int(m.group("index")))
        elif m.group("sq") is not None:
            steps.append(_unescape(m.group("sq")))
        else:
            steps.append(_unescape(m.group("dq")))
        pos = m.end()
    return Extractor(form="json_path", path=tuple(steps), path_text=path, source=spec)


# --- extraction ------------------------------------------------------------------------


def _gsm8k_clean(s: str) -> str:
    # exact_match's regexes_to_ignore in order: ",", "\$", "(?s).*#### ", "\.$"; only
    # digits, "-", "." and "," can be in the group, so: drop commas, then one final ".".
    if "," in s:
        s = s.replace(",", "")
    return s[:-1] if s.endswith(".") else s


def _boxed(s: str) -> str | None:
    if "\\boxed " in s:
        return s.rsplit("\\boxed ", 1)[1].split("$", 1)[0]
    i = s.rfind("\\boxed")
    if i >= 0:
        m = _BOXED_BRACES.match(s, i)
    else:
        i = s.rfind("\\fbox")
        if i < 0:
            return None
        m = _FBOX_BRACES.match(s, i)
    return m.group(1) if m else None


def _choice_letter(m: re.Match[str] | None) -> str | None:
    # Exactly one group takes part in a match; "several" is a list: no single answer.
    if m is None or m.lastgroup.startswith("several"):
        return None
    return m.group(m.lastindex).upper()


class _Num(str):
    """A JSON number kept as written."""


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Numbers kept as written; NaN, Infinity and -Infinity (which Python accepts) refused.
_NUM_DECODER = json.JSONDecoder(parse_int=_Num, parse_float=_Num, parse_constant=_refuse)


_JSON_START = frozenset('{["-0123456789tfn')


def _json_text(v: Any) -> str:
    if type(v) is str:
        return encode_basestring(v)
    if type(v) is _Num:
        return str.__str__(v)
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if type(v) is list:
        return "[" + ",".join(map(_json_text, v)) + "]"
    return "{" + ",".join(encode_basestring(k) + ":" + _json_text(x) for k, x in v.items()) + "}"


def _json_text_deep(v: Any) -> str:
    """``_json_text`` without recursion (a value nested deeper than Python's stack)."""
    parts: list[str] = []
    todo: list[Any] = [v]
    while todo:
        x = todo.pop()
        if type(x) is _Lit:
            parts.append(x)
        elif type(x) is list:
            todo.append(_Lit("]"))
            for i in range(len(x) - 1, -1, -1):
                todo.append(x[i])
                if i:
                    todo.append(_Lit(","))
            parts.append("[")
        elif type(x) is dict:
            todo.append(_Lit("}"))
            items = list(x.items())
            for i in range(len(items) - 1, -1, -1):
                todo.append(items[i][1])
                todo.append(_Lit(("," if i else "") + encode_basestring(items[i][0]) + ":"))
            parts.append("{")
        else:
            parts.append(_json_text(x))
    return "".join(parts)


class _Lit(str):
    """Punctuation ``_json_text_deep`` writes as it is."""


def _json_value(body: str) -> Any:
    try:
        return _NUM_DECODER.decode(body)
    except RecursionError:  # deeper than Python's decoder goes: the iterative reader (its errors are ValueErrors)
        return read_deep(body, number=_Num)


def _json_path(path: tuple[int | str, ...], output: str) -> str | None:
    body = _strip_fence(output)
    first = body.lstrip(" \t\n\r")[:1]
    if first not in _JSON_START:
        return None
    try:
        value = _json_value(body)
        for step in path:
            if type(step) is int:
                if type(value) is not list or not -len(value) <= step < len(value):
                    return None
                value = value[step]
            else:
                if type(value) is not dict or step not in value:
                    return None
                value = value[step]
        if type(value) is str:
            return value
        try:
            return _json_text(value)
        except RecursionError:
            return _json_text_deep(value)
    except ValueError:
        return None


def extract(ex: Extractor, output: str) -> str | None | TimeoutResult | ErrorResult:
    """What ``ex`` extracts from ``output``, or None when nothing is found (the ``regex``
    form: a ``TimeoutResult`` / ``ErrorResult`` when V8 could not run it on this text)."""
    return extract_many(ex, [output])[0]


def extract_many(ex: Extractor, outputs: Sequence[str]) -> list[str | None | TimeoutResult | ErrorResult]:
    """``[extract(ex, o) for o in outputs]``, fast. A None output gives None; any other
    non-str raises TypeError naming its row."""
    if not isinstance(outputs, (list, tuple)):
        outputs = list(outputs)
    try:
        return _fast(ex, outputs)
    except TypeError:
        pass
    for i, o in enumerate(outputs):
        if o is not None and not isinstance(o, str):
            raise TypeError(f"extract needs text outputs; row {i} is {type(o).__name__}")
    keep = [i for i, o in enumerate(outputs) if o is not None]
    got = _fast(ex, [outputs[i] for i in keep])
    out: list[str | None] = [None] * len(outputs)
    for i, v in zip(keep, got):
        out[i] = v
    return out


def _fast(ex: Extractor, outputs: Sequence[str]) -> list[Any]:
    """Every row at once; a TypeError when a row is not a str."""
    form = ex.form
    if form in _ANSWER:  # Inspect: group 1 of re.search
        return [m and m.group(1) for m in map(_ANSWER[form].search, outputs)]
    if form == "choice":
        return list(map(_choice_letter, map(_CHOICE.match, outputs)))
    if form == "gsm8k":
        return [m and _gsm8k_clean(m.group(1)) for m in map(_GSM8K.search, outputs)]
    if form == "last_number":
        return [m and m.group(1) for m in map(_LAST_NUMBER.match, outputs)]  # group "n"
    if form == "first_line":
        return [m and m.group() for m in map(_FIRST_LINE.search, outputs)]
    if form == "boxed":
        return list(map(_boxed, outputs))
    if form == "json_path":
        path = ex.path
        return [_json_path(path, s) for s in outputs]
    if form == "regex":
        if not all(isinstance(o, str) for o in outputs):
            raise TypeError("not text")
        return groups_many(ex.pattern, ex.flags, outputs, ex.group, ex.which, max_timeouts=MAX_TIMEOUTS)
    raise ValueError(f"unknown extract form {form!r}; valid forms: {_forms_list()}")
