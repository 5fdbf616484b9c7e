"""``gradeboard score|compare ... --scheduler local|ADDRESS``: the command line's two calls
into the cluster (``graders.cli`` does the rest as for one process)."""

from __future__ import annotations

import argparse
from typing import Any

from graders.config import RunConfig
from graders.distributed.cluster import ClusterError, connect
from graders.scoring.output import STDOUT, OutputError


def _check(args: argparse.Namespace) -> dict[str, Any]:
    from graders.readers.files import max_bytes_of

    if getattr(args, "ref", None) or getattr(args, "hyp", None):
        raise ClusterError("--ref/--hyp segment files are read in one process; leave out --scheduler")
    if getattr(args, "by", None):
        raise ClusterError("--by slices the rows in one process; leave out --scheduler (or slice the scored file)")
    if args.workers is not None and args.workers < 1:
        raise ClusterError(f"--workers takes a whole number >= 1, not {args.workers}")
    return {"format": args.format, "max_bytes": max_bytes_of(args.max_mb), "header": not args.no_header}


def score_on_cluster(args: argparse.Namespace, config: RunConfig, write_to: Any) -> Any:
    """``gradeboard score`` on the cluster ``--scheduler`` names (``--workers``: a local one's processes)."""
    from graders.distributed.run import score_files

    reading = _check(args)
    with connect(args.scheduler, workers=args.workers) as client:
        return score_files(args.files, config, client=client, write_to=write_to, include_output=args.include_output,
                           **reading)


def compare_on_cluster(args: argparse.Namespace, config: RunConfig, out: Any) -> Any:
    """``gradeboard compare`` on the cluster ``--scheduler`` names, the comparison CSV written
    to ``out`` (the text file ``--out`` opened) as its lines come from the buckets."""
    from graders.compare.comparison import check_gates
    from graders.distributed.run import compare_files

    reading = _check(args)
    check_gates(args.fail_if_worse, list(config.grader_names) + (["overall"] if config.overall else []))  # before a line
    out.flush()
    with connect(args.scheduler, workers=args.workers) as client:
        try:
            return compare_files(args.files, config, client=client, version_a=args.version_a, version_b=args.version_b,
                                 resamples=args.resamples, seed=args.seed,
                                 primary=args.primary or args.fail_if_worse or None,
                                 write_to=out.buffer, spreadsheet_safe=args.spreadsheet_safe, **reading)
        except OSError as e:
            if isinstance(e, OutputError):
                raise
            where = "standard output" if args.out == STDOUT else repr(args.out)
            raise OutputError(e.errno, f"cannot write {where}: {e.strerror or e}") from None
