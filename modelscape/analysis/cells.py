"""From stored outputs to the statistics core: distance matrices per case, and transitions.

A *cell* is the successful outputs of one target for one case at one coordinate. A comparison
of two cells of the same case gives one case's distance matrix (the first cell's outputs, then
the second's); a transition is a list of such cases. This module builds them for a measure,
which :mod:`~modelscape.analysis.transitions` hands to :func:`modelscape.stats.compare_many`
in one batch.

Everything here is computed once per run's records (one :class:`MeasureView` per measure,
kept by :class:`MeasureViews`, see :meth:`~modelscape.records.run.IndexedRun.derived`): the keys
of a keyed measure are read once per cell, each case's matrix is built once per pair of cells
(all cases of a transition at once when they have the same sizes), and a transition asked for
again (by a sensitivity ranking, a scorecard or an agreement after a profile) is reused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue, JsonValue, canonical_json
from modelscape.errors import AnalysisError
from modelscape.measures import key_distance, key_distances, key_numbers
from modelscape.records.run import CoordinateKey, Derived, IndexedRun
from modelscape.records.stored import Observation

__all__ = ["Cell", "Comparand", "MeasureView", "MeasureViews", "Prepared", "PreparedKey"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Comparand:
    """One transition to compute: two cells per case (same target, or two targets)."""

    key: str
    axis: str
    before: AxisValue
    after: AxisValue
    first: Mapping[str, AxisValue]
    second: Mapping[str, AxisValue]
    first_target: str
    second_target: str
    cases: Sequence[str]


@dataclass(frozen=True)
class Cell:
    """One cell under one measure: its outputs, measurement ids and, if keyed, its keys."""

    outputs: Sequence[Observation]
    #: The measurement ids of a keyed measure's keys (empty for a pairwise measure).
    ids: tuple[str, ...]
    #: The keys as stored (keyed measures), and as numbers when the distance allows it.
    keys: tuple[JsonValue, ...]
    numbers: FloatArray | None


@dataclass(frozen=True)
class Prepared:
    """The cases of one comparison that have two outputs or more on both sides.

    ``matrices[i]`` is case ``cases[i]``'s distance matrix with its ``sizes[i]`` first outputs
    in the first cell; ``between`` and ``within`` are its two parts (the mean distance across
    the cells, and the mean of the two cells' mean distances within), so that its excess
    change is ``between - within``. ``ids[i]`` names the measurements behind case i.
    """

    cases: tuple[str, ...]
    sizes: tuple[int, ...]
    between: FloatArray
    within: FloatArray
    #: The matrices as built, by size: (positions among ``cases``, n_a, stack) blocks.
    blocks: tuple[tuple[NDArray[np.intp], int, FloatArray], ...] = ()
    #: Each case's measurement ids, when read cell by cell (else see ``id_blocks``).
    listed: tuple[tuple[str, ...], ...] = ()
    #: The point rows of each block's measurements, one case a row, beside ``blocks``, and
    #: the table of ids they index; empty when the ids were read cell by cell.
    id_blocks: tuple[NDArray[np.int64], ...] = ()
    id_table: NDArray[np.object_] | None = None

    @cached_property
    def matrices(self) -> tuple[FloatArray, ...]:
        """Each case's distance matrix: its row of the block of its size."""
        found: list[FloatArray] = [np.empty((0, 0))] * len(self.cases)
        for members, _, stack in self.blocks:
            for index, matrix in zip(members.tolist(), stack, strict=True):
                found[index] = matrix
        return tuple(found)

    @cached_property
    def ids(self) -> tuple[tuple[str, ...], ...]:
        """Each case's measurement ids (its first cell's, then its second's)."""
        if self.id_table is None:
            return self.listed
        ids: list[tuple[str, ...]] = [()] * len(self.cases)
        for (members, _, _), rows in zip(self.blocks, self.id_blocks, strict=True):
            for index, found in zip(members.tolist(), _point_ids(self.id_table, rows), strict=True):
                ids[index] = found
        return tuple(ids)

    def id_rows(self, chosen: NDArray[np.bool_] | None = None) -> NDArray[np.int64] | None:
        """The point rows behind the chosen cases (all by default), case after case as
        ``ids`` lists them; None when the ids were read cell by cell."""
        if self.id_table is None:
            return None
        parts, owners = [], []
        for (members, _, _), rows in zip(self.blocks, self.id_blocks, strict=True):
            mine = slice(None) if chosen is None else chosen[members]
            parts.append(rows[mine].ravel())
            owners.append(np.repeat(members[mine], rows.shape[1]))
        if len(parts) == 1:  # one size: its rows are already in case order
            return parts[0]
        flat = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
        order = np.argsort(np.concatenate(owners), kind="stable") if owners else flat
        found: NDArray[np.int64] = flat[order]
        return found


#: What a prepared comparison depends on: measure, both targets and coordinates, the cases.
PreparedKey = tuple[str, str, CoordinateKey, str, CoordinateKey, tuple[str, ...]]


class MeasureView:
    """The distances of one difference measure over the outputs of one run."""

    def __init__(self, results: IndexedRun, measure: str) -> None:
        self.results = results
        self.measure = measure
        kind = results.difference(measure)
        if kind is None:
            known = [m.name for m in results.experiment.difference_measures]
            raise AnalysisError(f"no difference measure {measure!r} in this run; measures: {known}")
        if results.experiment.repetitions < 2:
            raise AnalysisError(
                "this run has one repetition per variant: run-to-run variation cannot be "
                "separated from change; rerun with repetitions >= 2"
            )
        self.keyed = kind.kind == "keyed"
        self.distance: str = kind.distance
        self._cells: dict[tuple[str, str, CoordinateKey], Cell] = {}
        self._codes: dict[str, int] = {}
        #: Prepared comparisons of this measure (see :func:`~modelscape.analysis.prepared.prepare`).
        self.prepared: dict[PreparedKey, Prepared] = {}

    @classmethod
    def of(cls, results: IndexedRun, measure: str) -> MeasureView:
        """The view of ``measure`` shared by every analysis of ``results``."""
        views = results.derived(MeasureViews).views
        found = views.get(measure)
        if found is None:
            found = views[measure] = cls(results, measure)
        return found

    # -- cells -----------------------------------------------------------------------------
    def cell(
        self,
        target: str,
        case: str,
        coordinate: Mapping[str, AxisValue],
        key: CoordinateKey | None = None,
    ) -> Cell:
        """One cell's outputs with their keys, read once (``key``: the coordinate's, when the
        caller has it already)."""
        if key is None:
            key = self.results.key(coordinate)
        index = (target, case, key)
        found = self._cells.get(index)
        if found is None:
            outputs = self.results.outputs(target, case, key)
            if self.keyed:
                # Read from the columns: no output record is built for a keyed measure.
                ids, keys = self.results.cell_details(self.measure, target, case, key)
                found = Cell(outputs, ids, keys, self._numbers(keys))
            else:
                found = Cell(outputs, (), (), None)
            self._cells[index] = found
        return found

    @cached_property
    def numbers_by_row(self) -> tuple[FloatArray, NDArray[np.bool_]] | None:
        """Each observation's key as the number :func:`key_numbers` makes of it, and whether
        it has one; None unless every key of this measure is a single number (discrete and
        absolute keyed measures). Each distinct key is converted once."""
        rows = self.results.point_rows(self.measure)
        if not self.keyed or self.distance not in ("discrete", "absolute") or rows is None:
            return None
        details = self.results.point_columns.details
        if self.distance == "discrete":
            book = self._codes
            per_key = [float(book.setdefault(canonical_json(k), len(book))) for k in details.values]
            usable = [True] * len(per_key)
        else:
            usable = [isinstance(k, int | float) for k in details.values]
            per_key = [
                float(k) if ok else 0.0 for k, ok in zip(details.values, usable, strict=True)
            ]
        numbers = np.zeros(len(rows), dtype=np.float64)
        valid = np.zeros(len(rows), dtype=np.bool_)
        present = rows >= 0
        codes = details.codes[rows[present]]
        numbers[present] = np.asarray(per_key, dtype=np.float64)[codes]
        valid[present] = np.asarray(usable, dtype=np.bool_)[codes]
        return numbers, valid

    def _read(self, outputs: Sequence[Observation]) -> Cell:
        if not self.keyed:
            return Cell(outputs, (), (), None)
        keys: list[JsonValue] = []
        ids: list[str] = []
        for observation in outputs:
            point = self.results.point(self.measure, observation.id)
            if point is None:
                raise AnalysisError(
                    f"measure {self.measure!r} has no value for observation {observation.id}"
                )
            keys.append(point.details)
            ids.append(point.id)
        return Cell(outputs, tuple(ids), tuple(keys), self._numbers(keys))

    def _numbers(self, keys: Sequence[JsonValue]) -> FloatArray | None:
        """Keys as numbers for the vectorised distances (None: the matrix is then built by
        :func:`~modelscape.measures.key_distance`, which raises the error that explains it)."""
        return key_numbers(self.distance, keys, self._codes)

    def _distances(self, numbers: FloatArray) -> FloatArray:
        """Distance matrices of stacked keys: (cases, n) or (cases, n, dim) -> (cases, n, n)."""
        return key_distances(self.distance, numbers)

    def matrix(self, outputs: Sequence[Observation]) -> tuple[FloatArray, tuple[str, ...]]:
        """The distance matrix over ``outputs`` and the ids of the measurements behind it."""
        if not self.keyed:
            return self.results.distances(self.measure, outputs)
        cell = self._read(tuple(outputs))
        if cell.numbers is not None:
            return self._distances(cell.numbers[None])[0], cell.ids
        return key_distance(self.distance, list(cell.keys)), cell.ids

    def within(
        self, target: str, case: str, coordinate: Mapping[str, AxisValue]
    ) -> tuple[float, int, tuple[str, ...]] | None:
        """Mean distance over pairs of one cell's outputs, its size and its measurements."""
        cell = self.cell(target, case, coordinate)
        n = len(cell.outputs)
        if n < 2:
            return None
        if cell.numbers is not None:
            matrix, ids = self._distances(cell.numbers[None])[0], cell.ids
        else:
            matrix, ids = self.matrix(cell.outputs)
        upper = matrix[np.triu_indices(n, k=1)]
        return float(upper.mean()), n, ids

    def withins(
        self, target: str, cases: Sequence[str], coordinate: Mapping[str, AxisValue]
    ) -> list[tuple[float, int, tuple[str, ...]] | None]:
        """:meth:`within` of many cases' cells at one coordinate.

        When each output's key is one number, the cells of each size are computed as one
        stack; each mean is the one a single matrix gives (the same upper triangle, reduced
        row by row the same way).
        """
        found = self.within_rows(target, cases, coordinate)
        if found is None:
            return [self.within(target, case, coordinate) for case in cases]
        table = self.results.point_id_array
        return [
            None if one is None else (one[0], one[1], tuple(table.take(one[2]).tolist()))
            for one in found
        ]

    def within_rows(
        self, target: str, cases: Sequence[str], coordinate: Mapping[str, AxisValue]
    ) -> list[tuple[float, int, NDArray[np.int64]] | None] | None:
        """:meth:`withins` with each cell's measurements as point rows; None when the keys
        are not single numbers or an output has none (:meth:`within` case by case then)."""
        by_row = self.numbers_by_row
        measured = self.results.point_rows(self.measure)
        if by_row is None or measured is None:
            return None
        numbers, valid = by_row
        records = self.results
        cells, sizes = records.cells_at(target, cases, records.key(coordinate))
        found: list[tuple[float, int, NDArray[np.int64]] | None] = [None] * len(cases)
        for size in np.unique(sizes[sizes > 0]).tolist():
            rows = records.cell_block(cells[sizes == size], size)
            if (measured[rows] < 0).any() or (size >= 2 and not valid[rows].all()):
                return None  # an output without a key: the case-by-case path names it
            if size < 2:
                continue
            upper = self._distances(numbers[rows])[(slice(None), *np.triu_indices(size, k=1))]
            means = upper.mean(axis=1).tolist()
            points = measured[rows]
            for position, index in enumerate(np.flatnonzero(sizes == size).tolist()):
                found[index] = (means[position], size, points[position])
        return found


def _point_ids(point_ids: NDArray[np.object_], rows: NDArray[np.int64]) -> list[tuple[str, ...]]:
    """The measurement ids of each row of a block of point rows, one tuple per row (``point_ids``
    is :attr:`~modelscape.records.run.IndexedRun.point_id_array`)."""
    return list(map(tuple, point_ids.take(rows).tolist()))


class MeasureViews(Derived):
    """The measure views of one run's records, one per measure (see :meth:`MeasureView.of`)."""

    def __init__(self, records: IndexedRun) -> None:
        super().__init__(records)
        self.views: dict[str, MeasureView] = {}
