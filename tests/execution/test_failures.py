"""How the runner fails: loudly, early when a target is dead, and without losing an output."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from modelscape.errors import StoreError
from modelscape.execution import buffer as write_buffer
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.runner import Progress, Runner
from modelscape.records.stored import Observation
from modelscape.results.results import run_of
from modelscape.store.memory import MemoryStore
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from tests.support.mapping_space import FAST, experiment, planted


class Wrapped:
    """A store that delegates to another, for tests that make its writes fail or slow."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class Poisoned(Wrapped):
    """Fails the first ``flaky`` writes, and every write holding a text with ``POISON``."""

    def __init__(self, inner: Any, *, flaky: int = 0) -> None:
        super().__init__(inner)
        self.flaky = flaky
        self.writes = 0

    def save_observations(self, observations: Iterable[Observation]) -> None:
        batch = list(observations)
        self.writes += 1
        if self.writes <= self.flaky:
            raise StoreError("database is locked (simulated)")
        if any("POISON" in o.output.text for o in batch):
            raise ValueError("cannot encode this record (simulated)")
        self.inner.save_observations(batch)


def test_a_record_that_cannot_be_written_is_stored_as_failed_and_costs_no_other(
    tmp_path: Path,
) -> None:
    rule = planted("p")

    async def answer(request: TargetRequest) -> TargetOutput:
        if "level: 2" in request.prompt.text and "case0" not in request.prompt.text:
            output = await rule(request)
            return output.model_copy(update={"text": output.text + " POISON"})
        return await rule(request)

    inner = SQLiteStore(tmp_path / "runs.db")
    store = Poisoned(inner, flaky=2)
    run = experiment([CallableTarget(answer, name="p")])
    results = Runner(store=store).run(run)
    indexed = run_of(results)
    poisoned = [o for o in indexed.observations if "level: 2" in indexed.variant(o.variant_id)
                .prompt.text]  # fmt: skip
    assert poisoned
    stored = inner.observations(o.id for o in indexed.observations)
    assert len(stored) == run.calls()  # every observation is in the file
    for observation in indexed.observations:
        held = stored[observation.id]
        if observation in poisoned:
            assert held.status == "failed"
            assert "could not be stored" in (held.output.error or "")
            assert "cannot encode this record" in (held.output.error or "")
        else:
            assert held.status == "ok", held.output.error
    assert {o.id for o in indexed.failed} == {o.id for o in poisoned}
    # The results hold no measurement of an output that was not stored, and all of the others.
    measured: dict[str, set[str]] = {}
    for point in indexed.point_measurements:
        measured.setdefault(point.observation_id, set()).add(point.measure)
    assert not measured.keys() & {o.id for o in poisoned}
    for observation in indexed.observations:
        if observation not in poisoned:
            assert measured[observation.id] == {"correct", "answered", "answer_change"}
    inner.close()


class Broken(Wrapped):
    def save_observations(self, observations: Iterable[Observation]) -> None:
        raise StoreError("disk full (simulated)")


def test_a_store_that_takes_nothing_stops_the_run_with_its_error() -> None:
    calls = []

    async def answer(request: TargetRequest) -> TargetOutput:
        calls.append(request.seed)
        await asyncio.sleep(0.05)
        return TargetOutput(text="yes")

    run = experiment([CallableTarget(answer, name="t")], repetitions=20, cases=4)
    with pytest.raises(StoreError, match="disk full") as raised:
        Runner(store=Broken(MemoryStore())).run(run)
    assert len(calls) < run.calls()  # it stopped asking: every answer would have been lost
    # Every call that was made had its answer arrive, and none of them could be stored.
    assert f"the run stopped with {len(calls)} answers that arrived not stored" in str(raised.value)


class Slow(Wrapped):
    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.overlaps = 0
        self.busy = threading.Lock()

    def save_observations(self, observations: Iterable[Observation]) -> None:
        if not self.busy.acquire(blocking=False):
            self.overlaps += 1
            self.busy.acquire()
        try:
            time.sleep(0.2)
            self.inner.save_observations(observations)
        finally:
            self.busy.release()


def test_ticks_and_full_buffers_during_a_slow_write_lose_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(write_buffer, "FLUSH_SIZE", 3)
    monkeypatch.setattr(write_buffer, "FLUSH_INTERVAL", 0.01)
    inner = MemoryStore()
    store = Slow(inner)

    async def answer(request: TargetRequest) -> TargetOutput:
        await asyncio.sleep(0.01)
        return TargetOutput(text="yes")

    run = experiment([CallableTarget(answer, name="t")], repetitions=4)
    results = Runner(store=store).run(run)
    assert len(run_of(results).observations) == run.calls()
    assert inner.status_counts(run.id) == {"ok": run.calls(), "failed": 0}


def hanging_after(count: int) -> tuple[CallableTarget, list[int]]:
    """Answers ``count`` calls, then hangs until cancelled."""
    answered: list[int] = []

    async def answer(request: TargetRequest) -> TargetOutput:
        if len(answered) >= count:
            await asyncio.Event().wait()
        answered.append(request.seed)
        return TargetOutput(text='{"answer": "yes"}')

    return CallableTarget(answer, name="hangs"), answered


def test_a_cancelled_run_stores_every_output_that_arrived(monkeypatch: pytest.MonkeyPatch) -> None:
    # No timer flush: only the final flush of the cancelled run can store them.
    monkeypatch.setattr(write_buffer, "FLUSH_INTERVAL", 3600)
    target, answered = hanging_after(12)
    store = MemoryStore()
    run = experiment([target], repetitions=4)

    async def main() -> None:
        task = asyncio.create_task(Runner(store=store).arun(run))
        while len(answered) < 12:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    stored = store.observations(p.id for p in run.plan())
    assert sorted(o.seed for o in stored.values()) == sorted(answered)


def test_an_error_mid_run_stores_every_output_that_arrived(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(write_buffer, "FLUSH_INTERVAL", 3600)
    store = MemoryStore()
    seen: list[Progress] = []

    def report(progress: Progress) -> None:
        seen.append(progress)
        if progress.done >= 15:
            raise RuntimeError("the progress display crashed")

    run = experiment([planted()], repetitions=4)
    with pytest.raises(RuntimeError, match="display crashed"):
        Runner(store=store, on_progress=report).run(run)
    assert store.status_counts(run.id)["ok"] >= 15


def test_ctrl_c_in_a_target_stores_every_output_that_arrived(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(write_buffer, "FLUSH_INTERVAL", 3600)
    answered: list[int] = []

    def answer(request: TargetRequest) -> str:
        if len(answered) >= 10:
            raise KeyboardInterrupt
        answered.append(request.seed)
        return '{"answer": "yes"}'

    store = MemoryStore()
    run = dataclasses_replace_concurrency(experiment([CallableTarget(answer, name="t")]), 1)
    with pytest.raises(KeyboardInterrupt):
        Runner(store=store).run(run)
    stored = store.observations(p.id for p in run.plan())
    assert sorted(o.seed for o in stored.values()) == sorted(answered)


def dataclasses_replace_concurrency(run: Any, concurrency: int) -> Any:
    import dataclasses

    return dataclasses.replace(run, execution=FAST.model_copy(update={"concurrency": concurrency}))


def test_progress_counts_failures() -> None:
    def answer(request: TargetRequest) -> str:
        if "level: 3" in request.prompt.text:
            raise TargetError("refused", retryable=False)
        return '{"answer": "yes"}'

    seen: list[Progress] = []
    run = experiment([CallableTarget(answer, name="t")])
    results = Runner(on_progress=seen.append).run(run)
    assert seen[-1].failed == len(run_of(results).failed) == 4
    assert seen[-1].done == run.calls()
    assert [p.failed for p in seen] == sorted(p.failed for p in seen)


def test_exceptions_of_a_python_target_are_not_retried() -> None:
    calls: list[int] = []

    def buggy(request: TargetRequest) -> str:
        calls.append(request.seed)
        raise KeyError("missing field")

    run = experiment([CallableTarget(buggy, name="buggy")])
    runner = Runner()
    results = runner.run(run)
    indexed = run_of(results)
    assert len(calls) == run.calls()  # one attempt each: a bug does not go away by asking
    assert {o.attempts for o in indexed.failed} == {1}
    assert all("KeyError: 'missing field'" in (o.output.error or "") for o in indexed.failed)
    assert runner.health["buggy"].first_error == "KeyError: 'missing field'"
    assert runner.health["buggy"].stopped is None


def test_a_retryable_target_error_is_retried() -> None:
    calls: list[int] = []

    def overloaded(request: TargetRequest) -> str:
        calls.append(request.seed)
        raise TargetError("overloaded, try later")

    run = experiment([CallableTarget(overloaded, name="busy")])
    # Without the breaker, which stops a target none of whose calls succeed.
    config = FAST.model_copy(update={"stop_after": None})
    results = Runner().run(run.__class__(**{**run.__dict__, "execution": config}))
    assert {o.attempts for o in run_of(results).failed} == {FAST.retry.attempts}
    assert len(calls) == run.calls() * FAST.retry.attempts


def test_identical_connection_failures_stop_a_target_once() -> None:
    calls: list[int] = []

    async def dead(request: TargetRequest) -> str:
        calls.append(request.seed)
        raise TargetError("connection refused by 127.0.0.1:9", kind="connection")

    run = experiment([CallableTarget(dead, name="dead"), planted("alive")], repetitions=10)
    runner = Runner()
    results = runner.run(run)
    per_target = run.calls() // 2
    # Ten failures trip it; only the calls already in flight then are still made.
    assert len(calls) <= 10 + FAST.concurrency < per_target
    health = runner.health["dead"]
    assert health.stopped is not None
    assert "stopped after 10 identical failures" in health.stopped
    assert "connection refused by 127.0.0.1:9" in health.stopped
    assert health.failed == per_target
    assert health.unasked > 0
    dead_ones = [o for o in run_of(results).observations if o.target == "dead"]
    assert all(o.status == "failed" for o in dead_ones)
    unasked = [o for o in dead_ones if o.attempts == 0]
    assert len(unasked) == health.unasked
    assert all("not asked" in (o.output.error or "") for o in unasked)
    assert runner.health["alive"].failed == 0  # the other target is not affected


def test_failures_with_successes_between_them_never_trip_the_breaker() -> None:
    calls: list[int] = []

    async def flaky(request: TargetRequest) -> str:
        calls.append(request.seed)
        if len(calls) % 2:
            raise TargetError("401 key refused", retryable=False, kind="auth")
        return '{"answer": "yes"}'

    config = ExecutionConfig(concurrency=1, retry=RetryPolicy(attempts=1))
    run = experiment([CallableTarget(flaky, name="flaky")], repetitions=4)
    runner = Runner()
    results = runner.run(run.__class__(**{**run.__dict__, "execution": config}))
    assert len(calls) == run.calls()
    assert runner.health["flaky"].stopped is None
    assert 0 < len(run_of(results).failed) < run.calls()


def test_identical_failures_of_the_request_never_trip_the_breaker() -> None:
    def refuses(request: TargetRequest) -> str:
        raise TargetError("400 this prompt is refused", retryable=False)

    runner = Runner()
    run = experiment([CallableTarget(refuses, name="strict")])
    runner.run(run)
    assert runner.health["strict"].stopped is None
    assert runner.health["strict"].unasked == 0


def test_the_breaker_can_be_turned_off() -> None:
    calls: list[int] = []

    def dead(request: TargetRequest) -> str:
        calls.append(request.seed)
        raise TargetError("connection refused", retryable=False, kind="connection")

    run = experiment([CallableTarget(dead, name="dead")])
    config = FAST.model_copy(update={"stop_after": None})
    Runner().run(run.__class__(**{**run.__dict__, "execution": config}))
    assert len(calls) == run.calls()


def test_requests_carry_their_repetition() -> None:
    def which(request: TargetRequest) -> str:
        return f"repetition {request.repetition}"

    run = experiment([CallableTarget(which, name="which")], repetitions=3)
    results = Runner().run(run)
    indexed = run_of(results)
    assert {o.repetition for o in indexed.observations} == {0, 1, 2}
    for observation in indexed.observations:
        assert observation.output.text == f"repetition {observation.repetition}"


def test_an_endpoint_that_never_answers_is_stopped_too() -> None:
    calls: list[int] = []

    async def blackhole(request: TargetRequest) -> str:
        calls.append(request.seed)
        await asyncio.Event().wait()
        return "never"

    run = experiment([CallableTarget(blackhole, name="hole")], repetitions=10)
    config = FAST.model_copy(update={"timeout": 0.05})
    runner = Runner()
    results = runner.run(run.__class__(**{**run.__dict__, "execution": config}))
    assert len(run_of(results).failed) == run.calls()
    assert len(calls) <= 10 + config.concurrency < run.calls()
    assert "timed out after 0.05 s" in (runner.health["hole"].stopped or "")
