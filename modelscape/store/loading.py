"""Loading a run from a SQLite store: from its snapshot when one matches, else from its rows.

What :meth:`~modelscape.store.sqlite.SQLiteStore.load` does inside its read transaction: the
experiment and its variants are validated records; observations and point measurements come
as columns, from a snapshot (:mod:`~modelscape.store.snapshot`) or from the rows
(:mod:`~modelscape.store.rows`); difference measurements are read as records.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from modelscape.errors import StoreError
from modelscape.records.categorical import Categorical, IntArray
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.stored import DifferenceMeasurement, ExperimentRecord
from modelscape.store.careful import (
    Order,
    differences_carefully,
    left_out,
    observations_carefully,
    points_carefully,
    unmeasured,
    variants_carefully,
)
from modelscape.store.connection import BUSY_SECONDS
from modelscape.store.damage import (
    DAMAGE,
    Damage,
    Damaged,
    either,
    problem,
    raw_rows,
    text,
    undecodable,
)
from modelscape.store.protocol import StoredRun
from modelscape.store.rows import (
    BLOCK,
    DIFFERENCES,
    VARIANTS,
    canonical_columns,
    compact,
    marks,
    observation_columns,
    point_columns,
    point_rows,
    read_records,
)
from modelscape.store.snapshot import read_snapshot, write_snapshot
from modelscape.task.space import Variant

__all__ = ["read_run"]

# How long a load waits to write its snapshot while another process writes (milliseconds).
_KEEP_WAIT_MS = 2000
# The fields of the difference rows' columns, in the order selected (rows.BLOCK at a time).
_DIFFERENCE_FIELDS = ("id", "measure", "measure_id", "first", "second", "value")


_OBSERVATIONS = (
    "SELECT o.record FROM experiment_observations AS e JOIN observations AS o "
    "ON o.id = e.observation_id WHERE e.experiment_id = ?"
)


def read_run(
    connection: sqlite3.Connection,
    path: str,
    experiment_id: str,
    *,
    keep: bool,
    damaged: Damaged = "refuse",
) -> StoredRun:
    """Everything one experiment left, within a read transaction the caller opened: from its
    snapshot when one matches the rows, else from the rows, keeping a snapshot of them when
    ``keep`` (the transaction is then ended here). Damaged rows are refused or left out as
    ``damaged`` says; a load that met one keeps no snapshot."""
    damage = Damage(path, f"loading experiment {experiment_id}", damaged)
    experiment = _experiment(connection, path, experiment_id)
    variants, unreadable = either(
        lambda: (_variants(connection, experiment_id), set[str]()),
        lambda: variants_carefully(connection, experiment_id, damage),
    )
    _count_links(connection, experiment_id, "variants", len(variants) + len(unreadable), damage)
    names = {m.id: m.name for m in (*experiment.point_metrics, *experiment.difference_measures)}
    wanted = list(names)
    # A snapshot holds the observations of every variant: with some variants unreadable,
    # the rows are read instead, so that those variants' observations can be left out.
    whole = not damage.found
    cached = read_snapshot(connection, experiment_id, wanted) if whole else None
    if cached is not None:
        observations, points = cached
    else:
        observations, points = _from_rows(
            connection, experiment, variants, names, damage, whole=whole
        )
    differences = either(
        lambda: _named_pairs(_differences(connection, wanted), names),
        lambda: differences_carefully(connection, names, damage) if wanted else [],
    )
    if wanted:
        members = observations.rows_by_id
        differences = [d for d in differences if d.first in members and d.second in members]
        compact(differences)
    damage.settle()
    if keep and cached is None and not damage.found:
        # last: everything above was read in the same transaction
        _keep(connection, experiment_id, wanted, observations, points)
    return StoredRun(experiment, variants, observations, points, differences)


def _from_rows(
    connection: sqlite3.Connection,
    experiment: ExperimentRecord,
    variants: list[Variant],
    names: dict[str, str],
    damage: Damage,
    *,
    whole: bool,
) -> tuple[ObservationColumns, PointColumns]:
    """The observations and point measurements of a run read from their rows (of the
    measures ``names`` by id); without ``whole`` variants, the observations of the unreadable
    ones are left out."""
    experiment_id = experiment.id
    wanted = list(names)
    order = canonical_columns(experiment, variants)
    if not whole:
        order = _without_unknown(order, {v.id for v in variants})
    observations = either(
        lambda: observation_columns(
            connection, _OBSERVATIONS, (experiment_id,), experiment_id, order
        ),
        lambda: observations_carefully(
            connection,
            _OBSERVATIONS.replace("SELECT ", "SELECT o.rowid, ", 1),
            experiment_id,
            order,
            damage,
        ),
    )
    if whole:  # else the observations of unreadable variants were left out on purpose
        read = len(observations) + sum(r.table == "observations" for r in damage.found)
        _count_links(connection, experiment_id, "observations", read, damage)
    if not wanted:
        return observations, PointColumns.of_records(())
    # Measurements are read by measure and kept when they belong to this run's outputs:
    # a scan with a cheap filter beats a join through the index, twice over.
    before = len(damage.found)
    points = either(
        lambda: _named(point_columns(point_rows(connection, wanted), observations), names),
        lambda: points_carefully(connection, names, observations, damage),
    )
    lost = unmeasured(
        connection, observations, points, damage, measurements_damaged=len(damage.found) > before
    )
    if lost.any():  # read again, the observations that lost a measurement left out
        kept = left_out(observations, lost)
        again = Damage(damage.path, damage.doing, "skip")  # its rows are noted already
        points = either(
            lambda: _named(point_columns(point_rows(connection, wanted), kept), names),
            lambda: points_carefully(connection, names, kept, again),
        )
        observations = kept
    return observations, points


def _experiment(connection: sqlite3.Connection, path: str, experiment_id: str) -> ExperimentRecord:
    """The record of ``experiment_id``; without it nothing of the run can be read."""
    try:
        found = connection.execute(
            "SELECT rowid, record FROM experiments WHERE id = ?", (experiment_id,)
        ).fetchall()
    except sqlite3.OperationalError as error:
        if not undecodable(error):
            raise
        found = list(
            raw_rows(
                connection, "SELECT rowid, record FROM experiments WHERE id = ?", (experiment_id,)
            )
        )
    if not found:
        known = [r[0] for r in connection.execute("SELECT id FROM experiments ORDER BY created")]
        raise StoreError(
            f"no experiment {experiment_id!r} in {path}; it holds {known} "
            "(list them with `modelscape runs --store FILE`)"
        )
    rowid, record = found[0]
    try:
        return ExperimentRecord.model_validate_json(text(record))
    except (*DAMAGE, RecursionError) as error:
        raise StoreError(
            f"{path}: the record of experiment {experiment_id} (experiments row {rowid}) "
            f"cannot be read ({problem(error)}), so nothing of its run can be: restore the "
            f"file from a copy, or save what is readable with `sqlite3 {path} .recover`"
        ) from None


def _variants(connection: sqlite3.Connection, experiment_id: str) -> list[Variant]:
    """An experiment's variants in order, each the record its link names."""
    variants = read_records(
        connection,
        VARIANTS,
        "SELECT v.record FROM experiment_variants AS e JOIN variants AS v "
        "ON v.id = e.variant_id WHERE e.experiment_id = ? ORDER BY e.position",
        (experiment_id,),
    )
    linked = connection.execute(
        "SELECT e.variant_id FROM experiment_variants AS e JOIN variants AS v "
        "ON v.id = e.variant_id WHERE e.experiment_id = ? ORDER BY e.position",
        (experiment_id,),
    ).fetchall()
    if [v.id for v in variants] != [row[0] for row in linked]:
        raise StoreError("a variant's record holds another id than its row")
    return variants


def _named(points: PointColumns, names: dict[str, str]) -> PointColumns:
    """``points``, each checked to carry its measure's name: the analyses find a value by
    name, so a damaged name would lose it (a StoreError sends the read to the careful one)."""
    measures, ids = points.measure, points.measure_id
    if not len(points):
        return points
    pairs = np.bincount(
        measures.codes.astype(np.int64) * len(ids.values) + ids.codes,
        minlength=len(measures.values) * len(ids.values),
    )
    for pair in np.flatnonzero(pairs).tolist():
        name, measure_id = divmod(pair, len(ids.values))
        if names.get(ids.values[measure_id]) != measures.values[name]:
            raise StoreError(f"a measurement of {ids.values[measure_id]} has another name")
    return points


def _named_pairs(
    differences: list[DifferenceMeasurement], names: dict[str, str]
) -> list[DifferenceMeasurement]:
    """``differences``, each checked to carry its measure's name (see :func:`_named`)."""
    if any(names.get(d.measure_id) != d.measure for d in differences):
        raise StoreError("a difference measurement carries another measure's name")
    return differences


def _count_links(
    connection: sqlite3.Connection, experiment_id: str, kind: str, read: int, damage: Damage
) -> None:
    """Note links of the experiment to ``kind`` rows that could not be found: a damaged id
    makes its row unreachable, which would otherwise lose it without a word."""
    links = connection.execute(
        f"SELECT count(*) FROM experiment_{kind} WHERE experiment_id = ?", (experiment_id,)
    ).fetchone()[0]
    if links > read:
        damage.note(
            f"experiment_{kind}",
            None,
            f"{links - read} of its {links} links name {kind} that cannot be found",
        )


def _without_unknown(order: Order, known: set[str]) -> Order:
    """``order`` leaving out the rows of variants outside ``known`` (unreadable ones)."""

    def kept(target_ids: Categorical, variant_ids: Categorical, repetition: IntArray) -> IntArray:
        rows = order(target_ids, variant_ids, repetition)
        inside = np.asarray(
            [isinstance(v, str) and v in known for v in variant_ids.values], dtype=np.bool_
        )
        return rows[inside[variant_ids.codes[rows]]] if len(rows) else rows

    return kept


def _differences(connection: sqlite3.Connection, wanted: list[str]) -> list[DifferenceMeasurement]:
    """The difference measurements of the run's measures."""
    differences: list[DifferenceMeasurement] = []
    if not wanted:
        return differences
    # Columns, not SQLite's json_object: it prints a REAL with 15 significant digits, so a
    # value such as 0.1 + 0.2 came back as 0.3.
    cursor = connection.execute(
        "SELECT id, measure, measure_id, observation_id, second_id, value FROM measurements "
        f"WHERE measure_id IN ({marks(len(wanted))}) AND second_id IS NOT NULL",
        wanted,
    )
    while block := cursor.fetchmany(BLOCK):
        differences.extend(
            DIFFERENCES.validate_python(
                [dict(zip(_DIFFERENCE_FIELDS, row, strict=True)) for row in block]
            )
        )
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
    except sqlite3.DatabaseError:  # busy, full, or a damaged page met while writing
        if connection.in_transaction:
            connection.execute("ROLLBACK")
    finally:
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
