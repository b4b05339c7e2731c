"""Prompts and realizers: the exact text a target receives, and how a task becomes it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, Literal, Protocol, TypeVar, overload

from pydantic import Field, field_validator

from modelscape._identity import Identity, JsonValue
from modelscape._model import FrozenModel
from modelscape.errors import TaskSpaceError

__all__ = ["FunctionRealizer", "Message", "Prompt", "Realizer", "realizer"]

TaskT = TypeVar("TaskT")
TaskT_contra = TypeVar("TaskT_contra", contravariant=True)


class Message(FrozenModel):
    """One turn of a conversation."""

    role: Literal["user", "assistant"]
    content: str


class Prompt(FrozenModel):
    """The exact text a target receives: an optional system instruction and a conversation."""

    system: str | None = None
    messages: tuple[Message, ...] = Field(min_length=1)

    @field_validator("messages")
    @classmethod
    def _ends_with_user(cls, messages: tuple[Message, ...]) -> tuple[Message, ...]:
        if messages[-1].role != "user":
            raise ValueError("a prompt must end with a user message")
        return messages

    @classmethod
    def of(cls, value: Prompt | str, *, system: str | None = None) -> Prompt:
        """A prompt from a Prompt, or from text sent as one user message under ``system``."""
        if isinstance(value, Prompt):
            return value
        if isinstance(value, str):
            return cls(system=system, messages=(Message(role="user", content=value),))
        raise TaskSpaceError(f"a realizer must return a Prompt or text, not {type(value).__name__}")

    @property
    def text(self) -> str:
        """The whole prompt as readable text, for review and tables."""
        parts = [f"[system]\n{self.system}"] if self.system else []
        if len(self.messages) == 1 and not parts:
            return self.messages[0].content
        parts.extend(f"[{message.role}]\n{message.content}" for message in self.messages)
        return "\n\n".join(parts)


class Realizer(Protocol[TaskT_contra]):
    """Turns a task into the exact prompt a target sees; identified by name and version."""

    @property
    def identity(self) -> Identity: ...

    def __call__(self, task: TaskT_contra) -> Prompt: ...


class FunctionRealizer(Generic[TaskT]):
    """A realizer made from a function task -> Prompt or text."""

    def __init__(
        self,
        function: Callable[[TaskT], Prompt | str],
        *,
        name: str | None = None,
        version: str = "1",
        system: str | None = None,
        parameters: Mapping[str, JsonValue] | None = None,
    ) -> None:
        self.function = function
        self.system = system
        self.identity = Identity(
            kind="realizer",
            name=name or getattr(function, "__name__", "realizer"),
            version=version,
            parameters={**(parameters or {}), **({"system": system} if system else {})},
        )
        self.__doc__ = getattr(function, "__doc__", None)

    def __call__(self, task: TaskT) -> Prompt:
        return Prompt.of(self.function(task), system=self.system)

    def __repr__(self) -> str:
        return f"realizer({self.identity})"


@overload
def realizer(function: Callable[[TaskT], Prompt | str], /) -> FunctionRealizer[TaskT]: ...
@overload
def realizer(
    *,
    name: str | None = None,
    version: str = "1",
    system: str | None = None,
    parameters: Mapping[str, JsonValue] | None = None,
) -> Callable[[Callable[[TaskT], Prompt | str]], FunctionRealizer[TaskT]]: ...
def realizer(
    function: Callable[[TaskT], Prompt | str] | None = None,
    /,
    *,
    name: str | None = None,
    version: str = "1",
    system: str | None = None,
    parameters: Mapping[str, JsonValue] | None = None,
) -> Any:
    """Declare a function task -> prompt as a realizer, bare or with options.

    Change ``version`` whenever the wording changes: it is part of the realizer's identity.
    ``system`` is sent as the system instruction when the function returns plain text.
    """

    def wrap(inner: Callable[[TaskT], Prompt | str]) -> FunctionRealizer[TaskT]:
        return FunctionRealizer(
            inner, name=name, version=version, system=system, parameters=parameters
        )

    if function is not None:
        return wrap(function)
    return wrap
