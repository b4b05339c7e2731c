"""CallableTarget: any function from a request to text, JSON or an output, as a target."""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeAlias

from modelscape._identity import Identity, JsonValue
from modelscape.targets.protocol import Lifecycle, TargetOutput, TargetRequest, as_output

__all__ = ["CallableTarget", "TargetFunction"]

TargetResult: TypeAlias = str | dict[str, Any] | list[Any] | TargetOutput
TargetFunction: TypeAlias = Callable[[TargetRequest], TargetResult | Awaitable[TargetResult]]

# Each target of a sync function has its own pool. asyncio's default executor has only
# cpu_count + 4 threads, which would quietly cap a run at that concurrency whatever
# ExecutionConfig asks for; threads here are started only when needed, and the pool is shut
# down when the target is closed (the runner closes it when the run ends).
_POOL_SIZE = 256


def _is_async(function: object) -> bool:
    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)  # noqa: B004 - callable objects with async __call__
    return inspect.iscoroutinefunction(call)


class CallableTarget(Lifecycle):
    """Any function from a :class:`TargetRequest` to text, JSON or a :class:`TargetOutput`.

    Async functions are awaited on the runner's loop; synchronous ones run in worker threads so
    that slow blocking clients still run concurrently. When the output does not report a
    latency, the wall time of the call is recorded. Put behaviour-relevant settings (model
    name, temperature) in ``parameters``, never credentials: they are part of the identity that
    every stored record names.
    """

    def __init__(
        self,
        function: TargetFunction,
        *,
        name: str,
        version: str = "1",
        parameters: Mapping[str, JsonValue] | None = None,
    ) -> None:
        if not callable(function):
            raise TypeError(f"CallableTarget needs a function, not {type(function).__name__}")
        self.function = function
        self._name = name
        self._version = version
        self._parameters: dict[str, JsonValue] = dict(parameters or {})
        self._identity = Identity(
            kind="target", name=name, version=version, parameters=self._parameters
        )
        self._async = _is_async(function)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @property
    def identity(self) -> Identity:
        """The target's name, version and parameters."""
        return self._identity

    @property
    def name(self) -> str:
        """The name results use for this target."""
        return self._name

    @property
    def version(self) -> str:
        """The version; change it whenever the function's behaviour changes."""
        return self._version

    @property
    def parameters(self) -> dict[str, JsonValue]:
        """The behaviour-relevant settings named in the identity."""
        return dict(self._parameters)

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        started = time.perf_counter()
        if self._async:
            result: object = await self.function(request)  # type: ignore[misc]
        else:
            loop = asyncio.get_running_loop()
            call = functools.partial(self.function, request)
            result = await loop.run_in_executor(self._thread_pool(), call)
            if inspect.isawaitable(result):
                result = await result
        output = as_output(result, where=f"target {self._name!r}")
        if output.latency is None:
            output = output.model_copy(update={"latency": time.perf_counter() - started})
        return output

    def _thread_pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(_POOL_SIZE, thread_name_prefix="modelscape-target")
            return self._pool

    async def aclose(self) -> None:
        """Shut down the worker threads of a sync function; the next call starts new ones.

        Calls still running (one the runner gave up on after its timeout) finish in their
        threads, unwaited: closing never blocks on a function that hangs.
        """
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def __repr__(self) -> str:
        return f"CallableTarget({self._identity})"
