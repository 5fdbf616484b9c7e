"""The code keeps to pyproject.toml's ruff rules (pycodestyle, pyflakes, bugbear, import order)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is a test dependency: pip install -e '.[test]'")
def test_ruff_is_clean():
    proc = subprocess.run([shutil.which("ruff"), "check", "--output-format", "concise", "."], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_layout_holds():
    """../shared/LAYOUT.md's checks, where the steering folder's script is beside the repo."""
    script = ROOT.parent / "shared" / "tools" / "layout_check.py"
    if not script.exists():
        pytest.skip("../shared/tools/layout_check.py is not beside this clone")
    proc = subprocess.run([sys.executable, str(script), str(ROOT)], capture_output=True, text=True)
    assert proc.stdout.strip().endswith("layout: 7/7 hold"), proc.stdout + proc.stderr
