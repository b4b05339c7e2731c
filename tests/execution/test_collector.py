"""The collector during a run: thresholds raised while it runs and put back after, full
collections rare, a user's own setting kept."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from modelscape._collector import RUN_THRESHOLDS, paced_collector
from modelscape.errors import ExecutionError
from modelscape.execution.runner import Runner
from modelscape.measures import CallableMetric
from modelscape.store.memory import MemoryStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest
from tests.support.mapping_space import experiment, planted

DEFAULTS = (700, 10, 10)


@pytest.fixture(autouse=True)
def defaults() -> Iterator[None]:
    """Every test starts from CPython's default thresholds and leaves the process as it was."""
    kept = gc.get_threshold()
    gc.set_threshold(*DEFAULTS)
    try:
        yield
    finally:
        gc.set_threshold(*kept)


def _recording(seen: list[tuple[int, ...]]) -> CallableTarget:
    def answer(request: TargetRequest) -> str:
        seen.append(gc.get_threshold())
        return '{"answer": "yes"}'

    return CallableTarget(answer, name="recording")


def test_a_run_raises_the_thresholds_while_it_runs_and_puts_them_back() -> None:
    seen: list[tuple[int, ...]] = []
    run = experiment([_recording(seen)])
    Runner().run(run)
    assert len(seen) == run.calls()
    assert set(seen) == {RUN_THRESHOLDS}
    assert gc.get_threshold() == DEFAULTS


def test_the_thresholds_are_put_back_when_a_run_fails() -> None:
    def broken(variant: object, output: TargetOutput) -> float:
        raise ValueError("bad metric")

    run = dataclasses.replace(
        experiment([planted()]), point_metrics=(CallableMetric(broken, name="broken"),)
    )
    with pytest.raises(ExecutionError, match="measure 'broken' failed"):
        Runner(store=MemoryStore()).run(run)
    assert gc.get_threshold() == DEFAULTS


def test_overlapping_runs_share_one_raise_undone_by_the_last() -> None:
    short: list[tuple[int, ...]] = []
    long: list[tuple[int, ...]] = []
    first_done = asyncio.Event()

    async def slow(request: TargetRequest) -> str:
        await first_done.wait()  # every call of this run is made after the other run ended
        long.append(gc.get_threshold())
        return '{"answer": "no"}'

    async def both() -> None:
        async def first() -> None:
            await Runner().arun(experiment([_recording(short)]))
            first_done.set()

        await asyncio.gather(first(), Runner().arun(experiment([CallableTarget(slow, name="s")])))

    asyncio.run(both())
    assert short
    assert long
    assert set(short) == set(long) == {RUN_THRESHOLDS}
    assert gc.get_threshold() == DEFAULTS


def test_runs_in_threads_put_the_thresholds_back_once_all_end() -> None:
    entered = threading.Barrier(3)
    leave = [threading.Event() for _ in range(3)]

    def run(index: int) -> None:
        with paced_collector():
            entered.wait()
            leave[index].wait()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for index, thread in enumerate(threads):
        assert gc.get_threshold() == RUN_THRESHOLDS  # raised while any run is going
        leave[index].set()
        thread.join()
    assert gc.get_threshold() == DEFAULTS


@pytest.mark.parametrize(
    ("mine", "during"),
    [
        ((0, 10, 10), (0, 10, 10)),  # automatic collection switched off: left off
        ((50_000, 5, 200), (50_000, 10, 200)),  # higher ones are kept, lower ones raised
    ],
)
def test_a_users_own_setting_is_respected_and_restored(
    mine: tuple[int, int, int], during: tuple[int, int, int]
) -> None:
    gc.set_threshold(*mine)
    with paced_collector():
        assert gc.get_threshold() == during
    assert gc.get_threshold() == mine


def test_a_run_of_thousands_of_observations_makes_no_full_collection() -> None:
    # With the default thresholds this run made several full collections, each walking every
    # object of the process, and young collections every few dozen observations.
    counts: Counter[int] = Counter()

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            counts[info["generation"]] += 1

    run = experiment([planted("a"), planted("b")], repetitions=2, cases=400)
    gc.collect()
    gc.callbacks.append(count)
    try:
        Runner(store=MemoryStore()).run(run)
    finally:
        gc.callbacks.remove(count)
    assert run.calls() == 8000
    assert counts[2] == 0
    assert counts[0] + counts[1] < run.calls() / 100
