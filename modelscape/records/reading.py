"""Reading a run's records back as records: selections, the tidy table, distance matrices.

These are the views of :class:`~modelscape.records.run.IndexedRun` that hand records (or a
matrix over them) to a reader, a notebook or a page, rather than feed the analyses: each
builds only the records it returns. ``IndexedRun`` offers each as a method; they read its indexes.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue, JsonValue
from modelscape.errors import AnalysisError
from modelscape.measures import key_distance
from modelscape.records.columns import ObservationColumns
from modelscape.records.grid import CoordinateKey
from modelscape.records.settings import DifferenceSettings
from modelscape.records.stored import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
)
from modelscape.task.coordinate import Coordinate

__all__ = ["distances", "select", "table"]


class IndexedRun(Protocol):
    """What these views read of :class:`~modelscape.records.run.IndexedRun`."""

    @property
    def experiment(self) -> ExperimentRecord: ...
    @property
    def cases(self) -> tuple[str, ...]: ...
    @property
    def columns(self) -> ObservationColumns: ...
    def target(self, name: str | None) -> str: ...
    def key(self, coordinate: Mapping[str, AxisValue]) -> CoordinateKey: ...
    def coordinate(self, values: Mapping[str, AxisValue] | None = None) -> Coordinate: ...
    def point(self, measure: str, observation_id: str) -> PointMeasurement | None: ...
    def difference(self, measure: str) -> DifferenceSettings | None: ...
    def has_points(self, measure: str) -> bool: ...
    def pairs(self, measure: str) -> Mapping[tuple[str, str], DifferenceMeasurement] | None: ...


def select(
    records: IndexedRun,
    *,
    target: str | None = None,
    case: str | None = None,
    coordinate: Mapping[str, AxisValue] | None = None,
) -> tuple[Observation, ...]:
    """Observations filtered by target name, case id and coordinate.

    A partial coordinate is completed with baseline values, as everywhere else.
    """
    if target is not None:
        records.target(target)
    if case is not None and case not in records.cases:
        raise AnalysisError(f"no case {case!r} in experiment {records.experiment.id}")
    wanted = None if coordinate is None else records.key(records.coordinate(coordinate))
    columns = records.columns
    chosen = np.ones(len(columns), dtype=np.bool_)
    if target is not None:
        chosen &= columns.target.where(lambda name: name == target)
    if case is not None:
        chosen &= columns.case.where(lambda name: name == case)
    if wanted is not None:
        chosen &= columns.coordinate.where(lambda c: records.key(c) == wanted)
    return columns.at(np.flatnonzero(chosen))


def table(records: IndexedRun) -> list[dict[str, JsonValue]]:
    """One tidy row per observation, with its point metrics and execution timing."""
    metric_names = [m.name for m in records.experiment.point_metrics]
    rows: list[dict[str, JsonValue]] = []
    for observation in records.columns:
        row: dict[str, JsonValue] = {
            "observation": observation.id,
            "target": observation.target,
            "case": observation.case,
            "variant": observation.variant_id,
            "repetition": observation.repetition,
            "status": observation.status,
        }
        row.update({f"axis:{k}": v for k, v in observation.coordinate.items()})
        for name in metric_names:
            point = records.point(name, observation.id)
            row[name] = None if point is None else point.value
        row["output"] = observation.output.text
        row["model"] = observation.output.model
        row["attempts"] = observation.attempts
        row["started"] = observation.started
        row["duration"] = observation.duration
        rows.append(row)
    return rows


def distances(
    records: IndexedRun, measure: str, observations: Sequence[Observation]
) -> tuple[NDArray[np.float64], tuple[str, ...]]:
    """The symmetric distance matrix of ``measure`` over ``observations``, and the ids of
    the measurements it was built from (see docs/design/001-measurements.md)."""
    n = len(observations)
    matrix = np.zeros((n, n), dtype=np.float64)
    kind = records.difference(measure)
    if records.has_points(measure) and kind is not None and kind.kind == "keyed":
        found = [records.point(measure, o.id) for o in observations]
        missing = [o.id for o, k in zip(observations, found, strict=True) if k is None]
        if missing:
            raise AnalysisError(f"measure {measure!r} has no value for observations {missing[:3]}")
        points = [k for k in found if k is not None]
        matrix = key_distance(kind.distance, [p.details for p in points])
        return matrix, tuple(p.id for p in points)
    pairs = records.pairs(measure)
    if pairs is None:
        known = sorted(m.name for m in records.experiment.difference_measures)
        hint = difflib.get_close_matches(measure, known, n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise AnalysisError(f"no difference measure {measure!r}{extra}; measures: {known}")
    used: list[str] = []
    for i in range(n):
        for j in range(i + 1, n):
            a, b = observations[i].id, observations[j].id
            pair = pairs.get((a, b) if a < b else (b, a))
            if pair is None:
                raise AnalysisError(
                    f"measure {measure!r} was not computed for observations {a} and {b}"
                )
            matrix[i, j] = matrix[j, i] = pair.value
            used.append(pair.id)
    return matrix, tuple(used)
