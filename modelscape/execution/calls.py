"""One observation's call: timeouts, retries with backoff, and redaction of what comes back."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeAlias

from modelscape._identity import JsonValue
from modelscape._model import trusted
from modelscape.execution.config import ExecutionConfig
from modelscape.execution.target import Target, TargetError, TargetOutput, TargetRequest

__all__ = ["CallResult", "Redactor", "call_with_retries", "redact_output", "run_workers"]

#: A function that removes secrets from text before anything is stored.
Redactor: TypeAlias = Callable[[str], str]


class CallResult(NamedTuple):
    """What one observation's call came to after its retries."""

    output: TargetOutput
    ok: bool
    attempts: int
    started: float
    duration: float


def _describe(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "timed out"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def call_with_retries(
    target: Target,
    request: TargetRequest,
    config: ExecutionConfig,
    rng: random.Random,
    on_retry: Callable[[], None] | None = None,
) -> CallResult:
    """Call ``target`` until it answers, retrying under ``config.retry``.

    A call fails when it raises, exceeds ``config.timeout``, or returns an output whose
    ``error`` is set. A :class:`TargetError` with ``retryable=False`` stops at once. The last
    failure's message is kept in the returned output's ``error``.
    """
    policy = config.retry
    started = time.time()
    clock = time.perf_counter()
    error_text = ""
    attempt = 0
    while True:
        attempt += 1
        retry_after: float | None = None
        retryable = True
        try:
            async with asyncio.timeout(config.timeout):
                output = await target(request)
            if not isinstance(output, TargetOutput):
                raise TargetError(
                    f"target {target.name!r} returned {type(output).__name__}, not a TargetOutput",
                    retryable=False,
                )
            if output.error is None:
                return CallResult(output, True, attempt, started, time.perf_counter() - clock)
            error_text = output.error
        except TargetError as error:
            error_text = _describe(error)
            retry_after, retryable = error.retry_after, error.retryable
        except TimeoutError as error:
            error_text = f"{_describe(error)} after {config.timeout} s"
        except Exception as error:  # a target's own bug or its client's error: retry it
            error_text = _describe(error)
        if not retryable or attempt >= policy.attempts:
            failed = TargetOutput(error=error_text)
            return CallResult(failed, False, attempt, started, time.perf_counter() - clock)
        if on_retry is not None:
            on_retry()
        await asyncio.sleep(policy.delay(attempt, rng, retry_after))


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


def _clean(value: Any, redact: Redactor) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_clean(item, redact) for item in value]
    if isinstance(value, dict):
        return {redact(str(k)): _clean(v, redact) for k, v in value.items()}
    return value


def redact_output(output: TargetOutput, redact: Redactor) -> TargetOutput:
    """``output`` with ``redact`` applied to every piece of text in it, keys of JSON included."""
    data: JsonValue = _clean(output.data, redact)
    values = dict(output.__dict__)
    values.update(
        text=redact(output.text),
        data=data,
        model=None if output.model is None else redact(output.model),
        finish_reason=None if output.finish_reason is None else redact(output.finish_reason),
        error=None if output.error is None else redact(output.error),
    )
    # Built without validating again: every value is the output's own or a redacted string.
    return trusted(TargetOutput, values)
