"""Results files → frames of text cells, exactly as written (SPEC §5, §10).

The names below are loaded on first use (PEP 562), so importing a light module of this
package (``graders.readers.frame``: the formats, for the command line's parser) does not
import pandas and the readers with it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_MAX_BYTES", "FORMATS", "ResultsFile", "ResultsFileError", "detect_format", "headerless_names",
           "read_results"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from graders.readers import files

        return getattr(files, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
