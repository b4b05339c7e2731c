"""Task languages: typed tasks, the attributes computed from them, and their schema.

A task language is a subclass of :class:`Task`. Its fields and validators decide which tasks are
valid; its ``@attribute`` methods are the properties a task space may vary; ``reference()`` gives
the correct answer when one exists. The language is named after its class (not its module), so
moving the code keeps stored ids valid.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar, overload

from pydantic import BaseModel, ConfigDict

from modelscape._identity import AxisValue, JsonValue
from modelscape._model import FrozenModel
from modelscape.errors import TaskSpaceError

__all__ = ["Attribute", "AttributeInfo", "Node", "Task", "TaskSchema", "attribute"]

TaskT = TypeVar("TaskT", bound="Task")
ValueT = TypeVar("ValueT")


class Attribute(Generic[TaskT, ValueT]):
    """A named property computed from a task: a dimension that axes vary and perturbations keep.

    On a class it is the attribute itself (``Loan.amount``); on a task it is the value
    (``loan.amount``). Calling it on a task also gives the value.
    """

    def __init__(self, function: Callable[[TaskT], ValueT], *, name: str | None = None) -> None:
        self.function = function
        self.name: str = name or str(getattr(function, "__name__", "attribute"))
        self.__doc__ = getattr(function, "__doc__", None)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Attribute[TaskT, ValueT]: ...
    @overload
    def __get__(self, instance: TaskT, owner: type | None = None) -> ValueT: ...
    def __get__(self, instance: TaskT | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return self.function(instance)

    def __call__(self, task: TaskT) -> ValueT:
        return self.function(task)

    @property
    def type_name(self) -> str:
        """The declared return type of the attribute, as text ("any" when not annotated)."""
        try:
            hints = typing.get_type_hints(self.function)
        except Exception:  # annotations that cannot be resolved still describe nothing useful
            hints = {}
        annotation = hints.get("return")
        if annotation is None:
            return "any"
        return getattr(annotation, "__name__", None) or str(annotation)

    def __repr__(self) -> str:
        return f"Attribute({self.name!r})"


def attribute(function: Callable[[TaskT], ValueT]) -> Attribute[TaskT, ValueT]:
    """Declare a task property that axes can vary and perturbations must keep fixed.

    Use it on a method of a :class:`Task` subclass; the method's name becomes the attribute's
    name and its return annotation the attribute's type in :class:`TaskSchema`.
    """
    return Attribute(function)


class Node(BaseModel):
    """An immutable part of a task, such as a piece of evidence or one option of a question."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Task(BaseModel):
    """A task written in a task language you define by subclassing.

    Fields and validators say which tasks are valid; ``@attribute`` methods compute the
    properties that can be varied; :meth:`reference` gives the correct answer when there is one;
    :meth:`prompt` (optional) turns a task into text when a task space has no realizer.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", ignored_types=(Attribute,))

    _attribute_cache: ClassVar[dict[type, dict[str, Attribute[Any, Any]]]] = {}

    @classmethod
    def language_name(cls) -> str:
        """The name of this task language: the class name, independent of its module."""
        return cls.__name__

    @property
    def language(self) -> str:
        """The name of this task's language."""
        return self.language_name()

    @classmethod
    def declared_attributes(cls) -> Mapping[str, Attribute[Any, Any]]:
        """Every ``@attribute`` of the language, by name, in order of declaration."""
        cached = Task._attribute_cache.get(cls)
        if cached is None:
            cached = {}
            for klass in reversed(cls.__mro__):
                for name, value in vars(klass).items():
                    if isinstance(value, Attribute):
                        cached[name] = value
            Task._attribute_cache[cls] = cached
        return cached

    def attributes(self) -> Mapping[str, Attribute[Any, Any]]:
        """The attributes of this task; a template filling overrides it with its slots."""
        return self.declared_attributes()

    def attribute_values(self) -> dict[str, AxisValue]:
        """The value of every attribute of this task."""
        return {name: attr(self) for name, attr in self.attributes().items()}

    def reference(self) -> AxisValue | None:
        """The correct answer to this task, or None when it has none."""
        return None

    def prompt(self) -> Any:
        """The prompt for this task when the task space has no realizer (a Prompt or text)."""
        raise TaskSpaceError(
            f"task language {self.language!r} has no prompt(): give the task space a realizer "
            "or define prompt() on the task class"
        )

    def checked(self) -> Task:
        """This task validated again, as a perturbation's result must be."""
        return type(self).model_validate(self.model_dump())


class AttributeInfo(FrozenModel):
    """One computed attribute of a task language: its name and declared type."""

    name: str
    type: str
    description: str | None = None


class TaskSchema(FrozenModel):
    """A machine-readable description of a task language.

    ``structure`` is the JSON Schema of valid tasks; ``attributes`` lists the properties computed
    from every task, which are the dimensions a task space can vary.
    """

    language: str
    structure: dict[str, JsonValue]
    attributes: tuple[AttributeInfo, ...]

    @classmethod
    def of(cls, language: type[Task]) -> TaskSchema:
        """The schema of a task language (a :class:`Task` subclass)."""
        if not (isinstance(language, type) and issubclass(language, Task)):
            raise TaskSpaceError(f"TaskSchema.of needs a Task subclass, not {language!r}")
        infos = tuple(
            AttributeInfo(
                name=name,
                type=attr.type_name,
                description=(attr.__doc__ or "").strip() or None,
            )
            for name, attr in language.declared_attributes().items()
        )
        return cls(
            language=language.language_name(),
            structure=language.model_json_schema(),
            attributes=infos,
        )
