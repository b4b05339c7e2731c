"""A store file damaged under modelscape: flipped bytes, text that is not UTF-8, ids changed.

Every read ends in one of three ways: a clean load, a load that leaves the damaged rows out
and names them (``damaged="skip"``), or a StoreError naming the file. Never another
exception, never a write to the file, and never a hang of a run that meets a damaged row.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.cli import main
from modelscape.errors import StoreError
from modelscape.execution.runner import Runner
from modelscape.results.results import Results, run_of
from modelscape.store import SQLiteStore
from modelscape.store.damage import DamagedStoreWarning
from tests.store.store_records import stored_run
from tests.support.mapping_space import experiment, planted

# One real small store, made once: every example damages a copy of its bytes.
_CLEAN: dict[str, tuple[bytes, str]] = {}


def clean_store(folder: Path) -> tuple[bytes, str]:
    """The bytes of a small stored run (without a snapshot) and its experiment's id."""
    if "store" not in _CLEAN:
        path = folder / "clean.db"
        run = stored_run(path)
        with sqlite3.connect(path) as connection:
            connection.execute("DELETE FROM snapshots")  # so the rows themselves are read
        connection.close()
        _CLEAN["store"] = (path.read_bytes(), run)
    return _CLEAN["store"]


def corrupt(connection: sqlite3.Connection, sql: str, *parameters: object) -> None:
    connection.execute(sql, parameters)
    connection.commit()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_everything(path: Path, policy: str) -> list[str]:
    """Read every run of the file as a report would; the damage warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # The default refuses damage; "skip" must be asked for.
        opened = SQLiteStore(path) if policy == "refuse" else SQLiteStore(path, damaged="skip")
        with opened as store:
            for record in store.experiments():
                results = Results.load(store, record.id)
                store.observations([o.id for o in run_of(results).observations])
                store.status_counts(record.id)
    return [str(w.message) for w in caught if issubclass(w.category, DamagedStoreWarning)]


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    flips=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)),
        min_size=1,
        max_size=200,
    ),
    skip_first_page=st.booleans(),
    policy=st.sampled_from(["skip", "refuse"]),
)
def test_flipped_bytes_end_in_a_load_named_damage_or_a_store_error(
    tmp_path_factory: pytest.TempPathFactory,
    flips: list[tuple[float, int]],
    skip_first_page: bool,
    policy: str,
) -> None:
    folder = tmp_path_factory.mktemp("flipped")
    data, _ = clean_store(tmp_path_factory.getbasetemp())
    damaged = bytearray(data)
    # The first page holds the schema; damage past it reaches the rows themselves.
    start = 4096 if skip_first_page else 0
    for where, value in flips:
        damaged[start + int(where * (len(damaged) - start))] = value
    path = folder / "store.db"
    path.write_bytes(bytes(damaged))
    before = digest(path)
    refused: StoreError | None = None
    noted: list[str] = []
    try:
        noted = read_everything(path, policy)
    except StoreError as error:
        refused = error
    if refused is not None:
        assert str(path) in str(refused)
    for message in noted:  # a load that left damaged rows out named the file and each row
        assert policy == "skip"
        assert message.startswith(f"{path} holds ")
        assert " row " in message or "experiment_" in message
    assert digest(path) == before  # reading never writes, whatever it met
    # A damaged header can say the file is in WAL mode; SQLite then keeps its index of the
    # log beside it, but the log itself stays empty: nothing was written.
    assert {p.name for p in folder.iterdir()} <= {"store.db", "store.db-wal", "store.db-shm"}
    wal = folder / "store.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0


def test_a_record_that_is_not_utf8_is_named_and_left_out_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    run = stored_run(path)
    with sqlite3.connect(path) as connection:
        (oid,) = connection.execute("SELECT id FROM observations WHERE rowid = 3").fetchone()
        corrupt(
            connection,
            "UPDATE observations SET record = CAST(? AS TEXT) WHERE rowid = 3",
            b'{"id": "\xff\xfe broken',
        )
        total = connection.execute("SELECT count(*) FROM observations").fetchone()[0]
    connection.close()
    with SQLiteStore(path) as store, pytest.raises(StoreError) as refused:
        store.load(run)
    assert str(path) in str(refused.value)
    assert "observations row 3: text that is not UTF-8" in str(refused.value)
    with (
        SQLiteStore(path, damaged="skip") as store,
        pytest.warns(DamagedStoreWarning, match="observations row 3: text that is not UTF-8"),
    ):
        loaded = Results.load(store, run)
    assert len(run_of(loaded).observations) == total - 1
    assert oid not in {o.id for o in run_of(loaded).observations}


def test_report_reports_the_rest_of_a_damaged_run_and_names_the_rows(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    stored_run(path)
    with sqlite3.connect(path) as connection:
        corrupt(
            connection,
            "UPDATE observations SET record = CAST(? AS TEXT) WHERE rowid = 5",
            b"\xc3\x28",
        )
    connection.close()
    before = digest(path)
    done = CliRunner().invoke(main, ["report", "--store", str(path)])
    assert done.exit_code == 0, done.output
    assert "Traceback" not in done.output
    assert "observations row 5: text that is not UTF-8" in done.output
    assert digest(path) == before


def test_a_measurement_relabelled_to_another_output_is_found_by_its_id(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    run = stored_run(path)
    with sqlite3.connect(path) as connection:
        rowid, observation = connection.execute(
            "SELECT rowid, observation_id FROM measurements WHERE second_id IS NULL LIMIT 1"
        ).fetchone()
        # Still sound text, so nothing fails to decode: only its id gives it away.
        corrupt(
            connection,
            "UPDATE measurements SET observation_id = ? WHERE rowid = ?",
            "x" + observation[1:],
            rowid,
        )
    connection.close()
    with SQLiteStore(path) as store, pytest.raises(StoreError, match=f"measurements row {rowid}"):
        store.load(run)
    with (
        SQLiteStore(path, damaged="skip") as store,
        pytest.warns(DamagedStoreWarning, match=f"observation {observation} is left out, as it"),
    ):
        results = Results.load(store, run)
    assert observation not in {o.id for o in run_of(results).observations}
    results.scorecard("correct", "answer_change", answered="answered")  # the rest reports


def test_a_damaged_name_in_the_schema_is_a_store_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    stored_run(path)
    data = bytearray(path.read_bytes())
    # A trigger's name that is no longer UTF-8, in a schema entry SQLite can no longer parse:
    # its message quotes the name, which Python cannot decode.
    name = b"experiments_insert_ends_snapshots"
    data[data.index(name) + 3] = 0xFF
    data[data.index(b"CREATE TRIGGER experiments_insert") + len(b"CREATE TRIG")] = ord("X")
    path.write_bytes(bytes(data))
    for read_only in (True, False):
        with pytest.raises(StoreError) as raised:
            SQLiteStore(path, read_only=read_only).experiments()
        assert str(path) in str(raised.value)
    done = CliRunner().invoke(main, ["report", "--store", str(path)])
    assert done.exit_code == 1
    assert f"error: {path} is not a modelscape store" in done.output


def run_within(store: SQLiteStore, seconds: float = 120.0) -> Results:
    """Run the shared experiment on ``store`` in a thread; a run that never ends fails."""
    finished: list[Results] = []
    worker = threading.Thread(
        target=lambda: finished.append(Runner(store=store).run(experiment([planted()]))),
        daemon=True,
    )
    worker.start()
    worker.join(seconds)
    assert finished, "the run did not end: it waited for an observation it cannot read"
    return finished[0]


def test_a_run_asks_a_damaged_observation_again_and_repairs_its_row(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    run = stored_run(path)
    with sqlite3.connect(path) as connection:
        (oid,) = connection.execute("SELECT id FROM observations WHERE rowid = 2").fetchone()
        corrupt(
            connection, "UPDATE observations SET record = CAST(? AS TEXT) WHERE rowid = 2", b"\xff"
        )
        total = connection.execute("SELECT count(*) FROM observations").fetchone()[0]
    connection.close()
    with (
        SQLiteStore(path, damaged="skip") as store,
        pytest.warns(DamagedStoreWarning, match="observations row 2"),
    ):
        results = run_within(store)
    assert len(run_of(results).observations) == total
    assert oid in {o.id for o in run_of(results).observations}
    with SQLiteStore(path) as store:  # repaired: the default, which refuses damage, reads it
        assert len(store.load(run).observations) == total


def test_a_run_repairs_its_experiment_record(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    run = stored_run(path)
    with sqlite3.connect(path) as connection:
        corrupt(connection, "UPDATE experiments SET record = '{\"id\": 1'")
    connection.close()
    with SQLiteStore(path) as store, pytest.raises(StoreError, match="experiments row 1"):
        store.load(run)
    with SQLiteStore(path, damaged="skip") as store:
        results = run_within(store)
    assert run_of(results).experiment.id == run


def test_the_default_refuses_and_a_copy_merged_from_it_is_never_partial(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    stored_run(path)
    with sqlite3.connect(path) as connection:
        corrupt(connection, "UPDATE variants SET record = CAST(? AS TEXT) WHERE rowid = 1", b"\x80")
    connection.close()
    done = CliRunner().invoke(main, ["merge", str(path), "-o", str(tmp_path / "merged.db")])
    assert done.exit_code == 1
    assert "variants row 1: text that is not UTF-8" in done.output
    assert not (tmp_path / "merged.db").exists()  # refused before the output was made


@pytest.mark.parametrize(
    ("change", "named"),
    [
        # a measure's name, still sound text: analyses look values up by name
        (
            "UPDATE measurements SET measure = 'answerd' WHERE rowid = "
            "(SELECT min(rowid) FROM measurements WHERE measure = 'answered')",
            "is of 'answerd', not its measure's",
        ),
        # an output's own id inside its record: its measurements are stored under the true one
        (
            "UPDATE observations SET record = json_set(record, '$.id', 'x' || substr(id, 2)) "
            "WHERE rowid = 2",
            "which no row has",
        ),
    ],
)
def test_valid_text_changed_under_its_record_is_found_too(
    tmp_path: Path, change: str, named: str
) -> None:
    path = tmp_path / "store.db"
    run = stored_run(path)
    with sqlite3.connect(path) as connection:
        corrupt(connection, change)
        total = connection.execute("SELECT count(*) FROM observations").fetchone()[0]
    connection.close()
    with SQLiteStore(path) as store, pytest.raises(StoreError, match=named):
        store.load(run)
    with SQLiteStore(path, damaged="skip") as store, pytest.warns(DamagedStoreWarning, match=named):
        results = Results.load(store, run)
    assert len(run_of(results).observations) == total - 1
    results.scorecard("correct", "answer_change", answered="answered")  # the rest reports


def test_damaged_scenario_settings_are_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    stored_run(path)
    with sqlite3.connect(path) as connection:
        corrupt(
            connection,
            "UPDATE experiments SET record = "
            "json_remove(record, '$.scenario.parameters.answer.name')",
        )
    connection.close()
    done = CliRunner().invoke(main, ["report", "--store", str(path)])
    assert done.exit_code == 1
    assert "error: the scenario settings stored with this run cannot be read" in done.output
