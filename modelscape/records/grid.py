"""A run's cells as arrays, for analyses that read thousands of cells in one step.

A cell is the successful outputs of one target for one case at one coordinate
(:func:`~modelscape.records.index.cell_rows` sorts every cell's rows into one array, a slice
each). Looking cells up one at a time costs a dict lookup with a nested tuple key each, which
at ten thousand cases and a dozen coordinates is most of a report's time. :class:`Cells` keeps
the same slices as arrays, indexed by target, case and coordinate codes, so that a scorecard
asks for "every case at these coordinates" once and gets numbers back as arrays.

Nothing here computes a statistic: the arrays say which values belong to which case, and the
analyses reduce them exactly as they reduced the cell-by-cell lists (see
:func:`row_means`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue

__all__ = ["Cells", "CoordinateKey", "gather", "row_means"]

#: A coordinate as its values in axis order, each with its type (see
#: :meth:`~modelscape.records.run.IndexedRun.key`).
CoordinateKey: TypeAlias = tuple[tuple[str, AxisValue], ...]
Rows: TypeAlias = NDArray[np.int64]
FloatArray: TypeAlias = NDArray[np.float64]


class Cells:
    """Every cell's place in the sorted rows, by target, case and coordinate code.

    ``starts[j]`` and ``stops[j]`` bound cell j's slice of the cell rows; ``codes[j]`` are its
    target, case and key codes (into ``targets``, ``cases`` and ``keys``).
    """

    def __init__(
        self,
        targets: Sequence[str],
        cases: Sequence[str],
        keys: dict[CoordinateKey, int],
        codes: Rows,
        starts: Rows,
        stops: Rows,
    ) -> None:
        self.target_code = {name: code for code, name in enumerate(targets)}
        self.case_code = {name: code for code, name in enumerate(cases)}
        self.key_code = keys
        self.codes = codes
        self.starts = starts
        self.stops = stops
        self._shape = (len(targets), len(cases), max(keys.values(), default=-1) + 1)
        self._last_cases: tuple[tuple[str, ...] | None, Rows] = (None, np.zeros(0, np.int64))

    @cached_property
    def _grid(self) -> Rows:
        grid = np.full(self._shape, -1, dtype=np.int64)
        if len(self.codes):
            grid[self.codes[:, 0], self.codes[:, 1], self.codes[:, 2]] = np.arange(len(self.codes))
        return grid

    def numbers(self, target: str, cases: Sequence[str], keys: Sequence[CoordinateKey]) -> Rows:
        """The cell number of each case (rows) at each key (columns); -1 where there is no
        successful output."""
        found = np.full((len(cases), len(keys)), -1, dtype=np.int64)
        target_code = self.target_code.get(target)
        if target_code is None or not len(cases) or not len(keys):
            return found
        case_codes = self._case_codes(cases)
        key_codes = np.asarray([self.key_code.get(k, -1) for k in keys], dtype=np.int64)
        known = (case_codes >= 0)[:, None] & (key_codes >= 0)[None, :]
        grid = self._grid[target_code]
        picked = grid[np.maximum(case_codes, 0)[:, None], np.maximum(key_codes, 0)[None, :]]
        found[known] = picked[known]
        return found

    def _case_codes(self, cases: Sequence[str]) -> Rows:
        # The analyses ask about the same tuple of cases (all, or a group's) again and again.
        if type(cases) is tuple and cases is self._last_cases[0]:
            return self._last_cases[1]
        codes = np.asarray([self.case_code.get(c, -1) for c in cases], dtype=np.int64)
        if type(cases) is tuple:
            self._last_cases = (cases, codes)
        return codes

    def sizes(self, numbers: Rows) -> Rows:
        """How many successful outputs each numbered cell has (0 for -1)."""
        if not len(self.starts):  # no cell at all: every number is -1
            return np.zeros(numbers.shape, dtype=np.int64)
        sizes = np.where(numbers >= 0, (self.stops - self.starts)[np.maximum(numbers, 0)], 0)
        result: Rows = sizes.astype(np.int64, copy=False)
        return result


def gather(starts: Rows, stops: Rows) -> Rows:
    """The indexes of the slices [starts[i], stops[i]) laid end to end, in order."""
    counts = stops - starts
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)
    offsets = np.repeat(starts - (ends - counts), counts)
    result: Rows = np.arange(total, dtype=np.int64) + offsets
    return result


def row_means(values: FloatArray, lengths: Rows) -> FloatArray:
    """The mean of each row of values laid end to end (``lengths`` each, none empty).

    Rows of one length are reduced together as a 2-D array along its last axis. numpy sums a
    contiguous row the same way whether it is a 1-D array or one row of a 2-D one (pairwise
    summation over the row), and divides by the count the same way, so each mean equals
    ``np.mean`` of that row's list bit for bit (``tests/records/test_grid.py`` checks it).
    """
    means = np.empty(len(lengths), dtype=np.float64)
    if not len(lengths):
        return means
    starts = np.cumsum(lengths) - lengths
    for length in np.unique(lengths).tolist():
        rows = np.flatnonzero(lengths == length)
        block = values[starts[rows][:, None] + np.arange(length)[None, :]]
        means[rows] = block.mean(axis=1)
    return means
