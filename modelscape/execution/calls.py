"""One observation's call: time limits, retries with capped backoff, and the circuit breaker."""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import time
from collections.abc import Awaitable, Callable
from typing import NamedTuple

from modelscape.execution.config import ExecutionConfig
from modelscape.execution.health import Breaker, FailureKind
from modelscape.targets._cleaning import Redactor, redact_output
from modelscape.targets._clock import CallClock, clocked
from modelscape.targets.protocol import Target, TargetError, TargetOutput, TargetRequest

__all__ = ["CallResult", "Redactor", "call_with_retries", "redact_output", "run_workers"]


class CallResult(NamedTuple):
    """What one observation's call came to after its retries."""

    output: TargetOutput
    ok: bool
    attempts: int
    started: float
    duration: float


def _describe(error: BaseException) -> str:
    text = str(error)
    if isinstance(error, TargetError) and text:
        return text  # the target's own message says what failed
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def call_with_retries(
    target: Target,
    request: TargetRequest,
    config: ExecutionConfig,
    rng: random.Random,
    on_retry: Callable[[], None] | None = None,
    breaker: Breaker | None = None,
) -> CallResult:
    """Call ``target`` until it answers, retrying under ``config.retry``.

    A call fails when it raises, exceeds ``config.timeout``, or returns an output whose
    ``error`` is set. Only a timeout, an error output and a retryable :class:`TargetError` are
    tried again; any other exception is the target's own bug and fails the observation at once.
    The timeout measures the call, not a target's wait to send it (see
    :mod:`~modelscape.targets._clock`). A provider's ``Retry-After`` is honoured up to
    ``retry.max_delay``; one beyond it (``inf``, a date in 2100) says "not within this run", so
    the observation fails at once with the provider's words. The whole observation, waits
    included, stays within ``config.budget()``. ``breaker``, when given, learns from every
    attempt, and once it has tripped no further attempt is made. The last failure's message is
    kept in the returned output's ``error``.
    """
    policy = config.retry
    budget = config.budget()
    started = time.time()
    clock = time.perf_counter()
    loop = asyncio.get_running_loop()
    end = loop.time() + budget
    timeout = math.inf if config.timeout is None else config.timeout
    error_text = ""
    attempt = 0
    while True:
        if breaker is not None and breaker.tripped is not None:
            reason = f"not asked again: {breaker.tripped}" if attempt else breaker.tripped
            text = f"{error_text}; {reason}" if error_text else f"not asked: {reason}"
            return CallResult(
                TargetOutput(error=text), False, attempt, started, time.perf_counter() - clock
            )
        attempt += 1
        if attempt > 1 and on_retry is not None:
            on_retry()  # counted once the retry is really made
        retry_after: float | None = None
        retryable = True
        kind: FailureKind = None
        key: str | None = None
        limit = min(timeout, budget - (time.perf_counter() - clock))
        try:
            async with asyncio.timeout(None if math.isinf(limit) else limit) as timer:
                measured = CallClock(timer, timeout, end)
                with clocked(measured):
                    output = await target(request)
            if not isinstance(output, TargetOutput):
                raise TargetError(
                    f"target {target.name!r} returned {type(output).__name__}, not a TargetOutput",
                    retryable=False,
                )
            if output.error is None:
                if breaker is not None:
                    breaker.success()
                return CallResult(output, True, attempt, started, time.perf_counter() - clock)
            error_text, kind = output.error, "busy"
        except TargetError as error:
            error_text = _describe(error)
            retry_after, retryable = error.retry_after, error.retryable
            if error.kind is not None:
                kind = "dead"
            elif retryable:
                kind = "busy"
            if retry_after is not None and retry_after > policy.max_delay:
                # Not within this run: waiting max_delay before each attempt only wastes the
                # run's time (72 observations once took over 4 minutes of Retry-After: inf).
                key = error_text
                error_text = (
                    f"{error_text}; the provider asks to wait {retry_after:g} s (Retry-After), "
                    f"more than max_delay {policy.max_delay:g} s: not asked again in this run"
                )
                retryable, kind = False, "dead"
        except TimeoutError:
            if measured.queued:  # the target's own queue held it back till the deadline
                spent = time.perf_counter() - clock
                error_text = (
                    f"not sent: waited for a place to send it until the observation's deadline "
                    f"of {budget:g} s (after {spent:.3g} s); lower the concurrency or raise "
                    "the deadline"
                )
                kind = None
            else:
                error_text, kind, key = f"timed out after {limit:g} s", "timeout", "timed out"
        except Exception as error:  # the target's own bug: asking again would repeat it
            error_text = _describe(error)
            retryable = False
            kind = "dead" if isinstance(error, ConnectionError) else None
        if breaker is not None:
            breaker.failure(error_text, kind=kind, key=key)
        wait = 0.0
        if retryable and attempt < policy.attempts:
            wait = policy.delay(attempt, rng, retry_after)
            spent = time.perf_counter() - clock
            if spent + wait >= budget:
                error_text = (
                    f"{error_text}; gave up after {spent:.3g} s: waiting {wait:g} s more would "
                    f"pass the observation's deadline of {budget:g} s"
                )
                retryable = False
        if not retryable or attempt >= policy.attempts:
            if breaker is not None and kind is not None:
                breaker.gave_up(error_text)
            failed = TargetOutput(error=error_text)
            return CallResult(failed, False, attempt, started, time.perf_counter() - clock)
        if breaker is None:
            await asyncio.sleep(wait)
        else:  # a breaker that trips meanwhile ends the wait
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(breaker.stop.wait(), wait)


async def run_workers(count: int, worker: Callable[[], Awaitable[None]]) -> None:
    """Run ``count`` copies of ``worker`` at once, until all return.

    The first error cancels the others and is raised as itself, not inside an exception group,
    so callers see the :class:`ExecutionError` or ``KeyboardInterrupt`` they expect.
    """
    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(count):
                group.create_task(worker())  # type: ignore[arg-type]
    except BaseExceptionGroup as errors:
        raise errors.exceptions[0] from None
