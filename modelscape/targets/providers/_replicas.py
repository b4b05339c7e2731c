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
replicas stores what a run on the first alone would, and reuses it. That holds only while
they do serve one model, so the model each replica's replies name is recorded
(:meth:`Replicas.models`) and compared. The first-named replica is the target (its URL is
the identity's), so the model its first reply names is the target's: until that reply
arrives every call goes to it, and from then on a reply of any replica naming another model
is not used. Its call fails and is retried on a replica that agrees, and its replica is
**stopped** for the rest of the run with a :class:`ReplicaWarning`. When the first replica
cannot be reached, the first model another replica names takes its place. A reply naming no
model is taken as it is: there is nothing to compare.
"""

from __future__ import annotations

import asyncio
import math
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

from modelscape.errors import ExecutionError
from modelscape.targets.protocol import TargetError

__all__ = ["DRAIN_FIRST", "DRAIN_MOST", "Outcome", "ReplicaWarning", "Replicas"]

#: Seconds a replica is drained after its first failure in a row; doubled after each further.
DRAIN_FIRST = 1.0
#: The longest a replica is drained at once.
DRAIN_MOST = 60.0


class ReplicaWarning(UserWarning):
    """A replica of a target named another model than the others, and was stopped."""


@dataclass
class _Replica:
    url: str
    outstanding: int = 0
    failures: int = 0
    drained_until: float = 0.0
    calls: int = 0
    #: The model its first reply that named one named.
    model: str | None = None
    #: Why it gets no more calls in this run, once it was stopped.
    stopped: str | None = None


def _server(url: str) -> tuple[str, str, int | None, str]:
    """What makes two URLs one server: case-blind scheme and host, the port, the path."""
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:  # a port that is not a number: compared as written
        port = None
    return parts.scheme.lower(), (parts.hostname or "").lower(), port, parts.path.rstrip("/")


class Replicas:
    """The endpoints of one target and what each is doing; ``clock`` is for tests, and
    ``where`` names the target in messages."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        clock: Callable[[], float] = time.monotonic,
        where: str = "a target",
    ):
        if not urls:
            raise ExecutionError(f"{where}: a replica set needs at least one URL")
        seen: dict[tuple[str, str, int | None, str], str] = {}
        for url in urls:
            other = seen.get(_server(url))
            seen.setdefault(_server(url), url)
            if other is not None:
                same = f"{url!r}" if other == url else f"{url!r} and {other!r}"
                raise ExecutionError(
                    f"{where}: the replica {same} is named twice among {list(urls)}; name each "
                    "server once (a second name for one server would only double its share)"
                )
        self._replicas = [_Replica(url) for url in urls]
        self._clock = clock
        self.where = where
        #: The model the replicas serve, once a reply named one.
        self.model: str | None = None
        # Whether the first replica answered (or failed): until then, every call goes to it.
        self._settled = False

    def models(self) -> dict[str, str | None]:
        """The model each replica's replies named (None before one did)."""
        return {r.url: r.model for r in self._replicas}

    def stopped(self) -> dict[str, str]:
        """The replicas stopped for this run, and why."""
        return {r.url: r.stopped for r in self._replicas if r.stopped is not None}

    def answered(self, url: str, model: str | None) -> str | None:
        """Note the model a reply of replica ``url`` named; why that reply must not be used
        (its replica serves another model, and is now stopped), or None when it may."""
        replica = next(r for r in self._replicas if r.url == url)
        if replica.model is None:
            replica.model = model
        if model is None:
            return replica.stopped
        if self.model is None:
            self.model = model
        if model != self.model:
            self._stop(replica, model)
        return replica.stopped

    def _stop(self, replica: _Replica, model: str) -> None:
        if replica.stopped is not None:
            return
        agreeing = [r.url for r in self._replicas if r.model == self.model and r is not replica]
        replica.stopped = (
            f"{self.where}: replica {replica.url} answers as model {model!r}, while "
            f"{', '.join(agreeing)} answer{'s' if len(agreeing) == 1 else ''} as "
            f"{self.model!r}; it gets no more calls in this run (outputs stored from it keep "
            "the model they named): serve one model on every replica"
        )
        replica.drained_until = math.inf
        warnings.warn(ReplicaWarning(replica.stopped), stacklevel=2)

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
            soonest = (
                min(
                    (r.drained_until for r in self._replicas if r.stopped is None), default=math.inf
                )
                - now
            )
            raise TargetError(
                f"{where}: every replica failed and is drained "
                f"({', '.join(r.url for r in self._replicas)}); the first is tried again in "
                f"{soonest:.1f} s",
                kind="connection",
            )
        first = self._replicas[0]
        if not self._settled and first in ready:
            return first  # the model is the first replica's: known once it answers
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
            if replica is self._replicas[0] and (outcome.failed or outcome.answered):
                # Answered: its model is noted (answered()) before any other call is picked,
                # since nothing is awaited in between. Failed: the others take over, and the
                # first model one of them names is kept.
                self._settled = True
            if replica.stopped is not None:
                pass  # out for the rest of the run, whatever this call did
            elif outcome.failed:
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
