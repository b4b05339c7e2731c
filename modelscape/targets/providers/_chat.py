"""The OpenAI chat-completions shape, written once: the messages a prompt becomes, and the
output read from a reply.

Two targets speak it: :class:`~modelscape.targets.providers.openai.OpenAICompatibleTarget` over HTTP
(OpenAI, vLLM, llama.cpp's server, Ollama, LM Studio, OpenRouter) and
:class:`~modelscape.targets.providers.llama.LlamaCppTarget` in-process, whose
``create_chat_completion`` answers with the same JSON. A reply holds ``choices`` (the first is
read: its ``message``, whose ``content`` is a string or a list of content parts, a ``refusal``
that structured outputs put beside an empty content, and its ``finish_reason``), the ``model``
that served it and ``usage`` in prompt and completion tokens. Servers differ in what they leave
out, so every field is checked before it is read, and a reply without choices is an error of
the call (retryable: proxies and overloaded servers send such replies).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from modelscape.targets.protocol import TargetError, TargetOutput, Usage
from modelscape.targets.providers._http import provider_message, unscrubbed
from modelscape.task.prompt import Prompt

__all__ = ["chat_messages", "read_chat_completion", "token_count"]


def chat_messages(prompt: Prompt) -> list[dict[str, str]]:
    """The prompt as chat messages: the system instruction first, when there is one."""
    messages = [{"role": "system", "content": prompt.system}] if prompt.system else []
    messages.extend({"role": m.role, "content": m.content} for m in prompt.messages)
    return messages


#: Token counts past this are not counts but garbage (and would overflow a price's float).
_MOST_TOKENS = 2**53


def token_count(value: object) -> int:
    """A token count a provider reported, or 0 when the value is not a plausible count."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _MOST_TOKENS:
        return value
    return 0


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


def read_chat_completion(
    payload: dict[str, Any],
    *,
    provider: str,
    url: str | None = None,
    latency: float | None = None,
    scrub: Callable[[str], str] = unscrubbed,
) -> TargetOutput:
    """The output a chat completion holds: the first choice's text, its finish reason, the
    reported model and token usage.

    ``provider`` and ``url`` name the server in errors; ``scrub`` cleans a provider's error
    message that came inside a reply (some proxies report errors with status 200) before it
    is cut.
    """
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        if "error" in payload:  # OpenRouter and some proxies report errors with a 200
            detail = provider_message(json.dumps(payload).encode(), scrub)
            raise TargetError(f"{provider} sent an error in its reply: {detail}")
        where = provider if url is None else f"{provider} at {url}"
        raise TargetError(f"{where} sent a reply without choices")
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
            input_tokens=token_count(usage.get("prompt_tokens")),
            output_tokens=token_count(usage.get("completion_tokens")),
        )
        if isinstance(usage, dict)
        else None,
        finish_reason=finish if isinstance(finish, str) else None,
        latency=latency,
    )
