"""Designs: which coordinates of a task space an experiment evaluates."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from modelscape._identity import AxisValue
from modelscape._model import FrozenModel
from modelscape.errors import TaskSpaceError
from modelscape.task.coordinate import Coordinate, same_value, value_key
from modelscape.task.space import TaskSpace

__all__ = ["Grid", "Sweep", "axis_roles"]


class Sweep(FrozenModel):
    """Evaluate the baseline and every one-axis-at-a-time variation around it.

    ``axes`` limits the sweep to some axes; by default every axis is swept. This is the cheapest
    design that reads every axis along its line through the baseline.
    """

    kind: Literal["sweep"] = "sweep"
    axes: tuple[str, ...] | None = None

    def coordinates(self, space: TaskSpace[Any]) -> tuple[Coordinate, ...]:
        """The baseline first, then each axis's other values in order."""
        names = self.axes if self.axes is not None else tuple(a.name for a in space.axes)
        if len(set(names)) != len(names):
            # a repeated axis would repeat its coordinates, and so every call made there
            raise TaskSpaceError(f"a Sweep names an axis twice: {list(names)}")
        baseline = space.baseline
        found = [baseline]
        for name in names:
            axis = space.axis(name)
            home = axis.index(axis.baseline)
            found.extend(
                baseline.moved(name, value)
                for position, value in enumerate(axis.values)
                if position != home
            )
        return tuple(found)


class Grid(FrozenModel):
    """Evaluate the full Cartesian product of the selected axes, others held at baseline.

    Use it when interactions between axes matter; it costs the product of their sizes.
    """

    kind: Literal["grid"] = "grid"
    axes: tuple[str, ...]

    def coordinates(self, space: TaskSpace[Any]) -> tuple[Coordinate, ...]:
        """Every combination of the selected axes' values, the baseline first."""
        if not self.axes:
            raise TaskSpaceError("a Grid needs at least one axis")
        if len(set(self.axes)) != len(self.axes):
            raise TaskSpaceError(f"a Grid names an axis twice: {list(self.axes)}")
        axes = [space.axis(name) for name in self.axes]
        baseline = space.baseline
        ordered = [
            (
                axis.baseline,
                *(v for i, v in enumerate(axis.values) if i != axis.index(axis.baseline)),
            )
            for axis in axes
        ]
        return tuple(
            Coordinate({**baseline, **dict(zip(self.axes, combination, strict=True))})
            for combination in itertools.product(*ordered)
        )


def axis_roles(
    axes: Sequence[str],
    cases: Iterable[str],
    coordinates: Sequence[Mapping[str, AxisValue]],
    reference: Callable[[str, Mapping[str, AxisValue]], AxisValue | None],
) -> dict[str, Literal["causal", "invariant"]]:
    """Each axis's role over the evaluated ``coordinates``.

    An axis is causal when moving it alone, between any two evaluated coordinates, changes the
    correct answer (``reference(case, coordinate)``) of some case, and invariant otherwise.
    Values are compared with their types, so ``True`` and ``1`` differ.
    """
    cases = list(cases)
    roles: dict[str, Literal["causal", "invariant"]] = {}
    for axis in axes:
        others = [name for name in axes if name != axis]
        causal = False
        for case in cases:
            seen: dict[tuple[tuple[str, AxisValue], ...], AxisValue | None] = {}
            for coordinate in coordinates:
                key = tuple(value_key(coordinate[o]) for o in others)
                answer = reference(case, coordinate)
                if key in seen and not same_value(seen[key], answer):
                    causal = True
                    break
                seen.setdefault(key, answer)
            if causal:
                break
        roles[axis] = "causal" if causal else "invariant"
    return roles
