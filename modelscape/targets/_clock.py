"""The clock of one call: what a call's timeout measures when a target queues its requests.

The runner gives every attempt ``ExecutionConfig.timeout`` seconds. A provider target that
bounds its own calls in flight
(:class:`~modelscape.targets.providers._limiter.AdaptiveLimiter`), or a local model that
generates one call at a time (:class:`~modelscape.targets.providers.llama.LlamaCppTarget`),
may hold a request back before sending it, and that wait says nothing about the server: a server
answering in 1.5 s behind a limit cut to a few calls could see requests "time out after 2 s"
that it answered in time, the wait for a place eating the timeout. So the timeout measures the
call, not the queue: a target wraps the wait in :func:`waiting`, during which only the
observation's whole budget runs, and the timeout starts again when the block ends, as the
request is sent.

The runner sets the clock for each attempt with :func:`clocked`; a target called outside a run
(no clock set) finds :func:`waiting` does nothing. Targets that never queue need none of this:
their timeout runs from the start of the call, as it always did.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["CallClock", "clocked", "waiting"]


class CallClock:
    """One attempt's time limits: ``timeout`` seconds from the send, and an absolute ``end``
    (loop time; the observation's budget) that no attempt passes, queued or not."""

    __slots__ = ("end", "queued", "timeout", "timer")

    def __init__(self, timer: asyncio.Timeout, timeout: float, end: float) -> None:
        self.timer = timer
        self.timeout = timeout
        self.end = end
        #: Whether the request is waiting to be sent now (the time limit then is the budget).
        self.queued = False

    def pause(self) -> None:
        """While a request waits to be sent, only the budget runs."""
        self.queued = True
        self.timer.reschedule(None if math.isinf(self.end) else self.end)

    def start(self) -> None:
        """The request is sent now: it has ``timeout`` seconds from here (within the budget)."""
        self.queued = False
        when = min(asyncio.get_running_loop().time() + self.timeout, self.end)
        self.timer.reschedule(None if math.isinf(when) else when)


_clock: ContextVar[CallClock | None] = ContextVar("modelscape_call_clock", default=None)


@contextmanager
def clocked(clock: CallClock) -> Iterator[None]:
    """Make ``clock`` the clock of the calls made in this block (the runner's attempt)."""
    token = _clock.set(clock)
    try:
        yield
    finally:
        _clock.reset(token)


@contextmanager
def waiting() -> Iterator[None]:
    """Leave the time spent in this block out of the call's timeout: wrap a target's wait for a
    place to send its request. The timeout starts when the block ends normally."""
    clock = _clock.get()
    if clock is None:
        yield
        return
    clock.pause()
    yield
    clock.start()
