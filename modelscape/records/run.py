"""The records of one run, indexed: what every analysis takes as its input.

:class:`RunRecords` holds an experiment's variants, outputs and measurements, with the indexes
the analyses read them through: a cell (the successful outputs of one target for one case at
one coordinate), a point metric's values over a cell, a measure's distance matrix, and the
trace from any aggregate back to the records behind it. It sits below
:mod:`modelscape.analysis`, which takes it as input, and below
:class:`~modelscape.results.Results`, the facade that adds the analyses as methods.

A coordinate has one key here and in every analysis: :data:`CoordinateKey`, its values in
axis order, each typed (see :meth:`RunRecords.key`). What the analyses compute once and reuse
lives with the records too, one typed :class:`Derived` cache per kind (see
:meth:`RunRecords.derived`), so it lasts exactly as long as the records.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Protocol, TypeAlias, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue, JsonValue
from modelscape.errors import AnalysisError
from modelscape.measures import key_distance
from modelscape.records.settings import DifferenceSettings, ScenarioSettings
from modelscape.records.stored import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
    Trace,
)
from modelscape.task.coordinate import Coordinate, value_key
from modelscape.task.space import Variant

__all__ = ["CoordinateKey", "Derived", "RunRecords", "Traceable"]

#: A coordinate as its values in axis order, each with its type (see :meth:`RunRecords.key`).
CoordinateKey: TypeAlias = tuple[tuple[str, AxisValue], ...]

DerivedT = TypeVar("DerivedT", bound="Derived")


@runtime_checkable
class Traceable(Protocol):
    """Anything that names the measurements it was computed from."""

    @property
    def measurement_ids(self) -> tuple[str, ...]: ...


class Derived:
    """The base of what an analysis computes once from a run's records and keeps with them.

    Every entry of a subclass must be a pure function of the records and of the settings in
    its key, so that reusing it never changes a number.
    """

    def __init__(self, records: RunRecords) -> None:
        self.records = records


class RunRecords:
    """Every record of one experiment run, indexed for the analyses."""

    def __init__(
        self,
        experiment: ExperimentRecord,
        variants: Sequence[Variant],
        observations: Sequence[Observation],
        point_measurements: Sequence[PointMeasurement],
        difference_measurements: Sequence[DifferenceMeasurement],
    ) -> None:
        self.experiment = experiment
        self.variants: tuple[Variant, ...] = tuple(variants)
        self.observations: tuple[Observation, ...] = tuple(observations)
        self.point_measurements: tuple[PointMeasurement, ...] = tuple(point_measurements)
        self.difference_measurements: tuple[DifferenceMeasurement, ...] = tuple(
            difference_measurements
        )
        self._axes: tuple[str, ...] = tuple(a.name for a in experiment.axes)
        self._variant = {v.id: v for v in self.variants}
        self._observation = {o.id: o for o in self.observations}
        self._measurement: dict[str, PointMeasurement | DifferenceMeasurement] = {}
        self._measurement.update((m.id, m) for m in self.point_measurements)
        self._measurement.update((m.id, m) for m in self.difference_measurements)
        self._points: dict[str, dict[str, PointMeasurement]] = defaultdict(dict)
        for point in self.point_measurements:
            self._points[point.measure][point.observation_id] = point
        self._pairs: dict[str, dict[tuple[str, str], DifferenceMeasurement]] = defaultdict(dict)
        for pair in self.difference_measurements:
            self._pairs[pair.measure][(pair.first, pair.second)] = pair
        cells: dict[tuple[str, str, CoordinateKey], list[Observation]] = defaultdict(list)
        for observation in self.observations:
            if observation.status == "ok":
                cell = (observation.target, observation.case, self.key(observation.coordinate))
                cells[cell].append(observation)
        self._cells: dict[tuple[str, str, CoordinateKey], tuple[Observation, ...]] = {
            cell: tuple(sorted(outputs, key=lambda o: o.repetition))
            for cell, outputs in cells.items()
        }
        self._cell_points: dict[
            tuple[str, str, str, CoordinateKey], tuple[tuple[float, ...], tuple[str, ...]]
        ] = {}
        self._derived: dict[type[Derived], Derived] = {}

    # -- the one coordinate key ------------------------------------------------------------
    def key(self, coordinate: Mapping[str, AxisValue]) -> CoordinateKey:
        """The key of a coordinate: its values in axis order, typed (1, 1.0 and True differ).

        Tuples compare in C, which matters for the tens of thousands of lookups of a report.
        A coordinate that misses an axis gets a key no evaluated coordinate has.
        """
        return tuple(value_key(coordinate.get(axis)) for axis in self._axes)  # type: ignore[arg-type]

    @cached_property
    def coordinates(self) -> tuple[Coordinate, ...]:
        """The design's coordinates, in its order."""
        return tuple(Coordinate(c) for c in self.experiment.coordinates)

    @cached_property
    def keys(self) -> tuple[CoordinateKey, ...]:
        """The keys of the design's coordinates, in its order."""
        return tuple(self.key(c) for c in self.coordinates)

    @cached_property
    def evaluated(self) -> frozenset[CoordinateKey]:
        """The keys of the coordinates the run's design evaluated."""
        return frozenset(self.keys)

    @cached_property
    def _references(self) -> dict[tuple[str, CoordinateKey], AxisValue | None]:
        return {(v.case, self.key(v.coordinate)): v.reference for v in self.variants}

    def reference(self, case: str, coordinate: Mapping[str, AxisValue]) -> AxisValue | None:
        """The correct answer of a case at a coordinate (None when unknown or not evaluated)."""
        return self._references.get((case, self.key(coordinate)))

    # -- settings ----------------------------------------------------------------------------
    @cached_property
    def settings(self) -> ScenarioSettings:
        """The protocol of the run's scenario, as stored with it."""
        return ScenarioSettings.of(self.experiment.scenario, groups=self.experiment.groups)

    def difference(self, measure: str) -> DifferenceSettings | None:
        """How a difference measure of this run was stored, or None when it has no such one."""
        identity = next((m for m in self.experiment.difference_measures if m.name == measure), None)
        return None if identity is None else DifferenceSettings.of(identity)

    # -- basic views -------------------------------------------------------------------------
    @property
    def targets(self) -> tuple[str, ...]:
        """The target names, in the experiment's order."""
        return tuple(t.name for t in self.experiment.targets)

    @property
    def cases(self) -> tuple[str, ...]:
        """The case ids, in the experiment's order."""
        return self.experiment.cases

    @property
    def failed(self) -> tuple[Observation, ...]:
        """Observations that still failed after their retries."""
        return tuple(o for o in self.observations if o.status == "failed")

    def variant(self, variant_id: str) -> Variant:
        """The variant with this id."""
        try:
            return self._variant[variant_id]
        except KeyError:
            raise AnalysisError(
                f"no variant {variant_id!r} in experiment {self.experiment.id}"
            ) from None

    def target(self, name: str | None) -> str:
        """``name`` checked against the experiment's targets; None means the only target."""
        targets = self.targets
        if name is None:
            if len(targets) != 1:
                raise AnalysisError(
                    f"this experiment has {len(targets)} targets {list(targets)}: "
                    "name one with target="
                )
            return targets[0]
        if name not in targets:
            hint = difflib.get_close_matches(name, list(targets), n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise AnalysisError(f"no target {name!r}{extra}; the targets are {list(targets)}")
        return name

    def coordinate(self, values: Mapping[str, AxisValue] | None = None) -> Coordinate:
        """A full coordinate: ``values`` completed with baselines, each checked against its axis."""
        values = dict(values or {})
        complete: dict[str, AxisValue] = {}
        for axis in self.experiment.axes:
            value = values.pop(axis.name, axis.baseline)
            if not any(value_key(value) == value_key(v) for v in axis.values):
                raise AnalysisError(
                    f"axis {axis.name!r} has no value {value!r}; values: {list(axis.values)}"
                )
            complete[axis.name] = value
        if values:
            axes = [a.name for a in self.experiment.axes]
            raise AnalysisError(f"unknown axes {sorted(values)}; the axes are {axes}")
        return Coordinate(complete)

    def select(
        self,
        *,
        target: str | None = None,
        case: str | None = None,
        coordinate: Mapping[str, AxisValue] | None = None,
    ) -> tuple[Observation, ...]:
        """Observations filtered by target name, case id and coordinate.

        A partial coordinate is completed with baseline values, as everywhere else.
        """
        if target is not None:
            self.target(target)
        if case is not None and case not in self.cases:
            raise AnalysisError(f"no case {case!r} in experiment {self.experiment.id}")
        wanted = None if coordinate is None else self.key(self.coordinate(coordinate))
        return tuple(
            o
            for o in self.observations
            if (target is None or o.target == target)
            and (case is None or o.case == case)
            and (wanted is None or self.key(o.coordinate) == wanted)
        )

    # -- cells -------------------------------------------------------------------------------
    def outputs(self, target: str, case: str, key: CoordinateKey) -> tuple[Observation, ...]:
        """The successful outputs of one target and case at the coordinate of ``key``, by
        repetition."""
        return self._cells.get((target, case, key), ())

    def cell(
        self, target: str, case: str, coordinate: Mapping[str, AxisValue]
    ) -> list[Observation]:
        """The successful observations of one target, case and coordinate, by repetition."""
        if len(coordinate) != len(self._axes):
            return []
        return list(self.outputs(target, case, self.key(coordinate)))

    def point(self, measure: str, observation_id: str) -> PointMeasurement | None:
        """The point measurement of ``measure`` for one observation, if any."""
        return self._points.get(measure, {}).get(observation_id)

    def cell_points(
        self, metric: str, target: str, case: str, key: CoordinateKey
    ) -> tuple[tuple[float, ...], tuple[str, ...]]:
        """A point metric's values over one cell's successful outputs, and their measurement
        ids, read once.

        Outputs without a value (the metric did not apply) are left out.
        """
        index = (metric, target, case, key)
        found = self._cell_points.get(index)
        if found is None:
            values: list[float] = []
            ids: list[str] = []
            for observation in self.outputs(target, case, key):
                point = self.point(metric, observation.id)
                if point is not None and point.value is not None:
                    values.append(point.value)
                    ids.append(point.id)
            found = self._cell_points[index] = (tuple(values), tuple(ids))
        return found

    def measures(self) -> tuple[str, ...]:
        """The names of every measure with stored values."""
        return tuple(sorted({*self._points, *self._pairs}))

    def table(self) -> list[dict[str, JsonValue]]:
        """One tidy row per observation, with its point metrics and execution timing."""
        metric_names = [m.name for m in self.experiment.point_metrics]
        rows: list[dict[str, JsonValue]] = []
        for observation in self.observations:
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
                point = self.point(name, observation.id)
                row[name] = None if point is None else point.value
            row["output"] = observation.output.text
            row["model"] = observation.output.model
            row["attempts"] = observation.attempts
            row["started"] = observation.started
            row["duration"] = observation.duration
            rows.append(row)
        return rows

    # -- distances ---------------------------------------------------------------------------
    def distances(
        self, measure: str, observations: Sequence[Observation]
    ) -> tuple[NDArray[np.float64], tuple[str, ...]]:
        """The symmetric distance matrix of ``measure`` over ``observations``, and the ids of
        the measurements it was built from (see docs/design/001-measurements.md)."""
        n = len(observations)
        matrix = np.zeros((n, n), dtype=np.float64)
        keys = self._points.get(measure)
        kind = self.difference(measure)
        if keys is not None and kind is not None and kind.kind == "keyed":
            found = [keys.get(o.id) for o in observations]
            missing = [o.id for o, k in zip(observations, found, strict=True) if k is None]
            if missing:
                raise AnalysisError(
                    f"measure {measure!r} has no value for observations {missing[:3]}"
                )
            points = [k for k in found if k is not None]
            matrix = key_distance(kind.distance, [p.details for p in points])
            return matrix, tuple(p.id for p in points)
        pairs = self._pairs.get(measure)
        if pairs is None:
            known = sorted(m.name for m in self.experiment.difference_measures)
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

    # -- tracing -----------------------------------------------------------------------------
    def trace(self, item: Traceable | Sequence[str]) -> Trace:
        """Recover the measurements, observations and variants behind an aggregate."""
        ids = item.measurement_ids if isinstance(item, Traceable) else tuple(item)
        measurements = []
        for measurement_id in dict.fromkeys(ids):
            found = self._measurement.get(measurement_id)
            if found is None:
                raise AnalysisError(f"measurement {measurement_id!r} is not in these results")
            measurements.append(found)
        observation_ids: dict[str, None] = {}
        for m in measurements:
            if isinstance(m, PointMeasurement):
                observation_ids[m.observation_id] = None
            else:
                observation_ids[m.first] = None
                observation_ids[m.second] = None
        observations = tuple(self._observation[o] for o in observation_ids)
        variant_ids = dict.fromkeys(o.variant_id for o in observations)
        return Trace(
            measurements=tuple(measurements),
            observations=observations,
            variants=tuple(self._variant[v] for v in variant_ids),
        )

    # -- what the analyses keep --------------------------------------------------------------
    def derived(self, kind: type[DerivedT]) -> DerivedT:
        """The one ``kind`` cache of these records, made on first use.

        It lives as long as the records: a report asks for the same cells, matrices and
        transitions many times over, and each analysis module keeps what it computed in a
        cache of its own type here.
        """
        found = self._derived.get(kind)
        if not isinstance(found, kind):
            found = self._derived[kind] = kind(self)
        return found
