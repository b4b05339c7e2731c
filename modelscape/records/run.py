"""The records of one run, indexed: what every analysis takes as its input.

:class:`RunRecords` holds an experiment's variants, outputs and measurements, with the indexes
the analyses read them through: a cell (the successful outputs of one target for one case at
one coordinate, :mod:`~.grid` for many at once), a point metric's values over cells, and the
trace back to the records (:mod:`~.tracing`); :mod:`~.reading` hands records to a reader. It
sits below :mod:`modelscape.analysis` and :class:`~modelscape.results.Results`.

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
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue, JsonValue
from modelscape.errors import AnalysisError
from modelscape.records import reading
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.grid import CoordinateKey, Rows, gather
from modelscape.records.index import (
    MetricCells,
    Outputs,
    cell_rows,
    id_array,
    metric_cells,
    point_rows,
)
from modelscape.records.settings import DifferenceSettings, ScenarioSettings
from modelscape.records.stored import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
)
from modelscape.records.tracing import Traceable, Tracing
from modelscape.task.coordinate import Coordinate, value_key
from modelscape.task.space import Variant

__all__ = ["CoordinateKey", "Derived", "Outputs", "RunRecords", "Traceable"]

DerivedT = TypeVar("DerivedT", bound="Derived")
#: Most coordinate keys kept by :meth:`RunRecords.key` before it starts over.
_KEPT_KEYS = 4096


class Derived:
    """The base of what an analysis computes once from a run's records and keeps with them.

    Every entry of a subclass must be a pure function of the records and of the settings in
    its key, so that reusing it never changes a number.
    """

    def __init__(self, records: RunRecords) -> None:
        self.records = records


class RunRecords(Tracing):
    """Every record of one experiment run, indexed for the analyses.

    Observations and point measurements are held as columns
    (:mod:`~modelscape.records.columns`): given as records, they are indexed by columns over
    them; a store may hand columns over directly, so a large run never builds a record the
    analyses do not read.
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
        columns = (
            observations
            if isinstance(observations, ObservationColumns)
            else ObservationColumns.of_records(observations)
        )
        points = (
            point_measurements
            if isinstance(point_measurements, PointColumns)
            else PointColumns.of_records(point_measurements)
        )
        #: The observations, a sequence of records (built when read).
        self.observations: Sequence[Observation] = columns
        #: The point measurements, a sequence of records (built when read).
        self.point_measurements: Sequence[PointMeasurement] = points
        self.difference_measurements: tuple[DifferenceMeasurement, ...] = tuple(
            difference_measurements
        )
        self._columns = columns
        self._point_columns = points
        self._axes: tuple[str, ...] = tuple(a.name for a in experiment.axes)
        self._variant = {v.id: v for v in self.variants}
        self._row = columns.rows_by_id
        self._pairs: dict[str, dict[tuple[str, str], DifferenceMeasurement]] = defaultdict(dict)
        for pair in self.difference_measurements:
            self._pairs[pair.measure][(pair.first, pair.second)] = pair
        self._point_row, self._orphans = point_rows(points, self._row, len(columns))
        keys = [self.key(c) for c in columns.coordinate.values]
        self._cell_rows, self._cells, self._grid = cell_rows(columns, keys)
        self._key_cache: dict[Coordinate, CoordinateKey] = {}
        self._cell_points: dict[str, MetricCells] = {}
        self._derived: dict[type[Derived], Derived] = {}

    @property
    def columns(self) -> ObservationColumns:
        """The observations as columns, for analyses that count or sum over all of them
        without building a record each (see :mod:`modelscape.records.columns`)."""
        return self._columns

    @property
    def point_columns(self) -> PointColumns:
        """The point measurements as columns (ids, measures, values, categorical details)."""
        return self._point_columns

    # -- the one coordinate key ------------------------------------------------------------
    def key(self, coordinate: Mapping[str, AxisValue]) -> CoordinateKey:
        """The key of a coordinate: its values in axis order, typed (1, 1.0 and True differ).

        Tuples compare in C, which matters for the tens of thousands of lookups of a report.
        A coordinate that misses an axis gets a key no evaluated coordinate has. The keys of
        :class:`Coordinate` objects are kept (a report asks for the same few hundred coordinates
        tens of thousands of times); equal coordinates have equal keys, so a kept key is
        always the right one.
        """
        if type(coordinate) is Coordinate:
            found = self._key_cache.get(coordinate)
            if found is None:
                if len(self._key_cache) >= _KEPT_KEYS:
                    self._key_cache.clear()
                found = self._key_cache[coordinate] = self._key_of(coordinate)
            return found
        return self._key_of(coordinate)

    def _key_of(self, coordinate: Mapping[str, AxisValue]) -> CoordinateKey:
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
    def _references(self) -> dict[CoordinateKey, dict[str, AxisValue | None]]:
        # By coordinate, then case: one key per coordinate asked, not one per case.
        found: dict[CoordinateKey, dict[str, AxisValue | None]] = {}
        for variant in self.variants:
            found.setdefault(self._key_of(variant.coordinate), {})[variant.case] = variant.reference
        return found

    def reference(self, case: str, coordinate: Mapping[str, AxisValue]) -> AxisValue | None:
        """The correct answer of a case at a coordinate (None when unknown or not evaluated)."""
        return self._references.get(self.key(coordinate), {}).get(case)

    def references(
        self, cases: Sequence[str], coordinate: Mapping[str, AxisValue]
    ) -> list[AxisValue | None]:
        """The correct answers of several cases at one coordinate (see :meth:`reference`)."""
        answers = self._references.get(self.key(coordinate), {})
        return [answers.get(case) for case in cases]

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
        return self._columns.at(np.flatnonzero(~self._columns.ok))

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
        return reading.select(self, target=target, case=case, coordinate=coordinate)

    # -- cells -------------------------------------------------------------------------------
    def rows(self, target: str, case: str, key: CoordinateKey) -> NDArray[np.int64]:
        """The rows (into :attr:`observations`) of one cell's successful outputs, by
        repetition."""
        found = self._cells.get((target, case, key))
        if found is None:
            return np.zeros(0, dtype=np.int64)
        return self._cell_rows[found[0] : found[1]]

    def outputs(self, target: str, case: str, key: CoordinateKey) -> Outputs:
        """The successful outputs of one target and case at the coordinate of ``key``, by
        repetition (a sequence that builds each record when it is read)."""
        return Outputs(self._columns, self.rows(target, case, key))

    def cell(
        self, target: str, case: str, coordinate: Mapping[str, AxisValue]
    ) -> list[Observation]:
        """The successful observations of one target, case and coordinate, by repetition."""
        if len(coordinate) != len(self._axes):
            return []
        return list(self.outputs(target, case, self.key(coordinate)))

    def point(self, measure: str, observation_id: str) -> PointMeasurement | None:
        """The point measurement of ``measure`` for one observation, if any."""
        rows = self._point_row.get(measure)
        if rows is None:
            return None
        row = self._row.get(observation_id)
        found = self._orphans.get((measure, observation_id), -1) if row is None else rows[row]
        return None if found < 0 else self._point_columns[int(found)]

    def _metric(self, metric: str) -> MetricCells:
        found = self._cell_points.get(metric)
        if found is None:
            rows = self._point_row.get(metric)
            found = metric_cells(self._point_columns, rows, self._cell_rows)
            self._cell_points[metric] = found
        return found

    def cell_points(
        self, metric: str, target: str, case: str, key: CoordinateKey
    ) -> tuple[tuple[float, ...], tuple[str, ...]]:
        """A point metric's values over one cell's successful outputs, and their measurement
        ids.

        Outputs without a value (the metric did not apply) are left out.
        """
        cell = self._cells.get((target, case, key))
        if cell is None:
            return (), ()
        starts, values, rows = self._metric(metric)
        a, b = int(starts[cell[0]]), int(starts[cell[1]])
        return tuple(values[a:b].tolist()), tuple(self.point_id_array.take(rows[a:b]).tolist())

    @cached_property
    def point_id_array(self) -> NDArray[np.object_]:
        """Every point measurement's id (:attr:`point_columns` order) as an object array:
        ids of many rows at once are one ``take``."""
        return id_array(self._point_columns.ids)

    def cells_at(self, target: str, cases: Sequence[str], key: CoordinateKey) -> tuple[Rows, Rows]:
        """Each case's cell of ``target`` at ``key``: its number (-1: no successful output)
        and its size, for :meth:`cell_block`."""
        numbers = self._grid.numbers(target, cases, (key,))[:, 0]
        return numbers, self._grid.sizes(numbers)

    def cell_block(self, numbers: Rows, size: int) -> Rows:
        """The observation rows of cells that all have ``size`` outputs, one cell a row, by
        repetition (as :meth:`rows` gives each)."""
        first = self._grid.starts[numbers]
        block: Rows = self._cell_rows[first[:, None] + np.arange(size)[None, :]]
        return block

    def point_rows(self, measure: str) -> Rows | None:
        """Per observation row, the row of its ``measure`` point among
        :attr:`point_measurements` (-1: none); None when the measure has no points."""
        return self._point_row.get(measure)

    def case_points(
        self, metric: str, target: str, cases: Sequence[str], keys: Sequence[CoordinateKey]
    ) -> tuple[Rows, NDArray[np.float64], Rows]:
        """A point metric over many cells at once: for each case, its values at each key in
        turn (as :meth:`cell_points` gives them), laid end to end case after case.

        Returns how many values each case has, the values, and their rows among the point
        measurements (their ids are :attr:`point_id_array` at those rows).
        """
        numbers = self._grid.numbers(target, cases, keys)
        starts, values, rows = self._metric(metric)
        present = numbers >= 0
        safe = np.maximum(numbers, 0)
        first = np.where(present, starts[self._grid.starts[safe]], 0)
        last = np.where(present, starts[self._grid.stops[safe]], 0)
        positions = gather(first.ravel(), last.ravel())
        lengths: Rows = (last - first).sum(axis=1)
        return lengths, values[positions], rows[positions]

    def cell_details(
        self, measure: str, target: str, case: str, key: CoordinateKey
    ) -> tuple[tuple[str, ...], tuple[JsonValue, ...]]:
        """A keyed measure's keys over one cell's successful outputs, and their measurement
        ids; an :class:`AnalysisError` names an output the measure has no value for."""
        rows = self.rows(target, case, key)
        found = self._point_row.get(measure)
        at = np.full(len(rows), -1, dtype=np.int64) if found is None else found[rows]
        missing = np.flatnonzero(at < 0)
        if len(missing):
            observation = self._columns.ids[int(rows[missing[0]])]
            raise AnalysisError(f"measure {measure!r} has no value for observation {observation}")
        points = self._point_columns
        chosen = at.tolist()
        return tuple(points.ids[i] for i in chosen), tuple(points.details[i] for i in chosen)

    def has_points(self, measure: str) -> bool:
        """Whether ``measure`` has point measurements in this run."""
        return measure in self._point_row

    def pairs(self, measure: str) -> Mapping[tuple[str, str], DifferenceMeasurement] | None:
        """A pairwise measure's measurements by (first, second) observation id, or None."""
        return self._pairs.get(measure)

    def table(self) -> list[dict[str, JsonValue]]:
        """One tidy row per observation, with its point metrics and execution timing."""
        return reading.table(self)

    def distances(
        self, measure: str, observations: Sequence[Observation]
    ) -> tuple[NDArray[np.float64], tuple[str, ...]]:
        """The symmetric distance matrix of ``measure`` over ``observations``, and the ids of
        the measurements it was built from (see docs/design/001-measurements.md)."""
        return reading.distances(self, measure, observations)

    def measures(self) -> tuple[str, ...]:
        """The names of every measure with stored values."""
        return tuple(sorted({*self._point_row, *self._pairs}))

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
