"""``gradeboard-dashboard``: the Streamlit dashboard, with its settings wherever it starts.

Streamlit reads ``.streamlit/config.toml`` from the working directory only, so started from
elsewhere the repository's settings were lost (usage statistics on, tracebacks shown, every
interface listened on, the external IP looked up). This launcher passes them as flags to
``streamlit run`` on the clone's ``app.py``: it listens on localhost only (and so prints
that one address, with no look-up of an external one), sends no usage statistics, shows no
traceback and no deploy button. Arguments after it are ``streamlit run``'s own and come
last, so ``gradeboard-dashboard --server.address 0.0.0.0`` opens it to the network on
purpose. No Streamlit import here: the command replaces itself with Streamlit's.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn, Sequence

SETTINGS = (
    ("server.address", "localhost"),
    ("browser.gatherUsageStats", "false"),
    ("client.showErrorDetails", "none"),
    ("client.toolbarMode", "viewer"),
)


def command(argv: Sequence[str] = ()) -> list[str]:
    """The ``streamlit run`` command line this launcher runs."""
    app = Path(__file__).resolve().parent.parent / "app.py"
    if not app.is_file():
        raise SystemExit(f"gradeboard-dashboard: {app} is not there: the dashboard runs from a clone of the repository")
    flags = [f"--{name}={value}" for name, value in SETTINGS]
    return [sys.executable, "-m", "streamlit", "run", str(app), *flags, *argv]


def main(argv: Sequence[str] | None = None) -> NoReturn:
    args = command(sys.argv[1:] if argv is None else argv)
    os.execv(args[0], args)
