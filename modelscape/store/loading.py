"""Loading a run from a SQLite store: from its snapshot when one matches, else from its rows.

What :meth:`~modelscape.store.sqlite.SQLiteStore.load` does inside its read transaction: the
experiment and its variants are validated records; observations and point measurements come
as columns, from a snapshot (:mod:`~modelscape.store.snapshot`) or from the rows
(:mod:`~modelscape.store.rows`); difference measurements are read as records.
"""

from __future__ import annotations

import sqlite3

from modelscape.errors import StoreError
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.stored import DifferenceMeasurement, ExperimentRecord
from modelscape.store.connection import BUSY_SECONDS
from modelscape.store.protocol import StoredRun
from modelscape.store.rows import (
    DIFFERENCES,
    VARIANTS,
    canonical_columns,
    compact,
    marks,
    observation_columns,
    point_columns,
    read_records,
)
from modelscape.store.snapshot import read_snapshot, write_snapshot

__all__ = ["read_run"]

# How long a load waits to write its snapshot while another process writes (milliseconds).
_KEEP_WAIT_MS = 2000
# Difference rows validated at once, and the fields of their columns in the order selected.
_BLOCK = 20_000
_DIFFERENCE_FIELDS = ("id", "measure", "measure_id", "first", "second", "value")


def read_run(
    connection: sqlite3.Connection, path: str, experiment_id: str, *, keep: bool
) -> StoredRun:
    """Everything one experiment left, within a read transaction the caller opened: from its
    snapshot when one matches the rows, else from the rows, keeping a snapshot of them when
    ``keep`` (the transaction is then ended here)."""
    found = connection.execute(
        "SELECT record FROM experiments WHERE id = ?", (experiment_id,)
    ).fetchall()
    if not found:
        known = [r[0] for r in connection.execute("SELECT id FROM experiments ORDER BY created")]
        raise StoreError(
            f"no experiment {experiment_id!r} in {path}; it holds {known} "
            "(list them with `modelscape runs --store FILE`)"
        )
    experiment = ExperimentRecord.model_validate_json(found[0][0])
    variants = read_records(
        connection,
        VARIANTS,
        "SELECT v.record FROM experiment_variants AS e JOIN variants AS v "
        "ON v.id = e.variant_id WHERE e.experiment_id = ? ORDER BY e.position",
        (experiment_id,),
    )
    wanted = [m.id for m in (*experiment.point_metrics, *experiment.difference_measures)]
    cached = read_snapshot(connection, experiment_id, wanted)
    if cached is not None:
        observations, points = cached
    else:
        observations = observation_columns(
            connection,
            "SELECT o.record FROM experiment_observations AS e JOIN observations AS o "
            "ON o.id = e.observation_id WHERE e.experiment_id = ?",
            (experiment_id,),
            experiment_id,
            canonical_columns(experiment, variants),
        )
        # Measurements are read by measure and kept when they belong to this run's outputs:
        # a scan with a cheap filter beats a join through the index, twice over.
        points = (
            point_columns(connection, wanted, observations)
            if wanted
            else PointColumns.of_records(())
        )
    differences = _differences(connection, wanted, observations)
    if keep and cached is None:  # last: everything above was read in the same transaction
        _keep(connection, experiment_id, wanted, observations, points)
    return StoredRun(experiment, variants, observations, points, differences)


def _differences(
    connection: sqlite3.Connection, wanted: list[str], observations: ObservationColumns
) -> list[DifferenceMeasurement]:
    """The difference measurements of the run's measures between two of its observations."""
    differences: list[DifferenceMeasurement] = []
    if wanted:
        members = observations.rows_by_id
        # Columns, not SQLite's json_object: it prints a REAL with 15 significant digits, so
        # a value such as 0.1 + 0.2 came back as 0.3.
        cursor = connection.execute(
            "SELECT id, measure, measure_id, observation_id, second_id, value FROM measurements "
            f"WHERE measure_id IN ({marks(len(wanted))}) AND second_id IS NOT NULL",
            wanted,
        )
        while block := cursor.fetchmany(_BLOCK):
            differences.extend(
                DIFFERENCES.validate_python(
                    [
                        dict(zip(_DIFFERENCE_FIELDS, row, strict=True))
                        for row in block
                        if row[3] in members and row[4] in members
                    ]
                )
            )
        compact(differences)
    return differences


def _keep(
    connection: sqlite3.Connection,
    experiment_id: str,
    wanted: list[str],
    observations: ObservationColumns,
    points: PointColumns,
) -> None:
    """Write a snapshot of what the open read transaction read. It is only a cache, so
    it is given up, and the load goes on, when it cannot be written: another process
    wrote since the transaction began or holds the write lock for long, or the disk is
    full."""
    connection.execute(f"PRAGMA busy_timeout = {_KEEP_WAIT_MS}")
    try:
        write_snapshot(connection, experiment_id, wanted, observations, points)
        connection.execute("COMMIT")
    except sqlite3.OperationalError:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
    finally:
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
