"""Columns of many rows: a code per row and each distinct value once, or packed numbers.

What :mod:`~modelscape.records.columns` holds a run's records in. A :class:`Categorical` keeps
a field whose values repeat (names, statuses, coordinates, answers) as one small integer per
row; :func:`frozen_key` decides which values are the same one, keeping ``1``, ``1.0`` and
``True`` apart. :class:`Codes` and :class:`Numbers` fill a column a block of rows at a time.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "ABSENT",
    "BoolArray",
    "Categorical",
    "Codes",
    "FloatArray",
    "IntArray",
    "Numbers",
    "frozen_key",
    "key",
]

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

#: Stands for a field a stored row did not have (it is then left to the defaults).
ABSENT = object()
#: The key of None in a categorical column.
NONE = ("None",)


def frozen_key(value: Any) -> Hashable:
    """A hashable key of a JSON-like value that keeps types and key order apart.

    ``1``, ``1.0`` and ``True`` differ here, as do ``0.0`` and ``-0.0`` and two dicts with
    their keys in another order, so a value shared through a :class:`Categorical` is always
    the value each row had.
    """
    if isinstance(value, dict):
        return ("dict", tuple((k, frozen_key(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(frozen_key(v) for v in value))
    if value is None:
        return NONE
    if value is ABSENT:
        return ("absent",)
    if type(value) is float and value == 0.0:
        # -0.0 == 0.0, but a row that held one must not read back the other.
        return ("float", repr(value))
    return (type(value).__name__, value)


class Categorical:
    """One field of many rows as a code per row and each distinct value once."""

    __slots__ = ("codes", "values")

    def __init__(self, codes: NDArray[np.int32], values: list[Any]) -> None:
        self.codes = codes
        self.values = values

    @classmethod
    def of(cls, items: Iterable[Any], key: Callable[[Any], Hashable] = frozen_key) -> Categorical:
        """The column of ``items``; equal values (by ``key``) share one object."""
        index: dict[Hashable, int] = {}
        values: list[Any] = []
        codes: list[int] = []
        for item in items:
            k = key(item)
            code = index.get(k)
            if code is None:
                code = index[k] = len(values)
                values.append(item)
            codes.append(code)
        return cls(np.asarray(codes, dtype=np.int32), values)

    def __getitem__(self, row: int) -> Any:
        return self.values[self.codes[row]]

    def __len__(self) -> int:
        return len(self.codes)

    def where(self, test: Callable[[Any], bool]) -> BoolArray:
        """Which rows hold a value that passes ``test`` (asked once per distinct value)."""
        passing = np.asarray([bool(test(v)) for v in self.values], dtype=np.bool_)
        return passing[self.codes] if len(passing) else np.zeros(len(self.codes), np.bool_)

    def code(self, value: Any) -> int:
        """The code of ``value`` (compared by :func:`frozen_key`), or -1 when no row has it."""
        wanted = frozen_key(value)
        for code, known in enumerate(self.values):
            if frozen_key(known) == wanted:
                return code
        return -1


class Codes:
    """A categorical column being filled one value at a time."""

    __slots__ = ("codes", "index", "values")

    def __init__(self) -> None:
        self.index: dict[Hashable, int] = {}
        self.values: list[Any] = []
        self.codes = array("i")

    def add(self, value: Any) -> None:
        # Text, the common case, is its own key: no other kind of key is a str.
        key = value if type(value) is str else frozen_key(value)
        code = self.index.get(key)
        if code is None:
            code = self.index[key] = len(self.values)
            self.values.append(value)
        self.codes.append(code)

    def extend(self, values: list[Any]) -> None:
        index = self.index
        keys = [v if type(v) is str else NONE if v is None else frozen_key(v) for v in values]
        known = len(index)
        # setdefault gives a new key the next code: len(index) is read before it inserts.
        self.codes.extend([index.setdefault(k, len(index)) for k in keys])
        if len(index) > known:
            for k, v in zip(keys, values, strict=True):
                if index[k] == len(self.values):
                    self.values.append(v)

    def column(self) -> Categorical:
        return Categorical(np.asarray(self.codes, dtype=np.int32), self.values)


class Numbers:
    """A numeric column being filled: packed while every value is exactly ``kind``, a list of
    the values as they are from the first one that is not."""

    __slots__ = ("kind", "packed", "plain")

    def __init__(self, kind: type, code: str) -> None:
        self.kind = kind
        self.packed: array[Any] | None = array(code)
        self.plain: list[Any] = []

    def add(self, value: Any) -> None:
        packed = self.packed
        if packed is not None:
            if type(value) is self.kind:
                try:
                    packed.append(value)
                    return
                except OverflowError:  # a whole number beyond 64 bits
                    pass
            self.plain = packed.tolist()
            self.packed = None
        self.plain.append(value)

    def extend(self, values: list[Any]) -> None:
        packed = self.packed
        if packed is not None and all(type(v) is self.kind for v in values):
            before = len(packed)
            try:
                packed.extend(values)
                return
            except OverflowError:  # a whole number beyond 64 bits: kept as it is
                del packed[before:]  # what went in before the failing value
        for value in values:
            self.add(value)

    def column(self) -> Any:
        if self.packed is not None:
            return np.asarray(self.packed, dtype=np.float64 if self.kind is float else np.int64)
        return self.plain


def key(value: Any) -> Hashable:
    """The key a categorical column files a value under (text is its own key)."""
    return value if type(value) is str else frozen_key(value)
