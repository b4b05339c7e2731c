"""Provenance: the software, times and targets behind a report."""

from __future__ import annotations

import platform
from collections import Counter
from datetime import UTC, datetime
from functools import partial
from operator import eq
from typing import Any

import numpy as np
from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from modelscape._identity import Identity, JsonValue
from modelscape._model import FrozenModel
from modelscape.results.results import Results, run_of

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
        import scipy

        from modelscape._version import __version__

        run = run_of(results)
        columns = run.columns
        targets = []
        for identity in run.experiment.targets:
            rows = np.flatnonzero(columns.target.where(partial(eq, identity.name)))
            ok = columns.ok[rows]
            models = Counter[str]()
            counts = np.bincount(columns.model.codes[rows], minlength=len(columns.model.values))
            for model, count in zip(columns.model.values, counts.tolist(), strict=True):
                if model and count:
                    models[model] += count
            # A latency the output did not report (or reported as 0) is the call's duration;
            # summed in order, as Python's sum does, so the mean is the same to the last bit.
            latency = columns.latency[rows[ok]]
            latency = np.where(
                np.isnan(latency) | (latency == 0), columns.duration[rows[ok]], latency
            )
            latencies = latency.tolist()
            failures = rows[~ok]
            # The earliest by start time; unstarted records (no time) in stored order.
            started = columns.started[failures]
            first = (
                None
                if not len(failures)
                else columns[int(failures[np.argmin(np.where(started != 0, started, np.inf))])]
            )
            # Costs summed in the outputs' order, as Python's sum does.
            costs = [c for c in columns.cost[rows].tolist() if c == c]  # NaN: no cost
            targets.append(
                TargetProvenance(
                    name=identity.name,
                    id=identity.id,
                    version=identity.version,
                    parameters=identity.parameters,
                    models=dict(sorted(models.items())),
                    observations=len(rows),
                    failed=len(failures),
                    input_tokens=int(columns.input_tokens[rows].sum()),
                    output_tokens=int(columns.output_tokens[rows].sum()),
                    latency=sum(latencies) / len(latencies) if latencies else None,
                    first_error=None
                    if first is None
                    else (first.output.error or "failed without an error message"),
                    cost=sum(costs) if costs else None,
                )
            )
        begun = columns.started != 0
        starts = columns.started[begun]
        ends = starts + columns.duration[begun]
        return cls(
            software={
                "modelscape": __version__,
                "python": platform.python_version(),
                "numpy": np.__version__,
                "scipy": scipy.__version__,
            },
            experiment=run.experiment.id,
            scenario=run.experiment.scenario,
            created=datetime.now(tz=UTC).isoformat(timespec="seconds"),
            started=_time(float(starts.min()) if len(starts) else None),
            finished=_time(float(ends.max()) if len(ends) else None),
            targets=tuple(targets),
        )
