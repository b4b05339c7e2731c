"""Task spaces: seed cases, the axes that vary them, and the checked path to every variant."""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from pydantic import SerializeAsAny

from modelscape._identity import AxisValue, Identity, content_id
from modelscape._model import FrozenModel
from modelscape.errors import PerturbationError, TaskSpaceError
from modelscape.task.coordinate import Coordinate, same_value
from modelscape.task.language import Attribute, Task
from modelscape.task.prompt import Prompt, Realizer
from modelscape.task.steps import Change, Perturbation, Step, apply_step, perturbation

__all__ = [
    "Axis",
    "Change",
    "Perturbation",
    "Scale",
    "Step",
    "TaskSpace",
    "Variant",
    "perturbation",
    "variant_id",
]

TaskT = TypeVar("TaskT", bound=Task)
ValueT = TypeVar("ValueT")

#: How an axis's values relate: unordered labels, ordered levels, or numbers.
Scale: TypeAlias = Literal["nominal", "ordinal", "numeric"]
_SCALES = ("nominal", "ordinal", "numeric")


class Axis(Generic[TaskT, ValueT]):
    """One attribute of a task language, varied over discrete values by one perturbation.

    ``scale`` says how values relate: ``nominal`` (labels; each compared with the baseline),
    ``ordinal`` (ordered levels; adjacent levels compared) or ``numeric`` (increasing numbers).
    The baseline defaults to the first value and must be one of the values.
    """

    def __init__(
        self,
        attribute: Attribute[TaskT, ValueT] | str,
        values: Iterable[ValueT],
        via: Perturbation[TaskT, ValueT],
        *,
        scale: Scale,
        baseline: ValueT | None = None,
    ) -> None:
        self.attribute = attribute
        self.name: str = attribute if isinstance(attribute, str) else attribute.name
        self.values: tuple[ValueT, ...] = tuple(values)
        self.via = via
        self.scale: Scale = scale
        where = f"axis {self.name!r}"
        if scale not in _SCALES:
            raise TaskSpaceError(
                f"{where}: scale must be one of {', '.join(_SCALES)}, not {scale!r}"
            )
        if not self.values:
            raise TaskSpaceError(f"{where}: needs at least one value")
        for value in self.values:
            if not isinstance(value, (str, int, float, bool)):
                raise TaskSpaceError(
                    f"{where}: value {value!r} is a {type(value).__name__}; axis values must be "
                    "text, numbers or booleans"
                )
        # Positions by type and value (as _same compares them), found in one pass: an axis of
        # thousands of values is checked, and indexed, in linear time.
        self._positions: dict[tuple[type, object], int] = {}
        for position, value in enumerate(self.values):
            if self._positions.setdefault((type(value), value), position) != position:
                raise TaskSpaceError(f"{where}: value {value!r} appears twice")
        if scale == "numeric":
            if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in self.values):
                raise TaskSpaceError(
                    f"{where}: a numeric axis takes numbers only, got {self.values!r}"
                )
            numbers = [float(v) for v in self.values]  # type: ignore[arg-type]
            if any(b <= a for a, b in itertools.pairwise(numbers)):
                raise TaskSpaceError(f"{where}: numeric values must increase, got {self.values!r}")
        if baseline is None:
            baseline = self.values[0]
        if not any(same_value(baseline, v) for v in self.values):
            raise TaskSpaceError(
                f"{where}: baseline {baseline!r} is not one of its values {list(self.values)!r}"
            )
        self.baseline: ValueT = baseline

    def index(self, value: object) -> int:
        """The position of ``value`` among the axis's values."""
        try:
            return self._positions[(type(value), value)]
        except (KeyError, TypeError):  # TypeError: an unhashable value is no axis value
            pass
        shown = ", ".join(repr(v) for v in self.values[:8])
        more = f", … ({len(self.values):,} in all)" if len(self.values) > 8 else ""
        raise TaskSpaceError(
            f"axis {self.name!r} has no value {value!r}; its values are {shown}{more}"
        )

    def __repr__(self) -> str:
        return (
            f"Axis({self.name!r}, {list(self.values)!r}, via={self.via.name!r}, "
            f"scale={self.scale!r}, baseline={self.baseline!r})"
        )


def variant_id(
    language: str,
    case: str,
    coordinate: Mapping[str, AxisValue],
    task: Mapping[str, Any],
    prompt: Mapping[str, Any],
    reference: AxisValue | None,
) -> str:
    """The id of a variant: the hash of what it asks (its task and prompt, as JSON) where
    (its case and coordinate), in which language, and its correct answer."""
    identity = {
        "language": language,
        "case": case,
        "coordinate": dict(coordinate),
        "task": dict(task),
        "prompt": dict(prompt),
        "reference": reference,
    }
    return content_id("variant", identity)


class Variant(FrozenModel):
    """A task at one coordinate, the exact prompt for it, and the steps that produced it."""

    id: str
    case: str
    coordinate: dict[str, AxisValue]
    language: str
    task: SerializeAsAny[Task] | dict[str, Any]
    attributes: dict[str, AxisValue]
    reference: AxisValue | None
    prompt: Prompt
    steps: tuple[Step, ...] = ()

    @property
    def location(self) -> Coordinate:
        """The coordinate as an immutable, hashable :class:`Coordinate`."""
        return Coordinate(self.coordinate)

    def changed(self, baseline: Mapping[str, AxisValue]) -> tuple[str, ...]:
        """The axes on which this variant differs from ``baseline``."""
        return tuple(k for k, v in self.coordinate.items() if not same_value(baseline.get(k), v))


class TaskSpace(Generic[TaskT]):
    """Seed tasks of one task language, the axes that vary them, and how they are realized.

    The task at a coordinate is made from a seed by applying, in axis order, the perturbation of
    every axis whose attribute differs from the coordinate. Each step is checked (see
    :mod:`modelscape.task.steps`: its own attribute now has the value, every other declared
    attribute kept its value unless the perturbation declares it free, and applying it twice
    gives the same task), and the final task must carry exactly the coordinate's values. A
    realizer must be declared with ``@realizer``; a plain function is refused here.
    """

    def __init__(
        self,
        cases: Mapping[str, TaskT],
        axes: Sequence[Axis[TaskT, Any]],
        realizer: Realizer[TaskT] | None = None,
    ) -> None:
        if not cases:
            raise TaskSpaceError("a task space needs at least one case")
        self.cases: dict[str, TaskT] = dict(cases)
        for name, task in self.cases.items():
            if not isinstance(task, Task):
                raise TaskSpaceError(f"case {name!r} is a {type(task).__name__}, not a Task")
        languages = {task.language for task in self.cases.values()}
        if len(languages) > 1:
            raise TaskSpaceError(f"cases mix task languages {sorted(languages)}: use one language")
        self.language: str = languages.pop()
        self.axes: tuple[Axis[TaskT, Any], ...] = tuple(axes)
        names = [axis.name for axis in self.axes]
        for name in names:
            if names.count(name) > 1:
                raise TaskSpaceError(f"axis {name!r} is declared twice")
        first = next(iter(self.cases.values()))
        known = first.attributes()
        self._attributes: dict[str, Callable[[TaskT], Any]] = {}
        for axis in self.axes:
            if isinstance(axis.attribute, Attribute):
                self._attributes[axis.name] = axis.attribute
            elif axis.name in known:
                self._attributes[axis.name] = known[axis.name]
            else:
                hint = difflib.get_close_matches(axis.name, list(known), n=1)
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise TaskSpaceError(
                    f"axis {axis.name!r}: task language {self.language!r} has no attribute "
                    f"{axis.name!r}{suggestion}; its attributes are {sorted(known)}"
                )
        if realizer is not None and not (
            callable(realizer) and isinstance(getattr(realizer, "identity", None), Identity)
        ):
            what = getattr(realizer, "__name__", type(realizer).__name__)
            raise TaskSpaceError(
                f"the realizer {what!r} is a plain {type(realizer).__name__}, not a realizer: "
                "declare it with @realizer (or @realizer(name=..., version=...)), so that its "
                "name and version are stored with every variant it writes"
            )
        self.realizer = realizer
        self._variants: dict[tuple[str, Coordinate], Variant] = {}

    # -- coordinates -----------------------------------------------------------------------
    @property
    def baseline(self) -> Coordinate:
        """The coordinate with every axis at its baseline."""
        return Coordinate({axis.name: axis.baseline for axis in self.axes})

    def axis(self, name: str) -> Axis[TaskT, Any]:
        """The axis called ``name``."""
        for axis in self.axes:
            if axis.name == name:
                return axis
        hint = difflib.get_close_matches(name, [a.name for a in self.axes], n=1)
        suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise TaskSpaceError(
            f"no axis {name!r}{suggestion}; the axes are {[a.name for a in self.axes]}"
        )

    def coordinate(self, values: Mapping[str, Any] | None = None) -> Coordinate:
        """A full coordinate: ``values`` completed with the baseline of every other axis."""
        values = dict(values or {})
        complete: dict[str, AxisValue] = {}
        for axis in self.axes:
            if axis.name in values:
                value = values.pop(axis.name)
                complete[axis.name] = axis.values[axis.index(value)]
            else:
                complete[axis.name] = axis.baseline
        if values:
            unknown = sorted(values)
            axes = [a.name for a in self.axes]
            raise TaskSpaceError(f"coordinate names unknown axes {unknown}; the axes are {axes}")
        return Coordinate(complete)

    def _case(self, case: str) -> TaskT:
        try:
            return self.cases[case]
        except KeyError:
            hint = difflib.get_close_matches(case, list(self.cases), n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise TaskSpaceError(f"no case {case!r}{suggestion}") from None

    # -- tasks and variants ----------------------------------------------------------------
    def _walk(self, case: str, coordinate: Coordinate) -> tuple[TaskT, tuple[Step, ...]]:
        task = self._case(case)
        steps: list[Step] = []
        to_apply = [
            axis
            for axis in self.axes
            if not same_value(self._attributes[axis.name](task), coordinate[axis.name])
        ]
        for number, axis in enumerate(to_apply, start=1):
            target = coordinate[axis.name]
            where = (
                f"case {case!r}, axis {axis.name!r}, step {number} of {len(to_apply)} "
                f"(perturbation {axis.via.name!r}, "
                f"{self._attributes[axis.name](task)!r} -> {target!r})"
            )
            task, step = apply_step(task, axis.via, axis.name, target, self._attributes, where)
            steps.append(step)
        final = {name: get(task) for name, get in self._attributes.items()}
        for name, value in coordinate.items():
            if not same_value(final[name], value):
                raise PerturbationError(
                    f"case {case!r}: the final task has {name}={final[name]!r} but the "
                    f"coordinate asks for {value!r}"
                )
        return task, tuple(steps)

    def task(self, case: str, coordinate: Mapping[str, AxisValue] | None = None) -> TaskT:
        """The task of one seed at one coordinate; axes left out stay at their baseline."""
        return self._walk(case, self.coordinate(coordinate))[0]

    def realize(self, task: TaskT) -> Prompt:
        """The prompt of ``task``, from the realizer or the task's own ``prompt()``."""
        if self.realizer is not None:
            return self.realizer(task)
        return Prompt.of(task.prompt())

    def variant(self, case: str, coordinate: Mapping[str, AxisValue] | None = None) -> Variant:
        """The task at a coordinate, with its prompt and the record of every step."""
        where = self.coordinate(coordinate)
        key = (case, where)
        cached = self._variants.get(key)
        if cached is None:
            cached = self._variants[key] = self._build(case, where)
        return cached

    def build_variant(
        self, case: str, coordinate: Mapping[str, AxisValue] | None = None
    ) -> Variant:
        """The variant at a coordinate, as :meth:`variant` gives it, but not kept.

        :meth:`variant` keeps every variant it builds, so that reviewing a scenario builds each
        once. An experiment holds its variants in a compact form of its own
        (:class:`~modelscape.task.table.VariantTable`) and builds them here, so that a run of
        a hundred thousand variants does not also hold them all in full. A variant already
        kept is returned as it is.
        """
        where = self.coordinate(coordinate)
        cached = self._variants.get((case, where))
        return cached if cached is not None else self._build(case, where)

    def _build(self, case: str, where: Coordinate) -> Variant:
        task, steps = self._walk(case, where)
        prompt = self.realize(task)
        reference = task.reference()
        return Variant(
            id=variant_id(
                task.language,
                case,
                where.to_dict(),
                task.model_dump(mode="json"),
                prompt.model_dump(mode="json"),
                reference,
            ),
            case=case,
            coordinate=where.to_dict(),
            language=task.language,
            task=task,
            attributes=task.attribute_values(),
            reference=reference,
            prompt=prompt,
            steps=steps,
        )

    @property
    def realizer_identity(self) -> Identity | None:
        """The identity of the realizer, when the space has one."""
        return None if self.realizer is None else self.realizer.identity

    def __repr__(self) -> str:
        return (
            f"TaskSpace(language={self.language!r}, cases={len(self.cases)}, "
            f"axes={[a.name for a in self.axes]})"
        )
