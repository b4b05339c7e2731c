"""The runner opens every target of a run before the first call and closes it after the last,
also when the run fails or is cancelled; objects without a lifecycle are used as they are."""

from __future__ import annotations

import asyncio

import pytest

from modelscape._identity import Identity, JsonValue
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.store.memory import MemoryStore
from modelscape.targets.protocol import IdentifiedTarget, Target, TargetOutput, TargetRequest
from tests.support.mapping_space import experiment


class Recorded(IdentifiedTarget):
    """Writes down when it is opened, called and closed."""

    def __init__(self, name: str, events: list[str], *, refuse: bool = False) -> None:
        self._identity = Identity(kind="target", name=name, version="1", parameters={})
        self.events = events
        self.refuse = refuse

    async def __aenter__(self) -> Recorded:
        self.events.append(f"open {self.name}")
        if self.refuse:
            raise RuntimeError(f"{self.name} cannot open")
        return self

    async def aclose(self) -> None:
        self.events.append(f"close {self.name}")

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        self.events.append(f"call {self.name}")
        return TargetOutput(text="yes")


class Plain:
    """A user's own target: the protocol, and nothing else."""

    def __init__(self, name: str, events: list[str]) -> None:
        self.identity = Identity(kind="target", name=name, version="1", parameters={})
        self.name = name
        self.version = "1"
        self.parameters: dict[str, JsonValue] = {}
        self.events = events

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        self.events.append(f"call {self.name}")
        return TargetOutput(text="no")


class ClosesOnly(Plain):
    """A user's target with ``aclose`` but no ``async with``."""

    async def aclose(self) -> None:
        self.events.append(f"close {self.name}")


def test_targets_are_open_for_every_call_and_closed_after_the_last() -> None:
    events: list[str] = []
    first, second = Recorded("first", events), Recorded("second", events)
    plain, closes = Plain("plain", events), ClosesOnly("closes", events)
    assert isinstance(plain, Target)
    run = experiment([first, plain, second, closes])
    results = Runner(store=MemoryStore()).run(run)
    assert all(o.status == "ok" for o in run_of(results).observations)
    calls = [e for e in events if e.startswith("call")]
    assert len(calls) == run.calls()
    assert events[:2] == ["open first", "open second"]  # before any call
    # After the last call, in the reverse order of opening.
    assert events[-3:] == ["close closes", "close second", "close first"]
    assert events.count("close first") == 1


def test_targets_opened_before_a_failure_are_closed() -> None:
    events: list[str] = []
    first, refusing = Recorded("first", events), Recorded("refusing", events, refuse=True)
    with pytest.raises(RuntimeError, match="refusing cannot open"):
        Runner(store=MemoryStore()).run(experiment([first, refusing]))
    assert events == ["open first", "open refusing", "close first"]  # and no call was made


def test_a_cancelled_run_closes_its_targets() -> None:
    events: list[str] = []

    class Hanging(Recorded):
        async def __call__(self, request: TargetRequest) -> TargetOutput:
            called.set()
            await asyncio.Event().wait()  # never answers
            raise AssertionError("unreachable")

    called = asyncio.Event()
    target = Hanging("hanging", events)

    async def main() -> None:
        run = asyncio.create_task(Runner(store=MemoryStore()).arun(experiment([target])))
        await called.wait()
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(main())
    assert events == ["open hanging", "close hanging"]


def test_one_target_given_twice_is_opened_once() -> None:
    events: list[str] = []
    target = Recorded("twice", events)

    async def main() -> None:
        from modelscape.targets._lifecycle import opened

        async with opened([target, target]):
            assert events == ["open twice"]

    asyncio.run(main())
    assert events == ["open twice", "close twice"]
