"""Snapshots: a run kept as columns in its store loads to the records its rows give, and is
never read once it no longer matches them."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.errors import StoreError
from modelscape.execution.runner import Runner
from modelscape.execution.shard import Shard
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.stored import Observation, PointMeasurement
from modelscape.store import snapshot
from modelscape.store.merge import merge_stores
from modelscape.store.snapshot import read_snapshot
from modelscape.store.sqlite import SQLiteStore
from tests.store.test_columns import RECORD, RUN, row_by_row


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def parts(path: Path) -> list[str]:
    """The parts of every snapshot in the file."""
    with sqlite3.connect(path) as connection:
        found = [r[0] for r in connection.execute("SELECT DISTINCT part FROM snapshots")]
    connection.close()
    return found


def cached(path: Path) -> tuple[list[Observation], list[PointMeasurement]] | None:
    """The run's records as its snapshot gives them (None: no snapshot matches the rows)."""
    connection = sqlite3.connect(path)
    wanted = [m.id for m in (*RECORD.point_metrics, *RECORD.difference_measures)]
    found = read_snapshot(connection, RECORD.id, wanted)
    connection.close()
    if found is None:
        return None
    return list(found[0]), sorted(found[1], key=lambda p: p.id)


def rows(path: Path) -> tuple[list[Observation], list[PointMeasurement]]:
    observations, points = row_by_row(path, RECORD.id)
    return observations, sorted(points, key=lambda p: p.id)


def run_store(path: Path) -> None:
    with SQLiteStore(path) as store:
        Runner(store=store).run(RUN)


def edit(path: Path, *statements: str) -> None:
    """Change the file as another program would."""
    connection = sqlite3.connect(path)
    for statement in statements:
        connection.execute(statement)
    connection.commit()
    connection.close()


def test_a_run_keeps_a_snapshot_that_loads_to_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    assert "obs.ids" in parts(path)
    assert cached(path) == rows(path)
    with SQLiteStore(path, read_only=True) as store:
        loaded = store.load(RUN.id)
    assert list(loaded.observations) == rows(path)[0]
    assert isinstance(loaded.points, PointColumns)
    assert isinstance(loaded.observations, ObservationColumns)
    # The points know their observations' rows: the indexes need not look ids up.
    assert loaded.points.rows_in(loaded.observations.rows_by_id) is not None
    assert loaded.points.rows_in({}) is None


def test_a_store_that_only_reads_never_writes_one(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    edit(path, "DELETE FROM snapshots")
    before = digest(path)
    for read_only in (True, False):  # a site build opens writable, and must not write either
        with SQLiteStore(path, read_only=read_only) as store:
            store.load(RUN.id)
        assert digest(path) == before
    assert cached(path) is None


@pytest.mark.parametrize(
    "change",
    [
        "UPDATE observations SET record = json_set(record, '$.output.text', 'edited') "
        "WHERE rowid = 1",
        "DELETE FROM measurements WHERE rowid = 2",
        "UPDATE measurements SET value = 0.25 WHERE rowid = 3",
        "DELETE FROM experiment_observations WHERE observation_id = "
        "(SELECT min(observation_id) FROM experiment_observations)",
        "UPDATE variants SET record = json_set(record, '$.reference', 'other')",
        "UPDATE experiment_variants SET position = position",
        "UPDATE experiments SET created = created + 1",
    ],
)
def test_any_change_to_the_rows_ends_the_snapshot(tmp_path: Path, change: str) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    edit(path, change)
    assert parts(path) == []
    with SQLiteStore(path) as store:
        loaded = store.load(RUN.id)
    assert list(loaded.observations) == rows(path)[0]
    assert sorted(loaded.points, key=lambda p: p.id) == rows(path)[1]


def test_a_write_through_the_store_ends_it_and_the_next_load_keeps_a_new_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    with SQLiteStore(path) as store:
        first = store.load(RUN.id)
        failed = first.observations[0]
        store.save_observations([failed.model_copy(update={"id": "extra", "status": "failed"})])
        assert parts(path) == []
        again = store.load(RUN.id)  # this store wrote: it keeps a snapshot of what it read
    assert "extra" in {o.id for o in again.observations}
    assert cached(path) == rows(path)


def test_a_stale_snapshot_is_not_read_even_without_its_triggers(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    with sqlite3.connect(path) as connection:
        triggers = connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (name,) in triggers.fetchall():
            connection.execute(f"DROP TRIGGER {name}")
        connection.execute(
            "INSERT INTO measurements SELECT id || 'x', measure, measure_id, observation_id, "
            "second_id, value, details FROM measurements WHERE rowid = 1"
        )
    connection.close()
    assert parts(path)
    assert cached(path) is None
    with SQLiteStore(path) as store:
        points = store.load(RUN.id).points
    assert sorted(points, key=lambda p: p.id) == rows(path)[1]


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE snapshots SET data = substr(data, 1, length(data) - 1) WHERE part = 'obs.ids'",
        "UPDATE snapshots SET data = x'4100' WHERE part = 'points.values'",
        "DELETE FROM snapshots WHERE part = 'obs.top.case.codes'",
        "UPDATE snapshots SET piece = 1 WHERE part = 'header'",
        "UPDATE snapshots SET data = 'J[]' WHERE part = 'header'",
        "UPDATE snapshots SET data = 'J{\"format\": 99}' WHERE part = 'header'",
    ],
)
def test_a_damaged_snapshot_is_ignored_for_the_rows(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    edit(path, damage)  # the snapshots table has no trigger: the damage stays
    assert parts(path)
    assert cached(path) is None
    with SQLiteStore(path, read_only=True) as store:
        assert list(store.load(RUN.id).observations) == rows(path)[0]


def forge(path: Path, part: str, data: bytes) -> None:
    """Replace one part of the snapshot and fix its CRC, as a careful forger would."""
    with SQLiteStore(path) as store:
        connection = store._connection
        header = connection.execute("SELECT data FROM snapshots WHERE part = 'header'")
        text = header.fetchone()[0].decode()
        found = json.loads(text[1:])
        found["crc"][part] = zlib.crc32(data)
        connection.execute("UPDATE snapshots SET data = ? WHERE part = ?", (data, part))
        connection.execute(
            "UPDATE snapshots SET data = ? WHERE part = 'header'",
            (b"J" + json.dumps(found).encode(),),
        )


def test_a_forged_snapshot_whose_checks_pass_is_still_checked_column_by_column(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    with sqlite3.connect(path) as connection:  # a code beyond the values, with a CRC to match
        blob = connection.execute(
            "SELECT data FROM snapshots WHERE part = 'obs.top.status.codes'"
        ).fetchone()[0]
    connection.close()
    forge(path, "obs.top.status.codes", blob[:-1] + bytes([200]))
    assert cached(path) is None


@pytest.mark.parametrize(
    ("part", "values"),
    [
        ("obs.top.status.values", [["weird"], ["ok"], ["failed"]]),
        ("obs.top.case.values", [[7]] * 40),
        ("obs.top.coordinate.values", [[["not", "a", "coordinate"]]] * 40),
        ("obs.output.usage.values", [[[1, 2]]] * 40),
        ("points.measure.values", [[3]] * 40),
    ],
)
def test_a_snapshot_consistent_in_every_check_but_holding_impossible_values_is_refused(
    tmp_path: Path, part: str, values: list[object]
) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    with sqlite3.connect(path) as connection:
        stored = connection.execute("SELECT data FROM snapshots WHERE part = ?", (part,))
        count = len(json.loads(stored.fetchone()[0][1:]))
    connection.close()
    # As many values as before, so every code still has one: only their kinds are wrong.
    forge(path, part, b"J" + json.dumps(values[:count]).encode())
    assert cached(path) is None
    with SQLiteStore(path, read_only=True) as store:
        assert list(store.load(RUN.id).observations) == rows(path)[0]


#: Stands for a field taken out of the row.
REMOVED = object()


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("status", "weird", "'weird' as its status"),
        ("case", 7, "7 as its case"),
        ("seed", "3", "'3' as its seed"),
        ("coordinate", ["x"], "['x'] as its coordinate"),  # named by its variant
        ("output", {"text": 5}, "5 as its output's text"),
        ("output", {"text": "", "usage": [1]}, "[1] as its output's usage"),
        ("output", {"text": "", "latency": "slow"}, "'slow' as its output's latency"),
        ("status", REMOVED, "nothing as its status"),
    ],
)
def test_a_row_edited_to_hold_what_no_observation_can_is_named(
    tmp_path: Path, field: str, value: object, named: str
) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    connection = sqlite3.connect(path)
    observation, record = connection.execute(
        "SELECT id, record FROM observations ORDER BY id LIMIT 1"
    ).fetchone()
    data = json.loads(record)
    if value is REMOVED:
        del data[field]
    else:
        data[field] = value
    connection.execute(
        "UPDATE observations SET record = ? WHERE id = ?", (json.dumps(data), observation)
    )
    if field == "coordinate":  # a variant's coordinate is read from any one of its rows
        connection.execute(
            "UPDATE observations SET record = json_set(record, '$.coordinate', json(?)) "
            "WHERE json_extract(record, '$.variant_id') = ?",
            (json.dumps(value), data["variant_id"]),
        )
    connection.commit()
    connection.close()
    with SQLiteStore(path, read_only=True) as store, pytest.raises(StoreError) as raised:
        store.load(RUN.id)
    whose = f"variant {data['variant_id']!r}" if field == "coordinate" else repr(observation)
    assert f"{whose} has {named}" in str(raised.value)


def test_a_run_in_many_pieces_loads_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "_PIECE", 7)
    path = tmp_path / "s.db"
    run_store(path)
    with sqlite3.connect(path) as connection:
        most = connection.execute("SELECT max(piece) FROM snapshots").fetchone()[0]
    connection.close()
    assert most > 10
    assert cached(path) == rows(path)


def test_an_older_store_gets_a_snapshot_when_asked_and_stays_as_it_was_otherwise(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    run_store(path)
    with sqlite3.connect(path) as connection:  # as schema 2 left it
        triggers = connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (name,) in triggers.fetchall():
            connection.execute(f"DROP TRIGGER {name}")
        connection.execute("DROP TABLE snapshots")
        connection.execute("PRAGMA user_version = 2")
    connection.close()
    expected = rows(path)
    with SQLiteStore(path, read_only=True) as store, pytest.raises(StoreError, match="read-only"):
        store.snapshot(RUN.id)
    with SQLiteStore(path) as store:
        store.snapshot(RUN.id)
        assert store.schema_version == 3
    assert cached(path) == expected


def test_merged_shards_load_as_one_run_from_rows_and_from_snapshots(tmp_path: Path) -> None:
    whole = tmp_path / "whole.db"
    run_store(whole)
    sources = []
    for index in (1, 2, 3):
        path = tmp_path / f"shard{index}.db"
        execution = RUN.execution.model_copy(update={"shard": Shard(index=index, count=3)})
        with SQLiteStore(path) as store:
            Runner(store=store).run(dataclasses.replace(RUN, execution=execution))
        assert cached(path) is not None
        sources.append((path.name, SQLiteStore(path, read_only=True)))
    merged = tmp_path / "merged.db"
    with SQLiteStore(merged) as into:
        merge_stores(sources, into)
        from_rows = into.load(RUN.id)  # this store wrote: it keeps a snapshot
    for _, source in sources:
        source.close()
    with SQLiteStore(merged, read_only=True) as store:
        from_snapshot = store.load(RUN.id)
    with SQLiteStore(whole, read_only=True) as store:
        single = store.load(RUN.id)
    for loaded in (from_rows, from_snapshot):
        assert [o.id for o in loaded.observations] == [o.id for o in single.observations]
        assert [o.output for o in loaded.observations] == [o.output for o in single.observations]
        assert sorted(p.id for p in loaded.points) == sorted(p.id for p in single.points)
    assert cached(merged) == rows(merged)


def test_a_load_while_another_process_writes_gives_up_its_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    run_store(path)
    edit(path, "DELETE FROM snapshots")
    expected = rows(path)
    other = sqlite3.connect(path, isolation_level=None)
    with SQLiteStore(path) as store:
        store.save_experiment(RECORD, [])  # a store that wrote: it would keep a snapshot
        other.execute("BEGIN IMMEDIATE")  # but another process holds the write lock
        loaded = store.load(RUN.id)
        other.execute("ROLLBACK")
        assert list(loaded.observations) == expected[0]
        assert cached(path) is None
        store.load(RUN.id)  # the lock is free now
    other.close()
    assert cached(path) == expected


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stored run with its snapshot, shared by the examples below (each works on a copy)."""
    path = tmp_path_factory.mktemp("kept") / "s.db"
    run_store(path)
    return path


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_forged_part_never_breaks_a_load(kept: Path, tmp_path: Path, data: st.DataObject) -> None:
    """Bytes of any part changed, and the CRC fixed to match: the snapshot is refused or read,
    never an exception, and the store still loads."""
    path = tmp_path / f"f{data.draw(st.integers(0, 10**9))}.db"
    shutil.copy(kept, path)
    connection = sqlite3.connect(path)
    names = sorted(r[0] for r in connection.execute("SELECT part FROM snapshots"))
    name = data.draw(st.sampled_from([n for n in names if n != "header"]))
    blob = bytearray(
        connection.execute("SELECT data FROM snapshots WHERE part = ?", (name,)).fetchone()[0]
    )
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(blob) - 1))
        blob[at] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        del blob[data.draw(st.integers(1, len(blob))) :]
    header = json.loads(
        connection.execute("SELECT data FROM snapshots WHERE part = 'header'").fetchone()[0][1:]
    )
    header["crc"][name] = zlib.crc32(bytes(blob))
    connection.execute("UPDATE snapshots SET data = ? WHERE part = ?", (bytes(blob), name))
    connection.execute(
        "UPDATE snapshots SET data = ? WHERE part = 'header'",
        (b"J" + json.dumps(header).encode(),),
    )
    connection.commit()
    connection.close()
    found = cached(path)
    if found is None:  # refused: the rows are read instead
        with SQLiteStore(path, read_only=True) as store:
            assert list(store.load(RUN.id).observations) == rows(path)[0]
