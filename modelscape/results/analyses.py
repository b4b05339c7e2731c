"""The analyses defined over results, as methods of :class:`~modelscape.results.Results`.

Each method delegates to the module of :mod:`modelscape.analysis` that defines it, imported on
first use: the analyses build on the results, so the results cannot import them up front.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, cast

from modelscape._identity import AxisValue

if TYPE_CHECKING:
    from modelscape.analysis.records import (
        AxisSensitivity,
        BehaviorProfile,
        Divergence,
        MeasureAgreement,
        Scorecard,
        Transition,
        VariantVariability,
    )
    from modelscape.answers import Answer
    from modelscape.results.results import Results
    from modelscape.stats.settings import BoundaryCriterion, Inference

__all__ = ["Analyses"]


class Analyses:
    """Profiles, transitions, variability, sensitivity, agreement, scorecards and divergence."""

    @property
    def _results(self) -> Results:
        return cast("Results", self)

    def transitions(
        self,
        measure: str,
        *,
        target: str | None = None,
        cases: Sequence[str] | None = None,
        inference: Inference | None = None,
    ) -> tuple[Transition, ...]:
        """Every local transition between evaluated neighbours on ordinal and numeric axes."""
        from modelscape.analysis.profiles import transitions

        return transitions(self._results, measure, target=target, cases=cases, inference=inference)

    def variability(
        self, measure: str, *, target: str | None = None, inference: Inference | None = None
    ) -> tuple[VariantVariability, ...]:
        """Within-variant variation of every variant under one difference measure."""
        from modelscape.analysis.profiles import variability

        return variability(self._results, measure, target=target, inference=inference)

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
        from modelscape.analysis.profiles import profile

        return profile(
            self._results,
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
        from modelscape.analysis.profiles import profiles

        return profiles(
            self._results,
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
        from modelscape.analysis.profiles import sensitivity

        return sensitivity(
            self._results, measure, target=target, criterion=criterion, inference=inference
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
        from modelscape.analysis.agreement import agreement

        return agreement(
            self._results, measures, target=target, criterion=criterion, inference=inference
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
        from modelscape.analysis.scorecard import scorecard

        return scorecard(
            self._results,
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
        from modelscape.analysis.divergence import divergence

        return divergence(
            self._results,
            measure,
            first,
            second,
            cases=cases,
            criterion=criterion,
            inference=inference,
        )
