"""Scenarios named as python:tests/cli/python_scenarios.py:NAME by the review commands' tests."""

from __future__ import annotations

from modelscape.scenario import Scenario
from modelscape.specs import load_spec

SPEC = load_spec("return-window")
SCENARIO = SPEC.scenario()
NOT_A_SCENARIO = 42


def make() -> Scenario:
    """A factory, called without arguments."""
    return SPEC.scenario()


def broken() -> Scenario:
    raise RuntimeError("no scenario today")
