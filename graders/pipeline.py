"""One call from a results file to scored rows and a summary: what the command line and
the dashboard both run, so that the same configuration gives the same counts."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import pandas as pd

from graders.config import RunConfig, as_run_config, mapping_dict, suggest_mapping
from graders.readers.files import DEFAULT_MAX_BYTES, ResultsFile, read_results
from graders.scoring.limits import check_max_bytes, check_workers
from graders.scoring.output import STDOUT
from graders.scoring.parallel import Cancel, Progress, score_frame, score_to_csv
from graders.scoring.reduce import run_agreement
from graders.scoring.rows import Prepared, prepare
from graders.scoring.slices import check_column, slice_summary
from graders.scoring.stream import PartsRun
from graders.scoring.summary import Tally, extracting_graders, summarize


@dataclass(frozen=True)
class ScoreRun:
    file: ResultsFile
    mapping: Mapping[str, str | None]
    prepared: Prepared
    scored: pd.DataFrame | Tally  # a Tally when the scored file was written while scoring
    summary: dict[str, Any]

    def scores(self) -> pd.DataFrame:
        """The scored rows typed for analysis: ``score`` a float (NaN where there is none)
        and ``pass`` a nullable boolean (``<NA>`` where undecided); the other columns are
        ``scored``'s, the scored file's text cells. ``run.scores().groupby("scorer")["score"].mean()``
        is each scorer's mean score (over every system)."""
        if isinstance(self.scored, Tally):
            raise ValueError("this run wrote its scored rows to a file while scoring: read that file")
        scored = self.scored
        out = scored.copy(deep=False)
        out["score"] = pd.to_numeric(scored["score"].where(scored["score"] != ""), errors="coerce").astype(float)
        out["pass"] = scored["pass"].map({"true": True, "false": False}).astype("boolean")
        return out


def resolve_mapping(file: ResultsFile, config: RunConfig) -> dict[str, str | None]:
    """The suggested mapping, overridden role by role by the configuration's columns."""
    mapping = suggest_mapping(file.columns)
    for role, column in config.columns.items():
        mapping[role] = column or None
    return mapping


def score_prepared(
    file: ResultsFile,
    config: RunConfig,
    *,
    mapping: Mapping[str, str | None] | None = None,
    include_output: bool = False,
    workers: int | None = None,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    details: bool = True,
    write_to: Any = None,
    start_method: str = "fork",
    prepared: Prepared | None = None,
    explain: bool = True,
    by: str | None = None,
) -> ScoreRun:
    """Prepare and score ``file``; with ``write_to`` (a path or a binary file) the scored CSV is
    written while scoring (``batch.score_to_csv``) and ``scored`` is the ``Tally`` the
    summary reads, not the scored rows (the file holds them). BLEU's and chrF's corpus
    statistics reach the summary summed where the rows were scored, so with ``details=False``
    their rows' details stay in the worker processes. ``start_method``: how worker
    processes start (``batch.score_frame``; "forkserver" inside a threaded host).
    ``prepared``: ``prepare(file, mapping, needs_expected=config.needs_expected)`` when the
    caller has it already (the dashboard's left-out report did it). ``explain=False``
    defers the cheap graders' explanations (``batch.score_frame``; not with ``write_to``).
    ``by``: a column of the file (a dotted metadata field too) whose values slice the
    figures: the summary's ``by`` section (``scoring.slices``), checked before scoring."""
    config = as_run_config(config)
    if by is not None:
        check_column(file, by)
    mapping = dict(mapping) if mapping is not None else resolve_mapping(file, config)
    if prepared is None:
        prepared = prepare(file, mapping, needs_expected=config.needs_expected)
    statistics: dict | None = None  # the Tally holds its own
    if write_to is not None:
        scored = score_to_csv(
            prepared.rows, config, write_to, include_output=include_output, workers=workers or 1, progress=progress,
            cancel=cancel,
        )
    else:
        statistics = {}  # BLEU's and chrF's corpus statistics, summed where the rows were scored
        scored = score_frame(
            prepared.rows, config, include_output=include_output, workers=workers, progress=progress, cancel=cancel,
            details=details, start_method=start_method, statistics=statistics, explain=explain,
        )
    summary = summarize(
        scored, prepared.rows, graders=config.grader_names, left_out=prepared.left_out.to_dict(),
        config={**config.to_dict(), "columns": mapping_dict(mapping)}, statistics=statistics,
    )
    if by is not None:
        summary["by"] = slice_summary(file, prepared.rows, scored, by, extracting_graders(summary["config"]))
    agreement = run_agreement(file, prepared, config, scored)
    if agreement:
        summary["harness_agreement"] = agreement
    return ScoreRun(file, mapping, prepared, scored, summary)


def score_file(
    source: str | os.PathLike[str] | bytes,
    config: RunConfig | Mapping[str, Any] | str | os.PathLike[str],
    *,
    format: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    include_output: bool = False,
    workers: int | None = None,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    by: str | None = None,
) -> ScoreRun:
    """Read ``source``, map its columns (suggestions overridden by the configuration),
    leave out what cannot be scored, score the rest and summarize. ``config``: a
    ``RunConfig``, its JSON form as a dict, or the path of its JSON file. ``by``: a column
    whose values slice the figures (the summary's ``by`` section, ``scoring.slices``)."""
    config = as_run_config(config)
    workers, max_bytes = check_workers(workers), check_max_bytes(max_bytes)
    file = read_results(source, format=format, max_bytes=max_bytes)
    return score_prepared(
        file, config, include_output=include_output, workers=workers, progress=progress, cancel=cancel, by=by
    )


def score_path(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    config: RunConfig | Mapping[str, Any] | str | os.PathLike[str],
    *,
    write_to: Any,
    format: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    header: bool = True,
    include_output: bool = False,
    workers: int | None = None,
) -> ScoreRun | PartsRun:
    """``score_file`` for the file at ``path`` (or several files, read as one as
    ``readers.several.read_several`` reads them), its scored CSV written to ``write_to`` (a
    path, replaced whole at the end, or a binary file): CSV, TSV and JSON lines files are
    scored a block at a time (``readers.chunks``, ``scoring.stream``: the run holds a few
    blocks' rows, ``chunks.BLOCK_BYTES``, whatever the files' size), with the same scored
    file and summary; one file no larger than a block, or any other, is read whole
    (``score_prepared``). Returns a ``PartsRun`` or a ``ScoreRun``: both have ``summary``."""
    from graders.readers.chunks import NotStreamable, plan_files, read_planned
    from graders.readers.several import read_several
    from graders.scoring.stream import NoRows, score_blocks, scored_output

    config = as_run_config(config)
    workers, max_bytes = check_workers(workers), check_max_bytes(max_bytes)
    paths = [os.fspath(path)] if isinstance(path, (str, os.PathLike)) else [os.fspath(p) for p in path]
    try:
        blocks = plan_files(paths, format=format, max_bytes=max_bytes, header=header)
    except NotStreamable:
        blocks = None
    if blocks is not None:
        shape = ResultsFile(frame=None, records=(), format=blocks.format, unreadable=(), columns=blocks.columns)
        try:
            with scored_output(write_to) as out:
                spool = os.path.dirname(os.path.abspath(write_to)) if isinstance(write_to, (str, os.PathLike)) \
                    and os.fspath(write_to) != STDOUT else None  # beside the output: its disk, not a RAM one
                return score_blocks(lambda: read_planned(blocks), blocks.columns, config, resolve_mapping(shape, config),
                                    out=out, include_output=include_output, workers=workers or 1, spool=spool)
        except (NotStreamable, NoRows):  # nothing written: read whole, which says what is wrong
            pass
    file = read_several(paths, format=format, max_bytes=max_bytes, header=header)
    return score_prepared(file, config, include_output=include_output, workers=workers, write_to=write_to)
