"""The analyses' all-cases-at-once paths give the numbers of the cell-by-cell ones, bit for bit.

A run whose target fails some calls has cells of every size from 0 to the repetitions, so the
comparisons group their cases by size in several ways; each path must keep that grouping, the
order of the cases and every matrix exactly.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.analysis import cells, prepared
from modelscape.analysis.cells import MeasureView
from modelscape.analysis.ids import IdRows, first_occurrences
from modelscape.analysis.prepared import prepare
from modelscape.analysis.profiles import _comparand
from modelscape.execution import ExecutionConfig, RetryPolicy, Runner
from modelscape.records.grid import row_means
from modelscape.records.run import IndexedRun
from modelscape.report.report import build_report
from modelscape.results.results import Results, run_of
from modelscape.stats import Inference
from modelscape.targets import CallableTarget
from modelscape.targets.protocol import TargetRequest
from tests.analysis.conftest import TARGETS, _reply, _target, scenario


def _flaky(request: TargetRequest) -> str:
    rng = random.Random(request.seed)
    if rng.random() < 0.3:
        raise TimeoutError("the server did not answer")
    return _reply(TARGETS["swayed"](request.prompt.text, rng))


@pytest.fixture(scope="module")
def flaky() -> Results:
    space = scenario(repetitions=5)
    targets = [_target("steady", TARGETS["steady"]), CallableTarget(_flaky, name="flaky")]
    once = ExecutionConfig(retry=RetryPolicy(attempts=1, initial_delay=0.0))
    return Runner().run(space.experiment(targets, once))


def _pairs(records: IndexedRun) -> list[tuple[str, str, int, int]]:
    """(first target, second target, first coordinate, second coordinate) of many steps."""
    count = len(records.coordinates)
    names = records.targets
    return [
        (first, second, i, j)
        for first in names
        for second in names
        for i in range(count)
        for j in range(0, count, 3)
        if i != j or first != second
    ]


@pytest.mark.parametrize("measure", ["answer_change", "length"])
def test_prepared_at_once_equals_cell_by_cell(
    flaky: Results, measure: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = run_of(flaky)
    sizes = {
        len(records.rows(t, c, k))
        for t in records.targets
        for c in records.cases
        for k in records.keys
    }
    assert sizes >= {2, 3, 4, 5}  # cells of several sizes, so several groups per step
    coordinates = records.coordinates
    comparands = []
    for first, second, i, j in _pairs(records):
        comparand = _comparand(
            first, measure, "level", coordinates[i], coordinates[j], records.cases
        )
        comparands.append(cells.Comparand(**{**comparand.__dict__, "second_target": second}))
    fast = [prepare(MeasureView(records, measure), c) for c in comparands]
    monkeypatch.setattr(prepared, "_prepare_at_once", lambda *arguments: None)
    slow = [prepare(MeasureView(records, measure), c) for c in comparands]
    for a, b in zip(fast, slow, strict=True):
        assert a.cases == b.cases
        assert a.sizes == b.sizes
        assert a.ids == b.ids
        assert [m.tobytes() for m in a.matrices] == [m.tobytes() for m in b.matrices]
        assert a.between.tobytes() == b.between.tobytes()
        assert a.within.tobytes() == b.within.tobytes()


def test_case_points_are_the_cells_values_in_order(flaky: Results) -> None:
    records = run_of(flaky)
    for target in records.targets:
        lengths, values, rows = records.case_points("correct", target, records.cases, records.keys)
        ids = records.point_id_array.take(rows).tolist()
        expected_values: list[float] = []
        expected_ids: list[str] = []
        expected_lengths = []
        for case in records.cases:
            before = len(expected_values)
            for key in records.keys:
                cell_values, cell_ids = records.cell_points("correct", target, case, key)
                expected_values.extend(cell_values)
                expected_ids.extend(cell_ids)
            expected_lengths.append(len(expected_values) - before)
        assert lengths.tolist() == expected_lengths
        assert values.tolist() == expected_values
        assert ids == expected_ids


def test_row_means_equal_numpy_means_of_each_row() -> None:
    rng = np.random.default_rng(2)
    lengths = rng.integers(1, 300, size=400)
    values = rng.standard_normal(int(lengths.sum())) * 10.0 ** rng.integers(-8, 8, lengths.sum())
    means = row_means(values, lengths)
    starts = np.cumsum(lengths) - lengths
    expected = [
        float(np.mean(values[a : a + n].tolist())) for a, n in zip(starts, lengths, strict=True)
    ]
    assert means.tobytes() == np.asarray(expected).tobytes()


def test_report_of_a_flaky_run_is_the_same_cell_by_cell(
    flaky: Results, monkeypatch: pytest.MonkeyPatch
) -> None:
    inference = Inference(permutations=5000, resamples=100)

    def report() -> dict[str, object]:
        # Fresh records each time: nothing computed by the other path is reused.
        held = run_of(flaky)
        fresh = Results(
            held.experiment,
            held.variants,
            list(held.observations),
            list(held.point_measurements),
            held.difference_measurements,
        )
        data = build_report(fresh, inference=inference).model_dump()
        data["provenance"].pop("created")
        return data

    fast = report()
    monkeypatch.setattr(prepared, "_prepare_at_once", lambda *arguments: None)
    assert fast == report()


@pytest.mark.parametrize("measure", ["answer_change", "length"])
def test_withins_at_once_equal_each_cells_within(flaky: Results, measure: str) -> None:
    records = run_of(flaky)
    for target in records.targets:
        for coordinate in records.coordinates:
            view = MeasureView(records, measure)
            together = view.withins(target, records.cases, coordinate)
            one_by_one = [
                MeasureView(records, measure).within(target, case, coordinate)
                for case in records.cases
            ]
            assert together == one_by_one


def test_id_rows_name_the_ids_of_the_chosen_cases_in_order(flaky: Results) -> None:
    records = run_of(flaky)
    coordinates = records.coordinates
    rng = np.random.default_rng(4)
    table = records.point_id_array
    several = 0
    for first, second, i, j in _pairs(records)[:40]:
        comparand = _comparand(
            first, "answer_change", "level", coordinates[i], coordinates[j], records.cases
        )
        found = prepare(
            MeasureView(records, "answer_change"),
            cells.Comparand(**{**comparand.__dict__, "second_target": second}),
        )
        several += len(found.blocks) > 1
        for chosen in (None, rng.random(len(found.cases)) < 0.5):
            picked = range(len(found.cases)) if chosen is None else np.flatnonzero(chosen)
            rows = found.id_rows(chosen)
            assert rows is not None
            assert table.take(rows).tolist() == [i for k in picked for i in found.ids[k]]
    assert several  # cases of several sizes, so the blocks interleave


id_parts = st.lists(
    st.one_of(
        st.lists(st.integers(0, 59), max_size=30).map(lambda r: np.asarray(r, dtype=np.int64)),
        st.lists(st.integers(0, 59), max_size=30).map(tuple),
    ),
    max_size=6,
)


@given(id_parts, st.booleans())
def test_ids_merged_over_rows_are_the_first_occurrences_of_the_ids(
    flaky: Results, parts: list[np.ndarray | tuple[int, ...]], keep: bool
) -> None:
    registry = IdRows(run_of(flaky))
    table = run_of(flaky).point_id_array
    assert len(table) >= 60
    given: list[np.ndarray | tuple[str, ...]] = []
    for part in parts:
        if isinstance(part, tuple):  # ids as text: known to the registry when it named them
            rows = np.asarray(part, dtype=np.int64)
            named = registry.named(rows) if len(part) % 2 else tuple(table.take(rows).tolist())
            given.append(named)
        else:
            given.append(part)
    expected = tuple(
        dict.fromkeys(
            i
            for part in given
            for i in (table.take(part).tolist() if isinstance(part, np.ndarray) else part)
        )
    )
    known = all(isinstance(part, np.ndarray) or registry.rows(part) is not None for part in given)
    merged = registry.unique(given, keep=keep)
    assert merged == expected
    if keep and known:  # kept with its rows, for a later merge to find
        kept = registry.rows(merged)
        assert kept is not None
        assert table.take(kept).tolist() == list(merged)


@given(st.lists(st.integers(0, 40), max_size=60), st.integers(41, 400))
def test_first_occurrences_by_table_and_by_sorting_agree(values: list[int], bound: int) -> None:
    rows = np.asarray(values, dtype=np.int64)
    expected = list(dict.fromkeys(values))
    by_table = first_occurrences(rows, 41)  # a table no larger than the rows: minimum.at
    by_sorting = first_occurrences(rows, bound * 1000)  # far more points than rows: np.unique
    assert by_table.tolist() == expected
    assert by_sorting.tolist() == expected
