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
        "10d214fead40c8e06ca436227084cef9a59d16023df04a7e539240d17754e128",
    ),
    "conditioning-local-models": (
        "d4b7e8ebd11fe3c3",
        "5c64a60aef6cb486eb5dbdf9a05e33da7e4f5abd279190771e01a9baaec93e9f",
    ),
    "evidence-local-models": (
        "1f0f7c9f7df6a215",
        "6b942bf553ea14b7427b06c9c45b437c8cdf9a61692cdc9a0a0d7d5a054a6512",
    ),
    "arithmetic-reference": (
        "623f7e384dd77d8a",
        "29a8c4f2c3887c7366f0aa3cd5c05d615dbb666ba0e092c4181b823dff486186",
    ),
    "conditioning-reference": (
        "f27602f611af848e",
        "bc7e49006f66c8f69f6f6c9545ef0557b42a0609613027a9b62a91b875980cc6",
    ),
    "evidence-reference": (
        "c895f40a4f47ad1e",
        "dde96a3bd3e7f62250845fe040fbca771c27f6ecee6d9bce170e0f309ebf33c1",
    ),
    "fair-lending-local-models": (
        "b8428948fa191bfe",
        "bb05bb2e342af8a97e4b421a9e29186fde1f2bc58075b07d5884ec85781c8b06",
    ),
    "fair-lending-reference": (
        "5c67f6cb15ace136",
        "477074ecdc47e5971e941ac946823b89929733a38d99086076612ddf181d4a30",
    ),
    "pressure-local-models": (
        "c0fa79fe0321e4e2",
        "dc90fe7d46e4048f2cf7ca21f34f75a8fd5393fb895eb0080302890eba082af4",
    ),
    "pressure-reference": (
        "f010940dfd95cadf",
        "781fc00401b67da7ec36769b2a162b12648c5219a8bffbfc2558435aa41a094a",
    ),
    "return-window-local-models": (
        "ea844b6c6b5bf294",
        "b4ae7bef200283cc7a51ebee0700606cad48fe6f53a8ada14b185e76d0465885",
    ),
    "return-window-reference": (
        "c30fe9ae1c534c86",
        "8c8e7bf1bc8ab7599fa579420345ad198c4619a0be259d2f090bfedd31edb0aa",
    ),
    "review-injection-local-models": (
        "f8224ba88645cd5b",
        "c188f9faef3e7d3b20d9c99be7aec689b098129c8f4a85013fab1e5dd2913476",
    ),
    "review-injection-reference": (
        "d5be2cd4705612f9",
        "57d653948612b87f76c9c4f1590327e7bddef7ea0a8c83762e6925924212df66",
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
