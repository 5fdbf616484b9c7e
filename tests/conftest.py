"""Shared test setup: the repo root on sys.path, so `import ui` and the pages' imports work
under AppTest (Streamlit itself puts only the main script's folder there)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The real-browser tests' server (`streamlit run app.py` on a free port, one per module):
# defined in tests/test_browser.py, offered here to every browser test file
# (tests/test_browser_grid.py). The module imports no browser at import time.
from test_browser import server  # noqa: E402,F401
