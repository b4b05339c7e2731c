"""A spec written as YAML reads back as the same spec, for generated and shipped specs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from modelscape import Spec
from modelscape.specs import available, load_spec

from .strategies import specs


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs())
def test_generated_specs_read_back_unchanged(data: dict[str, Any]) -> None:
    spec = Spec.of(data)
    text = spec.dump()
    assert Spec.parse(text) == spec
    # and writing again gives the same text: dump is a fixed point
    assert Spec.parse(text).dump() == text
    assert spec.template().attributes


@pytest.mark.parametrize("name", available())
def test_shipped_specs_read_back_unchanged(name: str) -> None:
    spec = load_spec(name)
    text = spec.dump()
    assert Spec.parse(text) == spec
    assert Spec.parse(text).dump() == text
