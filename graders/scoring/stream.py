"""A run over a file's parts in order, holding one part's rows at a time: the scored file
written part after part, the summary, the corpus statistics and the left-out report added
up as the parts come, never held row by row. The single-process command runs it on a large
file (``readers.chunks`` cuts the blocks); a Dask cluster's workers run ``score_part`` on
theirs and its client adds up the same pieces (``graders.distributed``).

What a run holds beyond one part: per record kept, its key's 128-bit hash and first record
(``parts.KeyIndex``: 20 bytes a record, for duplicate keys over the whole file); per part,
a few numbers per (scorer, system) and the records it lost as duplicates; and, where a
repeat column is mapped, each case's decided rows and passes per scorer (for the clustered
intervals: 16 bytes a case and 16 per scorer). A corpus figure whose rows' statistics are
missing (``reduce.corpus_gaps``) takes a second pass over the blocks.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import tempfile
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator, Mapping

from graders.config import RunConfig, mapping_dict
from graders.readers.frame import ResultsFile, ResultsFileError
from graders.scoring import parts as P
from graders.scoring import reduce as R
from graders.scoring.agreement import add_agreement, column_verdicts
from graders.scoring.output import STDOUT, _append_file, scored_header, text_output
from graders.scoring.rows import LeftOut, Prepared


@dataclass(frozen=True)
class PartsRun:
    """A run scored in parts: its summary (``summarize``'s, cell for cell), the mapping
    used, the left-out report, and how many parts the rows were scored in. The scored rows
    are in the file written."""

    summary: dict[str, Any]
    mapping: Mapping[str, str | None]
    left_out: LeftOut
    parts: int


class _Lines:
    """A binary sink for ``score_to_csv`` that drops the header (written once for the
    run) and keeps the lines, or writes them on to ``out``."""

    def __init__(self, out: Any = None) -> None:
        self.out = out
        self.pieces: list[bytes] = []
        self.header = True

    def write(self, data: bytes) -> None:
        if self.header:
            self.header = False
        elif self.out is not None:
            self.out.write(data)
        else:
            self.pieces.append(data)

    def writelines(self, data: list[bytes]) -> None:
        if self.out is not None:
            self.out.writelines(data)
        else:
            self.pieces.extend(data)

    def flush(self) -> None:
        if self.out is not None:
            self.out.flush()


def score_part(part: P.Part, duplicates: Any, config: RunConfig, include_output: bool, cases: bool, *,
               out: Any = None, run: str | None = None) -> tuple[bytes, R.Piece]:
    """One part scored: its scored file's lines (written to ``out`` as they come when given,
    a binary file or the path of a new one, else returned) and its summary ``Piece``, in
    this process; ``run``: the run it is part of (``score_to_csv``)."""
    from graders.scoring.parallel import score_to_csv

    rows = P.kept_rows(part, duplicates)
    if isinstance(out, str):  # a spool file of its own, which the run appends to its output
        with open(out, "wb") as f:
            return score_part(part, duplicates, config, include_output, cases, out=f, run=run)
    sink = _Lines(out)
    tally = score_to_csv(rows, config, sink, include_output=include_output, run=run)
    if "graders.engines.regex" in sys.modules:  # the part's texts, kept for a next pattern, go
        sys.modules["graders.engines.regex"].forget_batches()
    piece = R.piece(tally, rows, cases)
    if part.file is not None:
        kept = Prepared(rows, part.prepared.left_out, part.prepared.systems)
        piece.agreement = R.run_agreement(part.file, kept, config, tally)
        piece.not_verdicts = column_verdicts(part.file)[1]
    return b"".join(sink.pieces), piece


def raw_statistics(part: P.Part, duplicates: Any, name: str, system: Any) -> list[int]:
    """BLEU's or chrF's corpus statistics of one system's outputs as written, in one part."""
    rows = P.kept_rows(part, duplicates)
    return output_statistics(rows[rows["system"].to_numpy(dtype=object) == system], name)


def output_statistics(rows: Any, name: str) -> list[int]:
    """BLEU's or chrF's corpus statistics of these rows' outputs as written."""
    from graders.text.ngrams import corpus_statistics

    if name == "bleu":
        from graders.metrics.bleu import N_STATS, segment_statistics
    else:
        from graders.metrics.chrf import N_STATS, segment_statistics
    return corpus_statistics(f"corpus_{name}", list(rows["output"]), [list(r) for r in rows["refs"]],
                             segment_statistics, N_STATS)


def run_summary(pieces: list[R.Piece], config: RunConfig, mapping: Mapping[str, str | None], left_out: LeftOut,
                columns: tuple[str, ...], has_repeat: bool, raw_corpus: Callable[[str, Any], list[int]]) -> dict[str, Any]:
    """The run's summary from its parts' pieces, in order, as ``score_prepared`` writes it:
    ``reduce.summary`` and the harness agreement added up over the parts."""
    summary = R.summary(pieces, graders=config.grader_names, left_out=left_out.to_dict(),
                        config={**config.to_dict(), "columns": mapping_dict(mapping)}, has_repeat=has_repeat,
                        raw_corpus=raw_corpus)
    agreement: dict[str, Any] = {}
    for piece in pieces:
        add_agreement(agreement, piece.agreement)
    others = set().union(*(piece.not_verdicts for piece in pieces)) if pieces else set()
    agreement = {c: agreement[c] for c in columns if c in agreement and c not in others}
    if agreement:
        summary["harness_agreement"] = agreement
    return summary


@contextmanager
def scored_output(write_to: Any) -> Iterator[Any]:
    """Where the scored lines go, opened before anything is read (a path that cannot be
    written fails first): a path replaced whole when the block ends without an error, the
    old file kept otherwise (``output.text_output``); ``"-"``: standard output; a binary
    file as it is; None: nowhere."""
    if write_to is None:
        yield None
    elif isinstance(write_to, (str, os.PathLike)) and os.fspath(write_to) != STDOUT:
        with text_output(os.fspath(write_to)) as out:
            out.flush()
            yield out.buffer
    else:
        sink = write_to if not isinstance(write_to, (str, os.PathLike)) else io.open(1, "wb", closefd=False)
        yield sink
        sink.flush()


class NoRows(Exception):
    """The blocks held no readable row (``read_results`` says how the file is empty)."""


def score_blocks(blocks: Callable[[], Iterable[ResultsFile]], columns: tuple[str, ...], config: RunConfig,
                 mapping: Mapping[str, str | None], *, out: Any, include_output: bool = False,
                 workers: int = 1, spool: str | None = None) -> PartsRun:
    """Score a file given as its blocks in order (``blocks()`` yields them; called again for
    a corpus figure's second pass) with the file's ``columns``: each block prepared and its
    duplicate keys found against every record before it, here; scored in ``workers``
    processes, a block each (``score_part``; at most ``workers + 1`` blocks in flight), and
    written to ``out`` (a binary file; the header before the first lines) in file order
    (``spool``: the folder for the workers' spool folder; default the temporary folder).
    ``NoRows`` when no block had a row."""
    mapping = dict(mapping)
    finder, lost = P.DuplicateFinder(mapping), P.LeftOutSum()
    cases = bool(mapping.get("repeat"))  # each case's counts, should a row have a repeat
    harness = any(c.startswith("harness.") for c in columns)
    pieces: list[R.Piece] = []
    dropped: list[Any] = []  # each part's duplicate records, for a second pass
    has_repeat = False
    written = [False]  # whether the header (and any lines) went out
    sink = out if out is not None else _Null()
    with _Parts(workers, spool) as scorer:
        for block in _read_on(blocks(), written):
            part = P.prepare_part(block, mapping, config.needs_expected)
            info = P.part_info(part)
            lost.add(info.left_out)
            dups = finder.add(info.alive, info.keys, info.rows_of)
            dropped.append(dups)
            has_repeat |= part.has_repeat
            if not written[0] and len(block.frame):
                written[0] = True
                sink.write(scored_header(include_output))
            light = replace(part, alive=info.alive[:0], keys=info.keys[:0], file=block if harness else None)
            del part, block
            pieces += scorer.score(light, dups, config, include_output, cases, sink)
        pieces += scorer.rest(sink)
    if not written[0]:
        raise NoRows()
    left_out = lost.result(finder.result(dropped))
    gaps = R.corpus_gaps(pieces, config.grader_names)
    sums: dict[tuple[str, Any], list[int]] = {}
    if gaps:
        for k, block in enumerate(blocks()):
            part = P.prepare_part(block, mapping, config.needs_expected)
            for name, system in gaps:
                got = raw_statistics(part, dropped[k], name, system)
                have = sums.get((name, system))
                sums[(name, system)] = got if have is None else [a + b for a, b in zip(have, got)]
    summary = run_summary(pieces, config, mapping, left_out, columns, has_repeat, lambda n, s: sums[(n, s)])
    return PartsRun(summary, mapping, left_out, len(pieces))


class _Parts:
    """Parts scored here (one worker) or in a pool of ``workers`` processes started once for
    the run, each part's lines written in file order as soon as the parts before it are.
    A worker writes a part's lines to a file of its own in a spool folder (in ``spool``, a
    folder; removed with the run), which is appended to the output in the kernel: no line
    crosses a pipe or waits in memory."""

    def __init__(self, workers: int, spool: str | None) -> None:
        self.workers = max(1, workers)
        self.pool: Any = None
        self.pending: deque[tuple[Any, str]] = deque()
        self.where, self.spool, self.made = spool, "", 0
        self.run = os.urandom(8).hex()  # one run: its patterns' time-outs add up over its parts

    def __enter__(self) -> "_Parts":
        if self.workers > 1 and os.name == "posix":
            from concurrent.futures import ProcessPoolExecutor
            from multiprocessing import get_context

            from graders.scoring.parallel import die_with_parent

            self.spool = tempfile.mkdtemp(prefix="gradeboard-spool-", dir=self.where)
            self.pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context("fork"),
                                            initializer=die_with_parent)
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            if self.pool is not None:
                for f, _ in self.pending:
                    f.cancel()
                self.pool.shutdown(wait=True)
        finally:
            if self.spool:
                shutil.rmtree(self.spool, ignore_errors=True)

    def score(self, part: P.Part, dups: Any, config: RunConfig, include_output: bool, cases: bool,
              sink: Any) -> list[R.Piece]:
        """Score ``part``; the pieces of the parts written meanwhile, in order."""
        if self.pool is None:
            return [score_part(part, dups, config, include_output, cases, out=sink, run=self.run)[1]]
        self.made += 1
        path = os.path.join(self.spool, f"{self.made}.csv")
        self.pending.append((self.pool.submit(score_part, part, dups, config, include_output, cases, out=path,
                                              run=self.run), path))
        done = []
        while len(self.pending) > self.workers or (self.pending and self.pending[0][0].done()):
            done.append(self._write(sink))
        return done

    def rest(self, sink: Any) -> list[R.Piece]:
        return [self._write(sink) for _ in range(len(self.pending))]

    def _write(self, sink: Any) -> R.Piece:
        future, path = self.pending[0]
        _, piece = future.result()
        self.pending.popleft()
        try:
            fd = sink.fileno()
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
            fd = None
        if fd is None:
            with open(path, "rb") as f:
                shutil.copyfileobj(f, sink)
        else:
            sink.flush()
            _append_file(path, fd)
        os.remove(path)
        return piece


def _read_on(blocks: Iterable[ResultsFile], written: list[bool]) -> Iterator[ResultsFile]:
    """The blocks; a block that no longer reads as planned (``NotStreamable``) is the file's
    error once lines are written (they cannot be taken back), else the caller reads whole."""
    from graders.readers.chunks import NotStreamable

    try:
        yield from blocks
    except NotStreamable as e:
        if written[0]:
            raise ResultsFileError(f"the file changed or could not be read to its end: {e}") from None
        raise


class _Null:
    def write(self, data: bytes) -> None:
        pass

    def writelines(self, data: list[bytes]) -> None:
        pass

    def flush(self) -> None:
        pass
