"""CallableTarget: sync and async functions returning text, JSON or a TargetOutput."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import Target, TargetError, TargetOutput, TargetRequest
from modelscape.task.prompt import Prompt

REQUEST = TargetRequest(prompt=Prompt.of("What is 2 + 2?"), seed=7)


def call(target: CallableTarget) -> TargetOutput:
    return asyncio.run(target(REQUEST))


def test_sync_text_runs_in_a_worker_thread() -> None:
    seen: list[str] = []

    def reply(request: TargetRequest) -> str:
        seen.append(threading.current_thread().name)
        return f"four (seed {request.seed})"

    output = call(CallableTarget(reply, name="sync"))
    assert output.text == "four (seed 7)"
    assert output.data is None
    assert seen[0] != threading.main_thread().name


def test_async_json_becomes_data_and_text() -> None:
    async def reply(request: TargetRequest) -> dict[str, object]:
        return {"answer": 4, "why": "arithmetic"}

    output = call(CallableTarget(reply, name="async"))
    assert output.data == {"answer": 4, "why": "arithmetic"}
    assert output.text == '{"answer": 4, "why": "arithmetic"}'


def test_list_is_json_too() -> None:
    output = call(CallableTarget(lambda request: [1, 2], name="list"))
    assert output.data == [1, 2]
    assert output.text == "[1, 2]"


def test_target_output_is_kept_and_its_latency_respected() -> None:
    given = TargetOutput(text="4", model="m-2024", latency=1.5)
    output = call(CallableTarget(lambda request: given, name="full"))
    assert output.model == "m-2024"
    assert output.latency == 1.5


def test_latency_is_measured_when_not_reported() -> None:
    def slow(request: TargetRequest) -> str:
        time.sleep(0.05)
        return "done"

    output = call(CallableTarget(slow, name="slow"))
    assert output.latency is not None
    assert output.latency >= 0.04


def test_async_callable_object() -> None:
    class Model:
        async def __call__(self, request: TargetRequest) -> str:
            await asyncio.sleep(0)
            return "object"

    assert call(CallableTarget(Model(), name="object")).text == "object"


def test_wrong_return_type_is_a_non_retryable_target_error() -> None:
    with pytest.raises(TargetError, match="returned int") as caught:
        call(CallableTarget(lambda request: 42, name="bad"))
    assert caught.value.retryable is False


def test_identity_names_settings_not_credentials() -> None:
    target = CallableTarget(
        lambda request: "x", name="model", version="2", parameters={"temperature": 0.0}
    )
    assert isinstance(target, Target)
    assert target.identity.name == "model"
    assert target.identity.version == "2"
    assert target.identity.parameters == {"temperature": 0.0}
    same = CallableTarget(
        lambda request: "y", name="model", version="2", parameters={"temperature": 0.0}
    )
    assert same.identity.id == target.identity.id
    other = CallableTarget(lambda request: "x", name="model", version="3")
    assert other.identity.id != target.identity.id


def test_not_a_function_is_refused() -> None:
    with pytest.raises(TypeError):
        CallableTarget("gpt", name="x")  # type: ignore[arg-type]


def test_many_sync_calls_run_concurrently() -> None:
    # More than asyncio's default executor would run at once on a small machine: no call
    # returns until all 32 are waiting together, which they can only do in 32 threads.
    together = threading.Barrier(32)

    def waits_for_all(request: TargetRequest) -> str:
        together.wait(timeout=60)  # a broken barrier (too few threads) fails the call
        return "ok"

    target = CallableTarget(waits_for_all, name="together")

    async def main() -> list[TargetOutput]:
        return await asyncio.gather(*(target(REQUEST) for _ in range(32)))

    assert [o.text for o in asyncio.run(main())] == ["ok"] * 32


def test_closing_shuts_the_worker_threads_down() -> None:
    target = CallableTarget(lambda request: threading.current_thread().name, name="threads")

    async def main() -> None:
        async with target:
            assert (await target(REQUEST)).text.startswith("modelscape-target")
            pool = target._pool
            assert pool is not None
            workers = list(pool._threads)
        assert target._pool is None  # closed when the target was left
        for worker in workers:
            worker.join(timeout=60)
            assert not worker.is_alive()
        assert (await target(REQUEST)).text  # a call after closing starts a new pool
        await target.aclose()

    asyncio.run(main())
