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
import math
import os
import stat
import sys
from contextlib import ExitStack, contextmanager, redirect_stdout
from typing import Any, Iterator, NoReturn, Sequence, TextIO

EXIT_OK, EXIT_GATE, EXIT_BAD_INPUT = 0, 1, 2
MIN_RESAMPLES = 100  # fewer gives intervals too coarse to read (one resample: a single point)
MAX_RESAMPLES = 1_000_000  # more changes no figure worth reading, and a typo's extra digits run for hours


class BadInput(Exception):
    """Bad input: the message is printed as is and the command exits 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line (``gradeboard score: argument --grader:
    invalid choice …``) instead of the usage block and the message."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("gradeboard")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked (importing
    importlib.metadata and finding the distribution cost every run 8 ms)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        sys.stdout.write(f"gradeboard {_version()}\n")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    from graders.registry import REGISTRY

    p = _Parser(prog="gradeboard", description="Grade LLM eval results with code graders.")
    p.add_argument("--version", action=_VersionAction)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(sp: argparse.ArgumentParser, out: str) -> None:
        sp.add_argument("file", help="results file: CSV, TSV, JSON lines, JSON array, or {\"rows\": [...]}")
        sp.add_argument("--config", help="configuration JSON, as the dashboard exports it")
        sp.add_argument("--format", choices=["csv", "tsv", "jsonl", "json-array", "json-rows"], help="override format detection")
        sp.add_argument("--no-header", action="store_true",
                        help="a CSV or TSV file's first line is a row, not a header: two columns are read as "
                             "expected and output, more as 'column 1', 'column 2', … (map them in the configuration)")
        sp.add_argument("--out", required=True, help=f"where to write {out} ('-': standard output, and the "
                                                     "report goes to stderr)")
        sp.add_argument("--summary", help="where to write the summary JSON ('-': standard output)")
        sp.add_argument("--workers", type=int, default=None, help="processes for large files (default: the cores, at most 4)")
        sp.add_argument("--max-mb", type=float, default=None, help="refuse files larger than this many MB (default 512)")
        sp.add_argument("--grader", action="append", default=[], metavar="NAME", choices=list(REGISTRY),
                        help="a grader with default parameters (repeatable); adds to the configuration's "
                             "(with neither: exact and normalized)")

    s = sub.add_parser("score", help="score every row and write the scored file")
    common(s, "the scored CSV (one row per case, system, repeat and scorer)")
    s.add_argument("--include-output", action="store_true", help="add the output column to the scored file")
    s.add_argument("--fail-under", action="append", default=[], metavar="GRADER=RATE",
                   help="exit 1 when GRADER's pass rate is below RATE (0-1), for any system, or when no row "
                        "was judged (repeatable; a continuous grader needs a threshold)")

    c = sub.add_parser("compare", help="compare model A with model B")
    common(c, "the comparison CSV (one row per case and grader)")
    c.add_argument("--a", dest="version_a", help="version used as A (long files)")
    c.add_argument("--b", dest="version_b", help="version used as B (long files)")
    c.add_argument("--resamples", type=int, default=2000, help=f"bootstrap resamples, {MIN_RESAMPLES:,} to {MAX_RESAMPLES:,} (default 2000)")
    c.add_argument("--seed", type=int, default=0, help="bootstrap seed, a whole number >= 0 (default 0)")
    c.add_argument("--fail-if-worse", action="append", default=[], metavar="GRADER",
                   help="exit 1 when A is worse than B on GRADER: the whole 95%% interval of A - B below 0 "
                        "and the difference unlikely to be noise (Holm-adjusted p < 0.05), as the report words it "
                        "(repeatable)")
    return p


def _config(args: argparse.Namespace) -> Any:
    from graders.config import ConfigError, GraderConfig, RunConfig, load_config

    try:
        config = load_config(args.config) if args.config else RunConfig()
        # a --grader named twice, or also in the configuration, runs once
        extra = [g for g in dict.fromkeys(getattr(args, "grader", [])) if g not in config.grader_names]
        if extra:
            config = RunConfig(config.columns, config.graders + tuple(GraderConfig.make(g) for g in extra), config.overall)
        if not config.graders:
            config = RunConfig(config.columns, (GraderConfig.make("exact"), GraderConfig.make("normalized")), config.overall)
    except ConfigError as e:
        raise BadInput(f"configuration: {e}") from None
    return config


def _read(args: argparse.Namespace) -> Any:
    from graders.readers.files import DEFAULT_MAX_BYTES, ResultsFileError, read_results

    if args.max_mb is not None and not (math.isfinite(args.max_mb) and args.max_mb > 0):
        raise BadInput(f"--max-mb takes a number of MB > 0, not {args.max_mb:g}")
    max_bytes = DEFAULT_MAX_BYTES if args.max_mb is None else int(min(args.max_mb * 1024 * 1024, sys.maxsize))
    try:
        return read_results(args.file, format=args.format, max_bytes=max_bytes, header=not args.no_header)
    except ResultsFileError as e:
        raise BadInput(str(e)) from None


STDOUT = "-"  # --out / --summary: standard output


def _is_stdout(path: str | None) -> bool:
    """``path`` is ``-`` or names the file standard output already writes to
    (``/dev/stdout``, the file of a ``>`` redirection; not ``/dev/null``)."""
    if path == STDOUT:
        return True
    if not path:
        return False
    try:
        target, stdout = os.stat(path), os.fstat(sys.stdout.fileno())
        return os.path.samestat(target, stdout) and not os.path.samestat(target, os.stat(os.devnull))
    except (OSError, ValueError, AttributeError):  # no such file yet; a stdout without a descriptor
        return False


def _report_to_stderr(args: argparse.Namespace) -> bool:
    """Whether the report goes to stderr: a file goes to standard output, and the two must
    not interleave. Both files to standard output is bad input."""
    out, summary = _is_stdout(args.out), _is_stdout(args.summary)
    if out and summary:
        raise BadInput("--out and --summary cannot both go to standard output")
    if not (out or summary) and args.out and args.summary and _same_file(args.out, args.summary):
        raise BadInput(f"--out and --summary name the same file ({args.out}); one would replace the other")
    return out or summary


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one regular file, existing or new (a device such as
    /dev/null may take both)."""
    try:
        return os.path.samefile(a, b) and stat.S_ISREG(os.stat(a).st_mode)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


@contextmanager
def _output(path: str) -> Iterator[TextIO]:
    """A file the run writes at its end, opened at its start, so that a path that cannot be
    written is said before anything is scored. Standard output for ``-``; for a new path or
    a regular file, a temporary file beside it, renamed into place when the block ends
    without an error and removed when it does not (the old file stays as it was); anything
    else (a link, a device, a named pipe) written through (``batch.replaced_whole``). UTF-8,
    a lone surrogate as its backslash escape."""
    from graders.scoring.batch import replaced_whole

    if path == STDOUT:
        yield sys.stdout
        try:
            sys.stdout.flush()
        except OSError as e:
            raise BadInput(f"cannot write standard output: {e.strerror or e}") from None
        return
    tmp = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.part" if replaced_whole(path) else None
    try:
        f = open(tmp or path, "x" if tmp else "w", encoding="utf-8", errors="backslashreplace", newline="")
    except OSError as e:
        raise BadInput(f"cannot write {path!r}: {e.strerror or e}") from None
    try:
        try:
            yield f
        finally:
            f.close()
        if tmp:
            os.replace(tmp, path)
            tmp = None
    except OSError as e:
        raise BadInput(f"cannot write {path!r}: {e.strerror or e}") from None
    finally:
        if tmp:
            try:
                os.remove(tmp)
            except OSError:
                pass


def _write(f: TextIO, text: str, path: str) -> None:
    try:
        f.write(text)
    except OSError as e:
        raise BadInput(f"cannot write {_named(path)}: {e.strerror or e}") from None


def _parse_gates(values: Sequence[str]) -> list[tuple[str, float]]:
    from graders.registry import REGISTRY

    gates = []
    for v in values:
        name, sep, rate = v.partition("=")
        try:
            r = float(rate)
        except ValueError:
            r = -1.0
        if not sep or not 0.0 <= r <= 1.0:
            raise BadInput(f"--fail-under takes GRADER=RATE with RATE between 0 and 1, not {v!r}")
        if name not in REGISTRY and name != "overall":
            raise BadInput(f"--fail-under: unknown grader {name!r}; valid graders: {', '.join(REGISTRY)}, overall")
        gates.append((name, r))
    return gates


def _check_gates(gates: Sequence[tuple[str, float]], config: Any) -> None:
    """Each --fail-under grader has a pass rate to gate on, checked before any row is scored:
    it is run, and a continuous grader has a threshold (without one it only scores)."""
    from graders.registry import get_spec

    run = {g.name: g for g in config.graders}
    for name, _ in gates:
        if name == "overall":
            if config.overall is None:
                raise BadInput("--fail-under: overall needs an overall rule ('all' or 'any') in the configuration")
        elif name not in run:
            raise BadInput(f"--fail-under: grader {name!r} is not run; run: {', '.join(run)} (add it with --grader)")
        elif not get_spec(name).binary and run[name].resolved.get("threshold") is None:
            raise BadInput(f"--fail-under: grader {name!r} has no pass rate without a threshold; "
                           "give it one in the configuration")


def _workers(args: argparse.Namespace) -> int:
    from graders.scoring.batch import default_workers

    if args.workers is None:
        return default_workers()
    if args.workers < 1:
        raise BadInput(f"--workers takes a whole number >= 1, not {args.workers}")
    return args.workers


def cmd_score(args: argparse.Namespace) -> int:
    from graders.pipeline import resolve_mapping, score_prepared
    from graders.scoring.summary import summary_text
    from graders.scoring.rows import MappingError

    gates = _parse_gates(args.fail_under)
    to_stderr = _report_to_stderr(args)
    config = _config(args)
    _check_gates(gates, config)
    with ExitStack() as files:
        summary = files.enter_context(_output(args.summary)) if args.summary else None
        file = _read(args)
        try:
            run = score_prepared(file, config, mapping=resolve_mapping(file, config), include_output=args.include_output,
                                 workers=_workers(args), write_to=sys.stdout.buffer if args.out == STDOUT else args.out)
            if args.out == STDOUT:
                sys.stdout.flush()
        except MappingError as e:
            raise BadInput(str(e)) from None
        except OSError as e:  # batch.OutputError, or standard output's flush
            raise BadInput(f"cannot write {_named(args.out)}: {e.strerror or e}") from None
        if summary is not None:
            _write(summary, summary_text(run.summary), args.summary)
    _report(_print_summary, run.summary, to_stderr)
    failed = []
    for name, rate in gates:
        if not run.summary["systems"]:  # a gate with nothing to measure is not met
            failed.append(f"{name}: no rows scored")
        for system, per in run.summary["systems"].items():
            st = per.get(name)
            if st is None:
                raise BadInput(f"--fail-under: grader {name!r} was not run")
            if st["pass_rate"] is None:
                failed.append(f"{name} has no pass rate: no row judged ({system})")
            elif st["pass_rate"] < rate:
                failed.append(f"{name} pass rate {st['pass_rate']:.4f} < {rate:g} ({system})")
    for line in failed:
        print(f"gradeboard: fail-under: {line}", file=sys.stderr)
    return EXIT_GATE if failed else EXIT_OK


def _named(path: str) -> str:
    return "standard output" if path == STDOUT else repr(path)


def _report(show: Any, what: Any, to_stderr: bool = False) -> None:
    """Print the report, on stdout (stderr when a file goes to standard output); a reader
    that closed the pipe (``| head``) ends the printing, not the run: the files are
    written and the exit code still gates. Any other failure to write it (a full disk) is
    said in one line on stderr, and the run goes on."""
    stream = sys.stderr if to_stderr else sys.stdout
    try:
        with redirect_stdout(stream):
            show(what)
        stream.flush()
    except OSError as e:
        if not isinstance(e, BrokenPipeError):
            print(f"gradeboard: could not print the report: {e.strerror or e}", file=sys.stderr)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())  # Python's final flush must not fail again


def _print_summary(summary: dict[str, Any]) -> None:
    from graders.scoring.rows import report_lines

    lo = summary["left_out"]
    n = summary["cases"]
    # With several systems each row of the file gives several outputs; rows left out are the file's.
    what = "row" if len(summary["systems"]) <= 1 else "output"
    left = lo.get("total", 0)
    print(f"{n} {what}{'' if n == 1 else 's'} scored"
          + (f", {left} {'row' if left == 1 else 'rows'} left out" if left else ""))
    if not summary.get("config", {}).get("columns", {}).get("id"):
        print("no column is mapped to id: each row's id is its row number (map one with the configuration's columns)")
    for system, per in summary["systems"].items():
        print(f"[{system}]")
        for scorer, st in per.items():
            if scorer.startswith("assert:"):
                continue
            rate = "" if st["pass_rate"] is None else f" pass rate {st['pass_rate']:.3f} [{st['pass_rate_ci95'][0]:.3f}, {st['pass_rate_ci95'][1]:.3f}]"
            mean = "" if st["mean_score"] is None else f" mean {st['mean_score']:.4f}"
            print(f"  {scorer:<12} passed {st['passed']:>6} failed {st['failed']:>6} not judged {st['not_judged']:>5} errors {st['errors']:>5} near misses {st['near_misses']:>5}{mean}{rate}")
    for line in report_lines(lo):
        print(line)
    if summary.get("unknown_assertions"):
        kinds = ", ".join(f"{k} ×{v}" for k, v in summary["unknown_assertions"].items())
        print(f"assertion kinds not run: {kinds}")


def cmd_compare(args: argparse.Namespace) -> int:
    from graders.compare.comparison import CompareError, compare_file, write_comparison
    from graders.scoring.summary import summary_text

    if not MIN_RESAMPLES <= args.resamples <= MAX_RESAMPLES:
        raise BadInput(f"--resamples takes a whole number from {MIN_RESAMPLES:,} to {MAX_RESAMPLES:,}, not {args.resamples}")
    if args.seed < 0:
        raise BadInput(f"--seed takes a whole number >= 0, not {args.seed}")
    to_stderr = _report_to_stderr(args)
    config = _config(args)
    with ExitStack() as files:
        out = files.enter_context(_output(args.out))
        summary = files.enter_context(_output(args.summary)) if args.summary else None
        file = _read(args)
        try:
            result = compare_file(file, config, version_a=args.version_a, version_b=args.version_b,
                                  resamples=args.resamples, seed=args.seed, workers=_workers(args))
        except CompareError as e:
            raise BadInput(str(e)) from None
        for name in args.fail_if_worse:
            if name not in result.metrics:
                raise BadInput(f"--fail-if-worse: grader {name!r} was not compared; compared: {', '.join(result.metrics) or 'none'}")
        try:
            write_comparison(result, out)
        except OSError as e:
            raise BadInput(f"cannot write {_named(args.out)}: {e.strerror or e}") from None
        if summary is not None:
            _write(summary, summary_text(result.summary()), args.summary)
    _report(print, result.report(), to_stderr)
    # A gate with nothing to measure is not met, as --fail-under's: a comparison in which no
    # case has a score on both sides (ids that do not match, a grader neither side is judged
    # on) must not pass CI in silence.
    tripped = []
    for n in args.fail_if_worse:
        m = result.metrics[n]
        if m.stats.n == 0:
            tripped.append(f"no pair has a {n} score on both sides, so A cannot be shown not to be worse")
        elif result.worse(n):
            tripped.append(f"A is worse than B on {n} beyond the 95% interval (Holm p = {m.p_holm:.2g})")
    for line in tripped:
        print(f"gradeboard: fail-if-worse: {line}", file=sys.stderr)
    return EXIT_GATE if tripped else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate in a cell prints as its escape
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse already printed its one-line usage error
        return EXIT_BAD_INPUT if e.code else EXIT_OK
    try:
        return cmd_score(args) if args.command == "score" else cmd_compare(args)
    except BadInput as e:
        print(f"gradeboard: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("gradeboard: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print("gradeboard: out of memory; try a smaller file or fewer --workers", file=sys.stderr)
        return EXIT_BAD_INPUT


def run() -> NoReturn:
    """The command's entry point (``gradeboard``, ``python -m graders``): ``main()``, then
    the exit handlers and the flushed streams, then an immediate exit. Tearing down the
    interpreter, every module's objects freed one by one, would add about 0.1 s to each
    run and free nothing the operating system does not free at once. A failed flush of
    stdout exits 120, as the interpreter's own exit does. The cyclic garbage collector is
    off: the command's objects hold no cycles worth collecting (reading and preparing
    200,000 rows set off collections that walked every row's objects again, 0.02 s), and
    the process ends when the command does."""
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
