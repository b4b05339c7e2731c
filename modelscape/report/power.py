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

from modelscape.analysis.records import AxisScore, Scorecard
from modelscape.stats.power import DesignPower, Kind, design_power
from modelscape.stats.settings import BoundaryCriterion, Inference

__all__ = ["WANTED", "axis_power", "card_power", "weakest"]

#: The excess a design should be able to find for "nothing found" to count as evidence: a
#: requirement such as ``invariant_shifts==0`` on a weaker design warns.
WANTED = 0.3


def axis_power(
    axis: AxisScore,
    kind: Kind,
    *,
    cases: int,
    repetitions: int,
    criterion: BoundaryCriterion,
    inference: Inference,
) -> DesignPower | None:
    """The power of one axis's family of tests; None when the axis has a single value."""
    values = len(axis.accuracy)
    if values < 2:
        return None
    return design_power(
        kind,
        cases=cases,
        repetitions=repetitions,
        family=values - 1,
        alpha=criterion.alpha,
        min_excess=criterion.min_excess,
        tested=inference.permutations > 0,
        wanted=WANTED,
    )


def weakest(found: Iterable[DesignPower | None]) -> DesignPower | None:
    """The family that could find least: n/a first, then the largest detectable excess."""
    known = [item for item in found if item is not None]
    if not known:
        return None
    return max(known, key=lambda item: (item.detectable is None, item.detectable or 0.0))


def card_power(
    card: Scorecard,
    kind: Kind,
    *,
    repetitions: int,
    criterion: BoundaryCriterion,
    inference: Inference,
    invariant: bool = False,
) -> DesignPower | None:
    """The weakest family behind a scorecard's count (of its invariant axes when
    ``invariant``), on the scorecard's own cases; None when it has no such axis."""
    return weakest(
        axis_power(
            axis,
            kind,
            cases=card.cases,
            repetitions=repetitions,
            criterion=criterion,
            inference=inference,
        )
        for axis in card.axes
        if not invariant or axis.role == "invariant"
    )
