"""A pytest plugin for scripts/mutation.py, loaded with ``-p mutation_plugin``.

It does one of two things, chosen by environment variables:

- ``MODELSCAPE_MUTATION_KEEP`` names a file of node ids, one a line: only those tests run (the
  others are deselected after collection, so a parametrised id never has to be parsed from a
  command line). A wanted id that is not collected stops the run as a usage error: the mutant
  then counts as an error to look at, never as killed.
- ``MODELSCAPE_MUTATION_OUTCOMES`` names a file to write: one JSON object per test with its node
  id, whether every phase passed and the seconds its phases took together. It is set while the
  map is recorded under coverage, and then one call the tracer cannot live with is avoided
  (:func:`_clear_without_hanging`).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

_seconds: dict[str, float] = {}
_passed: dict[str, bool] = {}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep only the wanted tests, in the order they were collected."""
    listed = os.environ.get("MODELSCAPE_MUTATION_KEEP")
    if not listed:
        return
    wanted = set(Path(listed).read_text(encoding="utf-8").splitlines())
    kept = [item for item in items if item.nodeid in wanted]
    missing = wanted - {item.nodeid for item in kept}
    if missing:
        raise pytest.UsageError(f"{len(missing)} wanted tests not collected: {sorted(missing)[:3]}")
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in wanted])
    items[:] = kept


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each test's phases and note whether any failed."""
    _seconds[report.nodeid] = _seconds.get(report.nodeid, 0.0) + report.duration
    _passed[report.nodeid] = _passed.get(report.nodeid, True) and not report.failed


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the outcomes when asked to."""
    target = os.environ.get("MODELSCAPE_MUTATION_OUTCOMES")
    if not target:
        return
    with Path(target).open("w", encoding="utf-8") as out:
        for nodeid, seconds in _seconds.items():
            record = {"test": nodeid, "passed": _passed[nodeid], "seconds": seconds}
            out.write(json.dumps(record) + "\n")


#: Set while the tests run under a tracer to record the map (below).
_RECORDING = bool(os.environ.get("MODELSCAPE_MUTATION_OUTCOMES"))
_patched = False


def pytest_runtest_setup(item: pytest.Item) -> None:
    """While recording, stop the site's time limit from hanging under coverage's tracer."""
    global _patched
    if _RECORDING and not _patched and "modelscape.site.limits" in sys.modules:
        _patched = True
        _clear_without_hanging(sys.modules["modelscape.site.limits"])


class _TakenBackError(Exception):
    """Raised into a thread only to be caught at once (see :func:`_clear_without_hanging`)."""


def _clear_without_hanging(limits: Any) -> None:
    """Make ``limits._raise_in(thread, None)``, called by a thread on itself, take back a
    pending exception without leaving the interpreter's signal set.

    ``time_limit`` takes back any exception its watchdog raised that has not arrived yet, once
    per block, by ``PyThreadState_SetAsyncExc(thread, NULL)``. On CPython 3.11 that call leaves
    the "asynchronous exception pending" signal set even though nothing is pending any more;
    with a trace function installed (coverage's, a debugger's) the thread then never gets past
    the start of the next function it calls, so a traced site build never ended (a loop of
    three empty ``time_limit`` blocks ran 0.04 s untraced and did not end in a minute under
    ``coverage run``). Raising an exception of our own instead, and catching it at once, takes
    back a pending one just as well (it replaces it) and clears the signal, as any delivered
    exception does. Only the recording of the map is traced, so only it is patched: the mutant
    runs use the code unchanged.
    """
    original = limits._raise_in

    def raise_in(thread: int, error: type[BaseException] | None) -> None:
        if error is not None or thread != threading.get_ident():
            original(thread, error)
            return
        try:
            original(thread, _TakenBackError)
            while True:  # it arrives at the next check, on the way out of the call or here
                pass
        except _TakenBackError:
            pass

    limits._raise_in = raise_in
