"""The command line's argparse pieces that are not its commands (moved out of ``cli.py``,
which keeps the commands): usage errors on one line, and ``--version`` looked up only
when asked."""

from __future__ import annotations

import argparse
import sys

EXIT_BAD_INPUT = 2  # as graders.cli's


class Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line, not the usage block and the message."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")


class VersionAction(argparse.Action):
    """``--version``, looked up only when asked (importlib.metadata costs every run 8 ms)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        from importlib import metadata

        try:
            sys.stdout.write(f"gradeboard {metadata.version('gradeboard')}\n")
        except metadata.PackageNotFoundError:  # a source tree that was never installed
            sys.stdout.write("gradeboard unknown (not installed)\n")
        parser.exit()
