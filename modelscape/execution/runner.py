"""The runner: asks every target every variant, saving each output as it arrives.

Durability: outputs wait in a small write buffer that is flushed to the store every
``FLUSH_INTERVAL`` seconds, whenever it holds ``FLUSH_SIZE`` outputs, and when the run ends or
is interrupted. A crash or Ctrl-C therefore loses at most the calls in flight plus the outputs
of the last fraction of a second; a SIGKILL loses the same, since nothing else is held back.
A rerun reuses every stored ``ok`` observation without calling its target and asks again for
the missing and the failed ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

from modelscape._model import trusted
from modelscape.errors import ExecutionError
from modelscape.execution.calls import Redactor, call_with_retries, redact_output, run_workers
from modelscape.execution.experiment import Experiment, PlannedObservation
from modelscape.execution.measuring import measure_run, point_measures, score_point
from modelscape.execution.target import TargetRequest
from modelscape.results.records import Observation, PointMeasurement
from modelscape.results.results import Results
from modelscape.store.memory import MemoryStore
from modelscape.store.protocol import Store, canonical_order

__all__ = ["FLUSH_INTERVAL", "FLUSH_SIZE", "Progress", "ProgressCallback", "Runner"]

#: Seconds an output may wait in the write buffer before it is stored.
FLUSH_INTERVAL = 0.1
#: Outputs that trigger a write at once, whatever the interval.
FLUSH_SIZE = 512
# Progress reports are throttled: a fast run finishes thousands of calls a second.
_PROGRESS_INTERVAL = 0.1

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a run stands: observations ``done`` this run (``failed`` among them), ``retries``
    made, ``reused`` from the store, of ``total``; ``rate`` is done per second of ``elapsed``."""

    done: int
    failed: int
    retries: int
    total: int
    reused: int
    rate: float
    elapsed: float

    @property
    def remaining(self) -> int:
        """Observations neither reused nor done yet."""
        return self.total - self.reused - self.done


ProgressCallback: TypeAlias = Callable[[Progress], None]


class _Tally:
    """Counts of a run in progress, and the throttled reports made from them."""

    def __init__(self, total: int, reused: int, report: ProgressCallback | None) -> None:
        self.total, self.reused, self.report = total, reused, report
        self.done = self.failed = self.retries = 0
        self.start = time.perf_counter()
        self.last = 0.0

    def snapshot(self) -> Progress:
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        return Progress(
            self.done, self.failed, self.retries, self.total, self.reused, rate, elapsed
        )

    def tick(self, *, force: bool = False) -> None:
        if self.report is None:
            return
        now = time.perf_counter()
        if force or now - self.last >= _PROGRESS_INTERVAL:
            self.last = now
            self.report(self.snapshot())


class _Buffer:
    """Observations (and their point measurements) waiting to be written, flushed by size, by
    a timer and at the end.

    Writes run in a worker thread, so the event loop keeps serving calls while SQLite works
    (a write of a few hundred rows, or a WAL checkpoint, would otherwise stall every call in
    flight). One write runs at a time; the final flush waits for it and writes the rest.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending: list[Observation] = []
        self.points: list[PointMeasurement] = []
        self.writing: asyncio.Future[None] | None = None

    def add(self, observation: Observation, points: list[PointMeasurement]) -> None:
        self.pending.append(observation)
        self.points.extend(points)
        if len(self.pending) >= FLUSH_SIZE:
            self.kick()

    def _take(self) -> tuple[list[Observation], list[PointMeasurement]]:
        batch, points = self.pending, self.points
        self.pending, self.points = [], []
        return batch, points

    def _write(self, batch: list[Observation], points: list[PointMeasurement]) -> None:
        if batch:
            self.store.save_observations(batch)
        if points:
            self.store.save_measurements(points=points)

    def kick(self) -> None:
        """Start a background write of what is pending, unless one is still running."""
        if (self.pending or self.points) and (self.writing is None or self.writing.done()):
            if self.writing is not None:
                self.writing.result()  # a failed write surfaces here, not silently
            self.writing = asyncio.ensure_future(asyncio.to_thread(self._write, *self._take()))

    def flush(self) -> None:
        """Write everything now (the store's lock waits for a background write in progress)."""
        self._write(*self._take())

    async def drain(self) -> None:
        """Wait for the background write, then write the rest."""
        if self.writing is not None:
            await self.writing
        self.flush()

    async def tick(self) -> None:
        while True:
            await asyncio.sleep(FLUSH_INTERVAL)
            self.kick()


class Runner:
    """Runs experiments, saving each output as it arrives and reusing stored ones on reruns.

    Calls run in a fresh random order per repetition (seeded by the experiment), at most
    ``execution.concurrency`` at a time. ``redact`` cleans every piece of text of every output
    before it is stored; ``on_progress`` receives a :class:`Progress` about ten times a second
    and once at the end. Without a store, results live in memory.
    """

    def __init__(
        self,
        *,
        store: Store | None = None,
        on_progress: ProgressCallback | None = None,
        redact: Redactor | None = None,
    ) -> None:
        self.store: Store = store if store is not None else MemoryStore()
        self.on_progress = on_progress
        self.redact = redact
        #: The counts of the last run, once it finished.
        self.last: Progress | None = None

    def run(self, experiment: Experiment) -> Results:
        """Run ``experiment`` and return its results; works inside a running event loop too.

        In a notebook, where a loop is already running, the run gets its own loop in a
        separate thread and this call waits for it.
        """
        return _run_sync(self.arun(experiment))

    async def arun(self, experiment: Experiment) -> Results:
        """Run ``experiment``: ask what the store lacks, store it, measure, and load results."""
        record = experiment.record()
        variants = experiment.variants()
        self.store.save_experiment(record, variants)
        plan = list(experiment.plan())
        stored = self.store.observations(p.id for p in plan)
        reused = {i: o for i, o in stored.items() if o.status == "ok"}
        # Observations first stored by another experiment join this one without a call.
        foreign = [o for o in reused.values() if o.experiment_id != record.id]
        self.store.save_observations(
            o.model_copy(update={"experiment_id": record.id}) for o in foreign
        )
        todo = [p for p in plan if p.id not in reused]
        tally = _Tally(len(plan), len(reused), self.on_progress)
        tally.tick(force=True)
        scored: list[PointMeasurement] = []
        fresh = await self._ask(experiment, record.id, todo, tally, scored)
        self.last = tally.snapshot()
        tally.tick(force=True)
        every = [*reused.values(), *fresh]
        points, differences = await measure_run(
            experiment,
            every,
            {v.id: v for v in variants},
            self.store,
            known=frozenset(p.id for p in scored),
        )
        if reused:
            # Reused outputs have measurements in the store only: read the whole run back.
            return Results.load(self.store, record.id)
        # A fresh run holds every record it stored; reading them back would only cost time.
        return Results(
            record,
            variants,
            canonical_order(record, variants, fresh),
            [*scored, *points],
            differences,
        )

    async def _ask(
        self,
        experiment: Experiment,
        experiment_id: str,
        todo: list[PlannedObservation],
        tally: _Tally,
        scored: list[PointMeasurement],
    ) -> list[Observation]:
        """Ask for every planned observation; ``scored`` collects the point measurements made
        while calls were in flight."""
        targets = experiment.targets
        config = experiment.execution
        rng = random.Random(f"retry:{experiment.seed}")
        buffer = _Buffer(self.store)
        measures = [(m, m.identity.id) for m in point_measures(experiment)]
        target_ids = [t.identity.id for t in targets]
        arrived: list[Observation] = []
        feed = iter(todo)

        def retried() -> None:
            tally.retries += 1

        async def worker() -> None:
            for planned in feed:
                target = targets[planned.target]
                request = trusted(
                    TargetRequest,
                    {"prompt": planned.variant.prompt, "seed": planned.seed, "settings": {}},
                )
                result = await call_with_retries(target, request, config, rng, retried)
                output = result.output
                if self.redact is not None:
                    output = redact_output(output, self.redact)
                observation = trusted(
                    Observation,
                    {
                        "id": planned.id,
                        "experiment_id": experiment_id,
                        "target": target.name,
                        "target_id": target_ids[planned.target],
                        "variant_id": planned.variant.id,
                        "case": planned.variant.case,
                        "coordinate": planned.variant.coordinate,
                        "repetition": planned.repetition,
                        "seed": planned.seed,
                        "status": "ok" if result.ok else "failed",
                        "output": output,
                        "attempts": result.attempts,
                        "started": result.started,
                        "duration": result.duration,
                    },
                )
                points = []
                variant = planned.variant
                if result.ok:
                    # Point measures run while other calls are in flight, where their CPU time
                    # costs no wall time. One that fails is left to measure_run, which reports it.
                    for measure, measure_id in measures:
                        with contextlib.suppress(ExecutionError):
                            point = await score_point(measure, measure_id, observation, variant)
                            points.append(point)
                buffer.add(observation, points)
                scored.extend(points)
                arrived.append(observation)
                tally.done += 1
                tally.failed += not result.ok
                tally.tick()

        ticker = asyncio.create_task(buffer.tick())
        try:
            # A fixed pool of workers rather than a task per call: fewer objects, and measured
            # faster than a semaphore over ten thousand tasks (benchmarks/runner_throughput.py).
            await run_workers(min(config.concurrency, len(todo)), worker)
            ticker.cancel()
            await buffer.drain()
        finally:
            # Runs on success, on a target's crash and on Ctrl-C (cancellation) alike: whatever
            # arrived is stored before the error propagates (the store's lock orders this
            # write after a background one still running).
            ticker.cancel()
            buffer.flush()
        return arrived


def _run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    # A loop is running in this thread (a notebook): run on a fresh loop in another thread.
    outcome: dict[str, Any] = {}

    def main() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as error:  # handed back to the caller's thread as it is
            outcome["error"] = error

    thread = threading.Thread(target=main, name="modelscape-runner")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]
