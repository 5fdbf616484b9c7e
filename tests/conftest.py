"""Shared test setup: the repo root on sys.path, so `import ui` and the pages' imports work
under AppTest (Streamlit itself puts only the main script's folder there)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
