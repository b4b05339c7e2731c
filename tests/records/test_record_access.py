"""Reading a run's records by position and a keyed measure's keys by cell.

Observations are read by index like a sequence (an index past either end is an IndexError,
not another record), and a cell's keys come with the ids of their measurements, or an error
naming an output that has none.
"""

from __future__ import annotations

import pytest

from modelscape.errors import AnalysisError
from modelscape.results.results import Results, run_of
from modelscape.task.design import Grid
from tests.analysis.conftest import run, scenario


@pytest.fixture(scope="module")
def results() -> Results:
    return run(scenario(Grid(axes=("level", "mode")), repetitions=2), "steady")


def test_observations_are_indexed_like_a_sequence(results: Results) -> None:
    observations = run_of(results).observations
    size = len(observations)
    assert observations[size - 1].id == observations[-1].id
    assert observations[-size].id == observations[0].id
    for outside in (size, size + 1, -size - 1):
        with pytest.raises(IndexError):
            observations[outside]


def test_every_cell_gives_its_outputs_keys_in_order(results: Results) -> None:
    indexed = run_of(results)
    seen = 0
    for observation in indexed.observations:
        if observation.repetition != 0:
            continue
        key = indexed.key(observation.coordinate)
        ids, keys = indexed.cell_details("length", observation.target, observation.case, key)
        cell = [
            o
            for o in indexed.observations
            if (o.target, o.case, o.coordinate)
            == (observation.target, observation.case, observation.coordinate)
        ]
        assert list(keys) == [len(o.output.text) for o in sorted(cell, key=lambda o: o.repetition)]
        assert len(ids) == len(cell)
        seen += 1
    assert seen > 1


def test_a_measure_without_keys_names_an_output(results: Results) -> None:
    indexed = run_of(results)
    first = indexed.observations[0]
    key = indexed.key(first.coordinate)
    with pytest.raises(AnalysisError, match="has no value for observation"):
        indexed.cell_details("no such measure", first.target, first.case, key)
