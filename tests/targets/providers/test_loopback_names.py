"""Only this machine, as written, gets a key over plain http: ``localhost`` itself and the
literal loopback addresses, never a name that merely ends in ``.localhost``."""

from __future__ import annotations

import pytest

from modelscape.errors import ExecutionError
from modelscape.targets.providers._settings import is_loopback
from modelscape.targets.providers.openai import OpenAICompatibleTarget


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:8080/v1",
        "http://LOCALHOST/v1",
        "http://127.0.0.1:8080/v1",
        "http://127.8.9.10/v1",
        "http://[::1]:8080/v1",
    ],
)
def test_localhost_and_literal_loopback_addresses_are_this_machine(url: str) -> None:
    assert is_loopback(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://evil.localhost/v1",
        "http://a.b.localhost:8080/v1",
        "http://localhost.evil.example/v1",
        "http://127.1/v1",  # a shorthand the resolver expands: nothing is resolved here
        "http://[::ffff:127.0.0.1]/v1",
        "http://128.0.0.1/v1",
        "http://0.0.0.0/v1",
    ],
)
def test_anything_else_is_not(url: str) -> None:
    assert not is_loopback(url)


def test_a_key_is_not_sent_over_plain_http_to_a_name_under_localhost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LOOPBACK_TEST_KEY", "sk-test")
    with pytest.raises(ExecutionError, match=r"over plain http to evil\.localhost"):
        OpenAICompatibleTarget(
            "m", base_url="http://evil.localhost:8080/v1", api_key_env="LOOPBACK_TEST_KEY"
        )
    target = OpenAICompatibleTarget(
        "m", base_url="http://localhost:8080/v1", api_key_env="LOOPBACK_TEST_KEY"
    )
    assert target.api_key() == "sk-test"
