"""Several results files read as one (``gradeboard score a.jsonl b.jsonl``, ``gradeboard
compare RUN_A RUN_B``), and plain-text segment files (``--ref`` / ``--hyp``).

Several files: each is read as ``read_results`` reads it, then the frames are stacked in
the order given. A file without a ``version`` column is one system, named after the file
(``runs/model-a.jsonl`` -> ``model-a``; the whole path where two names clash), so two runs
of the same cases pair up by id and repeat. Record numbers go on from file to file (the
second file's first record follows the first file's last), and a ``file`` column names
each row's file, so the left-out report's row numbers stay unambiguous.
"""

from __future__ import annotations

import os
from typing import Sequence

import pandas as pd

from graders.readers.files import read_results
from graders.readers.frame import DEFAULT_MAX_BYTES, ResultsFile, ResultsFileError


def system_names(paths: Sequence[str]) -> list[str]:
    """Each file's system name: its name without the extension, or its path where names clash."""
    stems = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    return [s if stems.count(s) == 1 else p for s, p in zip(stems, paths)]


def read_several(paths: Sequence[str], *, format: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 header: bool = True) -> ResultsFile:
    """The files at ``paths`` as one ``ResultsFile`` (one path: ``read_results`` itself)."""
    if len(paths) == 1:
        return read_results(paths[0], format=format, max_bytes=max_bytes, header=header)
    if len(set(map(os.path.realpath, paths))) != len(paths):
        raise ResultsFileError("the same file is named twice")
    return _stacked(paths, [(lambda p=p: read_results(p, format=format, max_bytes=max_bytes, header=header))
                            for p in paths])


def read_uploads(files: Sequence[tuple[str, bytes]], *, max_bytes: int = DEFAULT_MAX_BYTES,
                 header: bool = True) -> ResultsFile:
    """Files given as (name, bytes) — the dashboard's uploads of two runs — as one
    ``ResultsFile``, as ``read_several`` reads files of those names."""
    names = [name for name, _ in files]
    if len(set(names)) != len(names):
        raise ResultsFileError(f"two files are named {next(n for n in names if names.count(n) > 1)!r}: "
                               "each run is named after its file, so rename one")
    if len(files) == 1:
        return read_results(files[0][1], name=names[0], max_bytes=max_bytes, header=header)
    return _stacked(names, [(lambda n=n, d=d: read_results(d, name=n, max_bytes=max_bytes, header=header))
                            for n, d in files])


def _stacked(paths: Sequence[str], reads: Sequence) -> ResultsFile:
    """Each file read (``reads``, one call a file) and stacked in order: its system named
    after its path where it has no version column, record numbers going on, a file column."""
    frames, records, unreadable, columns, formats = [], [], [], {}, []
    offset = 0
    for path, system, read in zip(paths, system_names(paths), reads):
        try:
            f = read()
        except ResultsFileError as e:
            raise ResultsFileError(f"{os.path.basename(path)}: {e}") from None
        frame = f.frame.copy()
        if "version" not in frame.columns:
            frame["version"] = system
        frame["file"] = os.path.basename(path)
        frames.append(frame)
        records += [offset + r for r in f.records]
        unreadable += [(offset + r, why) for r, why in f.unreadable]
        last = max([0, *f.records, *(r for r, _ in f.unreadable)])
        offset += last
        columns.update(dict.fromkeys(frame.columns))
        formats.append(f.format)
    order = list(columns)
    frame = pd.concat([fr.reindex(columns=order) for fr in frames], ignore_index=True)
    frame = frame.astype(object).where(frame.notna(), None)
    frame.columns = pd.Index(order, dtype=object)
    return ResultsFile(frame=frame, records=tuple(records), format="+".join(dict.fromkeys(formats)),
                       unreadable=tuple(unreadable), columns=tuple(order))


def read_segment_files(refs: Sequence[str], hyps: Sequence[str]) -> ResultsFile:
    """Reference and hypothesis segment files (one segment a line, as sacrebleu reads them):
    one row per line and system, each system named after its file."""
    from graders.readers import segments

    def data(path: str) -> bytes:
        try:
            with open(path, "rb") as fh:
                return fh.read()
        except OSError as e:
            raise ResultsFileError(f"cannot read {path!r}: {e.strerror or e}") from None

    if not refs or not hyps:
        raise ResultsFileError("segment files need at least one --ref and one --hyp")
    return segments.read([data(r) for r in refs], {os.path.basename(h): data(h) for h in hyps},
                         ref_names=[os.path.basename(r) for r in refs])


def read_inputs(files: Sequence[str], refs: Sequence[str] = (), hyps: Sequence[str] = (), *, most: int | None = None,
                format: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES, header: bool = True) -> ResultsFile:
    """What the command line was given: results files (``read_several``; at most ``most``)
    or reference and hypothesis segment files, not both. ``ResultsFileError``."""
    if refs or hyps:
        if files:
            raise ResultsFileError("give results files or --ref/--hyp segment files, not both")
        return read_segment_files(refs, hyps)
    if not files:
        raise ResultsFileError("no results file given")
    if most is not None and len(files) > most:
        raise ResultsFileError(f"compare takes one file with both sides or two runs, not {len(files)} files")
    return read_several(files, format=format, max_bytes=max_bytes, header=header)


def first_versions(file: ResultsFile, paths: Sequence[str]) -> tuple[str | None, str | None]:
    """For two runs compared: (A, B) = the systems of the first and second file, when each
    file holds one system; (None, None) otherwise (``--a`` / ``--b`` choose)."""
    if len(paths) != 2 or "file" not in file.frame.columns:
        return None, None
    names = [os.path.basename(p) for p in paths]
    versions = []
    for name in names:
        v = pd.unique(file.frame.loc[file.frame["file"].to_numpy() == name, "version"].to_numpy(dtype=object))
        if len(v) != 1:
            return None, None
        versions.append(v[0])
    return versions[0], versions[1]


__all__ = ["read_inputs", "read_several", "read_segment_files", "read_uploads", "first_versions", "system_names"]
