"""The run configuration: what the dashboard's "Export configuration" downloads and
``gradeboard score --config`` reads back (SPEC §7)::

    {"columns": {"id": "id", "expected": "expected", "output": "output", ...},
     "graders": [{"name": "exact"}, {"name": "numeric", "read": "last", "abs_tol": 0.5},
                 {"name": "exact", ...: ..., "extract": "gsm8k"}],
     "overall": null | "all" | "any"}

``extract`` (SPEC §9) is a parameter of every grader: a form name, or a dict such as
``{"regex": "ANSWER: (\\w)"}``; written back as given, and left out when not set.

Grader parameters are validated against the registry when the configuration is built, so a
bad configuration fails once, with one message, before any row is read.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from graders.engines.jsonparse import encodable
from graders.registry import REGISTRY, get_spec, resolve_params

# The pass-or-fail graders the overall row summarizes (SPEC §5); valid_json is not one.
OVERALL_GRADERS = ("exact", "normalized", "contains", "regex", "numeric", "json_schema")
OVERALL_RULES = ("all", "any")


# --- Column roles and the names suggested for them ---------------------------------
#
# Column roles and the mapping suggested from SPEC §5's aliases. Matching, in order of preference: the full name equal to an alias with the same case,
# then case-insensitively (and ignoring surrounding spaces), then a dotted column whose last part is an alias
# (``vars.expected``), same case before any case. Within one of those tiers the earlier
# alias wins (``expected`` before ``label``), then the earlier column. A column serves one
# role at most. ``label`` is a weak alias: taken for expected only when no other expected
# alias matches, dotted ones included; it is never an expected *kind*.

ROLES = ("id", "expected", "output", "output_b", "input", "version", "repeat", "expected_kind", "assert")
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "case_id"),
    "expected": ("expected", "reference", "answer", "target", "ideal", "label"),
    "output": ("output", "actual", "prediction", "response", "completion"),
    "output_b": ("output_b", "model_b", "baseline"),
    "input": ("input", "prompt", "question"),
    "version": ("version",),
    "repeat": ("repeat",),
    "expected_kind": ("expected_kind",),
    "assert": ("assert",),
}
REQUIRED = ("id", "output")  # without these nothing can be scored
# A weak alias is taken only when no other alias of its role matches, even a dotted one:
# a column called ``label`` is often a class label, not the reference answer.
_WEAK = frozenset({"label"})


def suggest_mapping(columns: Sequence[str]) -> dict[str, str | None]:
    """A column for every role in ``ROLES`` (None when no column fits).

    >>> suggest_mapping(["case_id", "prompt", "answer", "response"])["output"]
    'response'
    """
    taken: set[str] = set()
    mapping: dict[str, str | None] = {}
    for role in ROLES:
        best: tuple[int, ...] | None = None
        choice: str | None = None
        for position, column in enumerate(columns):
            if column in taken:
                continue
            rank = _rank(column, ALIASES[role])
            if rank is not None and (best is None or (*rank, position) < best):
                best = (*rank, position)
                choice = column
        mapping[role] = choice
        if choice is not None:
            taken.add(choice)
    return mapping


def _rank(column: str, aliases: tuple[str, ...]) -> tuple[int, int, int] | None:
    """(weak, tier, alias index) of the best alias ``column`` matches; lower is better."""
    last = column.rsplit(".", 1)[-1] if "." in column else None
    best: tuple[int, int, int] | None = None
    for index, alias in enumerate(aliases):
        for tier, name, fold in ((0, column, False), (1, column, True), (2, last, False), (3, last, True)):
            if name is None:
                continue
            if (name.strip().casefold() == alias) if fold else (name == alias):
                rank = (alias in _WEAK, tier, index)
                if best is None or rank < best:
                    best = rank
                break
    return best


class ConfigError(ValueError):
    """A configuration that cannot run; the message names what is wrong."""


def unusable(name: str, resolved: Mapping[str, Any]) -> str | None:
    """Why a grader's validated parameters would make every row an error, or None: bad
    regex flags, a pattern JavaScript refuses (with the JavaScript form of Python syntax)
    or none at all, a schema that is not a valid JSON Schema. ``grade`` reports these per
    call (status ``error``, SPEC §3); a configuration refuses them once, so that the
    dashboard's form and the command line run the same graders."""
    if name == "regex":
        from graders.engines.regex import RegexSyntaxError, check_pattern, parse_flags

        try:
            parse_flags(resolved["flags"])
        except RegexSyntaxError as e:
            return f"parameter 'flags' of grader 'regex': {e}"
        if not resolved["pattern"]:
            return "grader 'regex' needs a pattern (an empty one matches every output)"
        problem = check_pattern(resolved["pattern"], resolved["flags"])
        return f"the pattern of grader 'regex' is refused: {problem}" if problem else None
    if name == "json_schema":
        from graders.metrics.json_schema import compile_schema

        found = compile_schema(resolved["schema"]).problem
        return f"the schema of grader 'json_schema' cannot be used: {found.explanation}" if found and found.status == "error" else None
    return None


@dataclass(frozen=True)
class GraderConfig:
    """One grader with its parameters; ``GraderConfig.make`` validates them. Two are equal
    when they grade alike: ``{"name": "numeric"}`` equals ``{"name": "numeric", "read":
    "whole"}`` (the default written out)."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict, compare=False)  # as given (JSON-ready)
    resolved: Mapping[str, Any] = field(default_factory=dict)  # validated, defaults filled

    @classmethod
    def make(cls, name: str, params: Mapping[str, Any] | None = None) -> "GraderConfig":
        params = dict(params or {})
        try:
            get_spec(name)
            resolved = resolve_params(name, params)
            problem = unusable(name, resolved)
            if problem:
                raise ValueError(problem)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        except RecursionError:
            raise ConfigError(f"the parameters of grader {name!r} nest too deeply") from None
        return cls(name, params, resolved)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        for key, value in self.resolved.items():
            out[key] = list(value) if isinstance(value, tuple) else value.to_json() if key == "extract" else value
        return out


@dataclass(frozen=True)
class RunConfig:
    columns: Mapping[str, str | None] = field(default_factory=dict)
    graders: tuple[GraderConfig, ...] = ()
    overall: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.graders, (str, GraderConfig)) or not isinstance(self.graders, (list, tuple)):
            raise ConfigError("graders must be a list of GraderConfig (GraderConfig.make(name, params)); "
                              "RunConfig.from_dict takes the configuration's JSON form")
        for i, g in enumerate(self.graders):
            if not isinstance(g, GraderConfig):
                how = f"GraderConfig.make({g!r})" if isinstance(g, str) else "GraderConfig.make(name, params)"
                raise ConfigError(f"graders[{i}] must be a GraderConfig ({how}, or RunConfig.from_dict for the "
                                  f"JSON form), not {type(g).__name__}")
        object.__setattr__(self, "graders", tuple(self.graders))
        if self.overall not in (None, *OVERALL_RULES):
            raise ConfigError(f"overall must be null, 'all' or 'any', not {self.overall!r}")
        names = [g.name for g in self.graders]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ConfigError(f"grader {dupes[0]!r} is configured twice; each grader may appear once")

    @property
    def grader_names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.graders)

    @property
    def needs_expected(self) -> bool:
        return any(get_spec(g.name).uses_expected for g in self.graders)

    @classmethod
    def from_dict(cls, data: Any) -> "RunConfig":
        if not isinstance(data, dict):
            raise ConfigError("a configuration is a JSON object with 'columns', 'graders' and 'overall'")
        unknown = sorted(set(data) - {"columns", "graders", "overall", "version"})
        if unknown:
            raise ConfigError(f"unknown configuration key {unknown[0]!r}; valid keys: columns, graders, overall")
        columns = data.get("columns") or {}
        if not isinstance(columns, dict) or any(v is not None and not isinstance(v, str) for v in columns.values()):
            raise ConfigError("'columns' must map roles to column names")
        bad = sorted(set(columns) - set(ROLES))
        if bad:
            raise ConfigError(f"unknown column role {bad[0]!r}; valid roles: {', '.join(ROLES)}")
        graders_in = data.get("graders", [])
        if not isinstance(graders_in, list):
            raise ConfigError("'graders' must be a list of objects like {\"name\": \"exact\"}")
        graders = []
        for i, g in enumerate(graders_in):
            if isinstance(g, str):
                g = {"name": g}
            if not isinstance(g, dict) or not isinstance(g.get("name"), str):
                raise ConfigError(f"graders[{i}] must be an object with a 'name'")
            params = {k: v for k, v in g.items() if k != "name"}
            graders.append(GraderConfig.make(g["name"], params))
        return cls(dict(columns), tuple(graders), data.get("overall"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": mapping_dict(self.columns),
            "graders": [g.to_dict() for g in self.graders],
            "overall": self.overall,
        }

    def to_json(self) -> str:
        """The configuration as JSON text; a column name's lone surrogate (a JSON key's
        "\\ud800") is written as that escape, so the text encodes as UTF-8 and reads back."""
        return encodable(json.dumps(self.to_dict(), indent=2, ensure_ascii=False))


def mapping_dict(mapping: Mapping[str, str | None]) -> dict[str, str | None]:
    """A mapping as a configuration's ``columns``: every role, a role mapped to no column
    kept as ``null``, so that the configuration also switches off what the file would
    suggest (a ``null`` ``output_b`` keeps a file with that column long)."""
    return {k: (v or None) for k, v in mapping.items()}


def as_run_config(config: Any) -> RunConfig:
    """``config`` as a ``RunConfig``: one already, its JSON form as a dict (``from_dict``),
    or the path of its JSON file (``load_config``); anything else is a ``ConfigError``."""
    if isinstance(config, RunConfig):
        return config
    if isinstance(config, Mapping):
        return RunConfig.from_dict(dict(config))
    if isinstance(config, (str, os.PathLike)):
        return load_config(config)
    raise ConfigError(f"a configuration is a RunConfig, its JSON form as a dict, or the path of its JSON file, "
                      f"not {type(config).__name__}")


def loads(data: bytes | str | Mapping[str, Any]) -> RunConfig:
    """A SPEC §7 configuration from its JSON (bytes, with or without a BOM, or text) or its
    dict; ``ConfigError`` with one message for anything that cannot run. The command line,
    ``load_config`` and the dashboard's upload all read a configuration through here."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ConfigError("the configuration is not UTF-8 text") from None
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            raise ConfigError(f"the configuration is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
        except RecursionError:
            raise ConfigError("the configuration nests too deeply to read") from None
        except ValueError as e:  # an integer past Python's 4,300-digit conversion limit
            raise ConfigError(f"the configuration is not valid JSON: {e}") from None
    return RunConfig.from_dict(data)


def load_config(path: str | os.PathLike[str]) -> RunConfig:
    """The configuration in the file at ``path`` (``loads``); ``ConfigError``."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ConfigError(f"cannot read the configuration {os.fspath(path)!r}: {e.strerror}") from None
    try:
        return loads(data)
    except ConfigError as e:
        if str(e) == "the configuration is not UTF-8 text":
            raise ConfigError(f"the configuration {os.fspath(path)!r} is not UTF-8 text") from None
        raise


DEFAULT_GRADERS = ("exact", "normalized")  # the command line's graders when none are named

_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=")
_DECODER = json.JSONDecoder()


def parse_grader_option(text: str) -> tuple[str, dict[str, Any]]:
    """A ``--grader`` value, ``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE``, as (name, params).

    A value is read as JSON when it is one (``0.5``, ``true``, ``["trim","lower"]``,
    ``{"regex": "ANSWER: (\\w)"}``, ``"a,b"``), up to the comma after it; otherwise it is
    the text up to the next comma (``gsm8k``, ``last``): a value that holds a comma is
    written as JSON. ``ConfigError`` naming the problem (an unknown grader: listing the
    valid ones); the parameters are checked by ``GraderConfig.make``."""
    name, colon, rest = text.partition(":")
    name = name.strip()
    if name not in REGISTRY:
        where = f"--grader {text!r}" if colon else "--grader"
        raise ConfigError(f"{where}: unknown grader {name!r}; valid graders: {', '.join(REGISTRY)}")
    params: dict[str, Any] = {}
    pos = 0
    while colon and pos <= len(rest):
        m = _KEY.match(rest, pos)
        if m is None:
            after = (f"after {rest[:pos]!r} (a value that holds a comma is written as JSON, in double quotes)"
                     if pos else f"after the colon, as in {name}:extract=gsm8k")
            raise ConfigError(f"--grader {text!r}: expected KEY=VALUE {after}")
        key = m.group(1)
        if key in params:
            raise ConfigError(f"--grader {text!r} gives {key!r} twice")
        params[key], pos = _option_value(rest, m.end())
        pos += 1  # past the comma
    return name, params


def _option_value(text: str, pos: int) -> tuple[Any, int]:
    """The value starting at ``pos`` (JSON when it is one up to a comma or the end, else the
    text up to the next comma) and where it ends."""
    start = len(text) - len(text[pos:].lstrip())
    try:
        value, end = _DECODER.raw_decode(text, start)
        after = len(text) - len(text[end:].lstrip())
        if after == len(text) or text[after] == ",":
            return value, after
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
        pass
    end = text.find(",", pos)
    end = len(text) if end < 0 else end
    return text[pos:end].strip(), end


def command_line_config(path: str | None, graders: Sequence[str] = ()) -> RunConfig:
    """The command line's configuration: the file at ``path`` (or none), with ``graders``
    added (each ``NAME`` or ``NAME:KEY=VALUE,...``, ``parse_grader_option``), and
    ``DEFAULT_GRADERS`` when that leaves none. A grader the configuration has already takes
    the parameters given with it on top of its own; a bare name given twice, or already
    configured, runs once; one grader given twice with different parameters is a
    ``ConfigError``, as is any bad name or parameter (one message)."""
    config = load_config(path) if path else RunConfig()
    given: dict[str, tuple[str, dict[str, Any]]] = {}
    for option in graders:
        name, params = parse_grader_option(option)
        if name in given and params and given[name][1] and params != given[name][1]:
            raise ConfigError(f"--grader {name!r} is given twice with different parameters; give it once")
        if params or name not in given:
            given[name] = (option, params)

    def make(name: str, params: dict[str, Any], option: str) -> GraderConfig:
        try:
            return GraderConfig.make(name, params)
        except ConfigError as e:
            raise ConfigError(f"--grader {option!r}: {e}") from None

    chosen = []
    for g in config.graders:
        option, params = given.pop(g.name, ("", {}))
        chosen.append(make(g.name, {**g.params, **params}, option) if params else g)
    chosen += [make(name, params, option) for name, (option, params) in given.items()]
    config = RunConfig(config.columns, tuple(chosen), config.overall)
    if not config.graders:
        config = RunConfig(config.columns, tuple(GraderConfig.make(g) for g in DEFAULT_GRADERS), config.overall)
    return config
