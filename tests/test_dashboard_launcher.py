"""gradeboard-dashboard: the dashboard's settings hold wherever it starts (issue 32, 7)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from graders.dashboard import SETTINGS, command


def test_the_command_carries_every_setting_and_lets_the_users_flags_win():
    args = command(["--server.port", "9999"])
    assert args[1:4] == ["-m", "streamlit", "run"] and args[4].endswith("app.py")
    assert [f"--{k}={v}" for k, v in SETTINGS] == args[5:5 + len(SETTINGS)]
    assert args[-2:] == ["--server.port", "9999"]
    assert ("server.address", "localhost") in SETTINGS and ("browser.gatherUsageStats", "false") in SETTINGS


def test_started_elsewhere_it_listens_on_localhost_only(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", "from graders.dashboard import main; main()",
                             "--server.port", str(port), "--server.headless", "true"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120  # generous: a loaded machine starts Streamlit slowly
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
                    assert r.read() == b"ok"
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the dashboard did not start"
                time.sleep(0.5)
        with open("/proc/net/tcp") as f:  # every socket listening on the port is on 127.0.0.1
            listening = [line.split()[1] for line in f.readlines()[1:]
                         if line.split()[3] == "0A" and int(line.split()[1].split(":")[1], 16) == port]
        assert listening and all(addr.startswith("0100007F:") for addr in listening), listening
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert f"URL: http://localhost:{port}" in out and "External URL" not in out and "Network URL" not in out
