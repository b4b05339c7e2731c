"""The committed runs stay readable and their numbers stay put through refactors.

Every run under ``content/runs/`` keeps its experiment id (a content hash of its stored
record), the shipped specs and Python scenarios still describe the scenarios their reference
runs stored, and the
report rebuilt from each store is the same JSON, byte for byte but for its creation time, as
the one the code made before the analyses moved below ``Results`` (issue 19; the digests were
taken from the reports of that commit, c845a39).

The committed ``report.json`` files are what the code makes of their stores, too (the
reference reports were regenerated for that; a few interval bounds had moved since they were
written, see docs/design/013): a published number the code no longer gives fails here, and the
fix is to regenerate the report, not to change the pin.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from modelscape._identity import content_id
from modelscape.report.report import Report, build_report
from modelscape.results.results import Results
from modelscape.scenario import Scenario
from modelscape.scenarios import arithmetic, conditioning, evidence
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore

RUNS = Path(__file__).resolve().parents[2] / "content" / "runs"

#: Each committed run: its experiment id, and the SHA-256 of its rebuilt report.
PINNED = {
    "arithmetic-local-models": (
        "eabdc6377ac151f9",
        "913c83904041c97ce2cbea2f2d811e3f86854fda961b799ff6c2d0f187b370f1",
    ),
    "conditioning-local-models": (
        "d4b7e8ebd11fe3c3",
        "ca8c52b2ccc8d0e1ead07071ece18cf5e63a41d6fcc5966f6b196f3cd493ee00",
    ),
    "evidence-local-models": (
        "1f0f7c9f7df6a215",
        "d9796bd9af4fe3968d5a34f61969b684bf7409cd8595b07faabff52a61fbf8e3",
    ),
    "arithmetic-reference": (
        "623f7e384dd77d8a",
        "2663d21d7780bf73a3dcb5dc1fbd07a35ba43d964b8b9bb74b8aaa692e0407a5",
    ),
    "conditioning-reference": (
        "f27602f611af848e",
        "81b23f52d3b1358aba1ddd8f2849681eec0292b9f548a4b96e02a68de8acf0e3",
    ),
    "evidence-reference": (
        "c895f40a4f47ad1e",
        "1e0aba4911cba8c8ef8f654af2b2464888c7b5b70ca937d2c0633f40608d0aed",
    ),
    "fair-lending-local-models": (
        "b8428948fa191bfe",
        "407f7863482e11782492e40586e8fa523084b889da2f5548fb0dfd56d28dd879",
    ),
    "fair-lending-reference": (
        "5c67f6cb15ace136",
        "8d88384c4649112e73e2b2abaf2ea542be64595cf76a4203f21d1db8e11b772a",
    ),
    "pressure-local-models": (
        "c0fa79fe0321e4e2",
        "76b99c0ec0c1060eafaea5a03110716080cd6ae1acda86c1f08ad1743d6e6599",
    ),
    "pressure-reference": (
        "f010940dfd95cadf",
        "ee1772b4a4b7e869ca1976583bdb74518f3112c90e3b42d97592693fe647ad73",
    ),
    "return-window-local-models": (
        "ea844b6c6b5bf294",
        "3511c88413e4ca63521f57b476d88e99be9e17b6920f147ea1bbf902ed865870",
    ),
    "return-window-reference": (
        "c30fe9ae1c534c86",
        "b8ce19fca1154a5b948aea9bcf5b23e26a9c3c5fb462ff99ad035405eff0f4de",
    ),
    "review-injection-local-models": (
        "f8224ba88645cd5b",
        "2fff2cb92612839193898e03e24175df9000ea304a5b73c153667247e2fd908a",
    ),
    "review-injection-reference": (
        "d5be2cd4705612f9",
        "20ab03e221f8ad22f2250ab4df314a1dfed0240dcf2c7d52bfe6c58c589dd7ce",
    ),
}


#: The reference runs of scenarios written in Python rather than as shipped specs.
PYTHON: dict[str, Scenario] = {
    "arithmetic": arithmetic.SCENARIO,
    "conditioning": conditioning.SCENARIO,
    "evidence": evidence.SCENARIO,
}


def shipped(name: str) -> Scenario:
    """The scenario a reference run ran: a Python scenario or a shipped spec's."""
    return PYTHON[name] if name in PYTHON else load_spec(name).scenario()


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
    original = shipped(name.removesuffix("-reference"))
    scenario = dataclasses.replace(original, repetitions=results.experiment.repetitions)
    assert scenario.identity == results.experiment.scenario
    assert scenario.identity.id == results.experiment.scenario.id  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_reports_rebuilt_from_the_stores_are_unchanged(name: str) -> None:
    results = load(name)
    assert digest(build_report(results)) == PINNED[name][1]
    if name.endswith("-reference"):
        original = shipped(name.removesuffix("-reference"))
        scenario = dataclasses.replace(original, repetitions=results.experiment.repetitions)
        assert digest(scenario.report(results)) == PINNED[name][1]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_committed_reports_are_what_the_code_makes_of_their_stores(name: str) -> None:
    rebuilt = build_report(load(name))
    committed = json.loads((RUNS / name / "report.json").read_text(encoding="utf-8"))
    committed["provenance"]["created"] = rebuilt.provenance.created
    assert committed == json.loads(rebuilt.model_dump_json())
