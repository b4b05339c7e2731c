"""CallableTarget: any function from a request to text, JSON or an output, as a target."""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeAlias

from modelscape._identity import Identity, JsonValue
from modelscape.execution.target import TargetError, TargetOutput, TargetRequest

__all__ = ["CallableTarget", "TargetFunction", "as_output"]

TargetResult: TypeAlias = str | dict[str, Any] | list[Any] | TargetOutput
TargetFunction: TypeAlias = Callable[[TargetRequest], TargetResult | Awaitable[TargetResult]]

# Sync targets share one pool. asyncio's default executor has only cpu_count + 4 threads,
# which would quietly cap a run at that concurrency whatever ExecutionConfig asks for; threads
# here are started only when needed.
_POOL_SIZE = 256
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _thread_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_POOL_SIZE, thread_name_prefix="modelscape-target")
        return _pool


def as_output(result: object, *, where: str = "target") -> TargetOutput:
    """A target function's result as a :class:`TargetOutput`.

    Text becomes ``text``; a dict or list becomes ``data`` with ``text`` its JSON; an output is
    kept. Anything else is a non-retryable :class:`TargetError`, since asking again would
    return the same wrong type.
    """
    if isinstance(result, TargetOutput):
        return result
    if isinstance(result, str):
        return TargetOutput(text=result)
    if isinstance(result, (dict, list)):
        try:
            text = json.dumps(result, ensure_ascii=False, allow_nan=False)
            return TargetOutput(text=text, data=result)
        except (TypeError, ValueError) as error:
            raise TargetError(
                f"{where} returned data that is not JSON: {error}", retryable=False
            ) from None
    raise TargetError(
        f"{where} returned {type(result).__name__}; return text, a dict or list (JSON), or a "
        "TargetOutput",
        retryable=False,
    )


def _is_async(function: object) -> bool:
    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)  # noqa: B004 - callable objects with async __call__
    return inspect.iscoroutinefunction(call)


class CallableTarget:
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
            result = await loop.run_in_executor(_thread_pool(), call)
            if inspect.isawaitable(result):
                result = await result
        output = as_output(result, where=f"target {self._name!r}")
        if output.latency is None:
            output = output.model_copy(update={"latency": time.perf_counter() - started})
        return output

    def __repr__(self) -> str:
        return f"CallableTarget({self._identity})"
