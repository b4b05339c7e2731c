"""Catalogs for the leaderboard tests: made from numbers directly, or from real runs.

``catalog_of`` builds run summaries by hand, so a test chooses every accuracy (ties, n/a,
targets missing from a scenario) without running anything. ``hostile_run`` runs the shipped
``return-window`` scenario against targets whose names, reported model versions and settings
are what a spreadsheet would run or a browser would parse as markup. ``make_board`` is a
whole site's worth of the tests' own runs (reference targets, stand-ins for local models, a
target that fails) with a page of findings that embeds them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from modelscape._identity import JsonValue
from modelscape.execution import Runner
from modelscape.site import build_site
from modelscape.site.catalog import Catalog, Headline, RunSummary
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore
from modelscape.targets import CallableTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest
from tests.site.sitetools import RUN, make_content

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
        invariant_power=None,
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


#: The runs of the board: two scenarios against reference targets, two against stand-ins for
#: local models (fair-lending with groups), and a run with a target that fails.
BOARD = (
    RUN,
    "pressure-fixture",
    "return-window-models-fixture",
    "fair-lending-models-fixture",
    "failing-fixture",
)
#: The model whose page the tests open: free text, in both of the models' scenarios.
BOARD_MODEL = "gemma-3-270m"

FINDINGS = """\
---
title: Findings
description: What the stand-ins for two small models do.
---
# What two small models do

## Free text: no answer at all

Gemma answered `ms:answered fair-lending-models-fixture gemma-3-270m` of the time, SmolLM2
`ms:answered return-window-models-fixture smollm2-135m`.

## Structured: always an answer, not always the right one

Gemma is right on `ms:accuracy fair-lending-models-fixture gemma-3-270m-structured approvals`
of the approvals and `ms:accuracy fair-lending-models-fixture gemma-3-270m-structured declines`
of the declines, with a spurious change of
`ms:spurious fair-lending-models-fixture gemma-3-270m-structured`.

```modelscape
scorecard: fair-lending-models-fixture
targets: [gemma-3-270m-structured, smollm2-135m-structured]
```

```modelscape
sensitivity: fair-lending-models-fixture
targets: [gemma-3-270m-structured, smollm2-135m-structured]
```

## Thresholds

Missed change: `ms:missed return-window-models-fixture smollm2-135m-structured`, from a
baseline of `ms:baseline return-window-models-fixture smollm2-135m-structured`.

```modelscape
profile: return-window-models-fixture
axis: days
```

```modelscape
divergence: return-window-models-fixture
targets: [gemma-3-270m-structured]
```
"""


def make_board(folder: Path) -> Path:
    """A content folder of every run of :data:`BOARD`, the test pages and a findings page
    that embeds the runs (linked from the navigation, as the shipped one is)."""
    content = make_content(folder, runs=BOARD)
    (content / "pages" / "findings.md").write_text(FINDINGS, encoding="utf-8")
    settings = content / "site.yaml"
    text = settings.read_text(encoding="utf-8")
    settings.write_text(text + "  - {title: Findings, url: findings.html}\n", encoding="utf-8")
    return content


def build_full(folder: Path) -> Path:
    """The board plus the hostile run (in ``folder/content``), built strictly; the site."""
    content = make_board(folder / "content")
    hostile_run(content / "runs" / "hostile")
    build_site(content, folder / "site", strict=True)
    return folder / "site"
