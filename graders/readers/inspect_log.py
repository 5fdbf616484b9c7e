"""Read Inspect (inspect_ai) eval logs: ``.eval`` archives and ``.json`` logs (SPEC §10).

``.eval`` is a zip archive: ``header.json`` (or, for a log still being written,
``_journal/start.json``) holds the eval spec, ``samples/<id>_epoch_<n>.json`` one sample
each. Current Inspect compresses members with Zstandard (zip method 93), which Python
3.11's ``zipfile`` cannot open: such members are read with the ``zstandard`` package
(an optional import: without it, one message saying ``pip install zstandard``); stored and
deflated members as ``zipfile`` reads them. Each member's CRC-32 is checked. ``.json`` is
one JSON document with ``eval`` and ``samples``; its samples are decoded one at a time as
the file is read (``_common.decode_streaming``), each freed once it is a row.

One row per sample, in Inspect's own order (epoch, then id; an integer id sorts as its
decimal text zero-filled to 20 places, as ``inspect_ai.log`` sorts them: the ``.json`` log
is written in that order, the ``.eval`` archive's members are sorted so), so the two
formats of one run read to the same frame; the record number is the 1-based place in that
order (an unreadable ``.eval`` member is placed by its name, ``<id>_epoch_<n>``).

Columns (cells by ``_common.text``; absent = ``None``):

- ``id``: the sample id; ``repeat``: the epoch (1-based, as Inspect numbers them);
  ``version``: the eval's model (``eval.model``).
- ``input``: a string input as it is; a list of chat messages as compact JSON.
- ``expected``: the target. A string target: as it is, ``expected_kind`` = ``exact``; a
  list target: a JSON array, ``expected_kind`` = ``any-of`` (Inspect's ``match`` and
  ``includes`` pass on any of them). Inspect's "no target" (``""`` or ``[]``) is absent.
- ``output``: ``output.completion``, the text of the model's final answer.
- ``harness.<scorer>.value`` / ``.answer`` / ``.explanation`` for each score
  (a value that is a list or an object: compact JSON); ``harness.error``: the sample's
  error message when it has one.
- ``metadata.KEY``: the sample's metadata one level deep (deeper values compact JSON).

Fatal problems (a cut-off archive, a JSON of another shape, no samples) raise one
``ResultsFileError`` naming what is missing; a sample member that cannot be read (damaged,
not JSON) or a sample that is not an object is listed in ``unreadable`` with the reason.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from typing import Any

from graders.readers._common import (
    STREAMED,
    ResultsFile,
    ResultsFileError,
    build,
    compact,
    decode,
    decode_streaming,
    decode_utf8,
    no_gc,
    scalar_or_none,
    text,
)
from graders.text.show import quoted_name

__all__ = ["FORMAT_EVAL", "FORMAT_JSON", "looks_like", "read", "read_eval", "read_json"]

FORMAT_EVAL = "inspect-eval"
FORMAT_JSON = "inspect-json"
_ZSTD = 93  # zip compression method of Zstandard
_FIRST = ("id", "version", "repeat", "input", "expected", "expected_kind", "output")


def looks_like(doc: Any) -> bool:
    """Whether a decoded JSON document is an Inspect ``.json`` log: an object with an
    ``eval`` object naming its ``task`` and a ``status`` (``samples`` may be absent)."""
    return (type(doc) is dict and type(doc.get("eval")) is dict and "task" in doc["eval"]
            and "status" in doc)


def read(data: bytes) -> ResultsFile:
    """An Inspect log from its bytes: a zip (``.eval``) or JSON text (``.json``)."""
    with no_gc():
        if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
            return read_eval(data)
        return read_json(data)


# --------------------------------------------------------------------------- .json


def read_json(data: bytes | str) -> ResultsFile:
    text_ = decode_utf8(bytes(data), "the Inspect log") if not isinstance(data, str) else data
    rows: list[dict[str, str | None]] = []
    unreadable: list[tuple[int, str]] = []

    def add(sample: Any) -> None:  # one sample, as it is decoded
        if type(sample) is dict:
            rows.append(_row(sample, None))
        else:
            unreadable.append((len(rows) + len(unreadable) + 1, "is not a JSON object"))

    with no_gc():
        try:
            doc = decode_streaming(text_, ("samples",), add)
        except json.JSONDecodeError as exc:
            raise ResultsFileError(
                f"the Inspect log is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            ) from None
        except RecursionError:
            raise ResultsFileError("the Inspect log is nested too deeply to read") from None
        if type(doc) is not dict:
            raise ResultsFileError("not an Inspect log: the document is not a JSON object")
        spec = doc.get("eval")
        if type(spec) is not dict:
            keys = ", ".join(map(quoted_name, list(doc)[:8])) or "none"
            raise ResultsFileError(f'not an Inspect log: it has no "eval" object (its keys: {keys})')
        samples = doc.get("samples")
        if samples is None:
            raise ResultsFileError(
                'the Inspect log has no "samples" (was it written with log_samples=False, or is it a header only?)'
            )
        if samples is not STREAMED:
            raise ResultsFileError('the Inspect log\'s "samples" is not a list')
        version = scalar_or_none(spec.get("model"))
        for row in rows:
            row["version"] = version
        records = sorted(set(range(1, len(rows) + len(unreadable) + 1)) - {n for n, _ in unreadable})
        return _finish(rows, records, unreadable, FORMAT_JSON)


# --------------------------------------------------------------------------- .eval


def read_eval(data: bytes) -> ResultsFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ResultsFileError(
            f"the Inspect .eval archive is cut off or damaged: the zip directory at its end is missing "
            f"({len(data):,} bytes; was the file truncated or copied while being written?)"
        ) from None
    except (NotImplementedError, ValueError, OSError, EOFError, struct.error) as exc:
        raise ResultsFileError(
            f"the Inspect .eval archive is damaged: its zip directory cannot be read ({exc})"
        ) from None
    names = archive.namelist()
    spec = None
    damaged = None
    for member in ("header.json", "_journal/start.json"):
        if member in names:
            try:
                head = _member_json(archive, data, member)
            except _BadMember as exc:
                damaged = f"{member} {exc}"
                continue
            if type(head) is dict and type(head.get("eval")) is dict:
                spec = head["eval"]
                break
    if spec is None:
        if damaged:
            raise ResultsFileError(f"the Inspect .eval log's eval spec cannot be read: {damaged}")
        raise ResultsFileError(
            "not an Inspect .eval log: the archive has neither header.json nor _journal/start.json with an eval spec"
        )
    members = [n for n in names if n.startswith("samples/") and n.endswith(".json")]
    if not members:
        raise ResultsFileError("the Inspect .eval log holds no samples (no samples/*.json members)")
    # (order key, sample or None, reason): every member in Inspect's own order (and so the
    # .json log's), an unreadable one placed by its name, samples/<id>_epoch_<n>.json.
    entries: list[tuple[tuple, Any, str]] = []
    for name in members:
        try:
            sample = _member_json(archive, data, name)
            if type(sample) is not dict:
                raise _BadMember("is not a JSON object")
        except _BadMember as exc:
            entries.append((_name_order(name), None, f"({name}) {exc}"))
            continue
        entries.append((_sample_order(sample), sample, ""))
    entries.sort(key=lambda e: e[0])
    samples = [e[1] for e in entries if e[1] is not None]
    records = [n for n, e in enumerate(entries, 1) if e[1] is not None]
    unreadable = [(n, e[2]) for n, e in enumerate(entries, 1) if e[1] is None]
    return _frame(samples, records, spec, unreadable, FORMAT_EVAL)


def _name_order(name: str) -> tuple:
    """The order key of a sample member from its name (Inspect names it by id and epoch)."""
    stem = name[len("samples/"):-len(".json")]
    sid, _, epoch = stem.rpartition("_epoch_")
    return (int(epoch) if epoch.isdigit() else 0, sid.zfill(20) if sid.isdigit() else sid)


class _BadMember(Exception):
    pass


def _member_json(archive: zipfile.ZipFile, data: bytes, name: str) -> Any:
    raw = _member_bytes(archive, data, name)
    try:
        return decode(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _BadMember("is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise _BadMember(f"is not valid JSON (column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise _BadMember("is nested too deeply to read") from None


def _member_bytes(archive: zipfile.ZipFile, data: bytes, name: str) -> bytes:
    info = archive.getinfo(name)
    if info.compress_type != _ZSTD:
        try:
            return archive.read(info)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as exc:
            raise _BadMember(f"cannot be read ({exc})") from None
    # Zstandard: the member's bytes from its local header, then decompressed here.
    offset = info.header_offset
    header = data[offset:offset + 30]
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        raise _BadMember("its local zip header is missing or damaged")
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    start = offset + 30 + name_len + extra_len
    raw = data[start:start + info.compress_size]
    if len(raw) < info.compress_size:
        raise _BadMember("is cut off")
    try:
        import zstandard
    except ImportError:
        raise ResultsFileError(
            "this Inspect .eval log is compressed with Zstandard; reading it needs the zstandard package: "
            "pip install zstandard"
        ) from None
    try:
        out = zstandard.ZstdDecompressor().decompressobj(read_across_frames=True).decompress(raw)
    except zstandard.ZstdError as exc:
        raise _BadMember(f"cannot be decompressed ({exc})") from None
    if zlib.crc32(out) != info.CRC or len(out) != info.file_size:
        raise _BadMember("is damaged (its checksum does not match)")
    return out


# --------------------------------------------------------------------------- samples → rows


def _sample_order(sample: dict) -> tuple:
    """Inspect's order (``inspect_ai.log._log.sort_samples``): epoch, then id, an integer
    id as its decimal text zero-filled to 20 places."""
    sid = sample.get("id")
    epoch = sample.get("epoch")
    return (epoch if type(epoch) is int else 0, sid if type(sid) is str else text(sid).zfill(20))


def _frame(samples: list, records: list[int], spec: dict, unreadable: list[tuple[int, str]],
           fmt: str) -> ResultsFile:
    version = scalar_or_none(spec.get("model"))
    rows = [_row(sample, version) for sample in samples]
    return _finish(rows, records, unreadable, fmt)


def _finish(rows: list[dict], records: list[int], unreadable: list[tuple[int, str]], fmt: str) -> ResultsFile:
    if not rows:
        if unreadable:
            number, reason = unreadable[0]
            raise ResultsFileError(f"no readable samples in the Inspect log (sample {number} {reason})")
        raise ResultsFileError("the Inspect log holds no samples")
    return build(rows, records, fmt, sorted(unreadable), _FIRST)


def _row(sample: dict, version: str | None) -> dict[str, str | None]:
    target = sample.get("target")
    if type(target) is str:
        expected, kind = (target, "exact") if target else (None, None)
    elif type(target) is list:
        expected, kind = (compact(target), "any-of") if target else (None, None)
    elif target is None:
        expected, kind = None, None
    else:
        expected, kind = text(target), "exact"
    output = sample.get("output")
    completion = output.get("completion") if type(output) is dict else None
    inp = sample.get("input")
    sid = sample.get("id")
    row: dict[str, str | None] = {
        "id": sid if type(sid) is str else scalar_or_none(sid),
        "version": version,
        "repeat": scalar_or_none(sample.get("epoch")),
        "input": inp if type(inp) is str else scalar_or_none(inp),
        "expected": expected,
        "expected_kind": kind,
        "output": completion if type(completion) is str else scalar_or_none(completion),
    }
    scores = sample.get("scores")
    if type(scores) is dict:
        for scorer, score in scores.items():
            if type(score) is not dict:
                continue
            prefix = "harness." + scorer
            value, answer, explanation = score.get("value"), score.get("answer"), score.get("explanation")
            row[prefix + ".value"] = value if type(value) is str else scalar_or_none(value)
            row[prefix + ".answer"] = answer if type(answer) is str else scalar_or_none(answer)
            row[prefix + ".explanation"] = explanation if type(explanation) is str else scalar_or_none(explanation)
    error = sample.get("error")
    if type(error) is dict and error.get("message") is not None:
        row["harness.error"] = text(error["message"])
    metadata = sample.get("metadata")
    if type(metadata) is dict:
        for key, value in metadata.items():
            row["metadata." + key] = value if type(value) is str else text(value)
    return row
