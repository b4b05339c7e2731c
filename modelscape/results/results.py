"""Results: every record of one experiment run, with the analyses defined over them.

:class:`Results` is the facade above the two layers below it: the indexed records of a run
(an :class:`~modelscape.records.run.IndexedRun`, which it holds) and the analyses of
:mod:`modelscape.analysis`, which take that run as input and which it offers as methods.
Nothing below imports it.

It holds the run rather than being one (docs/design/046-results-composed.md): the indexed run
has some forty helpers the analyses, pages and reports read, and none of them is part of what
a user is promised. The public names are those of the API reference, with the run's export
and the grid surface the README documents; :func:`run_of` hands the held run to the library's
own readers (pages, reports, the command line), which are not users.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from modelscape._identity import AxisValue, JsonValue
from modelscape.analysis import agreement as _agreement
from modelscape.analysis import divergence as _divergence
from modelscape.analysis import profiles as _profiles
from modelscape.analysis import scorecard as _scorecard
from modelscape.analysis import surface as _surface
from modelscape.analysis.aggregates import (
    AxisSensitivity,
    BehaviorProfile,
    Divergence,
    MeasureAgreement,
    Scorecard,
    Transition,
    VariantVariability,
)
from modelscape.analysis.surface import Surface
from modelscape.answers import Answer
from modelscape.records.run import IndexedRun, Traceable
from modelscape.records.stored import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
    Trace,
)
from modelscape.results import _export
from modelscape.stats.settings import BoundaryCriterion, Inference
from modelscape.task.space import Variant

if TYPE_CHECKING:
    import pandas
    import polars
    import pyarrow

    from modelscape.store.protocol import Store

__all__ = ["Results", "Traceable", "run_of"]


class Results:
    """All records of one experiment run, with the analyses defined over them.

    Every aggregate an analysis returns carries ``measurement_ids``; :meth:`trace` recovers the
    measurements, observations and variants behind it.
    """

    __slots__ = ("__weakref__", "_run")

    def __init__(
        self,
        experiment: ExperimentRecord,
        variants: Sequence[Variant],
        observations: Sequence[Observation],
        point_measurements: Sequence[PointMeasurement],
        difference_measurements: Sequence[DifferenceMeasurement],
    ) -> None:
        self._run = IndexedRun(
            experiment, variants, observations, point_measurements, difference_measurements
        )

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, store: Store, experiment_id: str) -> Results:
        """Rebuild the results of a run from a store."""
        # The process's collector is left as the caller set it (docs/design/043).
        run = store.load(experiment_id)
        return cls(run.experiment, run.variants, run.observations, run.points, run.differences)

    # -- reading the records back ----------------------------------------------------------------
    def select(
        self,
        *,
        target: str | None = None,
        case: str | None = None,
        coordinate: Mapping[str, AxisValue] | None = None,
    ) -> tuple[Observation, ...]:
        """Observations filtered by target name, case id and coordinate.

        A coordinate that names only some axes takes the baseline on the others, as every
        analysis does.
        """
        return self._run.select(target=target, case=case, coordinate=coordinate)

    def table(self) -> list[dict[str, JsonValue]]:
        """One tidy row per observation, with its point metrics and execution timing."""
        return self._run.table()

    def trace(self, item: Traceable | Sequence[str]) -> Trace:
        """The measurements behind an aggregate (or named by id), the observations they
        measured and the variants those answered."""
        return self._run.trace(item)

    # -- analyses ----------------------------------------------------------------------------
    def transitions(
        self,
        measure: str,
        *,
        target: str | None = None,
        cases: Sequence[str] | None = None,
        inference: Inference | None = None,
    ) -> tuple[Transition, ...]:
        """Every local transition between evaluated neighbours on ordinal and numeric axes."""
        return _profiles.transitions(
            self._run, measure, target=target, cases=cases, inference=inference
        )

    def variability(
        self, measure: str, *, target: str | None = None, inference: Inference | None = None
    ) -> tuple[VariantVariability, ...]:
        """Within-variant variation of every variant under one difference measure."""
        return _profiles.variability(self._run, measure, target=target, inference=inference)

    def profile(
        self,
        axis: str,
        measure: str,
        *,
        target: str | None = None,
        fixed: Mapping[str, AxisValue] | None = None,
        cases: Sequence[str] | None = None,
        criterion: BoundaryCriterion | None = None,
        inference: Inference | None = None,
    ) -> BehaviorProfile:
        """Behaviour of one target along one axis under one difference measure."""
        return _profiles.profile(
            self._run,
            axis,
            measure,
            target=target,
            fixed=fixed,
            cases=cases,
            criterion=criterion,
            inference=inference,
        )

    def profiles(
        self,
        axis: str,
        measure: str,
        *,
        fixed: Mapping[str, AxisValue] | None = None,
        cases: Sequence[str] | None = None,
        criterion: BoundaryCriterion | None = None,
        inference: Inference | None = None,
    ) -> tuple[BehaviorProfile, ...]:
        """One profile per target, computed identically for direct comparison."""
        return _profiles.profiles(
            self._run,
            axis,
            measure,
            fixed=fixed,
            cases=cases,
            criterion=criterion,
            inference=inference,
        )

    def sensitivity(
        self,
        measure: str,
        *,
        target: str | None = None,
        criterion: BoundaryCriterion | None = None,
        inference: Inference | None = None,
    ) -> tuple[AxisSensitivity, ...]:
        """Every axis ranked by its largest excess change around the baseline."""
        return _profiles.sensitivity(
            self._run, measure, target=target, criterion=criterion, inference=inference
        )

    def agreement(
        self,
        measures: Sequence[str] | None = None,
        *,
        target: str | None = None,
        criterion: BoundaryCriterion | None = None,
        inference: Inference | None = None,
    ) -> tuple[MeasureAgreement, ...]:
        """Pairwise agreement of difference measures over every tested transition."""
        return _agreement.agreement(
            self._run, measures, target=target, criterion=criterion, inference=inference
        )

    def scorecard(
        self,
        metric: str,
        measure: str,
        *,
        target: str | None = None,
        group: str = "all",
        answered: str | None = None,
        answer: Answer | None = None,
        cases: Sequence[str] | None = None,
        criterion: BoundaryCriterion | None = None,
        inference: Inference | None = None,
    ) -> Scorecard:
        """Accuracy, spurious and missed change, and per-axis shifts of one target."""
        return _scorecard.scorecard(
            self._run,
            metric,
            measure,
            target=target,
            group=group,
            answered=answered,
            answer=answer,
            cases=cases,
            criterion=criterion,
            inference=inference,
        )

    def divergence(
        self,
        measure: str,
        first: str,
        second: str,
        *,
        cases: Sequence[str] | None = None,
        criterion: BoundaryCriterion | None = None,
        inference: Inference | None = None,
    ) -> Divergence:
        """Where two targets of this experiment differ beyond the run-to-run variation of each."""
        return _divergence.divergence(
            self._run,
            measure,
            first,
            second,
            cases=cases,
            criterion=criterion,
            inference=inference,
        )

    def surface(
        self,
        x_axis: str,
        y_axis: str,
        *,
        kind: Literal["accuracy", "difference", "change"] = "accuracy",
        target: str | None = None,
        second: str | None = None,
        measure: str | None = None,
        cases: Sequence[str] | None = None,
        inference: Inference | None = None,
    ) -> Surface:
        """A quantity over every combination of two axes of a grid design (see
        :mod:`modelscape.analysis.surface`): accuracy, the difference from ``second``, or the
        excess change from the baseline combination."""
        return _surface.surface(
            self._run,
            x_axis,
            y_axis,
            kind=kind,
            target=target,
            second=second,
            measure=measure,
            cases=cases,
            inference=inference,
        )

    # -- the run as one table ------------------------------------------------------------------
    def to_arrow(self) -> pyarrow.Table:
        """The run as an Arrow table: one row per observation (ids, target, case, axis values,
        repetition, the output as stored, timing and usage) and one column per point metric
        and keyed measure; see :mod:`modelscape.results._export` for every column.

        The export for notebooks and SQL engines (DuckDB reads the table as it is). Needs the
        ``arrow`` extra; built from the columns the results hold, without a record per row.
        """
        return _export.arrow_table(self._run)

    def to_parquet(self, path: str | PathLike[str]) -> Path:
        """Write :meth:`to_arrow` to a Parquet file; returns its path. Needs the ``arrow``
        extra."""
        return _export.write_parquet(self._run, path)

    def to_pandas(self) -> pandas.DataFrame:
        """:meth:`to_arrow` as a pandas DataFrame; needs the ``arrow`` and ``pandas`` extras."""
        return _export.pandas_frame(self._run)

    def to_polars(self) -> polars.DataFrame:
        """:meth:`to_arrow` as a polars DataFrame; needs the ``arrow`` and ``polars`` extras."""
        return _export.polars_frame(self._run)

    def __repr__(self) -> str:
        return (
            f"Results(experiment={self._run.experiment.id!r}, targets={list(self._run.targets)}, "
            f"observations={len(self._run.observations)})"
        )


def run_of(results: Results) -> IndexedRun:
    """The indexed run ``results`` holds, for the library's own readers.

    Pages, reports and the command line read a run's columns, cells and settings, which the
    public :class:`Results` does not offer; they ask for the run here rather than reach into
    the object. The run is shared, not copied: what the analyses keep on it stays warm.
    """
    return results._run
