"""Checks that what comes in as a case is a distance matrix the excess change can use.

A case's matrix must be square, numeric, finite, nonnegative and symmetric with a zero
diagonal, and each side of it must hold at least two outputs: with one repetition,
run-to-run variation cannot be told from change. Shapes are checked one case at a time, the
distance axioms once over a whole stack of equal size, so the common case (a stack built from
keys, exact by construction) costs a few passes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from modelscape.errors import AnalysisError

__all__ = [
    "BoolArray",
    "FloatArray",
    "IndexArray",
    "as_matrix",
    "check_distances",
    "check_matrix",
    "check_sizes",
    "plain_matrix",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
IndexArray = npt.NDArray[np.intp]


def check_sizes(n_a: int, n_b: int, where: str) -> None:
    if n_a < 2 or n_b < 2:
        raise AnalysisError(
            f"{where}: {n_a} output(s) at a and {n_b} at b; the excess change needs at least 2 "
            "outputs at each coordinate, because with one repetition run-to-run variation "
            "cannot be told apart from change (use repetitions >= 2)"
        )


def plain_matrix(matrix: object, n_a: object) -> FloatArray | None:
    """The common case of a well-shaped float matrix and int n_a, recognised cheaply."""
    if type(matrix) is np.ndarray and matrix.dtype == np.float64 and type(n_a) is int:
        shape = matrix.shape
        if len(shape) == 2 and shape[0] == shape[1] and n_a >= 2 and shape[0] - n_a >= 2:
            return matrix
    return None


def as_matrix(matrix: npt.ArrayLike, n_a: int, where: str) -> FloatArray:
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
    check_sizes(int(n_a), n - int(n_a), where)
    return distances


def check_distances(stack: FloatArray, names: Sequence[str]) -> None:
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


def check_matrix(matrix: npt.ArrayLike, n_a: int, where: str) -> FloatArray:
    distances = as_matrix(matrix, n_a, where)
    check_distances(distances[None], [where])
    return distances
