"""Row helpers of the SQLite store: chunking ids, JSON arrays, reading records in bulk
without validating them again, and claiming leases."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, TypeAdapter, ValidationError

from modelscape._model import trusted
from modelscape.errors import StoreError
from modelscape.records.categorical import BoolArray, Categorical, FloatArray, IntArray
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.stored import DifferenceMeasurement, ExperimentRecord, Observation
from modelscape.store.damage import lenient_rows
from modelscape.store.protocol import holder_alive
from modelscape.targets.protocol import TargetOutput, Usage
from modelscape.task.space import Variant

__all__ = [
    "BLOCK",
    "DIFFERENCES",
    "POINTS",
    "VARIANTS",
    "canonical_columns",
    "chunks",
    "claim_leases",
    "compact",
    "json_array",
    "marks",
    "observation_columns",
    "observation_of",
    "point_columns",
    "point_rows",
    "read_records",
]

# SQLite limits bound parameters per statement; 500 stays under every build's limit.
_CHUNK = 500
# Rows validated at once when loading a run.
BLOCK = 20_000
# The most JSON text of a block of rows joined to be parsed at once.
_JOINED_MOST = 16 << 20
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
    while rows := cursor.fetchmany(BLOCK):
        found.extend(adapter.validate_json(json_array(rows)))
    return found


def canonical_columns(
    experiment: ExperimentRecord, variants: Sequence[Variant]
) -> Callable[[Categorical, Categorical, IntArray], IntArray]:
    """:func:`~modelscape.store.protocol.canonical_order` on columns: the order of rows by
    target (as the experiment lists them), variant position, then repetition."""
    targets = {t.id: i for i, t in enumerate(experiment.targets)}
    positions = {v.id: i for i, v in enumerate(variants)}

    def order(target_ids: Categorical, variant_ids: Categorical, repetition: IntArray) -> IntArray:
        by_target = np.asarray([targets.get(t, -1) for t in target_ids.values], np.int64)
        far = len(positions)
        by_variant = np.asarray([positions.get(v, far) for v in variant_ids.values], np.int64)
        if not len(repetition):
            return np.zeros(0, dtype=np.int64)
        return np.lexsort(
            (repetition, by_variant[variant_ids.codes], by_target[target_ids.codes])
        ).astype(np.int64)

    return order


def _parsed(rows: list[Any]) -> list[Any]:
    """The JSON of each row: parsed as one array while the rows are small, which is fastest;
    else row by row, each row's text let go once parsed, so that large outputs are not held
    three times over (the rows, the array joined from them, and what it parses to)."""
    if sum(len(row[0]) for row in rows) <= _JOINED_MOST:
        parsed: list[Any] = json.loads(json_array(rows))
        return parsed
    parsed = []
    for index, row in enumerate(rows):
        parsed.append(json.loads(row[0]))
        rows[index] = None
    return parsed


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

    def blocks() -> Iterator[list[dict[str, Any]]]:
        cursor = connection.execute(sql, parameters)
        while rows := cursor.fetchmany(BLOCK):
            block = _parsed(rows)
            for data in block:
                if not isinstance(data, dict) or not isinstance(data.get("id"), str):
                    raise StoreError(f"a stored observation is not a record: {str(data)[:80]}")
                # An observation first stored by another experiment comes back under this one.
                data["experiment_id"] = experiment_id
            yield block

    return ObservationColumns.of_rows(blocks(), observation_of, order)


#: The query of the point measurements of some measures (marks for their ids to follow).
POINTS = (
    "SELECT id, measure, measure_id, observation_id, value, details FROM measurements "
    "WHERE second_id IS NULL AND measure_id IN "
)


def point_rows(connection: sqlite3.Connection, wanted: Sequence[str]) -> Iterator[list[Any]]:
    """The rows of the point measurements of the measures ``wanted``, a block at a time."""
    cursor = connection.execute(f"{POINTS}({marks(len(wanted))})", wanted)
    while block := cursor.fetchmany(BLOCK):
        yield block


def point_columns(blocks: Iterable[list[Any]], observations: ObservationColumns) -> PointColumns:
    """The point measurements in ``blocks`` of rows (as :data:`POINTS` selects them) on the
    given observations, as columns.

    Rows are taken a block at a time, column by column; a measurement of an observation not
    in ``observations`` is left out. Keys of keyed measures repeat (a few answers over a
    million outputs), so each distinct stored text is parsed once and its value shared.
    """
    members = observations.rows_by_id
    ids: list[str] = []
    rows_of: list[int] = []
    values: list[FloatArray] = []
    has_value: list[BoolArray] = []
    measures: dict[str, int] = {}
    measure_ids: dict[str, int] = {}
    texts: dict[str | None, int] = {}
    codes: tuple[list[int], list[int], list[int]] = ([], [], [])
    for block in blocks:
        at = [members.get(first, -1) for first in [row[3] for row in block]]
        if -1 in at:
            block = [row for row, row_at in zip(block, at, strict=True) if row_at >= 0]
            at = [row_at for row_at in at if row_at >= 0]
        if not block:
            continue
        mid, measure, measure_id, _, value, details = zip(*block, strict=True)
        ids.extend(mid)
        rows_of.extend(at)
        values.append(_values(value, mid, measure))
        has_value.append(np.asarray([v is not None for v in value], dtype=np.bool_))
        codes[0].extend([measures.setdefault(m, len(measures)) for m in measure])
        codes[1].extend([measure_ids.setdefault(m, len(measure_ids)) for m in measure_id])
        codes[2].extend([texts.setdefault(d or None, len(texts)) for d in details])
    parsed: list[Any] = []
    for text in texts:
        if text is None:
            parsed.append(None)
            continue
        try:
            parsed.append(json.loads(text))
        except ValueError:
            raise StoreError(
                f"a stored measurement's details are not JSON: {text[:80]!r}"
            ) from None
    observation_ids = observations.ids
    return PointColumns(
        ids,
        [observation_ids[row] for row in rows_of],
        Categorical(np.asarray(codes[0], dtype=np.int32), list(measures)),
        Categorical(np.asarray(codes[1], dtype=np.int32), list(measure_ids)),
        np.concatenate(values) if values else np.zeros(0, dtype=np.float64),
        np.concatenate(has_value) if has_value else np.zeros(0, dtype=np.bool_),
        Categorical(np.asarray(codes[2], dtype=np.int32), parsed),
        rows=np.asarray(rows_of, dtype=np.int64),
        index=members,
    )


def _values(values: tuple[Any, ...], ids: tuple[str, ...], measures: tuple[str, ...]) -> FloatArray:
    """Stored values as float64 (NaN for None); a value that is not a number is named."""
    for value, mid, measure in zip(values, ids, measures, strict=True):
        if value is not None and type(value) not in (int, float):
            raise StoreError(f"measurement {mid!r} of {measure!r} holds {value!r}, not a number")
    return np.asarray(values, dtype=np.float64)


def claim_leases(
    connection: sqlite3.Connection,
    ids: list[str],
    holder: str,
    seconds: float,
    unreadable: Collection[str] = (),
) -> set[str]:
    """Within a write transaction: lease to ``holder`` the ids among ``ids`` that are neither
    stored ``ok`` nor leased by another live process (see ``SQLiteStore.claim``). An ``ok``
    row among ``unreadable`` (damaged: see :mod:`~modelscape.store.damage`) counts as not
    stored, so that it is asked again rather than waited for."""
    now = time.time()
    taken: set[str] = set()
    for batch in chunks(ids):
        where = f"IN ({marks(len(batch))})"
        done = lenient_rows(
            connection, f"SELECT id FROM observations WHERE status = 'ok' AND id {where}", batch
        )
        taken.update(row[0] for row in done if row[0] not in unreadable)
        leases = lenient_rows(
            connection,
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


def read_observation(record: str) -> Observation:
    """A stored observation, validated. pydantic's JSON parser refuses nesting past 200 levels,
    which an output's data may reach (and a run then failed at its first lookup): such a
    record is read by Python's parser instead, and validated the same."""
    try:
        return Observation.model_validate_json(record)
    except ValidationError as error:
        if error.errors()[0]["type"] != "json_invalid":
            raise
        return Observation.model_validate(json.loads(record))
