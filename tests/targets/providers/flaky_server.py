"""A loopback chat-completions server that misbehaves at random, as real providers do.

Each request draws from a seeded random stream: with probability ``faults`` it gets one of the
faults (an HTTP 429 with a short ``Retry-After``, an HTTP 500, a hang of ``hang`` seconds
before the reply, or a body cut off mid-way), otherwise the reply after ``delay`` seconds. The
server records when it began and ended each reply, so a test can tell a timeout the server
caused (a hang) from one the client made up (a reply sent in time).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from aiohttp import web

from tests.targets.providers.fake_server import chat_completion
from tests.targets.providers.serving import Serving

FAULTS = ("429", "500", "hang", "cut")


@dataclass
class FlakyServer:
    """The server; :meth:`start` it, point a target at :attr:`url`, :meth:`stop` it."""

    faults: float = 0.25
    kinds: tuple[str, ...] = FAULTS
    delay: float = 0.0
    hang: float = 1.0
    retry_after: float = 0.05
    seed: int = 0
    #: How many requests got each answer ("ok" or a fault).
    answers: Counter[str] = field(default_factory=Counter)
    #: Seconds from receiving to finishing each reply that was sent whole ("ok" answers).
    answered_in: list[float] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._serving = Serving(
            lambda app: app.router.add_post("/v1/chat/completions", self._handle), backlog=1024
        )
        self._body = json.dumps(chat_completion()).encode()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        began = time.monotonic()
        await request.read()
        kind = self._rng.choice(self.kinds) if self._rng.random() < self.faults else "ok"
        self.answers[kind] += 1
        if kind == "429":
            headers = {"Retry-After": f"{self.retry_after:g}"}
            return web.json_response(
                {"error": {"message": "slow down"}}, status=429, headers=headers
            )
        if kind == "500":
            return web.json_response({"error": {"message": "upstream died"}}, status=500)
        if kind == "cut":
            response = web.StreamResponse(headers={"Content-Type": "application/json"})
            response.content_length = len(self._body)
            await response.prepare(request)
            await response.write(self._body[: len(self._body) // 2])
            if request.transport is not None:
                request.transport.close()
            return response
        await asyncio.sleep(self.hang if kind == "hang" else self.delay)
        response = web.Response(body=self._body, content_type="application/json")
        if kind == "ok":
            self.answered_in.append(time.monotonic() - began)
        return response

    def start(self) -> FlakyServer:
        """Start serving; returns self."""
        self.port = self._serving.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the server's loop."""
        self._serving.stop()
