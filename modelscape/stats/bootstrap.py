"""Case-bootstrap intervals: resample whole cases, never the repetitions inside a case.

Cases are the units an experiment samples (tasks drawn from a population); repetitions of
one case are not independent of each other, so resampling them would understate
uncertainty. Intervals are BCa by default (Efron 1987; Efron & Tibshirani 1993, §14.3 and
eq. 14.15) with the jackknife over cases for the acceleration, or plain percentile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy.special import ndtr, ndtri

from modelscape.errors import AnalysisError
from modelscape.stats.diagnostics import DegenerateIntervalWarning, warn
from modelscape.stats.excess import FloatArray
from modelscape.stats.permutation import draw_indices

__all__ = [
    "Interval",
    "bootstrap_distribution",
    "bootstrap_interval",
    "bootstrap_mean",
    "cluster_mean",
    "ratio_interval",
]

#: Resampled case indices materialised at once, bounding memory for many cases.
_BLOCK_ELEMENTS = 1 << 22


@dataclass(frozen=True, slots=True)
class Interval:
    """A bootstrap interval for a mean over cases, with the distribution it came from."""

    low: float
    high: float
    #: The bootstrap distribution of the mean, one value per resample.
    distribution: FloatArray = field(repr=False, compare=False)
    #: Why the interval deserves caution (for instance a degenerate distribution), or None.
    warning: str | None = None


def bootstrap_distribution(
    values: npt.ArrayLike, *, resamples: int, rng: np.random.Generator
) -> FloatArray:
    """Means of ``resamples`` case resamples with replacement, drawn as one index matrix.

    Draws an index matrix of shape (resamples, cases) (in blocks when large) and averages the
    indexed values row by row; no Python loop over resamples.
    """
    per_case = np.asarray(values, dtype=np.float64)
    cases = per_case.size
    if per_case.ndim != 1 or cases == 0:
        raise AnalysisError("the bootstrap needs a non-empty one-dimensional array of case values")
    if resamples < 1:
        raise AnalysisError(f"resamples must be >= 1 to draw a distribution, got {resamples}")
    block = max(1, _BLOCK_ELEMENTS // cases)
    # Row sums as a product with ones (one BLAS call instead of a reduction), then / C, so
    # that a resample of equal values reproduces their mean exactly.
    # Indexing by the narrow draws converts them in buffered chunks; ``take`` would first
    # widen the whole block to 64 bits, which costs twice the time for the same values.
    ones = np.ones(cases)
    parts = [
        per_case[draw_indices(cases, (min(block, resamples - start), cases), rng, widen=False)]
        @ ones
        for start in range(0, resamples, block)
    ]
    result: FloatArray = np.concatenate(parts) / cases
    return result


def _quantiles(ordered: FloatArray, levels: FloatArray) -> FloatArray:
    """Linear-interpolation quantiles (Hyndman & Fan 1996, type 7) of a sorted sample.

    The definition of ``np.quantile(..., method="linear")``, kept by hand on purpose: numpy
    interpolates down from the upper neighbour when the fraction is at least one half, which
    can move a bound by its last bit, and committed reports must equal what the code rebuilds
    from their stores (tests/report/test_committed_runs.py; one of them moved).
    """
    position = levels * (ordered.size - 1)
    below = np.clip(np.floor(position).astype(np.intp), 0, ordered.size - 1)
    above = np.minimum(below + 1, ordered.size - 1)
    fraction = position - below
    result: FloatArray = ordered[below] + fraction * (ordered[above] - ordered[below])
    return result


def _bca_levels(
    estimate: float, ordered: FloatArray, jackknife: FloatArray, tail: float
) -> FloatArray | None:
    """BCa-adjusted quantile levels (Efron 1987; Efron & Tibshirani 1993, §14.3), or None."""
    size = ordered.size
    # Bias correction: the share of resamples below the estimate, ties counted half, as in
    # scipy.stats.bootstrap; kept inside (0, 1) so that z0 stays finite.
    below = np.searchsorted(ordered, estimate, side="left")
    at_or_below = np.searchsorted(ordered, estimate, side="right")
    share = float(below + at_or_below) / (2 * size)
    share = min(max(share, 0.5 / size), 1 - 0.5 / size)
    bias = float(ndtri(share))
    # Acceleration from the jackknife over cases (Efron & Tibshirani 1993, eq. 14.15).
    spread = jackknife.mean() - jackknife
    denominator = 6.0 * float(np.sum(spread**2)) ** 1.5
    if denominator == 0.0:
        return None
    acceleration = float(np.sum(spread**3)) / denominator
    z_tail = float(ndtri(tail))
    levels = []
    for z in (z_tail, -z_tail):
        shifted = bias + z
        levels.append(float(ndtr(bias + shifted / (1 - acceleration * shifted))))
    result = np.asarray(levels, dtype=np.float64)
    return result if np.isfinite(result).all() else None


def bootstrap_interval(
    estimate: float,
    distribution: npt.ArrayLike,
    jackknife: npt.ArrayLike | None = None,
    *,
    confidence: float,
    method: Literal["bca", "percentile"] = "bca",
    where: str = "estimate",
) -> Interval:
    """The two-sided interval of ``estimate`` from its bootstrap ``distribution``.

    ``jackknife`` holds the leave-one-case-out estimates that BCa needs for its acceleration;
    any statistic can be passed (a mean, a rank correlation), as long as the distribution came
    from resampling cases. A distribution without spread gives [estimate, estimate] and a
    DegenerateIntervalWarning instead of NaN; ``where`` names the estimate in that message.
    """
    resampled = np.asarray(distribution, dtype=np.float64)
    values = np.sort(resampled)
    if values.ndim != 1 or values.size == 0:
        raise AnalysisError(f"{where}: the bootstrap distribution is empty")
    if not 0.0 < confidence < 1.0:
        raise AnalysisError(f"{where}: confidence must be inside (0, 1), got {confidence}")
    spread = float(values[-1] - values[0])
    scale = max(abs(estimate), float(np.abs(values).max()))
    if not np.isfinite(spread) or spread <= 100 * np.finfo(np.float64).eps * scale:
        message = warn(
            DegenerateIntervalWarning,
            f"{where}: the bootstrap distribution has no spread (a single case, or every case "
            f"alike), so the interval is reported as [{estimate:.6g}, {estimate:.6g}]",
        )
        return Interval(low=estimate, high=estimate, distribution=resampled, warning=message)
    tail = (1.0 - confidence) / 2
    levels: FloatArray | None = None
    if method == "bca":
        if jackknife is None:
            raise AnalysisError(f"{where}: BCa intervals need the jackknife estimates")
        levels = _bca_levels(estimate, values, np.asarray(jackknife, dtype=np.float64), tail)
    if levels is None:  # percentile interval, or BCa undefined (no jackknife spread)
        levels = np.array([tail, 1.0 - tail])
    low, high = _quantiles(values, levels)
    return Interval(low=float(low), high=float(high), distribution=resampled)


def bootstrap_mean(
    values: npt.ArrayLike,
    *,
    resamples: int,
    confidence: float,
    method: Literal["bca", "percentile"] = "bca",
    rng: np.random.Generator,
    where: str = "mean",
) -> Interval:
    """Case-bootstrap interval for the mean of per-case ``values`` (equal weight per case)."""
    per_case = np.asarray(values, dtype=np.float64)
    distribution = bootstrap_distribution(per_case, resamples=resamples, rng=rng)
    cases = per_case.size
    jackknife = (per_case.sum() - per_case) / (cases - 1) if cases > 1 else per_case
    return bootstrap_interval(
        float(np.mean(per_case)),
        distribution,
        jackknife,
        confidence=confidence,
        method=method,
        where=where,
    )


def cluster_mean(
    values: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    resamples: int,
    confidence: float,
    method: Literal["bca", "percentile"] = "bca",
    rng: np.random.Generator,
    where: str = "mean",
) -> Interval:
    """Case-bootstrap interval for the mean of per-unit ``values`` grouped by ``clusters``.

    Whole clusters (cases) are resampled and the mean recomputed as total over size, a ratio
    estimator; the jackknife for BCa leaves out one cluster at a time. With one unit per
    cluster this is :func:`bootstrap_mean`.
    """
    per_unit = np.asarray(values, dtype=np.float64)
    labels = np.asarray(clusters)
    if per_unit.ndim != 1 or per_unit.size == 0 or labels.shape != per_unit.shape:
        raise AnalysisError(f"{where}: needs one cluster label per value")
    _, index = np.unique(labels, return_inverse=True)
    groups = int(index.max()) + 1
    totals = np.bincount(index, weights=per_unit, minlength=groups).astype(np.float64)
    sizes = np.bincount(index, minlength=groups).astype(np.float64)
    return ratio_interval(
        totals,
        sizes,
        float(per_unit.mean()),
        resamples=resamples,
        confidence=confidence,
        method=method,
        rng=rng,
        where=where,
    )


def ratio_interval(
    totals: FloatArray,
    sizes: FloatArray,
    estimate: float,
    *,
    resamples: int,
    confidence: float,
    method: Literal["bca", "percentile"] = "bca",
    rng: np.random.Generator,
    where: str = "mean",
) -> Interval:
    """Case-bootstrap interval of Σ totals / Σ sizes (``estimate``), one total and one
    positive size per case: whole cases are resampled (in blocks when many) and the ratio
    recomputed; the jackknife for BCa leaves out one case at a time."""
    if resamples < 1:
        raise AnalysisError(f"resamples must be >= 1 to draw a distribution, got {resamples}")
    cases = totals.size
    block = max(1, _BLOCK_ELEMENTS // cases)
    parts = []
    for start in range(0, resamples, block):
        draws = draw_indices(cases, (min(block, resamples - start), cases), rng, widen=False)
        parts.append(totals[draws].sum(axis=1) / sizes[draws].sum(axis=1))
    distribution = np.concatenate(parts)
    jackknife = (
        (totals.sum() - totals) / (sizes.sum() - sizes) if cases > 1 else np.array([estimate])
    )
    return bootstrap_interval(
        estimate, distribution, jackknife, confidence=confidence, method=method, where=where
    )
    return bootstrap_interval(
        estimate, distribution, jackknife, confidence=confidence, method=method, where=where
    )
