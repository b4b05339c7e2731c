"""The pooled HTTP client that every provider target of a run shares.

The provider targets of a run send their requests through one
``aiohttp.ClientSession``, so that connections are kept alive and reused across targets and
calls. aiohttp was chosen by measurement: at a concurrency of 100 it spent about 0.2 ms of
client CPU per request, against about 10 ms for httpx 0.28
(``benchmarks/providers_vs_inspect.py`` measures the whole path). A session belongs to the loop
that made it and must be closed on that loop, so its life follows the targets' own: entering an
HTTP target (``async with target:``, which the runner does for every target of a run) takes a
share of the running loop's session, opening it if none is open, and leaving it (or ``await
target.aclose()``) gives the share back; the last target to leave closes the session. A target
that is called without being entered opens a session for that call and closes it after: it
works, without pooling. aiohttp itself is imported only when a call is made, so that a
provider's module loads (and its kind is listed) without the extra installed.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import aiohttp

__all__ = ["acquire", "new_session", "release"]

# Connections are not capped here: the runner bounds the calls in flight and each target's
# limiter bounds its own; a connector limit (aiohttp's default is 100) would silently cap both.
_CONNECTOR_LIMIT = 0
# Keep idle connections for a while so that a run's next call reuses them.
_KEEPALIVE_SECONDS = 30.0


def new_session() -> aiohttp.ClientSession:
    import aiohttp

    connector = aiohttp.TCPConnector(limit=_CONNECTOR_LIMIT, keepalive_timeout=_KEEPALIVE_SECONDS)
    # No client-side timeout: the runner's ExecutionConfig.timeout bounds every call, and
    # a second, hidden limit here would make that setting lie.
    return aiohttp.ClientSession(
        connector=connector,
        timeout=aiohttp.ClientTimeout(total=None),
        raise_for_status=False,
        # Providers' replies are JSON we parse ourselves; skip aiohttp's cookie handling.
        cookie_jar=aiohttp.DummyCookieJar(),
    )


@dataclass
class _Shared:
    session: aiohttp.ClientSession
    users: int = 0


# The session of each loop on which HTTP targets are open, with how many hold a share of it.
_shared: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Shared] = weakref.WeakKeyDictionary()


async def acquire() -> aiohttp.ClientSession:
    """A share of the running loop's session, opened if no target holds one."""
    loop = asyncio.get_running_loop()
    held = _shared.get(loop)
    if held is None or held.session.closed:
        held = _shared[loop] = _Shared(new_session())
    held.users += 1
    return held.session


async def release(session: aiohttp.ClientSession) -> None:
    """Give a share back; the last one closes the session."""
    held = _shared.get(asyncio.get_running_loop())
    if held is None or held.session is not session:
        await session.close()  # taken on another loop, or already replaced: close it alone
        return
    held.users -= 1
    if held.users <= 0:
        del _shared[asyncio.get_running_loop()]
        await session.close()
