"""Handing planned observations to the runner's workers, each claimed before it is asked.

Two runs of one experiment on one store (two terminals, two CI jobs) would otherwise both pay
for every call. When the store supports leases (:class:`~modelscape.store.protocol.Leasing`,
as both shipped stores do), the feed claims observations a chunk at a time, just ahead of the
workers. An observation leased by another live run is set aside; once everything else is
done, the feed polls the set-aside ones: those the other run stored ``ok`` are reused, those
whose lease ended without an answer (the other run failed or died) are claimed and asked here.
Leases last as long as an observation may take (``ExecutionConfig.budget``) plus a margin, and
a lease of a process that no longer exists is void at once, so a killed run never makes the
next one wait.
"""

from __future__ import annotations

import asyncio
import collections
import math
import os
import time
import uuid
from collections.abc import Sequence

from modelscape.execution.experiment import PlannedObservation
from modelscape.results.records import Observation
from modelscape.store.protocol import Leasing, Store

__all__ = ["LEASE_POLL", "Feed"]

#: Seconds between looks at observations another run is asking for.
LEASE_POLL = 0.5
# Added to an observation's budget for its lease: a worker may wait a little before asking.
_LEASE_MARGIN = 60.0
# Without a timeout an observation has no bound; its lease is renewed by a later claim.
_LEASE_UNBOUNDED = 3600.0
# A chunk of claims covers about this many seconds of asking, within these bounds.
_CHUNK_SECONDS = 2.0
_CHUNK_MOST = 4096


class Feed:
    """The next observation to ask, for workers that share it; None once all are handed out.

    ``reused`` collects the observations another run stored while this one waited for them.
    """

    def __init__(
        self,
        todo: Sequence[PlannedObservation],
        store: Store,
        *,
        budget: float,
        chunk: int,
    ) -> None:
        self.pending = collections.deque(todo)
        self.ready: collections.deque[PlannedObservation] = collections.deque()
        self.waiting: dict[str, PlannedObservation] = {}
        self.reused: dict[str, Observation] = {}
        self.store = store
        self.leasing = store if isinstance(store, Leasing) else None
        self.holder = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.seconds = (_LEASE_UNBOUNDED if math.isinf(budget) else budget) + _LEASE_MARGIN
        self.chunk = self.smallest = chunk
        self.claimed_at: float | None = None
        self.handed = self.handed_at = 0
        self.lock = asyncio.Lock()
        self.claiming: asyncio.Future[None] | None = None
        #: Set to stop handing out observations (the store cannot be written).
        self.stopped = False

    async def next(self) -> PlannedObservation | None:
        """The next observation this run may ask for, or None when there is none left."""
        if self.stopped:
            return None
        if self.leasing is None:
            return self.pending.popleft() if self.pending else None
        while not self.ready:
            async with self.lock:
                if self.ready:
                    break
                if self.stopped:
                    return None
                if self.claiming is not None:
                    await self.claiming
                elif self.pending:
                    await self._claim_next()
                elif self.waiting:
                    await self._poll()
                else:
                    return None
        planned = self.ready.popleft()
        self.handed += 1
        if self.pending and self.claiming is None and len(self.ready) * 2 <= self.chunk:
            # Claim the next chunk while this one is still being asked, so that workers never
            # wait for a claim (which waits for the store's writes).
            self.claiming = asyncio.ensure_future(self._claim_next())
        return planned

    async def _claim_next(self) -> None:
        try:
            self._resize()
            take = min(self.chunk, len(self.pending))
            await self._claim([self.pending.popleft() for _ in range(take)])
        finally:
            self.claiming = None

    def _resize(self) -> None:
        """Claim about ``_CHUNK_SECONDS`` of work at a time, at the rate the last chunk went.

        A fast run then makes few claims (each is a write transaction), and a slow one never
        holds leases on more than it will soon ask for.
        """
        now = time.monotonic()
        if self.claimed_at is not None and now > self.claimed_at:
            # Hand-outs since the last claim, over its time; the first workers take theirs in
            # one burst, so a chunk at most doubles, as the rate is still being learned.
            rate = (self.handed - self.handed_at) / (now - self.claimed_at)
            wanted = max(self.smallest, int(rate * _CHUNK_SECONDS))
            self.chunk = min(_CHUNK_MOST, 2 * self.chunk, wanted)
        self.claimed_at, self.handed_at = now, self.handed

    async def _claim(self, chunk: list[PlannedObservation]) -> None:
        assert self.leasing is not None
        ids = [p.id for p in chunk]
        claimed = await asyncio.to_thread(self.leasing.claim, ids, self.holder, self.seconds)
        self.ready.extend(p for p in chunk if p.id in claimed)
        self.waiting.update((p.id, p) for p in chunk if p.id not in claimed)

    async def _poll(self) -> None:
        """Reuse what other runs stored; claim what they gave up; else wait a little."""
        stored = await asyncio.to_thread(self.store.observations, list(self.waiting))
        for oid, observation in stored.items():
            if observation.status == "ok":
                self.reused[oid] = observation
                del self.waiting[oid]
        if not self.waiting:
            return
        chunk = list(self.waiting.values())
        self.waiting.clear()
        await self._claim(chunk)
        if not self.ready:
            await asyncio.sleep(LEASE_POLL)

    def stop_claiming(self) -> None:
        """Cancel a claim still running ahead of the workers (on the loop: it is a task)."""
        claiming, self.claiming = self.claiming, None
        if claiming is not None:
            if claiming.done():
                claiming.exception()  # retrieved: its error, if any, was the run's own
            else:
                claiming.cancel()

    def release(self) -> None:
        """End this run's remaining leases (those of observations it did not store); a
        blocking store call, made from a thread once claiming has stopped."""
        if self.leasing is not None:
            self.leasing.release(self.holder)
