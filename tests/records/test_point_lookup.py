"""A point value is found by its observation's id, and an id the run does not hold finds none.

``Results.point`` is how the reports and exports read a metric of one output; an id from
another run (or mistyped) must give None, not some other output's value.
"""

from __future__ import annotations

from modelscape import CallableTarget
from modelscape.execution import ExecutionConfig, Experiment, RetryPolicy, Runner
from modelscape.measures import CallableMetric
from modelscape.results.results import run_of
from modelscape.store import MemoryStore
from modelscape.targets.protocol import TargetOutput
from tests.support.mapping_space import space

FAST = ExecutionConfig(concurrency=2, timeout=10.0, retry=RetryPolicy(attempts=1))


def test_each_observation_finds_its_own_value_and_an_unknown_id_finds_none() -> None:
    replies = iter(range(1000))
    target = CallableTarget(lambda request: TargetOutput(text=str(next(replies))), name="t")
    length = CallableMetric(lambda variant, output: float(output.text), name="number")
    experiment = Experiment(
        task_space=space(1), targets=[target], point_metrics=[length], execution=FAST
    )
    results = Runner(store=MemoryStore()).run(experiment)
    indexed = run_of(results)
    assert len(indexed.observations) >= 2
    for observation in indexed.observations:
        point = indexed.point("number", observation.id)
        assert point is not None
        assert point.value == float(observation.output.text)
    assert indexed.point("number", "an id of no observation") is None
    assert indexed.point("number", indexed.observations[0].id + "x") is None
    assert indexed.point("no such metric", indexed.observations[0].id) is None
