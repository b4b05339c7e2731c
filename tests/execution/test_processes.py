"""Whole processes: a run killed with SIGKILL, and two runs writing one store at once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modelscape.store.sqlite import SQLiteStore
from tests.support.signals import default_sigint

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # every test here starts whole processes


def start(store: Path, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.execution.subprocess_run", str(store), str(log), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        preexec_fn=default_sigint,  # interrupted by some tests, as Ctrl-C would
    )


def wait_for(process: subprocess.Popen[bytes], event: str) -> None:
    """Read the process's stderr up to the line ``event``; fail if it exits first."""
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        if line.decode().strip() == event:
            return
        seen.append(line.decode())
    pytest.fail(f"the process ended before {event!r}: {''.join(seen)}")


def seeds(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


def snapshot(path: Path) -> dict[str, tuple[int, str]]:
    """Every stored observation by id: (seed, record JSON)."""
    store = SQLiteStore(path)
    try:
        run = store.experiments()[0].id
        _, _, observations, _, _ = store.load(run)
        return {o.id: (o.seed, o.model_dump_json()) for o in observations if o.status == "ok"}
    finally:
        store.close()


@pytest.mark.parametrize("attempt", range(3))
def test_a_killed_run_loses_nothing_stored_and_never_asks_it_again(
    tmp_path: Path, attempt: int
) -> None:
    store, first_log, second_log = tmp_path / "runs.db", tmp_path / "1.log", tmp_path / "2.log"
    process = start(store, first_log)
    wait_for(process, "started")
    # Kill only once something is stored, however slowly a loaded machine got there (the
    # process ending first fails the test with what it printed).
    while not snapshot(store):
        assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
        time.sleep(0.01)
    time.sleep(random.Random(attempt).uniform(0.0, 0.3))
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()  # reaps the process and closes its pipes
    assert process.returncode == -signal.SIGKILL
    before = snapshot(store)
    assert before, "the killed run stored nothing; kill later"
    total = 8 * 5 * 4
    assert len(before) < total, "the run finished before the kill; kill sooner"

    rerun = start(store, second_log)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode()
    assert out.split() == [str(total).encode(), b"0"]
    after = snapshot(store)
    assert len(after) == total
    for oid, stored in before.items():
        assert after[oid] == stored  # unchanged
    asked_again = set(seeds(second_log))
    assert not asked_again & {seed for seed, _ in before.values()}
    assert len(seeds(second_log)) == total - len(before)


def test_two_processes_write_one_store_at_once(tmp_path: Path) -> None:
    store = tmp_path / "shared.db"
    SQLiteStore(store).close()  # created first, so both open a migrated file
    runs = [
        start(store, tmp_path / f"{name}.log", "--name", name, "--delay", "0.002")
        for name in ("left", "right", "left")
    ]
    for process in runs:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()
        assert out.split() == [b"160", b"0"]
    opened = SQLiteStore(store)
    try:
        experiments = opened.experiments()
        assert len(experiments) == 2
        for record in experiments:
            assert opened.status_counts(record.id) == {"ok": 160, "failed": 0}
            _, _, observations, points, _ = opened.load(record.id)
            assert len(observations) == 160
            assert len(points) == 3 * 160
        check = opened._connection.execute("PRAGMA integrity_check").fetchone()[0]
        assert check == "ok"
    finally:
        opened.close()
    # The two runs of "left" share a store: together they asked each observation at least
    # once, and the second stored nothing twice.
    assert len(set(seeds(tmp_path / "left.log"))) == 160


def test_two_processes_running_one_experiment_ask_each_observation_once(tmp_path: Path) -> None:
    store, go = tmp_path / "shared.db", tmp_path / "go"
    SQLiteStore(store).close()
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    runs = [
        # calls long enough (0.2 s on average) that neither process can finish them all alone
        # before the other starts, even on a loaded machine
        start(store, log, "--name", "same", "--delay", "0.2", "--wait-for", str(go))
        for log in logs
    ]
    for process in runs:
        wait_for(process, "waiting")  # both imported and wait at the line
    go.touch()
    for process in runs:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()
        assert out.split() == [b"160", b"0"]
    asked = seeds(logs[0]) + seeds(logs[1])
    assert len(asked) == len(set(asked)) == 160  # together they paid once for each call
    assert seeds(logs[0])  # and both did part of the work
    assert seeds(logs[1])
