"""Store files in bad shape: read-only, foreign, damaged; and leases between two runs."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modelscape.errors import StoreError
from modelscape.execution.runner import Runner
from modelscape.results.results import Results, run_of
from modelscape.store import MemoryStore, SQLiteStore, Store
from modelscape.store.migrations import SCHEMA_VERSION
from modelscape.store.protocol import Leasing, holder_alive
from tests.store.store_records import (
    check_read_only_store,
    damage,
    observation,
    stored_run,
)
from tests.support.mapping_space import experiment, planted
from tests.support.readonly import can_mount_read_only


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_foreign_database_is_refused_and_left_exactly_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
        connection.execute("INSERT INTO notes VALUES ('mine')")
    connection.close()
    before = digest(path)
    with pytest.raises(StoreError, match=r"other tables \(notes\), not a modelscape store"):
        SQLiteStore(path)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]  # no -wal, no -shm
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    connection.close()


def test_a_foreign_database_with_a_user_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE settings (key TEXT)")
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    connection.close()
    before = digest(path)
    with pytest.raises(StoreError, match="not a modelscape store"):
        SQLiteStore(path)
    assert digest(path) == before


def test_an_older_store_is_read_without_being_changed_and_migrated_on_write(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    run = stored_run(path)
    with sqlite3.connect(path) as connection:  # back to the first schema, as 0.1 wrote it
        triggers = connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (name,) in triggers.fetchall():
            connection.execute(f"DROP TRIGGER {name}")
        connection.execute("DROP TABLE snapshots")
        connection.execute("DROP TABLE leases")
        connection.execute("PRAGMA user_version = 1")
    connection.close()
    before = digest(path)
    reader = SQLiteStore(path)
    assert len(run_of(Results.load(reader, run)).observations) == 20
    reader.close()
    assert digest(path) == before
    writer = SQLiteStore(path)
    Runner(store=writer).run(experiment([planted(), planted("second")]))
    assert writer.schema_version == SCHEMA_VERSION
    writer.close()


def test_read_only_stores_read_and_refuse_writes(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run = stored_run(path)
    before = digest(path)
    store = SQLiteStore(path, read_only=True)
    assert store.read_only
    assert [e.id for e in store.experiments()] == [run]
    assert len(run_of(Results.load(store, run)).observations) == 20
    with pytest.raises(StoreError, match="open read-only"):
        Runner(store=store).run(experiment([planted()]))
    store.close()
    assert digest(path) == before
    with pytest.raises(StoreError, match="no such store file"):
        SQLiteStore(tmp_path / "missing.db", read_only=True)


def test_a_store_on_a_read_only_file_system_opens_read_only(tmp_path: Path) -> None:
    if not can_mount_read_only():
        pytest.skip("needs unshare with user and mount namespaces to mount a folder read-only")
    folder = tmp_path / "mounted"
    folder.mkdir()
    check_read_only_store(folder, folder / "runs.db")


def test_a_damaged_store_is_one_clear_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run = stored_run(path)
    damage(path)
    for read in (lambda: SQLiteStore(path).check(), lambda: Results.load(SQLiteStore(path), run)):
        with pytest.raises(StoreError) as raised:
            read()
        assert str(path) in str(raised.value)


def test_an_unreadable_record_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run = stored_run(path)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE observations SET record = '{\"broken' WHERE rowid = 3")
    connection.close()
    store = SQLiteStore(path)
    with pytest.raises(StoreError, match="holds a record that cannot be read") as raised:
        Results.load(store, run)
    assert str(path) in str(raised.value)
    (broken,) = store._connection.execute("SELECT id FROM observations WHERE rowid = 3").fetchone()
    with pytest.raises(StoreError, match="holds a record that cannot be read") as raised:
        store.observations([broken])
    assert "while reading observations" in str(raised.value)
    with pytest.raises(StoreError, match="holds a record that cannot be read"):
        Runner(store=store).run(experiment([planted()]))  # a rerun reads what is stored first
    store.close()


# -- leases ------------------------------------------------------------------------------------
def test_leases_keep_a_second_holder_out_until_they_end(any_store: Store) -> None:
    assert isinstance(any_store, Leasing)
    assert any_store.claim(["a", "b"], "first", 60) == {"a", "b"}
    assert any_store.claim(["a", "b", "c"], "second", 60) == {"c"}
    assert any_store.claim(["a"], "first", 60) == {"a"}  # a holder renews its own
    any_store.release("first")
    assert any_store.claim(["a", "b"], "second", 60) == {"a", "b"}
    assert any_store.claim(["d"], "first", 0.01) == {"d"}
    time.sleep(0.05)
    assert any_store.claim(["d"], "second", 60) == {"d"}  # expired


def test_a_stored_observation_ends_its_lease_and_is_never_claimed(any_store: Store) -> None:
    assert isinstance(any_store, Leasing)
    assert any_store.claim(["o1", "o2"], "first", 60) == {"o1", "o2"}
    any_store.save_observations([observation("o1"), observation("o2", "failed")])
    assert any_store.claim(["o1", "o2"], "second", 60) == {"o2"}  # ok is done; failed is free


def test_a_lease_of_a_dead_process_is_void(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(child.stdout)
    store._connection.execute(
        "INSERT INTO leases VALUES ('o1', 'gone', ?, ?)", (dead, time.time() + 3600)
    )
    store._connection.execute(
        "INSERT INTO leases VALUES ('o2', 'alive', ?, ?)", (os.getppid(), time.time() + 3600)
    )
    assert store.claim(["o1", "o2"], "mine", 60) == {"o1"}
    store.close()


@pytest.mark.parametrize(
    "pid",
    [2**31, 2**63 - 1, 0, -1, -os.getpid(), "x", 1.5],
    # named, not shown: this process's pid differs between the runs (and xdist workers) that
    # must collect the same tests
    ids=["2**31", "2**63-1", "0", "-1", "minus-own-pid", "text", "fraction"],
)
def test_a_lease_of_a_pid_no_process_can_have_is_void(tmp_path: Path, pid: object) -> None:
    """A hand-edited lease row: an id beyond pid_t, or 0 and below (which kill() reads as
    process groups), or not an integer, names no live process, so the lease holds nothing."""
    store = SQLiteStore(tmp_path / "runs.db")
    store._connection.execute(
        "INSERT INTO leases VALUES ('o1', 'edited', ?, ?)", (pid, time.time() + 3600)
    )
    assert store.claim(["o1"], "mine", 60) == {"o1"}
    held = store._connection.execute("SELECT holder, pid FROM leases").fetchall()
    assert held == [("mine", os.getpid())]  # the claim replaced the row with a sound one
    store.close()
    assert not holder_alive(pid)


def test_a_lease_whose_end_is_not_a_number_is_void(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    store._connection.execute(
        "INSERT INTO leases VALUES ('o1', 'edited', ?, 'tomorrow')", (os.getppid(),)
    )
    store._connection.execute(
        "INSERT INTO leases VALUES ('o2', 'edited', ?, ?)", (os.getppid(), time.time() + 3600)
    )
    assert store.claim(["o1", "o2"], "mine", 60) == {"o1"}
    store.close()


def test_a_lease_of_process_1_holds(tmp_path: Path) -> None:
    # The lowest process id is a real process (every pid namespace's init), not a group.
    assert Path("/proc/1").exists()
    store = SQLiteStore(tmp_path / "runs.db")
    store._connection.execute(
        "INSERT INTO leases VALUES ('o1', 'init', 1, ?)", (time.time() + 3600,)
    )
    assert store.claim(["o1"], "mine", 60) == set()
    store.close()


def _pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def _owner(pid: int) -> int | None:
    try:
        return Path(f"/proc/{pid}").stat().st_uid
    except OSError:  # gone since it was listed
        return None


def test_a_lease_of_another_users_live_process_holds(tmp_path: Path) -> None:
    """A process this one may not signal (EPERM) is alive: a shared store on a machine of
    several users must not hand another user's observations out twice."""
    if os.getuid() != 0:
        others = [pid for pid in _pids() if _owner(pid) not in (None, os.getuid())]
        if not others:
            pytest.skip("no process of another user to lease from")
        assert holder_alive(others[0])
        return
    holder = os.getppid()  # a process of root, as this one
    # Be another user for the check, keeping root as the saved id to come back to.
    os.setresuid(65534, 65534, 0)
    try:
        alive = holder_alive(holder)
    finally:
        os.setresuid(0, 0, 0)
    assert alive


def test_two_runners_on_one_store_pay_once_for_each_observation(tmp_path: Path) -> None:
    import asyncio

    from modelscape.targets._callable import CallableTarget
    from modelscape.targets.protocol import TargetOutput, TargetRequest

    calls: list[int] = []
    rule = planted("shared")

    async def slow(request: TargetRequest) -> TargetOutput:
        calls.append(request.seed)
        await asyncio.sleep(0.02)
        return await rule(request)

    store = MemoryStore()
    run = experiment([CallableTarget(slow, name="shared")], repetitions=4)

    async def both() -> list[Results]:
        return list(
            await asyncio.gather(Runner(store=store).arun(run), Runner(store=store).arun(run))
        )

    first, second = asyncio.run(both())
    assert sorted(calls) == sorted(p.seed for p in run.plan())  # each asked exactly once
    for results in (first, second):
        assert len(run_of(results).observations) == run.calls()
        assert not run_of(results).failed
