"""The indexes of a run's records, built on its columns (see :mod:`~.columns`).

Two indexes serve every analysis: per measure, the row of each observation's point
measurement; and per cell (a target, a case, a coordinate), the rows of its successful outputs
by repetition, as one slice of one array. :class:`Outputs` is such a slice read as a sequence
of records, built when read. :class:`~modelscape.records.run.IndexedRun` holds them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TypeAlias, overload

import numpy as np
from numpy.typing import NDArray

from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.grid import Cells, CoordinateKey
from modelscape.records.stored import Observation

__all__ = [
    "Cells",
    "CoordinateKey",
    "MetricCells",
    "Outputs",
    "cell_rows",
    "id_array",
    "metric_cells",
    "point_rows",
]

Rows = NDArray[np.int64]
#: A point metric over every cell: where each cell's values start among the kept values
#: (cumulative counts over the cells' rows), the kept values, and their point rows.
MetricCells: TypeAlias = tuple[Rows, NDArray[np.float64], Rows]


class Outputs(Sequence[Observation]):
    """Some rows of a run's observations, as a sequence that builds a record when read."""

    __slots__ = ("_columns", "rows")

    def __init__(self, columns: ObservationColumns, rows: NDArray[np.int64]) -> None:
        self._columns = columns
        self.rows = rows

    @property
    def ids(self) -> tuple[str, ...]:
        """The observations' ids, without building a record."""
        ids = self._columns.ids
        return tuple(ids[i] for i in self.rows.tolist())

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> Observation: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Observation, ...]: ...
    def __getitem__(self, index: int | slice) -> Observation | tuple[Observation, ...]:
        if isinstance(index, slice):
            return self._columns.at(self.rows[index])
        return self._columns[int(self.rows[index])]

    def __iter__(self) -> Iterator[Observation]:
        return iter(self._columns.at(self.rows))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self.rows.tolist()))


def point_rows(
    points: PointColumns, row_of: Mapping[str, int], observations: int
) -> tuple[dict[str, Rows], dict[tuple[str, str], int]]:
    """Per measure, the row of each observation's point (-1: none), the last one stored
    winning, as a dict filled in order would have it; and the points of observations not in
    the run, by measure and observation id."""
    # A store's points know their rows already: a million lookups by id saved.
    known = points.rows_in(row_of)
    rows = (
        known
        if known is not None
        else np.fromiter(
            (row_of.get(o, -1) for o in points.observation_ids), dtype=np.int64, count=len(points)
        )
    )
    found: dict[str, Rows] = {}
    orphans: dict[tuple[str, str], int] = {}
    for code, measure in enumerate(points.measure.values):
        mine = np.flatnonzero(points.measure.codes == code)
        at = rows[mine]
        inside = at >= 0
        measure_rows = np.full(observations, -1, dtype=np.int64)
        # np.unique over the reversed rows finds each observation's last point.
        last, first_back = np.unique(at[inside][::-1], return_index=True)
        measure_rows[last] = mine[inside][::-1][first_back]
        found[measure] = measure_rows
        for point in mine[~inside].tolist():
            orphans[(measure, points.observation_ids[point])] = point
    return found, orphans


def cell_rows(
    columns: ObservationColumns, keys: list[CoordinateKey]
) -> tuple[Rows, dict[tuple[str, str, CoordinateKey], tuple[int, int]], Cells]:
    """Every cell's successful outputs, by repetition: the rows of all cells in one array,
    each cell's slice of it, and the cells as arrays (see :class:`Cells`). ``keys`` are the
    keys of the coordinate column's values."""
    codes = {key: code for code, key in reversed(list(enumerate(keys)))}
    key_code = np.asarray([codes[k] for k in keys], dtype=np.int64)[columns.coordinate.codes]
    ok = np.flatnonzero(columns.ok)
    target = columns.target.codes[ok]
    case = columns.case.codes[ok]
    key = key_code[ok]
    # Stable: outputs of one repetition keep the run's order.
    order = np.lexsort((columns.repetition[ok], key, case, target))
    triples = np.stack([target[order], case[order], key[order]], axis=1)
    change = np.flatnonzero(np.any(triples[1:] != triples[:-1], axis=1)) + 1
    starts = np.concatenate([[0], change]).astype(np.int64)
    stops = np.concatenate([change, [len(triples)]]).astype(np.int64)
    targets, cases = columns.target.values, columns.case.values
    cells: dict[tuple[str, str, CoordinateKey], tuple[int, int]] = {}
    found = triples[starts] if len(triples) else np.zeros((0, 3), dtype=np.int64)
    if len(triples):
        cells = {
            (targets[t], cases[c], keys[k]): (a, b)
            for (t, c, k), a, b in zip(found.tolist(), starts.tolist(), stops.tolist(), strict=True)
        }
    else:
        starts = stops = np.zeros(0, dtype=np.int64)
    return ok[order], cells, Cells(targets, cases, codes, found, starts, stops)


def metric_cells(points: PointColumns, measure_rows: Rows | None, cells: Rows) -> MetricCells:
    """A point metric read once over every cell's rows (see :data:`MetricCells`); outputs
    without a value (the metric did not apply) are left out."""
    none = np.full(len(cells), -1, dtype=np.int64)
    at = none if measure_rows is None else measure_rows[cells]
    kept = at >= 0
    kept[kept] = points.has_value[at[kept]]
    chosen = at[kept]
    return (
        np.concatenate([[0], np.cumsum(kept)]).astype(np.int64),
        points.values[chosen],
        chosen,
    )


def id_array(ids: Sequence[str]) -> NDArray[np.object_]:
    """Measurement ids as a numpy array of the same str objects, so that a block of rows
    becomes a list of ids by one ``take`` and ``tolist`` instead of a Python loop."""
    array = np.empty(len(ids), dtype=object)
    array[:] = ids
    return array
