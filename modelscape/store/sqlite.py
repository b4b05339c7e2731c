"""SQLiteStore: every run in one SQLite file, written as outputs arrive.

The file is in WAL mode, so readers never block the writer, and two processes can write one
store at once: each write is one short ``BEGIN IMMEDIATE`` transaction, a busy writer is waited
for (``busy_timeout``), and every insert is idempotent by content-hash id, so the second writer
of a record changes nothing, except that an ``ok`` observation replaces a ``failed`` one.
Two runs of one experiment also share the work: each claims a lease on an observation before
asking for it (see :class:`~modelscape.store.protocol.Leasing`). ``synchronous=NORMAL`` keeps
each commit cheap: a killed process loses nothing committed; only a power cut or an
operating-system crash may lose the last few commits.

Opening a file never changes it (:mod:`~modelscape.store.connection`): WAL mode and migrations
are applied on the first write, so reading an older store, or one on a read-only mount, leaves
the file as it was.
"""

from __future__ import annotations

import gc
import json
import math
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from modelscape.errors import StoreError
from modelscape.records.stored import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
)
from modelscape.store.careful import experiments_carefully, records_carefully
from modelscape.store.connection import BUSY_SECONDS, connect, guard, inspect, writable
from modelscape.store.damage import (
    Damage,
    Damaged,
    either,
    lenient_rows,
)
from modelscape.store.loading import read_run
from modelscape.store.migrations import MIGRATIONS, SCHEMA_VERSION
from modelscape.store.protocol import StoredRun
from modelscape.store.rows import chunks, claim_leases, marks, read_observation
from modelscape.store.writing import VARIANT_BATCH, insert_experiment, insert_observations
from modelscape.task.space import Variant

__all__ = ["VARIANT_BATCH", "SQLiteStore"]


def _pair(difference: DifferenceMeasurement) -> tuple[Any, ...]:
    # SQLite stores NaN as NULL and a load cannot read an infinity back: refused here.
    if not math.isfinite(difference.value):
        raise StoreError(
            f"measurement {difference.id} cannot be stored: its value is {difference.value}, "
            f"not a finite number (measure {difference.measure!r})"
        )
    return (difference.id, difference.measure, difference.measure_id, difference.first,
            difference.second, difference.value, None)  # fmt: skip


class SQLiteStore:
    """A :class:`~modelscape.store.protocol.Store` in one SQLite file at ``path``.

    A missing file is created as a new store. A file written by a newer modelscape (a higher
    schema version), another program's database, or a file that is not SQLite is refused with
    a :class:`StoreError` and left untouched. With ``read_only`` (or when the file or its
    folder cannot be written) the store only reads, and any write is a :class:`StoreError`.
    One store may be used from several threads; a lock serializes its connection.

    ``damaged`` says what a read does with a row the file no longer holds intact (see
    :mod:`~modelscape.store.damage`): ``"refuse"`` raises a :class:`StoreError` naming every
    such row, ``"skip"`` leaves them out with a
    :class:`~modelscape.store.damage.DamagedStoreWarning`. It may be changed at any time.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        read_only: bool = False,
        damaged: Damaged = "refuse",
    ) -> None:
        self.path = os.fspath(path)
        Damage(self.path, "opening", damaged)  # an unknown policy is refused now
        self.damaged: Damaged = damaged
        # Observations found damaged by a read: asked again by a run, and their rows replaced
        # by the new answers (nothing else ever changes a stored ok row).
        self._unreadable: set[str] = set()
        self._lock = threading.Lock()
        self.read_only = read_only or not writable(self.path)
        if self.read_only and not read_only and not os.path.exists(self.path):
            raise StoreError(f"cannot create store {self.path}: its folder is not writable")
        self._connection = connect(self.path, read_only=self.read_only)
        self._prepared = False
        try:
            self._connection.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
            state = inspect(self._connection, self.path)
            if state == "empty":
                if self.read_only:
                    raise StoreError(f"{self.path} is an empty file, not a modelscape store")
                self._prepare()  # a new store: made ours at once
        except BaseException:
            self._connection.close()
            raise

    # -- schema --------------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        """The schema version of the file (``PRAGMA user_version``)."""
        with self._lock, guard(self.path, "reading the schema version"):
            return int(self._connection.execute("PRAGMA user_version").fetchone()[0])

    def _prepare(self) -> None:
        """Make the file ready for writing: WAL mode, and the current schema (once)."""
        if self._prepared:
            return
        if self.read_only:
            raise StoreError(
                f"{self.path} is open read-only (the file or its folder cannot be written, or "
                "read_only was asked): copy it somewhere writable to add to it"
            )
        with guard(self.path, "preparing the file for writing"):
            mode = self._connection.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                self._connection.execute("PRAGMA journal_mode = WAL")
            self._connection.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        self._prepared = True

    def _migrate(self) -> None:
        version = int(self._connection.execute("PRAGMA user_version").fetchone()[0])
        if version == SCHEMA_VERSION:
            return
        with self._transaction():
            # Another process may have migrated between the read above and this lock.
            version = int(self._connection.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} was upgraded to schema version {version} by a newer "
                    "modelscape while open; upgrade modelscape to write it"
                )
            for number in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[number]:
                    self._connection.execute(statement)
                self._connection.execute(f"PRAGMA user_version = {number + 1}")

    def _transaction(self) -> _Transaction:
        return _Transaction(self._connection)

    def check(self) -> None:
        """Check the whole file for damage (``PRAGMA quick_check``); raise a StoreError naming
        what is wrong. Counts read from a damaged file can be silently wrong."""
        with self._lock, guard(self.path, "checking the file"):
            problems = [r[0] for r in self._connection.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise StoreError(
                f"{self.path} is damaged: {'; '.join(problems)}; restore it from a copy, or "
                f"save what is readable with `sqlite3 {self.path} .recover`"
            )

    # -- writes -------------------------------------------------------------------------------
    def save_experiment(self, experiment: ExperimentRecord, variants: Iterable[Variant]) -> None:
        """Store an experiment and its variants (records already stored are kept).

        The variants' JSON is made and written :data:`VARIANT_BATCH` at a time, in one
        transaction: a run of a hundred thousand variants never holds all their rows at once.
        """
        with self._lock, guard(self.path, "storing an experiment"), self._transaction_for_write():
            insert_experiment(self._connection, experiment, variants)

    def save_observations(self, observations: Iterable[Observation]) -> None:
        """Store observations and link each to its experiment; ok replaces failed."""
        batch = list(observations)
        if not batch:
            return
        with self._lock, guard(self.path, "storing observations"), self._transaction_for_write():
            insert_observations(self._connection, batch, self._unreadable)

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
        rows.extend(_pair(d) for d in differences)
        if not rows:
            return
        with self._lock, guard(self.path, "storing measurements"), self._transaction_for_write():
            self._connection.executemany(
                "INSERT OR IGNORE INTO measurements (id, measure, measure_id, observation_id, "
                "second_id, value, details) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    def _transaction_for_write(self) -> _Transaction:
        self._prepare()
        return self._transaction()

    # -- leases -------------------------------------------------------------------------------
    def claim(self, ids: Sequence[str], holder: str, seconds: float) -> set[str]:
        """Lease the ids among ``ids`` that are neither stored ``ok`` nor leased by another
        live process, for ``seconds``; returns the ids now leased to ``holder``."""
        ids = list(ids)
        if not ids:
            return set()
        with self._lock, guard(self.path, "claiming observations"), self._transaction_for_write():
            return claim_leases(self._connection, ids, holder, seconds, self._unreadable)

    def release(self, holder: str) -> None:
        """End every lease ``holder`` still has."""
        with self._lock, guard(self.path, "releasing leases"), self._transaction_for_write():
            self._connection.execute("DELETE FROM leases WHERE holder = ?", (holder,))

    # -- reads --------------------------------------------------------------------------------
    def _matching(self, sql: str, parameters: Sequence[Any]) -> list[Any]:
        """The rows of a read that matches stored ids against ids asked for (damaged text in
        them, which cannot match, is read leniently)."""
        with self._lock, guard(self.path, "reading", records=True):
            return lenient_rows(self._connection, sql, parameters)

    def _select(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        with self._lock, guard(self.path, "reading", records=True):
            return self._connection.execute(sql, parameters).fetchall()

    def observations(self, ids: Iterable[str]) -> dict[str, Observation]:
        """The stored observations among ``ids``, by id (damaged ones as ``damaged`` says)."""
        found: dict[str, Observation] = {}
        damage = Damage(self.path, "reading observations", self.damaged)
        for batch in chunks(ids):
            with self._lock, guard(self.path, "reading observations", records=True):
                found.update(
                    either(
                        partial(self._records, batch),
                        partial(self._records_carefully, batch, damage),
                    )
                )
        damage.settle()
        return found

    def _records(self, ids: list[str]) -> dict[str, Observation]:
        sql = f"SELECT id, record FROM observations WHERE id IN ({marks(len(ids))})"
        found = {}
        for stored_id, record in self._connection.execute(sql, ids).fetchall():
            observation = found[stored_id] = read_observation(record)
            if observation.id != stored_id:  # damaged: read them again, one at a time
                raise StoreError(f"observation {stored_id} holds the record of another")
        return found

    def _records_carefully(self, ids: list[str], damage: Damage) -> dict[str, Observation]:
        return records_carefully(self._connection, ids, damage, self._unreadable)

    def measured(self, measure_id: str, observation_ids: Iterable[str]) -> set[str]:
        """The ids among ``observation_ids`` with a point measurement of ``measure_id``."""
        found: set[str] = set()
        for batch in chunks(observation_ids):
            rows = self._matching(
                "SELECT observation_id FROM measurements WHERE second_id IS NULL AND "
                f"measure_id = ? AND observation_id IN ({marks(len(batch))})",
                [measure_id, *batch],
            )
            asked = set(batch)
            found.update(r[0] for r in rows if r[0] in asked)
        return found

    def measurement_ids(self, ids: Iterable[str]) -> set[str]:
        """The ids among ``ids`` of stored measurements."""
        found: set[str] = set()
        for batch in chunks(ids):
            rows = self._matching(
                f"SELECT id FROM measurements WHERE id IN ({marks(len(batch))})", batch
            )
            asked = set(batch)
            found.update(r[0] for r in rows if r[0] in asked)
        return found

    def status_counts(self, experiment_id: str) -> dict[str, int]:
        """How many of an experiment's observations are ``ok`` and how many ``failed``."""
        # Counted in SQL, never read as text: a damaged status is neither, not an error.
        rows = self._select(
            "SELECT coalesce(sum(o.status = 'ok'), 0), coalesce(sum(o.status = 'failed'), 0) "
            "FROM experiment_observations AS e JOIN observations AS o "
            "ON o.id = e.observation_id WHERE e.experiment_id = ?",
            (experiment_id,),
        )
        return {"ok": int(rows[0][0]), "failed": int(rows[0][1])}

    def experiments(self) -> list[ExperimentRecord]:
        """Every experiment in the store, oldest first (damaged ones as ``damaged`` says)."""
        damage = Damage(self.path, "reading experiments", self.damaged)
        with self._lock, guard(self.path, "reading experiments", records=True):
            found = either(
                lambda: [
                    ExperimentRecord.model_validate_json(r[0])
                    for r in self._connection.execute(
                        "SELECT record FROM experiments ORDER BY created, id"
                    ).fetchall()
                ],
                lambda: experiments_carefully(self._connection, damage),
            )
        damage.settle()
        return found

    def load(self, experiment_id: str) -> StoredRun:
        """Everything one experiment left, observations in canonical order.

        The run is read from its snapshot when the file has one that matches its rows, else
        from the rows; a store that has written to its file keeps a snapshot of what it read
        from the rows, so the next load is fast (:mod:`~modelscape.store.snapshot`).
        """
        return self._load(experiment_id, keep=self._prepared and not self.read_only)

    def snapshot(self, experiment_id: str) -> None:
        """Keep a snapshot of an experiment's run in the file, so that loads read columns
        instead of parsing every row. The first write to a file of an older schema migrates
        it; a store open read-only refuses with a :class:`StoreError`."""
        with self._lock, guard(self.path, "preparing the file for a snapshot"):
            self._prepare()
        self._load(experiment_id, keep=True)

    def _load(self, experiment_id: str, *, keep: bool) -> StoredRun:
        # Hundreds of thousands of new objects would trigger many full collections of the
        # cyclic garbage collector for nothing: none of them is garbage yet.
        paused = gc.isenabled()
        gc.disable()
        try:
            with (
                self._lock,
                guard(self.path, f"loading experiment {experiment_id}", records=True),
            ):
                # One read transaction: every table is read as of one moment, and a snapshot
                # written at its end describes exactly the rows that were read.
                self._connection.execute("BEGIN")
                try:
                    run = read_run(
                        self._connection,
                        self.path,
                        experiment_id,
                        keep=keep,
                        damaged=self.damaged,
                    )
                finally:
                    if self._connection.in_transaction:
                        self._connection.execute("COMMIT")
                return run
        finally:
            if paused:
                gc.enable()

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
