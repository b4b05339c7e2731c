"""Reading a run's cells and point values by row: the part of the records most analyses use.

A cell is the successful outputs of one target for one case at one coordinate, held as a run
of observation rows (by repetition); a point measure's values are laid out in the same order,
so a cell's values, or many cells' values at once, are slices and ``take``s of arrays rather
than lookups record by record. :class:`CellRows` is a base of
:class:`~modelscape.records.run.IndexedRun`, which builds the indexes it reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import JsonValue
from modelscape.errors import AnalysisError
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.grid import Cells, CoordinateKey, Rows, gather
from modelscape.records.index import MetricCells, Outputs, id_array, metric_cells
from modelscape.records.stored import PointMeasurement

__all__ = ["CellRows"]


class CellRows:
    """Cells and point values of one run by observation row (a base of ``IndexedRun``)."""

    _columns: ObservationColumns
    _point_columns: PointColumns
    _row: dict[str, int]
    _point_row: dict[str, Rows]
    _orphans: dict[tuple[str, str], int]
    _cells: dict[tuple[str, str, CoordinateKey], tuple[int, int]]
    _cell_rows: Rows
    _grid: Cells
    _cell_points: dict[str, MetricCells]

    def rows(self, target: str, case: str, key: CoordinateKey) -> NDArray[np.int64]:
        """The rows (into :attr:`observations`) of one cell's successful outputs, by
        repetition."""
        found = self._cells.get((target, case, key))
        if found is None:
            return np.zeros(0, dtype=np.int64)
        return self._cell_rows[found[0] : found[1]]

    def outputs(self, target: str, case: str, key: CoordinateKey) -> Outputs:
        """The successful outputs of one target and case at the coordinate of ``key``, by
        repetition (a sequence that builds each record when it is read)."""
        return Outputs(self._columns, self.rows(target, case, key))

    def point(self, measure: str, observation_id: str) -> PointMeasurement | None:
        """The point measurement of ``measure`` for one observation, if any."""
        rows = self._point_row.get(measure)
        if rows is None:
            return None
        row = self._row.get(observation_id)
        found = self._orphans.get((measure, observation_id), -1) if row is None else rows[row]
        return None if found < 0 else self._point_columns[int(found)]

    def _metric(self, metric: str) -> MetricCells:
        found = self._cell_points.get(metric)
        if found is None:
            rows = self._point_row.get(metric)
            found = metric_cells(self._point_columns, rows, self._cell_rows)
            self._cell_points[metric] = found
        return found

    def cell_points(
        self, metric: str, target: str, case: str, key: CoordinateKey
    ) -> tuple[tuple[float, ...], tuple[str, ...]]:
        """A point metric's values over one cell's successful outputs, and their measurement
        ids.

        Outputs without a value (the metric did not apply) are left out.
        """
        cell = self._cells.get((target, case, key))
        if cell is None:
            return (), ()
        starts, values, rows = self._metric(metric)
        a, b = int(starts[cell[0]]), int(starts[cell[1]])
        return tuple(values[a:b].tolist()), tuple(self.point_id_array.take(rows[a:b]).tolist())

    @cached_property
    def point_id_array(self) -> NDArray[np.object_]:
        """Every point measurement's id (:attr:`point_columns` order) as an object array:
        ids of many rows at once are one ``take``."""
        return id_array(self._point_columns.ids)

    def cells_at(self, target: str, cases: Sequence[str], key: CoordinateKey) -> tuple[Rows, Rows]:
        """Each case's cell of ``target`` at ``key``: its number (-1: no successful output)
        and its size, for :meth:`cell_block`."""
        numbers = self._grid.numbers(target, cases, (key,))[:, 0]
        return numbers, self._grid.sizes(numbers)

    def cell_block(self, numbers: Rows, size: int) -> Rows:
        """The observation rows of cells that all have ``size`` outputs, one cell a row, by
        repetition (as :meth:`rows` gives each)."""
        first = self._grid.starts[numbers]
        block: Rows = self._cell_rows[first[:, None] + np.arange(size)[None, :]]
        return block

    def point_rows(self, measure: str) -> Rows | None:
        """Per observation row, the row of its ``measure`` point among
        :attr:`point_measurements` (-1: none); None when the measure has no points."""
        return self._point_row.get(measure)

    def case_points(
        self, metric: str, target: str, cases: Sequence[str], keys: Sequence[CoordinateKey]
    ) -> tuple[Rows, NDArray[np.float64], Rows]:
        """A point metric over many cells at once: for each case, its values at each key in
        turn (as :meth:`cell_points` gives them), laid end to end case after case.

        Returns how many values each case has, the values, and their rows among the point
        measurements (their ids are :attr:`point_id_array` at those rows).
        """
        numbers = self._grid.numbers(target, cases, keys)
        if not len(self._grid.starts):
            # No target has a successful output (a run whose only target was unreachable):
            # every case has no value, and there is no cell to index.
            none: Rows = np.zeros(len(cases), dtype=np.int64)
            return none, np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.int64)
        starts, values, rows = self._metric(metric)
        present = numbers >= 0
        safe = np.maximum(numbers, 0)
        first = np.where(present, starts[self._grid.starts[safe]], 0)
        last = np.where(present, starts[self._grid.stops[safe]], 0)
        positions = gather(first.ravel(), last.ravel())
        lengths: Rows = (last - first).sum(axis=1)
        return lengths, values[positions], rows[positions]

    def cell_details(
        self, measure: str, target: str, case: str, key: CoordinateKey
    ) -> tuple[tuple[str, ...], tuple[JsonValue, ...]]:
        """A keyed measure's keys over one cell's successful outputs, and their measurement
        ids; an :class:`AnalysisError` names an output the measure has no value for."""
        rows = self.rows(target, case, key)
        found = self._point_row.get(measure)
        at = np.full(len(rows), -1, dtype=np.int64) if found is None else found[rows]
        missing = np.flatnonzero(at < 0)
        if len(missing):
            observation = self._columns.ids[int(rows[missing[0]])]
            raise AnalysisError(f"measure {measure!r} has no value for observation {observation}")
        points = self._point_columns
        chosen = at.tolist()
        return tuple(points.ids[i] for i in chosen), tuple(points.details[i] for i in chosen)

    def has_points(self, measure: str) -> bool:
        """Whether ``measure`` has point measurements in this run."""
        return measure in self._point_row
