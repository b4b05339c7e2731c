"""A slow drift on an invariant axis: spurious change and departures see it; no drift, no alarm.

The setting of ``benchmarks/drift.py`` (issue 28) at fewer targets: twelve cases, R = 5, six
ordinal levels whose wrong-answer chance rises by 0.1 per level, so no neighbour step is
large but the last level is far from the baseline.
"""

from __future__ import annotations

import math

import pytest

from benchmarks.drift import ALPHA, COIN, STEP, measure, run, scenario
from modelscape.scenario import Scenario
from modelscape.stats import Inference

TARGETS = 40
INFERENCE = Inference(permutations=2000, resamples=400)


@pytest.fixture(scope="module")
def space() -> Scenario:
    return scenario()


def test_a_slow_drift_is_spurious_change_and_a_departure(space: Scenario) -> None:
    found = measure(run(space, TARGETS, STEP, "drift"), STEP, INFERENCE)
    assert found.above_zero >= 0.8
    assert found.departed >= 0.8
    # Each neighbour step alone is small: the shifts miss most of these drifts.
    assert found.shifted < 0.5


def test_without_drift_the_interval_covers_and_departures_stay_rare(space: Scenario) -> None:
    # Coin-flip answers at every level: the most run-to-run noise, and nothing drifting.
    found = measure(run(space, TARGETS, 0.0, "steady", COIN), 0.0, INFERENCE, COIN)
    se = math.sqrt(ALPHA * (1 - ALPHA) / TARGETS)
    assert found.departed <= ALPHA + 3 * se
    assert found.covered >= 0.9
