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
from modelscape.results.results import Results, run_of
from modelscape.scenario import Scenario
from modelscape.scenarios import arithmetic, conditioning, evidence
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore

RUNS = Path(__file__).resolve().parents[2] / "content" / "runs"

#: Each committed run: its experiment id, and the SHA-256 of its rebuilt report.
PINNED = {
    "arithmetic-local-models": (
        "eabdc6377ac151f9",
        "f2b74cc894a31150ecb8582ca0ef0ddea19c74277268da5eda90ffd970ae53db",
    ),
    "conditioning-local-models": (
        "d4b7e8ebd11fe3c3",
        "8f08e99e3442f841b786a5001377ccbaabf1ede1b669f87e8ae2589648699aa1",
    ),
    "evidence-local-models": (
        "1f0f7c9f7df6a215",
        "87a7683f08af5067881fbd486013bb3abe039daac2712ab83ed0be1bf382fa09",
    ),
    "arithmetic-reference": (
        "623f7e384dd77d8a",
        "386383a26e319b4878d832eb78d052f2ef85d55152e46a228aa5ca1f5126cf47",
    ),
    "conditioning-reference": (
        "f27602f611af848e",
        "b11266fb5665069f3db0562af81f0c9b9879b279994aaefd880e143ed634be7a",
    ),
    "evidence-reference": (
        "c895f40a4f47ad1e",
        "dd9e021bfc31cf9004f08db7e8ad4ce0e834d585be65e215c53b19a8b179ccf1",
    ),
    "fair-lending-local-models": (
        "b8428948fa191bfe",
        "3a79cdfe3a4ebfce22322fc93f57c4eb6d98dbec9dd2fcdc4aa4d56b2da0d793",
    ),
    "fair-lending-reference": (
        "5c67f6cb15ace136",
        "6b8798f2bb371dcad3939aa586061f0d045c42e77da9efeca199a9d9cde30d96",
    ),
    "pressure-local-models": (
        "c0fa79fe0321e4e2",
        "2c2a94cb622602514049a70cfbf6893688179712e83321a4277748f0332966e3",
    ),
    "pressure-reference": (
        "f010940dfd95cadf",
        "9ccb55b06b3ea336c0fbedf9f13166fad20f0d5333915123792567ad6716e2f0",
    ),
    "return-window-local-models": (
        "ea844b6c6b5bf294",
        "9e414670df5d98ce42f4825a7108e47a69c1d5fabc252d548e7b17302951d7ef",
    ),
    "return-window-reference": (
        "c30fe9ae1c534c86",
        "009028a0405732e29798ddfb1c261fc6b69cf5ec32f9586ccc512c12c2f34e51",
    ),
    "review-injection-local-models": (
        "f8224ba88645cd5b",
        "001026ceeb2360d0425aacbb91668d6408dbb1bbb8ca3900c8ce69ed59fabcc8",
    ),
    "review-injection-reference": (
        "d5be2cd4705612f9",
        "23283dc22e867f88521334911913eb3bb52f5cf6a30ecab3c9af09218bb2667f",
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
    experiment = run_of(load(name)).experiment
    hashed = experiment.model_dump(mode="json", exclude={"id", "created"})
    assert experiment.id == content_id("experiment", hashed) == PINNED[name][0]


@pytest.mark.parametrize("name", sorted(n for n in PINNED if n.endswith("-reference")))
def test_shipped_specs_store_the_same_scenario(name: str) -> None:
    results = load(name)
    indexed = run_of(results)
    original = shipped(name.removesuffix("-reference"))
    scenario = dataclasses.replace(original, repetitions=indexed.experiment.repetitions)
    assert scenario.identity == indexed.experiment.scenario
    assert scenario.identity.id == indexed.experiment.scenario.id  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_reports_rebuilt_from_the_stores_are_unchanged(name: str) -> None:
    results = load(name)
    assert digest(build_report(results)) == PINNED[name][1]
    if name.endswith("-reference"):
        original = shipped(name.removesuffix("-reference"))
        scenario = dataclasses.replace(original, repetitions=run_of(results).experiment.repetitions)
        assert digest(scenario.report(results)) == PINNED[name][1]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_committed_reports_are_what_the_code_makes_of_their_stores(name: str) -> None:
    rebuilt = build_report(load(name))
    committed = json.loads((RUNS / name / "report.json").read_text(encoding="utf-8"))
    committed["provenance"]["created"] = rebuilt.provenance.created
    assert committed == json.loads(rebuilt.model_dump_json())
