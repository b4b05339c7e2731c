"""Builders to edit: a fresh one per test, written through its methods."""

from __future__ import annotations

import pytest

from modelscape.builder import Builder


@pytest.fixture
def cities() -> Builder:
    """A small complete spec: a city with a property, and a JSON answer the prompt asks for."""
    builder = Builder("Is Paris the capital of France? Answer politely, in JSON.", name="capitals")
    builder.mark(0, 3, 8, "city")
    builder.rows(
        "city",
        [
            {"label": "Paris", "capital": "true"},
            {"label": "Lyon", "capital": "false"},
            {"label": "Nice", "capital": "false"},
        ],
    )
    builder.answer("capital", [True, False], {"city.capital": {True: True, False: False}})
    return builder
