"""The records of one run, indexed: what every analysis takes as its input.

:class:`IndexedRun` holds an experiment's variants, outputs and measurements, with the indexes
the analyses read them through: a cell (the successful outputs of one target for one case at
one coordinate, :mod:`~.grid` for many at once) and a point metric's values over cells
(:mod:`~.cellrows`), and the trace back to the records (:mod:`~.tracing`); :mod:`~.reading`
hands records to a reader. It
sits below :mod:`modelscape.analysis` and :class:`~modelscape.results.Results`.

A coordinate has one key here and in every analysis: :data:`CoordinateKey`, its values in
axis order, each typed (see :meth:`IndexedRun.key`). What the analyses compute once and reuse
lives with the records too, one typed :class:`Derived` cache per kind (see
:meth:`IndexedRun.derived`), so it lasts exactly as long as the records.
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
from modelscape.records.cellrows import CellRows
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.grid import CoordinateKey
from modelscape.records.index import (
    MetricCells,
    Outputs,
    cell_rows,
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

__all__ = ["CoordinateKey", "Derived", "IndexedRun", "Outputs", "Traceable"]

DerivedT = TypeVar("DerivedT", bound="Derived")
#: Most coordinate keys kept by :meth:`IndexedRun.key` before it starts over.
_KEPT_KEYS = 4096


class Derived:
    """The base of what an analysis computes once from a run's records and keeps with them.

    Every entry of a subclass must be a pure function of the records and of the settings in
    its key, so that reusing it never changes a number.
    """

    def __init__(self, run: IndexedRun) -> None:
        self.run = run


class IndexedRun(CellRows, Tracing):
    """Every record of one experiment run, indexed for the analyses.

    This is the data a :class:`~modelscape.results.Results` holds (it does not inherit it:
    the many helpers here are the analyses' working surface, not the public one). It was
    called ``RunRecords``; it is named after what it is, one run held with its indexes.

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

    # -- cells (the rest is CellRows) ---------------------------------------------------------
    def cell(
        self, target: str, case: str, coordinate: Mapping[str, AxisValue]
    ) -> list[Observation]:
        """The successful observations of one target, case and coordinate, by repetition."""
        if len(coordinate) != len(self._axes):
            return []
        return list(self.outputs(target, case, self.key(coordinate)))

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
