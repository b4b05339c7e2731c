"""Every output of a cell gives its key, the run's very first measurement included.

A keyed measure's keys are point measurements laid out by observation row; a row without one
is marked -1, and ``cell_details`` names the output that lacks its key. Here the keyed measure
is the run's only point measure, so its first key is the first point measurement of all: it
must read as a key like any other, not as a missing one.
"""

from __future__ import annotations

from modelscape import CallableTarget
from modelscape.execution import ExecutionConfig, Experiment, RetryPolicy, Runner
from modelscape.measures import KeyedDifference, Response
from modelscape.results.results import run_of
from modelscape.store import MemoryStore
from modelscape.targets.protocol import TargetOutput
from tests.support.mapping_space import space

FAST = ExecutionConfig(concurrency=2, timeout=10.0, retry=RetryPolicy(attempts=1))


def _length(response: Response) -> int:
    return len(response.output.text)


def test_every_cell_gives_every_outputs_key_in_order() -> None:
    replies = iter(range(10_000))
    target = CallableTarget(lambda request: TargetOutput(text="x" * next(replies)), name="t")
    length = KeyedDifference(_length, name="length", distance="absolute")
    experiment = Experiment(
        task_space=space(2),
        targets=[target],
        repetitions=2,
        difference_measures=[length],
        execution=FAST,
    )
    results = run_of(Runner(store=MemoryStore()).run(experiment))
    assert set(results.point_columns.measure) == {"length"}
    first_point = results.point_columns.observation_ids[0]
    cells = {(o.target, o.case, results.key(o.coordinate)) for o in results.observations}
    covered = set()
    for target_name, case, key in sorted(cells, key=str):
        outputs = results.outputs(target_name, case, key)
        ids, keys = results.cell_details("length", target_name, case, key)
        assert list(keys) == [len(o.output.text) for o in outputs]
        assert len(ids) == len(outputs)
        covered.update(o.id for o in outputs)
    assert first_point in covered
    assert covered == {o.id for o in results.observations}
