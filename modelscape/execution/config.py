"""How observations are executed: concurrency, time limits and retries.

None of these settings is part of any identity: the same experiment run with more concurrency
or a longer timeout asks the same questions and finds the same stored observations.
"""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import Field, model_validator

from modelscape._limits import MAX_CALLS
from modelscape._model import FrozenModel
from modelscape.execution.shard import Shard

__all__ = ["MAX_CALLS", "ExecutionConfig", "RetryPolicy"]


class RetryPolicy(FrozenModel):
    """Exponential backoff for target calls that raise or time out.

    A call is made at most ``attempts`` times. Before retry *n* (counting from 1) the runner
    waits ``initial_delay * multiplier ** (n - 1)`` seconds, capped at ``max_delay``, and shortened
    by a random share of up to ``jitter`` so that many concurrent failures do not retry in
    lockstep. When the target's error carries a provider's ``retry_after`` hint, that wait is
    used instead. A hint beyond ``max_delay`` (``inf``, ``1e12``, a date in 2100) says "not
    within this run": the runner fails that observation at once with the provider's words
    rather than stall the run, and counts it towards stopping the target.
    """

    attempts: int = Field(default=4, ge=1)
    initial_delay: float = Field(default=1.0, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    max_delay: float = Field(default=30.0, ge=0)
    jitter: float = Field(default=0.5, ge=0, le=1)

    def delay(self, retry: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first retry)."""
        if retry_after is not None and not math.isnan(retry_after):
            return min(max(float(retry_after), 0.0), self.max_delay)
        base = min(self.max_delay, self.initial_delay * self.multiplier ** (retry - 1))
        return base * (1.0 - self.jitter * rng.random())


class ExecutionConfig(FrozenModel):
    """How observations are executed. Does not affect observation identity.

    ``concurrency`` bounds the calls in flight at once, ``timeout`` the seconds one call may take
    before it counts as failed (None: no limit), and ``retry`` what happens after a failure.
    ``deadline`` bounds one observation in all, its attempts and the waits between them (None:
    ``retry.attempts`` timeouts plus the capped waits between them); a wait that would pass it
    ends the observation as failed instead. ``stop_after`` identical failures of a dead
    endpoint in a row (a refused connection or key, a ``Retry-After`` beyond the run; timeouts
    too while the target has answered nothing), or ``stop_after`` failed observations when no
    call of the target succeeded, stop a target for the rest of the run (None: never; see
    :mod:`~modelscape.execution.health`). A flaky target, with successes among its failures,
    is never stopped. A stopped target's remaining observations are stored as failed, not
    asked, and asked on the next run.

    ``order`` is the order of the calls. ``"shuffled"`` (the default) asks each repetition of
    every variant in a fresh random order, which spreads any drift of a provider over all
    coordinates. ``"grouped"`` asks the variants in one random order with the repetitions of
    each back to back: a local server that keeps the previous prompt evaluated (llama.cpp)
    then reads each prompt once instead of once per repetition. Use it for models whose
    weights cannot change during a run; a hosted model's drift would then fall on whole
    variants.

    ``shard`` restricts a run to one deterministic part of the observations (see
    :mod:`~modelscape.execution.shard`), so that N machines can share one experiment.

    ``max_calls`` is the most calls one run may make (a shard's share of them, with ``shard``):
    an experiment that needs more is refused before anything is stored, since a typo in a
    spec (a million repetitions) would otherwise fill a disk with a run nobody meant. The
    default, :data:`MAX_CALLS`, is five times the largest runs modelscape is tested at; None
    sets no limit.
    """

    concurrency: int = Field(default=8, ge=1)
    timeout: float | None = Field(default=120.0, gt=0)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    deadline: float | None = Field(default=None, gt=0)
    stop_after: int | None = Field(default=10, ge=1)
    order: Literal["shuffled", "grouped"] = "shuffled"
    shard: Shard | None = None
    max_calls: int | None = Field(default=MAX_CALLS, ge=1)

    def budget(self) -> float:
        """Seconds one observation may take with its retries: ``deadline``, or what the
        timeout and the retry policy allow (infinite without a timeout)."""
        if self.deadline is not None:
            return self.deadline
        if self.timeout is None:
            return math.inf
        attempts = self.retry.attempts
        return attempts * self.timeout + (attempts - 1) * self.retry.max_delay

    @model_validator(mode="after")
    def _sane(self) -> ExecutionConfig:
        # A concurrency in the tens of thousands is a typo, and would open as many sockets.
        if self.concurrency > 10_000:
            raise ValueError(f"concurrency {self.concurrency} is too high; use at most 10000")
        return self
