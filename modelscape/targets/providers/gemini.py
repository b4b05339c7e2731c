"""A target for Google's Gemini API (``generateContent``).

The request is ``POST {base}/models/{MODEL}:generateContent`` with the key in the
``x-goog-api-key`` header. The API also takes the key in the query string, which is never used
here: a URL ends up in proxy logs, error messages and tracebacks, a header does not. The body
holds ``contents`` (turns of ``user`` and ``model``, each a list of parts), an optional
``systemInstruction``, and ``generationConfig`` (temperature, ``maxOutputTokens``, ``topP``,
``stopSequences``, ``seed``, and for structured replies a response MIME type and JSON schema).

The reply holds ``candidates``: the first one's parts joined make the text (parts marked as the
model's thoughts are left out), its ``finishReason`` says why it ended. ``usageMetadata``
counts prompt, candidate and thought tokens; ``modelVersion`` names the model that answered. A
prompt that Gemini refuses to answer comes back without candidates and with
``promptFeedback.blockReason``: that is the model's behaviour, recorded as an empty reply whose
finish reason says it was blocked, not as a failed call.

This module declares the ``gemini:MODEL[@URL]`` kind of target (:data:`GEMINI`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

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

__all__ = ["GEMINI", "GEMINI_BASE_URL", "GeminiTarget", "read_generate_content"]

#: Where Gemini's API is; ``gemini:MODEL`` sends its requests there.
GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"

_FIXED = frozenset({"contents", "systemInstruction"})
# Gemini calls the assistant's turns the model's.
_ROLES = {"assistant": "model"}
# Gemini's seed is a 32-bit signed integer.
_SEED_MASK = 0x7FFFFFFF


def read_generate_content(
    payload: dict[str, Any],
    *,
    provider: str,
    url: str | None = None,
    latency: float | None = None,
    scrub: Callable[[str], str] = unscrubbed,
) -> TargetOutput:
    """The output a ``generateContent`` reply holds: the first candidate's text, its finish
    reason, the model version and token usage (thoughts counted as output, as billed)."""
    where = provider if url is None else f"{provider} at {url}"
    usage_metadata = payload.get("usageMetadata")
    usage = (
        Usage(
            input_tokens=token_count(usage_metadata.get("promptTokenCount")),
            output_tokens=token_count(usage_metadata.get("candidatesTokenCount"))
            + token_count(usage_metadata.get("thoughtsTokenCount")),
        )
        if isinstance(usage_metadata, dict)
        else None
    )
    reported = payload.get("modelVersion")
    model = reported if isinstance(reported, str) else None
    candidates = payload.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        feedback = payload.get("promptFeedback")
        reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
        if isinstance(reason, str):
            return TargetOutput(
                model=model, usage=usage, finish_reason=f"blocked: {reason}", latency=latency
            )
        if "error" in payload:
            detail = provider_message(json.dumps(payload).encode(), scrub)
            raise TargetError(f"{where} sent an error in its reply: {detail}")
        raise TargetError(f"{where} sent a reply without candidates")
    candidate = candidates[0]
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    text = (
        "".join(
            part["text"]
            for part in parts
            if isinstance(part, dict)
            and isinstance(part.get("text"), str)
            and part.get("thought") is not True
        )
        if isinstance(parts, list)
        else ""
    )
    finish = candidate.get("finishReason")
    return TargetOutput(
        text=text,
        model=model,
        usage=usage,
        finish_reason=finish if isinstance(finish, str) else None,
        latency=latency,
    )


class GeminiTarget(StructuredTarget, HttpTarget):
    """A Gemini model behind Google's ``generateContent`` API (or a server that speaks it).

    The key is read from ``api_key_env`` (``GEMINI_API_KEY`` by default) at every call and sent
    in the ``x-goog-api-key`` header; a missing key is an error when the target is made unless
    the base URL is on this machine. The seed hint is sent as ``generationConfig.seed`` unless
    ``seed`` is off. ``structured`` (``True`` or ``"json_schema"``) asks for JSON replies of
    the answer reader's schema (``responseMimeType`` and ``responseJsonSchema``). The other
    options are those of :class:`~modelscape.targets.providers.openai.OpenAICompatibleTarget`.
    """

    provider = "gemini"
    #: The ways this target can shape its replies.
    structured_modes: tuple[StructuredMode, ...] = ("json_schema",)

    def __init__(
        self,
        model: str,
        *,
        base_url: str = GEMINI_BASE_URL,
        name: str | None = None,
        version: str = "1",
        generation: Generation | None = None,
        http: HttpOptions | None = None,
        api_key_env: str | None = "GEMINI_API_KEY",
        require_key: bool | None = None,
        structured: bool | str = False,
    ) -> None:
        where = f"target {name or model!r}"
        base = check_base_url(base_url, where=where)
        self.structured = structured_mode(structured, allowed=self.structured_modes, where=where)
        self.generation = Generation() if generation is None else generation
        if require_key is None:
            require_key = api_key_env is not None and not is_loopback(base)
        # "models/gemini-2.0-flash" and "gemini-2.0-flash" name the same model.
        self.model = model.removeprefix("models/")
        self.base_url = base
        super().__init__(
            # The model is one path segment, whatever characters its name holds.
            url=f"{base}/models/{quote(self.model, safe='-._~')}:generateContent",
            name=name or self.model,
            version=version,
            parameters={
                "base_url": base,
                "model": self.model,
                **self.generation.identity(),
                **({"structured": self.structured} if self.structured else {}),
            },
            api_key_env=api_key_env,
            require_key=require_key,
            http=HttpOptions() if http is None else http,
        )

    def headers(self, key: str | None) -> dict[str, str]:
        """JSON, and the key in ``x-goog-api-key`` when there is one."""
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["x-goog-api-key"] = key
        return headers

    def body(self, request: TargetRequest) -> dict[str, Any]:
        """Contents, system instruction and the generation config of the parameters set.

        Settings carried by the request are added last (``safetySettings``, a whole
        ``generationConfig``, ...), except contents and the system instruction.
        """
        prompt = request.prompt
        body: dict[str, Any] = {
            "contents": [
                {
                    "role": _ROLES.get(m.role, m.role),
                    "parts": [{"text": m.content}],
                }
                for m in prompt.messages
            ]
        }
        if prompt.system:
            body["systemInstruction"] = {"parts": [{"text": prompt.system}]}
        fields = self.generation.fields(
            request.seed & _SEED_MASK, token_field="maxOutputTokens", stop_field="stopSequences"
        )
        config = {{"top_p": "topP"}.get(k, k): v for k, v in fields.items()}
        if self.structured is not None:
            config["responseMimeType"] = "application/json"
            config["responseJsonSchema"] = self.shape(request).json_schema()
        if config:
            body["generationConfig"] = config
        body.update((k, v) for k, v in request.settings.items() if k not in _FIXED)
        return body

    def output(self, payload: dict[str, Any], latency: float) -> TargetOutput:
        """The first candidate's text, its finish reason, the model version and token usage."""
        return read_generate_content(
            payload, provider=self.provider, url=self.url, latency=latency, scrub=self.scrub
        )


def _gemini(argument: str, **given: Any) -> GeminiTarget:
    options = target_options("gemini", argument, given, refuses=GEMINI.refuses)
    model, url = split_model_url(argument, kind="gemini")
    return GeminiTarget(
        model,
        base_url=url or GEMINI_BASE_URL,
        **options.provider_keywords(),
        api_key_env=options.api_key_env or GEMINI.key_variable,
    )


#: ``gemini:MODEL`` (or ``gemini:MODEL@URL``): Google's Gemini API, the key from
#: ``GEMINI_API_KEY``.
GEMINI = Provider(
    kind="gemini",
    make=_gemini,
    key_variable="GEMINI_API_KEY",
    extra=requirement("providers"),
    requires=("aiohttp",),
    forms=("gemini:MODEL", "gemini:MODEL@URL"),
    summary="Google's Gemini API (generateContent); MODEL@URL reaches a proxy or a stand-in "
    "server instead",
    options=TargetOptions,
    refuses=LOCAL_ONLY | KIND_ONLY,
)
