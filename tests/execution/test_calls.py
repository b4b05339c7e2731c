"""One observation's call: retries, waits bounded by the deadline, the breaker that ends them,
and the settings that shape them."""

from __future__ import annotations

import asyncio
import math
import random
import re
from collections.abc import Callable

import pytest
from pydantic import ValidationError

from modelscape.execution.calls import CallResult, call_with_retries
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.health import Breaker
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from modelscape.task.prompt import Prompt

REQUEST = TargetRequest(prompt=Prompt.of("question"), seed=1)


def call(
    answer: Callable[[int], object],
    config: ExecutionConfig,
    breaker: Breaker | None = None,
) -> CallResult:
    """One observation's call of a target that answers ``answer(attempt)`` (1 for the first)."""
    attempts = [0]

    async def target(request: TargetRequest) -> object:
        attempts[0] += 1
        result = answer(attempts[0])
        if asyncio.iscoroutine(result):
            result = await result
        return result

    wrapped = CallableTarget(target, name="t")  # type: ignore[arg-type]

    async def main() -> CallResult:
        # A guard against hanging, far above what any of these calls needs: not a timing check.
        return await asyncio.wait_for(
            call_with_retries(wrapped, REQUEST, config, random.Random(0), None, breaker), 30
        )

    return asyncio.run(main())


def fails(error: TargetError, then: object = None) -> Callable[[int], object]:
    def answer(attempt: int) -> object:
        if then is not None and attempt > 1:
            return then
        raise error

    return answer


def test_a_call_without_a_breaker_retries_and_answers() -> None:
    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=0.001))
    result = call(fails(TargetError("overloaded"), then="yes"), config)
    assert (result.ok, result.attempts, result.output.text) == (True, 2, "yes")


def test_each_attempt_gets_only_what_is_left_of_the_deadline() -> None:
    async def slow_failure_then_silence(attempt: int) -> str:
        if attempt == 1:
            await asyncio.sleep(0.15)
            raise TargetError("overloaded")
        await asyncio.Event().wait()  # never answers
        return "never"

    config = ExecutionConfig(
        timeout=10, deadline=1.0, retry=RetryPolicy(attempts=2, initial_delay=0.001)
    )
    result = call(slow_failure_then_silence, config)
    assert (result.ok, result.attempts) == (False, 2)
    found = re.fullmatch(r"timed out after (\S+) s", result.output.error or "")
    assert found, result.output.error
    # The first attempt took at least 0.15 s of the 1 s, so the second had at most 0.85 s.
    assert float(found.group(1)) <= 0.85


def test_a_wait_that_would_pass_the_deadline_ends_the_call_at_once() -> None:
    config = ExecutionConfig(
        deadline=0.5, retry=RetryPolicy(attempts=3, initial_delay=0.001, max_delay=30)
    )
    result = call(fails(TargetError("429 slow down", retry_after=30)), config)
    assert (result.ok, result.attempts) == (False, 1)
    error = result.output.error or ""
    assert error.startswith("429 slow down; gave up after ")
    assert "waiting 30 s more would pass the observation's deadline of 0.5 s" in error


def test_a_retry_after_beyond_max_delay_fails_the_observation_at_once() -> None:
    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=5, max_delay=0.01))
    honoured = Breaker("t", None)
    result = call(fails(TargetError("429", retry_after=0.01)), config, honoured)
    assert result.attempts == 3
    assert result.output.error == "429"
    beyond = Breaker("t", 3)
    for _ in range(3):  # each observation fails at its first attempt, and counts
        result = call(fails(TargetError("429 quota spent", retry_after=math.inf)), config, beyond)
        assert (result.ok, result.attempts) == (False, 1)
    assert result.output.error == (
        "429 quota spent; the provider asks to wait inf s (Retry-After), more than max_delay "
        "0.01 s: not asked again in this run"
    )
    assert beyond.tripped is not None
    assert beyond.tripped.startswith("target 't' stopped after 3 identical failures in a row")


def test_a_breaker_that_trips_wakes_a_call_waiting_to_retry() -> None:
    breaker = Breaker("t", 2)
    refused = "connection refused"
    # Waits of a minute: the call can only end early if the trip wakes it.
    config = ExecutionConfig(
        timeout=None, retry=RetryPolicy(attempts=3, initial_delay=60, max_delay=60)
    )
    wrapped = CallableTarget(fails(TargetError(refused, kind="connection")), name="t")

    async def main() -> CallResult:
        task = asyncio.create_task(
            call_with_retries(wrapped, REQUEST, config, random.Random(0), None, breaker)
        )
        while breaker.streak < 1:  # the first attempt failed; the call now waits
            await asyncio.sleep(0.001)
        breaker.failure(refused, kind="dead")  # another call's failure trips the breaker
        return await asyncio.wait_for(task, 30)

    result = asyncio.run(main())
    assert (result.ok, result.attempts) == (False, 1)
    assert result.output.error == (
        "connection refused; not asked again: target 't' stopped after 2 identical failures "
        "in a row: connection refused"
    )


def test_a_failed_call_reports_the_time_it_took() -> None:
    async def slow_failure(attempt: int) -> str:
        await asyncio.sleep(0.02)
        raise TargetError("overloaded")

    config = ExecutionConfig(retry=RetryPolicy(attempts=2, initial_delay=0.001))
    result = call(slow_failure, config)
    assert (result.ok, result.attempts) == (False, 2)
    # Both attempts count, not the last alone (lower bounds only: no machine is too fast).
    assert result.duration >= 0.03
    assert result.started > 1_600_000_000  # seconds since the epoch, not a counter


# -- settings ------------------------------------------------------------------------------------
def test_the_budget_of_an_observation() -> None:
    assert ExecutionConfig().budget() == 4 * 120 + 3 * 30  # attempts x timeout + the waits
    policy = RetryPolicy(attempts=3, max_delay=2)
    assert ExecutionConfig(timeout=5, retry=policy).budget() == 3 * 5 + 2 * 2
    assert ExecutionConfig(timeout=5, retry=RetryPolicy(attempts=1)).budget() == 5
    assert ExecutionConfig(timeout=None).budget() == math.inf
    assert ExecutionConfig(timeout=5, deadline=7).budget() == 7
    assert ExecutionConfig(timeout=None, deadline=7).budget() == 7


def test_backoff_may_stay_constant_but_never_shrink() -> None:
    constant = RetryPolicy(multiplier=1, initial_delay=2, jitter=0)
    assert [constant.delay(n, random.Random(0)) for n in (1, 2, 5)] == [2, 2, 2]
    with pytest.raises(ValidationError, match="multiplier"):
        RetryPolicy(multiplier=0.5)


def test_concurrency_is_bounded_where_typos_begin() -> None:
    assert ExecutionConfig(concurrency=10_000).concurrency == 10_000
    with pytest.raises(ValidationError, match="concurrency 10001 is too high; use at most 10000"):
        ExecutionConfig(concurrency=10_001)
    with pytest.raises(ValidationError):
        ExecutionConfig(concurrency=0)


def test_an_output_that_is_not_an_output_fails_without_retries() -> None:
    class Odd:
        name = "odd"

        async def __call__(self, request: TargetRequest) -> object:
            return "plain text, not a TargetOutput"

    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=0.001))
    result = asyncio.run(
        call_with_retries(Odd(), REQUEST, config, random.Random(0))  # type: ignore[arg-type]
    )
    assert (result.ok, result.attempts) == (False, 1)
    assert result.output.error == "target 'odd' returned str, not a TargetOutput"
    assert isinstance(result.output, TargetOutput)
