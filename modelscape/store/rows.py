"""Row helpers of the SQLite store: chunking ids, JSON arrays, reading records in bulk
without validating them again, and claiming leases."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, TypeAdapter

from modelscape._model import trusted
from modelscape.errors import StoreError
from modelscape.records.columns import Categorical, IntArray, ObservationColumns, PointColumns
from modelscape.records.stored import DifferenceMeasurement, Observation, PointMeasurement
from modelscape.store.protocol import holder_alive
from modelscape.target import TargetOutput, Usage
from modelscape.task.space import Variant

__all__ = [
    "DIFFERENCES",
    "VARIANTS",
    "chunks",
    "claim_leases",
    "compact",
    "json_array",
    "marks",
    "observation_columns",
    "observation_of",
    "point_columns",
    "read_observations",
    "read_points",
    "read_records",
]

# SQLite limits bound parameters per statement; 500 stays under every build's limit.
_CHUNK = 500
# Rows validated at once when loading a run.
_BLOCK = 20_000
R = TypeVar("R")


def chunks(ids: Iterable[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    for item in ids:
        batch.append(item)
        if len(batch) == _CHUNK:
            yield batch
            batch = []
    if batch:
        yield batch


def marks(n: int) -> str:
    return ",".join("?" * n)


def json_array(rows: list[Any]) -> str:
    return "[" + ",".join(row[0] for row in rows) + "]"


def compact(records: Sequence[Any]) -> None:
    """Let loaded records share one set of field names, which saves a third of their memory.

    Every record read from the store sets every field, so each would otherwise hold an equal
    set of its own. (Repeated short strings, such as ids and names, are shared already: pydantic
    caches the strings it parses.) The records stay frozen and equal to what was stored.
    """
    if not records:
        return
    fields = set(records[0].__pydantic_fields_set__)
    for record in records:
        object.__setattr__(record, "__pydantic_fields_set__", fields)


VARIANTS = TypeAdapter(list[Variant])


def _defaults(model: type[BaseModel]) -> dict[str, Any]:
    return {
        name: field.get_default(call_default_factory=True)
        for name, field in model.model_fields.items()
        if not field.is_required()
    }


_OUTPUT_DEFAULTS = _defaults(TargetOutput)
_USAGE_DEFAULTS = _defaults(Usage)
_OBSERVATION_DEFAULTS = _defaults(Observation)


def observation_of(data: dict[str, Any]) -> Observation:
    """An observation from its stored JSON, completed with defaults, without validation."""
    output = data["output"]
    usage = output.get("usage")
    if usage is not None:
        usage = trusted(Usage, {**_USAGE_DEFAULTS, **usage})
    data["output"] = trusted(TargetOutput, {**_OUTPUT_DEFAULTS, **output, "usage": usage})
    return trusted(Observation, {**_OBSERVATION_DEFAULTS, **data})


DIFFERENCES = TypeAdapter(list[DifferenceMeasurement])


def read_records(
    connection: sqlite3.Connection,
    adapter: TypeAdapter[list[R]],
    sql: str,
    parameters: Sequence[Any],
) -> list[R]:
    """The records a query returns as JSON, validated a block of rows at a time.

    A block is one JSON array and one call into pydantic's core, instead of one call per
    record; blocks keep the text held at once small even for a million rows.
    """
    found: list[R] = []
    cursor = connection.execute(sql, parameters)
    while rows := cursor.fetchmany(_BLOCK):
        found.extend(adapter.validate_json(json_array(rows)))
    return found


def read_observations(
    connection: sqlite3.Connection, sql: str, parameters: Sequence[Any]
) -> list[Observation]:
    """Observations the store wrote itself, built without validating them again.

    Their JSON is parsed a block at a time and every record is completed with the field
    defaults of this release, which is what validation would add; validating hundreds of
    thousands of outputs again would dominate the time of ``Results.load``.
    """
    found: list[Observation] = []
    cursor = connection.execute(sql, parameters)
    while rows := cursor.fetchmany(_BLOCK):
        found.extend(observation_of(data) for data in json.loads(json_array(rows)))
    return found


def read_points(
    connection: sqlite3.Connection, wanted: Sequence[str], members: set[str]
) -> list[PointMeasurement]:
    """The point measurements of some measures on some observations.

    A run holds several per output, so they are built without validation, from columns the
    store wrote itself: each becomes exactly what ``model_construct`` would make, at a
    fraction of its cost, all sharing one set of field names.
    """
    found: list[PointMeasurement] = []
    cursor = connection.execute(
        "SELECT id, measure, measure_id, observation_id, value, details FROM "
        f"measurements WHERE measure_id IN ({marks(len(wanted))}) AND second_id IS NULL",
        wanted,
    )
    while rows := cursor.fetchmany(_BLOCK):
        rows = [row for row in rows if row[3] in members]
        details = json.loads("[" + ",".join(r[5] or "null" for r in rows) + "]")
        found.extend(
            trusted(
                PointMeasurement,
                {
                    "id": mid,
                    "observation_id": first,
                    "measure": measure,
                    "measure_id": measure_id,
                    "value": value,
                    "details": detail,
                },
            )
            for (mid, measure, measure_id, first, value, _), detail in zip(
                rows, details, strict=True
            )
        )
    return found


def observation_columns(
    connection: sqlite3.Connection,
    sql: str,
    parameters: Sequence[Any],
    experiment_id: str,
    order: Callable[[Categorical, Categorical, IntArray], IntArray],
) -> ObservationColumns:
    """Observations the store wrote itself, as columns (see :mod:`modelscape.records.columns`),
    each under ``experiment_id``, in ``order``.

    The JSON is parsed a block of rows at a time; a record read from the columns is built by
    :func:`observation_of`, as the row-by-row load builds it.
    """

    def rows() -> Iterator[dict[str, Any]]:
        cursor = connection.execute(sql, parameters)
        while block := cursor.fetchmany(_BLOCK):
            for data in json.loads(json_array(block)):
                if not isinstance(data, dict) or not isinstance(data.get("id"), str):
                    raise StoreError(f"a stored observation is not a record: {str(data)[:80]}")
                # An observation first stored by another experiment comes back under this one.
                data["experiment_id"] = experiment_id
                yield data

    return ObservationColumns.of_rows(rows(), observation_of, order)


def point_columns(
    connection: sqlite3.Connection, wanted: Sequence[str], members: Mapping[str, int]
) -> PointColumns:
    """The point measurements of some measures on some observations, as columns.

    Keys of keyed measures repeat (a few answers over a million outputs), so each distinct
    stored text is parsed once and its value shared.
    """
    ids: list[str] = []
    observations: list[str] = []
    measures: list[str] = []
    measure_ids: list[str] = []
    values: list[float] = []
    has_value: list[bool] = []
    texts: list[str | None] = []
    cursor = connection.execute(
        "SELECT id, measure, measure_id, observation_id, value, details FROM "
        f"measurements WHERE measure_id IN ({marks(len(wanted))}) AND second_id IS NULL",
        wanted,
    )
    while rows := cursor.fetchmany(_BLOCK):
        for mid, measure, measure_id, first, value, details in rows:
            if first not in members:
                continue
            if value is not None and type(value) is not float:
                if type(value) is not int:
                    raise StoreError(
                        f"measurement {mid!r} of {measure!r} holds {value!r}, not a number"
                    )
                value = float(value)
            ids.append(mid)
            observations.append(first)
            measures.append(measure)
            measure_ids.append(measure_id)
            values.append(np.nan if value is None else value)
            has_value.append(value is not None)
            texts.append(details or None)
    parsed: dict[str | None, Any] = {None: None}
    codes = np.empty(len(texts), dtype=np.int32)
    index: dict[str | None, int] = {}
    distinct: list[Any] = []
    for row, text in enumerate(texts):
        code = index.get(text)
        if code is None:
            if text not in parsed:
                try:
                    parsed[text] = json.loads(text)
                except ValueError:
                    raise StoreError(
                        f"measurement {ids[row]!r} has details that are not JSON: {text[:80]!r}"
                    ) from None
            code = index[text] = len(distinct)
            distinct.append(parsed[text])
        codes[row] = code
    return PointColumns(
        ids,
        observations,
        Categorical.of(measures),
        Categorical.of(measure_ids),
        np.asarray(values, dtype=np.float64),
        np.asarray(has_value, dtype=np.bool_),
        Categorical(codes, distinct),
    )


def claim_leases(
    connection: sqlite3.Connection, ids: list[str], holder: str, seconds: float
) -> set[str]:
    """Within a write transaction: lease to ``holder`` the ids among ``ids`` that are neither
    stored ``ok`` nor leased by another live process (see ``SQLiteStore.claim``)."""
    now = time.time()
    taken: set[str] = set()
    for batch in chunks(ids):
        where = f"IN ({marks(len(batch))})"
        done = connection.execute(
            f"SELECT id FROM observations WHERE status = 'ok' AND id {where}", batch
        )
        taken.update(row[0] for row in done)
        leases = connection.execute(
            f"SELECT observation_id, holder, pid, expires FROM leases WHERE observation_id {where}",
            batch,
        )
        for oid, other, pid, expires in leases:
            # An end that is not a number (a hand-edited row) is read as a lease that ended.
            running = isinstance(expires, int | float) and expires > now
            if other != holder and running and holder_alive(pid):
                taken.add(oid)
    free = [i for i in ids if i not in taken]
    connection.executemany(
        "INSERT OR REPLACE INTO leases (observation_id, holder, pid, expires) VALUES (?, ?, ?, ?)",
        [(oid, holder, os.getpid(), now + seconds) for oid in free],
    )
    return set(free)
