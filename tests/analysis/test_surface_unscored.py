"""A surface over a target that never answers (every call fails): every point says so.

Each combination then has no value, no interval and no supporting case: the count of cases
is 0, not some other number a page would print beside "no value".
"""

from __future__ import annotations

from modelscape import CallableTarget, TargetRequest
from modelscape.execution import Runner
from modelscape.task.design import Grid
from tests.analysis.conftest import FAST, scenario


def test_every_point_of_an_unscored_target_has_no_value_and_no_case() -> None:
    async def fail(request: TargetRequest) -> str:
        raise RuntimeError("the service is down")

    space = scenario(Grid(axes=("level", "mode")), repetitions=2)
    results = Runner().run(space.experiment([CallableTarget(fail, name="silent")]))
    surface = results.surface("level", "mode", target="silent", inference=FAST)
    assert surface.points
    for point in surface.points:
        assert point.value is None
        assert point.low is None
        assert point.high is None
        assert point.cases == 0
        assert point.insufficient is not None
