"""What a user can set on a provider target, as the CLI, a targets.yaml and Python spell it.

A provider target's constructor takes two settings objects besides what names the model:

- :class:`Generation`, the generation parameters sent with every request. They are part of
  the target's identity, so changing any of them makes a new target whose observations are
  asked afresh. A kind that lacks one (Anthropic has no seed) refuses it when it is set.
- :class:`HttpOptions`, how a target reached over HTTP calls its server: calls in flight, the
  size of a reply, whether a key may cross plain http, what tokens cost. None of it changes a
  reply, so none of it is hashed.

:class:`TargetOptions` is what a targets.yaml entry (or ``resolve_target``'s keywords) may
set: the fields of both, flat as users write them, and those of one target (a name, a version,
where the key comes from, a context window, a region); each kind's factory builds the two
objects from it (:attr:`TargetOptions.generation`, :attr:`TargetOptions.http`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from modelscape._identity import JsonValue
from modelscape._model import FrozenModel
from modelscape.errors import ExecutionError
from modelscape.targets.protocol import Usage
from modelscape.targets.providers._structured import STRUCTURED_MODES

__all__ = [
    "ANTHROPIC_BASE_URL",
    "GENERATION_FIELDS",
    "MAX_RESPONSE_BYTES",
    "OPENAI_BASE_URL",
    "Generation",
    "HttpOptions",
    "Price",
    "TargetOptions",
    "check_base_url",
    "is_loopback",
]

#: Where OpenAI's API is; ``openai:MODEL`` sends its requests there.
OPENAI_BASE_URL = "https://api.openai.com/v1"
#: Where Anthropic's API is; ``anthropic:MODEL`` sends its requests there.
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
#: The largest reply a provider target reads unless told otherwise (bytes, after decompression).
MAX_RESPONSE_BYTES = 32 * 1024 * 1024


class Price(FrozenModel):
    """What a provider charges for a million tokens, as a targets.yaml's ``price:`` gives it.

    ``input`` is the price of a million prompt tokens and ``output`` that of a million reply
    tokens, in whatever currency the table is written in (the report records numbers only).
    Providers that report reasoning tokens apart have them counted in ``output_tokens``, since
    they are billed as output.
    """

    input: float = Field(
        ge=0, allow_inf_nan=False, description="the price of a million prompt tokens"
    )
    output: float = Field(
        ge=0,
        allow_inf_nan=False,
        description="the price of a million reply tokens, reasoning and thought tokens included",
    )

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

    temperature: float | None = Field(
        default=None,
        ge=0,
        description="how freely tokens are sampled; 0 asks for the most likely reply. Part of "
        "the identity",
    )
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        description="the longest reply, in tokens; a reply cut at the bound is stored as it "
        "came, with its finish reason, and read like any other. Part of the identity",
    )
    top_p: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="nucleus sampling: tokens are drawn only from the most likely ones whose "
        "probabilities add up to this share. Part of the identity",
    )
    seed: bool = Field(
        default=True,
        description="whether each request's seed hint is sent; where a provider honours it, "
        "repetitions differ from each other yet repeat run after run. Part of the identity",
    )
    stop: tuple[str, ...] | None = Field(
        default=None,
        description="a text, or a list of texts, that ends the reply where it would appear. "
        "Part of the identity",
    )

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

    def identity(self, *, takes: Collection[str] | None = None) -> dict[str, JsonValue]:
        """These parameters as they enter a target's identity; ``takes`` keeps only those a
        kind has (by default all), so that a kind without a seed hashes none."""
        values: dict[str, JsonValue] = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
            "stop": None if self.stop is None else list(self.stop),
        }
        return {k: v for k, v in values.items() if takes is None or k in takes}

    def limited_to(self, takes: Collection[str], *, where: str) -> Generation:
        """These parameters for a kind that has only ``takes``: any other that was set is an
        error naming it, and the others are turned off (no seed hint, no stop texts), so that
        nothing the kind cannot honour is sent or hashed as if it were."""
        refused = sorted(self.model_fields_set - set(takes))
        if refused:
            raise ExecutionError(
                f"{where}: {', '.join(refused)} {'does' if len(refused) == 1 else 'do'} not "
                "apply to this kind of target"
            )
        off: dict[str, Any] = {"seed": False}
        return self.model_copy(
            update={name: off.get(name) for name in GENERATION_FIELDS if name not in takes}
        )


#: The names of the generation parameters, in the order a request lists them.
GENERATION_FIELDS: tuple[str, ...] = tuple(Generation.model_fields)


class HttpOptions(FrozenModel):
    """How a target reached over HTTP calls its server; none of it changes a reply, so none
    of it is part of the identity.

    ``max_concurrency`` caps the target's calls in flight (below it the limit adapts to the
    provider's 429s); ``allow_http_key`` lets a key travel over plain http to another machine;
    ``max_response_bytes`` bounds a reply's size; ``price`` records each call's cost.
    """

    max_concurrency: int = Field(
        default=64,
        ge=1,
        le=10_000,
        description="the most calls of this target in flight at once; below it, the limit "
        "halves when the provider answers 429 and grows back as calls succeed",
    )
    allow_http_key: bool = Field(
        default=False,
        description="let the key travel over plain http to another machine, for a trusted "
        "network only (https and this machine need no permission)",
    )
    max_response_bytes: int = Field(
        default=MAX_RESPONSE_BYTES,
        ge=1,
        description="the largest reply read, in bytes; a larger one fails its observation "
        "instead of being read whole",
    )
    price: Price | None = Field(
        default=None,
        description="what a million tokens cost, as {input: ..., output: ...}; every call "
        "then records its cost. Changes no reply, so not part of the identity",
    )


class TargetOptions(HttpOptions, Generation):
    """The options of one target, as a targets.yaml entry or keyword arguments give them:
    the generation parameters and the HTTP options, flat, and those of one target.

    ``name`` labels the target in results (by default the model's name); ``version`` is yours
    to bump when something unnamed changes its replies. ``api_key_env`` names the environment
    variable the key is read from at each call (the key itself is never written anywhere).
    ``context`` and ``threads`` apply to in-process llama.cpp models only. ``structured`` asks
    for replies of the answer reader's shape: ``true`` for the provider's own way, or one way
    by name (see :mod:`modelscape.targets.providers._structured`); it is part of the target's
    identity. ``region`` (AWS Bedrock) and ``api_version`` (Azure OpenAI) apply to those kinds
    only, and are part of the identity.
    """

    name: str | None = Field(
        default=None,
        min_length=1,
        description="the target's label in results and reports; by default the model's name. "
        "Part of the identity",
    )
    version: str = Field(
        default="1",
        description="yours to raise when something no other option names (a server's build, "
        "say) changes the replies, so that they are asked afresh. Part of the identity",
    )
    api_key_env: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="the environment variable the key is read from at each call, when it is "
        "not the kind's own; the key itself is never written anywhere",
    )
    context: int | None = Field(
        default=None,
        ge=16,
        description="the context window the model is loaded with, in tokens, prompt and reply "
        "together. Part of the identity",
    )
    threads: int | None = Field(
        default=None,
        ge=1,
        description="the CPU threads llama.cpp computes with (by default its own choice); "
        "changes no reply, so not part of the identity",
    )
    structured: bool | str = Field(
        default=False,
        description="constrain every reply to the shape the answer reader reads: true for "
        "the kind's own way, or one of its ways by name (see below). Part of the identity",
    )
    region: str | None = Field(
        default=None,
        pattern=r"^[a-z]{2}(-[a-z]+)+-[0-9]+$",
        description="the AWS region the model is called in (otherwise AWS_REGION or "
        "AWS_DEFAULT_REGION). Part of the identity",
    )
    api_version: str | None = Field(
        default=None,
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$",
        description="the Azure OpenAI API version, a date such as 2024-10-21 (quoted or not). "
        "Part of the identity",
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
        """The generation parameters, with only those set that were given (so that a kind
        can tell a seed asked for from the default)."""
        given = Generation.model_fields.keys() & self.model_fields_set
        return Generation(**{name: getattr(self, name) for name in given})

    @property
    def http(self) -> HttpOptions:
        """The HTTP options."""
        given = HttpOptions.model_fields.keys() & self.model_fields_set
        return HttpOptions(**{name: getattr(self, name) for name in given})

    def provider_keywords(self) -> dict[str, Any]:
        """What every HTTP provider's constructor takes from these options, by keyword: the
        label, version and structured mode, and the two settings objects."""
        return {
            "name": self.name,
            "version": self.version,
            "structured": self.structured,
            "generation": self.generation,
            "http": self.http,
        }


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
