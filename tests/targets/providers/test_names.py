"""Provider targets by name and from a targets.yaml, through resolve_target and the CLI."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from modelscape.cli.execution import register
from modelscape.errors import ExecutionError
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._reference import EchoTarget
from modelscape.targets._resolve import load_targets, resolve_target
from modelscape.targets.providers._names import split_model_url
from modelscape.targets.providers.anthropic import AnthropicTarget
from modelscape.targets.providers.openai import OpenAICompatibleTarget
from tests.targets.providers.fake_server import FakeProvider


@pytest.fixture
def cli() -> click.Group:
    @click.group()
    def main() -> None:
        """A stand-in for the modelscape group."""

    register(main)
    return main


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def test_split_model_url() -> None:
    assert split_model_url("gemma", kind="openai") == ("gemma", None)
    assert split_model_url("org/m@v2@http://h:1/v1", kind="x") == ("org/m@v2", "http://h:1/v1")
    with pytest.raises(ExecutionError, match="name a model"):
        split_model_url("@http://h/v1", kind="openai")


def test_hosted_targets_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-o")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-a")
    openai = resolve_target("openai:gpt-4o-mini", temperature=0)
    assert isinstance(openai, OpenAICompatibleTarget)
    assert openai.name == "gpt-4o-mini"
    assert openai.parameters["provider"] == "openai"
    assert openai.api_key_env == "OPENAI_API_KEY"
    assert openai.url.endswith("/v1/chat/completions")
    assert openai.token_field == "max_completion_tokens"
    anthropic = resolve_target("anthropic:claude-x", name="claude", max_tokens=20)
    assert isinstance(anthropic, AnthropicTarget)
    assert anthropic.name == "claude"
    assert anthropic.parameters["max_tokens"] == 20


@pytest.mark.usefixtures("no_keys")
def test_a_missing_key_is_an_error_before_any_call() -> None:
    with pytest.raises(ExecutionError, match="set the environment variable OPENAI_API_KEY"):
        resolve_target("openai:gpt-4o-mini")
    with pytest.raises(ExecutionError, match="ANTHROPIC_API_KEY"):
        resolve_target("anthropic:claude-x")
    with pytest.raises(ExecutionError, match="MY_KEY"):
        resolve_target("openai-compatible:m@https://models.example/v1", api_key_env="MY_KEY")


@pytest.mark.usefixtures("no_keys")
def test_loopback_and_compatible_servers_need_no_key() -> None:
    local = resolve_target("openai:gpt-x@http://127.0.0.1:8080/v1")
    assert isinstance(local, OpenAICompatibleTarget)
    assert local.token_field == "max_tokens"
    assert isinstance(resolve_target("anthropic:c@http://localhost:9/"), AnthropicTarget)
    compatible = resolve_target("openai-compatible:gemma@http://127.0.0.1:8080/v1")
    assert isinstance(compatible, OpenAICompatibleTarget)
    assert compatible.api_key_env is None


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("openai-compatible:gemma", {}, "name the server too"),
        ("openai-compatible:g@http://127.0.0.1:1/v1", {"temprature": 1}, "temprature: Extra"),
        ("openai-compatible:g@http://127.0.0.1:1/v1", {"max_tokens": 0}, "max_tokens"),
        ("openai-compatible:g@http://127.0.0.1:1/v1", {"context": 512}, "context does not apply"),
        ("anthropic:c@http://127.0.0.1:1", {"seed": False}, "seed does not apply"),
        ("llama-cpp:/no/such/model.gguf", {}, "no model file"),
        ("llama-cpp:/x.gguf", {"api_key_env": "K"}, "api_key_env does not apply"),
        ("echo", {"name": "e"}, "takes no options"),
    ],
)
def test_bad_names_and_options_say_what_is_wrong(
    spec: str, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ExecutionError, match=message):
        resolve_target(spec, **options)


def test_a_targets_file(tmp_path: Path) -> None:
    path = tmp_path / "targets.yaml"
    path.write_text(
        "- echo\n"
        "- target: openai-compatible:gemma@http://127.0.0.1:8080/v1\n"
        "  name: gemma-warm\n"
        "  temperature: 0.7\n"
        "  max_tokens: 64\n"
        "  stop: '###'\n"
        "- {target: 'openai-compatible:gemma@http://127.0.0.1:8080/v1', name: gemma-cold, "
        "temperature: 0}\n"
    )
    echo, warm, cold = load_targets(path)
    assert isinstance(echo, EchoTarget)
    assert isinstance(warm, OpenAICompatibleTarget)
    assert warm.name == "gemma-warm"
    assert warm.parameters["stop"] == ["###"]
    assert warm.parameters["max_tokens"] == 64
    assert cold.parameters["temperature"] == 0
    assert cold.identity.id != warm.identity.id


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("target: echo\n", "a list of targets"),
        ("- {name: x}\n", "target 1: give a target name"),
        (
            "- echo\n- target: openai-compatible:m@http://127.0.0.1:1/v1\n  colour: red\n",
            "target 2",
        ),
        ("- [unclosed\n", "not valid YAML"),
    ],
)
def test_a_bad_targets_file_names_the_entry(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "targets.yaml"
    path.write_text(text)
    with pytest.raises(ExecutionError, match=message):
        load_targets(path)


def test_run_with_a_targets_file_keeps_the_key_out_of_the_store(
    cli: click.Group, fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-local-SECRET-5b1e"
    monkeypatch.setenv("LOCAL_KEY", secret)
    # One refusal echoes the key, as some providers do; that error text is stored too.
    fake.then(403, {"error": {"message": f"key {secret} may not use this model"}})
    targets = tmp_path / "targets.yaml"
    targets.write_text(
        f"- target: openai-compatible:gemma@{fake.url}\n"
        "  name: gemma\n  temperature: 0.7\n  max_tokens: 64\n  api_key_env: LOCAL_KEY\n"
    )
    store = tmp_path / "runs.db"
    arguments = ["run", "pressure", "--targets", str(targets), "--store", str(store)]
    result = CliRunner().invoke(cli, [*arguments, "--repetitions", "1"])
    assert result.exit_code == 0, result.output
    assert "72 asked, 0 reused, 1 failed" in result.output
    assert all(r.headers["Authorization"] == f"Bearer {secret}" for r in fake.requests)
    saved = b"".join(p.read_bytes() for p in tmp_path.glob("runs.db*"))
    assert secret.encode() not in saved
    assert b"LOCAL_KEY" not in saved
    opened = SQLiteStore(store)
    try:
        (record,) = opened.experiments()
        assert record.targets[0].parameters["temperature"] == 0.7
    finally:
        opened.close()


def test_run_needs_a_target(cli: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "pressure", "--store", str(tmp_path / "r.db")])
    assert result.exit_code != 0
    assert "name at least one target" in result.output
