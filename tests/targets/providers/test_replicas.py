"""Replicas of one model: calls spread by least outstanding requests, failing ones drained."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web

from modelscape.errors import ExecutionError
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.targets._resolve import resolve_target
from modelscape.targets.protocol import TargetError
from modelscape.targets.providers._replicas import DRAIN_FIRST, DRAIN_MOST, Replicas
from tests.support.mapping_space import FAST, scenario
from tests.targets.providers.wire import Seen, WireServer, chat_reply


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_calls_go_to_the_replica_with_fewest_in_flight() -> None:
    replicas = Replicas(["a", "b", "c"], clock=Clock())
    with replicas.call("t") as opening:  # the first replica answers first (its model is kept)
        opening.succeed()
    with replicas.call("t") as first, replicas.call("t") as second:
        assert (first.url, second.url) == ("a", "b")
        with replicas.call("t") as third:
            assert third.url == "c"
        first.succeed()
    with replicas.call("t") as fourth:  # a and c are free again; a was named first
        assert fourth.url == "a"
    assert replicas.calls() == {"a": 3, "b": 1, "c": 1}


def test_a_failing_replica_is_drained_longer_each_time_then_probed() -> None:
    clock = Clock()
    replicas = Replicas(["a", "b"], clock=clock)
    waits = []
    for _ in range(10):
        with replicas.call("t") as outcome:
            assert outcome.url == "a"  # drained time is over: a probe goes to a again
            outcome.fail()
        assert replicas.drained() == ("a",)
        with replicas.call("t") as other:
            assert other.url == "b"  # while a is drained, calls go to b
            other.succeed()
        until = next(r.drained_until for r in replicas._replicas if r.url == "a")
        waits.append(until - clock.now)
        clock.now = until
    assert waits[:4] == [DRAIN_FIRST, 2 * DRAIN_FIRST, 4 * DRAIN_FIRST, 8 * DRAIN_FIRST]
    assert max(waits) == DRAIN_MOST
    with replicas.call("t") as probe:
        probe.succeed()
    assert replicas.drained() == ()


def test_when_every_replica_is_drained_a_call_fails_at_once() -> None:
    clock = Clock()
    replicas = Replicas(["a", "b"], clock=clock)
    for _ in range(2):
        with replicas.call("t") as outcome:
            outcome.fail()
    with pytest.raises(TargetError, match="every replica failed") as raised, replicas.call("t"):
        pass
    assert raised.value.kind == "connection"


def test_a_cancelled_call_drains_its_replica() -> None:
    replicas = Replicas(["a", "b"], clock=Clock())

    async def hang() -> None:
        with replicas.call("t"):
            await asyncio.sleep(10)

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(hang(), 0.01)

    asyncio.run(main())
    assert replicas.drained() == ("a",)


@pytest.mark.parametrize("urls", [[], ["a", "a"]])
def test_a_replica_set_needs_distinct_urls(urls: list[str]) -> None:
    with pytest.raises(ExecutionError, match="replica"):
        Replicas(urls)


class SlowServer(WireServer):
    """A chat server that waits before it answers."""

    def __init__(self, delay: float) -> None:
        super().__init__(lambda seen: chat_reply(_answer(seen)))
        self.delay = delay

    async def _handle(self, request: web.Request) -> web.Response:
        await asyncio.sleep(self.delay)
        return await super()._handle(request)


def _answer(seen: Seen) -> str:
    return '{"answer": "yes"}'


@pytest.fixture
def servers() -> Iterator[list[WireServer]]:
    started = [SlowServer(0.05).start(), SlowServer(0.0).start()]
    yield started
    for server in started:
        server.stop()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port  # closed again: nothing listens there


def _target(*roots: str) -> Any:
    return resolve_target(f"openai-compatible:m@{','.join(f'{r}/v1' for r in roots)}")


def test_a_run_spreads_its_calls_and_the_slow_replica_takes_fewer(
    servers: list[WireServer],
) -> None:
    slow, fast = servers
    target = _target(slow.url, fast.url)
    experiment = scenario(cases=4, repetitions=3).experiment([target], FAST)
    results = Runner().run(experiment)
    assert len(run_of(results).failed) == 0
    assert len(slow.seen) + len(fast.seen) == experiment.calls() == 60
    assert 0 < len(slow.seen) < len(fast.seen)
    assert {s.raw_path for s in slow.seen + fast.seen} == {"/v1/chat/completions"}


def test_a_dead_replica_is_drained_and_the_run_loses_nothing(servers: list[WireServer]) -> None:
    _, live = servers
    target = _target(f"http://127.0.0.1:{_free_port()}", live.url)
    experiment = scenario(cases=4, repetitions=3).experiment([target], FAST)
    results = Runner().run(experiment)
    assert len(run_of(results).failed) == 0
    assert len(live.seen) == experiment.calls()
    tried = target.replicas.calls()[target.replicas.urls[0]]
    assert 1 <= tried <= 3  # refused once (or a few at once), then drained for the run


def test_with_every_replica_dead_the_target_is_stopped_not_retried_forever() -> None:
    dead = [f"http://127.0.0.1:{_free_port()}" for _ in range(2)]
    target = _target(*dead)
    experiment = scenario(cases=4, repetitions=3).experiment([target], FAST)
    runner = Runner()
    results = runner.run(experiment)
    assert len(run_of(results).failed) == experiment.calls()
    assert runner.health[target.name].stopped
    assert sum(target.replicas.calls().values()) < 3 * experiment.calls()


def test_replicas_are_no_part_of_the_identity(servers: list[WireServer]) -> None:
    first, second = servers
    alone = _target(first.url)
    both = _target(first.url, second.url)
    assert alone.identity == both.identity
    with pytest.raises(Exception, match="not an http"):
        _target(first.url, "ftp://127.0.0.1:1")
