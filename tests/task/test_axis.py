"""Axes and coordinates: the values a task space varies, and locations in it."""

from __future__ import annotations

import pytest

from modelscape import Axis, Coordinate
from modelscape.errors import TaskSpaceError

from .languages import Loan, loan_space, set_size, set_term


def test_axis_from_an_attribute_or_a_name() -> None:
    by_attribute = Axis(Loan.size, ["small", "large"], set_size, scale="nominal")
    by_name = Axis("months", [12, 24], set_term, scale="ordinal")
    assert by_attribute.name == "size"
    assert by_name.name == "months"
    assert by_attribute.values == ("small", "large")
    assert by_attribute.via is set_size


@pytest.mark.parametrize("scale", ["nominal", "ordinal", "numeric"])
def test_every_scale_is_accepted(scale: str) -> None:
    axis = Axis("months", [12, 24, 36], set_term, scale=scale)  # type: ignore[arg-type]
    assert axis.scale == scale


def test_unknown_scale_is_an_error() -> None:
    with pytest.raises(TaskSpaceError, match=r"axis 'months': scale must be one of .*'interval'"):
        Axis("months", [12], set_term, scale="interval")  # type: ignore[arg-type]


def test_baseline_defaults_to_the_first_value() -> None:
    assert Axis("months", [24, 12, 36], set_term, scale="nominal").baseline == 24
    assert Axis("months", [12, 24], set_term, scale="ordinal", baseline=24).baseline == 24


def test_baseline_must_be_one_of_the_values() -> None:
    with pytest.raises(TaskSpaceError, match=r"axis 'months': baseline 18 is not one of its"):
        Axis("months", [12, 24], set_term, scale="ordinal", baseline=18)
    # the value 1 is not the baseline True: booleans and numbers are kept apart
    with pytest.raises(TaskSpaceError, match="baseline True is not one of"):
        Axis("flag", [1, 2], set_term, scale="nominal", baseline=True)


def test_an_axis_needs_values() -> None:
    with pytest.raises(TaskSpaceError, match="axis 'months': needs at least one value"):
        Axis("months", [], set_term, scale="ordinal")


def test_duplicate_values_are_an_error() -> None:
    with pytest.raises(TaskSpaceError, match="axis 'size': value 'small' appears twice"):
        Axis("size", ["small", "large", "small"], set_size, scale="nominal")


def test_values_must_be_scalars() -> None:
    with pytest.raises(TaskSpaceError, match="value None is a NoneType"):
        Axis("size", ["small", None], set_size, scale="nominal")  # type: ignore[list-item]
    with pytest.raises(TaskSpaceError, match=r"value \[1\] is a list"):
        Axis("size", [[1]], set_size, scale="nominal")  # type: ignore[list-item]


def test_booleans_and_numbers_are_different_values() -> None:
    axis = Axis("flag", [1, True, 1.0], set_term, scale="nominal")
    assert axis.index(1) == 0
    assert axis.index(True) == 1
    assert axis.index(1.0) == 2
    with pytest.raises(TaskSpaceError, match="axis 'flag' has no value False"):
        axis.index(False)


def test_numeric_values_must_be_numbers() -> None:
    with pytest.raises(TaskSpaceError, match="axis 'months': a numeric axis takes numbers only"):
        Axis("months", [12, "24"], set_term, scale="numeric")
    with pytest.raises(TaskSpaceError, match="numbers only"):
        Axis("months", [False, True], set_term, scale="numeric")


def test_numeric_values_must_increase() -> None:
    with pytest.raises(TaskSpaceError, match=r"axis 'months': numeric values must increase"):
        Axis("months", [12, 36, 24], set_term, scale="numeric")
    with pytest.raises(TaskSpaceError, match="must increase"):
        Axis("months", [12, 12.0], set_term, scale="numeric")
    # ordinal and nominal axes take any order
    assert Axis("months", [36, 12], set_term, scale="ordinal").values == (36, 12)
    assert Axis("months", [0.5, 1, 2.5], set_term, scale="numeric").values == (0.5, 1, 2.5)


def test_axis_repr_names_everything() -> None:
    axis = Axis("months", [12, 24], set_term, scale="ordinal")
    assert repr(axis) == "Axis('months', [12, 24], via='set term', scale='ordinal', baseline=12)"


# -- coordinates ------------------------------------------------------------------------------


def test_coordinate_is_a_read_only_mapping() -> None:
    point = Coordinate({"size": "large", "months": 24})
    assert dict(point) == {"size": "large", "months": 24}
    assert len(point) == 2
    assert point["months"] == 24
    with pytest.raises(TypeError):
        point["months"] = 36  # type: ignore[index]
    with pytest.raises(AttributeError):
        point.extra = 1  # type: ignore[attr-defined]
    assert Coordinate() == Coordinate({})


def test_coordinate_copies_its_input() -> None:
    source = {"months": 24}
    point = Coordinate(source)
    source["months"] = 36
    assert point["months"] == 24


def test_coordinate_equality_and_hash_ignore_key_order() -> None:
    first = Coordinate({"size": "large", "months": 24})
    second = Coordinate({"months": 24, "size": "large"})
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second}) == 1
    assert first == {"months": 24, "size": "large"}
    assert first != {"size": "large"}
    assert first != Coordinate({"size": "large", "months": 36})


def test_one_true_and_one_point_zero_are_different_coordinates() -> None:
    points = [Coordinate({"x": 1}), Coordinate({"x": True}), Coordinate({"x": 1.0})]
    assert len(set(points)) == 3
    assert points[0] != points[1]
    assert points[0] != points[2]
    assert points[1] != points[2]
    assert points[0] != {"x": True}


def test_coordinate_moves_give_new_coordinates() -> None:
    point = Coordinate({"size": "small", "months": 12})
    assert point.replace(months=24) == {"size": "small", "months": 24}
    assert point.moved("name.gender", "male")["name.gender"] == "male"
    assert point == {"size": "small", "months": 12}
    assert point.label() == "size=small, months=12"
    assert point.to_dict() == {"size": "small", "months": 12}
    assert repr(point) == "Coordinate({'size': 'small', 'months': 12})"


def test_space_completes_partial_coordinates_with_baselines() -> None:
    space = loan_space()
    assert space.baseline == {"size": "small", "months": 12}
    assert space.coordinate() == space.baseline
    assert space.coordinate({"months": 36}) == {"size": "small", "months": 36}
    full = space.coordinate({"months": 24, "size": "large"})
    assert list(full) == ["size", "months"]  # axis order, whatever the input order


def test_space_coordinate_rejects_unknown_axes_and_values() -> None:
    space = loan_space()
    with pytest.raises(TaskSpaceError, match=r"unknown axes \['colour'\]; the axes are"):
        space.coordinate({"colour": "red"})
    with pytest.raises(TaskSpaceError, match=r"axis 'months' has no value 18; its values are"):
        space.coordinate({"months": 18})
    with pytest.raises(TaskSpaceError, match=r"axis 'months' has no value 12.0"):
        space.coordinate({"months": 12.0})


def test_space_axis_lookup_suggests_the_nearest_name() -> None:
    with pytest.raises(TaskSpaceError, match=r"no axis 'month' \(did you mean 'months'\?\)"):
        loan_space().axis("month")
