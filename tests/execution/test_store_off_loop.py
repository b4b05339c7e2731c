"""The runner keeps blocking store calls off its event loop: while any store call blocks, the
loop goes on serving (here, a heartbeat task keeps ticking)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from typing import Any

from modelscape.execution.runner import Runner
from modelscape.measures import CallableDifference, Response
from modelscape.store import Leasing, MemoryStore, Store
from tests.support.mapping_space import experiment, planted

# A store call waits for this many heartbeats before it returns; a call made on the loop would
# never see one, so it gives up after the timeout and is reported as blocking the loop.
_BEATS = 2
_GIVE_UP = 10.0


class Heartbeat:
    """Ticks counted from a task on the loop; other threads can wait for more of them."""

    def __init__(self) -> None:
        self.ticks = 0
        self.changed = threading.Condition()
        self.loop_thread: int | None = None

    async def beat(self) -> None:
        self.loop_thread = threading.get_ident()
        while True:
            await asyncio.sleep(0.001)
            with self.changed:
                self.ticks += 1
                self.changed.notify_all()

    def wait_for_ticks(self, count: int) -> bool:
        """Whether the loop ticks ``count`` more times while this thread blocks."""
        with self.changed:
            goal = self.ticks + count
            return self.changed.wait_for(lambda: self.ticks >= goal, timeout=_GIVE_UP)


class BlockingStore:
    """A store whose every call blocks until the loop's heartbeat has ticked, recording which
    calls were made from the loop's own thread (those could never see a tick)."""

    def __init__(self, inner: MemoryStore, heartbeat: Heartbeat) -> None:
        self.inner = inner
        self.heartbeat = heartbeat
        self.calls: list[str] = []
        self.on_loop: list[str] = []
        self.stalled: list[str] = []

    def _block(self, name: str) -> None:
        self.calls.append(name)
        if threading.get_ident() == self.heartbeat.loop_thread:
            self.on_loop.append(name)  # waiting here would only stall the loop until timeout
        elif not self.heartbeat.wait_for_ticks(_BEATS):
            self.stalled.append(name)

    def close(self) -> None:
        self.inner.close()


def _blocking(name: str) -> Callable[..., Any]:
    """A method of the wrapper that blocks, then calls the inner store's method ``name``."""

    def call(self: BlockingStore, *args: Any, **kwargs: Any) -> Any:
        self._block(name)
        return getattr(self.inner, name)(*args, **kwargs)

    call.__name__ = name
    return call


# Every method of the store protocols, written out so that isinstance() finds them on the class.
for _name in (
    "save_experiment",
    "save_observations",
    "save_measurements",
    "observations",
    "measured",
    "measurement_ids",
    "status_counts",
    "experiments",
    "load",
    "claim",
    "release",
):
    setattr(BlockingStore, _name, _blocking(_name))


def _differs(first: Response, second: Response) -> float:
    return float(first.output.text != second.output.text)


def _run(store: BlockingStore, heartbeat: Heartbeat) -> None:
    base = experiment([planted("a"), planted("b")], repetitions=2)
    measures = (*base.difference_measures, CallableDifference(_differs, name="differs"))
    run = dataclasses.replace(base, difference_measures=measures)

    async def main() -> None:
        beating = asyncio.create_task(heartbeat.beat())
        await asyncio.sleep(0)  # the heartbeat knows its thread before the run starts
        try:
            await Runner(store=store).arun(run)
        finally:
            beating.cancel()

    asyncio.run(main())


def test_the_wrapper_is_a_leasing_store() -> None:
    store = BlockingStore(MemoryStore(), Heartbeat())
    assert isinstance(store, Store)
    assert isinstance(store, Leasing)


def test_the_loop_keeps_ticking_while_every_store_call_blocks() -> None:
    heartbeat = Heartbeat()
    store = BlockingStore(MemoryStore(), heartbeat)
    _run(store, heartbeat)  # a fresh run
    _run(store, heartbeat)  # a rerun: reuses every output and loads the run back
    made = set(store.calls)
    # Every kind of call a run makes was seen: writes, leases, lookups, measuring, the load.
    expected = {"save_experiment", "observations", "claim", "release", "save_observations"}
    expected |= {"save_measurements", "measured", "measurement_ids", "load"}
    assert expected <= made
    assert store.on_loop == []
    assert store.stalled == []
