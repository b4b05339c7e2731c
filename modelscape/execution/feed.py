"""Handing planned observations to the runner's workers, each claimed before it is asked.

The feed holds only the window of the plan that is about to be asked: it takes the plan a block
at a time from :class:`~modelscape.execution.plan.Blocks` (already without what the store
holds), ahead of the workers, and never the whole run.

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
from collections.abc import Coroutine
from typing import Any

from modelscape.execution.experiment import PlannedObservation
from modelscape.execution.plan import Blocks, Reuse
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
# Set-aside observations that make the feed look at them before claiming more, so that the set
# stays about as large as other runs' claims ahead, however long this run is.
_WAITING_MOST = 4 * _CHUNK_MOST


class Feed:
    """The next observation to ask, for workers that share it; None once all are handed out.

    ``blocks`` gives the plan without what the store held when it was looked up; ``reuse``
    takes what another run stored while this one waited for it.
    """

    def __init__(
        self,
        blocks: Blocks,
        store: Store,
        *,
        reuse: Reuse,
        budget: float,
        chunk: int,
    ) -> None:
        self.blocks = blocks
        self.pending: collections.deque[PlannedObservation] = collections.deque()
        self.exhausted = False  # every block taken from ``blocks``
        self.ready: collections.deque[PlannedObservation] = collections.deque()
        self.waiting: dict[str, PlannedObservation] = {}
        self.reuse = reuse
        self.store = store
        self.leasing = store if isinstance(store, Leasing) else None
        self.holder = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.seconds = (_LEASE_UNBOUNDED if math.isinf(budget) else budget) + _LEASE_MARGIN
        self.chunk = self.smallest = chunk
        self.claimed_at: float | None = None
        self.handed = self.handed_at = 0
        self.lock = asyncio.Lock()
        # The block being taken and the claim being made, each a task shared by whoever waits
        # for it: the plan is one iterator, and one claim at a time keeps the chunks in order.
        self.filling: asyncio.Future[None] | None = None
        self.claiming: asyncio.Future[None] | None = None
        # An error of a task run ahead of the workers, raised to the next worker that asks.
        self.error: Exception | None = None
        #: Set to stop handing out observations (the store cannot be written).
        self.stopped = False

    async def next(self) -> PlannedObservation | None:
        """The next observation this run may ask for, or None when there is none left."""
        queue = self.pending if self.leasing is None else self.ready
        while not queue:
            async with self.lock:
                if queue:
                    break
                if self.error is not None:
                    raise self.error
                if self.stopped:
                    return None
                if self.leasing is None:
                    if self.exhausted:
                        return None
                    await self._ahead("filling")
                elif self.claiming is not None or self.pending or not self.exhausted:
                    # A claim running ahead holds the chunk it took until the store answers.
                    await self._ahead("claiming")
                elif self.waiting:
                    await self._poll(wait=True)
                else:
                    return None
        if self.stopped:
            return None
        planned = queue.popleft()
        self.handed += 1
        if self.leasing is None:
            if not self.exhausted and len(self.pending) * 2 <= self.blocks.size:
                self._ahead("filling")  # the next block, while this one is still being asked
        elif (self.pending or not self.exhausted) and len(self.ready) * 2 <= self.chunk:
            # Claim the next chunk while this one is still being asked, so that workers never
            # wait for a claim (which waits for the store's writes).
            self._ahead("claiming")
        return planned

    def _ahead(self, kind: str) -> asyncio.Future[None]:
        """The task taking the next block (``filling``) or making the next claim
        (``claiming``): the running one, or a new one."""
        running: asyncio.Future[None] | None = getattr(self, kind)
        if running is None:
            work = self._fill() if kind == "filling" else self._claim_next()
            running = asyncio.ensure_future(self._kept(kind, work))
            setattr(self, kind, running)
        return running

    async def _kept(self, kind: str, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work``, keeping its error for the workers: a task run ahead may have nobody
        waiting for it when it fails."""
        try:
            await work
        except Exception as error:
            self.error = self.error or error
        finally:
            setattr(self, kind, None)

    async def _fill(self) -> None:
        block = await self.blocks.next()
        if block is None:
            self.exhausted = True
        else:
            self.pending.extend(block)

    async def _claim_next(self) -> None:
        self._resize()
        while len(self.pending) < self.chunk and not self.exhausted and self.error is None:
            await self._ahead("filling")
        if len(self.waiting) >= _WAITING_MOST:
            await self._poll(wait=False)
        take = min(self.chunk, len(self.pending))
        if take:
            await self._claim([self.pending.popleft() for _ in range(take)])

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

    async def _poll(self, *, wait: bool) -> None:
        """Reuse what other runs stored; claim what they gave up; else (``wait``) wait a
        little."""
        ids = list(self.waiting)

        def look() -> set[str]:
            return self.reuse.take(self.store.observations(ids))

        for oid in await asyncio.to_thread(look):
            del self.waiting[oid]
        if not self.waiting:
            return
        chunk = list(self.waiting.values())
        self.waiting.clear()
        await self._claim(chunk)
        if wait and not self.ready:
            await asyncio.sleep(LEASE_POLL)

    def stop_claiming(self) -> None:
        """Cancel the claim and the block still being made ahead of the workers (on the loop:
        they are tasks)."""
        for kind in ("claiming", "filling"):
            running: asyncio.Future[None] | None = getattr(self, kind)
            setattr(self, kind, None)
            if running is not None and not running.done():
                running.cancel()

    def release(self) -> None:
        """End this run's remaining leases (those of observations it did not store); a
        blocking store call, made from a thread once claiming has stopped."""
        if self.leasing is not None:
            self.leasing.release(self.holder)
