"""A buffer holding ``FLUSH_SIZE`` outputs is written then, while the run goes on.

The timer flush is turned off here (an hour), so only a full buffer can store anything before
the run ends: once the third output (of a buffer of three) has arrived, the next call waits
until the store holds the three, and answers whether it saw them. A buffer written one output
late would leave it waiting for an output that never comes.
"""

from __future__ import annotations

import asyncio

import pytest

from modelscape.execution import buffer as write_buffer
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.runner import Runner
from modelscape.store.memory import MemoryStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest
from tests.support.mapping_space import scenario

SIZE = 3
#: How long a call waits for the store before it gives up (far longer than a write takes).
PATIENCE = 20.0


def test_a_full_buffer_is_stored_before_the_next_output_arrives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(write_buffer, "FLUSH_SIZE", SIZE)
    monkeypatch.setattr(write_buffer, "FLUSH_INTERVAL", 3600)
    store = MemoryStore()
    answered: list[int] = []
    seen: list[int] = []

    async def answer(request: TargetRequest) -> TargetOutput:
        if len(answered) == SIZE:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + PATIENCE
            while store.status_counts(run.id)["ok"] < SIZE and loop.time() < deadline:
                await asyncio.sleep(0.01)
            seen.append(store.status_counts(run.id)["ok"])
        answered.append(request.seed)
        return TargetOutput(text="yes")

    run = scenario(2, 2).experiment(
        [CallableTarget(answer, name="t")],
        ExecutionConfig(concurrency=1, timeout=60.0, retry=RetryPolicy(attempts=1)),
    )
    assert run.calls() > SIZE + 1
    Runner(store=store).run(run)
    assert seen == [SIZE]
    assert store.status_counts(run.id) == {"ok": run.calls(), "failed": 0}
