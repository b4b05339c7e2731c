"""Writing records into a SQLite store, within a transaction the store opened.

What :class:`~modelscape.store.sqlite.SQLiteStore`'s writes do once they hold the lock and a
``BEGIN IMMEDIATE``: every insert is idempotent by content-hash id, an ``ok`` observation
replaces a ``failed`` one, and a row the store found damaged (see
:mod:`~modelscape.store.damage`) is replaced by the record written in its place.

Observations are turned into JSON a few megabytes at a time (:data:`WRITE_BYTES`): a batch of
outputs of ten megabytes each is never held twice over, once as records and once as rows.
"""

from __future__ import annotations

import itertools
import math
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from modelscape.errors import StoreError
from modelscape.records.stored import ExperimentRecord, Observation
from modelscape.store.damage import DAMAGE, raw_rows, text
from modelscape.task.space import Variant

__all__ = ["VARIANT_BATCH", "WRITE_BYTES", "insert_experiment", "insert_observations"]

#: Variants whose rows are made and written at once when an experiment is stored.
VARIANT_BATCH = 1000
#: About the most JSON of observations made before it is written.
WRITE_BYTES = 8 << 20


def _dump(observation: Observation) -> str:
    # JSON has no NaN or infinity: pydantic writes them as null, which a time cannot be, so
    # the stored row would make every later load of its run fail.
    for name in ("started", "duration"):
        if not math.isfinite(getattr(observation, name)):
            raise StoreError(
                f"observation {observation.id} cannot be stored: its {name} is "
                f"{getattr(observation, name)}, not a finite number of seconds"
            )
    try:
        return observation.model_dump_json()
    except ValueError as error:  # text that cannot be encoded, such as a lone surrogate
        raise StoreError(f"observation {observation.id} cannot be stored: {error}") from None


def _readable_experiment(connection: sqlite3.Connection, experiment_id: str) -> bool:
    """Whether the stored record of ``experiment_id``, if any, can be read back."""
    sql = "SELECT record FROM experiments WHERE id = ?"
    for (stored,) in list(raw_rows(connection, sql, (experiment_id,))):
        try:
            return ExperimentRecord.model_validate_json(text(stored)).id == experiment_id
        except (*DAMAGE, RecursionError):
            return False
    return True


def insert_experiment(
    connection: sqlite3.Connection, experiment: ExperimentRecord, variants: Iterable[Variant]
) -> None:
    """An experiment and its variants, :data:`VARIANT_BATCH` variants' JSON at a time."""
    record = experiment.model_dump_json()
    connection.execute(
        "INSERT OR IGNORE INTO experiments (id, created, record) VALUES (?, ?, ?)",
        (experiment.id, experiment.created, record),
    )
    if not _readable_experiment(connection, experiment.id):
        # A record the store cannot read is of no use to anyone: the one being stored takes
        # its place, so that running the experiment again repairs it.
        connection.execute(
            "UPDATE experiments SET created = ?, record = ? WHERE id = ?",
            (experiment.created, record, experiment.id),
        )
    each = iter(variants)
    position = 0
    while batch := list(itertools.islice(each, VARIANT_BATCH)):
        connection.executemany(
            "INSERT OR IGNORE INTO variants (id, case_id, record) VALUES (?, ?, ?)",
            [(v.id, v.case, v.model_dump_json()) for v in batch],
        )
        connection.executemany(
            "INSERT OR IGNORE INTO experiment_variants (experiment_id, variant_id, "
            "position) VALUES (?, ?, ?)",
            [(experiment.id, v.id, position + i) for i, v in enumerate(batch)],
        )
        position += len(batch)


def insert_observations(
    connection: sqlite3.Connection, observations: Sequence[Observation], unreadable: set[str]
) -> None:
    """Observations, each linked to its experiment and its lease ended; an id in
    ``unreadable`` (a damaged row) is replaced, and taken out of the set."""
    rows: list[tuple[Any, ...]] = []
    size = 0
    for observation in observations:
        o = observation
        rows.append((o.id, o.experiment_id, o.target_id, o.variant_id, o.repetition, o.status,
                     _dump(o)))  # fmt: skip
        size += len(rows[-1][6])
        if size >= WRITE_BYTES:
            _insert(connection, rows, unreadable)
            rows, size = [], 0
    _insert(connection, rows, unreadable)


def _insert(
    connection: sqlite3.Connection, rows: list[tuple[Any, ...]], unreadable: set[str]
) -> None:
    if not rows:
        return
    connection.executemany(
        "INSERT INTO observations (id, experiment_id, target_id, variant_id, repetition, "
        "status, record) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
        "record = excluded.record WHERE observations.status = 'failed'",
        rows,
    )
    if unreadable:
        # A row the store could not read is replaced by the answer asked in its place.
        connection.executemany(
            "UPDATE observations SET status = ?, record = ? WHERE id = ?",
            [(r[5], r[6], r[0]) for r in rows if r[0] in unreadable],
        )
        unreadable.difference_update(r[0] for r in rows)
    connection.executemany(
        "INSERT OR IGNORE INTO experiment_observations (experiment_id, observation_id) "
        "VALUES (?, ?)",
        [(row[1], row[0]) for row in rows],
    )
    # A stored observation is no longer being asked for.
    connection.executemany(
        "DELETE FROM leases WHERE observation_id = ?", [(row[0],) for row in rows]
    )
