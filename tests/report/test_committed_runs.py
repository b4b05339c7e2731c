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
        "dd7174f6c5523604f16684bf262b9b148dac35a2469cc74160bef1f3f67ee9a1",
    ),
    "conditioning-local-models": (
        "d4b7e8ebd11fe3c3",
        "367b5589a53a0b3857e0362c1139b52b27f5d1c4631c88c36d65f295b928bac9",
    ),
    "evidence-local-models": (
        "1f0f7c9f7df6a215",
        "0c994be0c098b96ac3deb656d48155cade8fb540c0b1f68786213d50b5930c64",
    ),
    "arithmetic-reference": (
        "623f7e384dd77d8a",
        "33d438517c7a740842a5687ce6f2343330055511e8b35cef5c732125c181fc53",
    ),
    "conditioning-reference": (
        "f27602f611af848e",
        "a492809a5e60b92b7f1f7f1e2cbab337f71ca9c07e3b7a80b8c6066148f3ea32",
    ),
    "evidence-reference": (
        "c895f40a4f47ad1e",
        "0f9e824dae7819c67fb6a6bd09df62b9874f9f7acb868cf0b178c1a2d2693f0c",
    ),
    "fair-lending-local-models": (
        "b8428948fa191bfe",
        "393a0aabddd6450675e1df40ac12d878ccbf83c7be47182dfb627939988c6922",
    ),
    "fair-lending-reference": (
        "5c67f6cb15ace136",
        "f5af3486cf836aa68a31bd58ad90adca144c17f77b978c85ddfa9d60cf106550",
    ),
    "pressure-local-models": (
        "c0fa79fe0321e4e2",
        "559f531bd8fdb5e11dc907a0b4f60eb7c6269d8fe4f347e2e70a7e2009f2d3f3",
    ),
    "pressure-reference": (
        "f010940dfd95cadf",
        "43849ed92d5b986096eb612dc931093ac00d044003b56a1bda9512d171858ecc",
    ),
    "return-window-local-models": (
        "ea844b6c6b5bf294",
        "c1f126a1af72751e5ff29131fbbb6dd121cd402e8a5949272dc8aa626a70dc32",
    ),
    "return-window-reference": (
        "c30fe9ae1c534c86",
        "ca07733fc69f5b63a4023197010e7b9ae9edff77fd349066c5d5fad303687981",
    ),
    "review-injection-local-models": (
        "f8224ba88645cd5b",
        "dcd3b30407d2c57813d44c6311ed77241264b688735c705d2fe66b3236f82530",
    ),
    "review-injection-reference": (
        "d5be2cd4705612f9",
        "f96abbba3b9ba725430b42b338d36c59a2e5ccca19dd4056bd047666bc9bb329",
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
