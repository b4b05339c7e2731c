"""Runs against loopback servers that misbehave: flaky ones finish, dead ones stop quickly.

The breaker must tell a dead target from a flaky one, the timeout must measure the call and
not the wait for a place under the limiter, and a ``Retry-After`` beyond ``max_delay`` must end
an observation at once instead of stalling the run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.experiment import Experiment
from modelscape.execution.runner import Runner
from modelscape.results.results import Results, run_of
from modelscape.targets.providers import HttpOptions, OpenAICompatibleTarget
from tests.support.mapping_space import experiment
from tests.targets.providers.fake_server import FakeProvider
from tests.targets.providers.flaky_server import FlakyServer
from tests.targets.providers.loopback import free_port


@pytest.fixture
def servers() -> Iterator[list[FlakyServer]]:
    started: list[FlakyServer] = []
    yield started
    for server in started:
        server.stop()


def run_against(
    url: str, config: ExecutionConfig, *, repetitions: int, concurrency: int
) -> tuple[Experiment, Runner, Results]:
    target = OpenAICompatibleTarget(
        "m", base_url=url, http=HttpOptions(max_concurrency=concurrency)
    )
    run = experiment([target], repetitions=repetitions, cases=4)
    runner = Runner()
    results = runner.run(run.__class__(**{**run.__dict__, "execution": config}))
    return run, runner, results


def test_a_flaky_server_is_not_stopped_and_nearly_every_observation_succeeds(
    servers: list[FlakyServer],
) -> None:
    server = FlakyServer(faults=0.25, hang=0.6, seed=7).start()
    servers.append(server)
    config = ExecutionConfig(
        concurrency=32,
        timeout=0.3,
        retry=RetryPolicy(attempts=6, initial_delay=0.01, max_delay=0.1),
    )
    run, runner, results = run_against(server.url, config, repetitions=10, concurrency=32)
    indexed = run_of(results)
    health = runner.health["m"]
    assert health.stopped is None, health.stopped
    ok = len(indexed.observations) - len(indexed.failed)
    assert ok >= 0.99 * run.calls(), (ok, run.calls(), health.first_error)
    assert set(server.answers) == {"ok", "429", "500", "hang", "cut"}  # every fault was met


def test_a_timeout_counts_from_the_send_not_the_wait_for_a_place(
    servers: list[FlakyServer],
) -> None:
    # Every reply takes 0.3 s, well within the 1 s timeout; the 429s halve the limiter, so
    # most calls wait for a place. Before the timeout counted from the send, such waits were
    # reported as "timed out" and then stopped the target.
    server = FlakyServer(faults=0.3, kinds=("429",), delay=0.3, retry_after=0.01, seed=3)
    servers.append(server.start())
    config = ExecutionConfig(
        concurrency=24,
        timeout=1.0,
        deadline=120,
        retry=RetryPolicy(attempts=8, initial_delay=0.01, max_delay=0.05),
    )
    _, runner, results = run_against(server.url, config, repetitions=3, concurrency=24)
    indexed = run_of(results)
    assert runner.health["m"].stopped is None
    timed_out = [o for o in indexed.failed if "timed out" in (o.output.error or "")]
    assert timed_out == []
    assert len(indexed.failed) == 0, indexed.failed[0].output.error


def test_a_port_nobody_listens_on_stops_the_target_quickly() -> None:
    config = ExecutionConfig(
        concurrency=8, timeout=2, retry=RetryPolicy(attempts=4, initial_delay=0.5, max_delay=2)
    )
    url = f"http://127.0.0.1:{free_port()}/v1"
    run, runner, results = run_against(url, config, repetitions=10, concurrency=8)
    health = runner.health["m"]
    assert health.stopped is not None
    assert "identical failures in a row" in health.stopped
    assert len(run_of(results).failed) == run.calls()
    # Stopped early: most calls were never asked (nor waited for).
    assert health.unasked > run.calls() // 2


def test_a_retry_after_of_inf_on_every_call_ends_the_run_in_seconds(fake: FakeProvider) -> None:
    fake.respond = None
    for _ in range(200):
        fake.then(429, {"error": {"message": "daily quota spent"}}, Retry_After="inf")
    config = ExecutionConfig(retry=RetryPolicy(attempts=4, initial_delay=1, max_delay=30))
    run, runner, results = run_against(fake.url, config, repetitions=4, concurrency=8)
    indexed = run_of(results)
    assert len(indexed.failed) == run.calls()
    # One attempt each: no wait of max_delay before a retry (before, over 4 minutes of them).
    asked = [o for o in indexed.failed if o.attempts]
    assert all(o.attempts == 1 for o in asked)
    assert "daily quota spent; the provider asks to wait inf s" in (asked[0].output.error or "")
    health = runner.health["m"]
    assert health.stopped is not None
    assert "daily quota spent" in health.stopped
    assert len(fake.requests) < run.calls()


def test_a_retry_after_in_2100_is_beyond_the_run_too(fake: FakeProvider) -> None:
    for _ in range(200):
        fake.then(429, "busy", Retry_After="Fri, 01 Jan 2100 00:00:00 GMT")
    config = ExecutionConfig(retry=RetryPolicy(attempts=4, initial_delay=1, max_delay=30))
    run, runner, _ = run_against(fake.url, config, repetitions=9, concurrency=8)
    health = runner.health["m"]
    # The seconds differ from call to call; the breaker still sees one cause.
    assert health.stopped is not None
    assert "identical failures in a row" in health.stopped
    assert len(fake.requests) < run.calls()
