"""Opening store files and explaining SQLite's errors: each failure says what is wrong with
which file and what to do, and a caller's own mistake is never blamed on the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from modelscape.errors import StoreError
from modelscape.store import connection
from modelscape.store import sqlite as sqlite_store
from modelscape.store.sqlite import SQLiteStore
from tests.store.store_records import (
    check_read_only_store,
    damage,
    observation,
    stored_run,
)
from tests.support.readonly import can_mount_read_only


def test_a_foreign_database_is_named_by_its_first_five_tables(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as raw:
        for name in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"):
            raw.execute(f"CREATE TABLE {name} (x)")
    raw.close()
    with pytest.raises(StoreError) as raised:
        SQLiteStore(path)
    message = str(raised.value)
    assert "other tables (alpha, bravo, charlie, delta, echo), not a modelscape store" in message
    assert "foxtrot" not in message


def test_a_damaged_file_is_explained_as_damage_with_the_way_to_recover(tmp_path: Path) -> None:

    from modelscape.results.results import Results

    path = tmp_path / "runs.db"
    run = stored_run(path)
    damage(path)
    store = SQLiteStore(path)
    with pytest.raises(StoreError) as raised:
        Results.load(store, run)
    store.close()
    message = str(raised.value)
    assert message.startswith(f"{path} is damaged (database disk image is malformed)")
    assert f"`sqlite3 {path} .recover`" in message


def test_a_refused_write_says_the_file_cannot_be_written(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    store.save_observations([observation("o1")])
    # SQLite itself now refuses every write, as for a file that became read-only while open.
    store._connection.execute("PRAGMA query_only = 1")
    with pytest.raises(StoreError) as raised:
        store.save_observations([observation("o2")])
    message = str(raised.value)
    assert message.startswith(f"{store.path} cannot be written (attempt to write a readonly")
    assert "while storing observations: open a writable copy" in message
    store.close()


def test_a_store_locked_past_the_busy_timeout_says_who_to_wait_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real wait is a minute; a twentieth of a second shows the same error.
    monkeypatch.setattr(connection, "BUSY_SECONDS", 0.05)
    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 0.05)
    path = tmp_path / "runs.db"
    store = SQLiteStore(path)
    store.save_observations([observation("o1")])
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process in the middle of a long write
    try:
        with pytest.raises(StoreError) as raised:
            store.save_observations([observation("o2")])
    finally:
        other.execute("ROLLBACK")
        other.close()
    message = str(raised.value)
    assert message.startswith(f"{path} was locked by another process for over 0.05 s")
    assert "(database is locked) while storing observations; try again when it is done" in message
    store.save_observations([observation("o2")])  # free again: the write goes through
    assert store.status_counts("e1") == {"ok": 2, "failed": 0}
    store.close()


def test_any_other_sqlite_error_names_the_file_and_what_was_being_done(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    store = SQLiteStore(path)
    with sqlite3.connect(path) as raw:  # changed outside modelscape
        raw.execute("DROP TABLE leases")
    raw.close()
    with pytest.raises(StoreError) as raised:
        store.claim(["o1"], "me", 60)
    assert str(raised.value) == f"{path}: claiming observations failed: no such table: leases"
    store.close()


def test_a_callers_mistake_in_a_write_is_not_blamed_on_the_file(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    with pytest.raises(TypeError):
        store.claim(["o1"], "me", "sixty")  # type: ignore[arg-type]
    assert store.claim(["o1"], "me", 60) == {"o1"}  # the failed claim left nothing behind
    store.close()


def test_a_store_file_that_alone_is_read_only_opens_read_only(tmp_path: Path) -> None:
    """A read-only file in a writable folder (here the file alone is mounted read-only)."""
    if not can_mount_read_only():
        pytest.skip("needs unshare with user and mount namespaces to mount a file read-only")
    path = tmp_path / "runs.db"
    check_read_only_store(path, path)


def test_an_id_that_cannot_be_encoded_is_not_blamed_on_the_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run = stored_run(path)
    store = SQLiteStore(path)
    lone = "\udcff"  # what a command-line argument of invalid UTF-8 becomes
    for read in (
        lambda: store.observations([lone]),
        lambda: store.status_counts(lone),
        lambda: store.measured(lone, ["o1"]),
        lambda: store.load(lone),
    ):
        with pytest.raises(UnicodeEncodeError):
            read()
    assert store.status_counts(run)["ok"] == 20  # the file is fine
    store.close()
