"""Scoring and comparing on a Dask cluster (SPEC §11), identical to the single-process run.

    >>> from distributed import Client                                  # doctest: +SKIP
    >>> from graders.distributed import score_files, score_ddf          # doctest: +SKIP
    >>> with Client("tcp://scheduler:8786") as client:                  # doctest: +SKIP
    ...     run = score_files(["runs/*.jsonl"], "config.json", write_to="scored.csv")
    ...     run.summary["graders"]["exact"]["pass_rate"]

Dask is optional: importing this package does not import it; the first call says how to
install it when it is missing (``ClusterError``), in these words:

    >>> from graders.distributed import INSTALL
    >>> print(INSTALL)
    --scheduler needs Dask: pip install 'gradeboard[dask]'

``cluster`` starts or joins a cluster, ``run`` scores and compares; ``scoring.parts``
reads and prepares the rows in parts (record numbers, the left-out report and duplicate
keys across the parts) and ``scoring.reduce`` adds the summary up from the parts, for the
cluster and for the single-process run that streams a large file.
"""

from graders.distributed.cluster import INSTALL, ClusterError, connect, require_dask
from graders.distributed.run import ClusterRun, compare_ddf, compare_files, score_ddf, score_files

__all__ = ["ClusterError", "ClusterRun", "INSTALL", "compare_ddf", "compare_files", "connect", "require_dask",
           "score_ddf", "score_files"]
