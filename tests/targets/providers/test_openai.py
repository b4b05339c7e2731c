"""The OpenAI-compatible target against a scripted loopback server: requests, replies, errors."""

from __future__ import annotations

import asyncio
import random

import pytest

from modelscape.execution.calls import call_with_retries
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.results.results import run_of
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers.openai import OpenAICompatibleTarget
from modelscape.task.prompt import Prompt
from tests.targets.providers.fake_server import FakeProvider, chat_completion
from tests.targets.providers.loopback import free_port

REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?", system="Answer briefly."), seed=42)


def ask(target: OpenAICompatibleTarget, request: TargetRequest = REQUEST) -> TargetOutput:
    return asyncio.run(target(request))


def call(target: OpenAICompatibleTarget, config: ExecutionConfig) -> tuple[TargetOutput, bool, int]:
    async def go() -> tuple[TargetOutput, bool, int]:
        result = await call_with_retries(target, REQUEST, config, random.Random(0))
        return result.output, result.ok, result.attempts

    return asyncio.run(go())


def test_the_request_carries_prompt_parameters_and_seed(fake: FakeProvider) -> None:
    target = OpenAICompatibleTarget(
        "gemma",
        base_url=fake.url,
        generation=Generation(temperature=0.7, max_tokens=64, top_p=0.9, stop=["\n\n"]),
    )
    ask(target)
    (received,) = fake.requests
    assert received.path == "/v1/chat/completions"
    assert received.body == {
        "model": "gemma",
        "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Is 7 prime?"},
        ],
        "temperature": 0.7,
        "max_tokens": 64,
        "top_p": 0.9,
        "seed": 42,
        "stop": ["\n\n"],
    }
    assert "Authorization" not in received.headers  # loopback, no key named: none sent


def test_unset_parameters_are_left_to_the_server(fake: FakeProvider) -> None:
    ask(OpenAICompatibleTarget("gemma", base_url=fake.url, generation=Generation(seed=False)))
    assert set(fake.requests[0].body) == {"model", "messages"}


def test_the_output_records_model_usage_finish_reason_and_latency(fake: FakeProvider) -> None:
    fake.then(body=chat_completion("Yes.", model="gemma-3-270m-it-q4"), delay=0.05)
    output = ask(OpenAICompatibleTarget("gemma", base_url=fake.url))
    assert output.text == "Yes."
    assert output.model == "gemma-3-270m-it-q4"
    assert output.usage is not None
    assert (output.usage.input_tokens, output.usage.output_tokens) == (12, 5)
    assert output.finish_reason == "stop"
    assert output.latency is not None
    assert 0.05 <= output.latency < 2


def test_identity_holds_what_shapes_replies_and_never_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret")
    target = OpenAICompatibleTarget(
        "gemma",
        base_url="http://127.0.0.1:9/v1/",
        name="g",
        api_key_env="MY_KEY",
        generation=Generation(temperature=0.5),
    )
    assert target.name == "g"
    assert target.parameters == {
        "provider": "openai-compatible",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "gemma",
        "temperature": 0.5,
        "max_tokens": None,
        "top_p": None,
        "seed": True,
        "stop": None,
    }
    assert "sk-secret" not in repr(target)
    assert "MY_KEY" not in target.identity.model_dump_json()
    other = OpenAICompatibleTarget(
        "gemma", base_url="http://127.0.0.1:9/v1", name="g", generation=Generation(temperature=0.6)
    )
    assert other.identity.id != target.identity.id


def test_the_key_is_read_at_each_call(fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "first")
    target = OpenAICompatibleTarget("gemma", base_url=fake.url, api_key_env="MY_KEY")
    ask(target)
    monkeypatch.setenv("MY_KEY", "second")
    ask(target)
    assert [r.headers["Authorization"] for r in fake.requests] == ["Bearer first", "Bearer second"]


def test_429_is_retried_after_the_providers_retry_after(fake: FakeProvider) -> None:
    fake.then(429, {"error": {"message": "slow down"}}, Retry_After="0.4")
    # The policy's own backoff would wait 30 s, past the observation's deadline of 20 s, and
    # the call would end at once after one attempt: a second attempt shows Retry-After was used.
    config = ExecutionConfig(
        deadline=20, retry=RetryPolicy(attempts=3, initial_delay=30, max_delay=30)
    )
    output, ok, attempts = call(OpenAICompatibleTarget("gemma", base_url=fake.url), config)
    assert ok, output.error
    assert attempts == 2
    assert output.text
    # It waited at least the 0.4 s asked for (a lower bound only: no machine is too fast).
    assert fake.requests[1].at - fake.requests[0].at >= 0.4


def test_retry_after_as_an_http_date(fake: FakeProvider) -> None:
    fake.then(429, "busy", Retry_After="Wed, 21 Oct 2015 07:28:00 GMT")  # past: no wait
    config = ExecutionConfig(retry=RetryPolicy(attempts=2, initial_delay=30, max_delay=30))
    assert call(OpenAICompatibleTarget("gemma", base_url=fake.url), config)[1]


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_retried(fake: FakeProvider, status: int) -> None:
    fake.then(status, {"error": {"message": "upstream died"}})
    fake.then(status, "<html>bad gateway</html>")
    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=0.01))
    _output, ok, attempts = call(OpenAICompatibleTarget("gemma", base_url=fake.url), config)
    assert ok
    assert attempts == 3
    assert len(fake.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_fail_at_once_with_the_providers_message(
    fake: FakeProvider, status: int
) -> None:
    fake.then(status, {"error": {"message": "model 'gemma' does not exist", "type": "invalid"}})
    config = ExecutionConfig(retry=RetryPolicy(attempts=4, initial_delay=0.01))
    output, ok, attempts = call(OpenAICompatibleTarget("gemma", base_url=fake.url), config)
    assert not ok
    assert attempts == 1
    assert len(fake.requests) == 1
    assert output.error is not None
    assert f"HTTP {status}" in output.error
    assert "model 'gemma' does not exist" in output.error


def test_a_slow_server_times_out_and_is_retried(fake: FakeProvider) -> None:
    fake.delay = 2.0
    config = ExecutionConfig(timeout=0.2, retry=RetryPolicy(attempts=2, initial_delay=0.01))
    output, ok, attempts = call(OpenAICompatibleTarget("gemma", base_url=fake.url), config)
    assert not ok
    assert attempts == 2
    assert len(fake.requests) == 2
    assert output.error is not None
    assert "timed out" in output.error


def test_a_slow_call_then_a_fast_one_succeeds(fake: FakeProvider) -> None:
    fake.then(delay=2.0)
    config = ExecutionConfig(timeout=0.3, retry=RetryPolicy(attempts=2, initial_delay=0.01))
    assert call(OpenAICompatibleTarget("gemma", base_url=fake.url), config)[1]


def test_connection_errors_are_retried() -> None:
    target = OpenAICompatibleTarget("gemma", base_url=f"http://127.0.0.1:{free_port()}/v1")
    with pytest.raises(TargetError) as raised:
        ask(target)
    assert raised.value.retryable
    assert "ClientConnectorError" in str(raised.value)
    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=0.01))
    output, ok, attempts = call(target, config)
    assert not ok
    assert attempts == 3
    assert output.error is not None


@pytest.mark.parametrize(
    ("body", "retryable"),
    [("<html>proxy page</html>", True), ({"error": {"message": "overloaded"}}, True), ({}, True)],
)
def test_a_200_that_is_not_a_reply_is_retryable(
    fake: FakeProvider, body: object, retryable: bool
) -> None:
    fake.then(200, body)
    with pytest.raises(TargetError) as raised:
        ask(OpenAICompatibleTarget("gemma", base_url=fake.url))
    assert raised.value.retryable is retryable


def test_content_parts_and_missing_usage_are_read(fake: FakeProvider) -> None:
    reply = chat_completion()
    reply["choices"][0]["message"]["content"] = [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b"},
    ]
    del reply["usage"]
    fake.then(body=reply)
    output = ask(OpenAICompatibleTarget("gemma", base_url=fake.url))
    assert output.text == "ab"
    assert output.usage is None


def test_base_urls_with_credentials_are_refused() -> None:
    from modelscape.errors import ExecutionError

    with pytest.raises(ExecutionError, match="carries credentials"):
        OpenAICompatibleTarget("m", base_url="http://user:sk-1@127.0.0.1:8080/v1")
    with pytest.raises(ExecutionError, match="not an http"):
        OpenAICompatibleTarget("m", base_url="ftp://127.0.0.1/v1")


def test_targets_open_together_share_one_session_closed_by_the_last(fake: FakeProvider) -> None:
    first = OpenAICompatibleTarget("a", base_url=fake.url)
    second = OpenAICompatibleTarget("b", base_url=fake.url)

    async def go() -> None:
        async with first, second:
            session = first._session
            assert session is not None
            assert second._session is session
            await first(REQUEST)
            await second(REQUEST)
            await first.aclose()  # one target leaving keeps the other's session open
            assert not session.closed
            await second(REQUEST)
        assert session.closed  # the last one out closed it
        assert first._session is None
        assert second._session is None
        await first(REQUEST)  # called without being open: a session for that call alone
        async with first:
            assert first._session is not session  # a fresh pool for the next run
            await first(REQUEST)

    asyncio.run(go())  # nothing is left open when the loop closes: no ResourceWarning
    assert len(fake.requests) == 5


def test_the_targets_of_a_run_reuse_one_connection(fake: FakeProvider) -> None:
    from modelscape.execution.runner import Runner
    from modelscape.store.memory import MemoryStore
    from tests.support.mapping_space import scenario  # the shared task space (see conftest.py)

    first = OpenAICompatibleTarget("a", base_url=fake.url)
    second = OpenAICompatibleTarget("b", base_url=fake.url)
    # One call at a time, so that a kept-alive connection is always free for the next call.
    run = scenario(cases=1, repetitions=2).experiment(
        [first, second], ExecutionConfig(concurrency=1)
    )
    results = Runner(store=MemoryStore()).run(run)
    assert all(o.status == "ok" for o in run_of(results).observations)
    assert {r.body["model"] for r in fake.requests} == {"a", "b"}
    assert len({r.peer for r in fake.requests}) == 1  # both targets, one pooled connection
    assert first._session is None  # the run closed what it opened
    assert second._session is None
