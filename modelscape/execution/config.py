"""How observations are executed: concurrency, time limits and retries.

None of these settings is part of any identity: the same experiment run with more concurrency
or a longer timeout asks the same questions and finds the same stored observations.
"""

from __future__ import annotations

import random

from pydantic import Field, model_validator

from modelscape._model import FrozenModel

__all__ = ["ExecutionConfig", "RetryPolicy"]


class RetryPolicy(FrozenModel):
    """Exponential backoff for target calls that raise or time out.

    A call is made at most ``attempts`` times. Before retry *n* (counting from 1) the runner
    waits ``initial_delay * multiplier ** (n - 1)`` seconds, capped at ``max_delay``, and shortened
    by a random share of up to ``jitter`` so that many concurrent failures do not retry in
    lockstep. When the target's error carries a provider's ``retry_after`` hint, that wait is
    used instead.
    """

    attempts: int = Field(default=4, ge=1)
    initial_delay: float = Field(default=1.0, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    max_delay: float = Field(default=30.0, ge=0)
    jitter: float = Field(default=0.5, ge=0, le=1)

    def delay(self, retry: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first retry)."""
        if retry_after is not None and retry_after >= 0:
            return float(retry_after)
        base = min(self.max_delay, self.initial_delay * self.multiplier ** (retry - 1))
        return base * (1.0 - self.jitter * rng.random())


class ExecutionConfig(FrozenModel):
    """How observations are executed. Does not affect observation identity.

    ``concurrency`` bounds the calls in flight at once, ``timeout`` the seconds one call may take
    before it counts as failed (None: no limit), and ``retry`` what happens after a failure.
    """

    concurrency: int = Field(default=8, ge=1)
    timeout: float | None = Field(default=120.0, gt=0)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)

    @model_validator(mode="after")
    def _sane(self) -> ExecutionConfig:
        # A concurrency in the tens of thousands is a typo, and would open as many sockets.
        if self.concurrency > 10_000:
            raise ValueError(f"concurrency {self.concurrency} is too high; use at most 10000")
        return self
