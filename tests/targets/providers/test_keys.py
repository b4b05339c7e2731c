"""API keys: never stored, reported, rendered or indexed, and never sent over plain http."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.errors import ExecutionError
from modelscape.targets.protocol import TargetError, TargetRequest
from modelscape.targets.providers import HttpOptions
from modelscape.targets.providers._http import provider_message
from modelscape.targets.providers._names import provider_target
from modelscape.targets.providers.anthropic import AnthropicTarget
from modelscape.targets.providers.openai import OpenAICompatibleTarget, OpenAITarget
from modelscape.task.prompt import Prompt
from tests.targets.providers.fake_server import FakeProvider, Received, chat_completion

KEY = "sk-test-ECHOED-" + "7f3a9c" * 8
REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?"), seed=1)


def echo_header(received: Received) -> dict[str, object]:
    """A reply that repeats the Authorization header in the reply and the model name."""
    sent = received.headers.get("Authorization", "")
    reply = chat_completion(f'{{"answer": "yes"}} you sent {sent}', model=f"m-{sent}")
    reply["choices"][0]["finish_reason"] = f"stop {sent}"
    return reply


def files_holding(folder: Path, secret: str) -> list[Path]:
    """Every file under ``folder`` whose bytes hold ``secret`` or its first half."""
    needles = [secret.encode(), secret[: len(secret) // 2].encode()]
    return [
        path
        for path in folder.rglob("*")
        if path.is_file() and any(needle in path.read_bytes() for needle in needles)
    ]


def test_an_echoed_key_is_in_no_file_of_the_store_report_page_or_site(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake.respond = echo_header
    work = tmp_path / "work"
    work.mkdir()
    site = work / "site-content"
    cli = CliRunner()
    assert cli.invoke(main, ["init", str(site)]).exit_code == 0
    run = site / "runs" / "echo"
    run.mkdir(parents=True)
    store, report = run / "store.db", run / "report.json"
    done = cli.invoke(
        main,
        ["run", "pressure", "--target", f"openai:gpt-echo@{fake.url}", "--store", str(store),
         "--repetitions", "2", "--report", str(report)],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in fake.requests)
    (run / "README.md").write_text("# echo\n\nA server that echoes the key.\n", encoding="utf-8")
    page = cli.invoke(
        main, ["page", str(report), "--store", str(store), "-o", str(work / "page.html")]
    )
    assert page.exit_code == 0, page.output
    built = cli.invoke(main, ["build", str(site), "-o", str(work / "out")])
    assert built.exit_code == 0, built.output
    assert (work / "out" / "index.html").exists()
    assert "[key]" in store.read_bytes().decode("utf-8", "replace")  # it was there, scrubbed
    assert files_holding(work, KEY) == []
    assert KEY not in done.output + page.output + built.output


def test_a_key_across_the_cut_of_a_long_error_leaves_no_prefix(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", KEY)
    for lead in (480, 495, 499):  # the message is cut at 500 characters
        fake.then(400, {"error": {"message": "x" * lead + KEY + " is not a valid key"}})
        target = OpenAICompatibleTarget("m", base_url=fake.url, api_key_env="MY_KEY")
        with pytest.raises(TargetError) as raised:
            asyncio.run(target(REQUEST))
        message = str(raised.value)
        assert KEY[:6] not in message.replace("x" * lead, "")
        assert "[key]"[: 500 - lead] in message


def test_provider_messages_are_scrubbed_before_they_are_cut() -> None:
    body = ("y" * 498 + KEY).encode()
    cut_first = provider_message(body)
    assert KEY[:2] in cut_first  # what a scrub after the cut would have missed
    assert KEY[:2] not in provider_message(body, lambda text: text.replace(KEY, "[key]"))


@pytest.mark.parametrize(
    ("make", "where"),
    [
        (lambda: OpenAITarget("m", base_url="http://10.1.2.3:8000/v1"), "10.1.2.3"),
        (lambda: AnthropicTarget("m", base_url="http://models.example"), "models.example"),
        (
            lambda: OpenAICompatibleTarget(
                "m", base_url="http://gpu-box:8000/v1", api_key_env="MY_KEY"
            ),
            "gpu-box",
        ),
    ],
)
def test_a_key_is_never_sent_over_plain_http_to_another_machine(
    monkeypatch: pytest.MonkeyPatch, make: object, where: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("MY_KEY", KEY)
    with pytest.raises(ExecutionError, match=f"over plain http to {where}") as raised:
        make()  # type: ignore[operator]
    assert "allow_http_key" in str(raised.value)
    assert KEY not in str(raised.value)


def test_https_loopback_and_an_explicit_opt_in_may_carry_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    OpenAITarget("m", base_url="https://proxy.example/v1")
    OpenAITarget("m", base_url="http://127.0.0.1:8080/v1")
    OpenAITarget("m", base_url="http://localhost:8080/v1")
    opted = OpenAITarget(
        "m", base_url="http://10.1.2.3:8000/v1", http=HttpOptions(allow_http_key=True)
    )
    assert "allow_http_key" not in opted.identity.model_dump_json()  # not part of the identity
    named = provider_target("openai", "m@http://10.1.2.3:8000/v1", allow_http_key=True)
    assert named.identity == opted.identity
    OpenAICompatibleTarget("m", base_url="http://10.1.2.3:8000/v1")  # no key, nothing to leak


def test_the_size_limit_is_an_option_of_provider_targets() -> None:
    target = provider_target("openai-compatible", "m@http://127.0.0.1:9/v1", max_response_bytes=5)
    assert target.max_response_bytes == 5  # type: ignore[attr-defined]
    with pytest.raises(ExecutionError, match="max_response_bytes"):
        provider_target("llama-cpp", "/nowhere.gguf", max_response_bytes=5)
