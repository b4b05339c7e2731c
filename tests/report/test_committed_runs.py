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
        "087f8dd12f1ffdc7ef7847c51da7c5f3ef52260bf6556827f5850a924564ffe9",
    ),
    "conditioning-local-models": (
        "d4b7e8ebd11fe3c3",
        "0472440c998da618fbdb6734a32ffc08be19689dd35140f825d43e8140d6e3c3",
    ),
    "evidence-local-models": (
        "1f0f7c9f7df6a215",
        "bb9e41f285c90c99f48f66d41f34bb08727a8cf16f3fc95b93863140161316a6",
    ),
    "arithmetic-reference": (
        "623f7e384dd77d8a",
        "4b0458ec984bc835ff21720900bcbb9403c1a1d592c03607474d2879e1efe0fc",
    ),
    "conditioning-reference": (
        "f27602f611af848e",
        "ca42f808a1e25199a15f4f6af9870ca3e47e740df9e53a597c09f15595131950",
    ),
    "evidence-reference": (
        "c895f40a4f47ad1e",
        "db11824d2c36175787203401abd9bd82c7e4c20b62a51bd027b7c785ca21e54e",
    ),
    "fair-lending-local-models": (
        "b8428948fa191bfe",
        "178c43f5c5da0d763eec65ae5da77f18f6f780a9701ca8010ecab97c4190dd3e",
    ),
    "fair-lending-reference": (
        "5c67f6cb15ace136",
        "bc98e8dc613298358810120bd2f49ae1da297a190afd955d707884c96999f072",
    ),
    "pressure-local-models": (
        "c0fa79fe0321e4e2",
        "ecf84f0c05b9466875be588d097aef547db8358ade6417824cab105dfb9343f7",
    ),
    "pressure-reference": (
        "f010940dfd95cadf",
        "fcd4280c41c89446e114b517f79795352cb6ed99c7e8ca7b69cc371267fbfec7",
    ),
    "return-window-local-models": (
        "ea844b6c6b5bf294",
        "51a1d1dadac14c09cdd27f4925d48e4393e0523de6b6b61657179b5f02f26205",
    ),
    "return-window-reference": (
        "c30fe9ae1c534c86",
        "de209f3c32bc3f2f2f14a00df3611912f87dbe03328ec75bfd4a39a1323b7f16",
    ),
    "review-injection-local-models": (
        "f8224ba88645cd5b",
        "ce01cd8120d715699e6a9959dddb827faf1ad9757d85d87975ebcf363a62aed5",
    ),
    "review-injection-reference": (
        "d5be2cd4705612f9",
        "59cd1a41fc958a924634dbae5ebd854091d5141a47c87978d75aa95f79cbdd8c",
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
