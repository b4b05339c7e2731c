"""A stored output's duration is the time its call took: never negative, and never more than
the whole run that made it (it is a span of time, not a clock reading)."""

from __future__ import annotations

import time

from modelscape import CallableTarget
from modelscape.execution import ExecutionConfig, Experiment, RetryPolicy, Runner
from modelscape.results.results import run_of
from modelscape.store import MemoryStore
from modelscape.targets.protocol import TargetOutput
from tests.support.mapping_space import space


def test_each_duration_lies_within_the_run() -> None:
    target = CallableTarget(lambda request: TargetOutput(text="ok"), name="t")
    experiment = Experiment(
        task_space=space(1),
        targets=[target],
        execution=ExecutionConfig(concurrency=2, timeout=10.0, retry=RetryPolicy(attempts=1)),
    )
    started = time.perf_counter()
    results = Runner(store=MemoryStore()).run(experiment)
    indexed = run_of(results)
    elapsed = time.perf_counter() - started
    assert indexed.observations
    for observation in indexed.observations:
        assert observation.duration is not None
        assert 0.0 <= observation.duration <= elapsed
