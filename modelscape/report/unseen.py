"""What a run could not say: the findings of what was not measured, and of what its tests
could not have detected.

The last two kinds of :mod:`modelscape.report.findings`: every n/a with its reason and the
calls that failed (``unmeasured``), and the smallest excess each family of tests finds with
80% power (``power``, from :mod:`modelscape.report.power`), so that "nothing found" is never
read as "nothing there".
"""

from __future__ import annotations

from collections.abc import Iterator

from modelscape.analysis.aggregates import AxisScore, Contrast, Divergence, Scorecard
from modelscape.report.power import axis_power, family_power
from modelscape.report.sentences import (
    Findable,
    Finding,
    Number,
    cards_of,
    coordinate_words,
    listed,
    union,
)
from modelscape.stats.power import DesignPower

__all__ = ["power", "unmeasured"]


def _quantity(name: str) -> str:
    return name.replace("_", " ")


def _by_design(axis: AxisScore, quantity: str) -> bool:
    """Whether an axis's quantity is n/a because of its role, not its outputs: an invariant
    axis has no change to miss, a causal one no change that is spurious (the spurious and
    missed findings say which roles the axes have)."""
    return (quantity == "missed_change" and axis.role != "causal") or (
        quantity == "spurious_change" and axis.role != "invariant"
    )


def _unmeasured_card(card: Scorecard) -> Iterator[Finding]:
    """The n/a quantities of one scorecard, one sentence per reason."""
    reasons: dict[str, list[str]] = {}
    roles = {axis.role for axis in card.axes}
    for quantity, reason in card.undefined.items():
        if (quantity == "missed_change" and "causal" not in roles) or (
            quantity == "spurious_change" and "invariant" not in roles
        ):
            continue  # n/a by design, as on every axis
        reasons.setdefault(reason, []).append(_quantity(quantity))
    for axis in card.axes:
        for quantity, reason in axis.undefined.items():
            if _by_design(axis, quantity):
                continue
            if reason in reasons and reason in card.undefined.values():
                continue  # said for the whole scorecard, whose axes it covers
            reasons.setdefault(reason, []).append(f"{_quantity(quantity)} on {axis.axis}")
    for reason, quantities in reasons.items():
        names = list(dict.fromkeys(quantities))
        yield Finding(
            "unmeasured", (f"{card.target}: {listed(names)} could not be measured: {reason}.",)
        )


def _unmeasured_divergence(divergence: Divergence) -> Iterator[Finding]:
    where = f"{divergence.second} against {divergence.first}"
    if divergence.undefined is not None:
        yield Finding(
            "unmeasured", (f"{where}: divergence could not be measured: {divergence.undefined}.",)
        )
        return
    reasons: dict[str, list[Contrast]] = {}
    for contrast in divergence.contrasts:
        if contrast.insufficient is not None:
            reasons.setdefault(contrast.insufficient, []).append(contrast)
    for reason, contrasts in reasons.items():
        at = (
            "any coordinate"
            if len(contrasts) == len(divergence.contrasts)
            else "; ".join(coordinate_words(c.coordinate) for c in contrasts)
        )
        yield Finding(
            "unmeasured", (f"{where}: divergence could not be measured at {at}: {reason}.",)
        )


def unmeasured(report: Findable) -> Iterator[Finding]:
    said = False
    errors = {t.name: t.first_error for t in report.provenance.targets}
    for card in cards_of(report):
        if card.failed:
            said = True
            yield Finding(
                "unmeasured",
                (
                    f"{card.target}: ",
                    Number(str(card.failed), f"{card.target} · all: failed calls", (), card.target),
                    f" call{'s' if card.failed != 1 else ''} failed (the next run asks again); "
                    f"first error: {errors.get(card.target) or 'not recorded'}.",
                ),
            )
        for finding in _unmeasured_card(card):
            said = True
            yield finding
    for divergence in report.divergences:
        for finding in _unmeasured_divergence(divergence):
            said = True
            yield finding
    if not said:
        yield Finding(
            "unmeasured", ("Every quantity could be measured for every target; no call failed.",)
        )


def _detectable(power: DesignPower, label: str, ids: tuple[str, ...], opening: str) -> Finding:
    if power.detectable is None:
        return Finding("power", (f"{opening} have no figure of what they find: {power.reason}.",))
    return Finding(
        "power",
        (
            f"{opening} could detect an excess of ",
            Number(f"{power.detectable:.2f}", label, ids),
            " or more with 80% power; a smaller change may be there unseen.",
        ),
    )


def power(report: Findable) -> Iterator[Finding]:
    axes: dict[str, tuple[Scorecard, AxisScore]] = {}
    ids: dict[str, list[tuple[str, ...]]] = {}
    for card in cards_of(report):
        for axis in card.axes:
            axes.setdefault(axis.axis, (card, axis))
            ids.setdefault(axis.axis, []).append(axis.measurement_ids)
    said = False
    for name, (card, axis) in axes.items():
        power = axis_power(report, axis, "shifts", cases=card.cases)
        if power is None:
            continue
        said = True
        yield _detectable(
            power,
            f"tests of {name}: the outputs they compared",
            union(ids[name]),
            f"On {name}, the tests of each step",
        )
    defined = [d for d in report.divergences if d.undefined is None]
    figures: dict[str, tuple[DesignPower, list[Divergence]]] = {}
    for divergence in defined:
        tested = [c.cases for c in divergence.contrasts if c.excess is not None]
        if not tested:
            continue
        power = family_power(report, "boundaries", cases=min(tested), family=len(tested))
        figures.setdefault(power.phrase, (power, []))[1].append(divergence)
    for power, divergences in figures.values():
        said = True
        others = (
            "each other target"
            if len(divergences) == len(report.divergences) > 1
            else ", ".join(d.second for d in divergences)
        )
        yield _detectable(
            power,
            "divergence tests: the outputs they compared",
            union(d.measurement_ids for d in divergences),
            f"Between {report.targets[0]} and {others}, the divergence tests",
        )
    if not said:
        yield Finding(
            "power", ("No test was run, so the design could not have detected any change.",)
        )
