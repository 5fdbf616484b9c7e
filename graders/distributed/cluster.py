"""Where the work runs: a Dask cluster on this machine (``local``) or a running one (its
scheduler's address), and the one error a cluster run raises (``ClusterError``)."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Any, Iterator

INSTALL = "--scheduler needs Dask: pip install 'gradeboard[dask]'"


class ClusterError(ValueError):
    """A cluster run that cannot start or finish: one message (the command line exits 2)."""


def require_dask() -> None:
    """``ClusterError`` saying how to install Dask when ``distributed`` cannot be imported."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterError(INSTALL) from None


def local_workers(workers: int | None = None) -> int:
    """Worker processes of a ``local`` cluster: ``workers``, else one per core, at most four
    (the local pool's default, ``scoring.parallel.default_workers``)."""
    from graders.scoring.parallel import default_workers

    return default_workers() if workers is None else max(1, int(workers))


@contextmanager
def connect(scheduler: str, *, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client``: for ``"local"`` a new ``LocalCluster`` of ``local_workers``
    processes of one thread each, without a dashboard (on a free port: none to clash with), closed
    when the block ends; otherwise the scheduler at that address (``tcp://host:8786``).
    ``ClusterError`` when Dask is missing or the scheduler cannot be reached."""
    require_dask()
    from distributed import Client, LocalCluster

    if scheduler == "local":
        cluster = LocalCluster(n_workers=local_workers(workers), threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=logging.ERROR)
        try:
            with Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    try:
        client = Client(scheduler, timeout="20s")
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {scheduler!r}: {e}") from None
    try:
        yield client
    finally:
        client.close()
