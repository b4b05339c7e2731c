"""The store contract's thread safety: writers, readers and lease claims from several threads
at once, on every shipped store, as the runner's worker threads use one."""

from __future__ import annotations

import threading
from collections.abc import Callable

from modelscape.records.stored import PointMeasurement
from modelscape.store import Leasing, Store
from tests.store.store_records import observation
from tests.support.mapping_space import experiment, planted

WRITERS = 4
BATCHES = 6
BATCH = 10


def _together(work: list[Callable[[], None]]) -> list[BaseException]:
    """Run every function in a thread of its own, all released at once; their errors."""
    barrier = threading.Barrier(len(work))
    errors: list[BaseException] = []

    def run(function: Callable[[], None]) -> None:
        try:
            barrier.wait()
            function()
        except BaseException as error:  # reported by the test, from the main thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(function,)) for function in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_writers_and_readers_in_threads_share_one_store(any_store: Store) -> None:
    run = experiment([planted()])
    record = run.record()
    any_store.save_experiment(record, run.variants())
    metric = record.point_metrics[0]
    writing = threading.Event()
    writing.set()
    seen: dict[str, list[tuple[int, int]]] = {"first": [], "second": []}

    def writer(number: int) -> Callable[[], None]:
        def write() -> None:
            for batch in range(BATCHES):
                ids = [f"w{number}-{batch}-{i}" for i in range(BATCH)]
                any_store.save_observations(observation(i, run=record.id) for i in ids)
                # Every writer also stores one observation the others store: idempotent.
                any_store.save_observations([observation("shared", run=record.id)])
                any_store.save_measurements(
                    points=[
                        PointMeasurement(
                            id=f"p-{i}",
                            observation_id=i,
                            measure=metric.name,
                            measure_id=metric.id,
                            value=1.0,
                        )
                        for i in ids
                    ]
                )
                any_store.experiments()

        return write

    def reader(name: str) -> Callable[[], None]:
        def read() -> None:
            while writing.is_set() or not seen[name]:
                loaded = any_store.load(record.id)
                counts = any_store.status_counts(record.id)
                seen[name].append((len(loaded.observations), counts["ok"]))

        return read

    def writers() -> None:
        try:
            assert not _together([writer(n) for n in range(WRITERS)])
        finally:
            writing.clear()

    errors = _together([writers, reader("first"), reader("second")])
    assert errors == []
    written = WRITERS * BATCHES * BATCH
    loaded = any_store.load(record.id)
    assert len(loaded.observations) == written + 1
    assert len({o.id for o in loaded.observations}) == written + 1
    assert len(loaded.points) == written
    assert any_store.status_counts(record.id) == {"ok": written + 1, "failed": 0}
    for views in seen.values():
        # Stores only grow: no reader ever saw fewer records than it had seen before.
        assert views == sorted(views)
        assert all(0 <= count <= written + 1 for pair in views for count in pair)


def test_claims_from_threads_lease_each_observation_once(any_store: Store) -> None:
    assert isinstance(any_store, Leasing)
    ids = [f"o{i}" for i in range(200)]
    granted: dict[str, set[str]] = {}

    def claimer(holder: str) -> Callable[[], None]:
        def claim() -> None:
            mine: set[str] = set()
            for start in range(0, len(ids), 20):  # overlapping chunks, as a feed claims
                mine |= any_store.claim(ids[start : start + 40], holder, 60.0)
            granted[holder] = mine

        return claim

    assert _together([claimer(f"holder-{n}") for n in range(6)]) == []
    leases = list(granted.values())
    assert set().union(*leases) == set(ids)
    assert sum(len(lease) for lease in leases) == len(ids)  # no id went to two holders
    for holder in granted:
        any_store.release(holder)
    assert any_store.claim(ids, "after", 60.0) == set(ids)
