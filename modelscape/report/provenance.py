"""Provenance: the software, times and targets behind a report."""

from __future__ import annotations

import platform
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from modelscape._identity import Identity, JsonValue
from modelscape._model import FrozenModel
from modelscape.results.results import Results

__all__ = ["Provenance", "TargetProvenance"]


def _time(seconds: float | None) -> str | None:
    if not seconds:
        return None
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat(timespec="seconds")


class TargetProvenance(FrozenModel):
    """One target's identity, the model versions its provider reported, and its usage.

    ``models`` counts the outputs by the model version the provider reported (a provider may
    route one name to several versions over a run); ``latency`` is the mean seconds per call.
    ``first_error`` is the error of the target's earliest failed call, so that a target that
    failed (a dead server, a bad key) says why in the report. ``cost`` adds up what the
    target's calls cost where it was given a price table (``price:`` in a targets.yaml), and is
    None (and left out of the report file) where no call was priced.
    """

    name: str
    id: str
    version: str
    parameters: dict[str, JsonValue] = Field(default_factory=dict)
    models: dict[str, int] = Field(default_factory=dict)
    observations: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency: float | None = None
    first_error: str | None = None
    cost: float | None = None

    @model_serializer(mode="wrap")
    def _unpriced_as_before(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A report of unpriced targets is written exactly as before prices existed, so that
        # reports made by earlier releases and their digests stay the same.
        data: dict[str, Any] = handler(self)
        if self.cost is None:
            data.pop("cost", None)
        return data


class Provenance(FrozenModel):
    """The software, times and targets behind a report."""

    software: dict[str, str]
    experiment: str
    scenario: Identity | None = None
    created: str
    started: str | None = None
    finished: str | None = None
    targets: tuple[TargetProvenance, ...] = ()

    @classmethod
    def of(cls, results: Results) -> Provenance:
        """The provenance of a run."""
        import numpy
        import scipy

        from modelscape._version import __version__

        targets = []
        for identity in results.experiment.targets:
            outputs = [o for o in results.observations if o.target == identity.name]
            models = Counter(o.output.model for o in outputs if o.output.model)
            latencies = [o.output.latency or o.duration for o in outputs if o.status == "ok"]
            failures = [o for o in outputs if o.status == "failed"]
            # The earliest by start time; unstarted records (no time) in stored order.
            first = min(failures, key=lambda o: o.started or float("inf"), default=None)
            costs = [
                o.output.usage.cost
                for o in outputs
                if o.output.usage is not None and o.output.usage.cost is not None
            ]
            targets.append(
                TargetProvenance(
                    name=identity.name,
                    id=identity.id,
                    version=identity.version,
                    parameters=identity.parameters,
                    models=dict(sorted(models.items())),
                    observations=len(outputs),
                    failed=len(failures),
                    input_tokens=sum(
                        o.output.usage.input_tokens for o in outputs if o.output.usage
                    ),
                    output_tokens=sum(
                        o.output.usage.output_tokens for o in outputs if o.output.usage
                    ),
                    latency=sum(latencies) / len(latencies) if latencies else None,
                    first_error=None
                    if first is None
                    else (first.output.error or "failed without an error message"),
                    cost=sum(costs) if costs else None,
                )
            )
        starts = [o.started for o in results.observations if o.started]
        ends = [o.started + o.duration for o in results.observations if o.started]
        return cls(
            software={
                "modelscape": __version__,
                "python": platform.python_version(),
                "numpy": numpy.__version__,
                "scipy": scipy.__version__,
            },
            experiment=results.experiment.id,
            scenario=results.experiment.scenario,
            created=datetime.now(tz=UTC).isoformat(timespec="seconds"),
            started=_time(min(starts) if starts else None),
            finished=_time(max(ends) if ends else None),
            targets=tuple(targets),
        )
