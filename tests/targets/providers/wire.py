"""Loopback stand-ins for the wire protocols of hosted providers.

:class:`WireServer` answers every POST on 127.0.0.1 and a free port, whatever its path, the way
the real API answers: each request takes the next scripted reply, or the protocol's default
one. It records each request as the server saw it, the raw path (still percent-encoded, as a
signature covers it) and query included. The ``*_reply`` functions write each protocol's
successful reply, and :data:`PROTOCOLS` says, for each kind of target, how to make one that
talks to a server, what its successful reply looks like and which header carries its secret.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from modelscape.targets.providers._http import HttpTarget
from modelscape.targets.providers.azure import AzureOpenAITarget
from modelscape.targets.providers.bedrock import BedrockTarget
from modelscape.targets.providers.gemini import GeminiTarget
from modelscape.targets.providers.responses import OpenAIResponsesTarget
from tests.targets.providers.serving import Serving

#: The text every default reply carries.
REPLY = '{"answer": "yes"}'
#: A secret every protocol's tests put in the environment.
SECRET = "sk-wire-SECRET-" + "a1b2c3" * 8


def responses_reply(text: str = REPLY, *, model: str = "gpt-fake-2025-01") -> dict[str, Any]:
    """A Responses API reply: a reasoning item, then the message."""
    return {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": model,
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            },
        ],
        "usage": {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18},
    }


def chat_reply(text: str = REPLY, *, model: str = "gpt-4o-2024-11-20") -> dict[str, Any]:
    """A chat completion as Azure OpenAI sends it."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


def gemini_reply(text: str = REPLY, *, model: str = "gemini-2.0-flash-001") -> dict[str, Any]:
    """A ``generateContent`` reply, with a thought part that is not the answer."""
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "thinking it over", "thought": True}, {"text": text}],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 10,
            "candidatesTokenCount": 6,
            "thoughtsTokenCount": 3,
            "totalTokenCount": 19,
        },
        "modelVersion": model,
    }


def converse_reply(text: str = REPLY) -> dict[str, Any]:
    """A Converse reply from Bedrock."""
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 13, "outputTokens": 4, "totalTokens": 17},
        "metrics": {"latencyMs": 120},
    }


@dataclass
class Seen:
    """One request as the server saw it."""

    raw_path: str
    query: dict[str, str]
    headers: dict[str, str]
    raw: bytes
    body: Any


@dataclass
class Reply:
    """One scripted answer: a status, a body (JSON, text, or bytes as they are) and headers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class WireServer:
    """A scripted HTTP server on loopback that answers any POST."""

    def __init__(self, default: Callable[[Seen], Any]) -> None:
        self.default = default
        self.script: collections.deque[Reply] = collections.deque()
        self.seen: list[Seen] = []
        self._serving = Serving(lambda app: app.router.add_post("/{tail:.*}", self._handle))
        self.port = 0

    @property
    def url(self) -> str:
        """The server's root."""
        return f"http://127.0.0.1:{self.port}"

    def then(self, status: int = 200, body: Any = None, **headers: str) -> None:
        """Queue one answer; header names use underscores for hyphens (``Retry_After``)."""
        named = {name.replace("_", "-"): value for name, value in headers.items()}
        self.script.append(Reply(status, body, named))

    async def _handle(self, request: web.Request) -> web.Response:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        seen = Seen(request.raw_path, dict(request.query), dict(request.headers), raw, body)
        self.seen.append(seen)
        reply = self.script.popleft() if self.script else Reply(body=self.default(seen))
        if isinstance(reply.body, bytes):
            return web.Response(status=reply.status, body=reply.body, headers=reply.headers)
        text = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
        return web.Response(
            status=reply.status, text=text, headers=reply.headers, content_type="application/json"
        )

    def start(self) -> WireServer:
        """Start serving; returns self."""
        self.port = self._serving.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the server's loop."""
        self._serving.stop()


@dataclass(frozen=True)
class Protocol:
    """One provider's wire protocol as the shared tests need it."""

    #: The target kind, as a target name starts.
    kind: str
    #: A target talking to a server's root, with options.
    make: Callable[..., HttpTarget]
    #: A successful reply whose text is the given text.
    reply: Callable[[str], dict[str, Any]]
    #: The environment variables a call reads its secret from, set to :data:`SECRET`.
    environment: dict[str, str]
    #: The header that carries the secret, and how it appears there.
    header: tuple[str, Callable[[str], str]]


PROTOCOLS = {
    "openai-responses": Protocol(
        "openai-responses",
        lambda root, **options: OpenAIResponsesTarget("gpt-fake", base_url=f"{root}/v1", **options),
        responses_reply,
        {"OPENAI_API_KEY": SECRET},
        ("Authorization", lambda secret: f"Bearer {secret}"),
    ),
    "azure-openai": Protocol(
        "azure-openai",
        lambda root, **options: AzureOpenAITarget("prod-4o", endpoint=root, **options),
        chat_reply,
        {"AZURE_OPENAI_API_KEY": SECRET},
        ("api-key", lambda secret: secret),
    ),
    "gemini": Protocol(
        "gemini",
        lambda root, **options: GeminiTarget("gemini-2.0-flash", base_url=root, **options),
        gemini_reply,
        {"GEMINI_API_KEY": SECRET},
        ("x-goog-api-key", lambda secret: secret),
    ),
    "bedrock": Protocol(
        "bedrock",
        lambda root, **options: BedrockTarget(
            "anthropic.claude-3-5-haiku-20241022-v1:0", region="eu-west-1", base_url=root, **options
        ),
        converse_reply,
        {
            "AWS_ACCESS_KEY_ID": "AKIDWIRETEST",
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_SESSION_TOKEN": "session-" + SECRET,
        },
        ("X-Amz-Security-Token", lambda secret: "session-" + secret),
    ),
}
