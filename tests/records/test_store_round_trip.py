"""Records saved through a store come back equal, by every path a store reads them back.

Each store kind (a SQLite file, the memory store) is given an experiment, its variants,
observations with hostile outputs, point and difference measurements, saved in a random
order; then everything is read back: the stored run (from the rows, then from the snapshot
the SQLite store keeps, then by a store that only reads), observations by id, the experiment
list, the counts, ``Results.load`` and the column readers under it. Records must be equal, type
for type (``1``, ``1.0`` and ``True`` stay apart), ids must still be the content ids the
records carry, observations must come in the documented order, and saving everything again
must change nothing.

Records that a store cannot give back (a lone surrogate, an infinite duration) must be
refused when they are written, never accepted and then lost or made unreadable.
"""

from __future__ import annotations

import itertools
import math
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape._identity import content_id
from modelscape.errors import StoreError
from modelscape.execution.measuring import difference_id, point_id
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.stored import (
    DifferenceMeasurement,
    Observation,
    PointMeasurement,
    observation_id,
)
from modelscape.results.results import Results, run_of
from modelscape.store import MemoryStore, SQLiteStore, Store
from modelscape.targets._cleaning import clean_data, clean_output
from modelscape.targets.protocol import TargetOutput
from tests.records import hostile
from tests.records.hostile import RECORD, VARIANTS, dumps, fields, same, typed

KINDS = ["sqlite", "memory"]
# A falsifying example may hold 200,000 characters of text; Hypothesis warns as it prints it.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning"
)
_files = itertools.count()
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


def fresh(kind: str, folder: Path) -> Store:
    """A new, empty store of ``kind``: one per example, so none sees another's records."""
    return SQLiteStore(folder / f"s{next(_files)}.db") if kind == "sqlite" else MemoryStore()


def canonical(records: list[Observation]) -> list[Observation]:
    """The documented order of a loaded run: target as the experiment lists them, variant as
    stored, then repetition."""
    targets = [t.id for t in RECORD.targets]
    variants = [v.id for v in VARIANTS]
    return sorted(
        records,
        key=lambda o: (targets.index(o.target_id), variants.index(o.variant_id), o.repetition),
    )


def by_id(records: Any) -> list[Any]:
    """Typed dumps of measurements in id order (a store promises no order for them), each
    value with the sign of a zero dropped (a SQLite REAL column keeps none)."""
    found = []
    for record in sorted(records, key=lambda r: r.id):
        data = fields(record)
        if data["value"][0] == "float":
            data["value"] = typed(record.value + 0.0)
        found.append(data)
    return found


# -- what is saved --------------------------------------------------------------------------------
#: Outputs as a run stores them: cleaned at the boundary (see modelscape.targets._cleaning).
clean_outputs = hostile.raw_outputs().map(clean_output)
#: Point values a run can store: no NaN (a metric's NaN is stored as no value).
clean_values = st.none() | hostile.finite | st.sampled_from([math.inf, -math.inf])
clean_details = hostile.json_values(hostile.valid_text).map(clean_data)


@st.composite
def runs(
    draw: st.DrawFn,
    outputs: st.SearchStrategy[TargetOutput] = clean_outputs,
    values: st.SearchStrategy[float | None] = clean_values,
    details: st.SearchStrategy[Any] = clean_details,
) -> tuple[list[Observation], list[PointMeasurement], list[DifferenceMeasurement]]:
    stored = draw(hostile.observations(outputs))
    points, differences = hostile.measurements(draw, stored, values, details)
    return stored, points, differences


def save(
    store: Store,
    stored: list[Observation],
    points: list[PointMeasurement],
    differences: list[DifferenceMeasurement],
) -> None:
    store.save_experiment(RECORD, VARIANTS)
    store.save_observations(stored)
    store.save_measurements(points, differences)


def rows(store: Store) -> dict[str, list[Any]]:
    """Every row of a SQLite store's record tables (what a second save must not change)."""
    assert isinstance(store, SQLiteStore)
    tables = [
        "experiments",
        "variants",
        "experiment_variants",
        "observations",
        "experiment_observations",
        "measurements",
    ]
    with sqlite3.connect(store.path) as connection:
        found = {t: sorted(connection.execute(f"SELECT * FROM {t}"), key=repr) for t in tables}
    connection.close()
    return found


# -- reading it back ------------------------------------------------------------------------------
def loads(store: Store, folder: Path) -> Iterator[tuple[str, Store]]:
    """The store once per way it reads a run back, named: the SQLite store from its rows (a
    store that wrote keeps a snapshot as it loads), from that snapshot, and from the snapshot
    by a store opened only to read."""
    yield "first load", store
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(store.path) as connection:
            kept = connection.execute("SELECT count(*) FROM snapshots WHERE part = 'header'")
            assert kept.fetchone() == (1,), "the store that wrote kept no snapshot"
        connection.close()
        yield "snapshot", store
        reader = SQLiteStore(store.path, read_only=True)
        yield "read-only", reader
        reader.close()
    else:
        yield "second load", store


def check_run(
    store: Store,
    stored: list[Observation],
    points: list[PointMeasurement],
    differences: list[DifferenceMeasurement],
    how: str,
) -> None:
    """Everything ``store`` gives back of the run equals what was saved."""
    run = store.load(RECORD.id)
    same(fields(run.experiment), fields(RECORD), how)
    same(
        [typed(v.model_dump(mode="json")) for v in run.variants],
        [typed(v.model_dump(mode="json")) for v in VARIANTS],
        how,
    )
    same(dumps(run.observations), dumps(canonical(stored)), how)
    same(by_id(run.points), by_id(points), how)
    same(by_id(run.differences), by_id(differences), how)
    assert len(run.observations) == len(stored), how
    # Every id is still the content id of what its record holds.
    for o in run.observations:
        assert o.id == observation_id(RECORD.seed, o.target_id, o.variant_id, o.repetition), how
    for p in run.points:
        assert p.id == point_id(p.measure_id, p.observation_id), how
    for d in run.differences:
        assert d.id == difference_id(d.measure_id, d.first, d.second), how
    hashed = run.experiment.model_dump(mode="json", exclude={"id", "created"})
    assert content_id("experiment", hashed) == RECORD.id, how


def check_store(
    store: Store,
    stored: list[Observation],
    points: list[PointMeasurement],
    differences: list[DifferenceMeasurement],
) -> None:
    """The protocol's other readers agree with what was saved."""
    ids = [o.id for o in stored]
    found = store.observations([*ids, "no such id"])
    assert sorted(found) == sorted(ids)
    same(dumps(found[i] for i in ids), dumps(stored), "by id")
    assert [e.id for e in store.experiments()] == [RECORD.id]
    statuses = [o.status for o in stored]
    assert store.status_counts(RECORD.id) == {
        "ok": statuses.count("ok"),
        "failed": statuses.count("failed"),
    }
    (metric,) = RECORD.point_metrics
    assert store.measured(metric.id, ids) == {p.observation_id for p in points}
    every = [p.id for p in points] + [d.id for d in differences]
    assert store.measurement_ids([*every, "no such id"]) == set(every)


def check_columns(results: Results, stored: list[Observation], points: Any, how: str) -> None:
    """The columns the analyses read hold, row for row, what records held one by one hold."""
    indexed = run_of(results)
    expected = ObservationColumns.of_records(canonical(stored))
    columns = indexed.columns
    assert columns.ids == expected.ids, how
    for name in ("target", "case", "variant", "coordinate", "model"):
        same(
            [typed(getattr(columns, name)[i]) for i in range(len(columns))],
            [typed(getattr(expected, name)[i]) for i in range(len(expected))],
            f"{how}, column {name}",
        )
    for name in ("ok", "repetition", "input_tokens", "output_tokens"):
        assert np.array_equal(getattr(columns, name), getattr(expected, name)), (how, name)
    for name in ("started", "duration", "latency", "cost"):
        left, right = getattr(columns, name), getattr(expected, name)
        assert np.array_equal(left, right, equal_nan=True), (how, name)
        assert np.array_equal(np.signbit(left), np.signbit(right)), (how, name)

    def point_rows(table: PointColumns) -> list[Any]:
        return sorted(
            (
                table.ids[i],
                table.observation_ids[i],
                table.measure[i],
                table.measure_id[i],
                typed(float(table.values[i]) + 0.0) if table.has_value[i] else None,
                typed(table.details[i]),
            )
            for i in range(len(table))
        )

    same(point_rows(indexed.point_columns), point_rows(PointColumns.of_records(points)), how)


# -- the properties -------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@SETTINGS
@given(run=runs())
def test_what_a_store_is_given_it_gives_back_by_every_path(
    kind: str,
    tmp_path: Path,
    run: tuple[list[Observation], list[PointMeasurement], list[DifferenceMeasurement]],
) -> None:
    stored, points, differences = run
    store = fresh(kind, tmp_path)
    save(store, stored, points, differences)
    for how, reader in loads(store, tmp_path):
        check_run(reader, stored, points, differences, how)
        check_store(reader, stored, points, differences)
        results = Results.load(reader, RECORD.id)
        same(dumps(run_of(results).observations), dumps(canonical(stored)), how)
        same(by_id(run_of(results).point_measurements), by_id(points), how)
        same(by_id(run_of(results).difference_measurements), by_id(differences), how)
        check_columns(results, stored, points, how)
    # A second save of the same records is a no-op.
    before = rows(store) if isinstance(store, SQLiteStore) else None
    save(store, stored, points, differences)
    if before is not None:
        assert rows(store) == before
    check_run(store, stored, points, differences, "after a second save")
    store.close()


def boundary(observation: Observation) -> Observation:
    """What the documented cleaning makes of an observation's output."""
    return observation.model_copy(update={"output": clean_output(observation.output)})


#: Numbers a run never stores but a caller of the protocol may hand in.
odd_times = hostile.finite | st.sampled_from(hostile.NON_FINITE)


@st.composite
def raw_runs(
    draw: st.DrawFn,
) -> tuple[list[Observation], list[PointMeasurement], list[DifferenceMeasurement]]:
    stored = [
        o.model_copy(update={"started": draw(odd_times), "duration": draw(odd_times)})
        for o in draw(hostile.observations(hostile.raw_outputs()))
    ]
    points, differences = hostile.measurements(
        draw, stored, st.none() | odd_times, hostile.json_values(hostile.raw_text)
    )
    differences = [
        d.model_copy(update={"value": draw(st.sampled_from([d.value, *hostile.NON_FINITE]))})
        for d in differences
    ]
    return stored, points, differences


def refusal(write: Callable[..., None], *args: Any, **kwargs: Any) -> str | None:
    """What a store said when it refused a write, or None when it took it."""
    try:
        write(*args, **kwargs)
    except StoreError as error:
        return str(error)
    except UnicodeEncodeError as error:
        return f"UnicodeEncodeError: {error}"
    return None


@SETTINGS
@given(run=raw_runs())
def test_what_sqlite_cannot_keep_is_refused_at_write_never_lost_later(
    tmp_path: Path,
    run: tuple[list[Observation], list[PointMeasurement], list[DifferenceMeasurement]],
) -> None:
    """Raw records handed to the SQLite store one at a time: each is refused with a
    StoreError and not kept, or it comes back as the boundary's cleaning would make it."""
    stored, points, differences = run
    store = fresh("sqlite", tmp_path)
    store.save_experiment(RECORD, VARIANTS)
    kept: list[Observation] = []
    for observation in stored:
        refused = refusal(store.save_observations, [observation])
        if refused is None:
            kept.append(boundary(observation))
        else:
            assert f"observation {observation.id} cannot be stored" in refused
            assert store.observations([observation.id]) == {}
    measured: list[PointMeasurement] = []
    paired: list[DifferenceMeasurement] = []
    for point in points:
        refused = refusal(store.save_measurements, points=[point])
        if refused is None:
            nan = point.value is not None and math.isnan(point.value)
            measured.append(point.model_copy(update={"value": None}) if nan else point)
        else:  # a lone surrogate in its details: the caller's text, refused as it is
            assert refused.startswith("UnicodeEncodeError")
            assert store.measurement_ids([point.id]) == set()
    for difference in differences:
        refused = refusal(store.save_measurements, differences=[difference])
        if refused is None:
            paired.append(difference)
        else:
            assert f"measurement {difference.id} cannot be stored" in refused
            assert store.measurement_ids([difference.id]) == set()
    members = {o.id for o in kept}
    measured = [p for p in measured if p.observation_id in members]
    paired = [d for d in paired if {d.first, d.second} <= members]
    for how, reader in loads(store, tmp_path):
        check_run(reader, kept, measured, paired, how)
    store.close()
