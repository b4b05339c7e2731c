"""The runner's write buffer: outputs wait here briefly, then go to the store in batches.

Outputs are flushed every ``FLUSH_INTERVAL`` seconds, whenever ``FLUSH_SIZE`` are waiting, and
when the run ends or is interrupted. Writes run in a worker thread, so the event loop keeps
serving calls while SQLite works (a write of a few hundred rows, or a WAL checkpoint, would
otherwise stall every call in flight); one write runs at a time.

A write that fails never takes other outputs with it, and never stops the buffer: the batch is
tried again a few times (a store busy for longer than its own timeout, a full disk that was
cleared), then record by record, and a record that still cannot be written is stored as a
*failed* observation whose error says why, so the next run asks for it again. Only when even
that cannot be written is the store itself broken: :attr:`WriteBuffer.broken` is set, the
runner stops asking (every further answer would be lost too) and raises it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from modelscape._model import trusted
from modelscape.errors import StoreError
from modelscape.records.stored import Observation, PointMeasurement
from modelscape.store.protocol import Store
from modelscape.targets._cleaning import clean_text
from modelscape.targets.protocol import TargetOutput

__all__ = ["FLUSH_INTERVAL", "FLUSH_SIZE", "WRITE_RETRIES", "WriteBuffer"]

#: Seconds an output may wait in the write buffer before it is stored.
FLUSH_INTERVAL = 0.1
#: Outputs that trigger a write at once, whatever the interval.
FLUSH_SIZE = 512
#: Pauses, in seconds, before each repeat of a batch whose write failed.
WRITE_RETRIES = (0.05, 0.25)


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class WriteBuffer:
    """Observations (and their point measurements) waiting to be written.

    ``replaced`` maps the id of every observation that could not be stored to the failed
    record stored in its place; ``broken`` is the store's error once nothing can be written,
    and ``lost`` counts the observations that could not be stored even as failed.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending: list[Observation] = []
        self.points: list[PointMeasurement] = []
        self.writing: asyncio.Future[None] | None = None
        self.replaced: dict[str, Observation] = {}
        self.broken: StoreError | None = None
        self.lost = 0

    def add(self, observation: Observation, points: list[PointMeasurement]) -> None:
        """Queue one output; a full buffer starts a write."""
        self.pending.append(observation)
        self.points.extend(points)
        if len(self.pending) >= FLUSH_SIZE:
            self.kick()

    def take(self) -> tuple[list[Observation], list[PointMeasurement]]:
        """What is waiting, leaving the buffer empty; on the loop, where outputs are added."""
        batch, points = self.pending, self.points
        self.pending, self.points = [], []
        return batch, points

    def _save(self, batch: list[Observation], points: list[PointMeasurement]) -> None:
        if batch:
            self.store.save_observations(batch)
        if points:
            self.store.save_measurements(points=points)

    def write(self, batch: list[Observation], points: list[PointMeasurement]) -> None:
        """Store a batch; never raises (see the module's docstring for what happens instead).
        A blocking call, made from a thread."""
        if not batch and not points:
            return
        for pause in (*WRITE_RETRIES, None):
            try:
                self._save(batch, points)
                return
            except Exception:
                if pause is None:
                    break
                time.sleep(pause)
        for observation in batch:
            try:
                self.store.save_observations([observation])
            except Exception as error:
                self._store_failed(observation, error)
        for point in points:
            if point.observation_id in self.replaced:
                continue
            # A measurement that cannot be stored is computed again by the next run.
            with contextlib.suppress(Exception):
                self.store.save_measurements(points=[point])

    def _store_failed(self, observation: Observation, error: Exception) -> None:
        reason = clean_text(f"the output could not be stored: {_describe(error)}")
        values = dict(observation.__dict__)
        values.update(status="failed", output=TargetOutput(error=reason))
        failed = trusted(Observation, values)
        try:
            self.store.save_observations([failed])
        except Exception as second:
            self.lost += 1
            if self.broken is None:
                self.broken = StoreError(
                    f"outputs cannot be written to {self.store!r}: {_describe(second)}"
                )
            return
        self.replaced[observation.id] = failed

    def failure(self) -> StoreError:
        """The error a run ends with once the store is broken: its cause, and how many answers
        that arrived (and were paid for) could not be stored."""
        return StoreError(
            f"{self.broken}; the run stopped with {self.lost} answers that arrived not stored, "
            "and a rerun asks for them again"
        )

    def kick(self) -> None:
        """Start a background write of what is pending, unless one is still running."""
        if (self.pending or self.points) and (self.writing is None or self.writing.done()):
            self.writing = asyncio.ensure_future(asyncio.to_thread(self.write, *self.take()))

    async def drain(self) -> None:
        """Wait for the background write, then write the rest (in a thread too)."""
        if self.writing is not None:
            await self.writing
        await asyncio.to_thread(self.write, *self.take())

    async def tick(self) -> None:
        """Start a write every ``FLUSH_INTERVAL`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(FLUSH_INTERVAL)
            self.kick()
