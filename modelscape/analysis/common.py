"""Helpers the analyses share: axis lines, transition keys, families, point summaries.

Each takes a run's :class:`~modelscape.records.run.IndexedRun` (a
:class:`~modelscape.results.Results` is one).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np

from modelscape._identity import AxisValue, canonical_json
from modelscape.analysis.aggregates import BoundaryCandidate, PointSummary, Transition
from modelscape.errors import AnalysisError
from modelscape.records.grid import row_means
from modelscape.records.run import CoordinateKey, Derived, IndexedRun
from modelscape.records.stored import AxisRecord
from modelscape.stats import (
    BoundaryCriterion,
    DegenerateIntervalWarning,
    FewCasesWarning,
    Inference,
    bootstrap_mean,
    holm,
    random_stream,
)
from modelscape.stats.floored import floored_mean
from modelscape.task.coordinate import Coordinate, same_value, value_key

__all__ = [
    "Summaries",
    "axis_line",
    "case_list",
    "quiet_caveats",
    "select_boundaries",
    "summarize_metric",
    "transition_key",
]


@contextmanager
def quiet_caveats() -> Iterator[None]:
    """Silence the caveats of single intervals (no spread, few cases) as Python warnings.

    A deterministic target makes degenerate intervals routinely, and a small scenario makes
    every interval a few-case one; each record keeps its caveats as text instead, which the
    summary and the pages show where the number is.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        warnings.simplefilter("ignore", FewCasesWarning)
        yield


def transition_key(
    target: str, measure: str, first: Mapping[str, AxisValue], second: Mapping[str, AxisValue]
) -> str:
    """The stable name of a transition; it also seeds its random streams."""
    return f"{target}|{measure}|{canonical_json(dict(first))}|{canonical_json(dict(second))}"


def case_list(results: IndexedRun, cases: Sequence[str] | None) -> tuple[str, ...]:
    """The cases to analyse: all by default, else the given ones, checked.

    A selection, not an order: the cases come back once each, in the experiment's order, so
    that listing them differently (or twice) never changes a number.
    """
    if cases is None:
        return results.cases
    if isinstance(cases, str):
        raise AnalysisError(f"cases must be a list of case ids, not the string {cases!r}")
    unknown = [c for c in cases if c not in results.cases]
    if unknown:
        raise AnalysisError(f"unknown cases {unknown}; the cases are {list(results.cases)}")
    if not cases:
        raise AnalysisError("no cases selected")
    wanted = set(cases)
    return tuple(c for c in results.cases if c in wanted)


def varied_axes(results: IndexedRun) -> tuple[AxisRecord, ...]:
    """The axes the design moved away from their baseline somewhere.

    A Sweep or Grid over some of the axes holds the others at their baseline: those have
    nothing to read along, so the analyses of every axis (scorecards, sensitivity, agreement)
    leave them out instead of failing.
    """
    coordinates = results.experiment.coordinates
    return tuple(
        axis
        for axis in results.experiment.axes
        if any(not same_value(c[axis.name], axis.baseline) for c in coordinates)
    )


def axis_line(
    results: IndexedRun, axis: str, fixed: Mapping[str, AxisValue] | None
) -> tuple[AxisRecord, Coordinate, list[Coordinate]]:
    """An axis, its fixed point, and the evaluated coordinates along it (in axis order)."""
    record = results.experiment.axis(axis)
    base = results.coordinate({k: v for k, v in (fixed or {}).items() if k != axis})
    done = results.evaluated
    line = [base.moved(axis, value) for value in record.values]
    missing = [c.label() for c in line if results.key(c) not in done]
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


#: What a point summary depends on: metric, target, cases, coordinate, value, settings.
SummaryKey = tuple[str, str, tuple[str, ...], CoordinateKey, tuple[str, AxisValue], Inference]


class Summaries(Derived):
    """The point summaries of one run's records, each computed once."""

    def __init__(self, records: IndexedRun) -> None:
        super().__init__(records)
        self.done: dict[SummaryKey, PointSummary] = {}


def mean_interval(
    per_case: Sequence[float], inference: Inference, key: str, where: str, *, share: bool = False
) -> tuple[float | None, float | None]:
    """The case-bootstrap interval of a mean of per-case values, or (None, None) when there
    is one case or intervals are switched off. ``key`` names the random stream (so each
    quantity's interval is reproducible on its own); ``where`` names it in caveats.

    With the default ``Inference.interval`` ("smoothed") the interval is never narrower than
    the t interval over cases (:func:`~modelscape.stats.floored.floored_mean`), which is what
    makes it cover from six cases up; ``share`` keeps it within [0, 1] when every value lies
    there (a mean of a 0/1 metric). "bca" and "percentile" resample cases alone, as before.
    """
    if len(per_case) < 2 or inference.resamples == 0:
        return None, None
    rng = random_stream(inference, key, "bootstrap")
    with quiet_caveats():
        if inference.interval == "smoothed":
            inside = share and min(per_case) >= 0.0 and max(per_case) <= 1.0
            interval = floored_mean(
                per_case,
                resamples=inference.resamples,
                confidence=inference.confidence,
                method=inference.mean_interval,
                rng=rng,
                bounds=(0.0, 1.0) if inside else None,
                where=where,
            )
        else:
            interval = bootstrap_mean(
                per_case,
                resamples=inference.resamples,
                confidence=inference.confidence,
                method=inference.mean_interval,
                rng=rng,
                where=where,
            )
    return interval.low, interval.high


def summarize_metric(
    results: IndexedRun,
    metric: str,
    target: str,
    cases: Sequence[str],
    coordinate: Mapping[str, AxisValue],
    value: AxisValue,
    inference: Inference,
) -> PointSummary:
    """A point metric's case-weighted mean at one coordinate, with a case-bootstrap interval."""
    done = results.derived(Summaries).done
    key = (metric, target, tuple(cases), results.key(coordinate), value_key(value), inference)
    found = done.get(key)
    if found is None:
        found = done[key] = _summarize(results, metric, target, cases, coordinate, value, inference)
    return found


def _summarize(
    results: IndexedRun,
    metric: str,
    target: str,
    cases: Sequence[str],
    coordinate: Mapping[str, AxisValue],
    value: AxisValue,
    inference: Inference,
) -> PointSummary:
    # Every case's values at the coordinate at once; each case's mean as np.mean gives it.
    lengths, values, found = results.case_points(metric, target, cases, (results.key(coordinate),))
    scored = lengths > 0
    if not scored.any():
        return PointSummary(metric=metric, value=value, mean=None, observations=0)
    per_case = row_means(values, lengths[scored]).tolist()
    ids = results.point_id_array.take(found).tolist()
    count = len(values)
    mean = float(np.mean(per_case))
    key = f"{target}|{metric}|{canonical_json(dict(coordinate))}"
    low, high = mean_interval(per_case, inference, key, f"metric {metric!r}", share=True)
    return PointSummary(
        metric=metric,
        value=value,
        mean=mean,
        low=low,
        high=high,
        observations=count,
        measurement_ids=tuple(ids),
    )
