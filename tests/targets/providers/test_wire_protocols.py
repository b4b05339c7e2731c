"""What every hosted provider does alike, checked against a loopback fake of each wire protocol:
replies read, errors classified, Retry-After honoured, secrets kept out of every text, hostile
replies stored, one pooled session per run, and each kind registered by name."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from modelscape.errors import ExecutionError
from modelscape.execution.calls import call_with_retries
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._cleaning import clean_text
from modelscape.targets._resolve import resolve_target
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers._http import HttpTarget
from modelscape.targets.registry import find_provider, provider_kinds
from modelscape.task.prompt import Prompt
from tests.support.mapping_space import experiment
from tests.targets.providers.wire import PROTOCOLS, REPLY, SECRET, Protocol, Seen, WireServer

REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?", system="Answer briefly."), seed=42)
KINDS = sorted(PROTOCOLS)


@pytest.fixture(params=KINDS)
def protocol(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Protocol:
    """Each protocol in turn, with its secrets in the environment."""
    chosen = PROTOCOLS[request.param]
    for name, value in chosen.environment.items():
        monkeypatch.setenv(name, value)
    return chosen


@pytest.fixture
def server(protocol: Protocol) -> Iterator[WireServer]:
    """A loopback server answering as ``protocol``'s API does."""
    running = WireServer(lambda seen: protocol.reply(REPLY)).start()
    yield running
    running.stop()


def ask(target: HttpTarget) -> TargetOutput:
    return asyncio.run(target(REQUEST))


def call(target: HttpTarget, config: ExecutionConfig) -> tuple[TargetOutput, bool, int]:
    async def go() -> tuple[TargetOutput, bool, int]:
        result = await call_with_retries(target, REQUEST, config, random.Random(0))
        return result.output, result.ok, result.attempts

    return asyncio.run(go())


def test_a_reply_is_read_with_its_usage_and_finish_reason(
    protocol: Protocol, server: WireServer
) -> None:
    output = ask(protocol.make(server.url))
    assert output.text == REPLY
    assert output.usage is not None
    assert output.usage.input_tokens > 0
    assert output.usage.output_tokens > 0
    assert output.usage.cost is None  # no price given
    assert output.finish_reason
    assert output.latency is not None
    assert output.error is None
    (seen,) = server.seen
    header, spelled = protocol.header
    assert seen.headers[header] == spelled(SECRET)
    assert "Is 7 prime?" in seen.raw.decode()
    assert "Answer briefly." in seen.raw.decode()


def test_429_waits_for_the_providers_retry_after(protocol: Protocol, server: WireServer) -> None:
    server.then(429, {"error": {"message": "slow down", "code": 429}}, Retry_After="0.2")
    # The policy's own backoff (30 s) is past the observation's deadline (20 s): a second
    # attempt can only come from honouring Retry-After.
    config = ExecutionConfig(
        deadline=20, retry=RetryPolicy(attempts=3, initial_delay=30, max_delay=30)
    )
    output, ok, attempts = call(protocol.make(server.url), config)
    assert ok, output.error
    assert attempts == 2
    assert output.text == REPLY


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_are_retried(protocol: Protocol, server: WireServer, status: int) -> None:
    server.then(status, {"message": "internal failure"})
    server.then(status, "<html>upstream died</html>")
    config = ExecutionConfig(retry=RetryPolicy(attempts=3, initial_delay=0.01))
    output, ok, attempts = call(protocol.make(server.url), config)
    assert ok, output.error
    assert attempts == 3


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_fails_at_once_as_an_auth_failure(
    protocol: Protocol, server: WireServer, status: int
) -> None:
    server.then(status, {"error": {"message": "the key is not valid", "status": "DENIED"}})
    with pytest.raises(TargetError) as raised:
        ask(protocol.make(server.url))
    assert not raised.value.retryable
    assert raised.value.kind == "auth"
    assert f"HTTP {status}" in str(raised.value)
    assert "the key is not valid" in str(raised.value)


def test_a_bad_request_fails_at_once_with_the_providers_own_words(
    protocol: Protocol, server: WireServer
) -> None:
    # Bedrock says {"message": ...}; the others {"error": {"message": ...}}: both are read.
    server.then(400, {"message": "max tokens exceeds the model's limit"})
    config = ExecutionConfig(retry=RetryPolicy(attempts=4, initial_delay=0.01))
    output, ok, attempts = call(protocol.make(server.url), config)
    assert not ok
    assert attempts == 1
    assert output.error is not None
    assert "max tokens exceeds the model's limit" in output.error


@pytest.mark.parametrize("body", [b"{not json", b"<html>gateway</html>", b"[1, 2]", b"{}"])
def test_a_200_that_is_no_reply_is_a_retryable_error(
    protocol: Protocol, server: WireServer, body: bytes
) -> None:
    server.then(200, body)
    with pytest.raises(TargetError) as raised:
        ask(protocol.make(server.url))
    assert raised.value.retryable
    assert protocol.kind in str(raised.value)


def test_an_echoed_secret_is_scrubbed_from_replies_and_errors(
    protocol: Protocol, server: WireServer
) -> None:
    header, _ = protocol.header

    def echo(seen: Seen) -> object:
        return protocol.reply(f"you sent {seen.headers.get(header, '')}")

    server.default = echo
    output = ask(protocol.make(server.url))
    assert SECRET not in output.model_dump_json()
    assert "[key]" in output.text
    server.then(400, {"error": {"message": "x" * 490 + SECRET + " is wrong"}})
    with pytest.raises(TargetError) as raised:
        ask(protocol.make(server.url))
    assert SECRET[:6] not in str(raised.value)


def test_a_secret_is_never_sent_over_plain_http_to_another_machine(protocol: Protocol) -> None:
    with pytest.raises(ExecutionError, match=r"over plain http to 10\.1\.2\.3") as raised:
        protocol.make("http://10.1.2.3:8000")
    assert "allow_http_key" in str(raised.value)
    assert SECRET not in str(raised.value)


def test_a_missing_secret_is_an_error_before_any_call(
    protocol: Protocol, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in protocol.environment:
        monkeypatch.delenv(name)
    monkeypatch.delenv("AZURE_OPENAI_AD_TOKEN", raising=False)
    with pytest.raises(TargetError, match="needs") as raised:
        protocol.make("https://provider.example")
    assert raised.value.kind == "auth"


def test_the_identity_never_holds_a_secret(protocol: Protocol, server: WireServer) -> None:
    target = protocol.make(server.url, generation=Generation(temperature=0.5))
    dumped = target.identity.model_dump_json()
    assert SECRET not in dumped
    for name in protocol.environment:
        assert name not in dumped
    assert target.parameters["provider"] == protocol.kind
    assert (
        target.identity.id
        != protocol.make(server.url, generation=Generation(temperature=0.6)).identity.id
    )


HOSTILE = [
    "\ud83d half a surrogate",
    "nul \x00 and bell \x07",
    "\u202eright to left\u202c",
    "<script>alert(1)</script>",
    '{"answer": "yes"}' * 2000,
]


def test_hostile_replies_are_stored_cleaned(
    protocol: Protocol, server: WireServer, tmp_path: Path
) -> None:
    texts = iter(HOSTILE * 20)
    server.default = lambda seen: protocol.reply(next(texts))
    run = experiment([protocol.make(server.url, name="hosted")], repetitions=1, cases=1)
    store = SQLiteStore(tmp_path / "hostile.db")
    try:
        Runner(store=store).run(run)
        assert store.status_counts(run.id) == {"ok": run.calls(), "failed": 0}
        _, _, observations, _, _ = store.load(run.id)
    finally:
        store.close()
    cleaned = {clean_text(text) for text in HOSTILE}
    assert {o.output.text for o in observations} <= cleaned


def test_the_targets_of_a_run_share_one_pooled_session(tmp_path: Path) -> None:
    servers = {kind: WireServer(lambda seen, k=kind: PROTOCOLS[k].reply(REPLY)) for kind in KINDS}
    with pytest.MonkeyPatch.context() as patch:
        for protocol in PROTOCOLS.values():
            for name, value in protocol.environment.items():
                patch.setenv(name, value)
        targets = []
        try:
            for kind, running in servers.items():
                running.start()
                targets.append(PROTOCOLS[kind].make(running.url, name=kind))
            sessions = set()

            async def go() -> None:
                for target in targets:
                    await target.__aenter__()
                sessions.update(id(target._session) for target in targets)
                for target in targets:
                    assert (await target(REQUEST)).text == REPLY
                    await target.aclose()

            asyncio.run(go())
            assert len(sessions) == 1
            results = Runner(store=SQLiteStore(tmp_path / "all.db")).run(
                experiment(targets, repetitions=2, cases=1)
            )
            assert {o.status for o in run_of(results).observations} == {"ok"}
            assert {o.target for o in run_of(results).observations} == set(KINDS)
            assert all(target._session is None for target in targets)
        finally:
            for running in servers.values():
                running.stop()


def test_each_kind_is_registered_and_named_by_text(
    protocol: Protocol, server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert protocol.kind in provider_kinds()
    provider = find_provider(protocol.kind)
    assert provider is not None
    assert provider.extra is not None
    assert provider.extra.startswith("modelscape-map[")
    argument = {
        "openai-responses": f"gpt-fake@{server.url}/v1",
        "azure-openai": f"prod-4o@{server.url}",
        "gemini": f"gemini-2.0-flash@{server.url}",
        "bedrock": f"anthropic.claude-3-5-haiku-20241022-v1:0@{server.url}",
    }[protocol.kind]
    options = {"region": "eu-west-1"} if protocol.kind == "bedrock" else {}
    named = resolve_target(f"{protocol.kind}:{argument}", name="named", max_tokens=16, **options)
    made = protocol.make(server.url, name="named", generation=Generation(max_tokens=16))
    assert named.identity == made.identity
    assert asyncio.run(named(REQUEST)).text == REPLY
    with pytest.raises(ExecutionError, match="threads"):
        resolve_target(f"{protocol.kind}:{argument}", threads=2, **options)
