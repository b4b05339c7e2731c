"""The target protocol: what a model is sent, and what comes back.

Everything a target receives is a :class:`TargetRequest`: the prompt, a seed hint and settings,
never the task, its coordinate or its step history, so a target cannot tell which variant it is
answering. Everything it returns is a :class:`TargetOutput`, which is untrusted data.

A target may also hold resources for the length of a run (a pooled HTTP session, worker
threads, a loaded model): :class:`IdentifiedTarget` gives every target built here
``async with target:`` and ``await target.aclose()``, which the runner uses (see
:mod:`~modelscape.targets._lifecycle`). The protocol itself asks for neither, so any object with
an identity and an async call is still a target.
"""

from __future__ import annotations

import copy
import json
from types import TracebackType
from typing import Literal, Protocol, Self, runtime_checkable

from pydantic import Field

from modelscape._identity import Identity, JsonValue
from modelscape._model import FrozenModel
from modelscape.errors import ExecutionError
from modelscape.targets._shape import AnswerShape
from modelscape.task.prompt import Prompt

__all__ = [
    "IdentifiedTarget",
    "Lifecycle",
    "Target",
    "TargetError",
    "TargetOutput",
    "TargetRequest",
    "Usage",
    "as_output",
]


class TargetRequest(FrozenModel):
    """What a target receives: the prompt only, never the task, coordinate or step history.

    ``seed`` is a hint derived from the observation's id. Providers may ignore it or honour it
    only in part, so no analysis assumes that a seed makes outputs reproducible; repetitions
    measure run-to-run variation either way. ``repetition`` (from 0) says which repetition of
    the variant this call is, so a stand-in target can vary its replies without counting calls.
    ``answer`` is the shape of the replies the scenario's answer reader can read (the same for
    every variant), for targets that can ask their provider for output of that shape; None
    when the reader's shape is not known.
    """

    prompt: Prompt
    seed: int
    repetition: int = Field(default=0, ge=0)
    settings: dict[str, JsonValue] = Field(default_factory=dict)
    answer: AnswerShape | None = None


class Usage(FrozenModel):
    """Token counts a provider reported for one call, and what they cost.

    ``cost`` is None unless the target was given a price table (``price:`` in a targets.yaml):
    the tokens times the price per million.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None


class TargetOutput(FrozenModel):
    """One invocation result. Model output is untrusted data: never executed, never rendered.

    ``text`` is the reply; ``data`` holds JSON when the target returned structured output.
    ``model`` is the model version the provider reported, ``usage`` its token counts,
    ``finish_reason`` why generation stopped, ``latency`` the seconds the call took, and
    ``error`` what went wrong when the call failed.
    """

    text: str = ""
    data: JsonValue = None
    model: str | None = None
    usage: Usage | None = None
    finish_reason: str | None = None
    latency: float | None = None
    error: str | None = None


class TargetError(ExecutionError):
    """What a target raises when a call failed, so the runner knows whether to try again.

    ``retry_after`` is the provider's hint, in seconds, of when to try again (an HTTP 429's
    ``Retry-After``); the runner waits that long instead of its own backoff. ``retryable`` is
    False for failures no retry can fix (a malformed request, a refused key): the observation
    is then stored as failed at once, and asked again only on the next run.

    ``kind`` says what failed when it is the endpoint rather than the request: ``"connection"``
    (nothing answers) or ``"auth"`` (the key is missing or refused). Such failures repeat for
    every call, so the runner stops asking a target after
    :attr:`~modelscape.execution.config.ExecutionConfig.stop_after` identical ones in a row.
    """

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        retryable: bool = True,
        kind: Literal["connection", "auth"] | None = None,
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.retryable = retryable
        self.kind = kind


@runtime_checkable
class Target(Protocol):
    """Anything that answers prompts: an async call from a request to an output.

    ``identity`` (name, version and behaviour-relevant parameters, never credentials) names the
    target in every stored record; ``name`` labels it in results, so the targets of one
    experiment need different names. A call raises :class:`TargetError` when it fails; the
    runner retries a retryable one under the experiment's retry policy. Any other exception is
    taken for a bug in the target: the observation fails at once, with the exception as its
    error, and is asked again on the next run.
    """

    @property
    def identity(self) -> Identity: ...

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def parameters(self) -> dict[str, JsonValue]: ...

    async def __call__(self, request: TargetRequest) -> TargetOutput: ...


class Lifecycle:
    """``async with target:`` for a run, leaving through :meth:`aclose`, which releases what the
    target holds (nothing here; targets that hold a session, threads or a model override it)."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Release what the target holds for a run; a later call opens it again as needed."""


class IdentifiedTarget(Lifecycle):
    """What every target built here shares: an :class:`Identity` and the names read from it.

    Subclasses set ``_identity`` in their constructor and define ``__call__``.
    """

    _identity: Identity

    @property
    def identity(self) -> Identity:
        """The target's name, version and behaviour-relevant parameters (never credentials)."""
        return self._identity

    @property
    def name(self) -> str:
        """The name results use for this target."""
        return self._identity.name

    @property
    def version(self) -> str:
        """The version of the target's behaviour; change it whenever the replies could change."""
        return self._identity.version

    @property
    def parameters(self) -> dict[str, JsonValue]:
        """What shapes the replies, as named in the identity: a copy, nested values too, so
        that changing it cannot change the identity every stored observation names."""
        return copy.deepcopy(self._identity.parameters)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._identity})"


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
