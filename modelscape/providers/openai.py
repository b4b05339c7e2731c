"""A target for any OpenAI-compatible chat-completions API.

One wire format serves many servers: OpenAI itself, vLLM, llama.cpp's server, Ollama, LM Studio
and OpenRouter all take ``POST {base}/chat/completions`` with a model, messages and generation
parameters, and answer with ``choices``, ``usage`` and the ``model`` that served the request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from modelscape.execution.target import TargetError, TargetOutput, TargetRequest, Usage
from modelscape.providers.http import MAX_RESPONSE_BYTES, HttpTarget, provider_message
from modelscape.providers.options import (
    OPENAI_BASE_URL,
    Generation,
    check_base_url,
    is_loopback,
)
from modelscape.providers.structured import StructuredMode, StructuredTarget, structured_mode

__all__ = ["OPENAI_BASE_URL", "OpenAICompatibleTarget", "OpenAITarget"]

# Fields of the body that a request's settings may not replace.
_FIXED = frozenset({"model", "messages"})


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _text(content: object) -> str:
    """A reply's text, whether the server sent a string or a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


class OpenAICompatibleTarget(StructuredTarget, HttpTarget):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``base_url`` is the API root (for llama.cpp's server, ``http://127.0.0.1:8080/v1``) and
    ``model`` the name the server knows the model by; both, with the generation parameters,
    form the identity. The name defaults to the model's. The API key, when one is used, is read
    from ``api_key_env`` at every call and sent as a bearer token. ``require_key`` (by default:
    a key variable is named and the server is not on this machine) makes a missing key an error
    when the target is made, before any call. ``token_field`` is how the server spells the
    length bound: OpenAI's newer models take only ``max_completion_tokens``, while most other
    servers read ``max_tokens``. ``max_concurrency`` caps the calls in flight, a cap the
    target lowers while the server answers 429 and raises again as calls succeed. The key is
    sent only over https or to this machine unless ``allow_http_key`` is set, and a reply larger
    than ``max_response_bytes`` fails its observation instead of being read whole.

    ``structured`` asks for replies of the answer reader's shape (see
    :mod:`modelscape.providers.structured`): ``json_schema`` (what ``True`` means),
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
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        seed: bool = True,
        stop: Sequence[str] | None = None,
        api_key_env: str | None = None,
        require_key: bool | None = None,
        max_concurrency: int = 64,
        allow_http_key: bool = False,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        token_field: str = "max_tokens",
        structured: bool | str = False,
    ) -> None:
        base = check_base_url(base_url, where=f"target {name or model!r}")
        self.structured = structured_mode(
            structured, allowed=self.structured_modes, where=f"target {name or model!r}"
        )
        generation = Generation(
            temperature=temperature,
            max_tokens=max_tokens,
            top_p=top_p,
            seed=seed,
            stop=None if stop is None else tuple(stop),
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
            max_concurrency=max_concurrency,
            allow_http_key=allow_http_key,
            max_response_bytes=max_response_bytes,
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
        prompt = request.prompt
        messages = [{"role": "system", "content": prompt.system}] if prompt.system else []
        messages.extend({"role": m.role, "content": m.content} for m in prompt.messages)
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        generation = self.generation
        if generation.temperature is not None:
            body["temperature"] = generation.temperature
        if generation.max_tokens is not None:
            body[self.token_field] = generation.max_tokens
        if generation.top_p is not None:
            body["top_p"] = generation.top_p
        if generation.seed:
            body["seed"] = request.seed
        if generation.stop:
            body["stop"] = list(generation.stop)
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
        choices = payload.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            if "error" in payload:  # OpenRouter and some proxies report errors with a 200
                detail = provider_message(json.dumps(payload).encode(), self.scrub)
                raise TargetError(f"{self.provider} sent an error in its reply: {detail}")
            raise TargetError(f"{self.provider} at {self.url} sent a reply without choices")
        choice = choices[0]
        message = choice.get("message")
        text = _text(message.get("content")) if isinstance(message, dict) else ""
        if not text and isinstance(message, dict) and isinstance(message.get("refusal"), str):
            text = message["refusal"]  # structured outputs put a refusal beside the content
        usage = payload.get("usage")
        reported = payload.get("model")
        finish = choice.get("finish_reason")
        return TargetOutput(
            text=text,
            model=reported if isinstance(reported, str) else None,
            usage=Usage(
                input_tokens=_count(usage.get("prompt_tokens")),
                output_tokens=_count(usage.get("completion_tokens")),
            )
            if isinstance(usage, dict)
            else None,
            finish_reason=finish if isinstance(finish, str) else None,
            latency=latency,
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
