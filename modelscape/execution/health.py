"""How each target fared in a run: its failures, the first error, and the circuit breaker.

A dead endpoint fails every call the same way. Retrying each of hundreds of calls under the
backoff policy only multiplies the wait (a refused connection once cost 238 s and 1,080
retries for 360 calls), so each target has a :class:`Breaker` that stops asking it. The
breaker must also leave alone a target that is only flaky or loaded: one that fails a share of
its calls (429s, 500s, replies cut short, hangs past the timeout) among successes. A run
against a server failing 30% of calls at random was once stopped after "10 identical
failures in a row: timed out after 2 s", with 19,792 of 20,000 observations not asked. So the
breaker tells failures apart by what they say about the endpoint (:data:`FailureKind`):

- ``"dead"``: the endpoint cannot serve this run (a refused connection, a missing or refused
  key, a ``Retry-After`` beyond the policy's ``max_delay``). ``stop_after`` identical ones in a
  row, with no success between them, stop the target.
- ``"timeout"``: no answer in time. It counts like a dead failure only while the target has not
  answered once in this run (an endpoint that never answers); after a success a timeout is
  load or flakiness, which the provider's limiter answers by sending less.
- ``"busy"``: the server answered, but not with a reply (an HTTP 429 or 5xx, a page that is no
  reply, a body cut short): it breaks a streak of dead failures. Such failures stop a target
  only when ``stop_after`` observations have failed and not one call of the target succeeded
  (a server that answers 500 to everything).
- None: the request's own failure (a refused prompt); the server is alive, the streak ends.

A stopped target is asked nothing more in this run; its remaining observations are stored as
failed with the reason, and the next run asks them again.

:class:`TargetHealth` is what a run reports per target (``Runner.health``): how many
observations failed, the first error, whether the breaker stopped the target, and notes
worth knowing about the run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["Breaker", "FailureKind", "TargetHealth"]

#: What a failed attempt says about its endpoint (see the module's docstring).
FailureKind: TypeAlias = Literal["dead", "timeout", "busy"] | None

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
    """Decides when one target is dead for the rest of a run, and keeps its health counts.

    The call loop reports every failed attempt with :meth:`failure` (and its
    :data:`FailureKind`), every answer with :meth:`success`, and every observation that failed
    for its endpoint's sake with :meth:`gave_up`; calls check :attr:`tripped` before each
    attempt.
    """

    def __init__(self, name: str, limit: int | None) -> None:
        self.name = name
        self.limit = limit
        self.streak = 0
        self.last: str | None = None
        #: The target's answers in this run so far.
        self.answered = 0
        #: Observations failed for the endpoint's sake while nothing was answered.
        self.fruitless = 0
        #: Why the target was stopped, once it was.
        self.tripped: str | None = None
        self.done = 0
        self.failed = 0
        self.unasked = 0
        self.first_error: str | None = None
        self.notes: dict[str, None] = {}
        #: Set when the breaker trips, to wake calls waiting to retry.
        self.stop = asyncio.Event()

    def failure(self, error: str, *, kind: FailureKind, key: str | None = None) -> None:
        """Record a failed attempt. Identical failures are those with the same ``key`` (the
        ``error`` itself unless given: a text that differs call by call, such as the seconds
        of a ``Retry-After`` date, names its cause in ``key``)."""
        if self.first_error is None:
            self.first_error = error
        if kind is None or kind == "busy":
            self._reset()  # the server answered this request
            return
        if kind == "timeout" and self.answered:
            return  # a slow or flaky target that does answer: the limiter's business
        same = key if key is not None else error
        if same == self.last:
            self.streak += 1
        else:
            self.last, self.streak = same, 1
        if self.limit is not None and self.streak >= self.limit:
            self._trip(f"{self.streak} identical failures in a row: {error}")

    def success(self) -> None:
        """Record an answer: the streak starts again, and the target is known to be alive."""
        self.answered += 1
        self._reset()

    def gave_up(self, error: str) -> None:
        """Record an observation that failed for its endpoint's sake (not its request's)."""
        if self.answered:
            return
        self.fruitless += 1
        if self.limit is not None and self.fruitless >= self.limit:
            self._trip(f"{self.fruitless} observations failed and no call succeeded: {error}")

    def _reset(self) -> None:
        self.streak = 0
        self.last = None

    def _trip(self, why: str) -> None:
        if self.tripped is None:
            self.tripped = f"target {self.name!r} stopped after {why}"
            self.stop.set()

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
