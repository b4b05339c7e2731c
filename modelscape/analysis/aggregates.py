"""The aggregates the analyses return: frozen models that name the measurements behind each number.

A transition, a profile, a scorecard or a divergence sums up many outputs; every one carries
``measurement_ids``, and ``Results.trace(aggregate)`` turns them back into the measurements,
observations and variants (prompts, raw outputs) it was computed from. (This module was
``analysis/records.py``; it holds no stored record, so it is named by what it holds, see
docs/design/046-results-composed.md.)
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from modelscape._identity import AxisValue
from modelscape._model import FrozenModel
from modelscape.task.space import Scale

__all__ = [
    "AxisScore",
    "AxisSensitivity",
    "BehaviorProfile",
    "BoundaryCandidate",
    "Contrast",
    "Divergence",
    "MeasureAgreement",
    "PointSummary",
    "Scorecard",
    "Threshold",
    "ThresholdCase",
    "Transition",
    "VariantVariability",
]

Role = Literal["causal", "invariant"]


class Transition(FrozenModel):
    """One comparison of two coordinates that differ on one axis, for one target and measure.

    ``excess`` is the mean over cases of between − (within_a + within_b)/2 (STATS.md), with
    an interval ``low``..``high`` (see ``Inference.interval``) and a one-sided permutation
    ``p_value``; ``adjusted_p`` is Holm's correction within the family it was tested in (None
    when it was not tested). ``between`` and ``within`` are the two parts of the excess,
    averaged over cases. When ``before`` equals ``after`` the record holds the run-to-run
    variation alone. A negative excess is an honest estimate: the answers differed less
    between the coordinates than between repetitions, which happens by chance when nothing
    changed; read it with its interval.

    ``insufficient`` says why a transition could not be computed (no case has two successful
    outputs on both sides, as when a target failed every call); its excess, parts, interval
    and p-value are then None, and it is never a boundary. ``warnings`` keeps the caveats of
    its interval (too few cases for its coverage to be known, no spread).
    """

    target: str
    measure: str
    axis: str
    before: AxisValue
    after: AxisValue
    first: dict[str, AxisValue]
    second: dict[str, AxisValue]
    cases: int
    excess: float | None
    between: float | None
    within: float | None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    adjusted_p: float | None = None
    exact: bool = False
    insufficient: str | None = None
    warnings: tuple[str, ...] = ()
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)

    @property
    def label(self) -> str:
        """A short name such as ``pressure: none → doubt``."""
        return f"{self.axis}: {self.before} → {self.after}"


class BoundaryCandidate(FrozenModel):
    """A transition where behaviour changed more than run-to-run variation explains.

    It shows where to look. It does not prove a capability threshold, a failure point or a
    mechanism.
    """

    target: str
    measure: str
    axis: str
    before: AxisValue
    after: AxisValue
    excess: float
    low: float | None
    high: float | None
    p_value: float | None
    adjusted_p: float | None
    #: The caveats of its interval (see :attr:`Transition.warnings`).
    warnings: tuple[str, ...] = ()
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)

    @classmethod
    def of(cls, transition: Transition) -> BoundaryCandidate:
        """The candidate a selected transition makes."""
        if transition.excess is None:
            raise ValueError(f"{transition.label}: an insufficient transition is no boundary")
        return cls(
            target=transition.target,
            measure=transition.measure,
            axis=transition.axis,
            before=transition.before,
            after=transition.after,
            excess=transition.excess,
            low=transition.low,
            high=transition.high,
            p_value=transition.p_value,
            adjusted_p=transition.adjusted_p,
            warnings=transition.warnings,
            measurement_ids=transition.measurement_ids,
        )


class VariantVariability(FrozenModel):
    """Run-to-run variation of one variant: the mean distance between its repeated outputs."""

    target: str
    measure: str
    variant_id: str
    case: str
    coordinate: dict[str, AxisValue]
    repetitions: int
    within: float
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)


class PointSummary(FrozenModel):
    """A point metric's mean at one axis value (cases weighted equally), with an interval."""

    metric: str
    value: AxisValue
    mean: float | None
    low: float | None = None
    high: float | None = None
    observations: int
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)


class BehaviorProfile(FrozenModel):
    """How one target's behaviour changes along one axis under one difference measure.

    ``baseline`` compares every axis value with the baseline (at the baseline itself, the
    run-to-run variation); ``local`` compares adjacent values on ordinal and numeric axes.
    Other axes stay at ``fixed``. ``metrics`` hold point metrics at the same coordinates.
    ``candidate_boundaries`` are selected from ``steps``. ``undefined`` says why the
    comparisons are not estimated at all (a report sets it when the target answered too little
    for a change of answers to mean anything); each comparison is then n/a with that reason,
    nothing is a candidate, and the point metrics stay.
    """

    target: str
    measure: str
    axis: str
    scale: Scale
    fixed: dict[str, AxisValue]
    baseline: tuple[Transition, ...]
    local: tuple[Transition, ...]
    metrics: dict[str, tuple[PointSummary, ...]] = Field(default_factory=dict)
    candidate_boundaries: tuple[BoundaryCandidate, ...] = ()
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)
    undefined: str | None = None

    def unestimated(self, reason: str) -> BehaviorProfile:
        """This profile with no comparison estimated: each one n/a because of ``reason``."""
        return self.model_copy(
            update={
                "baseline": tuple(_unestimated(t, reason) for t in self.baseline),
                "local": tuple(_unestimated(t, reason) for t in self.local),
                "candidate_boundaries": (),
                "undefined": reason,
            }
        )

    @property
    def steps(self) -> tuple[Transition, ...]:
        """The transitions tested for boundaries: neighbours, or the baseline if nominal."""
        if self.scale == "nominal":
            return tuple(
                t
                for t in self.baseline
                if t.before != t.after or type(t.before) is not type(t.after)
            )
        return self.local


def _unestimated(transition: Transition, reason: str) -> Transition:
    blank = dict.fromkeys(("excess", "between", "within", "low", "high", "p_value", "adjusted_p"))
    return transition.model_copy(
        update={**blank, "exact": False, "insufficient": reason, "warnings": ()}
    )


class AxisSensitivity(FrozenModel):
    """How strongly one target responds to one axis under one measure.

    ``peak`` is the transition with the largest excess change: a local step on an ordinal or
    numeric axis, or a baseline comparison on a nominal one. ``rank`` is 1 for the axis with the
    largest peak.
    """

    target: str
    measure: str
    axis: str
    scale: Scale
    rank: int
    excess: float
    peak: Transition
    boundaries: int
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)


class MeasureAgreement(FrozenModel):
    """Whether two difference measures tell the same story about the same transitions.

    ``rank_correlation`` (Spearman, with a joint case-bootstrap interval) compares how both
    measures order the transitions by excess change. ``boundary_overlap`` is the share of
    candidate boundaries both find; two measures that find none agree fully. Both are None when
    there is nothing to compare.
    """

    target: str
    first: str
    second: str
    transitions: int
    rank_correlation: float | None
    low: float | None = None
    high: float | None = None
    boundary_overlap: float | None
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)


class ThresholdCase(FrozenModel):
    """Where one case's answers flip along a numeric axis, against where they should."""

    case: str
    expected: float
    observed: float | None
    observed_low: float | None = None
    observed_high: float | None = None


class Threshold(FrozenModel):
    """Where answers flip along a causal numeric axis, against where the correct answer flips.

    Per case, the share of answers that take the correct answer's value after the flip is fitted
    as a non-decreasing function of the axis (isotonic regression) and read where it crosses
    one half; a clean step is reported as the bracket between its two levels. ``offset`` is the
    mean of observed − expected over the cases that cross, with a case-bootstrap interval.
    """

    axis: str
    expected: float
    observed: float | None
    offset: float | None
    low: float | None = None
    high: float | None = None
    cases: int
    crossing: int
    per_case: tuple[ThresholdCase, ...] = ()
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)


class AxisScore(FrozenModel):
    """One axis of a scorecard.

    ``role`` is causal when changing this axis alone changes the correct answer of some case,
    and invariant otherwise. ``accuracy`` follows the axis with every other axis at baseline.
    ``spurious_change`` (with its interval) and ``missed_change`` are those of the scorecard,
    over this axis's steps alone. ``shifts`` are the steps where answers changed beyond
    run-to-run variation (adjacent steps on ordinal and numeric axes, comparisons with the
    baseline on nominal ones). On an invariant axis, the spurious change also counts every
    comparison with the baseline, so that a slow drift made of small neighbour steps is seen,
    and ``departures`` are the comparisons with the baseline where answers changed beyond
    run-to-run variation (Holm over those comparisons); on a causal axis it is empty.
    ``threshold`` compares where the answer flips with where it should, on causal numeric
    axes. ``undefined`` maps each of spurious_change, missed_change, shifts, departures and
    threshold that could not be computed to the reason; an undefined count of shifts or
    departures is reported as none, with its reason.
    """

    axis: str
    scale: Scale
    role: Role
    accuracy: tuple[PointSummary, ...]
    spurious_change: float | None
    spurious_low: float | None = None
    spurious_high: float | None = None
    missed_change: float | None
    missed_low: float | None = None
    missed_high: float | None = None
    shifts: tuple[BoundaryCandidate, ...]
    threshold: Threshold | None = None
    departures: tuple[BoundaryCandidate, ...] = ()
    undefined: dict[str, str] = Field(default_factory=dict)
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)


class Scorecard(FrozenModel):
    """Headline numbers for one target on one group of cases.

    ``accuracy`` is the mean of the metric over every coordinate, cases weighted equally;
    ``baseline_accuracy`` the same at the baseline coordinate alone (how tools that score one
    prompt per case define accuracy). ``answered`` is the share of outputs, over every
    coordinate, from which an answer could be read. ``spurious_change`` is answer change
    beyond noise where the correct answer stays the same, with its interval; it may be
    negative, an unbiased estimate of no change. ``missed_change`` is the share of cross pairs of
    read answers that stay the same where it moves, with its interval (two unreadable
    outputs are not an answer that stayed). Both are ideally zero.

    A quantity that could not be computed is None, and ``undefined`` maps its name
    (accuracy, baseline_accuracy, answered, spurious_change, missed_change, shifts,
    invariant_shifts, invariant_departures) to the reason: too few read answers, nothing to
    measure, no successful output. ``invariant_shifts`` and ``invariant_departures`` are then
    still numbers (0), so read ``undefined`` first.
    """

    target: str
    group: str
    metric: str
    measure: str
    cases: int
    observations: int
    failed: int
    accuracy: float | None
    accuracy_low: float | None = None
    accuracy_high: float | None = None
    baseline_accuracy: float | None = None
    baseline_accuracy_low: float | None = None
    baseline_accuracy_high: float | None = None
    answered: float | None = None
    spurious_change: float | None = None
    spurious_low: float | None = None
    spurious_high: float | None = None
    missed_change: float | None = None
    missed_low: float | None = None
    missed_high: float | None = None
    axes: tuple[AxisScore, ...] = ()
    undefined: dict[str, str] = Field(default_factory=dict)
    #: Caveats of its intervals: too few cases for their coverage to be known.
    warnings: tuple[str, ...] = ()
    #: Each scored case's mean metric, by case id: what the site's rank intervals resample
    #: (a case with no scored output is absent, never 0).
    case_accuracy: dict[str, float] = Field(default_factory=dict, repr=False)
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)
    accuracy_ids: tuple[str, ...] = Field(default=(), repr=False)
    baseline_accuracy_ids: tuple[str, ...] = Field(default=(), repr=False)
    answered_ids: tuple[str, ...] = Field(default=(), repr=False)
    spurious_ids: tuple[str, ...] = Field(default=(), repr=False)
    missed_ids: tuple[str, ...] = Field(default=(), repr=False)

    @property
    def invariant_shifts(self) -> int:
        """The number of shifts on invariant axes, where answers should not change."""
        return sum(len(axis.shifts) for axis in self.axes if axis.role == "invariant")

    @property
    def invariant_departures(self) -> int:
        """The number of departures from the baseline on invariant axes (see AxisScore)."""
        return sum(len(axis.departures) for axis in self.axes if axis.role == "invariant")


class Contrast(FrozenModel):
    """Two targets compared at one coordinate: the excess with the target as the label.

    ``insufficient`` says why it could not be computed (either target lacks two successful
    outputs on both sides in every case); ``excess`` is then None.
    """

    coordinate: dict[str, AxisValue]
    cases: int
    excess: float | None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    adjusted_p: float | None = None
    insufficient: str | None = None
    #: The caveats of its interval (see :attr:`Transition.warnings`).
    warnings: tuple[str, ...] = ()
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)


class Divergence(FrozenModel):
    """Where two targets answer differently beyond the run-to-run variation of each.

    ``contrasts`` hold one comparison per evaluated coordinate; ``candidates`` are the ones the
    criterion selects. ``undefined`` says why the divergence is not estimated at all (a report
    sets it when either target answered too little for answer change to mean anything); every
    contrast is then n/a with that reason, and nothing is a candidate.
    """

    measure: str
    first: str
    second: str
    contrasts: tuple[Contrast, ...]
    candidates: tuple[Contrast, ...]
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)
    undefined: str | None = None

    def unestimated(self, reason: str) -> Divergence:
        """This divergence with nothing estimated: every contrast n/a because of ``reason``."""
        blank = {"excess": None, "low": None, "high": None, "p_value": None, "adjusted_p": None}
        contrasts = tuple(
            c.model_copy(update={**blank, "insufficient": reason, "warnings": ()})
            for c in self.contrasts
        )
        return self.model_copy(
            update={"contrasts": contrasts, "candidates": (), "undefined": reason}
        )

    @property
    def largest(self) -> Contrast | None:
        """The computed contrast with the largest excess, if any."""
        computed = [c for c in self.contrasts if c.excess is not None]
        return max(computed, key=lambda c: c.excess or 0.0, default=None)
