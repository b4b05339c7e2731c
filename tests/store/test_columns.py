"""A store load by columns gives the records a row-by-row load gives, and the indexes of
records held as columns answer as those of records held one by one."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.errors import StoreError
from modelscape.execution.runner import Runner
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.stored import Observation, PointMeasurement
from modelscape.results.results import Results, run_of
from modelscape.store.protocol import canonical_order
from modelscape.store.rows import observation_of
from modelscape.store.snapshot import read_snapshot
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets.protocol import TargetOutput, Usage
from tests.support.mapping_space import experiment, planted

RUN = experiment([planted("a"), planted("b")], repetitions=2)
RECORD = RUN.record()
VARIANTS = RUN.variants()

texts = st.text(max_size=12)
numbers = st.floats(allow_nan=False, allow_infinity=False, width=64)
outputs = st.builds(
    TargetOutput,
    text=texts,
    data=st.one_of(st.none(), st.dictionaries(texts, st.integers() | texts, max_size=2)),
    model=st.one_of(st.none(), st.sampled_from(["m1", "m2", ""])),
    usage=st.one_of(st.none(), st.builds(Usage, input_tokens=st.integers(0, 10**6))),
    finish_reason=st.one_of(st.none(), st.just("stop")),
    latency=st.one_of(st.none(), numbers),
    error=st.one_of(st.none(), texts),
)


@st.composite
def observations(draw: st.DrawFn) -> list[Observation]:
    """Observations of the shared run's targets and variants, some of them of another run."""
    count = draw(st.integers(0, 12))
    found = []
    for index in range(count):
        target = draw(st.sampled_from(RECORD.targets))
        variant = draw(st.sampled_from(VARIANTS))
        found.append(
            Observation(
                id=f"o{index}",
                experiment_id=draw(st.sampled_from([RECORD.id, "other"])),
                target=target.name,
                target_id=target.id,
                variant_id=variant.id,
                case=variant.case,
                coordinate=dict(variant.coordinate),
                repetition=draw(st.integers(0, 3)),
                seed=draw(st.integers(0, 2**70)),
                status=draw(st.sampled_from(["ok", "failed"])),
                output=draw(outputs),
                attempts=draw(st.integers(1, 3)),
                started=draw(numbers),
                duration=draw(numbers),
            )
        )
    return found


def points_of(
    draw: st.DrawFn, stored: list[Observation], measure_ids: list[str]
) -> list[PointMeasurement]:
    found = []
    for observation in stored:
        # Each measurement under its measure's own name, as the runner stores it.
        names = {m.id: m.name for m in RECORD.point_metrics}
        for measure, measure_id in ((names[i], i) for i in measure_ids):
            if draw(st.booleans()):
                found.append(
                    PointMeasurement(
                        id=f"{measure}:{observation.id}",
                        observation_id=observation.id,
                        measure=measure,
                        measure_id=measure_id,
                        value=draw(st.one_of(st.none(), numbers)),
                        details=draw(st.one_of(st.none(), texts, st.integers())),
                    )
                )
    return found


#: Hand edits a stored row may carry: fields beyond the known ones, fields missing (an older
#: version's rows), numbers of another kind than the one packed.
EDITS = [
    "UPDATE observations SET record = json_set(record, '$.note', json('[1, {\"a\": null}]')) "
    "WHERE rowid % 2 = 0",
    "UPDATE observations SET record = json_set(record, '$.output.extra', 'x') WHERE rowid % 3 = 0",
    "UPDATE observations SET record = json_remove(record, '$.attempts', '$.output.latency') "
    "WHERE rowid % 2 = 1",
    "UPDATE observations SET record = json_set(record, '$.started', 5) WHERE rowid = 1",
    "UPDATE observations SET record = json_set(record, '$.duration', 3) WHERE rowid = 2",
    "UPDATE observations SET record = json_set(record, '$.output.latency', 2) WHERE rowid = 3",
    "UPDATE observations SET record = json_remove(record, '$.output.model') WHERE rowid = 1",
]


def assert_same_columns(a: ObservationColumns, b: ObservationColumns) -> None:
    """The columns analyses read are equal, number by number (NaN where NaN)."""
    assert a.ids == b.ids
    for name in ("target", "case", "variant", "coordinate", "model"):
        left, right = getattr(a, name), getattr(b, name)
        assert [left[i] for i in range(len(a))] == [right[i] for i in range(len(b))]
    for name in ("ok", "repetition", "started", "duration", "latency", "input_tokens"):
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=name != "ok")
    assert np.array_equal(a.cost, b.cost, equal_nan=True)


def row_by_row(path: Path, experiment_id: str) -> tuple[list[Observation], list[PointMeasurement]]:
    """The records of a run read one row at a time, as the store read them before columns."""
    connection = sqlite3.connect(path)
    rows = connection.execute(
        "SELECT o.record FROM experiment_observations AS e JOIN observations AS o "
        "ON o.id = e.observation_id WHERE e.experiment_id = ?",
        (experiment_id,),
    ).fetchall()
    records = [observation_of({**json.loads(r[0]), "experiment_id": experiment_id}) for r in rows]
    by_variant: dict[str, Any] = {}
    for record in records:  # one coordinate per variant: its first row's
        record.__dict__["coordinate"] = by_variant.setdefault(record.variant_id, record.coordinate)
    members = {o.id for o in records}
    points = [
        PointMeasurement(
            id=i,
            observation_id=o,
            measure=m,
            measure_id=mid,
            value=v,
            details=None if d is None else json.loads(d),
        )
        for i, m, mid, o, v, d in connection.execute(
            "SELECT id, measure, measure_id, observation_id, value, details FROM measurements "
            "WHERE second_id IS NULL"
        )
        if o in members
    ]
    connection.close()
    return canonical_order(RECORD, VARIANTS, records), points


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_columnar_load_equals_the_row_by_row_load(tmp_path: Path, data: st.DataObject) -> None:
    path = tmp_path / f"s{data.draw(st.integers(0, 10**9))}.db"
    stored = data.draw(observations())
    measure_ids = [m.id for m in RECORD.point_metrics]
    points = points_of(data.draw, stored, measure_ids)
    with SQLiteStore(path) as store:
        store.save_experiment(RECORD, VARIANTS)
        store.save_observations(stored)
        store.save_measurements(points=points)
        store.save_observations([o.model_copy(update={"experiment_id": RECORD.id}) for o in stored])
    edits = data.draw(st.lists(st.sampled_from(EDITS), max_size=3))
    connection = sqlite3.connect(path)
    for edit in edits:  # rows as other versions or other programs may leave them
        connection.execute(edit)
    connection.commit()
    connection.close()
    expected, expected_points = row_by_row(path, RECORD.id)
    key = sorted(expected_points, key=lambda p: p.id)
    with SQLiteStore(path) as store:
        store.save_experiment(RECORD, VARIANTS)  # a store that wrote keeps a snapshot on load
        from_rows = store.load(RECORD.id)
    with SQLiteStore(path, read_only=True) as store:
        from_snapshot = store.load(RECORD.id)
    wanted = [m.id for m in (*RECORD.point_metrics, *RECORD.difference_measures)]
    with sqlite3.connect(path) as connection:
        assert read_snapshot(connection, RECORD.id, wanted) is not None
    connection.close()
    for loaded in (from_rows, from_snapshot):
        assert isinstance(loaded.observations, ObservationColumns)
        assert isinstance(loaded.points, PointColumns)
        assert [o.model_dump() for o in loaded.observations] == [o.model_dump() for o in expected]
        assert [o.model_dump_json() for o in loaded.observations] == [
            o.model_dump_json() for o in from_rows.observations
        ]
        assert sorted((p.model_dump() for p in loaded.points), key=lambda p: p["id"]) == [
            p.model_dump() for p in key
        ]
        assert loaded.observations.filed is not None
        assert_same_columns(loaded.observations, from_rows.observations)
    # Indexes read on columns answer as those read on the records.
    by_columns = Results.load(SQLiteStore(path, read_only=True), RECORD.id)
    by_records = Results(RECORD, VARIANTS, expected, expected_points, [])
    columns_run, records_run = run_of(by_columns), run_of(by_records)
    assert by_columns.table() == by_records.table()
    assert columns_run.failed == records_run.failed
    for target in records_run.targets:
        assert by_columns.select(target=target) == by_records.select(target=target)
        for case in records_run.cases:
            for key_ in records_run.keys:
                for metric in ("correct", "answered", "missing"):
                    assert columns_run.cell_points(
                        metric, target, case, key_
                    ) == records_run.cell_points(metric, target, case, key_)
                assert tuple(columns_run.outputs(target, case, key_)) == tuple(
                    records_run.outputs(target, case, key_)
                )
    for point in expected_points:
        assert (
            by_columns.trace([point.id]).model_dump() == by_records.trace([point.id]).model_dump()
        )
        assert columns_run.point(point.measure, point.observation_id) == records_run.point(
            point.measure, point.observation_id
        )


def test_a_fresh_run_returns_what_a_load_of_its_store_returns(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    fresh = Runner(store=store).run(RUN)
    loaded = Results.load(store, RUN.id)
    fresh_run, loaded_run = run_of(fresh), run_of(loaded)
    assert list(fresh_run.observations) == list(loaded_run.observations)
    assert sorted(p.id for p in fresh_run.point_measurements) == sorted(
        p.id for p in loaded_run.point_measurements
    )
    held = Results(
        fresh_run.experiment,
        fresh_run.variants,
        list(fresh_run.observations),
        list(fresh_run.point_measurements),
        fresh_run.difference_measurements,
    )
    assert held.scorecard("correct", "answer_change", target="a", answered="answered") == (
        fresh.scorecard("correct", "answer_change", target="a", answered="answered")
    )


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("UPDATE observations SET record = json_set(record, '$.repetition', 'x')", "repetition"),
        ("UPDATE measurements SET value = 'many'", "not a number"),
        ("UPDATE measurements SET details = '{broken' WHERE details IS NOT NULL", "not JSON"),
        ("UPDATE observations SET record = json_remove(record, '$.output')", "no output"),
    ],
)
def test_a_hand_edited_row_is_named(tmp_path: Path, sql: str, message: str) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        Runner(store=store).run(RUN)
    connection = sqlite3.connect(path)
    # The run kept a snapshot; the edit ends it, so the load reads the rows and names the bad one.
    assert connection.execute("SELECT count(*) FROM snapshots").fetchone()[0] > 0
    connection.execute(sql)
    connection.commit()
    assert connection.execute("SELECT count(*) FROM snapshots").fetchone()[0] == 0
    connection.close()
    with SQLiteStore(path) as store, pytest.raises(StoreError, match=message):
        store.load(RUN.id)
