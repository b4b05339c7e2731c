"""Hostile replies: arbitrary Unicode, huge bodies, endless Retry-After, oversized replies.

Every reply comes from a scripted server on 127.0.0.1 or from a ``python:`` style target; every
observation must be stored, and no wait may outlast the retry policy.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.execution.calls import call_with_retries
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets._cleaning import clean_text
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.targets.providers import HttpOptions
from modelscape.targets.providers.openai import OpenAICompatibleTarget
from modelscape.task.prompt import Prompt
from tests.support.mapping_space import FAST, experiment
from tests.targets.providers.fake_server import FakeProvider, chat_completion

REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?"), seed=42)
ANY_CHARACTER = st.one_of(
    st.characters(exclude_categories=()),  # surrogates included
    st.sampled_from(["\ud83d", "\ude00", "\x00", "\u202e", "\u200f", "\ufeff", "\\", '"']),
)


def echoing(text: str) -> CallableTarget:
    """A python target whose every text field, data included, is ``text``."""

    def reply(request: TargetRequest) -> TargetOutput:
        return TargetOutput(
            text=text, data={"reply": text, text: [text, 1]}, model=text, finish_reason=text
        )

    return CallableTarget(reply, name="python")


def run_and_check(server: FakeProvider, text: str, big: str | None = None) -> None:
    """Serve ``text`` (``big`` once) from both targets; every observation must be stored."""
    server.script.clear()
    server.respond = lambda received: chat_completion(text, model=text)
    if big is not None:
        server.then(body=chat_completion(big, model="big"))
    http = OpenAICompatibleTarget("fuzz", base_url=server.url, name="http")
    python = echoing(text)
    run = experiment([http, python], repetitions=1, cases=1)
    # What is stored is under test, not speed: FAST's 2 s timeout cut the 16 MB reply on a loaded
    # machine, and the retry then stored an ordinary one.
    run = dataclasses.replace(run, execution=FAST.model_copy(update={"timeout": 120.0}))
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "fuzz.db")
        Runner(store=store).run(run)
        assert store.status_counts(run.id) == {"ok": run.calls(), "failed": 0}
        store.close()
        reopened = SQLiteStore(Path(folder) / "fuzz.db")
        _, _, observations, _, _ = reopened.load(run.id)
        reopened.close()
    expected = clean_text(text)
    assert len(observations) == run.calls()
    bigs = [o for o in observations if o.output.model == "big"]
    assert len(bigs) == (big is not None)
    for observation in observations:
        output = observation.output
        if big is not None and output.model == "big":
            assert len(output.text) == len(big)
            assert output.text == clean_text(big)
            continue
        assert output.text == expected
        assert output.model == expected
        if observation.target == "python":
            assert output.data == {"reply": expected, expected: [expected, 1]}
            assert output.finish_reason == expected


def test_arbitrary_unicode_from_a_server_and_a_python_target_is_all_stored() -> None:
    server = FakeProvider().start()
    try:
        drawn: list[str] = []

        @given(st.text(ANY_CHARACTER, max_size=300))
        def check(text: str) -> None:
            drawn.append(text)
            run_and_check(server, text)

        check()
        assert drawn
        assert len(server.requests) >= len(drawn) * 5  # every example asked the server
        # The cases the issue named, whatever Hypothesis drew.
        for text in ["\ud83d", "a\x00b", "\u202eevil\u202c", "\ud83d\ude00", ""]:
            run_and_check(server, text)
    finally:
        server.stop()


def test_a_sixteen_megabyte_reply_with_hostile_characters_is_stored() -> None:
    unit = "x" * 60 + "\x00\u202e\ud83dé"
    big = unit * (16 * 1024 * 1024 // len(unit))
    server = FakeProvider().start()
    try:
        run_and_check(server, "small \ud83d", big=big)
    finally:
        server.stop()


def call(target: OpenAICompatibleTarget, config: ExecutionConfig) -> tuple[TargetOutput, bool, int]:
    async def go() -> tuple[TargetOutput, bool, int]:
        result = await call_with_retries(target, REQUEST, config, random.Random(0))
        return result.output, result.ok, result.attempts

    return asyncio.run(go())


@pytest.mark.parametrize("after", ["inf", "1e12", "Fri, 01 Jan 2100 00:00:00 GMT"])
def test_an_endless_retry_after_fails_the_observation_at_once(
    fake: FakeProvider, after: str
) -> None:
    for _ in range(3):
        fake.then(429, {"error": {"message": "slow down"}}, Retry_After=after)
    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=0.01, max_delay=0.05))
    output, ok, attempts = call(OpenAICompatibleTarget("m", base_url=fake.url), config)
    assert (ok, attempts, len(fake.requests)) == (False, 1, 1)
    assert output.error is not None
    assert output.error.startswith("openai-compatible answered HTTP 429: slow down; ")
    assert "(Retry-After), more than max_delay 0.05 s: not asked again in this run" in output.error


def test_a_retry_after_that_is_not_a_number_leaves_the_policys_backoff(
    fake: FakeProvider,
) -> None:
    from modelscape.targets.providers._http import parse_retry_after

    assert parse_retry_after({"Retry-After": "nan"}) is None
    assert parse_retry_after({"Retry-After": "inf"}) == float("inf")
    fake.then(429, "busy", Retry_After="nan")
    config = ExecutionConfig(retry=RetryPolicy(attempts=2, initial_delay=0.01, max_delay=0.05))
    assert call(OpenAICompatibleTarget("m", base_url=fake.url), config)[1]


def test_an_endless_retry_after_fails_one_observation_and_the_rest_are_asked(
    fake: FakeProvider,
) -> None:
    fake.then(429, "busy", Retry_After="inf")
    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=0.01, max_delay=0.05))
    run = experiment([OpenAICompatibleTarget("m", base_url=fake.url)], repetitions=1, cases=1)
    runner = Runner()
    results = runner.run(run.__class__(**{**run.__dict__, "execution": config}))
    indexed = run_of(results)
    (failed,) = indexed.failed
    assert failed.attempts == 1
    assert "HTTP 429: busy; the provider asks to wait inf s" in (failed.output.error or "")
    assert len(indexed.observations) == len(fake.requests) == run.calls()
    assert runner.health["m"].stopped is None


def test_a_wait_past_the_observations_deadline_ends_it(fake: FakeProvider) -> None:
    fake.then(429, "busy", Retry_After="20")
    config = ExecutionConfig(
        deadline=1.0, retry=RetryPolicy(attempts=4, initial_delay=0.01, max_delay=30)
    )
    output, ok, attempts = call(OpenAICompatibleTarget("m", base_url=fake.url), config)
    assert not ok
    assert attempts == 1
    assert output.error is not None
    assert "would pass the observation's deadline of 1 s" in output.error


def test_a_reply_over_the_size_limit_fails_at_once(fake: FakeProvider) -> None:
    fake.then(body=chat_completion("x" * 5000))
    target = OpenAICompatibleTarget(
        "m", base_url=fake.url, http=HttpOptions(max_response_bytes=1000)
    )
    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=0.01))
    output, ok, attempts = call(target, config)
    assert not ok
    assert attempts == 1
    assert "max_response_bytes 1,000" in (output.error or "")
    assert len(fake.requests) == 1


def test_a_compressed_reply_is_limited_by_its_unpacked_size(fake: FakeProvider) -> None:
    body = json.dumps(chat_completion("x" * 5_000_000)).encode()
    packed = gzip.compress(body)
    assert len(packed) < 100_000
    fake.then(body=packed, Content_Encoding="gzip", Content_Type="application/json")
    target = OpenAICompatibleTarget(
        "m", base_url=fake.url, http=HttpOptions(max_response_bytes=1_000_000)
    )
    output, ok, _ = call(target, ExecutionConfig(retry=RetryPolicy(attempts=1)))
    assert not ok
    assert "sent over 1,000,000 bytes" in (output.error or "")
    fake.then(body=packed, Content_Encoding="gzip", Content_Type="application/json")
    roomy = OpenAICompatibleTarget(
        "m", base_url=fake.url, http=HttpOptions(max_response_bytes=8_000_000)
    )
    output, ok, _ = call(roomy, ExecutionConfig(retry=RetryPolicy(attempts=1)))
    assert ok
    assert len(output.text) == 5_000_000
