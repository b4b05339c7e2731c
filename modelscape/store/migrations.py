"""The SQLite store's schema, as an ordered list of numbered migrations.

Migration *n* (counting from 1) moves a file from ``PRAGMA user_version`` n - 1 to n. A
migration, once released, never changes: a new schema is a new entry at the end. Every
migration is a tuple of single statements because ``executescript`` would commit halfway,
and a migration must apply entirely or not at all.

Tables (ids are content hashes and primary keys):

- ``experiments``: one row per experiment, its record as JSON.
- ``variants`` and ``experiment_variants``: variants as JSON, and each experiment's variants in
  order (a variant shared by two experiments is stored once).
- ``observations`` and ``experiment_observations``: raw outputs, stored before anything parses
  them, and which experiments they belong to. An observation's id does not involve its
  experiment, so a second experiment asking the same question reuses the stored answer.
- ``measurements``: point measurements (``second_id`` NULL) and difference measurements.
- ``leases`` (from 2): which process is asking for which observation now, and until when, so
  that two runs sharing a store do not both pay for one call.
- ``snapshots`` (from 3): an experiment's observations and point measurements as columns, in
  parts, so that a load need not parse every row (:mod:`~modelscape.store.snapshot`). Triggers
  on every table a load reads delete all snapshots when one of its rows is inserted, changed
  or deleted, whoever writes it.
"""

from __future__ import annotations

__all__ = ["FIRST_TABLES", "MIGRATIONS", "SCHEMA_VERSION"]

#: The tables of the first schema, which every modelscape store has. They are also the tables
#: whose rows a load reads, so a change to any of them makes every snapshot stale.
FIRST_TABLES = (
    "experiments",
    "variants",
    "experiment_variants",
    "observations",
    "experiment_observations",
    "measurements",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the first schema.
    (
        """CREATE TABLE experiments (
            id TEXT PRIMARY KEY,
            created REAL NOT NULL,
            record TEXT NOT NULL
        )""",
        """CREATE TABLE variants (
            id TEXT PRIMARY KEY,
            case_id TEXT NOT NULL,
            record TEXT NOT NULL
        )""",
        """CREATE TABLE experiment_variants (
            experiment_id TEXT NOT NULL,
            variant_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (experiment_id, variant_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE observations (
            id TEXT PRIMARY KEY,
            experiment_id TEXT NOT NULL,
            target_id TEXT NOT NULL,
            variant_id TEXT NOT NULL,
            repetition INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
            record TEXT NOT NULL
        )""",
        """CREATE TABLE experiment_observations (
            experiment_id TEXT NOT NULL,
            observation_id TEXT NOT NULL,
            PRIMARY KEY (experiment_id, observation_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE measurements (
            id TEXT PRIMARY KEY,
            measure TEXT NOT NULL,
            measure_id TEXT NOT NULL,
            observation_id TEXT NOT NULL,
            second_id TEXT,
            value REAL,
            details TEXT
        )""",
        "CREATE INDEX measurements_by_observation ON measurements (observation_id, measure_id)",
    ),
    # 2: leases on observations being asked.
    (
        """CREATE TABLE leases (
            observation_id TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            pid INTEGER NOT NULL,
            expires REAL NOT NULL
        ) WITHOUT ROWID""",
    ),
    # 3: snapshots of runs as columns, and the triggers that end them on any change.
    (
        """CREATE TABLE snapshots (
            experiment_id TEXT NOT NULL,
            part TEXT NOT NULL,
            piece INTEGER NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (experiment_id, part, piece)
        )""",
        *(
            f"CREATE TRIGGER {table}_{event.lower()}_ends_snapshots AFTER {event} ON {table} "
            "BEGIN DELETE FROM snapshots; END"
            for table in FIRST_TABLES
            for event in ("INSERT", "UPDATE", "DELETE")
        ),
    ),
)

#: The schema version this modelscape writes: the number of migrations.
SCHEMA_VERSION = len(MIGRATIONS)
