"""Designs: which coordinates of a task space an experiment evaluates."""

from __future__ import annotations

import itertools
from typing import Any, Literal

from modelscape._model import FrozenModel
from modelscape.errors import TaskSpaceError
from modelscape.task.coordinate import Coordinate
from modelscape.task.space import TaskSpace

__all__ = ["Grid", "Sweep"]


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
