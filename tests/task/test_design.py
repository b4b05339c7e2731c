"""Designs: which coordinates a Sweep and a Grid evaluate."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from modelscape import Axis, Grid, Sweep
from modelscape.errors import TaskSpaceError

from .languages import Loan, loan_space, set_size, set_term


def _space():  # type: ignore[no-untyped-def]
    axes = [
        Axis(Loan.size, ["small", "large"], set_size, scale="nominal"),
        Axis("months", [12, 24, 36], set_term, scale="ordinal", baseline=24),
    ]
    return loan_space(axes=axes)


def test_sweep_is_the_baseline_then_one_axis_at_a_time() -> None:
    coordinates = Sweep().coordinates(_space())
    assert [c.to_dict() for c in coordinates] == [
        {"size": "small", "months": 24},
        {"size": "large", "months": 24},
        {"size": "small", "months": 12},
        {"size": "small", "months": 36},
    ]
    # 1 + sum of (values - 1) over the axes
    assert len(coordinates) == 1 + 1 + 2
    assert len(set(coordinates)) == len(coordinates)


def test_sweep_over_some_axes() -> None:
    space = _space()
    coordinates = Sweep(axes=("months",)).coordinates(space)
    assert [c["months"] for c in coordinates] == [24, 12, 36]
    assert all(c["size"] == "small" for c in coordinates)
    assert Sweep(axes=()).coordinates(space) == (space.baseline,)


def test_sweep_names_unknown_axes() -> None:
    with pytest.raises(TaskSpaceError, match=r"no axis 'month' \(did you mean 'months'\?\)"):
        Sweep(axes=("month",)).coordinates(_space())


def test_sweep_rejects_an_axis_named_twice() -> None:
    with pytest.raises(TaskSpaceError, match="names an axis twice"):
        Sweep(axes=("months", "months")).coordinates(_space())


def test_grid_is_the_product_with_the_baseline_first() -> None:
    coordinates = Grid(axes=("size", "months")).coordinates(_space())
    assert len(coordinates) == 2 * 3
    assert coordinates[0] == {"size": "small", "months": 24}
    assert len(set(coordinates)) == 6
    assert {(c["size"], c["months"]) for c in coordinates} == {
        (size, months) for size in ("small", "large") for months in (12, 24, 36)
    }


def test_grid_holds_other_axes_at_baseline() -> None:
    coordinates = Grid(axes=("months",)).coordinates(_space())
    assert [c.to_dict() for c in coordinates] == [
        {"size": "small", "months": 24},
        {"size": "small", "months": 12},
        {"size": "small", "months": 36},
    ]


def test_grid_errors_name_the_problem() -> None:
    space = _space()
    with pytest.raises(TaskSpaceError, match="a Grid needs at least one axis"):
        Grid(axes=()).coordinates(space)
    with pytest.raises(TaskSpaceError, match=r"a Grid names an axis twice: \['size', 'size'\]"):
        Grid(axes=("size", "size")).coordinates(space)
    with pytest.raises(TaskSpaceError, match=r"no axis 'sizes' \(did you mean 'size'\?\)"):
        Grid(axes=("sizes",)).coordinates(space)
    with pytest.raises(ValidationError, match="axes"):
        Grid()  # type: ignore[call-arg]


def test_designs_are_frozen_data() -> None:
    assert Sweep().model_dump() == {"kind": "sweep", "axes": None}
    assert Grid(axes=("size",)).model_dump() == {"kind": "grid", "axes": ("size",)}
    with pytest.raises(ValidationError):
        Sweep(axes=("size",), extra=1)  # type: ignore[call-arg]
    design = Sweep()
    with pytest.raises(ValidationError):
        design.axes = ("size",)  # type: ignore[misc]


def test_axis_roles_reads_causal_and_invariant_axes_from_references() -> None:
    from modelscape.task.design import axis_roles

    coordinates = [{"a": 0, "b": "x"}, {"a": 1, "b": "x"}, {"a": 0, "b": "y"}]
    answers = {0: True, 1: False}
    roles = axis_roles(["a", "b"], ["c1"], coordinates, lambda case, c: answers[c["a"]])
    assert roles == {"a": "causal", "b": "invariant"}
    # True and 1 are different answers: moving b from x to y changes the answer's type.
    typed = axis_roles(
        ["a", "b"], ["c1"], coordinates, lambda case, c: 1 if c["b"] == "y" else True
    )
    assert typed == {"a": "invariant", "b": "causal"}
