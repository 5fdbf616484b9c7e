"""The ``gradeboard`` command (also ``python -m graders``), SPEC §7.

    gradeboard score   FILE [--config CONFIG.json] [--grader NAME ...] --out SCORED.csv [--summary SUMMARY.json]
    gradeboard compare FILE [--config CONFIG.json] --out COMPARISON.csv [--summary SUMMARY.json]

Exit 0 on success, 1 when a ``--fail-under`` / ``--fail-if-worse`` gate trips, 2 on bad
input with one clear line on stderr (never a traceback).
"""

from __future__ import annotations

import argparse
import atexit
import gc as collector
import os
import signal
import sys
from contextlib import ExitStack
from typing import Any, NoReturn, Sequence, TextIO

from graders.arguments import Parser as _Parser
from graders.arguments import VersionAction
from graders.config import ConfigError, command_line_config
from graders.readers.frame import FORMATS, HARNESS_FORMATS
from graders.scoring.limits import MAX_RESAMPLES, MIN_RESAMPLES
from graders.scoring.output import (
    STDOUT,
    OutputError,
    report_to_stderr,
    spreadsheet_safe_output,
    text_output,
    write_report,
    written_together,
)

EXIT_OK, EXIT_GATE, EXIT_BAD_INPUT = 0, 1, 2


class BadInput(Exception):
    """Bad input: the message is printed as is and the command exits 2."""


def _parser() -> argparse.ArgumentParser:
    from graders.registry import REGISTRY

    p = _Parser(prog="gradeboard", description="Grade LLM eval results with code graders.")
    p.add_argument("--version", action=VersionAction)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(sp: argparse.ArgumentParser, out: str, files: str) -> None:
        sp.add_argument("files", nargs="*", metavar="FILE", help=files)
        sp.add_argument("--config", help="configuration JSON, as the dashboard exports it")
        sp.add_argument("--format", choices=FORMATS + HARNESS_FORMATS, help="override format detection")
        sp.add_argument("--no-header", action="store_true", help="a CSV or TSV file's first line is a row: two "
                        "columns are expected and output, more 'column 1', 'column 2', … (map them in the configuration)")
        sp.add_argument("--out", required=True, help=f"where to write {out} ('-': standard output, the report to stderr)")
        sp.add_argument("--summary", help="where to write the summary JSON ('-': standard output)")
        sp.add_argument("--spreadsheet-safe", action="store_true", help="prefix with ' each cell a spreadsheet would run "
                        "as a formula (= + - @, tab, CR; not a plain number); the exact file is the default")
        sp.add_argument("--workers", type=int, default=None, help="processes for large files (default: the cores, at most 4)")
        sp.add_argument("--scheduler", metavar="local|ADDRESS", help="run on a Dask cluster: 'local' starts one here (--workers "
                        "processes), an address joins one; files or globs, read by the workers (pip install 'gradeboard[dask]')")
        sp.add_argument("--max-mb", type=float, default=None, help="refuse files larger than this many MB (default 512)")
        sp.add_argument("--grader", action="append", default=[], metavar="NAME[:KEY=VALUE,...]",
                        help=f"a grader ({', '.join(REGISTRY)}), with parameters after a colon "
                             "(exact:extract=gsm8k); repeatable; adds to the configuration's "
                             "(with neither: exact and normalized)")
        sp.add_argument("--by", metavar="COLUMN", help="also give the figures per value of COLUMN (metadata.category)")

    s = sub.add_parser("score", help="score every row and write the scored file")
    common(s, "the scored CSV (one row per case, system, repeat and scorer)",
           "results files (CSV, TSV, JSON lines, JSON, Parquet, promptfoo, Inspect, lm-eval); several are read as one")
    s.add_argument("--ref", action="append", default=[], help="a reference segment file, one segment a line (repeatable)")
    s.add_argument("--hyp", action="append", default=[], help="a system's segment file, named after it (repeatable)")
    s.add_argument("--include-output", action="store_true", help="add the output column to the scored file")
    s.add_argument("--fail-under", action="append", default=[], metavar="GRADER=RATE", help="exit 1 when GRADER's pass "
                   "rate is below RATE (0-1) for any system, or no row was judged (repeatable; a continuous grader needs a threshold)")

    c = sub.add_parser("compare", help="compare model A with model B")
    common(c, "the comparison CSV (one row per case and grader)",
           "one results file with both sides, or two runs of the same cases (A, then B)")
    c.add_argument("--a", dest="version_a", help="version used as A (long files)")
    c.add_argument("--b", dest="version_b", help="version used as B (long files)")
    c.add_argument("--resamples", type=int, default=2000, help=f"bootstrap resamples, {MIN_RESAMPLES:,} to {MAX_RESAMPLES:,} (default 2000)")
    c.add_argument("--seed", type=int, default=0, help="bootstrap seed, a whole number >= 0 (default 0)")
    c.add_argument("--fail-if-worse", action="append", default=[], metavar="GRADER", help="exit 1 when A is worse than B on "
                   "GRADER: the 95%% interval of A - B below 0 and p < 0.05 Holm-adjusted across the gated graders (repeatable)")
    c.add_argument("--primary", action="append", default=[], metavar="GRADER", help="Holm's family: these graders "
                   "(repeatable; default: the --fail-if-worse graders, else every one); the others are shown unadjusted")
    return p


def _reading(args: argparse.Namespace) -> dict[str, Any]:
    from graders.readers.files import max_bytes_of

    return {"format": args.format, "max_bytes": max_bytes_of(args.max_mb), "header": not args.no_header}


def _read(args: argparse.Namespace) -> Any:
    from graders.readers.several import read_inputs

    return read_inputs(args.files, getattr(args, "ref", []), getattr(args, "hyp", []),
                       most=2 if args.command == "compare" else None, **_reading(args))


def _write(f: TextIO, text: str, path: str) -> None:
    try:
        f.write(text)
    except OSError as e:
        raise BadInput(f"cannot write {_named(path)}: {e.strerror or e}") from None


def _workers(args: argparse.Namespace) -> int:
    from graders.scoring.parallel import default_workers

    if args.workers is not None and args.workers < 1:
        raise BadInput(f"--workers takes a whole number >= 1, not {args.workers}")
    return default_workers() if args.workers is None else args.workers


def cmd_score(args: argparse.Namespace) -> int:
    from graders.distributed.command import score_on_cluster
    from graders.pipeline import resolve_mapping, score_path, score_prepared
    from graders.registry import REGISTRY
    from graders.scoring.summary import (
        check_fail_under,
        fail_under_failures,
        parse_fail_under,
        report_text,
        summary_text,
    )

    gates = parse_fail_under(args.fail_under, list(REGISTRY))
    to_stderr = report_to_stderr(args.out, args.summary)
    config = command_line_config(args.config, args.grader)
    check_fail_under(gates, config)
    with written_together(args.out, args.summary), ExitStack() as files:  # both files, or neither
        summary = files.enter_context(text_output(args.summary)) if args.summary else None
        streamed = not args.scheduler and args.files and not (args.by or args.ref or args.hyp)
        file = None if args.scheduler or streamed else _read(args)
        try:
            out = files.enter_context(spreadsheet_safe_output(args.out)) if args.spreadsheet_safe else args.out
            to = sys.stdout.buffer if out == STDOUT else out
            if file is not None:
                run = score_prepared(file, config, mapping=resolve_mapping(file, config), include_output=args.include_output,
                                     workers=_workers(args), write_to=to, by=args.by)
            else:  # a large CSV, TSV or JSON lines file a block at a time; or on a cluster
                run = score_path(args.files, config, write_to=to, include_output=args.include_output,
                                 workers=_workers(args), **_reading(args)) if streamed else score_on_cluster(args, config, to)
            if args.out == STDOUT:
                sys.stdout.flush()
        except OSError as e:  # OutputError, or standard output's flush
            raise BadInput(f"cannot write {_named(args.out)}: {e.strerror or e}") from None
        if summary is not None:
            _write(summary, summary_text(run.summary), args.summary)
    write_report(report_text(run.summary), to_stderr)
    return _gate("fail-under", fail_under_failures(run.summary, gates))


def _gate(name: str, failed: Sequence[str]) -> int:
    for line in failed:
        print(f"gradeboard: {name}: {line}", file=sys.stderr)
    return EXIT_GATE if failed else EXIT_OK


def _named(path: str) -> str:  # for messages
    return "standard output" if path == STDOUT else repr(path)


def cmd_compare(args: argparse.Namespace) -> int:
    from graders.compare.comparison import compare_file, write_comparison
    from graders.distributed.command import compare_on_cluster
    from graders.readers.several import first_versions
    from graders.scoring.summary import summary_text

    if not MIN_RESAMPLES <= args.resamples <= MAX_RESAMPLES:
        raise BadInput(f"--resamples takes a whole number from {MIN_RESAMPLES:,} to {MAX_RESAMPLES:,}, not {args.resamples}")
    if args.seed < 0:
        raise BadInput(f"--seed takes a whole number >= 0, not {args.seed}")
    to_stderr = report_to_stderr(args.out, args.summary)
    config = command_line_config(args.config, args.grader)
    with written_together(args.out, args.summary), ExitStack() as files:  # both files, or neither
        out = files.enter_context(text_output(args.out))
        summary = files.enter_context(text_output(args.summary)) if args.summary else None
        file = None if args.scheduler else _read(args)
        a, b = first_versions(file, args.files) if file is not None and args.version_a is None and args.version_b is None else (None, None)
        result = compare_on_cluster(args, config, out) if file is None else compare_file(file, config, version_a=args.version_a or a, version_b=args.version_b or b,
                              resamples=args.resamples, seed=args.seed, workers=_workers(args), primary=args.primary or args.fail_if_worse or None, by=args.by)
        tripped = result.fail_if_worse(args.fail_if_worse)
        try:  # a cluster's comparison wrote its lines as they came
            if file is not None:
                write_comparison(result, out, spreadsheet_safe=args.spreadsheet_safe)
        except OSError as e:
            raise BadInput(f"cannot write {_named(args.out)}: {e.strerror or e}") from None
        if summary is not None:
            _write(summary, summary_text(result.summary()), args.summary)
    write_report(result.report() + "\n", to_stderr)
    return _gate("fail-if-worse", tripped)


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM as Ctrl-C: the same clean-up, no file left half written


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _terminate)
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate in a cell prints as its escape
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse already printed its one-line usage error
        return EXIT_BAD_INPUT if e.code else EXIT_OK
    try:
        return cmd_score(args) if args.command == "score" else cmd_compare(args)
    except ConfigError as e:
        print(f"gradeboard: configuration: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (BadInput, ValueError, OutputError) as e:  # ValueError: the library's bad-input errors
        print(f"gradeboard: {e.strerror if isinstance(e, OutputError) else e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("gradeboard: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print("gradeboard: out of memory; try a smaller file or fewer --workers", file=sys.stderr)
        return EXIT_BAD_INPUT


def run() -> NoReturn:
    """``gradeboard``: ``main()``, the exit handlers, flushed streams, then an immediate exit
    (a failed flush of stdout exits 120, as Python's own exit does); no cyclic collector."""
    collector.disable()
    code = main()
    atexit._run_exitfuncs()  # what a normal exit runs: the worker pools' and regex engine's clean-up
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe, or a stream already closed
            if stream is sys.stdout and code == EXIT_OK:
                code = 120
    os._exit(code)


if __name__ == "__main__":
    run()
