"""SQLiteStore: every run in one SQLite file, written as outputs arrive.

The file is in WAL mode, so readers never block the writer, and two processes can write one
store at once: each write is one short ``BEGIN IMMEDIATE`` transaction, a busy writer is waited
for (``busy_timeout``), and every insert is idempotent by content-hash id, so the second writer
of a record changes nothing, except that an ``ok`` observation replaces a ``failed`` one.
``synchronous=NORMAL`` keeps each commit cheap: a killed process loses nothing committed; only
a power cut or an operating-system crash may lose the last few commits.
"""

from __future__ import annotations

import gc
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from pydantic import TypeAdapter

from modelscape._model import trusted
from modelscape.errors import StoreError
from modelscape.results.records import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
)
from modelscape.store.migrations import MIGRATIONS, SCHEMA_VERSION
from modelscape.store.protocol import StoredRun, canonical_order
from modelscape.store.rows import (
    DIFFERENCES,
    VARIANTS,
    chunks,
    compact,
    json_array,
    marks,
    observation_of,
)
from modelscape.task.space import Variant

__all__ = ["SQLiteStore"]

# SQLite limits bound parameters per statement; 500 stays under every build's limit.
_CHUNK = 500
# Rows validated at once when loading a run.
_BLOCK = 20_000
R = TypeVar("R")
_BUSY_MS = 60_000


class SQLiteStore:
    """A :class:`~modelscape.store.protocol.Store` in one SQLite file at ``path``.

    The file is created and migrated on open. A file written by a newer modelscape (a higher
    schema version) is refused with a :class:`StoreError` rather than misread. One store may be
    used from several threads; a lock serializes its connection.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        try:
            self._connection = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=_BUSY_MS / 1000
            )
        except sqlite3.Error as error:
            raise StoreError(f"cannot open store {self.path}: {error}") from None
        try:
            self._connection.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
            self._connection.execute("PRAGMA journal_mode = WAL")
            self._connection.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as error:
            self._connection.close()
            raise StoreError(
                f"{self.path} is not a modelscape store ({error}); choose another file"
            ) from None
        except StoreError:
            self._connection.close()
            raise

    # -- schema --------------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        """The schema version of the file (``PRAGMA user_version``)."""
        with self._lock:
            return int(self._connection.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        version = int(self._connection.execute("PRAGMA user_version").fetchone()[0])
        self._check_version(version)
        if version == SCHEMA_VERSION:
            return
        with self._transaction():
            # Another process may have migrated between the read above and this lock.
            version = int(self._connection.execute("PRAGMA user_version").fetchone()[0])
            self._check_version(version)
            if version == 0:
                tables = self._connection.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                ).fetchone()[0]
                if tables:
                    raise StoreError(
                        f"{self.path} is an SQLite file with other tables, not a modelscape "
                        "store; choose another file"
                    )
            for number in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[number]:
                    self._connection.execute(statement)
                self._connection.execute(f"PRAGMA user_version = {number + 1}")

    def _check_version(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, written by a newer modelscape; this "
                f"one reads versions up to {SCHEMA_VERSION}: upgrade modelscape to open it"
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._connection)

    # -- writes -------------------------------------------------------------------------------
    def save_experiment(self, experiment: ExperimentRecord, variants: Iterable[Variant]) -> None:
        """Store an experiment and its variants (records already stored are kept)."""
        variants = list(variants)
        with self._lock, self._transaction():
            self._connection.execute(
                "INSERT OR IGNORE INTO experiments (id, created, record) VALUES (?, ?, ?)",
                (experiment.id, experiment.created, experiment.model_dump_json()),
            )
            self._connection.executemany(
                "INSERT OR IGNORE INTO variants (id, case_id, record) VALUES (?, ?, ?)",
                [(v.id, v.case, v.model_dump_json()) for v in variants],
            )
            self._connection.executemany(
                "INSERT OR IGNORE INTO experiment_variants (experiment_id, variant_id, position) "
                "VALUES (?, ?, ?)",
                [(experiment.id, v.id, i) for i, v in enumerate(variants)],
            )

    def save_observations(self, observations: Iterable[Observation]) -> None:
        """Store observations and link each to its experiment; ok replaces failed."""
        rows = [
            (o.id, o.experiment_id, o.target_id, o.variant_id, o.repetition, o.status,
             o.model_dump_json())
            for o in observations
        ]  # fmt: skip
        if not rows:
            return
        with self._lock, self._transaction():
            self._connection.executemany(
                "INSERT INTO observations (id, experiment_id, target_id, variant_id, repetition, "
                "status, record) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
                "record = excluded.record WHERE observations.status = 'failed'",
                rows,
            )
            self._connection.executemany(
                "INSERT OR IGNORE INTO experiment_observations (experiment_id, observation_id) "
                "VALUES (?, ?)",
                [(row[1], row[0]) for row in rows],
            )

    def save_measurements(
        self,
        points: Iterable[PointMeasurement] = (),
        differences: Iterable[DifferenceMeasurement] = (),
    ) -> None:
        """Store measurements (idempotent by id)."""
        rows: list[tuple[Any, ...]] = [
            (p.id, p.measure, p.measure_id, p.observation_id, None, p.value,
             None if p.details is None else json.dumps(p.details, ensure_ascii=False))
            for p in points
        ]  # fmt: skip
        rows.extend(
            (d.id, d.measure, d.measure_id, d.first, d.second, d.value, None) for d in differences
        )
        if not rows:
            return
        with self._lock, self._transaction():
            self._connection.executemany(
                "INSERT OR IGNORE INTO measurements (id, measure, measure_id, observation_id, "
                "second_id, value, details) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    # -- reads --------------------------------------------------------------------------------
    def _select(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._connection.execute(sql, parameters).fetchall()

    def observations(self, ids: Iterable[str]) -> dict[str, Observation]:
        """The stored observations among ``ids``, by id."""
        found: dict[str, Observation] = {}
        for batch in chunks(ids):
            rows = self._select(
                f"SELECT id, record FROM observations WHERE id IN ({marks(len(batch))})", batch
            )
            found.update((i, Observation.model_validate_json(r)) for i, r in rows)
        return found

    def measured(self, measure_id: str, observation_ids: Iterable[str]) -> set[str]:
        """The ids among ``observation_ids`` with a point measurement of ``measure_id``."""
        found: set[str] = set()
        for batch in chunks(observation_ids):
            rows = self._select(
                "SELECT observation_id FROM measurements WHERE second_id IS NULL AND "
                f"measure_id = ? AND observation_id IN ({marks(len(batch))})",
                [measure_id, *batch],
            )
            found.update(r[0] for r in rows)
        return found

    def measurement_ids(self, ids: Iterable[str]) -> set[str]:
        """The ids among ``ids`` of stored measurements."""
        found: set[str] = set()
        for batch in chunks(ids):
            rows = self._select(
                f"SELECT id FROM measurements WHERE id IN ({marks(len(batch))})", batch
            )
            found.update(r[0] for r in rows)
        return found

    def status_counts(self, experiment_id: str) -> dict[str, int]:
        """How many of an experiment's observations are ``ok`` and how many ``failed``."""
        rows = self._select(
            "SELECT o.status, count(*) FROM experiment_observations AS e JOIN observations AS o "
            "ON o.id = e.observation_id WHERE e.experiment_id = ? GROUP BY o.status",
            (experiment_id,),
        )
        return {"ok": 0, "failed": 0, **dict(rows)}

    def experiments(self) -> list[ExperimentRecord]:
        """Every experiment in the store, oldest first."""
        rows = self._select("SELECT record FROM experiments ORDER BY created, id")
        return [ExperimentRecord.model_validate_json(r[0]) for r in rows]

    def load(self, experiment_id: str) -> StoredRun:
        """Everything one experiment left, observations in canonical order."""
        # Hundreds of thousands of new objects would trigger many full collections of the
        # cyclic garbage collector for nothing: none of them is garbage yet.
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._load(experiment_id)
        finally:
            if paused:
                gc.enable()

    def _load(self, experiment_id: str) -> StoredRun:
        found = self._select("SELECT record FROM experiments WHERE id = ?", (experiment_id,))
        if not found:
            known = [r[0] for r in self._select("SELECT id FROM experiments ORDER BY created")]
            raise StoreError(
                f"no experiment {experiment_id!r} in {self.path}; it holds {known} "
                "(list them with `modelscape runs --store FILE`)"
            )
        experiment = ExperimentRecord.model_validate_json(found[0][0])
        variants = self._records(
            VARIANTS,
            "SELECT v.record FROM experiment_variants AS e JOIN variants AS v "
            "ON v.id = e.variant_id WHERE e.experiment_id = ? ORDER BY e.position",
            (experiment_id,),
        )
        observations = self._observations(
            "SELECT o.record FROM experiment_observations AS e JOIN observations AS o "
            "ON o.id = e.observation_id WHERE e.experiment_id = ?",
            (experiment_id,),
        )
        observations = [
            o
            if o.experiment_id == experiment_id
            else o.model_copy(update={"experiment_id": experiment_id})
            for o in observations
        ]
        compact(observations)
        compact([o.output for o in observations])
        coordinates: dict[str, Any] = {}
        for observation in observations:  # one coordinate dict per variant, not per output
            values = observation.__dict__
            values["coordinate"] = coordinates.setdefault(
                values["variant_id"], values["coordinate"]
            )
        members = {o.id for o in observations}
        wanted = [m.id for m in (*experiment.point_metrics, *experiment.difference_measures)]
        # Measurements are read by measure and kept when they belong to this run's outputs: a
        # scan with a cheap filter beats a join through the index, twice over, on large runs.
        points: list[PointMeasurement] = []
        differences: list[DifferenceMeasurement] = []
        if wanted:
            points = self._points(wanted, members)
            differences = self._records(
                DIFFERENCES,
                "SELECT json_object('id', m.id, 'measure', m.measure, 'measure_id', m.measure_id, "
                "'first', m.observation_id, 'second', m.second_id, 'value', m.value) "
                f"FROM measurements AS m WHERE m.measure_id IN ({marks(len(wanted))}) "
                "AND m.second_id IS NOT NULL",
                wanted,
            )
            differences = [d for d in differences if d.first in members and d.second in members]
            compact(differences)
        ordered = canonical_order(experiment, variants, observations)
        return experiment, variants, ordered, points, differences

    def _records(
        self, adapter: TypeAdapter[list[R]], sql: str, parameters: Sequence[Any]
    ) -> list[R]:
        """The records a query returns as JSON, validated a block of rows at a time.

        A block is one JSON array and one call into pydantic's core, instead of one call per
        record; blocks keep the text held at once small even for a million rows.
        """
        found: list[R] = []
        with self._lock:
            cursor = self._connection.execute(sql, parameters)
            while rows := cursor.fetchmany(_BLOCK):
                found.extend(adapter.validate_json(json_array(rows)))
        return found

    def _observations(self, sql: str, parameters: Sequence[Any]) -> list[Observation]:
        """Observations this store wrote itself, built without validating them again.

        Their JSON is parsed a block at a time and every record is completed with the field
        defaults of this release, which is what validation would add; validating hundreds of
        thousands of outputs again would dominate the time of ``Results.load``.
        """
        found: list[Observation] = []
        with self._lock:
            cursor = self._connection.execute(sql, parameters)
            while rows := cursor.fetchmany(_BLOCK):
                found.extend(observation_of(data) for data in json.loads(json_array(rows)))
        return found

    def _points(self, wanted: Sequence[str], members: set[str]) -> list[PointMeasurement]:
        """The point measurements of some measures on some observations.

        A run holds several per output, so they are built without validation, from columns
        this store wrote itself: each becomes exactly what ``model_construct`` would make,
        at a fraction of its cost, all sharing one set of field names.
        """
        found: list[PointMeasurement] = []
        with self._lock:
            cursor = self._connection.execute(
                "SELECT id, measure, measure_id, observation_id, value, details FROM "
                f"measurements WHERE measure_id IN ({marks(len(wanted))}) "
                "AND second_id IS NULL",
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

    def close(self) -> None:
        """Close the connection; the file stays as it is."""
        with self._lock:
            self._connection.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``: takes the write lock up front, so two writers queue
    on ``busy_timeout`` instead of failing when one upgrades a read lock."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def __enter__(self) -> None:
        self.connection.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        if kind is None:
            self.connection.execute("COMMIT")
        else:
            self.connection.execute("ROLLBACK")
