"""CallableTarget: sync and async functions returning text, JSON or a TargetOutput."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from modelscape.execution.callable import CallableTarget
from modelscape.target import Target, TargetError, TargetOutput, TargetRequest
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
    # More than asyncio's default executor would run at once on a small machine.
    def slow(request: TargetRequest) -> str:
        time.sleep(0.2)
        return "ok"

    target = CallableTarget(slow, name="slow")

    async def main() -> float:
        start = time.perf_counter()
        await asyncio.gather(*(target(REQUEST) for _ in range(32)))
        return time.perf_counter() - start

    assert asyncio.run(main()) < 1.0
