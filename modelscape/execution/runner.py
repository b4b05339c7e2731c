"""The runner: asks every target every variant, saving each output as it arrives.

Durability: outputs wait in a small write buffer (:mod:`~modelscape.execution.buffer`) that is
flushed to the store every fraction of a second, whenever it fills, and when the run ends or is
interrupted. A crash or Ctrl-C therefore loses at most the calls in flight plus the outputs of
the last fraction of a second; a SIGKILL loses the same, since nothing else is held back. A
write that fails is retried and never costs another output. A rerun reuses every stored ``ok``
observation without calling its target and asks again for the missing and the failed ones; two
runs sharing a store split the work through leases (:mod:`~modelscape.execution.feed`).

Every output is cleaned before it is stored or measured (:mod:`~modelscape.targets._cleaning`):
valid Unicode, and the ``redact`` function applied to every piece of its text.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

from modelscape._collector import paced_collector
from modelscape._model import trusted
from modelscape.errors import ExecutionError, StoreError
from modelscape.execution.buffer import FLUSH_INTERVAL, FLUSH_SIZE, WriteBuffer
from modelscape.execution.calls import CallResult, call_with_retries, run_workers
from modelscape.execution.experiment import Experiment, PlannedObservation
from modelscape.execution.feed import Feed
from modelscape.execution.health import Breaker, TargetHealth
from modelscape.execution.measuring import (
    measure_case_pairs,
    measure_points,
    point_measures,
    score_point,
)
from modelscape.execution.plan import BLOCK, Blocks, Ids, Reuse
from modelscape.records.stored import Observation
from modelscape.results.results import Results
from modelscape.store.memory import MemoryStore
from modelscape.store.protocol import Store
from modelscape.targets._cleaning import Redactor, clean_output
from modelscape.targets._lifecycle import opened
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from modelscape.task.space import Variant

__all__ = ["FLUSH_INTERVAL", "FLUSH_SIZE", "Progress", "ProgressCallback", "Runner"]

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

    def __init__(self, total: int, reuse: Reuse, report: ProgressCallback | None) -> None:
        self.total, self.reuse, self.report = total, reuse, report
        self.done = self.failed = self.retries = 0
        self.start = time.perf_counter()
        self.last = 0.0

    def snapshot(self) -> Progress:
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        reused = self.reuse.count
        return Progress(self.done, self.failed, self.retries, self.total, reused, rate, elapsed)

    def tick(self, *, force: bool = False) -> None:
        if self.report is None:
            return
        now = time.perf_counter()
        if force or now - self.last >= _PROGRESS_INTERVAL:
            self.last = now
            self.report(self.snapshot())


class Runner:
    """Runs experiments, saving each output as it arrives and reusing stored ones on reruns.

    Calls run in a fresh random order per repetition (seeded by the experiment), at most
    ``execution.concurrency`` at a time. Every output is made valid Unicode, and ``redact``
    cleans every piece of its text, before it is stored; ``on_progress`` receives a
    :class:`Progress` about ten times a second and once at the end. Without a store, results
    live in memory. After a run, :attr:`last` holds its counts and :attr:`health` how each
    target fared: its failures, its first error, and whether it was stopped early.
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
        #: How each target of the last run fared, by name (filled in as the run goes).
        self.health: dict[str, TargetHealth] = {}

    def run(self, experiment: Experiment) -> Results:
        """Run ``experiment`` and return its results; works inside a running event loop too.

        In a notebook, where a loop is already running, the run gets its own loop in a
        separate thread and this call waits for it.
        """
        return _run_sync(self.arun(experiment))

    async def arun(self, experiment: Experiment) -> Results:
        """Run ``experiment``: ask what the store lacks, store it, measure, and load results."""
        # Collections paced to the run's allocations: with the default thresholds they took a
        # quarter of a fast run's CPU time (see modelscape._collector).
        with paced_collector():
            return await self._run(experiment)

    async def _run(self, experiment: Experiment) -> Results:
        # Before anything is stored: a run too large to be meant leaves no trace.
        await asyncio.to_thread(experiment.check_calls)
        record = experiment.record()
        # The variants stay in the experiment's compact table for the whole run: each is
        # assembled when a call, a save or a measure reads it (see modelscape.task.table).
        variants = experiment.variant_table()
        store = self.store
        # Every store call runs in a thread (the store protocol asks stores to be thread-safe),
        # so a busy store never stalls the loop, where calls of other runs may be in flight.
        # The store takes the variants one at a time and writes them in batches.
        await asyncio.to_thread(store.save_experiment, record, variants)
        measures = point_measures(experiment)
        reuse = Reuse(store, record.id, [m.identity.id for m in measures])
        # The plan is never held: counted here (a shard's part id by id), then made, looked up
        # in the store and asked a block at a time.
        tally = _Tally(await asyncio.to_thread(experiment.planned), reuse, self.on_progress)
        tally.tick(force=True)
        feed = Feed(
            Blocks(experiment.plan(), store, reuse, looked=tally.tick),
            store,
            reuse=reuse,
            budget=experiment.execution.budget(),
            chunk=min(max(experiment.execution.concurrency, 16), 1024),
        )
        # Fresh outputs go to the store as they arrive and are not kept: only the ids of those
        # a point measure could not score live stay, for measuring below (or to report).
        unscored = await self._ask(experiment, record.id, feed, tally)
        self.last = tally.snapshot()
        tally.tick(force=True)
        by_id = variants.by_id()
        # Outputs reused without some point measurement, then fresh ones a measure could not
        # score, read back and measured a block at a time.
        for ids in itertools.chain(reuse.unmeasured.chunks(BLOCK), unscored.chunks(BLOCK)):
            stored = await asyncio.to_thread(store.observations, ids)
            ok = [stored[i] for i in ids if i in stored]
            await measure_points(experiment, ok, by_id, store)
        # A pairwise measure compares outputs of one case: read back a case at a time, so the
        # store is loaded once, below, and the run never holds every output as a record.
        await measure_case_pairs(experiment, variants, store)
        # The results are a load of the store: its columns hold a large run in a fraction of
        # the memory the records would take, and the load is the same for a fresh run, a
        # partly reused one and a later `Results.load`.
        return await asyncio.to_thread(Results.load, store, record.id)

    async def _ask(
        self,
        experiment: Experiment,
        experiment_id: str,
        feed: Feed,
        tally: _Tally,
    ) -> Ids:
        """Ask for every planned observation the feed hands out and store it with the point
        measurements made while calls were in flight; returns the ids of the successful
        outputs that some point measure could not score then."""
        targets = experiment.targets
        config = experiment.execution
        rng = random.Random(f"retry:{experiment.seed}")
        buffer = WriteBuffer(self.store)
        measures = [(m, m.identity.id) for m in point_measures(experiment)]
        target_ids = [t.identity.id for t in targets]
        breakers = [Breaker(t.name, config.stop_after) for t in targets]
        redact = self.redact
        shape = experiment.answer_shape
        unscored = Ids()

        def retried() -> None:
            tally.retries += 1

        async def worker() -> None:
            while (planned := await feed.next()) is not None:
                target = targets[planned.target]
                breaker = breakers[planned.target]
                variant = planned.variant  # assembled: read once per call
                request = trusted(
                    TargetRequest,
                    {
                        "prompt": variant.prompt,
                        "seed": planned.seed,
                        "repetition": planned.repetition,
                        "settings": {},
                        "answer": shape,
                    },
                )
                result = await call_with_retries(target, request, config, rng, retried, breaker)
                ok = result.ok
                try:
                    output = clean_output(result.output, redact)
                except TargetError as error:  # an output that cannot be stored as it is
                    output, ok = clean_output(TargetOutput(error=str(error)), redact), False
                observation = _observation(
                    planned, variant, experiment_id, target.name, target_ids, result, output, ok
                )
                points = []
                if ok:
                    # Point measures run while other calls are in flight, where their CPU time
                    # costs no wall time. One that fails is left to measure_run, which reports it.
                    for measure, measure_id in measures:
                        with contextlib.suppress(ExecutionError):
                            point = await score_point(measure, measure_id, observation, variant)
                            points.append(point)
                buffer.add(observation, points)
                if ok and len(points) < len(measures):
                    unscored.add(observation.id)
                breaker.finished(ok, output.error, attempts=result.attempts)
                tally.done += 1
                tally.failed += not ok
                tally.tick()
                if buffer.broken is not None:
                    feed.stopped = True  # every further answer would be lost too

        ticker = asyncio.create_task(buffer.tick())
        try:
            # Every target is opened for the calls (a pooled session, worker threads, a loaded
            # model) and closed when they end, also when the run fails or is cancelled.
            async with opened(targets):
                # A fixed pool of workers rather than a task per call: fewer objects, and
                # measured faster than a semaphore over ten thousand tasks
                # (benchmarks/runner_throughput.py).
                await run_workers(min(config.concurrency, max(1, tally.total)), worker)
            ticker.cancel()
            await buffer.drain()
        finally:
            # Runs on success, on a target's crash and on Ctrl-C (cancellation) alike: whatever
            # arrived is stored before the error propagates.
            ticker.cancel()
            self.health = {b.name: b.health() for b in breakers}
            await _settle(buffer, feed)
        if buffer.broken is not None:
            raise buffer.failure()
        # Outputs that could not be stored were stored as failed: read back, they are not
        # scored.
        return unscored


async def _settle(buffer: WriteBuffer, feed: Feed) -> None:
    """Store what is still buffered and end this run's leases, in a thread.

    Shielded: a second Ctrl-C while this waits stops the waiting, not the work, which goes on
    in its thread; ``asyncio.run`` waits for that thread before it returns.
    """

    # Both on the loop: the claim's task lives there, and outputs are added there.
    feed.stop_claiming()
    batch, points = buffer.take()

    def settle() -> None:
        try:
            # The store's lock orders this write after a background one still running.
            buffer.write(batch, points)
        finally:
            with contextlib.suppress(StoreError):
                feed.release()

    await asyncio.shield(asyncio.to_thread(settle))


def _observation(
    planned: PlannedObservation,
    variant: Variant,
    experiment_id: str,
    name: str,
    target_ids: list[str],
    result: CallResult,
    output: TargetOutput,
    ok: bool,
) -> Observation:
    """The record of one asked observation, built without validating what the runner made."""
    return trusted(
        Observation,
        {
            "id": planned.id,
            "experiment_id": experiment_id,
            "target": name,
            "target_id": target_ids[planned.target],
            "variant_id": variant.id,
            "case": variant.case,
            "coordinate": variant.coordinate,
            "repetition": planned.repetition,
            "seed": planned.seed,
            "status": "ok" if ok else "failed",
            "output": output,
            "attempts": result.attempts,
            "started": result.started,
            "duration": result.duration,
        },
    )


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
