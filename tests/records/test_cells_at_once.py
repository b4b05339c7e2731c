"""Many cells read at once are the cells read one by one, names the run does not hold included.

``cells_at`` and ``case_points`` read a whole column of cells in one go (the analyses call
them for every case of a target at a key); ``rows`` and ``cell_points`` read one cell. A target,
case or coordinate the run does not hold has no cell either way: no number (-1), no size, no
value, and never the cell of some other case or target.
"""

from __future__ import annotations

import pytest

from modelscape import CallableTarget
from modelscape.execution import ExecutionConfig, Experiment, RetryPolicy, Runner
from modelscape.measures import CallableMetric
from modelscape.records.grid import CoordinateKey
from modelscape.records.run import IndexedRun
from modelscape.results.results import run_of
from modelscape.store import MemoryStore
from modelscape.targets.protocol import TargetOutput
from tests.support.mapping_space import space

FAST = ExecutionConfig(concurrency=2, timeout=10.0, retry=RetryPolicy(attempts=1))


@pytest.fixture(scope="module")
def results() -> IndexedRun:
    replies = iter(range(10_000))

    def target(name: str) -> CallableTarget:
        return CallableTarget(lambda request: TargetOutput(text=str(next(replies))), name=name)

    number = CallableMetric(lambda variant, output: float(output.text), name="number")
    experiment = Experiment(
        task_space=space(3),
        targets=[target("first"), target("second")],
        point_metrics=[number],
        repetitions=2,
        execution=FAST,
    )
    return run_of(Runner(store=MemoryStore()).run(experiment))


def one_by_one(
    results: IndexedRun, target: str, cases: tuple[str, ...], keys: tuple[CoordinateKey, ...]
) -> tuple[list[int], list[float], list[str]]:
    """What case_points gives, read a cell at a time."""
    lengths: list[int] = []
    values: list[float] = []
    ids: list[str] = []
    for case in cases:
        before = len(values)
        for key in keys:
            cell_values, cell_ids = results.cell_points("number", target, case, key)
            values.extend(cell_values)
            ids.extend(cell_ids)
        lengths.append(len(values) - before)
    return lengths, values, ids


def names(results: IndexedRun) -> tuple[tuple[str, ...], tuple[CoordinateKey, ...]]:
    """Every case and key, with one case and one key the run does not hold among them."""
    cases = (results.cases[0], "no such case", *results.cases[1:])
    keys = (*results.keys[:2], results.key({}), *results.keys[2:])
    return cases, keys


@pytest.mark.parametrize("target", ["first", "second", "no such target"])
def test_case_points_are_the_cells_read_one_by_one(results: IndexedRun, target: str) -> None:
    cases, keys = names(results)
    lengths, values, rows = results.case_points("number", target, cases, keys)
    expected = one_by_one(results, target, cases, keys)
    assert lengths.tolist() == expected[0]
    assert values.tolist() == expected[1]
    assert results.point_id_array.take(rows).tolist() == expected[2]
    assert (sum(expected[0]) > 0) == (target != "no such target")


@pytest.mark.parametrize("target", ["first", "second", "no such target"])
def test_cells_at_a_key_are_the_cells_read_one_by_one(results: IndexedRun, target: str) -> None:
    cases, keys = names(results)
    for key in keys:
        numbers, sizes = results.cells_at(target, cases, key)
        for case, number, size in zip(cases, numbers.tolist(), sizes.tolist(), strict=True):
            rows = results.rows(target, case, key)
            assert size == len(rows)
            assert (number >= 0) == (len(rows) > 0)
            if number >= 0:
                assert results.cell_block(numbers[[cases.index(case)]], size)[0].tolist() == (
                    rows.tolist()
                )
