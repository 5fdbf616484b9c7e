"""What the run writes: SPEC §6's cells, the scored CSV, and files replaced whole.

Cells: a score as ``repr`` of its float, ``pass`` as ``true``/``false``/empty, and every
CSV written as the product writes it (each cell as text, RFC 4180 quoting, UTF-8, a lone
surrogate as its backslash escape). A new path or a regular file is written beside itself
and renamed into place when the run ends (``replacement``): a failed run leaves the old
file as it was and no temporary file behind; a link, a device or a pipe is written through
(``replaced_whole``). A command's files are replaced together (``written_together``): the
scored file and its summary are renamed only once both are complete, under a lock.
What the command line writes besides: its report.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager
from contextvars import ContextVar
from typing import IO, TYPE_CHECKING, Any, Iterator, Sequence, TextIO

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: a pair's renames are not locked there
    fcntl = None  # type: ignore[assignment]

from graders.result import Grade

if TYPE_CHECKING:  # types only: the command line imports this module before it needs pandas
    import numpy as np
    import pandas as pd

SCORED_COLUMNS = ("item", "system", "repeat", "scorer", "score", "pass", "error", "near_miss", "explanation", "metadata")


class OutputError(OSError):
    """The scored file could not be written."""


def format_score(score: float | None) -> str:
    return "" if score is None or (isinstance(score, float) and math.isnan(score)) else repr(float(score))


_PASS_CELL = {True: "true", False: "false", None: ""}
_QUOTE, _QUOTES = '"', '""'


def grade_cells(g: Grade) -> tuple[str, str, str, str]:
    """(score, pass, error, near_miss) cells of the scored file for one grade."""
    if g.status == "not_judged":
        err = "not-judged"
    elif g.status == "error":
        err = g.explanation
    else:
        err = ""
    return format_score(g.score), _PASS_CELL[g.passed], err, ";".join(g.near_miss) if g.near_miss else ""


def replaced_whole(path: str) -> bool:
    """Whether the scored file at ``path`` is written to a temporary file beside it and
    renamed into place (a failed run leaves the old file as it was): for a new path or a
    regular file. Anything else is written through in place: renaming over a symbolic
    link would replace the link, over ``/dev/stdout`` (a link too, as root) the device
    entry, and a named pipe's reader would never see the file."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:  # a new path; or one that cannot be looked at, which open will say why
        return True


def _append_file(path: str, fd: int) -> None:
    """Append the file at ``path`` to the open file ``fd`` at its offset, in the kernel
    (``copy_file_range``) where it can, by reading and writing where it cannot."""
    with open(path, "rb", buffering=0) as src:
        try:
            while os.copy_file_range(src.fileno(), fd, 1 << 30):
                pass
            return
        except (AttributeError, OSError):  # no such call here, or not between these files
            pass
        with open(fd, "wb", closefd=False) as dst:  # on from where the kernel copy stopped
            shutil.copyfileobj(src, dst)


def write_csv(frame: pd.DataFrame, path_or_buffer: Any, columns: Sequence[str]) -> None:
    """Write these columns of ``frame`` as the product writes every CSV: each cell as text
    (None or NaN as ""), RFC 4180 quoting as pandas and the csv module write it (a cell is
    quoted when it holds ``,``, ``"``, CR or LF, a ``"`` doubled; a bare CR too, which
    they leave bare), LF line ends. Read back with ``dtype=str, keep_default_na=False`` it
    gives the same cells. To a path, lone surrogates, which UTF-8 cannot hold, are written
    as backslash escapes; a text buffer gets the text as is."""
    columns = list(columns)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        with open(path_or_buffer, "wb") as raw:  # encoding each block ourselves is faster than a text wrapper
            _write_lines(_Utf8Writer(raw), frame, columns)
    else:
        _write_lines(path_or_buffer, frame, columns)


def scored_header(include_output: bool = False) -> bytes:
    """The scored CSV's header line as ``score_to_csv`` writes it: SPEC §6's columns, and
    ``output`` when asked."""
    return (",".join(map(csv_cell, list(SCORED_COLUMNS) + (["output"] if include_output else []))) + "\n").encode("utf-8")


def write_scored(scored: pd.DataFrame, path_or_buffer: Any, *, include_output: bool = False) -> None:
    """Write the scored CSV (``write_csv``): SPEC §6's columns, and ``output`` when asked."""
    write_csv(scored, path_or_buffer, list(SCORED_COLUMNS) + (["output"] if include_output and "output" in scored.columns else []))


def csv_bytes(frame: pd.DataFrame, columns: Sequence[str]) -> bytes:
    """``write_csv``'s bytes, for a download."""
    import io

    buf = io.StringIO()
    write_csv(frame, buf, columns)
    return buf.getvalue().encode("utf-8", errors="backslashreplace")


# Rows joined per write: bounded memory for any file size, and (as ``_PIECE_ROWS``) texts
# small enough to stay in the cache: 100,000 rows at a time took twice as long.
_WRITE_ROWS = 2000


class _Utf8Writer:
    """``write(text)`` to a binary file as UTF-8, lone surrogates as backslash escapes."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def write(self, text: str) -> None:
        self.raw.write(text.encode("utf-8", "backslashreplace"))


def csv_cell(value: Any) -> str:
    """One cell as ``csv.writer`` (QUOTE_MINIMAL) writes it, except that a bare CR is
    quoted too (csv.writer with LF line ends leaves it bare, and readers split there)."""
    if not isinstance(value, str):
        value = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    if '"' in value:
        return '"' + value.replace('"', '""') + '"'
    if "," in value or "\n" in value or "\r" in value:
        return '"' + value + '"'
    return value


def _csv_column(values: list[Any]) -> list[str]:
    """A column's cells quoted; a column of few distinct values quotes each once."""
    distinct = set(values) if len(values) > 64 else None
    if distinct is not None and len(distinct) * 4 < len(values):
        memo = {v: csv_cell(v) for v in distinct}
        return [memo[v] for v in values]
    try:  # csv_cell inlined for text cells; anything else raises TypeError on `in`
        return [
            f'"{v.replace(_QUOTE, _QUOTES)}"' if _QUOTE in v else (f'"{v}"' if ("," in v or "\n" in v or "\r" in v) else v)
            for v in values
        ]
    except TypeError:
        return [csv_cell(v) for v in values]


def _csv_block(arrays: Sequence[np.ndarray]) -> str:
    """The lines of these columns' cells (object arrays), each line ended by LF."""
    cells = [_csv_column(arr.tolist()) for arr in arrays]
    if len(cells) == 1:  # a lone empty cell would be a blank line, which readers skip
        cells = [['""' if c == "" else c for c in cells[0]]]
    lines = list(map(",".join, zip(*cells)))
    lines.append("")
    return "\n".join(lines)


def _write_lines(f: Any, scored: pd.DataFrame, columns: list[str]) -> None:
    f.write(",".join(map(csv_cell, columns)) + "\n")
    n = len(scored)
    arrays = [scored[c].to_numpy(dtype=object) for c in columns]
    for a in range(0, n, _WRITE_ROWS):
        b = min(n, a + _WRITE_ROWS)
        f.write(_csv_block([arr[a:b] for arr in arrays]))


def scored_csv_bytes(scored: pd.DataFrame, *, include_output: bool = False) -> bytes:
    return csv_bytes(scored, list(SCORED_COLUMNS) + (["output"] if include_output and "output" in scored.columns else []))


STDOUT = "-"  # a file name that means standard output


def is_stdout(path: str | None) -> bool:
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


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one regular file, existing or new (a device such as
    /dev/null may take both)."""
    try:
        return os.path.samefile(a, b) and stat.S_ISREG(os.stat(a).st_mode)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def write_report(text: str, to_stderr: bool = False) -> None:
    """Print the report on stdout (stderr when a file goes there); a closed pipe (``| head``)
    ends the printing, not the run; another failure to write it is one line on stderr."""
    stream = sys.stderr if to_stderr else sys.stdout
    try:
        stream.write(text)
        stream.flush()
    except OSError as e:
        if not isinstance(e, BrokenPipeError):
            print(f"gradeboard: could not print the report: {e.strerror or e}", file=sys.stderr)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())  # Python's final flush must not fail again


def report_to_stderr(out: str | None, summary: str | None) -> bool:
    """Whether the command's report goes to stderr: a file goes to standard output, and the
    two must not interleave. ``ValueError`` when both files go to standard output or name
    the same file."""
    to_out, to_summary = is_stdout(out), is_stdout(summary)
    if to_out and to_summary:
        raise ValueError("--out and --summary cannot both go to standard output")
    if not (to_out or to_summary) and out and summary and same_file(out, summary):
        raise ValueError(f"--out and --summary name the same file ({out}); one would replace the other")
    return to_out or to_summary


def _open(path: str, mode: str, binary: bool) -> IO:
    if binary:
        return open(path, mode + "b")
    return open(path, mode, encoding="utf-8", errors="backslashreplace", newline="")


def _discard(f: IO, path: str) -> None:
    """Close ``f`` and remove its file, whatever the close says: on a full disk the write
    failed, and the close's flush of what is still buffered fails again."""
    try:
        f.close()
    except OSError:
        pass
    try:
        os.remove(path)
    except OSError:
        pass


@contextmanager
def replacement(path: str, *, binary: bool = False) -> Iterator[IO]:
    """A new file beside ``path`` (``<path>.<pid>-<hex>.part``: the same file system, so the
    rename is atomic; "x" refuses a clash), renamed over ``path`` when the block ends without
    an error — inside ``written_together`` naming ``path``, when that block ends — and closed
    and removed when it does not, even when the close fails too (the old file stays as it
    was). Text is UTF-8, a lone surrogate as its backslash escape. Raises ``OSError``."""
    tmp = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.part"
    f = _open(tmp, "x", binary)
    placed = False
    try:
        yield f
        f.close()
        _place(tmp, path)
        placed = True
    finally:
        if not placed:
            _discard(f, tmp)


@contextmanager
def text_output(path: str) -> Iterator[TextIO]:
    """A text file the run writes at its end, opened at its start, so that a path that
    cannot be written fails before anything is scored. Standard output for ``-``; a new
    path or a regular file through ``replacement``; anything else (a link, a device, a
    named pipe) written through (``replaced_whole``). Raises ``OutputError``."""
    if path == STDOUT:
        yield sys.stdout
        try:
            sys.stdout.flush()
        except OSError as e:
            raise OutputError(e.errno, f"cannot write standard output: {e.strerror or e}") from None
        return
    try:
        with (replacement(path) if replaced_whole(path) else _open(path, "w", False)) as f:
            yield f
    except OSError as e:
        if isinstance(e, OutputError):
            raise
        raise OutputError(e.errno, f"cannot write {path!r}: {e.strerror or e}") from None


# --- Files written together ------------------------------------------------------------

class _Together:
    """The targets of a ``written_together`` block ({absolute path: the path as given}) and
    the complete files waiting beside them."""

    def __init__(self, targets: dict[str, str]) -> None:
        self.targets = targets
        self.waiting: dict[str, str] = {}  # target -> its complete temporary file

    def discard(self) -> None:
        for tmp in self.waiting.values():
            try:
                os.remove(tmp)
            except OSError:
                pass
        self.waiting.clear()

    def commit(self) -> None:
        """Rename every waiting file into place, holding each target's lock (in one order,
        so two runs sharing a file never wait on each other's second lock). Should a rename
        fail, the files already renamed are put back (from a hard link to each old file)."""
        held: list[tuple[Any, Any]] = []
        placed: list[tuple[str, str | None]] = []  # (target, a link to its old file; None: a new path, "": no link)
        target = ""
        try:
            for target in sorted(self.waiting):
                held.append(_lock(target))
            for target, tmp in self.waiting.items():
                old: str | None = tmp + ".old"
                try:
                    os.link(target, old)
                except FileNotFoundError:
                    old = None
                except OSError:  # a file system without hard links: this one cannot be put back
                    old = ""
                placed.append((target, old))
                os.replace(tmp, target)
            self.waiting.clear()
        except OSError as e:
            for done, old in reversed(placed):
                try:
                    if old:
                        os.replace(old, done)
                    elif old is None:
                        os.remove(done)
                except OSError:
                    pass
            raise OutputError(e.errno, f"cannot write {self.targets[target]!r}: {e.strerror or e}") from None
        finally:
            for _, old in placed:
                if old:
                    try:
                        os.remove(old)
                    except OSError:
                        pass
            for lock in reversed(held):
                _unlock(*lock)
            self.discard()


_TOGETHER: ContextVar[_Together | None] = ContextVar("gradeboard_written_together", default=None)


def _place(tmp: str, path: str) -> None:
    """A complete file into place: renamed now, or left waiting for its ``written_together``."""
    together = _TOGETHER.get()
    target = os.path.abspath(path)
    if together is None or target not in together.targets:
        os.replace(tmp, path)
        return
    old = together.waiting.pop(target, None)
    if old is not None:  # written twice in one block: the last one counts
        os.remove(old)
    together.waiting[target] = tmp


@contextmanager
def written_together(*paths: str | None) -> Iterator[None]:
    """A command's output files (``--out``, ``--summary``) replaced as one: each of ``paths``
    that ``replacement`` writes inside the block (``text_output``, the scored CSV's writer)
    waits, once complete, beside its target; when the block ends without an error all are
    renamed into place, and when it fails (a summary on a full disk, an interrupt) all are
    removed, so the old pair stays as it was. The renames hold a lock on each target
    (``<path>.lock`` beside it, ``fcntl.flock``, removed afterwards): two runs writing the
    same files leave one run's pair, never a file of each. Standard output, devices, pipes
    and links are written through as they are written (``replaced_whole``): they cannot wait."""
    targets = {os.path.abspath(p): p for p in paths if p and p != STDOUT and replaced_whole(p)}
    together = _Together(targets)
    token = _TOGETHER.set(together)
    try:
        yield
        together.commit()
    finally:
        _TOGETHER.reset(token)
        together.discard()


def _lock(target: str) -> tuple[int, str] | tuple[None, None]:
    """Hold the lock file beside ``target``: (its descriptor, its path). A run that waited
    on a lock file the holder then removed opens the new one (its lock would guard nothing)."""
    if fcntl is None:
        return None, None
    name = target + ".lock"
    while True:
        fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.path.samestat(os.fstat(fd), os.stat(name)):
                return fd, name
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _unlock(fd: int | None, name: str | None) -> None:
    if fd is None or name is None:
        return
    try:
        os.remove(name)  # while still held: a run waiting on it then opens a new one
    except OSError:
        pass
    os.close(fd)


# --- Spreadsheet-safe copies -----------------------------------------------------------

# A cell a spreadsheet would read as a formula (OWASP's CSV injection advice): one starting
# with = + - @, a tab or a CR. A plain number (-0.25, +3, 1e-5) is left alone: it is no
# formula, and prefixing it would turn a column of differences into text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\Z")


def spreadsheet_cell(value: str) -> str:
    """``value`` with a ``'`` in front when a spreadsheet would run it as a formula."""
    if value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.match(value):
        return "'" + value
    return value


def spreadsheet_safe(src: Any, dst: Any) -> None:
    """Copy the CSV in the binary file ``src`` to the binary file ``dst`` with every cell a
    spreadsheet would run as a formula prefixed with ``'`` (``spreadsheet_cell``), each cell
    written as ``csv_cell`` writes it. Row by row: a file of any size. The exact file stays
    the default everywhere: tools read it back cell for cell; this copy is for opening in a
    spreadsheet."""
    reader = csv.reader(io.TextIOWrapper(src, encoding="utf-8", errors="surrogateescape", newline=""))
    out = io.TextIOWrapper(dst, encoding="utf-8", errors="surrogateescape", newline="", write_through=True)
    try:
        lines = []
        for row in reader:
            lines.append(",".join(csv_cell(spreadsheet_cell(c)) for c in row) + "\n")
            if len(lines) >= _WRITE_ROWS:
                out.write("".join(lines))
                lines.clear()
        out.write("".join(lines))
        out.flush()
    finally:
        out.detach()


def spreadsheet_safe_bytes(data: bytes) -> bytes:
    """``spreadsheet_safe`` of a CSV held in memory (a dashboard download)."""
    dst = io.BytesIO()
    spreadsheet_safe(io.BytesIO(data), dst)
    return dst.getvalue()


@contextmanager
def spreadsheet_safe_output(path: str) -> Iterator[str]:
    """A temporary path to write the exact CSV to; when the block ends without an error,
    its spreadsheet-safe copy goes to ``path`` (``text_output``: replaced whole, or standard
    output for ``-``). The temporary file is removed either way."""
    fd, tmp = tempfile.mkstemp(prefix="gradeboard-", suffix=".csv")
    os.close(fd)
    try:
        yield tmp
        with open(tmp, "rb") as src, text_output(path) as out:
            target = out.buffer if hasattr(out, "buffer") else out
            out.flush()
            spreadsheet_safe(src, target)
    finally:
        try:
            os.remove(tmp)
        except OSError:
            pass
