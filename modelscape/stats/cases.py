"""A transition's cases checked and stacked by size, so each size is computed in one pass.

A transition compares many cases (one per task object that has outputs at both of its
coordinates); cases of equal size (n_a, n_b) are stacked into one array, the distance axioms
checked once per stack, and the observed excess computed for the whole stack at once. Cases
that arrive already stacked (:class:`StackedCases`) are taken as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from modelscape.errors import AnalysisError
from modelscape.stats.distances import (
    FloatArray,
    IndexArray,
    as_matrix,
    check_distances,
    plain_matrix,
)
from modelscape.stats.excess import excess_of_stack

__all__ = [
    "CaseGroup",
    "StackedCases",
    "excess_of_groups",
    "group_cases",
    "group_transitions",
]


@dataclass(frozen=True, slots=True)
class CaseGroup:
    """Cases of one transition sharing (n_a, n_b), stacked for vectorised work."""

    n_a: int
    n_b: int
    #: Where these cases sit in the transition's list of cases.
    positions: IndexArray
    #: Their distance matrices, shape (cases, n_a + n_b, n_a + n_b).
    stack: FloatArray
    #: Their observed excess e_c.
    excess: FloatArray


class StackedCases(Sequence[tuple[FloatArray, int]]):
    """A transition's cases already stacked by size: (positions, n_a, stack) blocks.

    It is the sequence of (matrix, n_a) pairs it stands for, so it can go wherever cases go;
    :func:`group_transitions` takes its stacks as they are instead of stacking each case's
    matrix again. Blocks come in the order their sizes first appear among the cases, each
    holding its cases in order, as :func:`group_transitions` would group them.
    """

    def __init__(self, blocks: Sequence[tuple[IndexArray, int, FloatArray]], count: int) -> None:
        self.blocks = tuple(blocks)
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> tuple[FloatArray, int]:  # type: ignore[override]
        return self._cases[index]

    @cached_property
    def _cases(self) -> list[tuple[FloatArray, int]]:
        cases: list[tuple[FloatArray, int] | None] = [None] * self._count
        for positions, n_a, stack in self.blocks:
            for position, matrix in zip(positions.tolist(), stack, strict=True):
                cases[position] = (matrix, n_a)
        return [case for case in cases if case is not None]


def group_transitions(
    items: Sequence[tuple[str, Sequence[tuple[npt.ArrayLike, int]]]],
) -> list[list[CaseGroup]]:
    """Check every case of every transition; stack each transition's cases by size.

    The distance axioms are checked once per size over the whole batch; each transition's
    groups come in the order their sizes first appear among its own cases, so a transition
    is grouped the same way alone or in any batch.
    """
    # Per size: the transition and position of each case, and its matrix (three lists, so
    # that the common case, a float matrix from a stack, costs a few checks and appends).
    by_size: dict[tuple[int, int], tuple[list[int], list[int], list[FloatArray]]] = {}
    for transition, (key, cases) in enumerate(items):
        if len(cases) == 0:
            raise AnalysisError(f"transition {key!r}: no cases to compare")
        if isinstance(cases, StackedCases) and _stacked(cases):
            for positions, n_a, stack in cases.blocks:
                found = by_size.get((n_a, stack.shape[1] - n_a))
                if found is None:
                    found = by_size[(n_a, stack.shape[1] - n_a)] = ([], [], [])
                found[0].extend([transition] * len(positions))
                found[1].extend(positions.tolist())
                found[2].append(stack)
            continue
        for index, case in enumerate(cases):
            if not isinstance(case, tuple | list) or len(case) != 2:
                raise AnalysisError(
                    f"transition {key!r}, case {index}: expected a (distance matrix, n_a) pair"
                )
            matrix, n_a = case
            distances = plain_matrix(matrix, n_a)
            if distances is None:
                distances = as_matrix(matrix, n_a, f"transition {key!r}, case {index}")
            sizes = (int(n_a), distances.shape[0] - int(n_a))
            found = by_size.get(sizes)
            if found is None:
                found = by_size[sizes] = ([], [], [])
            found[0].append(transition)
            found[1].append(index)
            found[2].append(distances[None])
    grouped: list[list[CaseGroup]] = [[] for _ in items]
    for (n_a, n_b), (transitions, indexes, matrices) in by_size.items():
        stack = np.concatenate(matrices)
        names = _LazyNames(items, transitions, indexes)
        check_distances(stack, names)
        owners = np.asarray(transitions, dtype=np.intp)
        places = np.asarray(indexes, dtype=np.intp)
        # Entries were appended transition by transition: each transition is one block.
        starts = np.flatnonzero(np.diff(owners, prepend=-1))
        stops = np.append(starts[1:], len(owners))
        for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
            block = stack[start:stop]
            grouped[int(owners[start])].append(
                CaseGroup(n_a, n_b, places[start:stop], block, excess_of_stack(block, n_a))
            )
    for groups in grouped:
        groups.sort(key=lambda group: int(group.positions[0]))
    return grouped


def _stacked(cases: StackedCases) -> bool:
    """Whether every block is a well-shaped float stack with two outputs or more a side (else
    the cases are checked one by one, which names the one at fault)."""
    for _, n_a, stack in cases.blocks:
        shape = stack.shape
        if not (
            type(stack) is np.ndarray
            and stack.dtype == np.float64
            and type(n_a) is int
            and len(shape) == 3
            and shape[1] == shape[2]
            and n_a >= 2
            and shape[1] - n_a >= 2
        ):
            return False
    return True


class _LazyNames(Sequence[str]):
    """Names of the cases in a checked stack, spelled out only for an error message."""

    def __init__(
        self,
        items: Sequence[tuple[str, Sequence[tuple[npt.ArrayLike, int]]]],
        transitions: Sequence[int],
        indexes: Sequence[int],
    ) -> None:
        self._items = items
        self._transitions = transitions
        self._indexes = indexes

    def __len__(self) -> int:
        return len(self._indexes)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        transition, case = self._transitions[index], self._indexes[index]
        return f"transition {self._items[transition][0]!r}, case {case}"


def group_cases(cases: Sequence[tuple[npt.ArrayLike, int]], *, key: str) -> list[CaseGroup]:
    """Check every case of one transition and stack those of equal sizes together."""
    return group_transitions([(key, cases)])[0]


def excess_of_groups(groups: Sequence[CaseGroup], cases: int) -> FloatArray:
    """The observed excess e_c of every case, in the transition's case order."""
    per_case = np.empty(cases, dtype=np.float64)
    for group in groups:
        per_case[group.positions] = group.excess
    return per_case
