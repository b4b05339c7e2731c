"""An adaptive limit on one target's calls in flight: additive increase, multiplicative decrease.

A provider that answers 429 is saying that this client sends more than it will take now. The
runner already retries the call after the provider's ``Retry-After``; the limiter adds the other
half of good behaviour, sending less for a while, the way TCP congestion control does
(Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988; Chiu and Jain 1989 for why
additive increase with multiplicative decrease converges to a fair share):

- the limit starts at ``maximum`` (the runner's concurrency already bounds a run; a target
  that never sees a 429 should never be slowed down);
- every call that the provider did not throttle raises the limit by ``1 / limit``, so a full
  window of successes raises it by about one call;
- a 429 halves it (never below ``minimum``), and so does a call cut off by its timeout: a
  server that does not answer in time is overloaded too. Calls that were already in flight
  when the limit was cut carry the old window's epoch; their 429s are the same congestion
  signal, so only the first 429 of a window cuts the limit, not each of the hundred that were
  sent together.

Callers wait in first-come order when the limit is reached. The limiter is used by one event
loop at a time (every target call runs on the runner's loop).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from modelscape.targets._clock import waiting

__all__ = ["AdaptiveLimiter", "Slot"]


class Slot:
    """One call's place under the limit; tell it when the provider throttled the call."""

    __slots__ = ("epoch", "throttled_at")

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch
        self.throttled_at: int | None = None

    def throttled(self) -> None:
        """Mark the call as refused for rate (an HTTP 429)."""
        self.throttled_at = self.epoch


class AdaptiveLimiter:
    """Bounds one target's calls in flight, halving the bound on each window's first 429 and
    growing it back by about one call per window of unthrottled calls."""

    def __init__(self, maximum: int, *, minimum: int = 1) -> None:
        if minimum < 1 or maximum < minimum:
            raise ValueError(f"need 1 <= minimum <= maximum, not {minimum} and {maximum}")
        self.maximum = maximum
        self.minimum = minimum
        self.limit = float(maximum)
        self.in_flight = 0
        #: How often the limit was cut; a slot remembers the epoch it started in.
        self.epoch = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    @property
    def allowed(self) -> int:
        """The calls allowed in flight now (the limit, rounded down)."""
        return max(self.minimum, math.floor(self.limit))

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        """Wait for a place under the limit, hold it for the call, and learn from the call.

        The wait is left out of the call's timeout (:func:`~modelscape.targets._clock.waiting`),
        which starts when the place is taken. A call cancelled while it holds its place (its
        timeout ran out) counts as throttled: a server that does not answer in time is told,
        like one that answers 429, that it is sent too much.
        """
        with waiting():
            await self._acquire()
        slot = Slot(self.epoch)
        try:
            yield slot
        except asyncio.CancelledError:
            slot.throttled()
            raise
        finally:
            self._release(slot)

    async def _acquire(self) -> None:
        if self.in_flight < self.allowed and not self._waiters:
            self.in_flight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            # A waiter cancelled after it was handed a place gives the place on.
            if waiter.done() and not waiter.cancelled():
                self.in_flight -= 1
                self._wake()
            else:
                with contextlib.suppress(ValueError):  # already popped by a wake
                    self._waiters.remove(waiter)
            raise

    def _release(self, slot: Slot) -> None:
        self.in_flight -= 1
        if slot.throttled_at is None:
            self.limit = min(float(self.maximum), self.limit + 1.0 / self.limit)
        elif slot.throttled_at == self.epoch:
            self.limit = max(float(self.minimum), self.limit / 2.0)
            self.epoch += 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.allowed:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(None)

    def __repr__(self) -> str:
        return (
            f"AdaptiveLimiter(limit={self.limit:.2f}, maximum={self.maximum}, "
            f"in_flight={self.in_flight}, waiting={len(self._waiters)})"
        )
