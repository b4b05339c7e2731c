"""Builders of distance matrices for the statistics tests, written independently of the code."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Distance = Callable[[FloatArray, FloatArray], FloatArray]


def absolute(x: FloatArray, y: FloatArray) -> FloatArray:
    """|x − y|, the 1-D energy-distance kernel."""
    return np.abs(x[:, None] - y[None, :])


def squared(x: FloatArray, y: FloatArray) -> FloatArray:
    """(x − y)², not of negative type in the strict sense but linear in the excess."""
    return (x[:, None] - y[None, :]) ** 2


def differ(x: FloatArray, y: FloatArray) -> FloatArray:
    """1 when two answers differ, the 0/1 answer measure."""
    return (x[:, None] != y[None, :]).astype(np.float64)


def matrix(a: Sequence[float], b: Sequence[float], distance: Distance = absolute) -> FloatArray:
    """The distance matrix over outputs a then b."""
    pooled = np.concatenate([np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)])
    return distance(pooled, pooled)


def naive_excess(d: FloatArray, n_a: int) -> float:
    """The definition of STATS.md, written with explicit loops."""
    n = d.shape[0]
    a, b = range(n_a), range(n_a, n)
    between = sum(d[i, j] for i in a for j in b) / (n_a * (n - n_a))
    within_a = np.mean([d[i, j] for i, j in combinations(a, 2)])
    within_b = np.mean([d[i, j] for i, j in combinations(b, 2)])
    return float(between - (within_a + within_b) / 2)


def relabel(d: FloatArray, chosen: Sequence[int]) -> FloatArray:
    """The matrix reordered so that the outputs in ``chosen`` come first (labelled a)."""
    rest = [i for i in range(d.shape[0]) if i not in set(chosen)]
    order = list(chosen) + rest
    return d[np.ix_(order, order)]
