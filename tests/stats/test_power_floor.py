"""Power above two repetitions when the estimated excess must also pass ``min_excess``.

The pipeline reports a change only when its p-value passes the level and its estimated
excess (the mean over cases) is at least ``min_excess``; with a floor close to the planted
excess about half the significant runs fall under it, so the figure must drop with them.
The reference is a simulation of the test itself, as in test_power.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from modelscape.stats.power import power
from tests.stats.test_power import _exact_p, _score


@pytest.mark.parametrize(
    ("cases", "repetitions", "excess", "floor"),
    [(10, 3, 0.25, 0.25), (8, 5, 0.16, 0.2)],
)
def test_power_with_a_floor_matches_a_simulation_of_the_test(
    cases: int, repetitions: int, excess: float, floor: float
) -> None:
    rng = np.random.default_rng(20261204)
    delta = math.sqrt(excess)
    draws = 1500
    found = 0
    for _ in range(draws):
        x_a = rng.binomial(repetitions, 0.5 - delta / 2, cases)
        x_b = rng.binomial(repetitions, 0.5 + delta / 2, cases)
        estimated = _score(repetitions, x_a, x_b).mean() / (repetitions**2 * (repetitions - 1))
        found += _exact_p(x_a, x_b, repetitions) <= 0.05 and estimated >= floor
    simulated = found / draws
    unfloored = power(excess, cases=cases, repetitions=repetitions)
    figure = power(excess, cases=cases, repetitions=repetitions, min_excess=floor)
    assert figure < unfloored - 0.1  # the floor binds in these settings
    error = math.sqrt(max(simulated * (1 - simulated), 0.01) / draws)
    assert abs(figure - simulated) <= 0.03 + 3 * error, (figure, simulated)
