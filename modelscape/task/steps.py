"""Perturbations, and the checked step that applies one: it moves what it claims and no more.

A step sets one axis's attribute. Every other declared attribute of the task language is what
"perturbations must keep fixed" (``@attribute``): if a step moved one that no axis varies, a
shift seen across the step could come from either change, and nothing would say so. So a step
is refused when it

- does not set its own attribute to the value it is given;
- moves another axis's attribute (the coordinate would be wrong);
- moves any other declared attribute, unless the perturbation declares it free
  (``@perturbation(free=["has_debt"])``), in which case the step records the change;
- is not deterministic: applied twice to the same task with the same value, it must give the
  same task, or one variant could be two different prompts.

Each refusal names the attribute, the case and the step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar, overload

from modelscape._identity import AxisValue, Identity
from modelscape._model import FrozenModel
from modelscape.errors import PerturbationError, TaskSpaceError
from modelscape.task.coordinate import same_value
from modelscape.task.language import Task

__all__ = ["Change", "Perturbation", "Step", "apply_step", "perturbation"]

TaskT = TypeVar("TaskT", bound=Task)
ValueT = TypeVar("ValueT")


class Perturbation(Generic[TaskT, ValueT]):
    """A function (task, value) -> task that sets one attribute and keeps the others.

    ``free`` names the declared attributes it may also move (a name's gender swap moves the
    name itself); a task space checks every application against everything else.
    """

    def __init__(
        self,
        function: Callable[[TaskT, ValueT], TaskT],
        *,
        name: str | None = None,
        version: str = "1",
        free: Iterable[str] = (),
    ) -> None:
        if isinstance(free, str):
            raise TaskSpaceError(
                f"perturbation {name or getattr(function, '__name__', '')!r}: free takes a "
                f"list of attribute names, not the string {free!r}"
            )
        self.function = function
        self.free: frozenset[str] = frozenset(free)
        self.identity = Identity(
            kind="perturbation",
            name=name or getattr(function, "__name__", "perturbation"),
            version=version,
        )
        self.__doc__ = getattr(function, "__doc__", None)

    @property
    def name(self) -> str:
        """The perturbation's name."""
        return self.identity.name

    def __call__(self, task: TaskT, value: ValueT) -> TaskT:
        return self.function(task, value)

    def __repr__(self) -> str:
        return f"perturbation({self.identity})"


@overload
def perturbation(function: Callable[[TaskT, ValueT], TaskT], /) -> Perturbation[TaskT, ValueT]: ...
@overload
def perturbation(
    *, name: str | None = None, version: str = "1", free: Iterable[str] = ()
) -> Callable[[Callable[[TaskT, ValueT], TaskT]], Perturbation[TaskT, ValueT]]: ...
def perturbation(
    function: Callable[[TaskT, ValueT], TaskT] | None = None,
    /,
    *,
    name: str | None = None,
    version: str = "1",
    free: Iterable[str] = (),
) -> Any:
    """Declare a function (task, value) -> task that moves one attribute to ``value``.

    ``free`` lists the other declared attributes it may move too; every step records what
    they moved to. Change ``version`` whenever what it does changes.
    """

    def wrap(inner: Callable[[TaskT, ValueT], TaskT]) -> Perturbation[TaskT, ValueT]:
        return Perturbation(inner, name=name, version=version, free=free)

    return wrap(function) if function is not None else wrap


class Change(FrozenModel):
    """An attribute a step moved besides its own, as its perturbation declared it may."""

    attribute: str
    before: AxisValue | None
    after: AxisValue | None


class Step(FrozenModel):
    """One applied perturbation: which axis moved, from what, to what, and by which function.

    ``also`` lists the other attributes it moved, each declared free by the perturbation.
    """

    axis: str
    before: AxisValue
    after: AxisValue
    perturbation: str
    also: tuple[Change, ...] = ()


def _values(task: Task) -> dict[str, Any]:
    """Every declared attribute of a task (a template filling: every slot and property)."""
    return {name: attribute(task) for name, attribute in task.attributes().items()}


def _difference(first: Task, second: Task) -> str:
    """Where two tasks of one language differ first: an attribute, else a field."""
    a, b = _values(first), _values(second)
    for name in a:
        if not same_value(a[name], b.get(name)):
            return f"attribute {name!r} is {a[name]!r} once and {b.get(name)!r} the other time"
    fields, others = first.model_dump(mode="json"), second.model_dump(mode="json")
    for key in fields:
        if fields[key] != others.get(key):
            return f"field {key!r} differs"
    return "the two tasks differ"


def apply_step(
    task: TaskT,
    perturb: Perturbation[TaskT, Any],
    own: str,
    target: AxisValue,
    axes: Mapping[str, Callable[[TaskT], Any]],
    where: str,
) -> tuple[TaskT, Step]:
    """Apply one perturbation to ``task`` and check it (see the module's description).

    ``own`` is the axis's attribute, ``axes`` reads every axis's attribute, ``where`` names
    the case and step for error messages.
    """
    before = _values(task)
    before.update((name, read(task)) for name, read in axes.items())
    moved = _call(perturb, task, target, where)
    again = _call(perturb, task, target, where)
    if moved != again:
        raise PerturbationError(
            f"{where}: the perturbation is not deterministic: applied twice to the same task "
            f"with the same value it gave different tasks ({_difference(moved, again)}); a "
            "perturbation must be a function of the task and the value alone"
        )
    after = _values(moved)
    after.update((name, read(moved)) for name, read in axes.items())
    if not same_value(after[own], target):
        raise PerturbationError(
            f"{where}: attribute {own!r} is {after[own]!r} afterwards; a perturbation must set "
            "its own attribute to the value it is given"
        )
    also: list[Change] = []
    for name, value in before.items():
        if name == own or same_value(after.get(name), value):
            continue
        if name in axes:
            raise PerturbationError(
                f"{where}: attribute {name!r} moved from {value!r} to {after.get(name)!r}; a "
                "perturbation must keep every other axis's attribute"
            )
        if name not in perturb.free:
            raise PerturbationError(
                f"{where}: attribute {name!r} moved from {value!r} to {after.get(name)!r}, "
                "but no axis varies it: a step must keep every declared attribute it does not "
                f"set, or declare it free (@perturbation(free=[{name!r}]))"
            )
        also.append(Change(attribute=name, before=value, after=after.get(name)))
    step = Step(
        axis=own,
        before=before[own],
        after=target,
        perturbation=str(perturb.identity),
        also=tuple(also),
    )
    return moved, step


def _call(perturb: Perturbation[TaskT, Any], task: TaskT, target: AxisValue, where: str) -> TaskT:
    """One application of a perturbation, its result checked to be a valid task."""
    try:
        moved = perturb(task, target)
    except (TaskSpaceError, PerturbationError):
        raise
    except Exception as error:
        raise PerturbationError(f"{where}: the perturbation raised {error!r}") from error
    if not isinstance(moved, Task) or moved.language != task.language:
        raise PerturbationError(
            f"{where}: returned {type(moved).__name__}, not a task of language {task.language!r}"
        )
    try:
        checked: TaskT = moved.checked()  # type: ignore[assignment]
    except Exception as error:
        raise PerturbationError(f"{where}: produced an invalid task: {error}") from error
    return checked
