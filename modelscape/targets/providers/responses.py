"""A target for OpenAI's Responses API.

The request is ``POST {base}/responses`` with the key as a bearer token, like chat completions,
but its body differs: the system prompt is ``instructions``, the conversation is ``input``, the
length bound is ``max_output_tokens``, and structured replies are asked for in
``text.format``. The API takes neither a seed nor stop sequences. Every request sets ``store``
to false, so that OpenAI keeps no copy of the conversation for later turns (a run needs none).

The reply is a response object whose ``output`` is a list of items; the ``message`` items hold
``output_text`` parts (the reply) and ``refusal`` parts. Reasoning models put ``reasoning``
items beside them, which are skipped. ``status`` says whether the reply is complete, and
``incomplete_details.reason`` why not. OpenAI's SDKs offer the joined text as ``output_text``;
a server that sends that field instead of the items is read too.

This module declares the ``openai-responses:MODEL[@URL]`` kind of target (:data:`RESPONSES`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from modelscape._version import requirement
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest, Usage
from modelscape.targets.providers._chat import token_count
from modelscape.targets.providers._http import HttpTarget, provider_message, unscrubbed
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

__all__ = ["RESPONSES", "OpenAIResponsesTarget", "read_response"]

_FIXED = frozenset({"model", "input", "instructions"})
# The generation parameters the Responses API has: neither a seed nor stop texts.
_TAKES = frozenset({"temperature", "max_tokens", "top_p"})


def _parts(output: list[Any]) -> tuple[str, str]:
    """The text and the refusals of a response's message items, each joined."""
    texts: list[str] = []
    refusals: list[str] = []
    for item in output:
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        content = item.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "output_text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                refusals.append(part["refusal"])
    return "".join(texts), "".join(refusals)


def read_response(
    payload: dict[str, Any],
    *,
    provider: str,
    url: str | None = None,
    latency: float | None = None,
    scrub: Callable[[str], str] = unscrubbed,
) -> TargetOutput:
    """The output a Responses API reply holds: the message text (or its refusal), the status
    as finish reason, the reported model and token usage.

    A response that failed (``status`` "failed", or an ``error`` object) is a retryable
    :class:`TargetError` with the provider's message, as a reply without output is.
    """
    where = provider if url is None else f"{provider} at {url}"
    error = payload.get("error")
    if payload.get("status") == "failed" or (isinstance(error, dict) and error):
        detail = provider_message(json.dumps(payload).encode(), scrub)
        raise TargetError(f"{where} reported a failed response: {detail}")
    output = payload.get("output")
    joined = payload.get("output_text")
    if not isinstance(output, list) and not isinstance(joined, str):
        raise TargetError(f"{where} sent a response without output")
    text, refusal = _parts(output) if isinstance(output, list) else ("", "")
    if not text and isinstance(joined, str):
        text = joined
    text = text or refusal  # structured outputs put a refusal where the answer would be
    status = payload.get("status")
    finish = status if isinstance(status, str) else None
    details = payload.get("incomplete_details")
    if isinstance(details, dict) and isinstance(details.get("reason"), str):
        finish = f"{finish or 'incomplete'}: {details['reason']}"
    usage = payload.get("usage")
    reported = payload.get("model")
    return TargetOutput(
        text=text,
        model=reported if isinstance(reported, str) else None,
        usage=Usage(
            input_tokens=token_count(usage.get("input_tokens")),
            # reasoning tokens are part of output_tokens, as they are billed
            output_tokens=token_count(usage.get("output_tokens")),
        )
        if isinstance(usage, dict)
        else None,
        finish_reason=finish,
        latency=latency,
    )


class OpenAIResponsesTarget(StructuredTarget, HttpTarget):
    """A model behind OpenAI's Responses API (or a server that speaks it).

    The key comes from ``api_key_env`` (``OPENAI_API_KEY`` by default) at every call, required
    when the target is made unless the base URL is on this machine. The API has no seed and no
    stop sequences, so a ``generation`` that sets either is refused, and neither is sent nor
    part of the identity; repetitions measure the
    run-to-run variation. ``structured`` (``True`` or ``"json_schema"``) asks for replies of the
    answer reader's JSON schema in ``text.format``. The other options are those of
    :class:`~modelscape.targets.providers.openai.OpenAICompatibleTarget`.
    """

    provider = "openai-responses"
    #: The ways this target can shape its replies.
    structured_modes: tuple[StructuredMode, ...] = ("json_schema",)

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        name: str | None = None,
        version: str = "1",
        generation: Generation | None = None,
        http: HttpOptions | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        require_key: bool | None = None,
        structured: bool | str = False,
    ) -> None:
        where = f"target {name or model!r}"
        base = check_base_url(base_url, where=where)
        self.structured = structured_mode(structured, allowed=self.structured_modes, where=where)
        self.generation = (Generation() if generation is None else generation).limited_to(
            _TAKES, where=where
        )
        if require_key is None:
            require_key = api_key_env is not None and not is_loopback(base)
        self.model = model
        self.base_url = base
        parameters = self.generation.identity(takes=_TAKES)
        super().__init__(
            url=f"{base}/responses",
            name=name or model,
            version=version,
            parameters={
                "base_url": base,
                "model": model,
                **parameters,
                **({"structured": self.structured} if self.structured else {}),
            },
            api_key_env=api_key_env,
            require_key=require_key,
            http=HttpOptions() if http is None else http,
        )

    def headers(self, key: str | None) -> dict[str, str]:
        """JSON, and the key as a bearer token when there is one."""
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def body(self, request: TargetRequest) -> dict[str, Any]:
        """Model, instructions, input messages, ``store: false`` and the parameters that are set.

        Settings carried by the request are added last, except model, input and instructions.
        """
        prompt = request.prompt
        body: dict[str, Any] = {
            "model": self.model,
            "input": [{"role": m.role, "content": m.content} for m in prompt.messages],
            "store": False,
        }
        if prompt.system:
            body["instructions"] = prompt.system
        body.update(self.generation.fields(request.seed, token_field="max_output_tokens"))
        if self.structured is not None:
            body["text"] = {
                "format": {
                    "type": "json_schema",
                    "name": "answer",
                    "strict": True,
                    "schema": self.shape(request).json_schema(),
                }
            }
        body.update((k, v) for k, v in request.settings.items() if k not in _FIXED)
        return body

    def output(self, payload: dict[str, Any], latency: float) -> TargetOutput:
        """The message text, the status, the reported model and token usage."""
        return read_response(
            payload, provider=self.provider, url=self.url, latency=latency, scrub=self.scrub
        )


def _responses(argument: str, **given: Any) -> OpenAIResponsesTarget:
    # Neither a seed nor stop sequences exist in this API: asking for one is an error.
    options = target_options("openai-responses", argument, given, refuses=RESPONSES.refuses)
    model, url = split_model_url(argument, kind="openai-responses")
    return OpenAIResponsesTarget(
        model,
        base_url=url or OPENAI_BASE_URL,
        **options.provider_keywords(),
        api_key_env=options.api_key_env or RESPONSES.key_variable,
    )


#: ``openai-responses:MODEL`` (or ``MODEL@URL``): OpenAI's Responses API, the key from
#: ``OPENAI_API_KEY``.
RESPONSES = Provider(
    kind="openai-responses",
    make=_responses,
    key_variable="OPENAI_API_KEY",
    extra=requirement("providers"),
    requires=("aiohttp",),
    forms=("openai-responses:MODEL", "openai-responses:MODEL@URL"),
    summary="OpenAI's Responses API (/v1/responses), with store off; MODEL@URL reaches a proxy "
    "or a stand-in server instead",
    options=TargetOptions,
    refuses=LOCAL_ONLY | KIND_ONLY | {"seed", "stop"},
)
