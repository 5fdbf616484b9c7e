"""Model A versus model B (SPEC §8): pair the rows, score both sides, compare per grader."""

from graders.compare.comparison import (  # noqa: F401
    FILTERS,
    CompareError,
    Comparison,
    MetricComparison,
    compare_file,
    compare_prepared,
    compare_scored,
    comparison_columns,
    write_comparison,
)

__all__ = ["CompareError", "Comparison", "MetricComparison", "compare_file", "compare_prepared", "write_comparison"]
