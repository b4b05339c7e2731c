"""Catalogs for the leaderboard tests: made from numbers directly, or from a real hostile run.

``catalog_of`` builds run summaries by hand, so a test chooses every accuracy (ties, n/a,
targets missing from a scenario) without running anything. ``hostile_run`` runs the shipped
``return-window`` scenario against targets whose names, reported model versions and settings
are what a spreadsheet would run or a browser would parse as markup.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path

from modelscape._identity import JsonValue
from modelscape.execution import CallableTarget, Runner
from modelscape.site import build_site
from modelscape.site.catalog import Catalog, Headline, RunSummary
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore
from modelscape.target import TargetOutput, TargetRequest
from tests.site.sitetools import CONTENT

#: Names a spreadsheet would run as a formula, and one a browser would parse as markup.
FORMULA_NAME = "=cmd|' /C calc'!A0"
MARKUP_NAME = '<img src=x onerror=alert("name")><b>bold</b>'
REPORTED = "@SUM(1+1)<script>alert(1)</script>"

REFERENCE = {"kind": "oracle", "scenario": "x"}
MODEL = {"provider": "openai-compatible", "model": "m"}


def headline(
    target: str,
    accuracy: float | None,
    *,
    group: str = "all",
    settings: Mapping[str, JsonValue] = MODEL,
    models: Mapping[str, int] | None = None,
) -> Headline:
    """A scorecard's headline: accuracy as given (None: n/a, with a reason)."""
    return Headline(
        target=target,
        group=group,
        cases=4,
        observations=40,
        failed=0,
        accuracy=accuracy,
        accuracy_low=None if accuracy is None else max(accuracy - 0.1, 0.0),
        accuracy_high=None if accuracy is None else min(accuracy + 0.1, 1.0),
        spurious_change=-0.05,
        spurious_low=-0.1,
        spurious_high=0.02,
        undefined={} if accuracy is not None else {"accuracy": "no successful output"},
        models=dict(models or {}),
        settings=dict(settings),
    )


def summary(
    run: str,
    scenario: str,
    accuracies: Mapping[str, float | None],
    *,
    created: str = "2026-01-01T00:00:00+00:00",
    groups: Mapping[str, Mapping[str, float | None]] | None = None,
    settings: Mapping[str, Mapping[str, JsonValue]] | None = None,
    models: Mapping[str, Mapping[str, int]] | None = None,
) -> RunSummary:
    """One run of a scenario with the given accuracies (all cases, then by group)."""
    kinds = settings or {}
    reported = models or {}

    def make(target: str, value: float | None, group: str = "all") -> Headline:
        return headline(
            target,
            value,
            group=group,
            settings=kinds.get(target, MODEL),
            models=reported.get(target),
        )

    return RunSummary(
        run=run,
        scenario=scenario,
        version="1",
        experiment="e-" + run,
        created=created,
        cases=4,
        repetitions=2,
        groups=("all", *(groups or {})),
        targets=tuple(make(t, v) for t, v in accuracies.items()),
        by_group=tuple(
            make(t, v, group) for group, values in (groups or {}).items() for t, v in values.items()
        ),
    )


def catalog_of(*runs: RunSummary) -> Catalog:
    """A catalog of hand-made runs (no specs)."""
    return Catalog({run.run: run for run in runs}, {})


def _formula(request: TargetRequest) -> TargetOutput:
    return TargetOutput(text=json.dumps({"eligible": True}), model=REPORTED)


def _markup(request: TargetRequest) -> str:
    return json.dumps({"eligible": False})


def hostile_run(folder: Path) -> Path:
    """A run folder (report.json, store.db) of return-window with hostile target names."""
    folder.mkdir(parents=True)
    scenario = load_spec("return-window").scenario()
    targets = [
        CallableTarget(_formula, name=FORMULA_NAME, parameters={"provider": "-2+3", "x": "=1"}),
        CallableTarget(_markup, name=MARKUP_NAME),
    ]
    store = SQLiteStore(folder / "store.db")
    try:
        results = Runner(store=store).run(scenario.experiment(targets))
    finally:
        store.close()
    scenario.report(results).save(folder / "report.json")
    return folder


def build_full(folder: Path) -> Path:
    """The repository's whole content plus the hostile run, built strictly; the site folder."""
    content = folder / "content"
    shutil.copytree(CONTENT, content, ignore=shutil.ignore_patterns("*.py"))
    hostile_run(content / "runs" / "hostile")
    build_site(content, folder / "site", strict=True)
    return folder / "site"
