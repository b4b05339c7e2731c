"""What a report's "0 shifts", "0 departures" and "no boundary" could have found.

The design behind a scorecard fixes the power of its tests: its cases, the repetitions per
variant, how many steps of an axis are tested together under Holm (one fewer than the values
on the axis's line, for shifts, departures and boundaries alike), alpha and ``min_excess``.
:mod:`modelscape.stats.power` turns that into the smallest excess found with 80% power; this
module reads the design off a report's records, so that pages, the leaderboard and ``check``
say the same thing beside every "nothing found".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from modelscape.analysis.aggregates import AxisScore, Scorecard
from modelscape.stats.power import DesignPower, Kind, design_power
from modelscape.stats.settings import BoundaryCriterion, Inference

__all__ = ["WANTED", "Design", "axis_power", "card_power", "family_power", "weakest"]

#: The excess a design should be able to find for "nothing found" to count as evidence: a
#: requirement such as ``invariant_shifts==0`` on a weaker design warns.
WANTED = 0.3


class Design(Protocol):
    """What fixes a report's power besides its cases: a :class:`~modelscape.report.Report`."""

    @property
    def repetitions(self) -> int: ...
    @property
    def criterion(self) -> BoundaryCriterion: ...
    @property
    def inference(self) -> Inference: ...


def family_power(design: Design, kind: Kind, *, cases: int, family: int) -> DesignPower:
    """The power of ``family`` tests together under Holm, each over ``cases`` cases."""
    return design_power(
        kind,
        cases=cases,
        repetitions=design.repetitions,
        family=family,
        alpha=design.criterion.alpha,
        min_excess=design.criterion.min_excess,
        tested=design.inference.permutations > 0,
        wanted=WANTED,
    )


def axis_power(design: Design, axis: AxisScore, kind: Kind, *, cases: int) -> DesignPower | None:
    """The power of one axis's family of tests; None when the axis has a single value."""
    values = len(axis.accuracy)
    if values < 2:
        return None
    return family_power(design, kind, cases=cases, family=values - 1)


def weakest(found: Iterable[DesignPower | None]) -> DesignPower | None:
    """The family that could find least: n/a first, then the largest detectable excess."""
    known = [item for item in found if item is not None]
    if not known:
        return None
    return max(known, key=lambda item: (item.detectable is None, item.detectable or 0.0))


def card_power(
    design: Design, card: Scorecard, kind: Kind, *, invariant: bool = False
) -> DesignPower | None:
    """The weakest family behind a scorecard's count (of its invariant axes when
    ``invariant``), on the scorecard's own cases; None when it has no such axis."""
    return weakest(
        axis_power(design, axis, kind, cases=card.cases)
        for axis in card.axes
        if not invariant or axis.role == "invariant"
    )
