"""The adaptive limiter alone, and a provider target slowing down when its server answers 429."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.specs import load_spec
from modelscape.targets.providers import HttpOptions
from modelscape.targets.providers._limiter import AdaptiveLimiter
from modelscape.targets.providers.openai import OpenAICompatibleTarget
from tests.targets.providers.fake_server import FakeProvider


async def _hold(limiter: AdaptiveLimiter, seconds: float, log: list[int]) -> None:
    async with limiter.slot():
        log.append(limiter.in_flight)
        await asyncio.sleep(seconds)


def test_calls_in_flight_never_pass_the_limit() -> None:
    limiter = AdaptiveLimiter(3)
    log: list[int] = []

    async def go() -> None:
        await asyncio.gather(*(_hold(limiter, 0.01, log) for _ in range(20)))

    asyncio.run(go())
    assert max(log) == 3
    assert limiter.in_flight == 0


def test_a_window_of_429s_halves_the_limit_once() -> None:
    limiter = AdaptiveLimiter(16)

    async def throttled() -> None:
        async with limiter.slot() as slot:
            await asyncio.sleep(0.01)
            slot.throttled()

    async def go() -> None:
        # Sixteen calls sent together and all refused are one signal, not sixteen.
        await asyncio.gather(*(throttled() for _ in range(16)))

    asyncio.run(go())
    assert limiter.limit == 8
    assert limiter.epoch == 1
    # Sixteen more queue behind a limit of 8; those let in after a cut are a new window and
    # cut again when refused: 8, 4, 2, 1.
    asyncio.run(go())
    assert limiter.limit == 1
    assert limiter.epoch >= 4


def test_successes_raise_the_limit_by_about_one_per_window() -> None:
    limiter = AdaptiveLimiter(10, minimum=2)
    limiter.limit = 4.0

    async def go() -> None:
        for _ in range(4):
            async with limiter.slot():
                pass

    asyncio.run(go())
    assert 4.9 < limiter.limit < 5.0
    limiter.limit = 9.99
    asyncio.run(go())
    assert limiter.limit == 10  # never past the maximum


def test_the_limit_never_falls_below_the_minimum() -> None:
    limiter = AdaptiveLimiter(4, minimum=2)

    async def go() -> None:
        for _ in range(5):
            async with limiter.slot() as slot:
                slot.throttled()

    asyncio.run(go())
    assert limiter.limit == 2
    assert limiter.allowed == 2


def test_a_cancelled_waiter_gives_its_place_on() -> None:
    limiter = AdaptiveLimiter(1)

    async def go() -> None:
        holder = asyncio.create_task(_hold(limiter, 0.05, []))
        await asyncio.sleep(0)
        waiter = asyncio.create_task(_hold(limiter, 0, []))
        await asyncio.sleep(0.01)
        waiter.cancel()
        await holder
        with pytest.raises(asyncio.CancelledError):
            await waiter
        await asyncio.wait_for(_hold(limiter, 0, []), 1)

    asyncio.run(go())
    assert limiter.in_flight == 0
    assert not limiter._waiters


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="minimum <= maximum"):
        AdaptiveLimiter(0)


def test_a_target_slows_down_under_429_and_still_finishes(fake: FakeProvider) -> None:
    for _ in range(12):
        fake.then(429, {"error": {"message": "rate limit"}}, Retry_After="0")
    fake.delay = 0.02
    target = OpenAICompatibleTarget(
        "gemma", base_url=fake.url, http=HttpOptions(max_concurrency=16)
    )
    scenario = dataclasses.replace(load_spec("pressure").scenario(), repetitions=1)
    config = ExecutionConfig(concurrency=16, retry=RetryPolicy(attempts=10, initial_delay=0.01))
    results = Runner().run(scenario.experiment([target], config))
    indexed = run_of(results)
    assert not indexed.failed
    assert target.limiter.epoch >= 1  # the limit was cut at least once
    assert len(fake.requests) == len(indexed.observations) + 12
