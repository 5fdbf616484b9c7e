"""The documentation runs: the README's Python blocks and the examples in module docstrings."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)
MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for p in (ROOT / "graders").rglob("*.py") if ">>>" in p.read_text(encoding="utf-8")
)


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("block", range(len(BLOCKS)))
def test_readme_python_block_runs(block, monkeypatch):
    monkeypatch.chdir(ROOT)  # the blocks name sample_data/ files relative to the clone
    namespace: dict = {}
    exec(compile(BLOCKS[block], f"README.md python block {block + 1}", "exec"), namespace)


def test_readme_bleu_signature_is_the_real_one():
    from graders import grade

    sig = grade("bleu", expected=["the cat sat", "a cat sat"], output="the cat sat down").details["signature"]
    assert f"# {sig!r}" in README


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_help_lists_every_grader_and_parameter():
    import graders
    from graders.registry import REGISTRY

    text = graders.grade.__doc__
    for name, spec in REGISTRY.items():
        assert f"\n    {name} — " in text, name
        for p in spec.params:
            assert f"        {p.name}" in text, (name, p.name)
    assert "regex — " in text and "pattern (required)" in text and "read='whole' | 'first' | 'last'" in text


def test_grader_summaries_read_alike():
    """The summaries follow the labels on the Score page ("Exact match — code-point
    equality, ..."): no capitalized first word (acronyms aside), no final period."""
    from graders.registry import REGISTRY

    for name, spec in REGISTRY.items():
        first = spec.summary.split()[0]
        assert not (first[0].isupper() and first[1:].islower()), name
        assert not spec.summary.endswith("."), name
