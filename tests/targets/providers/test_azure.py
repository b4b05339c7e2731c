"""The Azure OpenAI target against a loopback deployment: address, api-version, key or token."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from modelscape.errors import ExecutionError
from modelscape.targets._resolve import load_targets, resolve_target
from modelscape.targets._shape import AnswerShape
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers.azure import AZURE_API_VERSION, AzureOpenAITarget
from modelscape.task.prompt import Prompt
from tests.targets.providers.wire import WireServer, chat_reply

REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?", system="Answer briefly."), seed=42)
KEY = "azure-key-" + "4" * 24
TOKEN = "eyJ0eXAiOiJKV1Qi.entra-" + "5" * 24


@pytest.fixture
def server() -> Iterator[WireServer]:
    running = WireServer(lambda seen: chat_reply()).start()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN", "AZURE_OPENAI_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)


def ask(target: AzureOpenAITarget, request: TargetRequest = REQUEST) -> TargetOutput:
    return asyncio.run(target(request))


def test_the_deployment_and_api_version_make_the_address(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    ask(
        AzureOpenAITarget(
            "prod 4o/mini", endpoint=server.url, generation=Generation(max_tokens=32, seed=False)
        )
    )
    (seen,) = server.seen
    assert seen.raw_path.split("?")[0] == "/openai/deployments/prod%204o%2Fmini/chat/completions"
    assert seen.query == {"api-version": AZURE_API_VERSION}
    assert seen.headers["api-key"] == KEY
    assert "Authorization" not in seen.headers
    assert seen.body == {
        "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Is 7 prime?"},
        ],
        "max_completion_tokens": 32,
    }


def test_without_a_key_the_entra_token_is_a_bearer_token(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", TOKEN)
    target = AzureOpenAITarget("prod-4o", endpoint="https://lab.openai.azure.com")
    assert target.api_key() == TOKEN  # required off loopback: a token is enough
    ask(AzureOpenAITarget("prod-4o", endpoint=server.url))
    assert server.seen[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert "api-key" not in server.seen[0].headers
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)  # a key, once set, wins
    ask(AzureOpenAITarget("prod-4o", endpoint=server.url))
    assert server.seen[1].headers["api-key"] == KEY


def test_an_echoed_token_is_scrubbed(server: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", TOKEN)
    server.default = lambda seen: chat_reply(f"you sent {seen.headers['Authorization']}")
    output = ask(AzureOpenAITarget("prod-4o", endpoint=server.url))
    assert output.text == "you sent Bearer [key]"


def test_the_identity_holds_endpoint_deployment_and_version() -> None:
    target = AzureOpenAITarget(
        "prod-4o", endpoint="http://127.0.0.1:9/", api_version="2025-01-01-preview"
    )
    assert target.parameters == {
        "provider": "azure-openai",
        "endpoint": "http://127.0.0.1:9",
        "deployment": "prod-4o",
        "api_version": "2025-01-01-preview",
        "temperature": None,
        "max_tokens": None,
        "top_p": None,
        "seed": True,
        "stop": None,
    }
    assert target.identity != AzureOpenAITarget("prod-4o", endpoint="http://127.0.0.1:9").identity


def test_structured_answers_ask_for_a_json_schema(server: WireServer) -> None:
    shape = AnswerShape(field="verdict", choices=("close", "keep"))
    ask(
        AzureOpenAITarget("prod-4o", endpoint=server.url, structured=True),
        REQUEST.model_copy(update={"answer": shape}),
    )
    assert server.seen[0].body["response_format"]["json_schema"]["schema"] == shape.json_schema()


def test_the_endpoint_comes_from_the_name_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ExecutionError, match="AZURE_OPENAI_ENDPOINT"):
        resolve_target("azure-openai:prod-4o")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    target = resolve_target("azure-openai:prod-4o", api_version="2024-06-01")
    assert target.parameters["endpoint"] == "http://127.0.0.1:9"
    assert target.parameters["api_version"] == "2024-06-01"
    named = resolve_target("azure-openai:prod-4o@http://127.0.0.1:8")
    assert named.parameters["endpoint"] == "http://127.0.0.1:8"


@pytest.mark.parametrize(
    ("option", "message"),
    [({"region": "us-east-1"}, "not apply"), ({"api_version": "latest"}, "api_version")],
)
def test_wrong_options_are_named(option: dict[str, object], message: str) -> None:
    with pytest.raises(ExecutionError, match=message):
        resolve_target("azure-openai:prod-4o@http://127.0.0.1:9", **option)


def test_an_unquoted_api_version_in_a_targets_file_is_read_as_written(tmp_path: Path) -> None:
    listing = tmp_path / "targets.yaml"
    listing.write_text(
        "- target: azure-openai:prod-4o@http://127.0.0.1:9\n  api_version: 2024-06-01\n",
        encoding="utf-8",
    )
    (target,) = load_targets(listing)
    assert target.parameters["api_version"] == "2024-06-01"
