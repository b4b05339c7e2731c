"""A pytest plugin for scripts/mutation.py, loaded with ``-p mutation_plugin``.

It does one of two things, chosen by environment variables:

- ``MODELSCAPE_MUTATION_KEEP`` names a file of node ids, one a line: only those tests run (the
  others are deselected after collection, so a parametrised id never has to be parsed from a
  command line). A wanted id that is not collected stops the run as a usage error: the mutant
  then counts as an error to look at, never as killed.
- ``MODELSCAPE_MUTATION_OUTCOMES`` names a file to write: one JSON object per test with its node
  id, whether every phase passed and the seconds its phases took together. It is set while the
  map is recorded under coverage.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

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
