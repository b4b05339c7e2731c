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
from functools import lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from modelscape.errors import AnalysisError
from modelscape.stats.distances import BoolArray as BoolArray
from modelscape.stats.distances import FloatArray as FloatArray
from modelscape.stats.distances import IndexArray as IndexArray
from modelscape.stats.distances import as_matrix, check_distances, check_matrix, check_sizes

__all__ = [
    "BoolArray",
    "FloatArray",
    "IndexArray",
    "between_and_within",
    "block_sums",
    "excess_kernel",
    "excess_of_labelings",
    "excess_of_sums",
    "excess_per_case",
    "excess_per_cases",
    "excess_table",
    "labeling_count",
]


#: Largest kernel block (labelings x n²) evaluated by a single matrix product; bigger ones are
#: evaluated as quadratic forms, which need n times less memory.
_KERNEL_ELEMENTS = 1 << 21


def labeling_count(n_a: int, n_b: int) -> int:
    """How many distinct ways there are to label n_a of n_a + n_b outputs as "at a"."""
    return math.comb(n_a + n_b, n_a)


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


def excess_of_stack(stack: FloatArray, n_a: int) -> FloatArray:
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
    distances = check_matrix(matrix, n_a, "case")
    return float(excess_of_stack(distances[None], int(n_a))[0])


def excess_per_cases(matrices: npt.ArrayLike, n_a: int) -> FloatArray:
    """The excess change of each matrix of a (cases, n, n) stack sharing the same n_a."""
    stack = np.asarray(matrices, dtype=np.float64)
    if stack.ndim != 3:
        raise AnalysisError(f"expected a (cases, n, n) stack of matrices, got shape {stack.shape}")
    names = [f"case {index}" for index in range(stack.shape[0])]
    for name, matrix in zip(names, stack, strict=True):
        as_matrix(matrix, n_a, name)
    check_distances(stack, names)
    return excess_of_stack(stack, int(n_a))


def excess_kernel(labeling: npt.ArrayLike) -> FloatArray:
    """The matrix K(z) with e(z) = <K(z), D> for a 0/1 labeling z (1 = output at a)."""
    z = np.asarray(labeling).astype(np.float64)
    if z.ndim != 1 or not np.isin(z, (0.0, 1.0)).all():
        raise AnalysisError("a labeling must be a one-dimensional 0/1 vector")
    n_a = int(z.sum())
    n_b = z.size - n_a
    check_sizes(n_a, n_b, "labeling")
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
