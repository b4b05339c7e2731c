"""Records held as columns read back as the records they hold, under every sequence operation.

A run's observations and point measurements are columns (:mod:`modelscape.records.columns`)
that analyses read without building records, and that readers use as read-only sequences of
records. Whether made from records or by a store from its rows, they must be the same
sequence as the records: the same length, the same record at every index (negative ones
too), the same slices, the same iteration, equal to a list of them; and a categorical column
must give every row back its own value, type and sign of zero included.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from modelscape.records.categorical import Categorical, Codes
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.stored import Observation
from modelscape.store import SQLiteStore
from modelscape.targets._cleaning import clean_output
from tests.records import hostile
from tests.records.hostile import RECORD, VARIANTS, dumps, same, typed

pytestmark = pytest.mark.filterwarnings(
    "ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning"
)
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_files = itertools.count()
outputs = hostile.raw_outputs().map(clean_output)
slices = st.builds(
    slice,
    st.none() | st.integers(-12, 12),
    st.none() | st.integers(-12, 12),
    st.none() | st.integers(-3, 3).filter(bool),
)


def behaves_as(columns: Any, records: list[Any], cut: slice) -> None:
    """``columns`` is, as a sequence, ``records``."""
    assert len(columns) == len(records)
    same(dumps(columns), dumps(records), "iterating")
    for index in range(-len(records), len(records)):
        same(dumps([columns[index]]), dumps([records[index]]), f"[{index}]")
    for outside in (len(records), -len(records) - 1):
        with pytest.raises(IndexError):
            columns[outside]
    taken = columns[cut]
    assert isinstance(taken, tuple)
    same(dumps(taken), dumps(records[cut]), f"[{cut}]")
    rows = list(range(len(records)))[cut]
    same(dumps(columns.at(rows)), dumps([records[i] for i in rows]), "at")
    assert columns == records
    assert columns == tuple(records)
    if records:
        assert columns != [*records, records[0]]


@SETTINGS
@given(stored=hostile.observations(outputs, most=8), cut=slices)
def test_observations_made_from_records_are_those_records(
    stored: list[Observation], cut: slice
) -> None:
    columns = ObservationColumns.of_records(stored)
    behaves_as(columns, stored, cut)
    for index, record in enumerate(stored):  # made from records: the records themselves
        assert columns[index] is record


@SETTINGS
@given(stored=hostile.observations(outputs, most=8), cut=slices)
def test_observations_a_store_reads_as_columns_are_the_records_it_was_given(
    tmp_path: Path, stored: list[Observation], cut: slice
) -> None:
    with SQLiteStore(tmp_path / f"s{next(_files)}.db") as store:
        store.save_experiment(RECORD, VARIANTS)
        store.save_observations(stored)
        loaded = store.load(RECORD.id).observations
    assert isinstance(loaded, ObservationColumns)
    order = {o.id: i for i, o in enumerate(loaded)}
    behaves_as(loaded, sorted(stored, key=lambda o: order[o.id]), cut)


@SETTINGS
@given(data=st.data(), cut=slices)
def test_point_measurements_made_from_records_are_those_records(
    data: st.DataObject, cut: slice
) -> None:
    stored = data.draw(hostile.observations(outputs, most=8))
    points, _ = hostile.measurements(
        data.draw,
        stored,
        st.none() | hostile.finite,
        hostile.json_values(hostile.valid_text),
    )
    behaves_as(PointColumns.of_records(points), points, cut)


#: Values equal under ``==`` that are not the same value, and values that are.
LOOK_ALIKE: list[Any] = [1, 1.0, True, "1", 0, 0.0, -0.0, False, None, [0.0], [-0.0], {"a": 1}]


@SETTINGS
@given(
    values=st.lists(
        st.sampled_from(LOOK_ALIKE) | hostile.json_values(hostile.raw_text), max_size=12
    )
)
@example(values=[[-0.0], [0.0]])  # shared one value before frozen_key kept the sign of a zero
def test_every_row_of_a_categorical_column_reads_back_its_own_value(values: list[Any]) -> None:
    """However values repeat (1, 1.0 and True; 0.0 and -0.0; dicts with their keys in
    another order), a row never reads back another row's value."""
    for column in (Categorical.of(values), filled(values)):
        same([typed(column[i]) for i in range(len(column))], [typed(v) for v in values])
        assert len(column) == len(values)
        assert len(column.values) <= len(values)


def filled(values: list[Any]) -> Categorical:
    """The column a store files the values into, a few at a time."""
    codes = Codes()
    for start in range(0, len(values), 3):
        codes.extend(values[start : start + 3])
    return codes.column()


def test_look_alike_values_are_apart_and_equal_ones_shared() -> None:
    values: list[Any] = [1, 1.0, True, "1", 0.0, -0.0, {"a": 1, "b": 2}, {"b": 2, "a": 1}, 1]
    column = Categorical.of(values)
    assert [typed(column[i]) for i in range(len(values))] == [typed(v) for v in values]
    assert len(column.values) == len(values) - 1  # only the last 1 is shared
    assert column.code(True) == 2
    assert column.code(-0.0) == 5
    assert column.code("missing") == -1
    assert column.where(lambda v: v == 1).tolist() == [
        True,
        True,
        True,
        False,
        False,
        False,
        False,
        False,
        True,
    ]
