"""SQLiteStore and MemoryStore: the store protocol, migrations, two experiments sharing
observations, and concurrent writers."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from modelscape.errors import StoreError
from modelscape.execution.runner import Runner
from modelscape.records.stored import PointMeasurement
from modelscape.results.results import Results, run_of
from modelscape.store import MemoryStore, SQLiteStore, Store, StoredRun, open_store
from modelscape.store.migrations import MIGRATIONS, SCHEMA_VERSION
from modelscape.task.space import Variant
from tests.store.store_records import observation
from tests.support.mapping_space import experiment, planted


def test_both_stores_implement_the_protocol(any_store: Store) -> None:
    assert isinstance(any_store, Store)


def test_round_trip_of_a_run(any_store: Store) -> None:
    run = experiment([planted("a"), planted("b")], repetitions=2)
    results = Runner(store=any_store).run(run)
    indexed = run_of(results)
    loaded = Results.load(any_store, run.id)
    assert run_of(loaded).experiment.model_dump(exclude={"created"}) == run.record().model_dump(
        exclude={"created"}
    )
    assert [v.id for v in run_of(loaded).variants] == [v.id for v in run.variants()]
    assert [o.model_dump() for o in run_of(loaded).observations] == [
        o.model_dump() for o in indexed.observations
    ]
    assert sorted(p.id for p in run_of(loaded).point_measurements) == sorted(
        p.id for p in indexed.point_measurements
    )
    assert [e.id for e in any_store.experiments()] == [run.id]
    for point in run_of(loaded).point_measurements:  # built from columns: equal to a validated copy
        assert point == PointMeasurement.model_validate(point.model_dump())
        assert point.model_dump_json() == PointMeasurement(**point.model_dump()).model_dump_json()


def test_ok_replaces_failed_but_never_the_reverse(any_store: Store) -> None:
    any_store.save_observations([observation("o1", "failed")])
    assert any_store.observations(["o1"])["o1"].status == "failed"
    any_store.save_observations([observation("o1", "ok", "first")])
    any_store.save_observations([observation("o1", "ok", "second")])
    any_store.save_observations([observation("o1", "failed")])
    kept = any_store.observations(["o1", "missing"])
    assert list(kept) == ["o1"]
    assert kept["o1"].status == "ok"
    assert kept["o1"].output.text == "first"
    assert any_store.status_counts("e1") == {"ok": 1, "failed": 0}


def test_measurements_are_idempotent(any_store: Store) -> None:
    point = PointMeasurement(
        id="m1", observation_id="o1", measure="x", measure_id="mx", value=1.0, details={"a": 1}
    )
    any_store.save_measurements(points=[point])
    any_store.save_measurements(points=[point.model_copy(update={"value": 0.0})])
    assert any_store.measured("mx", ["o1", "o2"]) == {"o1"}
    assert any_store.measured("other", ["o1"]) == set()
    assert any_store.measurement_ids(["m1", "m2"]) == {"m1"}


def test_loading_an_unknown_experiment_names_what_is_there(any_store: Store) -> None:
    with pytest.raises(StoreError, match="no experiment 'nope'"):
        any_store.load("nope")


def test_a_new_file_is_migrated_to_the_current_schema(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "new.db")
    assert store.schema_version == SCHEMA_VERSION == len(MIGRATIONS)
    mode = store._connection.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    store.close()
    SQLiteStore(tmp_path / "new.db").close()  # opening again migrates nothing


def test_a_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer modelscape"):
        SQLiteStore(path)


def test_a_foreign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    connection.close()
    with pytest.raises(StoreError, match="not a modelscape store"):
        SQLiteStore(path)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\x00\x01 this is not sqlite " * 100)
    with pytest.raises(StoreError, match="not a modelscape store"):
        SQLiteStore(garbage)


def test_threads_sharing_one_store(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "threads.db")

    def write(prefix: str) -> None:
        for i in range(50):
            store.save_observations([observation(f"{prefix}{i}")])

    threads = [threading.Thread(target=write, args=(p,)) for p in "abcd"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.status_counts("e1") == {"ok": 200, "failed": 0}


def test_two_connections_interleave_writes(tmp_path: Path) -> None:
    first, second = SQLiteStore(tmp_path / "two.db"), SQLiteStore(tmp_path / "two.db")
    for i in range(20):
        first.save_observations([observation(f"a{i}")])
        second.save_observations([observation(f"b{i}"), observation(f"a{i}", text="late")])
    assert first.status_counts("e1") == {"ok": 40, "failed": 0}
    assert second.observations(["a3"])["a3"].output.text == "yes"


def test_open_store(tmp_path: Path) -> None:
    memory = MemoryStore()
    assert open_store(memory) is memory
    assert isinstance(open_store(":memory:"), MemoryStore)
    opened = open_store(tmp_path / "x.db")
    assert isinstance(opened, SQLiteStore)
    assert isinstance(open_store(str(tmp_path / "y.db")), SQLiteStore)
    with pytest.raises(StoreError):
        open_store(42)  # type: ignore[arg-type]


# -- two experiments in one store --------------------------------------------------------------
def differing(first: object, second: object) -> float:
    return float(first.output.text != second.output.text)  # type: ignore[attr-defined]


def test_a_second_experiment_reuses_outputs_under_its_own_id(any_store: Store) -> None:
    import dataclasses

    from modelscape.measures import CallableDifference
    from tests.support.mapping_space import Counting

    measure = CallableDifference(differing, name="differs")
    counting = Counting("shared")
    base = experiment([counting.target])
    first = dataclasses.replace(base, difference_measures=(*base.difference_measures, measure))
    Runner(store=any_store).run(first)
    calls = counting.total
    other = Counting("other")
    second = dataclasses.replace(
        experiment([counting.target, other.target]),
        difference_measures=(*base.difference_measures, measure),
    )
    results = Runner(store=any_store).run(second)
    indexed = run_of(results)
    assert counting.total == calls  # the shared target was not asked again
    assert second.id != first.id
    loaded = Results.load(any_store, second.id)
    assert {o.experiment_id for o in run_of(loaded).observations} == {second.id}
    assert len(run_of(loaded).observations) == second.calls()
    members = {o.id for o in run_of(loaded).observations}
    assert run_of(loaded).difference_measurements
    for pair in run_of(loaded).difference_measurements:
        assert pair.first in members
        assert pair.second in members
    assert [o.id for o in run_of(loaded).observations] == [o.id for o in indexed.observations]
    earlier = Results.load(any_store, first.id)  # the first run is as it was
    assert {o.experiment_id for o in run_of(earlier).observations} == {first.id}
    assert len(run_of(earlier).observations) == first.calls()
    # The second run's pairs across its two targets hold one output of the first run: they
    # are not the first run's, which keeps only pairs of its own outputs.
    own = {o.id for o in run_of(earlier).observations}
    assert run_of(earlier).difference_measurements
    for pair in run_of(earlier).difference_measurements:
        assert pair.first in own
        assert pair.second in own
    assert any(
        (pair.first in own) != (pair.second in own) for pair in indexed.difference_measurements
    )
    assert [e.id for e in any_store.experiments()] == [first.id, second.id]  # oldest first


def test_experiments_come_back_oldest_first_whatever_their_ids(any_store: Store) -> None:
    runs = [experiment([planted(f"t{i}")]) for i in range(4)]
    for run in reversed(runs):  # stored newest first...
        any_store.save_experiment(
            run.record().model_copy(update={"created": 1000.0 + runs.index(run)}), []
        )
    assert [e.id for e in any_store.experiments()] == [r.id for r in runs]  # ...read oldest first


def test_an_unknown_experiment_in_a_store_with_runs_is_a_store_error(any_store: Store) -> None:
    run = experiment([planted()])
    Runner(store=any_store).run(run)
    with pytest.raises(StoreError, match="no experiment 'nope'") as raised:
        Results.load(any_store, "nope")
    assert run.id in str(raised.value)


def test_the_sqlite_store_is_a_context_manager(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "ctx.db") as store:
        Runner(store=store).run(experiment([planted()]))
    with pytest.raises(sqlite3.ProgrammingError):
        store._connection.execute("SELECT 1")  # closed on leaving the block
    with SQLiteStore(tmp_path / "ctx.db") as again:
        assert len(again.experiments()) == 1


def test_counts_start_from_zero_for_either_status(any_store: Store) -> None:
    assert any_store.status_counts("e1") == {"ok": 0, "failed": 0}
    any_store.save_observations([observation("o1", "failed"), observation("o2", "failed")])
    assert any_store.status_counts("e1") == {"ok": 0, "failed": 2}
    assert any_store.status_counts("other") == {"ok": 0, "failed": 0}


def test_a_run_of_one_observation_loads(any_store: Store) -> None:
    run = experiment([planted()], repetitions=1)
    (asked, *_) = run_of(Runner().run(run)).observations
    any_store.save_experiment(run.record(), run.variants())
    any_store.save_observations([asked])
    _, variants, observations, points, differences = any_store.load(run.id)
    assert [o.model_dump() for o in observations] == [asked.model_dump()]
    assert len(variants) == len(run.variants())
    assert (points, differences) == ([], [])


def test_ids_are_read_in_chunks_of_bounded_size(any_store: Store) -> None:
    from modelscape.store.rows import _CHUNK, chunks

    ids = [f"o{i}" for i in range(2 * _CHUNK + 1)]
    assert [len(batch) for batch in chunks(iter(ids))] == [_CHUNK, _CHUNK, 1]
    assert [i for batch in chunks(ids) for i in batch] == ids
    assert list(chunks([])) == []
    # Every read answers for all the ids, across chunks.
    any_store.save_observations([observation(i) for i in ids[::3]])
    assert set(any_store.observations(ids)) == set(ids[::3])
    assert any_store.claim(ids, "me", 60) == set(ids) - set(ids[::3])  # type: ignore[attr-defined]


def test_text_is_stored_as_readable_utf8_json(tmp_path: Path) -> None:
    """Other tools read the file too (``sqlite3``, ``json_extract``, a LIKE search): text is
    kept as UTF-8, in details as in records, never as ``\\u`` escapes."""
    path = tmp_path / "runs.db"
    store = SQLiteStore(path)
    store.save_observations([observation("o1", text="café 中")])
    point = PointMeasurement(
        id="m1", observation_id="o1", measure="x", measure_id="mx", value=None,
        details={"word": "café 中"},
    )  # fmt: skip
    store.save_measurements(points=[point])
    store.close()
    with sqlite3.connect(path) as raw:
        (details,) = raw.execute("SELECT details FROM measurements").fetchone()
        (record,) = raw.execute("SELECT record FROM observations").fetchone()
        found = raw.execute("SELECT count(*) FROM measurements WHERE details LIKE '%café 中%'")
        assert found.fetchone() == (1,)
    raw.close()
    assert details == '{"word": "café 中"}'
    assert '"text":"café 中"' in record


def _without_defaults(data: dict[str, Any], model: type[BaseModel]) -> int:
    """Drop the optional fields of ``data`` that hold their default; how many were dropped."""
    dropped = 0
    for name, field in model.model_fields.items():
        if field.is_required() or name not in data:
            continue
        if data[name] == field.get_default(call_default_factory=True):
            del data[name]
            dropped += 1
    return dropped


def test_records_without_later_fields_load_with_their_defaults(tmp_path: Path) -> None:
    """A record an earlier release wrote lacks the optional fields added since; reading it
    fills them with their defaults, as validation would."""
    from modelscape.records.stored import Observation
    from modelscape.targets._callable import CallableTarget
    from modelscape.targets.protocol import TargetOutput, TargetRequest, Usage

    def counted(request: TargetRequest) -> TargetOutput:
        usage = Usage(input_tokens=0, output_tokens=3)
        return TargetOutput(text='{"answer": "yes"}', usage=usage)

    store = SQLiteStore(tmp_path / "runs.db")
    run = experiment([CallableTarget(counted, name="counted")])
    results = Runner(store=store).run(run)
    connection = store._connection
    rows = connection.execute("SELECT id, record FROM observations").fetchall()
    dropped = {Observation: 0, TargetOutput: 0, Usage: 0}
    for oid, record in rows:
        data = json.loads(record)
        dropped[Observation] += _without_defaults(data, Observation)
        dropped[TargetOutput] += _without_defaults(data["output"], TargetOutput)
        dropped[Usage] += _without_defaults(data["output"]["usage"], Usage)
        connection.execute(
            "UPDATE observations SET record = ? WHERE id = ?", (json.dumps(data), oid)
        )
    assert all(dropped.values())  # every kind of record lost some fields
    loaded = Results.load(store, run.id)
    assert [o.model_dump() for o in run_of(loaded).observations] == [
        o.model_dump() for o in run_of(results).observations
    ]
    store.close()


def test_load_returns_a_stored_run_by_name(any_store: Store) -> None:
    run = experiment([planted()])
    Runner(store=any_store).run(run)
    loaded = any_store.load(run.id)
    assert isinstance(loaded, StoredRun)
    assert loaded.experiment.id == run.id
    assert [v.id for v in loaded.variants] == [v.id for v in run.variants()]
    assert len(loaded.observations) == run.calls()
    assert {p.observation_id for p in loaded.points} == {o.id for o in loaded.observations}
    assert loaded.differences == []  # this run's difference measure is keyed: stored as points
    assert tuple(loaded) == (
        loaded.experiment,
        loaded.variants,
        loaded.observations,
        loaded.points,
        loaded.differences,
    )


def test_variants_are_written_a_batch_at_a_time_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from modelscape.store import writing

    monkeypatch.setattr(writing, "VARIANT_BATCH", 3)
    run = experiment([planted()], cases=3)  # 15 variants: five batches
    store = SQLiteStore(tmp_path / "batches.db")
    written: list[int] = []

    def handed() -> Iterator[Variant]:
        for variant in run.variants():
            # The connection sees its own transaction: what was written before this variant
            # was taken (the store's lock is held, so its methods cannot be called here).
            count = store._connection.execute("SELECT count(*) FROM variants").fetchone()[0]
            written.append(count)
            yield variant

    store.save_experiment(run.record(), handed())
    assert written == [0, 0, 0, 3, 3, 3, 6, 6, 6, 9, 9, 9, 12, 12, 12]
    rows = store._connection.execute(
        "SELECT variant_id, position FROM experiment_variants WHERE experiment_id = ? "
        "ORDER BY position",
        (run.id,),
    ).fetchall()
    assert rows == [(v.id, i) for i, v in enumerate(run.variants())]
    again = experiment([planted()], cases=4)  # the same variants and five more, kept once
    store.save_experiment(again.record(), again.variants())
    assert store._connection.execute("SELECT count(*) FROM variants").fetchone()[0] == 20
    assert [v.id for v in store.load(again.id).variants] == [v.id for v in again.variants()]
    store.close()
