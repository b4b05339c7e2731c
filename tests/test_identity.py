"""Identities are hashed once per object, not on every access (issue 29: no hidden cost)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape import _identity
from modelscape._identity import Identity, content_id
from modelscape.measures import CallableDifference, CallableMetric, KeyedDifference
from tests.support.mapping_space import scenario


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every kind hashed by ``content_id`` while the test runs."""
    seen: list[str] = []

    def counted(kind: str, value: Any, *, length: int = 16) -> str:
        seen.append(kind)
        return content_id(kind, value, length=length)

    monkeypatch.setattr(_identity, "content_id", counted)
    return seen


def test_an_identity_is_hashed_once(hashes: list[str]) -> None:
    identity = Identity(kind="target", name="model", parameters={"temperature": 0.5})
    ids = {identity.id for _ in range(100)}
    assert len(ids) == 1
    assert hashes == ["target"]


def test_a_copy_with_changes_is_hashed_from_its_own_fields(hashes: list[str]) -> None:
    identity = Identity(kind="target", name="model")
    first = identity.id
    renamed = identity.model_copy(update={"name": "other"})
    assert renamed.id == Identity(kind="target", name="other").id != first
    assert identity.model_copy().id == first
    assert identity.model_copy(deep=True).id == first


@given(
    name=st.text(min_size=1, max_size=20),
    version=st.text(min_size=1, max_size=5),
    parameters=st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5)),
)
def test_the_kept_id_is_the_hash_of_the_fields(
    name: str, version: str, parameters: dict[str, Any]
) -> None:
    identity = Identity(kind="metric", name=name, version=version, parameters=parameters)
    fields = {"name": name, "version": version, "parameters": parameters}
    assert identity.id == content_id("metric", fields)
    # Kept ids are not fields: equal identities stay equal, and the JSON holds no id.
    assert identity == Identity(kind="metric", name=name, version=version, parameters=parameters)
    assert "id" not in identity.model_dump()
    assert Identity.model_validate_json(identity.model_dump_json()).id == identity.id


MEASURES: dict[str, Callable[[], Any]] = {
    "metric": lambda: CallableMetric(lambda variant, output: 1.0, name="m"),
    "difference": lambda: CallableDifference(lambda first, second: 0.0, name="d"),
    "keyed": lambda: KeyedDifference(lambda response: 1, name="k"),
}


@pytest.mark.parametrize("kind", list(MEASURES))
def test_a_measure_makes_its_identity_once(kind: str, hashes: list[str]) -> None:
    measure = MEASURES[kind]()
    assert measure.identity is measure.identity
    assert {measure.identity.id for _ in range(50)} == {measure.identity.id}
    assert len(hashes) == 1


def test_a_scenario_makes_its_settings_and_identity_once(hashes: list[str]) -> None:
    made = scenario()
    assert made.identity is made.identity
    assert made.settings is made.settings
    for _ in range(20):
        assert made.identity.id
    assert hashes.count("scenario") == 1
