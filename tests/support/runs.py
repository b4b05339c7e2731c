"""Small runs made by the tests themselves, in the layout of a committed run.

The runs under ``content/runs/`` are published results: they are made again when the
statistics change, and new ones are added. A site or page test that copied them would change
its inputs with every publication, so the tests make their own runs instead. Each kind below is
a shipped scenario, cut down to a few cases and repetitions, against targets that answer
without a model, made once per test process (once per xdist worker) into a folder of its own
with what a committed run holds: ``store.db``, ``report.json`` and ``README.md``. Tests copy
that folder into their content (:func:`copy_run`, cheap) and never change the made one.

A content folder holds one spec per scenario, so every kind of one scenario is made from the
same cut-down spec (:data:`SPECS`), which :func:`copy_run` writes beside the runs.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from modelscape.execution import ExecutionConfig, RetryPolicy, Runner
from modelscape.report import Report
from modelscape.results.results import Results, run_of
from modelscape.scenario import Scenario
from modelscape.scenarios import arithmetic, evidence
from modelscape.specs import Spec, shipped_path
from modelscape.store import SQLiteStore
from tests.support.fixture_targets import (
    failing_targets,
    model_targets,
    reference_targets,
)

#: How each spec-based scenario is cut down: (cases, repetitions). Python scenarios keep
#: their cases and are asked twice.
SPECS: dict[str, tuple[int, int]] = {
    "return-window": (4, 3),
    "pressure": (6, 3),
    "fair-lending": (4, 2),
    "review-injection": (4, 2),
}
PYTHON: dict[str, Scenario] = {
    "arithmetic": arithmetic.SCENARIO,
    "evidence": evidence.SCENARIO,
}
PYTHON_REPETITIONS = 2


@dataclass(frozen=True)
class Kind:
    """One kind of run: a scenario, the targets asked, and what the README says of them."""

    scenario: str
    targets: Callable[[Scenario], list[Any]]
    about: str
    execution: ExecutionConfig | None = None


#: The run most site tests build from: return-window against three reference targets.
RUN = "return-window-fixture"
#: Every kind of run, by the name of its folder.
KINDS: dict[str, Kind] = {
    RUN: Kind("return-window", reference_targets, "oracle, late and random (reference)"),
    "pressure-fixture": Kind("pressure", reference_targets, "oracle, sycophant and random"),
    "review-injection-fixture": Kind(
        "review-injection", reference_targets, "oracle, hijacked and random"
    ),
    "arithmetic-fixture": Kind("arithmetic", reference_targets, "oracle, distracted, random"),
    "evidence-fixture": Kind("evidence", reference_targets, "oracle, first-told and random"),
    "return-window-models-fixture": Kind(
        "return-window", model_targets, "four stand-ins for small local models"
    ),
    "fair-lending-models-fixture": Kind(
        "fair-lending", model_targets, "four stand-ins for small local models"
    ),
    "failing-fixture": Kind(
        "return-window",
        failing_targets,
        "an oracle, a model that is never reached and one whose calls fail now and then",
        ExecutionConfig(retry=RetryPolicy(attempts=1, initial_delay=0.0)),
    ),
}

_made: dict[str, Path] = {}
_cache: list[Path] = []


def _cache_folder() -> Path:
    """This process's folder of made runs, removed when the process ends (not by the forked
    children of a site build, which end with it still in use)."""
    if not _cache:
        folder = Path(tempfile.mkdtemp(prefix="modelscape-test-runs-"))
        owner = os.getpid()

        def remove() -> None:
            if os.getpid() == owner:
                shutil.rmtree(folder, ignore_errors=True)

        atexit.register(remove)
        _cache.append(folder)
    return _cache[0]


def spec_text(scenario: str) -> str:
    """The shipped spec of ``scenario`` with its cases and repetitions cut down."""
    cases, repetitions = SPECS[scenario]
    lines = shipped_path(scenario).read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.startswith(("cases:", "repetitions:"))]
    text = "\n".join([*kept, f"cases: {cases}", f"repetitions: {repetitions}", ""])
    assert yaml.safe_load(text)["name"] == scenario
    return text


def scenario_of(name: str) -> Scenario:
    """The cut-down scenario a kind of run is made of."""
    if name in PYTHON:
        return dataclasses.replace(PYTHON[name], repetitions=PYTHON_REPETITIONS)
    folder = _cache_folder() / "specs"
    folder.mkdir(exist_ok=True)
    file = folder / f"{name}.yaml"
    if not file.exists():
        file.write_text(spec_text(name), encoding="utf-8")
    return Spec.load(file).scenario()


def _make(name: str, folder: Path) -> None:
    kind = KINDS[name]
    scenario = scenario_of(kind.scenario)
    folder.mkdir(parents=True)
    store = SQLiteStore(folder / "store.db")
    try:
        results = Runner(store=store).run(
            scenario.experiment(kind.targets(scenario), kind.execution)
        )
    finally:
        store.close()
    connection = sqlite3.connect(folder / "store.db")
    try:  # one file, as committed: the write-ahead log folded in
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    scenario.report(results).save(folder / "report.json")
    (folder / "README.md").write_text(
        f"# {name}\n\n{scenario.name} ({scenario.calls_per_target()} calls per target, "
        f"{scenario.repetitions} repetitions) against {kind.about}.\n\n"
        f"Made by `tests/support/runs.py` for the tests; experiment "
        f"`{run_of(results).experiment.id}`, {len(run_of(results).observations)} outputs.\n",
        encoding="utf-8",
    )


def made(name: str) -> Path:
    """The folder of a made run (made on first use): read it, never change it."""
    if name not in KINDS:
        raise KeyError(f"no kind of test run {name!r}; the kinds are {sorted(KINDS)}")
    if name not in _made:
        folder = _cache_folder() / "runs" / name
        if folder.exists():  # a make that failed half way
            shutil.rmtree(folder)
        _make(name, folder)
        _made[name] = folder
    return _made[name]


def copy_run(name: str, content: Path, *, as_name: str | None = None) -> Path:
    """Copy a made run into ``content/runs/`` (as ``as_name``, or its own name) and its
    scenario's spec into ``content/specs/``; the copied run folder."""
    folder = content / "runs" / (as_name or name)
    shutil.copytree(made(name), folder)
    scenario = KINDS[name].scenario
    if scenario not in PYTHON:
        (content / "specs").mkdir(parents=True, exist_ok=True)
        spec = content / "specs" / f"{scenario}.yaml"
        spec.write_text(spec_text(scenario), encoding="utf-8")
    return folder


def report_of(name: str) -> Report:
    """The report of a made run."""
    return Report.load(made(name) / "report.json")


def results_of(name: str, folder: Path) -> Results:
    """The stored results of a made run, read from a copy of its store in ``folder``
    (opening a store leaves journal files beside it)."""
    store_file = folder / "store.db"
    shutil.copyfile(made(name) / "store.db", store_file)
    store = SQLiteStore(store_file, read_only=True)
    try:
        return Results.load(store, report_of(name).experiment)
    finally:
        store.close()
