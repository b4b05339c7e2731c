"""An in-memory store: the runner's store when none is given, and a model for other stores.

It keeps the records themselves (no copies, no serialization), so a run without a store costs
nothing beyond the outputs it holds; everything is gone when the process ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence

from modelscape.errors import StoreError
from modelscape.records.stored import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
)
from modelscape.store.protocol import StoredRun, canonical_order
from modelscape.task.space import Variant

__all__ = ["MemoryStore"]


class MemoryStore:
    """A :class:`~modelscape.store.protocol.Store` that lives in this process only.

    Writes follow the same rules as the SQLite store: a stored record is never changed, except
    that an ``ok`` observation replaces a ``failed`` one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._experiments: dict[str, ExperimentRecord] = {}
        self._variants: dict[str, dict[str, Variant]] = {}
        self._observations: dict[str, Observation] = {}
        self._members: dict[str, dict[str, None]] = {}
        self._points: dict[str, PointMeasurement] = {}
        self._differences: dict[str, DifferenceMeasurement] = {}
        self._measured: dict[str, set[str]] = {}
        self._leases: dict[str, tuple[str, float]] = {}

    def save_experiment(self, experiment: ExperimentRecord, variants: Iterable[Variant]) -> None:
        """Store an experiment and its variants (records already stored are kept)."""
        with self._lock:
            self._experiments.setdefault(experiment.id, experiment)
            held = self._variants.setdefault(experiment.id, {})
            for variant in variants:
                held.setdefault(variant.id, variant)
            self._members.setdefault(experiment.id, {})

    def save_observations(self, observations: Iterable[Observation]) -> None:
        """Store observations and link each to its experiment; ok replaces failed."""
        with self._lock:
            for observation in observations:
                members = self._members.setdefault(observation.experiment_id, {})
                members[observation.id] = None
                held = self._observations.get(observation.id)
                if held is None or (held.status == "failed" and observation.status == "ok"):
                    self._observations[observation.id] = observation
                self._leases.pop(observation.id, None)

    def claim(self, ids: Sequence[str], holder: str, seconds: float) -> set[str]:
        """Lease what is neither stored ``ok`` nor leased by another runner of this process."""
        now = time.time()
        claimed: set[str] = set()
        with self._lock:
            for oid in ids:
                stored = self._observations.get(oid)
                if stored is not None and stored.status == "ok":
                    continue
                lease = self._leases.get(oid)
                if lease is not None and lease[0] != holder and lease[1] > now:
                    continue
                self._leases[oid] = (holder, now + seconds)
                claimed.add(oid)
        return claimed

    def release(self, holder: str) -> None:
        """End every lease ``holder`` still has."""
        with self._lock:
            for oid in [o for o, (h, _) in self._leases.items() if h == holder]:
                del self._leases[oid]

    def save_measurements(
        self,
        points: Iterable[PointMeasurement] = (),
        differences: Iterable[DifferenceMeasurement] = (),
    ) -> None:
        """Store measurements (idempotent by id)."""
        with self._lock:
            for point in points:
                if point.id not in self._points:
                    self._points[point.id] = point
                    self._measured.setdefault(point.measure_id, set()).add(point.observation_id)
            for difference in differences:
                self._differences.setdefault(difference.id, difference)

    def observations(self, ids: Iterable[str]) -> dict[str, Observation]:
        """The stored observations among ``ids``, by id."""
        with self._lock:
            held = self._observations
            return {i: held[i] for i in ids if i in held}

    def measured(self, measure_id: str, observation_ids: Iterable[str]) -> set[str]:
        """The ids among ``observation_ids`` with a point measurement of ``measure_id``."""
        with self._lock:
            done = self._measured.get(measure_id, set())
            return {i for i in observation_ids if i in done}

    def measurement_ids(self, ids: Iterable[str]) -> set[str]:
        """The ids among ``ids`` of stored measurements."""
        with self._lock:
            return {i for i in ids if i in self._points or i in self._differences}

    def status_counts(self, experiment_id: str) -> dict[str, int]:
        """How many of an experiment's observations are ``ok`` and how many ``failed``."""
        with self._lock:
            counts = {"ok": 0, "failed": 0}
            for oid in self._members.get(experiment_id, {}):
                counts[self._observations[oid].status] += 1
            return counts

    def experiments(self) -> list[ExperimentRecord]:
        """Every experiment in the store, oldest first."""
        with self._lock:
            return sorted(self._experiments.values(), key=lambda e: e.created)

    def load(self, experiment_id: str) -> StoredRun:
        """Everything one experiment left, observations in canonical order."""
        with self._lock:
            experiment = self._experiments.get(experiment_id)
            if experiment is None:
                raise StoreError(
                    f"no experiment {experiment_id!r} in this in-memory store; "
                    f"it holds {sorted(self._experiments)}"
                )
            variants = list(self._variants[experiment_id].values())
            found = []
            for oid in self._members.get(experiment_id, {}):
                observation = self._observations[oid]
                if observation.experiment_id != experiment_id:
                    observation = observation.model_copy(update={"experiment_id": experiment_id})
                found.append(observation)
            measure_ids = {m.id for m in experiment.point_metrics}
            measure_ids.update(m.id for m in experiment.difference_measures)
            members = self._members.get(experiment_id, {})
            points = [
                p
                for p in self._points.values()
                if p.measure_id in measure_ids and p.observation_id in members
            ]
            differences = [
                d
                for d in self._differences.values()
                if d.measure_id in measure_ids and d.first in members and d.second in members
            ]
        ordered = canonical_order(experiment, variants, found)
        return StoredRun(experiment, variants, ordered, points, differences)

    def close(self) -> None:
        """Nothing to release; kept for the protocol."""

    def __repr__(self) -> str:
        return f"MemoryStore(experiments={len(self._experiments)})"
