"""Scoring and comparing over a Dask cluster (SPEC §11): the same rows, scored file, summary
and comparison as the single-process run, cell for cell.

The client reads no file and holds no row while scoring: workers read the files, cut them
into parts (``parts.PART_ROWS`` records), prepare each part, and score it into the scored
file's lines (``scoring.parallel.score_to_csv``, as the single-process run writes them) and
the numbers the summary adds up (``reduce.piece``). The client finds duplicate keys from
each part's key hashes, then writes the parts' lines to the output in order as they arrive
(one part's bytes at a time; the file replaced whole at the end, ``output.text_output``),
and adds the pieces into the summary. To compare, each part's scored rows of A and B go to
a bucket by a hash of their id (all of a case's rows meet in one), each bucket pairs its
rows, and the client merges the buckets' few numbers a pair in the single-process order
(``compare.buckets``): the comparison's tests run there, and its CSV is written from the
buckets' lines, one scorer at a time. A worker lost mid-run is replaced and its parts
computed again by Dask; a task that keeps killing its worker (more often than Dask's
``distributed.scheduler.allowed-failures``, 3 by default) ends the run with one message,
and the old output stays as it was.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from graders.config import RunConfig, as_run_config, suggest_mapping
from graders.distributed.cluster import ClusterError, require_dask
from graders.readers.frame import DEFAULT_MAX_BYTES, ResultsFile, ResultsFileError
from graders.scoring import parts as P
from graders.scoring import reduce as R
from graders.scoring.output import scored_header
from graders.scoring.rows import LeftOut, Prepared
from graders.scoring.stream import PartsRun, raw_statistics, run_summary, score_part, scored_output

ClusterRun = PartsRun  # a run scored on a cluster: summary, mapping, left-out report, parts


def expand(patterns: Sequence[str]) -> list[str]:
    """Files or globs as paths: a pattern that names no file as written is a glob, its
    matches sorted (none: the pattern itself, which reading then names as missing)."""
    out: list[str] = []
    for p in patterns:
        matches = sorted(glob.glob(p)) if not os.path.exists(p) and glob.has_magic(p) else []
        out += matches or [p]
    return out


def _client(client: Any) -> Any:
    require_dask()
    if client is not None:
        return client
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        raise ClusterError("no Dask client: pass client=, or start one (distributed.Client(...))") from None


def _threads(client: Any) -> int:
    """The cluster's worker threads (1 when the scheduler does not say)."""
    try:
        return max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
    except (AttributeError, KeyError, TypeError):  # a scheduler that does not say: a few parts ahead anyway
        return 1


def _gather(futures: Sequence[Any], what: str) -> list[Any]:
    return [_result(f, what) for f in futures]


def _result(future: Any, what: str) -> Any:
    from distributed.scheduler import KilledWorker

    try:
        return future.result()
    except KilledWorker as e:
        raise ClusterError(f"a Dask worker died each time it ran {what} ({e.args[0] if e.args else 'a task'}); "
                           "nothing was written (is a part too large for a worker's memory?)") from None


# --------------------------------------------------------------------------- the parts


@dataclass
class _Parts:
    """Prepared parts on the cluster (futures) and what the client knows of them."""

    futures: list[Any]
    infos: list[P.PartInfo]
    mapping: dict[str, str | None]
    columns: tuple[str, ...]
    dups: P.Duplicates
    left_out: LeftOut
    file_versions: list[tuple[str, ...]]  # several files: each file's versions


def _file_parts(client: Any, paths: Sequence[str], config: RunConfig, *, format: str | None, max_bytes: int,
                header: bool, partition_rows: int, mapping: Mapping[str, str | None] | None = None) -> _Parts:
    from graders.readers.several import system_names

    if not paths:
        raise ResultsFileError("no results file given")
    several = len(paths) > 1
    if several and len(set(map(os.path.realpath, paths))) != len(paths):
        raise ResultsFileError("the same file is named twice")
    names = system_names(paths) if several else [None]
    files = [client.submit(P.read_file, path, name, format=format, max_bytes=max_bytes, header=header, pure=False)
             for path, name in zip(paths, names)]
    infos = _gather(client.map(P.file_info, files), "reading a file")
    columns = tuple(dict.fromkeys(c for i in infos for c in i.columns))
    pieces, offset = [], 0
    for f, info in zip(files, infos):
        for k, (a, b) in enumerate(P.spans(info.rows, partition_rows)):
            pieces.append(client.submit(P.file_piece, f, a, b, offset, columns if several else None, k == 0, pure=False))
        offset += info.last
    del files
    return _prepared(client, pieces, ResultsFile(None, (), "", (), columns), config, mapping,
                     [i.versions for i in infos] if several else [])


def _prepared(client: Any, pieces: list[Any], shape: ResultsFile, config: RunConfig,
              mapping: Mapping[str, str | None] | None, file_versions: list[tuple[str, ...]]) -> _Parts:
    if mapping is None:
        mapping = suggest_mapping(shape.columns)
        for role, column in config.columns.items():
            mapping[role] = column or None
    mapping = dict(mapping)
    futures = client.map(P.prepare_part, pieces, mapping=mapping, needs_expected=config.needs_expected, pure=False)
    del pieces
    infos = _gather(client.map(P.part_info, futures), "preparing the rows")
    dups = P.duplicates(infos, mapping)
    return _Parts(futures, infos, mapping, shape.columns, dups, P.left_out(infos, dups), file_versions)


def _ddf_parts(client: Any, ddf: Any, config: RunConfig, records: str | None,
               mapping: Mapping[str, str | None] | None) -> _Parts:
    frames = client.compute(ddf.to_delayed())
    offsets = [0]
    if records is None:
        for n in _gather(client.map(len, frames), "reading the rows"):
            offsets.append(offsets[-1] + n)
    pieces = [client.submit(P.frame_piece, f, offsets[k] if records is None else 0, records, pure=False)
              for k, f in enumerate(frames)]
    columns = tuple(str(c) for c in ddf.columns if c != records)
    return _prepared(client, pieces, ResultsFile(None, (), "", (), columns), config, mapping, [])


# --------------------------------------------------------------------------- scoring


def _score(client: Any, parts: _Parts, config: RunConfig, *, include_output: bool, sink: Any) -> ClusterRun:
    has_repeat = any(i.has_repeat for i in parts.infos)
    n = len(parts.futures)
    ahead = max(4, 2 * _threads(client))  # parts scored ahead of the one written: no worker holds every part's lines
    scored: dict[int, Any] = {}

    def submit(k: int) -> None:
        if k < n:
            scored[k] = client.submit(score_part, parts.futures[k], parts.dups.per_part[k], config, include_output,
                                      has_repeat, pure=False)

    for k in range(ahead):
        submit(k)
    pieces: list[R.Piece] = []
    if sink is not None:
        sink.write(scored_header(include_output))
    for k in range(n):
        data, piece = _result(scored.pop(k), f"part {k + 1} of {n}")  # its lines let go once written
        submit(k + ahead)
        if sink is not None:
            sink.write(data)
        pieces.append(piece)

    def raw(name: str, system: Any) -> list[int]:
        sums = _gather([client.submit(raw_statistics, f, d, name, system, pure=False)
                        for f, d in zip(parts.futures, parts.dups.per_part)], "the corpus statistics")
        return [sum(col) for col in zip(*sums)]

    summary = run_summary(pieces, config, parts.mapping, parts.left_out, parts.columns, has_repeat, raw)
    return ClusterRun(summary, parts.mapping, parts.left_out, len(pieces))


def score_files(paths: Sequence[str], config: RunConfig | Mapping[str, Any] | str | os.PathLike[str], *,
                client: Any = None, write_to: Any = None, include_output: bool = False, format: str | None = None,
                max_bytes: int = DEFAULT_MAX_BYTES, header: bool = True, partition_rows: int = P.PART_ROWS,
                mapping: Mapping[str, str | None] | None = None) -> ClusterRun:
    """Score results files (paths or globs, read by the workers: a path must name the same
    file on every worker) on the cluster of ``client`` (default: the current Dask client),
    as ``gradeboard score FILES`` does in one process: the scored CSV to ``write_to`` (a
    path, replaced whole at the end; ``"-"`` or a binary file: written through; None: not
    written) and the summary returned."""
    client = _client(client)
    config = as_run_config(config)
    with scored_output(write_to) as sink:
        parts = _file_parts(client, expand(paths), config, format=format, max_bytes=max_bytes, header=header,
                            partition_rows=partition_rows, mapping=mapping)
        return _score(client, parts, config, include_output=include_output, sink=sink)


def score_ddf(ddf: Any, config: RunConfig | Mapping[str, Any] | str | os.PathLike[str], *, client: Any = None,
              write_to: Any = None, include_output: bool = False, records: str | None = None,
              mapping: Mapping[str, str | None] | None = None) -> ClusterRun:
    """Score a ``dask.dataframe`` of results rows (one row a record, cells as text as
    ``read_results`` reads them: ``dd.read_csv(..., dtype=str, keep_default_na=False)``; None
    or NaN is an absent cell) as ``score_file`` scores a file, each partition on a worker.
    ``records``: a column of 1-based record numbers (the left-out report's); without it
    rows are numbered 1, 2, … in order over the partitions. ``write_to`` as in ``score_files``."""
    client = _client(client)
    config = as_run_config(config)
    with scored_output(write_to) as sink:
        parts = _ddf_parts(client, ddf, config, records, mapping)
        return _score(client, parts, config, include_output=include_output, sink=sink)


# --------------------------------------------------------------------------- comparing


def compare_files(paths: Sequence[str], config: RunConfig | Mapping[str, Any] | str | os.PathLike[str], *,
                  client: Any = None, version_a: str | None = None, version_b: str | None = None,
                  resamples: int = 2000, seed: int = 0, primary: Sequence[str] | None = None,
                  format: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES, header: bool = True,
                  partition_rows: int = P.PART_ROWS, mapping: Mapping[str, str | None] | None = None,
                  write_to: Any = None, spreadsheet_safe: bool = False) -> Any:
    """``gradeboard compare FILES`` on a cluster, as ``compare_file`` makes it in one process:
    the files read, prepared and scored by the workers, the duplicate keys found over every
    part; the scored rows of A and B shuffled into buckets by id and paired there
    (``compare.buckets``); the client merges the buckets' per-pair numbers in the
    single-process order and makes the figures from them. The comparison CSV goes to
    ``write_to`` (as ``score_files``' ``write_to``; None: not written), its lines fetched
    from the buckets one scorer at a time; the ``Comparison`` returned has no ``pairs``.
    Two files of one version each are A and B in order, unless ``version_a``/``b``."""
    client = _client(client)
    config = as_run_config(config)
    paths = expand(paths)
    if len(paths) > 2:
        raise ResultsFileError(f"compare takes one file with both sides or two runs, not {len(paths)} files")
    asked = {"version_a": version_a, "version_b": version_b, "resamples": resamples, "seed": seed, "primary": primary}

    def read() -> _Parts:
        return _file_parts(client, paths, config, format=format, max_bytes=max_bytes, header=header,
                           partition_rows=partition_rows, mapping=mapping)

    return _compare_run(client, config, read, len(paths) == 2, asked, write_to, spreadsheet_safe)


def compare_ddf(ddf: Any, config: RunConfig | Mapping[str, Any] | str | os.PathLike[str], *, client: Any = None,
                version_a: str | None = None, version_b: str | None = None, resamples: int = 2000, seed: int = 0,
                primary: Sequence[str] | None = None, records: str | None = None,
                mapping: Mapping[str, str | None] | None = None, write_to: Any = None,
                spreadsheet_safe: bool = False) -> Any:
    """``compare_files`` over a ``dask.dataframe`` of results rows (as ``score_ddf`` reads
    them: cells as text, ``records`` a column of record numbers), each partition prepared
    and scored on a worker, as ``compare_file`` compares the same rows as a file."""
    client = _client(client)
    config = as_run_config(config)
    asked = {"version_a": version_a, "version_b": version_b, "resamples": resamples, "seed": seed, "primary": primary}
    return _compare_run(client, config, lambda: _ddf_parts(client, ddf, config, records, mapping), False, asked,
                        write_to, spreadsheet_safe)


def _compare_run(client: Any, config: RunConfig, read: Any, two_runs: bool, asked: dict[str, Any], write_to: Any,
                 spreadsheet_safe: bool) -> Any:
    """The comparison of the parts ``read()`` makes, the CSV to ``write_to`` (opened first)."""
    from graders.compare.comparison import CompareError
    from graders.scoring.limits import check_resamples, check_seed
    from graders.scoring.rows import MappingError

    asked["resamples"], asked["seed"] = check_resamples(asked["resamples"]), check_seed(asked["seed"])
    if not config.graders:
        raise CompareError("no graders configured; add at least one")
    with scored_output(write_to) as sink:
        try:
            parts = read()
        except MappingError as e:
            raise CompareError(str(e)) from None
        if asked["version_a"] is None and asked["version_b"] is None and two_runs and "file" in parts.columns:
            if all(len(v) == 1 for v in parts.file_versions):  # readers.several.first_versions
                asked["version_a"], asked["version_b"] = parts.file_versions[0][0], parts.file_versions[1][0]
        asked["versions_in_file"] = None
        if parts.mapping.get("version") and not parts.mapping.get("output_b") and parts.mapping["version"] in parts.columns:
            asked["versions_in_file"] = list(dict.fromkeys(v for i in parts.infos for v in i.versions))
        return _compare(client, parts, config, asked, sink, spreadsheet_safe)


def _compare(client: Any, parts: _Parts, config: RunConfig, asked: dict[str, Any], sink: Any,
             spreadsheet_safe: bool) -> Any:
    """The comparison of the prepared parts: A and B chosen from what the parts told the
    client, the parts scored and their rows shuffled into buckets (``compare.buckets``), the
    figures made from the buckets' merged numbers, the CSV written to ``sink``."""
    import pandas as pd

    from graders.compare import buckets as K
    from graders.compare.comparison import (
        CompareError,
        Comparison,
        _left_out_phrase,
        check_paired,
        choose_sides,
        comparison_columns,
        metric_comparisons,
    )
    from graders.compare.corpus import CORPUS_METRICS
    from graders.compare.families import FamilyError, holm_families
    from graders.config import mapping_dict
    from graders.scoring.output import csv_bytes

    prepared = Prepared(pd.DataFrame(), parts.left_out, P.systems(parts.infos))
    a, b, source, how = choose_sides(prepared, parts.mapping, asked["version_a"], asked["version_b"],
                                     asked["versions_in_file"])
    scorers = tuple(config.grader_names) + (("overall",) if config.overall else ())
    try:
        families = holm_families(list(scorers), asked["primary"])
    except FamilyError as e:
        raise CompareError(str(e)) from None
    has_repeat = any(i.has_repeat for i in parts.infos)
    corpus = tuple(n for n in CORPUS_METRICS if n in config.grader_names)
    # Buckets: two a worker thread, or one to each four parts (smaller buckets, lower peaks),
    # but not so many that the parts x buckets slices flood the scheduler (20,000 tasks).
    n = len(parts.futures)
    count = max(2 * _threads(client), min(-(-n // 4), 20_000 // max(n, 1)))
    sides = K.Sides(a, b, source, dict(parts.mapping), scorers, corpus, max(1, min(n, count)), spreadsheet_safe)
    sent = [client.submit(K.part_rows, f, d, config, sides, k, has_repeat, pure=False)
            for k, (f, d) in enumerate(zip(parts.futures, parts.dups.per_part))]
    buckets = [client.submit(K.pair_bucket, j, sides, *[client.submit(_slice, s, j, pure=False) for s in sent],
                             pure=False) for j in range(sides.buckets)]
    heads = _gather([client.submit(_head, s, pure=False) for s in sent], "scoring the rows")
    del sent  # the parts' rows are the buckets' now
    if not sum(h[2] for h in heads):
        raise CompareError(f"no rows left to compare{_left_out_phrase(prepared)}")
    figures = _gather([client.submit(_figures, bucket, pure=False) for bucket in buckets], "pairing the rows")
    if any(f.repeats for f in figures):  # pragma: no cover - the duplicate check leaves each key once a side
        raise ClusterError("a case's key repeats on one side after the duplicate check; compare without --scheduler")
    merged = K.merge(figures)
    unpaired = merged.unpaired()
    check_paired(unpaired, a, b, source, prepared)
    results, item_codes = merged.summaries(scorers, resamples=asked["resamples"], seed=asked["seed"],
                                           family_sizes={n: families.size(n) for n in scorers})
    metrics = metric_comparisons(results, families, unpaired)
    refs = set().union(*(h[1] for h in heads))
    paired_corpus = merged.paired_corpus(corpus, item_codes, refs, resamples=asked["resamples"], seed=asked["seed"])

    def raw(name: str, system: Any) -> list[int]:
        sums = _gather([client.submit(K.side_statistics, f, d, sides, name, system, pure=False)
                        for f, d in zip(parts.futures, parts.dups.per_part)], "the corpus statistics")
        return [sum(col) for col in zip(*sums)]

    side_summary = R.summary([h[0] for h in heads], graders=config.grader_names, left_out={},
                             config=config.to_dict(), has_repeat=has_repeat, raw_corpus=raw)
    result = Comparison(a, b, source, None, metrics, unpaired, prepared, None, asked["resamples"], asked["seed"],
                        {**config.to_dict(), "columns": mapping_dict(parts.mapping)}, {}, families, how, paired_corpus,
                        side_summary=side_summary)
    if sink is not None:
        versions = source == "wide" and bool(parts.mapping.get("version"))
        columns = comparison_columns(pd.DataFrame(columns=["version"] if versions else []))
        sink.write(csv_bytes(pd.DataFrame(columns=columns), columns))
        for rank in range(len(scorers)):  # one scorer's lines at a time
            blocks = _gather([client.submit(_lines_of, bucket, rank, pure=False) for bucket in buckets],
                             "the comparison's lines")
            for data in merged.lines(rank, blocks):
                sink.write(data)
    return result


def _slice(sent: Any, j: int) -> Any:
    return sent.slices[j]


def _head(sent: Any) -> tuple[Any, set[int], int]:
    return sent.piece, sent.refs, sent.rows


def _figures(bucket: Any) -> Any:
    return bucket.figures()


def _lines_of(bucket: Any, rank: int) -> tuple[bytes, Any]:
    return bucket.lines_of(rank)
