"""Direct computations of the analysis numbers, written from STATS.md, to check the analyses.

Plain Python loops over the outputs: no distance matrices, no shared code with the package.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from modelscape._identity import AxisValue
from modelscape.records.stored import Observation
from modelscape.results.results import Results, run_of
from modelscape.targets.protocol import TargetOutput
from tests.analysis.conftest import ANSWER

Distance = Callable[[TargetOutput, TargetOutput], float]


def answer_change(first: TargetOutput, second: TargetOutput) -> float:
    """1 when the read answers differ ("no answer" is an answer of its own)."""
    a, b = ANSWER(first), ANSWER(second)
    return 0.0 if (a, type(a)) == (b, type(b)) else 1.0


def length(first: TargetOutput, second: TargetOutput) -> float:
    return float(abs(len(first.text) - len(second.text)))


DISTANCES: dict[str, Distance] = {
    "answer_change": answer_change,
    "differs": answer_change,
    "length": length,
}


def outputs(
    results: Results, target: str, case: str, coordinate: Mapping[str, AxisValue]
) -> list[Observation]:
    """The successful outputs of a cell, by repetition."""
    indexed = run_of(results)
    full = indexed.coordinate(coordinate)
    found = [
        o
        for o in indexed.observations
        if o.target == target and o.case == case and o.status == "ok" and o.coordinate == full
    ]
    return sorted(found, key=lambda o: o.repetition)


def mean_within(cell: Sequence[Observation], distance: Distance) -> float:
    pairs = list(itertools.combinations(cell, 2))
    return sum(distance(a.output, b.output) for a, b in pairs) / len(pairs)


def case_parts(
    first: Sequence[Observation], second: Sequence[Observation], distance: Distance
) -> tuple[float, float]:
    """(between, mean of the two withins) of one case."""
    between = sum(distance(a.output, b.output) for a in first for b in second) / (
        len(first) * len(second)
    )
    within = (mean_within(first, distance) + mean_within(second, distance)) / 2
    return between, within


def transition(
    results: Results,
    measure: str,
    first: Mapping[str, AxisValue],
    second: Mapping[str, AxisValue],
    *,
    target: str,
    second_target: str | None = None,
    cases: Sequence[str] | None = None,
) -> tuple[float, float, float, list[float]]:
    """(excess, between, within, per-case excess) of one transition, cases weighted equally."""
    distance = DISTANCES[measure]
    betweens, withins = [], []
    for case in cases or run_of(results).cases:
        a = outputs(results, target, case, first)
        b = outputs(results, second_target or target, case, second)
        if len(a) < 2 or len(b) < 2:
            continue
        between, within = case_parts(a, b, distance)
        betweens.append(between)
        withins.append(within)
    per_case = [b - w for b, w in zip(betweens, withins, strict=True)]
    return (
        float(np.mean(per_case)),
        float(np.mean(betweens)),
        float(np.mean(withins)),
        per_case,
    )


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values: statsmodels when installed, else Holm's formula written out."""
    try:
        from statsmodels.stats.multitest import multipletests  # type: ignore[import-untyped]
    except ImportError:
        m = len(p_values)
        order = sorted(range(m), key=lambda i: p_values[i])
        adjusted = [0.0] * m
        running = 0.0
        for rank, index in enumerate(order):
            running = max(running, (m - rank) * p_values[index])
            adjusted[index] = min(1.0, running)
        return adjusted
    return [float(p) for p in multipletests(list(p_values), method="holm")[1]]


def case_metric_means(
    results: Results,
    metric: str,
    target: str,
    cases: Sequence[str],
    coordinates: Sequence[Mapping[str, AxisValue]] | None = None,
) -> list[float]:
    """Each case's mean of a point metric over its successful outputs (at some coordinates)."""
    indexed = run_of(results)
    wanted = None if coordinates is None else [indexed.coordinate(c) for c in coordinates]
    means = []
    for case in cases:
        values = []
        for observation in indexed.observations:
            if observation.target != target or observation.case != case:
                continue
            if observation.status != "ok":
                continue
            if wanted is not None and observation.coordinate not in wanted:
                continue
            point = indexed.point(metric, observation.id)
            if point is not None and point.value is not None:
                values.append(point.value)
        if values:
            means.append(sum(values) / len(values))
    return means
