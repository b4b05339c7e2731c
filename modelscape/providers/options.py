"""What a user can set on a provider target, as the CLI, a targets.yaml and Python spell it.

:class:`Generation` holds the generation parameters every provider target takes; they are part
of the target's identity, so changing any of them makes a new target whose observations are
asked afresh. :class:`TargetOptions` adds what a targets.yaml entry may set beside them (a
name, a version, where the key comes from, how many calls may be in flight), none of which is
hashed except the name and version.
"""

from __future__ import annotations

import ipaddress
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from modelscape._identity import JsonValue
from modelscape._model import FrozenModel
from modelscape.errors import ExecutionError
from modelscape.providers.structured import STRUCTURED_MODES
from modelscape.target.protocol import Usage

__all__ = [
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "Generation",
    "Price",
    "TargetOptions",
    "check_base_url",
    "is_loopback",
]

#: Where OpenAI's API is; ``openai:MODEL`` sends its requests there.
OPENAI_BASE_URL = "https://api.openai.com/v1"
#: Where Anthropic's API is; ``anthropic:MODEL`` sends its requests there.
ANTHROPIC_BASE_URL = "https://api.anthropic.com"


class Price(FrozenModel):
    """What a provider charges for a million tokens, as a targets.yaml's ``price:`` gives it.

    ``input`` is the price of a million prompt tokens and ``output`` that of a million reply
    tokens, in whatever currency the table is written in (the report records numbers only).
    Providers that report reasoning tokens apart have them counted in ``output_tokens``, since
    they are billed as output.
    """

    input: float = Field(ge=0, allow_inf_nan=False)
    output: float = Field(ge=0, allow_inf_nan=False)

    def charge(self, usage: Usage) -> Usage:
        """``usage`` with its cost at this price: tokens times the price per million."""
        cost = (usage.input_tokens * self.input + usage.output_tokens * self.output) / 1e6
        return usage.model_copy(update={"cost": cost})


class Generation(FrozenModel):
    """Generation parameters sent with every request; None leaves the provider's default.

    ``seed`` says whether the request's seed hint is passed on (providers that honour a seed
    then vary by repetition yet repeat run after run; those that do not ignore it).
    ``max_tokens`` bounds the reply's length in tokens; ``stop`` lists texts that end it.
    """

    temperature: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)
    top_p: float | None = Field(default=None, gt=0, le=1)
    seed: bool = True
    stop: tuple[str, ...] | None = None

    @field_validator("stop", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    def fields(
        self, seed: int, *, token_field: str = "max_tokens", stop_field: str = "stop"
    ) -> dict[str, Any]:
        """The parameters that are set, as a chat request's fields: the seed hint when
        ``seed`` is on, the length bound as ``token_field`` and the stop texts as
        ``stop_field`` (how providers spell them differs)."""
        fields: dict[str, Any] = {}
        if self.temperature is not None:
            fields["temperature"] = self.temperature
        if self.max_tokens is not None:
            fields[token_field] = self.max_tokens
        if self.top_p is not None:
            fields["top_p"] = self.top_p
        if self.seed:
            fields["seed"] = seed
        if self.stop:
            fields[stop_field] = list(self.stop)
        return fields

    def identity(self) -> dict[str, JsonValue]:
        """These parameters as they enter a target's identity."""
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
            "stop": None if self.stop is None else list(self.stop),
        }


class TargetOptions(Generation):
    """The options of one target, as a targets.yaml entry or keyword arguments give them.

    ``name`` labels the target in results (by default the model's name); ``version`` is yours
    to bump when something unnamed changes its replies. ``api_key_env`` names the environment
    variable the key is read from at each call (the key itself is never written anywhere).
    ``max_concurrency`` caps this target's calls in flight; within it the limit adapts to the
    provider's 429s. ``allow_http_key`` lets a key travel over plain http to another machine
    (a trusted network only); ``max_response_bytes`` bounds the size of a reply. ``context``
    and ``threads`` apply to in-process llama.cpp models only. ``structured`` asks for replies
    of the answer reader's shape: ``true`` for the provider's own way, or one way by name
    (see :mod:`modelscape.providers.structured`); it is part of the target's identity.
    ``price`` makes every output's usage record its cost (see :class:`Price`). ``region``
    (AWS Bedrock) and ``api_version`` (Azure OpenAI) apply to those kinds only, and are part of
    the identity.
    """

    name: str | None = Field(default=None, min_length=1)
    version: str = "1"
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    max_concurrency: int = Field(default=64, ge=1, le=10_000)
    allow_http_key: bool = False
    max_response_bytes: int = Field(default=32 * 1024 * 1024, ge=1)
    context: int | None = Field(default=None, ge=16)
    threads: int | None = Field(default=None, ge=1)
    structured: bool | str = False
    price: Price | None = None
    region: str | None = Field(default=None, pattern=r"^[a-z]{2}(-[a-z]+)+-[0-9]+$")
    api_version: str | None = Field(
        default=None, pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$"
    )

    @field_validator("structured", mode="before")
    @classmethod
    def _a_way(cls, value: Any) -> Any:
        if isinstance(value, bool) or value in STRUCTURED_MODES:
            return value
        ways = ", ".join(STRUCTURED_MODES)
        raise ValueError(f"must be true, false or one of {ways}, not {value!r}")

    @field_validator("api_version", mode="before")
    @classmethod
    def _a_dated_version(cls, value: Any) -> Any:
        # YAML reads an unquoted 2024-10-21 as a date; it is the version all the same.
        return value.isoformat() if isinstance(value, date) else value

    @property
    def generation(self) -> Generation:
        """Only the generation parameters."""
        return Generation(**self.model_dump(include=set(Generation.model_fields)))


def is_loopback(url: str) -> bool:
    """Whether a URL's host is this machine, as written: ``localhost`` itself, or a literal
    address in 127.0.0.0/8 or ``::1``.

    Nothing is resolved, and no other name counts: ``evil.localhost`` is only this machine if
    the resolver says so (RFC 6761 asks it to, but a resolver or an ``/etc/hosts`` line need
    not), and a key sent over plain http to it might go anywhere.
    """
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str, *, where: str) -> str:
    """A base URL without a trailing slash; refuses URLs that are not http(s) or that carry a
    user name or password (keys belong in the environment, never in an identity)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ExecutionError(f"{where}: {url!r} is not an http(s) URL")
    if parts.username or parts.password:
        raise ExecutionError(
            f"{where}: the URL carries credentials; put the key in an environment variable "
            "and name it with api_key_env"
        )
    if parts.query or parts.fragment:
        raise ExecutionError(f"{where}: a base URL takes no query or fragment, not {url!r}")
    return url.rstrip("/")
