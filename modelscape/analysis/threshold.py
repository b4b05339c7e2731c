"""Where answers flip along a causal numeric axis, against where the correct answer flips."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import isotonic_regression

from modelscape._identity import AxisValue
from modelscape.analysis.aggregates import Threshold, ThresholdCase
from modelscape.analysis.common import mean_interval
from modelscape.answers import Answer
from modelscape.records.run import IndexedRun
from modelscape.stats import Inference
from modelscape.task.coordinate import Coordinate, same_value

__all__ = ["crossing", "isotonic", "threshold"]


def isotonic(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """The non-decreasing weighted least-squares fit (pool adjacent violators; Barlow et al.
    1972), by :func:`scipy.optimize.isotonic_regression`. Weights must be positive."""
    if not values:
        return []
    fitted = isotonic_regression(
        np.asarray(values, dtype=np.float64), weights=np.asarray(weights, dtype=np.float64)
    )
    return [float(value) for value in fitted.x]


def crossing(
    levels: Sequence[float], shares: Sequence[float], weights: Sequence[float]
) -> tuple[float, float, float] | None:
    """Where the isotonic fit of ``shares`` first reaches one half: (point, low, high).

    Levels without outputs (weight 0) carry no information and are left out. The point is
    interpolated linearly between the last level below one half and the first at or above it,
    which bracket it (``low``, ``high``); a fit at exactly one half places the point on that
    level. None when fewer than two levels have outputs, when the fit never reaches one half,
    or when it is there already at the first level (the flip lies outside the axis).
    """
    kept = [
        (level, share, weight)
        for level, share, weight in zip(levels, shares, weights, strict=True)
        if weight > 0
    ]
    if len(kept) < 2:
        return None
    fitted = isotonic([share for _, share, _ in kept], [weight for _, _, weight in kept])
    for index, share in enumerate(fitted):
        if share >= 0.5:
            if index == 0:
                return None
            below, low, high = fitted[index - 1], kept[index - 1][0], kept[index][0]
            point = low + (0.5 - below) / (share - below) * (high - low)
            return point, low, high
    return None


def threshold(
    results: IndexedRun,
    target: str,
    axis: str,
    line: Sequence[Coordinate],
    cases: Sequence[str],
    answer: Answer,
    metric: str,
    inference: Inference,
) -> Threshold | None:
    """The threshold of a causal numeric axis for one target, or None when no case flips once."""
    levels = [float(c[axis]) for c in line]
    per_case: list[ThresholdCase] = []
    offsets: list[float] = []
    ids: list[str] = []
    expected_points: list[float] = []
    for case in cases:
        refs = [results.reference(case, c) for c in line]
        changes = [i for i in range(1, len(refs)) if not same_value(refs[i], refs[i - 1])]
        if len(changes) != 1 or refs[0] is None:
            continue
        flip = changes[0]
        after: AxisValue | None = refs[flip]
        expected = (levels[flip - 1] + levels[flip]) / 2
        shares: list[float] = []
        weights: list[float] = []
        for coordinate in line:
            outputs = results.outputs(target, case, results.key(coordinate))
            hits = [same_value(answer(o.output), after) for o in outputs]
            shares.append(sum(hits) / len(hits) if hits else 0.0)
            weights.append(float(len(hits)))
            for o in outputs:
                point = results.point(metric, o.id)
                if point is not None:
                    ids.append(point.id)
        found = crossing(levels, shares, weights)
        expected_points.append(expected)
        if found is None:
            per_case.append(ThresholdCase(case=case, expected=expected, observed=None))
            continue
        observed, bracket_low, bracket_high = found
        per_case.append(
            ThresholdCase(
                case=case,
                expected=expected,
                observed=observed,
                observed_low=bracket_low,
                observed_high=bracket_high,
            )
        )
        offsets.append(observed - expected)
    if not per_case:
        return None
    expected_mean = float(np.mean(expected_points))
    offset = float(np.mean(offsets)) if offsets else None
    low, high = mean_interval(
        offsets, inference, f"{target}|threshold|{axis}", f"threshold of {axis!r}"
    )
    return Threshold(
        axis=axis,
        expected=expected_mean,
        observed=None if offset is None else expected_mean + offset,
        offset=offset,
        low=low,
        high=high,
        cases=len(per_case),
        crossing=len(offsets),
        per_case=tuple(per_case),
        measurement_ids=tuple(dict.fromkeys(ids)),
    )
