"""Results files → frames of text cells, exactly as written (SPEC §5, §10)."""

from graders.readers.files import (  # noqa: F401
    DEFAULT_MAX_BYTES,
    FORMATS,
    ResultsFile,
    ResultsFileError,
    detect_format,
    headerless_names,
    read_results,
)

__all__ = ["DEFAULT_MAX_BYTES", "FORMATS", "ResultsFile", "ResultsFileError", "detect_format", "read_results"]
