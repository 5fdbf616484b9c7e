"""A run ended from outside (issue 32, 4): SIGTERM is handled like Ctrl-C (exit 130, the old
file untouched, no temporary file or spool folder left), and worker processes die with
their parent, even one killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; PR_SET_PDEATHSIG")


def _children(pid: int) -> set[int]:
    out = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(b")", 1)[1].split()[1]) == pid:
                out.add(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"


def _start(tmp_path: Path) -> subprocess.Popen:
    rows = "".join(f'{i},"{"the cat sat on the mat " * 8}{i}","{"a cat sat on a mat " * 8}{i}"\n' for i in range(60_000))
    (tmp_path / "big.csv").write_text("id,expected,output\n" + rows)
    (tmp_path / "s.csv").write_text("old\n")
    return subprocess.Popen([sys.executable, "-m", "graders", "score", "big.csv", "--grader", "bleu", "--grader", "chrf",
                             "--grader", "rouge_l", "--workers", "2", "--out", "s.csv"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_workers(proc: subprocess.Popen, tmp_path: Path) -> set[int]:
    deadline = time.monotonic() + 180  # generous: a loaded machine
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        kids = _children(proc.pid)
        if len(kids) >= 2 and list(tmp_path.glob("s.csv.*.part")):
            return kids | {k for kid in kids for k in _children(kid)}
        time.sleep(0.1)
    pytest.fail("the run never started its workers")


def test_sigterm_is_ctrl_c(tmp_path):
    proc = _start(tmp_path)
    kids = _wait_for_workers(proc, tmp_path)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err == "gradeboard: interrupted\n"
    assert (tmp_path / "s.csv").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.csv", "s.csv"]
    deadline = time.monotonic() + 30
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(k) for k in kids)


def test_workers_die_with_a_parent_killed_outright(tmp_path):
    proc = _start(tmp_path)
    kids = _wait_for_workers(proc, tmp_path)
    proc.kill()
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 30
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(k) for k in kids), "worker processes outlived their parent"
