"""A run's targets, opened before the first call and closed after the last.

Targets built here hold resources for the length of a run: an HTTP target its share of the
pooled client session, a :class:`~modelscape.targets._callable.CallableTarget` its worker
threads, a local llama.cpp target its loaded model. :func:`opened` enters every target of a run
that is an async context manager (``async with target:``), or schedules ``await
target.aclose()`` for one that only has that, and leaves them in reverse order when the run
ends, whether it finished, failed or was cancelled. A plain object that satisfies
:class:`~modelscape.targets.protocol.Target` and has neither is used as it is: the lifecycle is
an offer, not part of the protocol.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

__all__ = ["opened"]


def _is_context(target: object) -> bool:
    # Looked up on the type, as ``async with`` does: an instance attribute does not count.
    kind = type(target)
    return callable(getattr(kind, "__aenter__", None)) and callable(
        getattr(kind, "__aexit__", None)
    )


@contextlib.asynccontextmanager
async def opened(targets: Iterable[object]) -> AsyncIterator[None]:
    """Enter every target that has a lifecycle, each object once, for the body's duration."""
    async with contextlib.AsyncExitStack() as stack:
        seen: set[int] = set()
        for target in targets:
            if id(target) in seen:
                continue
            seen.add(id(target))
            if _is_context(target):
                await stack.enter_async_context(cast(AbstractAsyncContextManager[Any], target))
            else:
                close = getattr(target, "aclose", None)
                if callable(close):
                    stack.push_async_callback(close)
        yield
