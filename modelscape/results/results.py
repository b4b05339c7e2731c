"""Results: every record of one experiment run, and the analyses defined over them."""

from __future__ import annotations

import difflib
import gc
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue, JsonValue
from modelscape.errors import AnalysisError
from modelscape.results.analyses import Analyses
from modelscape.results.records import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
    Trace,
)
from modelscape.task.coordinate import Coordinate
from modelscape.task.space import Variant

if TYPE_CHECKING:
    from modelscape.store.protocol import Store

__all__ = ["Results", "Traceable"]


@runtime_checkable
class Traceable(Protocol):
    """Anything that names the measurements it was computed from."""

    @property
    def measurement_ids(self) -> tuple[str, ...]: ...


def _key(value: AxisValue) -> tuple[str, AxisValue]:
    return (type(value).__name__, value)


def _coordinate_key(coordinate: Mapping[str, AxisValue]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, _key(v)) for k, v in coordinate.items()))


class Results(Analyses):
    """All records of one experiment run, with the analyses defined over them.

    Every aggregate an analysis returns carries ``measurement_ids``; :meth:`trace` recovers the
    measurements, observations and variants behind it.
    """

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
        self._cells: dict[tuple[str, str, tuple[Any, ...]], list[Observation]] = defaultdict(list)
        for observation in self.observations:
            if observation.status == "ok":
                cell = (
                    observation.target,
                    observation.case,
                    _coordinate_key(observation.coordinate),
                )
                self._cells[cell].append(observation)
        for outputs in self._cells.values():
            outputs.sort(key=lambda o: o.repetition)

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, store: Store, experiment_id: str) -> Results:
        """Rebuild the results of a run from a store."""
        # A large run builds a million objects at once, none of them garbage: pausing the
        # cyclic collector meanwhile saves its repeated full scans (seconds at 100,000 outputs).
        paused = gc.isenabled()
        gc.disable()
        try:
            experiment, variants, observations, points, differences = store.load(experiment_id)
            return cls(experiment, variants, observations, points, differences)
        finally:
            if paused:
                gc.enable()

    # -- basic views -----------------------------------------------------------------------------
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
            if not any(_key(value) == _key(v) for v in axis.values):
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
        wanted = None if coordinate is None else self.coordinate(coordinate)
        return tuple(
            o
            for o in self.observations
            if (target is None or o.target == target)
            and (case is None or o.case == case)
            and (wanted is None or Coordinate(o.coordinate) == wanted)
        )

    def cell(
        self, target: str, case: str, coordinate: Mapping[str, AxisValue]
    ) -> list[Observation]:
        """The successful observations of one target, case and coordinate, by repetition."""
        return self._cells.get((target, case, _coordinate_key(coordinate)), [])

    def point(self, measure: str, observation_id: str) -> PointMeasurement | None:
        """The point measurement of ``measure`` for one observation, if any."""
        return self._points.get(measure, {}).get(observation_id)

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
        identity = next((m for m in self.experiment.difference_measures if m.name == measure), None)
        if keys is not None and identity is not None and identity.parameters.get("keyed"):
            from modelscape.measures import key_distance

            found = [keys.get(o.id) for o in observations]
            missing = [o.id for o, k in zip(observations, found, strict=True) if k is None]
            if missing:
                raise AnalysisError(
                    f"measure {measure!r} has no value for observations {missing[:3]}"
                )
            points = [k for k in found if k is not None]
            matrix = key_distance(
                str(identity.parameters.get("distance", "discrete")), [p.details for p in points]
            )
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

    # -- tracing ----------------------------------------------------------------------------
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

    def __repr__(self) -> str:
        return (
            f"Results(experiment={self.experiment.id!r}, targets={list(self.targets)}, "
            f"observations={len(self.observations)})"
        )
