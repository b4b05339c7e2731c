"""Analyses of a run where one target failed every call: the rest stays intact."""

from __future__ import annotations

import pytest

from modelscape.execution import ExecutionConfig, RetryPolicy, Runner
from modelscape.results.results import Results
from modelscape.targets import CallableTarget
from modelscape.targets.protocol import TargetRequest
from tests.analysis.conftest import FAST, TARGETS, _target, scenario


def _dead(request: TargetRequest) -> str:
    raise TimeoutError("the server did not answer")


@pytest.fixture(scope="module")
def half_dead() -> Results:
    space = scenario()
    targets = [_target("steady", TARGETS["steady"]), CallableTarget(_dead, name="dead")]
    once = ExecutionConfig(retry=RetryPolicy(attempts=1, initial_delay=0.0))
    return Runner().run(space.experiment(targets, once))


def test_every_analysis_of_the_dead_target_says_why_and_spares_the_other(
    half_dead: Results,
) -> None:
    profile = half_dead.profile("level", "answer_change", target="dead", inference=FAST)
    assert profile.candidate_boundaries == ()
    for step in profile.local:
        assert step.excess is None
        assert step.cases == 0
        assert step.p_value is None
        assert step.adjusted_p is None
        assert step.insufficient is not None
        assert step.insufficient.startswith("no case has two successful outputs on both sides")
    assert half_dead.sensitivity("answer_change", target="dead", inference=FAST) == ()
    (agreement, *_) = half_dead.agreement(
        ["answer_change", "differs"], target="dead", inference=FAST
    )
    assert agreement.transitions == 0
    assert agreement.rank_correlation is None
    divergence = half_dead.divergence("answer_change", "steady", "dead", inference=FAST)
    assert divergence.largest is None
    assert all(c.insufficient is not None and c.p_value is None for c in divergence.contrasts)
    # The steady target is analysed as if the dead one were not there.
    steady = half_dead.profile("level", "answer_change", target="steady", inference=FAST)
    assert all(step.excess is not None and step.insufficient is None for step in steady.local)
    ranking = half_dead.sensitivity("answer_change", target="steady", inference=FAST)
    assert {s.axis for s in ranking} == {"level", "mode", "tone"}
    card = half_dead.scorecard("correct", "answer_change", target="steady", inference=FAST)
    assert card.spurious_change is not None
    dead = half_dead.scorecard("correct", "answer_change", target="dead", inference=FAST)
    assert dead.failed == dead.observations
    for axis in dead.axes:
        assert all((p.mean, p.observations) == (None, 0) for p in axis.accuracy)
    assert set(dead.undefined) >= {
        "accuracy",
        "baseline_accuracy",
        "spurious_change",
        "missed_change",
        "shifts",
        "invariant_shifts",
    }
