"""The Anthropic messages-API target against a scripted loopback server."""

from __future__ import annotations

import asyncio
import random

import pytest

from modelscape.errors import ExecutionError
from modelscape.execution.calls import call_with_retries
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers.anthropic import ANTHROPIC_VERSION, AnthropicTarget
from modelscape.task.prompt import Message, Prompt
from tests.targets.providers.fake_server import FakeProvider

PROMPT = Prompt(
    system="Answer briefly.",
    messages=(
        Message(role="user", content="Is 7 prime?"),
        Message(role="assistant", content="Yes."),
        Message(role="user", content="Are you sure?"),
    ),
)
REQUEST = TargetRequest(prompt=PROMPT, seed=42)


def ask(target: AnthropicTarget) -> TargetOutput:
    return asyncio.run(target(REQUEST))


def test_the_request_follows_the_messages_api(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    target = AnthropicTarget(
        "claude-x",
        base_url=fake.root,
        generation=Generation(temperature=0.2, max_tokens=50, stop=["END"]),
    )
    ask(target)
    (received,) = fake.requests
    assert received.path == "/v1/messages"
    assert received.headers["x-api-key"] == "sk-ant-test"
    assert received.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert received.body == {
        "model": "claude-x",
        "max_tokens": 50,
        "system": "Answer briefly.",
        "messages": [
            {"role": "user", "content": "Is 7 prime?"},
            {"role": "assistant", "content": "Yes."},
            {"role": "user", "content": "Are you sure?"},
        ],
        "temperature": 0.2,
        "stop_sequences": ["END"],
    }


def test_the_reply_is_read_with_model_usage_and_stop_reason(fake: FakeProvider) -> None:
    fake.then(
        body={
            "model": "claude-x-20250101",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Yes, "},
                {"type": "text", "text": "seven is prime."},
            ],
            "stop_reason": "max_tokens",
            "usage": {"input_tokens": 20, "output_tokens": 7},
        }
    )
    output = ask(AnthropicTarget("claude-x", base_url=fake.root))
    assert output.text == "Yes, seven is prime."
    assert output.model == "claude-x-20250101"
    assert output.usage is not None
    assert output.usage.output_tokens == 7
    assert output.finish_reason == "max_tokens"
    assert output.latency is not None


def test_max_tokens_has_a_default_in_the_identity(fake: FakeProvider) -> None:
    target = AnthropicTarget("claude-x", base_url=fake.root)
    ask(target)
    assert fake.requests[0].body["max_tokens"] == 1024
    assert target.parameters["max_tokens"] == 1024
    assert "seed" not in target.parameters
    assert target.parameters["api_version"] == ANTHROPIC_VERSION


def test_errors_are_classified(fake: FakeProvider) -> None:
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad model"}}
    fake.then(529, {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
    fake.then(400, error)
    config = ExecutionConfig(retry=RetryPolicy(attempts=4, initial_delay=0.01))

    async def go() -> tuple[TargetOutput, int]:
        target = AnthropicTarget("claude-x", base_url=fake.root)
        result = await call_with_retries(target, REQUEST, config, random.Random(0))
        return result.output, result.attempts

    output, attempts = asyncio.run(go())
    assert attempts == 2  # 529 retried, then 400 stopped at once
    assert output.error == "anthropic answered HTTP 400: bad model"


def test_a_hosted_api_needs_its_key_before_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ExecutionError, match="set the environment variable ANTHROPIC_API_KEY"):
        AnthropicTarget("claude-x")


def test_a_key_echoed_in_an_error_is_scrubbed(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-77")
    fake.then(401, {"error": {"message": "invalid x-api-key sk-ant-secret-77"}})
    from modelscape.targets.protocol import TargetError

    with pytest.raises(TargetError) as raised:
        ask(AnthropicTarget("claude-x", base_url=fake.root))
    assert "sk-ant-secret-77" not in str(raised.value)
    assert "[key]" in str(raised.value)
    assert not raised.value.retryable
