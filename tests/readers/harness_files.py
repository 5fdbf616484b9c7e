"""The harness fixtures (tests/files/harness, each made by its tool with the script beside it)."""

import os

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "files", "harness")


def fixture_bytes(*parts: str) -> bytes:
    with open(os.path.join(FIXTURES, *parts), "rb") as fh:
        return fh.read()


def assert_one_message(exc: BaseException) -> None:
    """A ResultsFileError shown alone: no chained exception behind it (no traceback of another)."""
    assert exc.__cause__ is None
    assert exc.__context__ is None or exc.__suppress_context__
    assert "\n" not in str(exc) and str(exc)
