"""Preparing a comparison's cases for the statistics core: their distance matrices, the two
parts of each case's excess, and the measurements behind them.

:func:`prepare` builds a :class:`~modelscape.analysis.cells.Prepared` once per pair of cells
and measure (kept by the :class:`~modelscape.analysis.cells.MeasureView`), every case at once
when each output's key is one number, else cell by cell.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from modelscape.analysis.cells import (
    Cell,
    Comparand,
    FloatArray,
    MeasureView,
    Prepared,
    PreparedKey,
)
from modelscape.errors import AnalysisError
from modelscape.records.run import CoordinateKey
from modelscape.stats.excess import between_and_within, block_sums

__all__ = ["prepare"]


def _numbers(first: Cell, second: Cell) -> tuple[FloatArray, FloatArray]:
    if first.numbers is None or second.numbers is None:
        raise AnalysisError("internal: cells without numeric keys cannot be stacked")
    return first.numbers, second.numbers


def prepare(view: MeasureView, comparand: Comparand) -> Prepared:
    """The distance matrices of a comparison's cases, built once per pair of cells."""
    first, second = comparand.first, comparand.second
    cases = tuple(comparand.cases)
    first_key, second_key = view.results.key(first), view.results.key(second)
    key: PreparedKey = (
        view.measure,
        comparand.first_target,
        first_key,
        comparand.second_target,
        second_key,
        cases,
    )
    shared = view.prepared
    found = shared.get(key)
    if found is not None:
        return found
    found = _prepare_at_once(view, comparand, cases, first_key, second_key)
    if found is not None:
        shared[key] = found
        return found
    kept: list[tuple[str, Cell, Cell]] = []
    for case in cases:
        a = view.cell(comparand.first_target, case, first, first_key)
        b = view.cell(comparand.second_target, case, second, second_key)
        if len(a.outputs) >= 2 and len(b.outputs) >= 2:
            kept.append((case, a, b))
    count = len(kept)
    ids: list[tuple[str, ...]] = [()] * count
    sizes = [len(a.outputs) for _, a, _ in kept]
    between = np.zeros(count, dtype=np.float64)
    within = np.zeros(count, dtype=np.float64)
    # Cases of equal sizes (all of them, unless outputs failed) are built as one stack.
    groups: dict[tuple[int, int, bool], list[int]] = {}
    stacks: list[tuple[NDArray[np.intp], int, FloatArray]] = []
    for index, (_, a, b) in enumerate(kept):
        stackable = (
            a.numbers is not None
            and b.numbers is not None
            and a.numbers.shape[1:] == b.numbers.shape[1:]
        )
        groups.setdefault((len(a.outputs), len(b.outputs), stackable), []).append(index)
    for (n_a, _, stackable), members in groups.items():
        if stackable:
            numbers = np.stack([np.concatenate(_numbers(kept[i][1], kept[i][2])) for i in members])
            stack = view._distances(numbers)
            for index in members:
                ids[index] = kept[index][1].ids + kept[index][2].ids
        else:
            built = [view.matrix([*kept[i][1].outputs, *kept[i][2].outputs]) for i in members]
            for index, (_, matrix_ids) in zip(members, built, strict=True):
                ids[index] = matrix_ids
            # Each case's matrix is its row of this stack (a copy: the same values).
            stack = np.stack([matrix for matrix, _ in built])
        parts = between_and_within(*block_sums(stack, n_a), n_a, stack.shape[1] - n_a)
        between[members] = parts[0]
        within[members] = parts[1]
        stacks.append((np.asarray(members, dtype=np.intp), n_a, stack))
    found = shared[key] = Prepared(
        cases=tuple(case for case, _, _ in kept),
        sizes=tuple(sizes),
        between=between,
        within=within,
        blocks=tuple(stacks),
        listed=tuple(ids),
    )
    return found


def _prepare_at_once(
    view: MeasureView,
    comparand: Comparand,
    cases: tuple[str, ...],
    first_key: CoordinateKey,
    second_key: CoordinateKey,
) -> Prepared | None:
    """:func:`prepare` for every case in one pass over arrays, when each output's key is one
    number (discrete and absolute keyed measures): the same cases, groups, stacks and
    matrices as cell by cell, so the same numbers. None when that does not hold (a pairwise
    measure, vectors, an output without a number), for the cell-by-cell path to handle or
    to explain."""
    by_row = view.numbers_by_row
    if by_row is None:
        return None
    numbers, valid = by_row
    records = view.results
    cells_a, sizes_a = records.cells_at(comparand.first_target, cases, first_key)
    cells_b, sizes_b = records.cells_at(comparand.second_target, cases, second_key)
    measured = records.point_rows(view.measure)
    assert measured is not None  # numbers_by_row is None without points
    for cells, sizes in ((cells_a, sizes_a), (cells_b, sizes_b)):
        # Cell by cell, any output of any case without a point is an error: say which.
        for size in np.unique(sizes[sizes > 0]).tolist():
            if (measured[records.cell_block(cells[sizes == size], size)] < 0).any():
                return None
    kept = np.flatnonzero((sizes_a >= 2) & (sizes_b >= 2))
    count = len(kept)
    sizes = sizes_a[kept]
    pairs = np.stack([sizes, sizes_b[kept]], axis=1)
    # The groups of equal sizes, in the order each first appears, as cell by cell.
    distinct, first_seen, which = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
    blocks = []
    for group in np.argsort(first_seen, kind="stable").tolist():
        members = np.flatnonzero(which.ravel() == group)
        n_a, n_b = (int(n) for n in distinct[group])
        rows = np.concatenate(
            [
                records.cell_block(cells_a[kept[members]], n_a),
                records.cell_block(cells_b[kept[members]], n_b),
            ],
            axis=1,
        )
        if not valid[rows].all():
            return None  # an output without a number: the cell-by-cell path says which
        blocks.append((members, n_a, rows))
    between = np.zeros(count, dtype=np.float64)
    within = np.zeros(count, dtype=np.float64)
    stacks: list[tuple[NDArray[np.intp], int, FloatArray]] = []
    id_blocks: list[NDArray[np.int64]] = []
    for members, n_a, rows in blocks:
        stack = view._distances(numbers[rows])
        id_blocks.append(measured[rows])
        parts = between_and_within(*block_sums(stack, n_a), n_a, stack.shape[1] - n_a)
        between[members] = parts[0]
        within[members] = parts[1]
        stacks.append((members.astype(np.intp), n_a, stack))
    return Prepared(
        cases=tuple(map(cases.__getitem__, kept.tolist())),
        sizes=tuple(sizes.tolist()),
        between=between,
        within=within,
        blocks=tuple(stacks),
        id_blocks=tuple(id_blocks),
        id_table=records.point_id_array,
    )
