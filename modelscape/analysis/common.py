"""Helpers the analyses share: axis lines, transition keys, families, point summaries."""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from modelscape._identity import AxisValue, canonical_json
from modelscape.analysis.records import BoundaryCandidate, PointSummary, Transition
from modelscape.errors import AnalysisError
from modelscape.results.records import AxisRecord, Observation
from modelscape.results.results import Results
from modelscape.stats import (
    BoundaryCriterion,
    DegenerateIntervalWarning,
    FewCasesWarning,
    Inference,
    bootstrap_mean,
    holm,
    random_stream,
)
from modelscape.task.coordinate import Coordinate

__all__ = [
    "Memo",
    "Place",
    "axis_line",
    "case_list",
    "cell_points",
    "evaluated",
    "memo",
    "quiet_caveats",
    "same",
    "select_boundaries",
    "summarize_metric",
    "transition_key",
    "value_key",
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


def same(left: object, right: object) -> bool:
    """Equal values of the same type (True is not 1)."""
    return type(left) is type(right) and left == right


def value_key(value: AxisValue) -> tuple[str, AxisValue]:
    """A hashable key of an axis value that keeps 1, 1.0 and True apart."""
    return (type(value).__name__, value)


class Memo:
    """What the analyses of one :class:`Results` compute once and share.

    A report asks for the same cells, distance matrices, transitions and point summaries many
    times over (a sensitivity ranking repeats the profiles; a scorecard's shifts are a profile's
    steps). Every entry is a pure function of the results and of the settings in its key, and
    every random stream depends on those alone, so reusing an entry never changes a number.
    """

    def __init__(self, results: Results) -> None:
        # A weak reference: the memo is the value of a weak-keyed mapping, and a strong one
        # would keep the results (its key) alive for ever.
        self._results = weakref.ref(results)
        self.axes: tuple[str, ...] = tuple(a.name for a in results.experiment.axes)
        #: The design's coordinates, in its order (their hashes computed once).
        self.coordinates: tuple[Coordinate, ...] = tuple(
            Coordinate(c) for c in results.experiment.coordinates
        )
        self.evaluated: frozenset[Coordinate] = frozenset(self.coordinates)
        self.places: tuple[Place, ...] = tuple(self.place(c) for c in self.coordinates)
        self._references: dict[tuple[str, Place], AxisValue | None] = {
            (v.case, self.place(v.coordinate)): v.reference for v in results.variants
        }
        #: Per-measure views, prepared comparisons, transitions, summaries and such; typed
        #: where they are used.
        self.views: dict[str, Any] = {}
        self.prepared: dict[tuple[Any, ...], Any] = {}
        self.transitions: dict[tuple[Any, ...], Transition] = {}
        self.summaries: dict[tuple[Any, ...], PointSummary] = {}
        self.points: dict[tuple[Any, ...], tuple[tuple[float, ...], tuple[str, ...]]] = {}
        self.roles: dict[str, str] | None = None
        self._cells: dict[tuple[str, str, Place], tuple[Observation, ...]] = {}

    def place(self, coordinate: Mapping[str, AxisValue]) -> Place:
        """A cheap dictionary key of a coordinate: its values in axis order, typed.

        Coordinates compare in Python code; these tuples compare in C, which matters for the
        tens of thousands of lookups of a report.
        """
        return tuple(value_key(coordinate.get(axis)) for axis in self.axes)  # type: ignore[arg-type]

    def reference(self, case: str, coordinate: Mapping[str, AxisValue]) -> AxisValue | None:
        """The correct answer of a case at a coordinate (None when unknown or not evaluated)."""
        return self._references.get((case, self.place(coordinate)))

    def cell(
        self,
        target: str,
        case: str,
        coordinate: Mapping[str, AxisValue],
        place: Place | None = None,
    ) -> tuple[Observation, ...]:
        """The successful outputs of one target, case and coordinate, by repetition.

        ``place`` is the coordinate's :meth:`place`, when the caller has it already.
        """
        key = (target, case, self.place(coordinate) if place is None else place)
        found = self._cells.get(key)
        if found is None:
            results = self._results()
            if results is None:
                raise AnalysisError("these results no longer exist")
            found = self._cells[key] = tuple(results.cell(target, case, coordinate))
        return found


#: A coordinate as a tuple of typed values in axis order (see :meth:`Memo.place`).
Place = tuple[tuple[str, AxisValue], ...]

_MEMOS: weakref.WeakKeyDictionary[Results, Memo] = weakref.WeakKeyDictionary()


def memo(results: Results) -> Memo:
    """The shared computations of ``results``, kept as long as the results themselves."""
    found = _MEMOS.get(results)
    if found is None:
        found = _MEMOS[results] = Memo(results)
    return found


def transition_key(
    target: str, measure: str, first: Mapping[str, AxisValue], second: Mapping[str, AxisValue]
) -> str:
    """The stable name of a transition; it also seeds its random streams."""
    return f"{target}|{measure}|{canonical_json(dict(first))}|{canonical_json(dict(second))}"


def case_list(results: Results, cases: Sequence[str] | None) -> tuple[str, ...]:
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


def evaluated(results: Results) -> frozenset[Coordinate]:
    """The coordinates the run's design evaluated."""
    return memo(results).evaluated


def varied_axes(results: Results) -> tuple[AxisRecord, ...]:
    """The axes the design moved away from their baseline somewhere.

    A Sweep or Grid over some of the axes holds the others at their baseline: those have
    nothing to read along, so the analyses of every axis (scorecards, sensitivity, agreement)
    leave them out instead of failing.
    """
    coordinates = results.experiment.coordinates
    return tuple(
        axis
        for axis in results.experiment.axes
        if any(not same(c[axis.name], axis.baseline) for c in coordinates)
    )


def axis_line(
    results: Results, axis: str, fixed: Mapping[str, AxisValue] | None
) -> tuple[AxisRecord, Coordinate, list[Coordinate]]:
    """An axis, its fixed point, and the evaluated coordinates along it (in axis order)."""
    record = results.experiment.axis(axis)
    base = results.coordinate({k: v for k, v in (fixed or {}).items() if k != axis})
    done = memo(results).evaluated
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


def cell_points(
    results: Results,
    metric: str,
    target: str,
    case: str,
    coordinate: Mapping[str, AxisValue],
    place: Place | None = None,
) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """A point metric's values over one cell's successful outputs, and their measurement ids.

    Outputs without a value (the metric did not apply) are left out. ``place`` is the
    coordinate's :meth:`Memo.place`, when the caller has it already.
    """
    shared = memo(results)
    if place is None:
        place = shared.place(coordinate)
    key = (metric, target, case, place)
    found = shared.points.get(key)
    if found is None:
        values: list[float] = []
        ids: list[str] = []
        for observation in shared.cell(target, case, coordinate, place):
            point = results.point(metric, observation.id)
            if point is not None and point.value is not None:
                values.append(point.value)
                ids.append(point.id)
        found = shared.points[key] = (tuple(values), tuple(ids))
    return found


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
    shared = memo(results)
    key = (metric, target, tuple(cases), shared.place(coordinate), value_key(value), inference)
    found = shared.summaries.get(key)
    if found is None:
        found = shared.summaries[key] = _summarize(
            results, metric, target, cases, coordinate, value, inference
        )
    return found


def _summarize(
    results: Results,
    metric: str,
    target: str,
    cases: Sequence[str],
    coordinate: Mapping[str, AxisValue],
    value: AxisValue,
    inference: Inference,
) -> PointSummary:
    per_case: list[float] = []
    ids: list[str] = []
    count = 0
    place = memo(results).place(coordinate)
    for case in cases:
        values, case_ids = cell_points(results, metric, target, case, coordinate, place)
        if values:
            ids.extend(case_ids)
            per_case.append(float(np.mean(values)))
            count += len(values)
    if not per_case:
        return PointSummary(metric=metric, value=value, mean=None, observations=0)
    low = high = None
    mean = float(np.mean(per_case))
    if inference.resamples > 0 and len(per_case) > 1:
        key = f"{target}|{metric}|{canonical_json(dict(coordinate))}"
        with quiet_caveats():
            interval = bootstrap_mean(
                per_case,
                resamples=inference.resamples,
                confidence=inference.confidence,
                method=inference.mean_interval,
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
