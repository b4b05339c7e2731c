"""Coordinates: immutable locations in a task space."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from modelscape._identity import AxisValue

__all__ = ["Coordinate", "same_value", "value_key"]


def value_key(value: AxisValue) -> tuple[str, AxisValue]:
    """A hashable key of an axis value that keeps 1, 1.0 and True apart.

    They compare equal in Python; the type name keeps them apart in hashes and equality.
    """
    return (type(value).__name__, value)


def same_value(left: object, right: object) -> bool:
    """Equal and of one type: ``True`` is not ``1``, and ``1`` is not ``1.0``.

    Python calls those equal; an axis value, an answer or a label must not, so every place
    that compares two such values asks this one function.
    """
    return type(left) is type(right) and left == right


class Coordinate(Mapping[str, AxisValue]):
    """An immutable location in a task space: axis name -> one of the axis's values.

    Coordinates are hashable and compare by content, independent of key order. A task space
    completes a partial coordinate with the baselines of the axes it leaves out.
    """

    __slots__ = ("_hash", "_values")

    def __init__(self, values: Mapping[str, AxisValue] | None = None) -> None:
        self._values: dict[str, AxisValue] = dict(values or {})
        self._hash: int | None = None

    def __getitem__(self, axis: str) -> AxisValue:
        return self._values[axis]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset((k, value_key(v)) for k, v in self._values.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Coordinate):
            other_values: Mapping[str, AxisValue] = other._values
        elif isinstance(other, Mapping):
            other_values = other
        else:
            return NotImplemented
        if self._values.keys() != other_values.keys():
            return False
        return all(value_key(v) == value_key(other_values[k]) for k, v in self._values.items())

    def replace(self, **changes: AxisValue) -> Coordinate:
        """This coordinate with some axes moved."""
        return Coordinate({**self._values, **changes})

    def moved(self, axis: str, value: AxisValue) -> Coordinate:
        """This coordinate with ``axis`` at ``value`` (for axis names that are not identifiers)."""
        return Coordinate({**self._values, axis: value})

    def label(self) -> str:
        """A compact human-readable form, such as ``pressure=3, name.gender=male``."""
        return ", ".join(f"{k}={v}" for k, v in self._values.items())

    def to_dict(self) -> dict[str, AxisValue]:
        """The coordinate as a plain dict, in axis order."""
        return dict(self._values)

    def __repr__(self) -> str:
        return f"Coordinate({self._values!r})"
