"""A local model's calls wait in line for the one model, and that wait is no part of their timeout.

The model is a stand-in for llama-cpp-python, put in ``sys.modules`` for the test: a ``Llama``
whose generation sleeps for as long as its prompt says (``sleep 0.3``), as a real model holds
its thread for as long as it generates. It records how many generations ran at once, which
must never be more than one. Calls go through the runner's own call (``call_with_retries``)
with one attempt, so that a timed-out call is reported rather than retried.
"""

from __future__ import annotations

import asyncio
import importlib.machinery
import random
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest

from modelscape.execution.calls import CallResult, call_with_retries
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.targets.protocol import TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers.llama import LlamaCppTarget
from modelscape.task.prompt import Prompt


class _SlowModel:
    """Generates for the seconds its last message names, one generation at a time or it says so."""

    running = 0
    most_at_once = 0
    lock = threading.Lock()

    def __init__(self, **settings: Any) -> None:
        self.settings = settings

    def reset(self) -> None:
        pass

    def create_chat_completion(self, messages: list[dict[str, str]], **_: Any) -> dict[str, Any]:
        seconds = float(messages[-1]["content"].removeprefix("sleep "))
        with _SlowModel.lock:
            _SlowModel.running += 1
            _SlowModel.most_at_once = max(_SlowModel.most_at_once, _SlowModel.running)
        time.sleep(seconds)
        with _SlowModel.lock:
            _SlowModel.running -= 1
        return {
            "choices": [{"message": {"content": f"slept {seconds}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 2, "completion_tokens": 2},
        }


@pytest.fixture
def target(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> LlamaCppTarget:
    """A llama-cpp target over the slow stand-in model."""
    fake = types.ModuleType("llama_cpp")
    fake.__spec__ = importlib.machinery.ModuleSpec("llama_cpp", None)
    fake.__version__ = "0-stand-in"  # type: ignore[attr-defined]
    fake.Llama = _SlowModel  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llama_cpp", fake)
    monkeypatch.setattr(_SlowModel, "running", 0)
    monkeypatch.setattr(_SlowModel, "most_at_once", 0)
    model = tmp_path / "stand-in.gguf"
    model.write_bytes(b"GGUF" + bytes(64))
    return LlamaCppTarget(model, generation=Generation(max_tokens=4))


def _calls(target: LlamaCppTarget, seconds: list[float], timeout: float) -> list[CallResult]:
    """Ask ``target`` one call per entry of ``seconds`` at once, each generating that long."""
    config = ExecutionConfig(
        concurrency=len(seconds), timeout=timeout, deadline=60, retry=RetryPolicy(attempts=1)
    )

    async def ask() -> list[CallResult]:
        try:
            return await asyncio.gather(
                *(
                    call_with_retries(
                        target,
                        TargetRequest(prompt=Prompt.of(f"sleep {each}"), seed=index),
                        config,
                        random.Random(index),
                    )
                    for index, each in enumerate(seconds)
                )
            )
        finally:
            await target.aclose()

    return asyncio.run(ask())


def test_calls_queued_for_the_model_are_not_timed_out_for_the_wait(
    target: LlamaCppTarget,
) -> None:
    # Eight calls of 0.3 s each, one at a time: the last waits 2.1 s, more than twice the
    # timeout, and generates well within it.
    results = _calls(target, [0.3] * 8, timeout=1.0)
    assert [result.output.error for result in results] == [None] * 8
    assert [result.output.text for result in results] == ["slept 0.3"] * 8
    assert _SlowModel.most_at_once == 1


def test_a_generation_longer_than_the_timeout_still_times_out(target: LlamaCppTarget) -> None:
    results = _calls(target, [1.2, 1.2], timeout=0.5)
    assert [result.output.error for result in results] == ["timed out after 0.5 s"] * 2


def test_a_call_waits_for_a_timed_out_generation_without_being_timed_out(
    target: LlamaCppTarget,
) -> None:
    # The first call is timed out at 0.5 s, and its generation runs on to 1.2 s in the
    # model's thread; the second waits for it, then generates in 0.1 s.
    slow, quick = _calls(target, [1.2, 0.1], timeout=0.5)
    assert slow.output.error == "timed out after 0.5 s"
    assert quick.output.error is None
    assert quick.output.text == "slept 0.1"
    assert _SlowModel.most_at_once == 1
