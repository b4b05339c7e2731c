"""The committed runs stay readable and their numbers stay put through refactors.

Every run under ``content/runs/`` keeps its experiment id (a content hash of its stored
record), the shipped specs still describe the scenarios their reference runs stored, and the
report rebuilt from each store is the same JSON, byte for byte but for its creation time, as
the one the code made before the analyses moved below ``Results`` (issue 19; the digests were
taken from the reports of that commit, c845a39).

The committed ``report.json`` files themselves are older than that commit for some runs (a few
interval bounds have moved since, see docs/design/013), so the digests pin the numbers of the
code, not of the files.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from modelscape._identity import content_id
from modelscape.report.report import Report, build_report
from modelscape.results.results import Results
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore

RUNS = Path(__file__).resolve().parents[2] / "content" / "runs"

#: Each committed run: its experiment id, and the SHA-256 of its rebuilt report.
PINNED = {
    "fair-lending-gemma-3-270m": (
        "afc0f6c172363cd4",
        "446b1b2bcd476925a44336e54be598173d320c4f4df90d2e479cfee27fe7cafd",
    ),
    "fair-lending-reference": (
        "5c67f6cb15ace136",
        "8d88384c4649112e73e2b2abaf2ea542be64595cf76a4203f21d1db8e11b772a",
    ),
    "pressure-gemma-3-270m": (
        "2460f9db825e913b",
        "d34b303456a67e4332bcaf650ee75f84a2801bbe6eeadd2e806359212ec4e3c2",
    ),
    "pressure-reference": (
        "f010940dfd95cadf",
        "ee1772b4a4b7e869ca1976583bdb74518f3112c90e3b42d97592693fe647ad73",
    ),
    "return-window-gemma-3-270m": (
        "4b57e6a6f3c9c53b",
        "3af1ae6dcb41289fbb70f66dad24217a147401a70b7f4e9cdc0232cc21d72a2f",
    ),
    "return-window-reference": (
        "c30fe9ae1c534c86",
        "b8ce19fca1154a5b948aea9bcf5b23e26a9c3c5fb462ff99ad035405eff0f4de",
    ),
    "review-injection-gemma-3-270m": (
        "fae98029f6e04dce",
        "801792f2e21b6d119c42b0a4ce0cf4fa52bd3cbf7017f266cada9df16ced476d",
    ),
    "review-injection-reference": (
        "d5be2cd4705612f9",
        "20ab03e221f8ad22f2250ab4df314a1dfed0240dcf2c7d52bfe6c58c589dd7ce",
    ),
}


def load(name: str) -> Results:
    store = SQLiteStore(RUNS / name / "store.db")
    try:
        (record,) = store.experiments()
        return Results.load(store, record.id)
    finally:
        store.close()


def digest(report: Report) -> str:
    """The SHA-256 of a report's saved JSON, with its creation time left out."""
    timeless = report.model_copy(
        update={"provenance": report.provenance.model_copy(update={"created": ""})}
    )
    return hashlib.sha256(timeless.model_dump_json(indent=1).encode()).hexdigest()


def test_every_committed_run_is_pinned() -> None:
    assert sorted(p.parent.name for p in RUNS.glob("*/store.db")) == sorted(PINNED)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_experiment_ids_are_unchanged(name: str) -> None:
    experiment = load(name).experiment
    hashed = experiment.model_dump(mode="json", exclude={"id", "created"})
    assert experiment.id == content_id("experiment", hashed) == PINNED[name][0]


@pytest.mark.parametrize("name", sorted(n for n in PINNED if n.endswith("-reference")))
def test_shipped_specs_store_the_same_scenario(name: str) -> None:
    results = load(name)
    spec = load_spec(name.removesuffix("-reference"))
    scenario = dataclasses.replace(spec.scenario(), repetitions=results.experiment.repetitions)
    assert scenario.identity == results.experiment.scenario
    assert scenario.identity.id == results.experiment.scenario.id  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_reports_rebuilt_from_the_stores_are_unchanged(name: str) -> None:
    results = load(name)
    assert digest(build_report(results)) == PINNED[name][1]
    if name.endswith("-reference"):
        spec = load_spec(name.removesuffix("-reference"))
        scenario = dataclasses.replace(spec.scenario(), repetitions=results.experiment.repetitions)
        assert digest(scenario.report(results)) == PINNED[name][1]
