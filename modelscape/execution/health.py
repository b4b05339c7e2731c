"""How each target fared in a run: its failures, the first error, and the circuit breaker.

A dead endpoint fails every call the same way. Retrying each of hundreds of calls under the
backoff policy only multiplies the wait (a refused connection once cost 238 s and 1,080
retries for 360 calls), so each target has a :class:`Breaker`: after ``stop_after`` identical
connection or authentication failures (or timeouts: an endpoint that never answers) in a row,
with no success between them, the target is
asked nothing more in this run. Its remaining observations are stored as failed with the
reason, and the next run asks them again. Any other failure, and any success, breaks the
streak: a server that refuses some prompts but answers others keeps being asked.

:class:`TargetHealth` is what a run reports per target (``Runner.health``): how many
observations failed, the first error, whether the breaker stopped the target, and notes such
as a provider's ``Retry-After`` that was capped.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

__all__ = ["Breaker", "TargetHealth"]

# Distinct notes kept per target; a run that hits the same cap ten thousand times reports it
# once.
_NOTES = 5


@dataclass(frozen=True, slots=True)
class TargetHealth:
    """One target's run: ``done`` observations this run, ``failed`` among them (``unasked`` of
    those were never sent, because the breaker had stopped the target), the
    ``first_error``, ``stopped`` (why the breaker stopped the target, or None) and ``notes``
    (waits that were capped, and similar things worth knowing)."""

    name: str
    done: int
    failed: int
    unasked: int
    first_error: str | None
    stopped: str | None
    notes: tuple[str, ...]


class Breaker:
    """Counts one target's identical endpoint failures in a row and trips at ``limit``.

    The runner calls :meth:`failure` for every failed attempt whose cause is the endpoint
    (a refused connection, a missing or refused key) and :meth:`success` for every answer;
    calls check :attr:`tripped` before each attempt. It also keeps the target's
    :class:`TargetHealth` counts.
    """

    def __init__(self, name: str, limit: int | None) -> None:
        self.name = name
        self.limit = limit
        self.streak = 0
        self.last: str | None = None
        #: Why the target was stopped, once it was.
        self.tripped: str | None = None
        self.done = 0
        self.failed = 0
        self.unasked = 0
        self.first_error: str | None = None
        self.notes: dict[str, None] = {}
        #: Set when the breaker trips, to wake calls waiting to retry.
        self.stop = asyncio.Event()

    def failure(self, error: str, *, endpoint: bool) -> None:
        """Record a failed attempt; ``endpoint`` failures count towards tripping."""
        if self.first_error is None:
            self.first_error = error
        if not endpoint:
            self.success()
            return
        if error == self.last:
            self.streak += 1
        else:
            self.last, self.streak = error, 1
        if self.limit is not None and self.streak >= self.limit and self.tripped is None:
            self.tripped = (
                f"target {self.name!r} stopped after {self.streak} identical failures in a "
                f"row: {error}"
            )
            self.stop.set()

    def success(self) -> None:
        """Record an attempt that was not an endpoint failure: the streak starts again."""
        self.streak = 0
        self.last = None

    def note(self, text: str) -> None:
        """Keep ``text`` for the run's report, once, among the first few."""
        if len(self.notes) < _NOTES:
            self.notes.setdefault(text)

    def finished(self, ok: bool, error: str | None, *, attempts: int) -> None:
        """Count one observation this run (and keep its error if no attempt failed before)."""
        self.done += 1
        if not ok:
            self.failed += 1
            self.unasked += attempts == 0
            if self.first_error is None:
                self.first_error = error

    def health(self) -> TargetHealth:
        """The target's counts so far."""
        return TargetHealth(
            self.name,
            self.done,
            self.failed,
            self.unasked,
            self.first_error,
            self.tripped,
            tuple(self.notes),
        )
