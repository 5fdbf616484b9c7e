"""Scoring and comparing over a Dask cluster (SPEC §11): the same rows, scored file, summary
and comparison as the single-process run, cell for cell.

The client reads no file and holds no row while scoring: workers read the files, cut them
into parts (``parts.PART_ROWS`` records), prepare each part, and score it into the scored
file's lines (``scoring.parallel.score_to_csv``, as the single-process run writes them) and
the numbers the summary adds up (``reduce.piece``). The client finds duplicate keys from
each part's key hashes, then writes the parts' lines to the output in order as they arrive
(one part's bytes at a time; the file replaced whole at the end, ``output.text_output``),
and adds the pieces into the summary. A worker lost mid-run is replaced and its parts
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


def _score_frame_on(client: Any, partition_rows: int) -> Any:
    """``score_frame`` for ``compare_prepared``, each part of the rows scored on a worker."""
    import pandas as pd

    from graders.scoring.parallel import score_frame
    from graders.scoring.summary import add_statistics

    def scorer(rows: pd.DataFrame, config: RunConfig, *, statistics: dict | None = None, **_: Any) -> pd.DataFrame:
        spans = P.spans(len(rows), partition_rows)
        futures = [client.submit(_score_frame_part, rows.iloc[a:b], config, statistics is not None, pure=False)
                   for a, b in spans]
        frames = []
        for k, future in enumerate(futures):
            frame, sums = _result(future, f"part {k + 1} of {len(futures)}")
            futures[k] = None
            frames.append(frame)
            if statistics is not None:
                add_statistics(statistics, sums)
        return pd.concat(frames, ignore_index=True) if frames else score_frame(rows, config, details=False)

    return scorer


def _score_frame_part(rows: Any, config: RunConfig, sums: bool) -> tuple[Any, dict]:
    from graders.scoring.parallel import score_frame

    statistics: dict | None = {} if sums else None
    frame = score_frame(rows.reset_index(drop=True), config, workers=1, details=False, statistics=statistics)
    return frame, statistics or {}


def compare_files(paths: Sequence[str], config: RunConfig | Mapping[str, Any] | str | os.PathLike[str], *,
                  client: Any = None, version_a: str | None = None, version_b: str | None = None,
                  resamples: int = 2000, seed: int = 0, primary: Sequence[str] | None = None,
                  format: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES, header: bool = True,
                  partition_rows: int = P.PART_ROWS, mapping: Mapping[str, str | None] | None = None) -> Any:
    """``gradeboard compare FILES`` on a cluster: the files read, prepared and scored by the
    workers, the duplicate keys found over every part; the comparison (pairing, intervals,
    tests: ``compare_prepared``) on the client over the rows, as the single-process run has
    them. Two files of one version each are A and B in order, unless ``version_a``/``b``."""
    import pandas as pd

    from graders.compare.comparison import CompareError, compare_prepared
    from graders.scoring.rows import MappingError

    client = _client(client)
    config = as_run_config(config)
    paths = expand(paths)
    if len(paths) > 2:
        raise ResultsFileError(f"compare takes one file with both sides or two runs, not {len(paths)} files")
    try:
        parts = _file_parts(client, paths, config, format=format, max_bytes=max_bytes, header=header,
                            partition_rows=partition_rows, mapping=mapping)
    except MappingError as e:
        raise CompareError(str(e)) from None
    if version_a is None and version_b is None and len(paths) == 2 and "file" in parts.columns:
        if all(len(v) == 1 for v in parts.file_versions):  # readers.several.first_versions
            version_a, version_b = parts.file_versions[0][0], parts.file_versions[1][0]
    rows = _gather([client.submit(P.kept_rows, f, d, pure=False) for f, d in zip(parts.futures, parts.dups.per_part)],
                   "gathering the rows")
    frame = pd.concat(rows, ignore_index=True)
    prepared = Prepared(rows=frame, left_out=parts.left_out, systems=P.systems(parts.infos))
    mapping_used = parts.mapping
    versions = None
    if mapping_used.get("version") and not mapping_used.get("output_b") and mapping_used["version"] in parts.columns:
        versions = list(dict.fromkeys(v for i in parts.infos for v in i.versions))
    return compare_prepared(prepared, config, mapping_used, version_a=version_a, version_b=version_b,
                            resamples=resamples, seed=seed, primary=primary, versions_in_file=versions,
                            score=_score_frame_on(client, partition_rows))
