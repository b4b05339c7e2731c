"""Tracing: from any aggregate of a run back to the measurements, outputs and variants behind it.

Every number an analysis returns names the measurements it was computed from
(:class:`Traceable`); :class:`Tracing` finds them again among a run's records, with the
observations they measured and the variants those answered. It is the part of
:class:`~modelscape.records.run.IndexedRun` that a page reader uses and a report does not, so
its indexes are made on the first trace only.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Protocol, runtime_checkable

from modelscape.errors import AnalysisError
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.stored import DifferenceMeasurement, PointMeasurement, Trace
from modelscape.task.space import Variant

__all__ = ["Traceable", "Tracing"]


@runtime_checkable
class Traceable(Protocol):
    """Anything that names the measurements it was computed from."""

    @property
    def measurement_ids(self) -> tuple[str, ...]: ...


class Tracing:
    """The trace of an aggregate, over the records of one run (a base of ``IndexedRun``)."""

    difference_measurements: tuple[DifferenceMeasurement, ...]
    _columns: ObservationColumns
    _point_columns: PointColumns
    _row: dict[str, int]
    _variant: dict[str, Variant]

    def trace(self, item: Traceable | Sequence[str]) -> Trace:
        """Recover the measurements, observations and variants behind an aggregate."""
        ids = item.measurement_ids if isinstance(item, Traceable) else tuple(item)
        measurements = []
        for measurement_id in dict.fromkeys(ids):
            found = self._measurement(measurement_id)
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
        # A point of an observation these results do not hold (records given directly may
        # have them) is traced to the measurement alone.
        row = self._row
        observations = self._columns.at(row[o] for o in observation_ids if o in row)
        variant_ids = dict.fromkeys(o.variant_id for o in observations)
        return Trace(
            measurements=tuple(measurements),
            observations=observations,
            variants=tuple(self._variant[v] for v in variant_ids),
        )

    @cached_property
    def _measurement_rows(self) -> dict[str, int]:
        # Made on the first trace only: a report traces nothing, a page traces a few numbers.
        return {point_id: row for row, point_id in enumerate(self._point_columns.ids)}

    @cached_property
    def _differences(self) -> dict[str, DifferenceMeasurement]:
        return {m.id: m for m in self.difference_measurements}

    def _measurement(self, measurement_id: str) -> PointMeasurement | DifferenceMeasurement | None:
        """The measurement with this id (a difference one wins, as when both were indexed)."""
        pair = self._differences.get(measurement_id)
        if pair is not None:
            return pair
        row = self._measurement_rows.get(measurement_id)
        return None if row is None else self._point_columns[row]
