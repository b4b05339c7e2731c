"""A loopback stand-in for a provider: answers chat completions and messages as scripted.

It runs aiohttp.web on its own event loop in a thread, on 127.0.0.1 and a free port. Each
request takes the next scripted :class:`Step` (status, headers, body, delay), or the default
reply when the script is empty; every request is recorded with its headers and body, and the
peak number of requests in flight is kept, so tests can check what a target sent and how.
"""

from __future__ import annotations

import asyncio
import collections
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.targets.providers.serving import Serving

#: The text every default reply carries.
REPLY = '{"answer": "yes"}'


def chat_completion(text: str = REPLY, *, model: str = "fake-model-2025-01") -> dict[str, Any]:
    """A chat-completions reply as OpenAI-compatible servers send it."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


def anthropic_message(text: str = REPLY, *, model: str = "claude-fake-20250101") -> dict[str, Any]:
    """A messages-API reply as Anthropic sends it."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 9, "output_tokens": 4},
    }


@dataclass
class Step:
    """One scripted answer."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Received:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float
    #: The client's end of the connection (host, port): one per connection it opened.
    peer: tuple[str, int] | None = None


class FakeProvider:
    """The scripted server; use :meth:`then` to queue answers and read :attr:`requests`."""

    def __init__(self) -> None:
        self.script: collections.deque[Step] = collections.deque()
        self.requests: list[Received] = []
        self.in_flight = 0
        self.peak = 0
        self.delay = 0.0
        #: Makes the body of every unscripted reply from the request, when set.
        self.respond: Callable[[Received], Any] | None = None
        self._serving = Serving(self._routes)
        self.port = 0

    @property
    def url(self) -> str:
        """The base URL of the OpenAI-compatible API (``.../v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root(self) -> str:
        """The server's root, the base URL of the Anthropic API."""
        return f"http://127.0.0.1:{self.port}"

    def then(
        self, status: int = 200, body: Any = None, *, delay: float = 0.0, **headers: str
    ) -> None:
        """Queue one answer; header names use underscores for hyphens (``Retry_After``)."""
        named = {name.replace("_", "-"): value for name, value in headers.items()}
        self.script.append(Step(status, body, named, delay))

    async def _handle(self, request: web.Request) -> web.Response:
        raw = await request.read()
        peer = request.transport.get_extra_info("peername") if request.transport else None
        received = Received(
            request.path,
            dict(request.headers),
            json.loads(raw or b"{}"),
            time.monotonic(),
            None if peer is None else (str(peer[0]), int(peer[1])),
        )
        self.requests.append(received)
        if self.script:
            step = self.script.popleft()
        else:
            body = None if self.respond is None else self.respond(received)
            step = Step(body=body, delay=self.delay)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            if step.delay:
                await asyncio.sleep(step.delay)
        finally:
            self.in_flight -= 1
        body = step.body
        if body is None:
            body = anthropic_message() if request.path.endswith("/messages") else chat_completion()
        if isinstance(body, bytes):  # sent as it is, for compressed or malformed bodies
            return web.Response(status=step.status, body=body, headers=step.headers)
        text = body if isinstance(body, str) else json.dumps(body)
        return web.Response(
            status=step.status, text=text, headers=step.headers, content_type="application/json"
        )

    def _routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/v1/messages", self._handle)

    def start(self) -> FakeProvider:
        """Start serving; returns self."""
        self.port = self._serving.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the server's loop."""
        self._serving.stop()
