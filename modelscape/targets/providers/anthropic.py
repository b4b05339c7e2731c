"""A target for Anthropic's messages API.

The request is ``POST {base}/v1/messages`` with the key in ``x-api-key`` and the API version in
``anthropic-version``; the body holds the model, a required ``max_tokens``, an optional
``system`` prompt apart from the messages, and the generation parameters. The reply is a list
of content blocks (their text blocks joined make the reply), a ``stop_reason``, the ``model``
that answered and ``usage`` in input and output tokens.

This module declares the ``anthropic:MODEL[@URL]`` kind of target (:data:`ANTHROPIC`).
"""

from __future__ import annotations

import json
from typing import Any

from modelscape._version import requirement
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest, Usage
from modelscape.targets.providers._chat import token_count
from modelscape.targets.providers._http import HttpTarget
from modelscape.targets.providers._names import (
    KIND_ONLY,
    LOCAL_ONLY,
    split_model_url,
    target_options,
)
from modelscape.targets.providers._settings import (
    ANTHROPIC_BASE_URL,
    Generation,
    HttpOptions,
    TargetOptions,
    check_base_url,
    is_loopback,
)
from modelscape.targets.providers._structured import (
    ANSWER_TOOL,
    StructuredMode,
    StructuredTarget,
    structured_mode,
)
from modelscape.targets.registry import Provider

__all__ = ["ANTHROPIC", "ANTHROPIC_BASE_URL", "ANTHROPIC_VERSION", "AnthropicTarget"]

#: The API version every request asks for; a new one may change replies, so it is in the identity.
ANTHROPIC_VERSION = "2023-06-01"
#: The messages API requires a bound on the reply; this one applies when none is set.
DEFAULT_MAX_TOKENS = 1024

_FIXED = frozenset({"model", "messages", "system"})
# The generation parameters the messages API has: no seed.
_TAKES = frozenset({"temperature", "max_tokens", "top_p", "stop"})


class AnthropicTarget(StructuredTarget, HttpTarget):
    """A model behind Anthropic's messages API (or a server that speaks it).

    The key is read from ``api_key_env`` (``ANTHROPIC_API_KEY`` by default) at every call; a
    missing key is an error when the target is made unless the base URL is on this machine. The
    API has no seed, so a ``generation`` that sets one is refused, the seed hint is never sent
    and ``seed`` is not part of the identity; repetitions measure the run-to-run variation.
    ``max_tokens`` defaults to ``DEFAULT_MAX_TOKENS`` because the API requires one, and that
    value is in the identity. ``http`` is as for the OpenAI-compatible target.

    ``structured`` (``True`` or ``"tool"``) gives the model one tool, whose input schema is the
    answer's JSON shape, and makes it call that tool; the tool's input is the output's ``data``
    (and its text, when the model wrote none).
    """

    provider = "anthropic"
    #: The ways this target can shape its replies.
    structured_modes: tuple[StructuredMode, ...] = ("tool",)

    def __init__(
        self,
        model: str,
        *,
        base_url: str = ANTHROPIC_BASE_URL,
        name: str | None = None,
        version: str = "1",
        generation: Generation | None = None,
        http: HttpOptions | None = None,
        api_key_env: str | None = "ANTHROPIC_API_KEY",
        require_key: bool | None = None,
        structured: bool | str = False,
    ) -> None:
        base = check_base_url(base_url, where=f"target {name or model!r}")
        self.structured = structured_mode(
            structured, allowed=self.structured_modes, where=f"target {name or model!r}"
        )
        generation = (Generation() if generation is None else generation).limited_to(
            _TAKES, where=f"anthropic target {name or model!r}"
        )
        if generation.max_tokens is None:
            generation = generation.model_copy(update={"max_tokens": DEFAULT_MAX_TOKENS})
        if require_key is None:
            require_key = api_key_env is not None and not is_loopback(base)
        self.model = model
        self.base_url = base
        self.generation = generation
        parameters = generation.identity(takes=_TAKES)
        super().__init__(
            url=f"{base}/v1/messages",
            name=name or model,
            version=version,
            parameters={
                "base_url": base,
                "model": model,
                "api_version": ANTHROPIC_VERSION,
                **parameters,
                **({"structured": self.structured} if self.structured else {}),
            },
            api_key_env=api_key_env,
            require_key=require_key,
            http=HttpOptions() if http is None else http,
        )

    def headers(self, key: str | None) -> dict[str, str]:
        """JSON, the API version, and the key in ``x-api-key`` when there is one."""
        headers = {"Content-Type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if key is not None:
            headers["x-api-key"] = key
        return headers

    def body(self, request: TargetRequest) -> dict[str, Any]:
        """Model, bound, system prompt, messages and the generation parameters that are set."""
        prompt = request.prompt
        generation = self.generation
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": generation.max_tokens,
            "messages": [{"role": m.role, "content": m.content} for m in prompt.messages],
        }
        if prompt.system:
            body["system"] = prompt.system
        body.update(generation.fields(request.seed, stop_field="stop_sequences"))
        if self.structured is not None:
            body["tools"] = [
                {
                    "name": ANSWER_TOOL,
                    "description": "Give your answer.",
                    "input_schema": self.shape(request).json_schema(),
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
        body.update((k, v) for k, v in request.settings.items() if k not in _FIXED)
        return body

    def output(self, payload: dict[str, Any], latency: float) -> TargetOutput:
        """The text blocks joined, the answer tool's input as data, the stop reason, the
        reported model and token usage."""
        content = payload.get("content")
        if not isinstance(content, list):
            raise TargetError(f"{self.provider} at {self.url} sent a reply without content")
        blocks = [block for block in content if isinstance(block, dict)]
        text = "".join(
            block["text"]
            for block in blocks
            if block.get("type") == "text" and isinstance(block.get("text"), str)
        )
        data = (
            next(
                (
                    block["input"]
                    for block in blocks
                    if block.get("type") == "tool_use"
                    and block.get("name") == ANSWER_TOOL
                    and isinstance(block.get("input"), dict)
                ),
                None,
            )
            if self.structured
            else None
        )
        if data is not None and not text:
            text = json.dumps(data, ensure_ascii=False)
        usage = payload.get("usage")
        reported = payload.get("model")
        stop = payload.get("stop_reason")
        return TargetOutput(
            text=text,
            data=data,
            model=reported if isinstance(reported, str) else None,
            usage=Usage(
                input_tokens=token_count(usage.get("input_tokens")),
                output_tokens=token_count(usage.get("output_tokens")),
            )
            if isinstance(usage, dict)
            else None,
            finish_reason=stop if isinstance(stop, str) else None,
            latency=latency,
        )


def _anthropic(argument: str, **given: Any) -> AnthropicTarget:
    # The messages API has no seed: asking to send one is an error, not a silent no-op.
    options = target_options("anthropic", argument, given, refuses=ANTHROPIC.refuses)
    model, url = split_model_url(argument, kind="anthropic")
    return AnthropicTarget(
        model,
        base_url=url or ANTHROPIC_BASE_URL,
        **options.provider_keywords(),
        api_key_env=options.api_key_env or ANTHROPIC.key_variable,
    )


#: ``anthropic:MODEL`` (or ``anthropic:MODEL@URL``): Anthropic's messages API, the key from
#: ``ANTHROPIC_API_KEY``.
ANTHROPIC = Provider(
    kind="anthropic",
    make=_anthropic,
    key_variable="ANTHROPIC_API_KEY",
    extra=requirement("providers"),
    requires=("aiohttp",),
    forms=("anthropic:MODEL", "anthropic:MODEL@URL"),
    summary="Anthropic's messages API; MODEL@URL reaches a proxy or a stand-in server instead",
    options=TargetOptions,
    refuses=LOCAL_ONLY | KIND_ONLY | {"seed"},
    defaults={"max_tokens": DEFAULT_MAX_TOKENS},
)
