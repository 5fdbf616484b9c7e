"""A run fails whole, and leaves nothing behind (issue 32, 3 and 4).

``--out o.csv --summary s.json``: both files are written beside themselves and renamed only
when both are complete (``written_together``), so a summary that cannot be written (a full
disk, ``/dev/full``) leaves the old scored file as it was; two runs writing the same pair
take turns at the renames (a lock beside each file), so the pair is one run's. A scored file
that cannot be written (a full disk, whose buffered rest fails again on close) leaves the
old file, no ``o.csv.<pid>-<hex>.part`` and no spool folder.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from graders.cli import main
from graders.scoring import output
from graders.scoring.output import text_output, written_together

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "returns_desk.csv"
AB_LONG = ROOT / "sample_data" / "returns_ab_long.jsonl"
FULL = Path("/dev/full")
SOURCES = {"score": SAMPLE, "compare": AB_LONG}


def run(capsys, *args) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err


def old_pair(tmp_path: Path) -> tuple[Path, Path]:
    out, summary = tmp_path / "o.csv", tmp_path / "s.json"
    out.write_text("OLD\n")
    summary.write_text('{"old": true}\n')
    return out, summary


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------- the pair


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_summary_on_a_full_device_leaves_the_old_scored_file(tmp_path, capsys, command):
    out, _ = old_pair(tmp_path)
    code, err = run(capsys, command, SOURCES[command], "--grader", "exact", "--out", out, "--summary", FULL)
    assert code == 2 and err == "gradeboard: cannot write '/dev/full': No space left on device\n"
    assert out.read_text() == "OLD\n"
    assert names(tmp_path) == ["o.csv", "s.json"]  # no temporary file, no spool, no lock


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_summary_that_fails_at_its_rename_leaves_both_old_files(tmp_path, capsys, monkeypatch, command):
    """The last step of all (a read-only folder, a disk that fills at the rename): the
    scored file, complete by then, is not renamed either."""
    out, summary = old_pair(tmp_path)
    real = os.replace

    def replace(src, dst):
        if os.path.abspath(dst) == str(summary):
            raise OSError(errno.EROFS, "Read-only file system")
        real(src, dst)

    monkeypatch.setattr(output.os, "replace", replace)
    code, err = run(capsys, command, SOURCES[command], "--grader", "exact", "--out", out, "--summary", summary)
    assert code == 2 and "Read-only file system" in err and len(err.splitlines()) == 1
    assert out.read_text() == "OLD\n" and summary.read_text() == '{"old": true}\n'
    assert names(tmp_path) == ["o.csv", "s.json"]


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_pair_that_succeeds_replaces_both_and_leaves_no_lock(tmp_path, capsys, command):
    out, summary = old_pair(tmp_path)
    code, err = run(capsys, command, SOURCES[command], "--grader", "exact", "--out", out, "--summary", summary)
    assert code == 0, err
    assert out.read_text().startswith(("item,", "id,", "metric,")) and json.loads(summary.read_text())
    assert names(tmp_path) == ["o.csv", "s.json"]


def _write_pair(k: int, out: str, summary: str, first_renamed, go, slow: bool) -> None:
    """One run's pair, ``k`` in both files; ``slow``: pause after the first rename (where
    another run's renames would fall in between without the lock)."""
    real = os.replace

    def replace(src, dst):
        real(src, dst)
        if slow:
            first_renamed.set()
            go.wait(10)

    output.os.replace = replace
    with written_together(out, summary):
        with text_output(out) as f:
            f.write(f"run {k}\n")
        with text_output(summary) as f:
            f.write(f"run {k}\n")


@pytest.mark.timeout(120)
def test_two_processes_writing_one_pair_leave_one_runs_pair(tmp_path):
    """Run 0 renames its scored file and pauses; run 1 writes the same pair meanwhile. With
    the lock, run 1's renames wait for run 0's: the pair is run 1's, both files; without
    it, run 1's scored file and run 0's summary."""
    out, summary = old_pair(tmp_path)
    ctx = multiprocessing.get_context("fork")
    first_renamed, go = ctx.Event(), ctx.Event()
    slow = ctx.Process(target=_write_pair, args=(0, str(out), str(summary), first_renamed, go, True))
    slow.start()
    assert first_renamed.wait(30)
    fast = ctx.Process(target=_write_pair, args=(1, str(out), str(summary), first_renamed, go, False))
    fast.start()
    fast.join(1.5)  # the lock holds it: it is still waiting for run 0's
    waited = fast.is_alive()
    go.set()
    slow.join(30)
    fast.join(30)
    assert slow.exitcode == 0 and fast.exitcode == 0
    assert (out.read_text(), summary.read_text()) == ("run 1\n", "run 1\n")
    assert waited
    assert names(tmp_path) == ["o.csv", "s.json"]


@pytest.mark.timeout(300)
def test_two_command_lines_writing_one_pair_leave_a_matching_pair(tmp_path):
    """Two ``gradeboard score`` runs of different files to the same --out and --summary, at
    once, three times: the summary always counts the rows of the scored file beside it."""
    small = tmp_path / "small.csv"
    small.write_text("id,expected,output\n" + "".join(f"s{i},a,a\n" for i in range(7)))
    out, summary = old_pair(tmp_path)
    for _ in range(3):
        runs = [subprocess.Popen([sys.executable, "-m", "graders", "score", str(src), "--grader", "exact",
                                  "--out", str(out), "--summary", str(summary)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True) for src in (SAMPLE, small)]
        for p in runs:
            assert p.wait(120) == 0, p.stderr.read()
        rows = len(pd.read_csv(out, dtype=str))
        assert json.loads(summary.read_text())["graders"]["exact"]["graded"] == rows
    assert names(tmp_path) == ["o.csv", "s.json", "small.csv"]


# --------------------------------------------------------------------------- leftovers


class _FullDisk:
    """A file on a disk that fills after ``room`` bytes: the write that passes it fails, and
    so does the close's flush of what is still buffered (the real file is closed)."""

    def __init__(self, f, room: int) -> None:
        self._f, self._room = f, room

    def write(self, data):
        self._room -= len(data)
        if self._room < 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._f.write(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def close(self):
        self._f.close()
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _fill_after(monkeypatch, room: int) -> None:
    """Every file the run writes beside its target, on a disk that fills after ``room``."""
    real = open

    def fake(path, mode="r", *args, **kwargs):
        f = real(path, mode, *args, **kwargs)
        return _FullDisk(f, room) if str(path).endswith(".part") and "x" in mode else f

    for module in ("graders.scoring.output", "graders.scoring.parallel"):
        monkeypatch.setattr(f"{module}.open", fake, raising=False)


@pytest.mark.parametrize("command, room", [("score", 0), ("score", 5000), ("compare", 0), ("compare", 2000)])
def test_a_full_disk_leaves_the_old_file_and_nothing_else(tmp_path, capsys, monkeypatch, command, room):
    """The write fails, and the cleanup's close fails again: the .part is removed anyway."""
    out = tmp_path / "o.csv"
    out.write_text("OLD\n")
    _fill_after(monkeypatch, room)
    code, err = run(capsys, command, SOURCES[command], "--grader", "exact", "--out", out)
    assert code == 2 and "No space left on device" in err and len(err.splitlines()) == 1
    assert out.read_text() == "OLD\n"
    assert names(tmp_path) == ["o.csv"]


def _limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("workers", [1, 2])
def test_a_disk_that_fills_under_the_workers_leaves_no_part_and_no_spool(tmp_path, workers):
    """A real run in a process whose files may not pass 100 kB (the kernel's RLIMIT_FSIZE:
    as a full disk to the writer, in the parent and in the worker processes): exit 2, the
    old file, and nothing else in the folder."""
    big = tmp_path / "big.csv"
    big.write_text("id,expected,output\n" + "".join(f"c{i},order {i} refunded,order {i} refunded\n" for i in range(30_000)))
    out = tmp_path / "o.csv"
    out.write_text("OLD\n")
    proc = subprocess.run([sys.executable, "-m", "graders", "score", str(big), "--workers", str(workers), "--out", str(out)],
                          capture_output=True, text=True, preexec_fn=_limit_file_size, timeout=240)
    assert proc.returncode == 2 and proc.stderr == "gradeboard: cannot write " + repr(str(out)) + ": File too large\n"
    assert out.read_text() == "OLD\n"
    assert names(tmp_path) == ["big.csv", "o.csv"]
