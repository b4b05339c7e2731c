"""Ctrl-C during `modelscape run`: what arrived is stored, the command says so and exits 130."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.support.signals import default_sigint

# Quick for the first outputs, then 0.3 s a call: the run is still going, whatever the
# machine's speed, when the test sees outputs stored and presses Ctrl-C (at 0.02 s a call
# the 360 calls once finished in one second, before the interrupt came), and a call in
# flight ends soon after it.
SLOW = """
import itertools
import time

_calls = itertools.count()

def reply(request):
    time.sleep(0.02 if next(_calls) < 40 else 0.3)
    return '{"answer": true}'
"""


def _stored(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1) as connection:
            return int(connection.execute("SELECT count(*) FROM observations").fetchone()[0])
    except sqlite3.Error:  # the schema is not written yet
        return 0


def test_ctrl_c_exits_130_after_saving_what_arrived(tmp_path: Path) -> None:
    (tmp_path / "slowtarget.py").write_text(SLOW, encoding="utf-8")
    store = tmp_path / "runs.db"
    arguments = ["run", "pressure", "--target", "python:slowtarget:reply", "--store", str(store)]
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "modelscape", *arguments],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    deadline = time.monotonic() + 120
    while _stored(store) < 20 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)  # polling the store for the event itself: outputs have arrived
    assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err.decode()
    assert "interrupted: every output that arrived is stored" in err.decode()
    assert "Traceback" not in err.decode()
    assert _stored(store) >= 20
