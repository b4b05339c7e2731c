"""The records a run leaves in a store, and the links that trace every number back to them.

An experiment record describes what was asked; an observation is one output of one target for
one variant and repetition; measurements are what the measures made of observations. Every
record has a content-hash id (see DESIGN.md, "Identity and storage").
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import Field

from modelscape._identity import AxisValue, Identity, JsonValue, content_id
from modelscape._model import FrozenModel
from modelscape.errors import AnalysisError
from modelscape.targets.protocol import TargetOutput
from modelscape.task.space import Scale, Variant

__all__ = [
    "AxisRecord",
    "DifferenceMeasurement",
    "ExperimentRecord",
    "Observation",
    "PointMeasurement",
    "Trace",
    "difference_id",
    "experiment_id",
    "observation_id",
    "point_id",
]


class AxisRecord(FrozenModel):
    """An axis as stored: its name, scale, values and baseline."""

    name: str
    scale: Scale
    values: tuple[AxisValue, ...]
    baseline: AxisValue


class ExperimentRecord(FrozenModel):
    """What an experiment asked: the space, the design's coordinates, targets and measures.

    ``id`` is the content hash of everything here except ``id`` and ``created``;
    ``point_metrics`` and ``difference_measures`` are the identities of the measures it ran.
    ``groups`` is stored, and hashed, empty: a run's groups are its scenario's, read through
    :class:`~modelscape.records.settings.ScenarioSettings`. Filling or dropping the field would
    change every experiment id, so it stays as it is (docs/design/013).
    """

    id: str
    scenario: Identity | None = None
    language: str
    realizer: Identity | None = None
    axes: tuple[AxisRecord, ...]
    cases: tuple[str, ...]
    coordinates: tuple[dict[str, AxisValue], ...]
    design: dict[str, JsonValue]
    targets: tuple[Identity, ...]
    repetitions: int
    seed: int
    point_metrics: tuple[Identity, ...] = ()
    difference_measures: tuple[Identity, ...] = ()
    groups: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    created: float = 0.0

    @property
    def baseline(self) -> dict[str, AxisValue]:
        """The coordinate with every axis at its baseline."""
        return {axis.name: axis.baseline for axis in self.axes}

    def axis(self, name: str) -> AxisRecord:
        """The stored axis called ``name``."""
        for axis in self.axes:
            if axis.name == name:
                return axis
        raise AnalysisError(
            f"experiment {self.id} has no axis {name!r}; its axes are {[a.name for a in self.axes]}"
        )


def observation_id(seed: int, target: Identity | str, variant_id: str, repetition: int) -> str:
    """The id of one observation: hash(experiment seed, target identity, variant id, repetition).

    Execution settings are not part of it, so a rerun finds every stored observation.
    ``target`` may be the identity's id instead of the identity: hashing an identity costs
    more than the rest, so a caller that makes many ids (an experiment's plan) hashes each
    target once and passes the id.
    """
    target_id = target if isinstance(target, str) else target.id
    return content_id(
        "observation",
        {"seed": seed, "target": target_id, "variant": variant_id, "repetition": repetition},
    )


def experiment_id(record: ExperimentRecord) -> str:
    """The id an experiment record should have: the hash of all it holds but ``id`` and
    ``created`` (the time it was made, which two runs of one experiment never share)."""
    hashed: dict[str, Any] = record.model_dump(mode="json", exclude={"id", "created"})
    return content_id("experiment", hashed)


def point_id(measure_id: str, observation: str) -> str:
    """The id of a point measurement: hash(measure identity id, observation id)."""
    return hashlib.sha256(f"point\n{measure_id}\n{observation}".encode()).hexdigest()[:16]


def difference_id(measure_id: str, first: str, second: str) -> str:
    """The id of a difference measurement of an ordered pair (``first`` < ``second``)."""
    text = f"difference\n{measure_id}\n{first}\n{second}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Observation(FrozenModel):
    """One output of one target for one variant and repetition, stored raw as it arrived.

    ``status`` is ``ok`` or ``failed`` (still failing after its retries; asked again on the next
    run). ``repetition`` counts from 0. Times are seconds since the epoch.
    """

    id: str
    experiment_id: str
    target: str
    target_id: str
    variant_id: str
    case: str
    coordinate: dict[str, AxisValue]
    repetition: int
    seed: int
    status: Literal["ok", "failed"]
    output: TargetOutput
    attempts: int = 1
    started: float = 0.0
    duration: float = 0.0


class PointMeasurement(FrozenModel):
    """A point metric's value for one observation, or a keyed measure's key for it.

    ``value`` is None when the metric could not be computed (for example, no correct answer).
    """

    id: str
    observation_id: str
    measure: str
    measure_id: str
    value: float | None
    details: JsonValue = None


class DifferenceMeasurement(FrozenModel):
    """A difference measure's value for one pair of observations (``first`` < ``second``)."""

    id: str
    measure: str
    measure_id: str
    first: str
    second: str
    value: float


class Trace(FrozenModel):
    """The measurements, observations and variants behind an aggregate number."""

    measurements: tuple[PointMeasurement | DifferenceMeasurement, ...]
    observations: tuple[Observation, ...]
    variants: tuple[Variant, ...]
