"""The excess change of one case, and the same statistic under every relabeling of its outputs.

A case is a symmetric distance matrix D over the n_a + n_b outputs of one case at coordinates
a and b, the n_a outputs at a first. Its excess change is the U-statistic form of half the
energy distance (Székely & Rizzo 2004, 2013):

    e = mean_{i∈a, j∈b} D_ij − (mean_{i<j∈a} D_ij + mean_{i<j∈b} D_ij) / 2

Because e is linear in D, a labeling z (1 = "at a") gives e(z) = <K(z), D> with

    K(z) = z(1−z)ᵀ/(n_a n_b) − [zzᵀ/(n_a(n_a−1)) + (1−z)(1−z)ᵀ/(n_b(n_b−1))] / 2,

so one matrix product evaluates a case under all C(n_a+n_b, n_a) labelings at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from modelscape.errors import AnalysisError

__all__ = [
    "CaseGroup",
    "StackedCases",
    "between_and_within",
    "block_sums",
    "excess_kernel",
    "excess_of_groups",
    "excess_of_labelings",
    "excess_of_sums",
    "excess_per_case",
    "excess_per_cases",
    "excess_table",
    "group_cases",
    "group_transitions",
    "labeling_count",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
IndexArray = npt.NDArray[np.intp]

#: Largest kernel block (labelings x n²) evaluated by a single matrix product; bigger ones are
#: evaluated as quadratic forms, which need n times less memory.
_KERNEL_ELEMENTS = 1 << 21


def labeling_count(n_a: int, n_b: int) -> int:
    """How many distinct ways there are to label n_a of n_a + n_b outputs as "at a"."""
    return math.comb(n_a + n_b, n_a)


def _check_sizes(n_a: int, n_b: int, where: str) -> None:
    if n_a < 2 or n_b < 2:
        raise AnalysisError(
            f"{where}: {n_a} output(s) at a and {n_b} at b; the excess change needs at least 2 "
            "outputs at each coordinate, because with one repetition run-to-run variation "
            "cannot be told apart from change (use repetitions >= 2)"
        )


def _plain_matrix(matrix: object, n_a: object) -> FloatArray | None:
    """The common case of a well-shaped float matrix and int n_a, recognised cheaply."""
    if type(matrix) is np.ndarray and matrix.dtype == np.float64 and type(n_a) is int:
        shape = matrix.shape
        if len(shape) == 2 and shape[0] == shape[1] and n_a >= 2 and shape[0] - n_a >= 2:
            return matrix
    return None


def _as_matrix(matrix: npt.ArrayLike, n_a: int, where: str) -> FloatArray:
    """Shape and size checks of one case; the distance axioms are checked on stacks."""
    if isinstance(n_a, bool) or not isinstance(n_a, int | np.integer):
        raise AnalysisError(f"{where}: n_a must be an integer, got {n_a!r}")
    try:
        distances = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise AnalysisError(f"{where}: the distance matrix is not numeric ({error})") from error
    if distances.ndim != 2 or distances.shape[0] != distances.shape[1]:
        raise AnalysisError(
            f"{where}: expected a square distance matrix, got shape {distances.shape}"
        )
    n = distances.shape[0]
    if not 0 <= int(n_a) <= n:
        raise AnalysisError(f"{where}: n_a = {n_a} is outside 0..{n}, the matrix size")
    _check_sizes(int(n_a), n - int(n_a), where)
    return distances


def _check_distances(stack: FloatArray, names: Sequence[str]) -> None:
    """Input checks apart from the algorithm: every matrix of the stack must be a distance."""
    flat = stack.reshape(stack.shape[0], -1)
    if _exact_distances(stack, flat):
        return  # nothing for the tolerant checks below to weigh
    finite = np.isfinite(flat).all(axis=1)
    if not finite.all():
        where = names[int(np.argmin(finite))]
        raise AnalysisError(f"{where}: the distance matrix holds NaN or infinite values")
    # Distances computed in floating point may carry rounding noise: tolerate it, relatively.
    tolerance = 1e-9 * np.maximum(1.0, np.abs(flat).max(axis=1))
    problems = (
        (
            np.abs(stack - stack.transpose(0, 2, 1)).reshape(len(flat), -1).max(axis=1),
            "is not symmetric; d must be symmetric",
        ),
        (
            np.abs(np.diagonal(stack, axis1=1, axis2=2)).max(axis=1),
            "has a nonzero diagonal; d(x, x) must be 0",
        ),
        (-flat.min(axis=1), "has negative entries; d must be >= 0"),
    )
    for size, message in problems:
        bad = size > tolerance
        if bad.any():
            raise AnalysisError(f"{names[int(np.argmax(bad))]}: the distance matrix {message}")


def _exact_distances(stack: FloatArray, flat: FloatArray) -> bool:
    """Whether every matrix is finite, nonnegative, exactly symmetric with a zero diagonal:
    what matrices built from keys are, checked in a few passes without any temporary stack.
    A NaN makes the maximum NaN and an infinity makes it or the minimum infinite."""
    if flat.size == 0:
        return True
    if not (np.isfinite(flat.max()) and flat.min() >= 0.0):
        return False
    if np.diagonal(stack, axis1=1, axis2=2).any():
        return False
    return bool(np.array_equal(stack, stack.transpose(0, 2, 1)))


def _check_matrix(matrix: npt.ArrayLike, n_a: int, where: str) -> FloatArray:
    distances = _as_matrix(matrix, n_a, where)
    _check_distances(distances[None], [where])
    return distances


def block_sums(stack: FloatArray, n_a: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The distance sums of every matrix in a (cases, n, n) stack whose first n_a outputs are
    at a: across a and b, inside a, and inside b (each inside sum over ordered pairs)."""
    across = stack[:, :n_a, n_a:].sum(axis=(1, 2))
    inside_a = stack[:, :n_a, :n_a].sum(axis=(1, 2))
    inside_b = stack[:, n_a:, n_a:].sum(axis=(1, 2))
    return across, inside_a, inside_b


def between_and_within(
    across: FloatArray, inside_a: FloatArray, inside_b: FloatArray, n_a: int, n_b: int
) -> tuple[FloatArray, FloatArray]:
    """The between mean and the mean of the two within means, from distance sums.

    An inside sum runs over ordered pairs of distinct outputs (a symmetric matrix with a zero
    diagonal counts each pair twice), so the mean over pairs i < j divides it by n(n − 1).
    """
    between: FloatArray = across / (n_a * n_b)
    within: FloatArray = (inside_a / (n_a * (n_a - 1)) + inside_b / (n_b * (n_b - 1))) / 2
    return between, within


def excess_of_sums(
    across: FloatArray, inside_a: FloatArray, inside_b: FloatArray, n_a: int, n_b: int
) -> FloatArray:
    """The excess e = between − (within_a + within_b) / 2 (module docstring), from distance
    sums; the one place the formula is written, whatever computed the sums."""
    between, within = between_and_within(across, inside_a, inside_b, n_a, n_b)
    result: FloatArray = between - within
    return result


def _excess_of_stack(stack: FloatArray, n_a: int) -> FloatArray:
    """Excess of every matrix in a (cases, n, n) stack whose first n_a outputs are at a."""
    return excess_of_sums(*block_sums(stack, n_a), n_a, stack.shape[1] - n_a)


def excess_per_case(matrix: npt.ArrayLike, n_a: int) -> float:
    """The excess change e of one case: between-coordinate distance minus within-coordinate.

    Unbiased for half the energy distance between the output distributions at a and b
    (Székely & Rizzo 2013, energy distance, here in U-statistic form); about zero when a and b
    answer alike.
    Raises AnalysisError when the matrix is not a distance matrix or either side has fewer
    than two outputs.
    """
    distances = _check_matrix(matrix, n_a, "case")
    return float(_excess_of_stack(distances[None], int(n_a))[0])


def excess_per_cases(matrices: npt.ArrayLike, n_a: int) -> FloatArray:
    """The excess change of each matrix of a (cases, n, n) stack sharing the same n_a."""
    stack = np.asarray(matrices, dtype=np.float64)
    if stack.ndim != 3:
        raise AnalysisError(f"expected a (cases, n, n) stack of matrices, got shape {stack.shape}")
    names = [f"case {index}" for index in range(stack.shape[0])]
    for name, matrix in zip(names, stack, strict=True):
        _as_matrix(matrix, n_a, name)
    _check_distances(stack, names)
    return _excess_of_stack(stack, int(n_a))


def excess_kernel(labeling: npt.ArrayLike) -> FloatArray:
    """The matrix K(z) with e(z) = <K(z), D> for a 0/1 labeling z (1 = output at a)."""
    z = np.asarray(labeling).astype(np.float64)
    if z.ndim != 1 or not np.isin(z, (0.0, 1.0)).all():
        raise AnalysisError("a labeling must be a one-dimensional 0/1 vector")
    n_a = int(z.sum())
    n_b = z.size - n_a
    _check_sizes(n_a, n_b, "labeling")
    w = 1.0 - z
    return excess_of_sums(np.outer(z, w), np.outer(z, z), np.outer(w, w), n_a, n_b)


@lru_cache(maxsize=64)
def _labelings(n_a: int, n_b: int) -> BoolArray:
    """Every labeling of n_a of n_a + n_b outputs, in lexicographic order: row 0 is identity."""
    n = n_a + n_b
    chosen = np.array(list(combinations(range(n), n_a)), dtype=np.intp)
    labelings = np.zeros((chosen.shape[0], n), dtype=np.bool_)
    np.put_along_axis(labelings, chosen, True, axis=1)
    labelings.setflags(write=False)
    return labelings


@lru_cache(maxsize=64)
def _kernels(n_a: int, n_b: int) -> FloatArray:
    """K(z) for every labeling, flattened to (n², labelings) for one matrix product."""
    z = _labelings(n_a, n_b).astype(np.float64)
    w = 1.0 - z
    kernels = excess_of_sums(
        z[:, :, None] * w[:, None, :],
        z[:, :, None] * z[:, None, :],
        w[:, :, None] * w[:, None, :],
        n_a,
        n_b,
    )
    flat: FloatArray = np.ascontiguousarray(kernels.reshape(z.shape[0], -1).T)
    flat.setflags(write=False)
    return flat


def excess_of_labelings(stack: FloatArray, n_a: int, labelings: BoolArray) -> FloatArray:
    """Excess of each matrix of ``stack`` under each labeling: shape (cases, labelings).

    Uses quadratic forms zᵀDz, zᵀD1 and 1ᵀD1, so memory grows with labelings x n only.
    """
    n_b = stack.shape[1] - n_a
    z = labelings.astype(np.float64)
    row_sums = stack.sum(axis=2)  # (cases, n)
    totals = row_sums.sum(axis=1)[:, None]  # (cases, 1)
    projected = np.matmul(z[None], stack)  # (cases, labelings, n)
    inside_a = np.einsum("cln,ln->cl", projected, z)
    toward_rest = row_sums @ z.T  # zᵀ D 1 per case and labeling
    across = toward_rest - inside_a
    inside_b = totals - 2 * toward_rest + inside_a
    return excess_of_sums(across, inside_a, inside_b, n_a, n_b)


def excess_table(stack: FloatArray, n_a: int) -> FloatArray:
    """Excess of each matrix under every one of its labelings: shape (cases, labelings).

    Column 0 is the observed labeling. Small problems take one matrix product with the
    cached kernels; large ones fall back to quadratic forms.
    """
    n = stack.shape[1]
    n_b = n - n_a
    count = labeling_count(n_a, n_b)
    if count * n * n <= _KERNEL_ELEMENTS:
        table: FloatArray = stack.reshape(stack.shape[0], n * n) @ _kernels(n_a, n_b)
        return table
    return excess_of_labelings(stack, n_a, _labelings(n_a, n_b))


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
            distances = _plain_matrix(matrix, n_a)
            if distances is None:
                distances = _as_matrix(matrix, n_a, f"transition {key!r}, case {index}")
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
        _check_distances(stack, names)
        owners = np.asarray(transitions, dtype=np.intp)
        places = np.asarray(indexes, dtype=np.intp)
        # Entries were appended transition by transition: each transition is one block.
        starts = np.flatnonzero(np.diff(owners, prepend=-1))
        stops = np.append(starts[1:], len(owners))
        for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
            block = stack[start:stop]
            grouped[int(owners[start])].append(
                CaseGroup(n_a, n_b, places[start:stop], block, _excess_of_stack(block, n_a))
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
