"""Where answers flip along a causal numeric axis, against where the correct answer flips."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from modelscape._identity import AxisValue
from modelscape.analysis.common import memo, quiet_caveats, same
from modelscape.analysis.records import Threshold, ThresholdCase
from modelscape.answers import Answer
from modelscape.results.results import Results
from modelscape.stats import Inference, bootstrap_mean, random_stream
from modelscape.task.coordinate import Coordinate

__all__ = ["isotonic", "threshold"]


def isotonic(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """The non-decreasing least-squares fit (pool adjacent violators; Barlow et al. 1972)."""
    blocks: list[list[float]] = []  # [mean, weight, size]
    for value, weight in zip(values, weights, strict=True):
        blocks.append([value, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean_b, weight_b, size_b = blocks.pop()
            mean_a, weight_a, size_a = blocks.pop()
            total = weight_a + weight_b
            mean = (mean_a * weight_a + mean_b * weight_b) / total if total else mean_a
            blocks.append([mean, total, size_a + size_b])
    fitted: list[float] = []
    for mean, _, size in blocks:
        fitted.extend([mean] * int(size))
    return fitted


def _crossing(
    levels: Sequence[float], fitted: Sequence[float]
) -> tuple[float, float, float] | None:
    """Where a non-decreasing fit first reaches one half: (point, bracket low, bracket high)."""
    for index, share in enumerate(fitted):
        if share >= 0.5:
            if index == 0:
                return None
            below, above = fitted[index - 1], share
            low, high = levels[index - 1], levels[index]
            point = low + (0.5 - below) / (above - below) * (high - low)
            return point, low, high
    return None


def threshold(
    results: Results,
    target: str,
    axis: str,
    line: Sequence[Coordinate],
    cases: Sequence[str],
    answer: Answer,
    metric: str,
    inference: Inference,
) -> Threshold | None:
    """The threshold of a causal numeric axis for one target, or None when no case flips once."""
    shared = memo(results)
    levels = [float(c[axis]) for c in line]
    per_case: list[ThresholdCase] = []
    offsets: list[float] = []
    ids: list[str] = []
    expected_points: list[float] = []
    for case in cases:
        refs = [shared.reference(case, c) for c in line]
        changes = [i for i in range(1, len(refs)) if not same(refs[i], refs[i - 1])]
        if len(changes) != 1 or refs[0] is None:
            continue
        flip = changes[0]
        after: AxisValue | None = refs[flip]
        expected = (levels[flip - 1] + levels[flip]) / 2
        shares: list[float] = []
        weights: list[float] = []
        for coordinate in line:
            outputs = shared.cell(target, case, coordinate)
            hits = [same(answer(o.output), after) for o in outputs]
            shares.append(sum(hits) / len(hits) if hits else 0.0)
            weights.append(float(len(hits)))
            for o in outputs:
                point = results.point(metric, o.id)
                if point is not None:
                    ids.append(point.id)
        fitted = isotonic(shares, weights)
        crossing = _crossing(levels, fitted)
        expected_points.append(expected)
        if crossing is None:
            per_case.append(ThresholdCase(case=case, expected=expected, observed=None))
            continue
        observed, bracket_low, bracket_high = crossing
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
    low: float | None = None
    high: float | None = None
    if offsets and len(offsets) > 1 and inference.resamples > 0:
        with quiet_caveats():
            interval = bootstrap_mean(
                offsets,
                resamples=inference.resamples,
                confidence=inference.confidence,
                method=inference.mean_interval,
                rng=random_stream(inference, f"{target}|threshold|{axis}", "bootstrap"),
                where=f"threshold of {axis!r}",
            )
        low, high = interval.low, interval.high
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
