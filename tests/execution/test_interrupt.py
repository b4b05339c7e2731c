"""Ctrl-C: a real process interrupted with SIGINT stores what arrived, and the next run asks
only for the rest.

The process ends with Python's own answer to an unhandled KeyboardInterrupt (killed by SIGINT,
which a shell reports as 130); the ``run`` command maps the interrupt to its exit status.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.execution.test_processes import seeds, snapshot, start, wait_for

pytestmark = pytest.mark.slow  # every test here starts whole processes


def test_sigint_stores_what_arrived_and_the_rerun_asks_only_the_rest(tmp_path: Path) -> None:
    store, first, second = tmp_path / "runs.db", tmp_path / "first.log", tmp_path / "second.log"
    options = ("--cases", "8", "--repetitions", "20", "--delay", "0.05")
    process = start(store, first, *options)
    wait_for(process, "started")
    while len(seeds(first)) < 40:  # enough answers in, far from the end of the run
        assert process.poll() is None
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode in (-signal.SIGINT, 130), err.decode()
    assert b"KeyboardInterrupt" in err
    kept = snapshot(store)
    asked = seeds(first)
    assert len(kept) >= len(asked) - 8  # at most the calls in flight (concurrency 8) are lost
    assert len(kept) < 8 * 5 * 20  # it was interrupted before the end
    rerun = start(store, second, *options)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode()
    # Nothing stored is asked again; everything else is.
    assert sorted(seeds(second) + [seed for seed, _ in kept.values()]) == sorted(
        seed for seed, _ in snapshot(store).values()
    )
    assert out.decode().split() == [str(8 * 5 * 20), "0"]  # all 800 stored, none failed
