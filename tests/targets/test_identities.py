"""Target identities did not change when the target types moved, when each provider became a
module of its own, and when the providers took settings objects: every stored observation names
its target by this id, so a changed id would orphan every stored run. The ids below were
computed by the code before each change."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from modelscape.targets._resolve import resolve_target

# (target spec, options, identity id before the change); {tmp} is a temporary folder.
BEFORE: list[tuple[str, dict[str, Any], str]] = [
    ("openai:gpt-4o-mini", {}, "485b0ab2019e820f"),
    (
        "openai:gpt-4o-mini",
        {"temperature": 0, "max_tokens": 64, "name": "mini"},
        "89c6c21bba5ada5c",
    ),
    ("openai:gpt-x@http://127.0.0.1:8080/v1", {"structured": True}, "ce54a6ed0acbd3c3"),
    ("openai-compatible:gemma@http://127.0.0.1:8080/v1", {}, "b8572317963685f6"),
    (
        "openai-compatible:gemma@http://127.0.0.1:8080/v1",
        {"top_p": 0.9, "seed": False, "stop": ["\n"], "structured": "grammar", "version": "2"},
        "eb8643efec87d58a",
    ),
    ("anthropic:claude-x", {}, "5bbaf9b43f28a929"),
    (
        "anthropic:claude-x@http://localhost:9",
        {"max_tokens": 20, "temperature": 0.5, "structured": True},
        "f238a7a9125aca52",
    ),
    ("llama-cpp:{tmp}/tiny.gguf", {}, "e0b73dceba29360d"),
    (
        "llama-cpp:{tmp}/tiny.gguf",
        {"context": 512, "temperature": 0, "structured": True, "threads": 2},
        "6504ca5d3c6a5bff",
    ),
    ("echo", {}, "4dcfbf512bfddee3"),
    ("constant:yes", {}, "518315cd44b92e0c"),
    ("random:yes,no", {}, "de12dfdb071c5cb2"),
    ("planted:verdict=(\\w+)", {}, "a7865d7b2ce4940a"),
    ("scripted:{tmp}/replies.yaml", {}, "03494c7bbfbb9702"),
    ("oracle:pressure", {}, "aed4cc0b6012b1a6"),
]

# Computed by the code before the providers took settings objects (design note 040): the
# kinds the list above lacked, and options outside the identity (max_concurrency, price, ...)
# that must change nothing.
SETTINGS_BEFORE: list[tuple[str, dict[str, Any], str]] = [
    ("azure-openai:prod-4o@https://res.openai.azure.com", {}, "2f25fffc846f9297"),
    (
        "azure-openai:prod-4o@https://res.openai.azure.com",
        {
            "api_version": "2025-01-01-preview",
            "temperature": 0.2,
            "seed": False,
            "structured": True,
            "max_concurrency": 3,
        },
        "86f34ddf1f837714",
    ),
    ("gemini:gemini-2.0-flash", {}, "427fd5cddd08ee7c"),
    (
        "gemini:models/gemini-2.0-flash@http://127.0.0.1:9",
        {"top_p": 0.5, "stop": "END", "max_tokens": 20, "price": {"input": 1, "output": 2}},
        "78db9932c6263fd1",
    ),
    (
        "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0",
        {"region": "eu-west-1"},
        "38d43ff6f9fc5d2b",
    ),
    (
        "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0@http://127.0.0.1:9",
        {"region": "us-east-1", "stop": ["\n"], "temperature": 0, "structured": True},
        "a096c83002bbcab7",
    ),
    ("openai-responses:gpt-4o-mini", {}, "ed393681c86df11c"),
    (
        "openai-responses:gpt-4o-mini@http://localhost:9/v1",
        {"temperature": 0.7, "max_tokens": 30, "structured": True, "name": "resp", "version": "3"},
        "22ea966b717fe1b1",
    ),
    (
        "openai-compatible:gemma@http://127.0.0.1:8080/v1,http://127.0.0.1:8081/v1",
        {"max_response_bytes": 1000, "allow_http_key": True},
        "b8572317963685f6",
    ),
    (
        "anthropic:claude-x",
        {"stop": ["Human:"], "top_p": 0.8, "max_concurrency": 2},
        "77cee7b0b4e8b545",
    ),
]


@pytest.mark.parametrize(("spec", "options", "expected"), BEFORE + SETTINGS_BEFORE)
def test_every_kind_keeps_its_identity(
    spec: str,
    options: dict[str, Any],
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if spec.startswith("llama-cpp:") and importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-test")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-test")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-test")
    # The same model file and script as then: identities hash their content, not their path.
    (tmp_path / "tiny.gguf").write_bytes(b"GGUF" + bytes(range(256)) * 64)
    (tmp_path / "replies.yaml").write_text("hello: hi there\n", encoding="utf-8")
    target = resolve_target(spec.replace("{tmp}", str(tmp_path)), **options)
    assert target.identity.id == expected
