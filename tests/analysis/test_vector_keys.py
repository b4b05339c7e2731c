"""A keyed measure with vector keys (euclidean distance) through a profile's baseline.

Vector keys are not single numbers, so the run-to-run variation of the baseline takes the
general path (every cell's distances from its keys) rather than the vectorised one for
numeric keys; it must give the mean pairwise distance of each cell's outputs all the same.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from modelscape._identity import JsonValue
from modelscape.measures import KeyedDifference, Response
from modelscape.results.results import Results
from modelscape.scenario import Scenario
from modelscape.targets.protocol import TargetOutput
from modelscape.task.design import Sweep
from tests.analysis import direct
from tests.analysis.conftest import ANSWER, AXES, FAST, ITEMS, TEMPLATE, run


def _vector(response: Response) -> JsonValue:
    text = response.output.text
    return [len(text), text.count("y")]


def _distance(first: TargetOutput, second: TargetOutput) -> float:
    a = (len(first.text), first.text.count("y"))
    b = (len(second.text), second.text.count("y"))
    return math.dist(a, b)


@pytest.fixture(scope="module")
def results() -> Results:
    space = Scenario(
        name="planted-vectors",
        version="1",
        description="The planted space with a vector-keyed measure.",
        task_space=TEMPLATE.space(AXES),
        answer=ANSWER,
        repetitions=4,
        measures=(KeyedDifference(_vector, name="vector", distance="euclidean"),),
        design=Sweep(),
    )
    return run(space, "steady")


def test_the_baseline_holds_the_mean_distance_between_vector_keys(results: Results) -> None:
    profile = results.profile("level", "vector", target="steady", inference=FAST)
    home = profile.baseline[0]
    assert home.excess == 0.0
    within = np.mean(
        [
            direct.mean_within(direct.outputs(results, "steady", case, home.first), _distance)
            for case in ITEMS
        ]
    )
    assert within > 0  # steady flips a tenth of its answers: some outputs differ
    assert home.between == home.within == pytest.approx(within, abs=1e-12)
    assert home.cases == len(ITEMS)
