"""Reading a store's records again, row by row, after the fast read of them met damage.

Each function here reads what one fast read reads (:mod:`~modelscape.store.loading`,
:class:`~modelscape.store.sqlite.SQLiteStore`), with text columns as raw bytes, and checks
each row as the fast read would have: a row that fails is noted in the
:class:`~modelscape.store.damage.Damage` of the read, by table and ``rowid``, and left out.
What is kept is exactly what the fast read makes of a sound row, so a sound row reads the
same either way.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from modelscape.errors import StoreError
from modelscape.records.categorical import BoolArray, Categorical, IntArray
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.filing import check_filed, file_rows
from modelscape.records.stored import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    point_id,
)
from modelscape.store.damage import (
    DAMAGE,
    Damage,
    careful,
    lenient_rows,
    problem,
    raw_rows,
    text,
)
from modelscape.store.rows import (
    POINTS,
    chunks,
    marks,
    observation_of,
    point_columns,
    read_observation,
)
from modelscape.task.space import Variant

__all__ = [
    "differences_carefully",
    "experiments_carefully",
    "left_out",
    "observations_carefully",
    "points_carefully",
    "records_carefully",
    "unmeasured",
    "variants_carefully",
]

# Observations checked together before a block that fails is checked row by row.
_CHECKED = 1000
Order = Callable[[Categorical, Categorical, IntArray], IntArray]


def experiments_carefully(connection: sqlite3.Connection, damage: Damage) -> list[ExperimentRecord]:
    """Every readable experiment record, oldest first."""
    found = careful(
        connection,
        "SELECT rowid, record FROM experiments ORDER BY created, id",
        (),
        table="experiments",
        read=lambda row: ExperimentRecord.model_validate_json(text(row[0])),
        damage=damage,
    )
    return [record for _, record in found]


def records_carefully(
    connection: sqlite3.Connection, ids: Sequence[str], damage: Damage, unreadable: set[str]
) -> dict[str, Observation]:
    """The readable observations among ``ids``, by id; the ids of the others are added to
    ``unreadable``."""
    found: dict[str, Observation] = {}
    rows = raw_rows(
        connection,
        f"SELECT rowid, id, record FROM observations WHERE id IN ({marks(len(ids))})",
        ids,
    )
    for rowid, stored_id, record in rows:
        observation_id = text(stored_id)  # matched one of ``ids``, so it is sound text
        try:
            observation = read_observation(text(record))
            if observation.id != observation_id:
                raise StoreError(f"the record holds id {observation.id!r}, not {observation_id!r}")
            found[observation_id] = observation
        except (*DAMAGE, RecursionError) as error:
            damage.note("observations", rowid, problem(error))
            unreadable.add(observation_id)
    return found


def variants_carefully(
    connection: sqlite3.Connection, experiment_id: str, damage: Damage
) -> tuple[list[Variant], set[str]]:
    """An experiment's readable variants in order, and the ids of those that are not."""
    variants: list[Variant] = []
    lost: set[str] = set()
    rows = raw_rows(
        connection,
        "SELECT v.rowid, e.variant_id, v.record FROM experiment_variants AS e JOIN variants "
        "AS v ON v.id = e.variant_id WHERE e.experiment_id = ? ORDER BY e.position",
        (experiment_id,),
    )
    for rowid, link, record in rows:
        variant_id = text(link)  # matched a stored id, so it is sound text
        try:
            variant = Variant.model_validate_json(text(record))
            if variant.id != variant_id:
                raise StoreError(f"the record holds id {variant.id!r}, not {variant_id!r}")
        except (*DAMAGE, RecursionError) as error:
            damage.note("variants", rowid, problem(error))
            lost.add(variant_id)
            continue
        variants.append(variant)
    return variants, lost


def _observation(experiment_id: str) -> Callable[[tuple[Any, ...]], dict[str, Any]]:
    def read(row: tuple[Any, ...]) -> dict[str, Any]:
        data = json.loads(text(row[0]))
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            raise StoreError("not an observation record")
        if not isinstance(data.get("output"), dict):
            raise StoreError(f"observation {data['id']!r} has no output object")
        data["experiment_id"] = experiment_id
        return data

    return read


def _unsound(rows: list[dict[str, Any]]) -> str | None:
    """What the fast read would refuse in ``rows``, or None when it would take them all."""
    try:
        check_filed(file_rows([rows]))
    except DAMAGE as error:
        return problem(error)
    return None


def observations_carefully(
    connection: sqlite3.Connection, sql: str, experiment_id: str, order: Order, damage: Damage
) -> ObservationColumns:
    """An experiment's readable observations as columns, in ``order``; ``sql`` selects the
    rowid and record of each."""
    rows = careful(
        connection,
        sql,
        (experiment_id,),
        table="observations",
        read=_observation(experiment_id),
        damage=damage,
    )
    kept: list[dict[str, Any]] = []
    for start in range(0, len(rows), _CHECKED):
        block = rows[start : start + _CHECKED]
        if _unsound([data for _, data in block]) is None:
            kept.extend(data for _, data in block)
            continue
        for rowid, data in block:
            why = _unsound([data])
            if why is None:
                kept.append(data)
            else:
                damage.note("observations", rowid, why)
    return ObservationColumns.of_rows([kept], observation_of, order)


def _point(names: Mapping[str, str]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    def read(row: tuple[Any, ...]) -> tuple[Any, ...]:
        point_id, measure, measure_id, observation_id = (text(value) for value in row[:4])
        value, details = row[4], row[5]
        if names.get(measure_id) != measure:
            raise StoreError(f"measurement {point_id!r} is of {measure!r}, not its measure's")
        if value is not None and type(value) not in (int, float):
            raise StoreError(f"measurement {point_id!r} of {measure!r} holds text, not a number")
        if details is not None:
            details = text(details)
            if details:
                try:
                    json.loads(details)
                except ValueError:
                    raise StoreError(
                        f"measurement {point_id!r}: its details are not JSON: {details[:80]!r}"
                    ) from None
        return point_id, measure, measure_id, observation_id, value, details

    return read


def points_carefully(
    connection: sqlite3.Connection,
    wanted: Mapping[str, str],
    observations: ObservationColumns,
    damage: Damage,
) -> PointColumns:
    """The readable point measurements of the measures ``wanted`` (their names by id) on
    ``observations``."""
    ids = list(wanted)
    rows = careful(
        connection,
        f"{POINTS.replace('SELECT ', 'SELECT rowid, ', 1)}({marks(len(ids))})",
        ids,
        table="measurements",
        read=_point(wanted),
        damage=damage,
    )
    return point_columns([[row for _, row in rows]], observations)


def unmeasured(
    connection: sqlite3.Connection,
    observations: ObservationColumns,
    points: PointColumns,
    damage: Damage,
    *,
    measurements_damaged: bool,
) -> BoolArray:
    """The rows of successful observations that lost a measurement to damage.

    Every analysis needs each measure's value of every successful output. One that lacks a
    value was either never measured (a run cut short before measuring: run it again), or its
    measurement row was damaged: unreadable (``measurements_damaged``), or changed so that it
    names another measure or output. Such a row is found by the id it must have, which
    hashes the measure and the output; each observation it leaves without a value is noted.
    """
    lacking = np.zeros(len(observations), dtype=np.bool_)
    if points.rows is None or not len(points.measure_id.values):
        return lacking
    measured = np.zeros((len(points.measure_id.values), len(observations)), dtype=np.bool_)
    measured[points.measure_id.codes, points.rows] = True
    missing = observations.ok & ~measured
    if not missing.any():
        return lacking
    if measurements_damaged:
        lacking = np.asarray(missing.any(axis=0), dtype=np.bool_)
    else:
        expected: dict[str, int] = {}
        for code, row in zip(*np.nonzero(missing), strict=True):
            measure_id = points.measure_id.values[int(code)]
            expected[point_id(measure_id, observations.ids[int(row)])] = int(row)
        for batch in chunks(expected):
            for rowid, found in connection.execute(
                f"SELECT rowid, id FROM measurements WHERE id IN ({marks(len(batch))})", batch
            ):
                damage.note(
                    "measurements",
                    rowid,
                    f"measurement {found} names another measure or output than its id says",
                )
                lacking[expected[found]] = True
        _relabelled(connection, observations, missing.any(axis=0) & ~lacking, lacking, damage)
    for row in np.flatnonzero(lacking).tolist():
        damage.note(
            "observations",
            None,
            f"observation {observations.ids[row]} is left out, as it lacks a measure's value",
        )
    return lacking


def _relabelled(
    connection: sqlite3.Connection,
    observations: ObservationColumns,
    rows: BoolArray,
    lacking: BoolArray,
    damage: Damage,
) -> None:
    """Mark in ``lacking`` the ``rows`` whose record holds an id that is no row's: damage
    changed it, so the record's measurements, stored under its true id, are not its own."""
    ids = {observations.ids[row]: row for row in np.flatnonzero(rows).tolist()}
    rowful: set[str] = set()
    for batch in chunks(ids):
        rowful.update(
            r[0]
            for r in lenient_rows(
                connection, f"SELECT id FROM observations WHERE id IN ({marks(len(batch))})", batch
            )
        )
    for stray, row in ids.items():
        if stray not in rowful:
            damage.note("observations", None, f"a record holds id {stray!r}, which no row has")
            lacking[row] = True


def left_out(observations: ObservationColumns, rows: BoolArray) -> ObservationColumns:
    """``observations`` without the ``rows`` marked (columns read from rows only)."""
    filed = observations.filed
    if filed is None or not rows.any():
        return observations
    filed.reorder(np.flatnonzero(~rows))
    return ObservationColumns.of_filed(filed, observation_of)


def _difference(names: Mapping[str, str]) -> Callable[[tuple[Any, ...]], DifferenceMeasurement]:
    def read(row: tuple[Any, ...]) -> DifferenceMeasurement:
        keys = ("id", "measure", "measure_id", "first", "second")
        fields: dict[str, Any] = {key: text(value) for key, value in zip(keys, row, strict=False)}
        if names.get(fields["measure_id"]) != fields["measure"]:
            raise StoreError(
                f"measurement {fields['id']!r} is of {fields['measure']!r}, not its measure's"
            )
        return DifferenceMeasurement.model_validate({**fields, "value": row[5]}, strict=True)

    return read


def differences_carefully(
    connection: sqlite3.Connection, wanted: Mapping[str, str], damage: Damage
) -> list[DifferenceMeasurement]:
    """The readable difference measurements of the measures ``wanted`` (names by id)."""
    ids = list(wanted)
    found = careful(
        connection,
        "SELECT rowid, id, measure, measure_id, observation_id, second_id, value FROM "
        f"measurements WHERE measure_id IN ({marks(len(ids))}) AND second_id IS NOT NULL",
        ids,
        table="measurements",
        read=_difference(wanted),
        damage=damage,
    )
    return [difference for _, difference in found]
