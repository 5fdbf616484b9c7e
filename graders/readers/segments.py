"""Read plain-text segment files (one segment a line), as sacrebleu reads them (SPEC §10).

``gradeboard score --ref ref.txt [--ref ref2.txt] --hyp sys1.txt [--hyp sys2.txt]``.

Lines as sacrebleu 2.x's command line splits them: it opens each file as UTF-8 text with
``newline="\\n"`` and iterates over its lines, then ``rstrip()``s each one. So only
``"\\n"`` ends a line (a ``"\\r"`` or ``U+2028`` inside a line stays in it, until the
strip); trailing whitespace of every kind Python's ``str.rstrip()`` removes is dropped
(``"\\r"`` of a CRLF file, trailing spaces and tabs); leading whitespace is kept; a final
line without ``"\\n"`` is a line; a file ending in ``"\\n"`` has no empty line after it.
Quotes and tabs are ordinary characters. One difference: a UTF-8 byte-order mark at the
start of a file is removed (sacrebleu, reading ``utf-8`` rather than ``utf-8-sig``, would
keep U+FEFF at the start of the first segment).

A long frame, one row per hypothesis line and system: ``id`` (the 1-based line number),
``version`` (the system: the hypothesis file's name without its directory and extension),
``expected`` and ``expected_kind`` (one reference file: its line, ``exact``; several: a
JSON array of their lines, ``any-of``), ``output`` (the hypothesis line). The record
number of a row is its line number. Every file must have as many lines as the first
reference, else one ``ResultsFileError`` names both counts.
"""

from __future__ import annotations

import json
import os
from typing import Mapping, Sequence

from graders.readers._common import ResultsFile, ResultsFileError, build

__all__ = ["FORMAT", "read", "segments", "system_name"]

FORMAT = "segments"
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def segments(data: bytes, what: str = "the file") -> list[str]:
    """The segments of one file, as sacrebleu reads them (module docstring)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsFileError(
            f"{what} is not UTF-8 text: byte 0x{data[exc.start]:02x} at byte offset {exc.start}"
        ) from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the "\n" ending the last line does not start another
    return [line.rstrip() for line in lines]


def system_name(name: str) -> str:
    """A system's name: its file name without directory and extension (``out/sys1.txt``
    → ``sys1``; ``sys1.de.txt`` → ``sys1.de``)."""
    base = os.path.basename(name)
    stem = os.path.splitext(base)[0]
    return stem or base


def read(ref_bytes_list: Sequence[bytes], hyp_bytes_by_name: Mapping[str, bytes],
         ref_names: Sequence[str] | None = None) -> ResultsFile:
    """References (one file each) and hypotheses (by file name) into a long frame.
    ``ref_names`` (the reference files' names) only makes messages clearer."""
    if not ref_bytes_list:
        raise ResultsFileError("no reference file given (--ref)")
    if not hyp_bytes_by_name:
        raise ResultsFileError("no hypothesis file given (--hyp)")
    names = list(ref_names) if ref_names else [f"reference file {i}" for i in range(1, len(ref_bytes_list) + 1)]
    refs = [segments(data, names[i]) for i, data in enumerate(ref_bytes_list)]
    n = len(refs[0])
    for i, ref in enumerate(refs[1:], 1):
        if len(ref) != n:
            raise ResultsFileError(
                f"the reference files have different line counts: {names[0]} has {n} lines, {names[i]} has {len(ref)}"
            )
    if len(refs) == 1:
        expected, kind = refs[0], "exact"
    else:
        expected, kind = [_dumps(list(group)) for group in zip(*refs)], "any-of"

    systems: dict[str, str] = {}
    rows: list[dict[str, str | None]] = []
    records: list[int] = []
    for name, data in hyp_bytes_by_name.items():
        system = system_name(name)
        if system in systems:
            raise ResultsFileError(
                f"two hypothesis files name the same system {system!r} ({systems[system]} and {name}); rename one"
            )
        systems[system] = name
        hyp = segments(data, name)
        if len(hyp) != n:
            raise ResultsFileError(
                f"the hypothesis file {name} has {len(hyp)} lines and the reference {names[0]} has {n}; "
                "each line is one segment, so the counts must match"
            )
        for i, line in enumerate(hyp):
            rows.append({"id": str(i + 1), "version": system, "expected": expected[i],
                         "expected_kind": kind, "output": line})
            records.append(i + 1)
    if not rows:
        raise ResultsFileError("the segment files are empty")
    return build(rows, records, FORMAT, (), ("id", "version", "expected", "expected_kind", "output"))
