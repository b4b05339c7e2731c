"""Several servers of one model: calls spread over them, a failing one drained for a while.

A local model is often served by several replicas (one llama.cpp or vLLM server per GPU or
machine). ``openai-compatible:MODEL@URL1,URL2,...`` names them all. Each call goes to the
replica with the fewest calls in flight (least outstanding requests), the earliest-named among
equals, so a slow replica takes fewer calls without any tuning.

A replica that fails at the connection (refused or reset), answers with a server error, or does
not answer before the call's timeout is **drained**: it gets no call for a while, one second
after its first failure in a row and twice as long after each further one, up to a minute.
Once that time is over it gets one call again, a probe; a success puts it back in full. The
failed call is retried by the runner as any failed call is, on another replica. When every
replica is drained, a call fails at once with a connection error instead of waiting, so the
runner's circuit breaker (``ExecutionConfig.stop_after``) can stop a target whose servers are
all gone rather than retrying them forever.

The replicas serve one model, so they are not part of the target's identity: a run on two
replicas stores what a run on the first alone would, and reuses it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from modelscape.target.protocol import TargetError

__all__ = ["DRAIN_FIRST", "DRAIN_MOST", "Outcome", "Replicas"]

#: Seconds a replica is drained after its first failure in a row; doubled after each further.
DRAIN_FIRST = 1.0
#: The longest a replica is drained at once.
DRAIN_MOST = 60.0


@dataclass
class _Replica:
    url: str
    outstanding: int = 0
    failures: int = 0
    drained_until: float = 0.0
    calls: int = 0


class Replicas:
    """The endpoints of one target and what each is doing; ``clock`` is for tests."""

    def __init__(self, urls: Sequence[str], *, clock: Callable[[], float] = time.monotonic):
        if not urls:
            raise ValueError("a replica set needs at least one URL")
        if len(set(urls)) != len(urls):
            raise ValueError(f"a replica is named twice among {list(urls)}")
        self._replicas = [_Replica(url) for url in urls]
        self._clock = clock

    @property
    def urls(self) -> tuple[str, ...]:
        """The replicas' URLs, in the order they were named."""
        return tuple(r.url for r in self._replicas)

    def calls(self) -> dict[str, int]:
        """How many calls each replica was given so far."""
        return {r.url: r.calls for r in self._replicas}

    def drained(self) -> tuple[str, ...]:
        """The replicas that get no call now."""
        now = self._clock()
        return tuple(r.url for r in self._replicas if r.drained_until > now)

    def _pick(self, where: str) -> _Replica:
        now = self._clock()
        ready = [r for r in self._replicas if r.drained_until <= now]
        if not ready:
            soonest = min(r.drained_until for r in self._replicas) - now
            raise TargetError(
                f"{where}: every replica failed and is drained "
                f"({', '.join(r.url for r in self._replicas)}); the first is tried again in "
                f"{soonest:.1f} s",
                kind="connection",
            )
        return min(ready, key=lambda r: r.outstanding)  # min keeps the earliest among equals

    @contextmanager
    def call(self, where: str) -> Iterator[Outcome]:
        """Choose the replica for one call and count it in flight while the block runs.

        The block says how the call went through the :class:`Outcome` it is given; a call
        cancelled before an answer (its timeout passed) counts as a failure of the replica.
        """
        replica = self._pick(where)
        replica.outstanding += 1
        replica.calls += 1
        outcome = Outcome(replica.url)
        try:
            yield outcome
        except (asyncio.CancelledError, TimeoutError):
            # The runner cancels a call whose timeout passed: the replica did not answer.
            if not outcome.answered:
                outcome.failed = True
            raise
        finally:
            replica.outstanding -= 1
            if outcome.failed:
                replica.failures += 1
                drain = min(DRAIN_FIRST * 2 ** (replica.failures - 1), DRAIN_MOST)
                replica.drained_until = self._clock() + drain
            elif outcome.answered:
                replica.failures = 0
                replica.drained_until = 0.0


class Outcome:
    """How one call to a replica went: ``url`` is where it goes; mark it answered or failed."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.answered = False
        self.failed = False

    def succeed(self) -> None:
        """The replica answered (whatever it said: a 4xx is the request's fault, not its)."""
        self.answered = True

    def fail(self) -> None:
        """The replica could not be reached, or answered with a server error."""
        self.failed = True
