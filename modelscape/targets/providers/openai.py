"""A target for any OpenAI-compatible chat-completions API.

One wire format serves many servers: OpenAI itself, vLLM, llama.cpp's server, Ollama, LM Studio
and OpenRouter all take ``POST {base}/chat/completions`` with a model, messages and generation
parameters, and answer with ``choices``, ``usage`` and the ``model`` that served the request
(read by :mod:`~modelscape.targets.providers._chat`).

This module declares two kinds of target: ``openai:MODEL[@URL]`` (:data:`OPENAI`) and
``openai-compatible:MODEL@URL`` (:data:`OPENAI_COMPATIBLE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from modelscape._version import requirement
from modelscape.errors import ExecutionError
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.targets.providers._chat import chat_messages, read_chat_completion
from modelscape.targets.providers._http import HttpTarget
from modelscape.targets.providers._names import (
    KIND_ONLY,
    LOCAL_ONLY,
    split_model_url,
    target_options,
)
from modelscape.targets.providers._settings import (
    OPENAI_BASE_URL,
    Generation,
    HttpOptions,
    TargetOptions,
    check_base_url,
    is_loopback,
)
from modelscape.targets.providers._structured import (
    StructuredMode,
    StructuredTarget,
    structured_mode,
)
from modelscape.targets.registry import Provider

__all__ = [
    "OPENAI",
    "OPENAI_BASE_URL",
    "OPENAI_COMPATIBLE",
    "OpenAICompatibleTarget",
    "OpenAITarget",
]

# Fields of the body that a request's settings may not replace.
_FIXED = frozenset({"model", "messages"})


class OpenAICompatibleTarget(StructuredTarget, HttpTarget):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``base_url`` is the API root (for llama.cpp's server, ``http://127.0.0.1:8080/v1``) and
    ``model`` the name the server knows the model by; both, with ``generation`` (a
    :class:`~modelscape.targets.providers._settings.Generation`), form the identity. The name
    defaults to the model's. The API key, when one is used, is read from ``api_key_env`` at
    every call and sent as a bearer token. ``require_key`` (by default: a key variable is named
    and the server is not on this machine) makes a missing key an error when the target is
    made, before any call. ``token_field`` is how the server spells the length bound: OpenAI's
    newer models take only ``max_completion_tokens``, while most other servers read
    ``max_tokens``. ``http`` (an :class:`~modelscape.targets.providers._settings.HttpOptions`)
    caps the calls in flight, bounds a reply's size, says whether the key may cross plain http
    and what tokens cost.

    ``replicas`` are the API roots of further servers of the same model: calls are spread over
    them and ``base_url`` (see :mod:`modelscape.targets.providers._replicas`), which alone is in the
    identity.

    ``structured`` asks for replies of the answer reader's shape (see
    :mod:`modelscape.targets.providers._structured`): ``json_schema`` (what ``True`` means),
    ``json_object`` or ``grammar``, whichever the server takes.
    """

    provider = "openai-compatible"
    #: The ways this target can shape its replies; ``structured=True`` takes the first.
    structured_modes: tuple[StructuredMode, ...] = ("json_schema", "json_object", "grammar")

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        name: str | None = None,
        version: str = "1",
        generation: Generation | None = None,
        http: HttpOptions | None = None,
        api_key_env: str | None = None,
        require_key: bool | None = None,
        token_field: str = "max_tokens",
        structured: bool | str = False,
        replicas: Sequence[str] = (),
    ) -> None:
        base = check_base_url(base_url, where=f"target {name or model!r}")
        generation = Generation() if generation is None else generation
        others = [check_base_url(r, where=f"target {name or model!r}") for r in replicas]
        self.structured = structured_mode(
            structured, allowed=self.structured_modes, where=f"target {name or model!r}"
        )
        if require_key is None:
            require_key = api_key_env is not None and not is_loopback(base)
        self.model = model
        self.base_url = base
        self.generation = generation
        self.token_field = token_field
        super().__init__(
            url=f"{base}/chat/completions",
            name=name or model,
            version=version,
            parameters={
                "base_url": base,
                "model": model,
                **generation.identity(),
                # only when on, so that plain targets keep the identity they always had
                **({"structured": self.structured} if self.structured else {}),
            },
            api_key_env=api_key_env,
            require_key=require_key,
            http=HttpOptions() if http is None else http,
            # Replicas of one model are where calls go, not what answers: not in the identity.
            replicas=[f"{other}/chat/completions" for other in others],
        )

    def headers(self, key: str | None) -> dict[str, str]:
        """JSON, and the key as a bearer token when there is one."""
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def body(self, request: TargetRequest) -> dict[str, Any]:
        """Model, messages (the system prompt first) and the generation parameters that are set.

        Settings carried by the request are added last, except ``model`` and ``messages``.
        """
        body: dict[str, Any] = {"model": self.model, "messages": chat_messages(request.prompt)}
        body.update(self.generation.fields(request.seed, token_field=self.token_field))
        if self.structured is not None:
            body.update(self.structure(request))
        body.update((k, v) for k, v in request.settings.items() if k not in _FIXED)
        return body

    def structure(self, request: TargetRequest) -> dict[str, Any]:
        """The fields of the body that ask for a reply of the request's answer shape."""
        shape = self.shape(request)
        if self.structured == "grammar":
            return {"grammar": shape.grammar()}
        if self.structured == "json_object":
            return {"response_format": {"type": "json_object", "schema": shape.json_schema()}}
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "answer", "strict": True, "schema": shape.json_schema()},
            }
        }

    def output(self, payload: dict[str, Any], latency: float) -> TargetOutput:
        """The first choice's text, its finish reason, the reported model and token usage."""
        return read_chat_completion(
            payload, provider=self.provider, url=self.url, latency=latency, scrub=self.scrub
        )


class OpenAITarget(OpenAICompatibleTarget):
    """OpenAI's own API: the key from ``OPENAI_API_KEY`` by default, required unless the base
    URL is on this machine, and the length bound sent as ``max_completion_tokens`` (which
    OpenAI's newer models require) unless the base URL is another server's."""

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        api_key_env: str | None = "OPENAI_API_KEY",
        require_key: bool | None = None,
        token_field: str | None = None,
        **options: Any,
    ) -> None:
        if require_key is None:
            require_key = api_key_env is not None and not is_loopback(base_url)
        if token_field is None:
            own = base_url.rstrip("/") == OPENAI_BASE_URL
            token_field = "max_completion_tokens" if own else "max_tokens"
        super().__init__(
            model,
            base_url=base_url,
            api_key_env=api_key_env,
            require_key=require_key,
            token_field=token_field,
            **options,
        )


def _openai(argument: str, **given: Any) -> OpenAITarget:
    options = target_options("openai", argument, given, refuses=OPENAI.refuses)
    model, url = split_model_url(argument, kind="openai")
    return OpenAITarget(
        model,
        base_url=url or OPENAI_BASE_URL,
        **options.provider_keywords(),
        api_key_env=options.api_key_env or OPENAI.key_variable,
    )


def _openai_compatible(argument: str, **given: Any) -> OpenAICompatibleTarget:
    options = target_options(
        "openai-compatible", argument, given, refuses=OPENAI_COMPATIBLE.refuses
    )
    model, url = split_model_url(argument, kind="openai-compatible")
    if url is None:
        raise ExecutionError(
            f"openai-compatible:{argument}: name the server too, as "
            "openai-compatible:MODEL@http://127.0.0.1:8080/v1"
        )
    # MODEL@URL1,URL2,...: replicas of one model, each call to the least busy (replicas.py)
    first, *others = (part.strip() for part in url.split(","))
    return OpenAICompatibleTarget(
        model,
        base_url=first,
        replicas=others,
        **options.provider_keywords(),
        api_key_env=options.api_key_env,
    )


#: ``openai:MODEL`` (or ``openai:MODEL@URL``): OpenAI's API, the key from ``OPENAI_API_KEY``.
OPENAI = Provider(
    kind="openai",
    make=_openai,
    key_variable="OPENAI_API_KEY",
    extra=requirement("providers"),
    requires=("aiohttp",),
    forms=("openai:MODEL", "openai:MODEL@URL"),
    summary="OpenAI's chat completions API; MODEL@URL reaches a proxy or a stand-in server instead",
    options=TargetOptions,
    refuses=LOCAL_ONLY | KIND_ONLY,
)
#: ``openai-compatible:MODEL@URL``: any chat-completions server; a key only when named.
#: ``MODEL@URL1,URL2,...`` spreads the calls over replicas of the model.
OPENAI_COMPATIBLE = Provider(
    kind="openai-compatible",
    make=_openai_compatible,
    extra=requirement("providers"),
    requires=("aiohttp",),
    forms=("openai-compatible:MODEL@URL", "openai-compatible:MODEL@URL1,URL2,..."),
    summary="any chat-completions server (vLLM, llama.cpp's llama-server, Ollama, LM Studio); "
    "several URLs are replicas of one model, each call sent to the least busy; a key only when "
    "api_key_env names one",
    options=TargetOptions,
    refuses=LOCAL_ONLY | KIND_ONLY,
)
