"""An aiohttp app served on 127.0.0.1 by an event loop in a thread of its own.

The provider tests' fake servers (scripted, flaky, any-path) answer real HTTP while the test
drives a target from its own thread or loop; each adds its routes and keeps its own state.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from aiohttp import web


class Serving:
    """Serves the app that ``routes`` fills; :meth:`start` gives its port, :meth:`stop` ends it."""

    def __init__(self, routes: Callable[[web.Application], None], *, backlog: int = 128) -> None:
        self._routes = routes
        self._backlog = backlog
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    async def _start(self) -> int:
        app = web.Application()
        self._routes(app)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=self._backlog)
        await site.start()
        return int(self._runner.addresses[0][1])

    def start(self) -> int:
        """Start serving; the port it listens on."""
        self._thread.start()
        return asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)

    def stop(self) -> None:
        """Stop serving and close the loop."""
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
