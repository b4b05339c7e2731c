"""Helpers the analyses share: axis lines, transition keys, families, point summaries."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np

from modelscape._identity import AxisValue, canonical_json
from modelscape.analysis.records import BoundaryCandidate, PointSummary, Transition
from modelscape.errors import AnalysisError
from modelscape.results.records import AxisRecord
from modelscape.results.results import Results
from modelscape.stats import (
    BoundaryCriterion,
    DegenerateIntervalWarning,
    Inference,
    bootstrap_mean,
    holm,
    random_stream,
)
from modelscape.task.coordinate import Coordinate

__all__ = [
    "axis_line",
    "case_list",
    "quiet_degenerate",
    "select_boundaries",
    "summarize_metric",
    "transition_key",
]


@contextmanager
def quiet_degenerate() -> Iterator[None]:
    """Silence degenerate-interval warnings: a deterministic target makes them routinely."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        yield


def same(left: object, right: object) -> bool:
    """Equal values of the same type (True is not 1)."""
    return type(left) is type(right) and left == right


def transition_key(
    target: str, measure: str, first: Mapping[str, AxisValue], second: Mapping[str, AxisValue]
) -> str:
    """The stable name of a transition; it also seeds its random streams."""
    return f"{target}|{measure}|{canonical_json(dict(first))}|{canonical_json(dict(second))}"


def case_list(results: Results, cases: Sequence[str] | None) -> tuple[str, ...]:
    """The cases to analyse: all by default, else the given ones, checked."""
    if cases is None:
        return results.cases
    unknown = [c for c in cases if c not in results.cases]
    if unknown:
        raise AnalysisError(f"unknown cases {unknown}; the cases are {list(results.cases)}")
    if not cases:
        raise AnalysisError("no cases selected")
    return tuple(cases)


def evaluated(results: Results) -> set[Coordinate]:
    """The coordinates the run's design evaluated."""
    return {Coordinate(c) for c in results.experiment.coordinates}


def axis_line(
    results: Results, axis: str, fixed: Mapping[str, AxisValue] | None
) -> tuple[AxisRecord, Coordinate, list[Coordinate]]:
    """An axis, its fixed point, and the evaluated coordinates along it (in axis order)."""
    record = results.experiment.axis(axis)
    base = results.coordinate({k: v for k, v in (fixed or {}).items() if k != axis})
    done = evaluated(results)
    line = [base.moved(axis, value) for value in record.values]
    missing = [c.label() for c in line if c not in done]
    if missing:
        raise AnalysisError(
            f"axis {axis!r} was not evaluated at {missing[:3]} (the design holds other axes at "
            "their baseline; choose fixed= among evaluated coordinates)"
        )
    return record, base.moved(axis, record.baseline), line


def select_boundaries(
    transitions: Sequence[Transition], criterion: BoundaryCriterion
) -> tuple[list[Transition], list[BoundaryCandidate]]:
    """Holm's correction over a family of transitions, and the candidates the criterion picks."""
    adjusted = holm([t.p_value for t in transitions])
    updated = [
        t.model_copy(update={"adjusted_p": p}) for t, p in zip(transitions, adjusted, strict=True)
    ]
    chosen = [BoundaryCandidate.of(t) for t in updated if criterion.selects(t.adjusted_p, t.excess)]
    return updated, chosen


def summarize_metric(
    results: Results,
    metric: str,
    target: str,
    cases: Sequence[str],
    coordinate: Mapping[str, AxisValue],
    value: AxisValue,
    inference: Inference,
) -> PointSummary:
    """A point metric's case-weighted mean at one coordinate, with a case-bootstrap interval."""
    per_case: list[float] = []
    ids: list[str] = []
    count = 0
    for case in cases:
        values = []
        for observation in results.cell(target, case, coordinate):
            point = results.point(metric, observation.id)
            if point is not None and point.value is not None:
                values.append(point.value)
                ids.append(point.id)
        if values:
            per_case.append(float(np.mean(values)))
            count += len(values)
    if not per_case:
        return PointSummary(metric=metric, value=value, mean=None, observations=0)
    low = high = None
    mean = float(np.mean(per_case))
    if inference.resamples > 0 and len(per_case) > 1:
        key = f"{target}|{metric}|{canonical_json(dict(coordinate))}"
        with quiet_degenerate():
            interval = bootstrap_mean(
                per_case,
                resamples=inference.resamples,
                confidence=inference.confidence,
                method=inference.interval,
                rng=random_stream(inference, key, "bootstrap"),
                where=f"metric {metric!r}",
            )
        low, high = interval.low, interval.high
    return PointSummary(
        metric=metric,
        value=value,
        mean=mean,
        low=low,
        high=high,
        observations=count,
        measurement_ids=tuple(ids),
    )
