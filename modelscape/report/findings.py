"""Findings: what a run found, said before any table, in sentences made from the report alone.

A report's tables hold everything; a reader who opens one first wants to know what it found.
:func:`findings` reads a built report and says so in an ordered list of :class:`Finding`
sentences, in six kinds, always in this order and each present even when empty:

1. ``boundaries``: every candidate boundary (target, axis and its role, the step, the excess
   with its interval, the Holm-adjusted p);
2. ``spurious``: invariant axes whose spurious change has an interval above zero, and every
   departure from an invariant axis's baseline;
3. ``missed``: causal axes whose missed change has an interval above zero;
4. ``divergence``: where another target answers differently from the first;
5. ``unmeasured``: what is n/a and why, and the calls that failed;
6. ``power``: the smallest excess each family of tests finds with 80% power, so that "nothing
   found" is never read as "nothing there".

A kind with nothing to say says so in one sentence. Each sentence is a tuple of parts: text,
and :class:`Number` parts, each carrying the measurement ids it was computed from (or, for a
count of failed calls, the target whose failed observations it counts), so that a page can
make every number open its outputs and the command line can print the same words. Only the
scorecards of the group ``all`` are read: a group's own scorecard is a detail of the tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

from modelscape._identity import AxisValue
from modelscape.analysis.records import (
    AxisScore,
    BoundaryCandidate,
    Contrast,
    Divergence,
    Scorecard,
)
from modelscape.report.power import Design, axis_power, family_power
from modelscape.report.provenance import Provenance
from modelscape.stats.power import DesignPower

__all__ = ["KINDS", "Findable", "Finding", "FindingKind", "Number", "findings"]

FindingKind = Literal["boundaries", "spurious", "missed", "divergence", "unmeasured", "power"]
#: The kinds of finding, in the order they are said.
KINDS: tuple[FindingKind, ...] = (
    "boundaries",
    "spurious",
    "missed",
    "divergence",
    "unmeasured",
    "power",
)


class Findable(Design, Protocol):
    """What the findings read of a report (a :class:`~modelscape.report.Report` is one)."""

    @property
    def targets(self) -> tuple[str, ...]: ...
    @property
    def scorecards(self) -> tuple[Scorecard, ...]: ...
    @property
    def divergences(self) -> tuple[Divergence, ...]: ...
    @property
    def provenance(self) -> Provenance: ...


@dataclass(frozen=True)
class Number:
    """A number inside a finding, as text, with what it was computed from.

    ``label`` names it in the panel that lists its outputs (the tables' label for the same
    number, where a table shows it). ``failed_of`` names the target whose failed calls the
    number counts (failed calls have no measurements). ``compares`` is the step a boundary
    or departure compares, so that a page can lay its two coordinates side by side.
    """

    text: str
    label: str
    measurement_ids: tuple[str, ...] = ()
    failed_of: str | None = None
    compares: BoundaryCandidate | None = None


@dataclass(frozen=True)
class Finding:
    """One sentence of what a run found: text parts and number parts, in reading order."""

    kind: FindingKind
    parts: tuple[str | Number, ...]

    @property
    def text(self) -> str:
        """The sentence as plain text, as the command line prints it."""
        return "".join(part if isinstance(part, str) else part.text for part in self.parts)

    @property
    def numbers(self) -> tuple[Number, ...]:
        """The number parts of the sentence."""
        return tuple(part for part in self.parts if isinstance(part, Number))


def _value(value: AxisValue) -> str:
    """An axis value as the page's tables write it (true/false, padded text quoted). The
    pages' own helper lives above the report and cannot be imported from here."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and (value == "" or value != value.strip()):
        return repr(value)
    return str(value)


def _interval(value: float, low: float | None, high: float | None, digits: int) -> str:
    shown = f"{value:.{digits}f}"
    if low is None or high is None:
        return shown
    return f"{shown} [{low:.{digits}f}, {high:.{digits}f}]"


def _coordinate(values: dict[str, AxisValue]) -> str:
    return ", ".join(f"{axis} = {_value(v)}" for axis, v in values.items()) or "the baseline"


def _cards(report: Findable) -> list[Scorecard]:
    return [card for card in report.scorecards if card.group == "all"]


def _words(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) < 3:
        return " and ".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _step(
    kind: FindingKind, target: str, found: BoundaryCandidate, what: str, opening: str
) -> Finding:
    """A candidate boundary or departure: its step, excess with interval and adjusted p."""
    label = f"{target} · all · {what} {found.axis}: {found.before} → {found.after}"
    parts: list[str | Number] = [
        f"{opening}: excess ",
        Number(
            _interval(found.excess, found.low, found.high, 2),
            label,
            found.measurement_ids,
            compares=found,
        ),
    ]
    if found.adjusted_p is not None:
        parts += [
            ", Holm-adjusted p ",
            Number(f"{found.adjusted_p:.3g}", f"{label} (adjusted p)", found.measurement_ids),
        ]
    return Finding(kind, (*parts, "."))


def _boundaries(report: Findable) -> Iterator[Finding]:
    said = False
    for card in _cards(report):
        for axis in card.axes:
            for shift in axis.shifts:
                said = True
                opening = (
                    f"{card.target}: candidate boundary on {axis.axis} ({axis.role} axis) at "
                    f"{_value(shift.before)} → {_value(shift.after)}"
                )
                yield _step("boundaries", card.target, shift, "shift", opening)
    if said:
        return
    tested = [
        card.target
        for card in _cards(report)
        if "shifts" not in card.undefined and any(len(a.accuracy) > 1 for a in card.axes)
    ]
    if report.inference.permutations == 0:
        text = "No step was tested for a candidate boundary: the permutation tests were off."
    elif not tested:
        text = "No step of any axis could be tested for a candidate boundary."
    else:
        text = (
            f"No candidate boundary: no step of any axis changed the answers of "
            f"{_words(tested)} beyond run-to-run noise."
        )
    yield Finding("boundaries", (text,))


def _above_zero(value: float | None, low: float | None) -> bool:
    return value is not None and low is not None and low > 0


def _spurious(report: Findable) -> Iterator[Finding]:
    said = False
    invariant = measured = False
    for card in _cards(report):
        where = f"{card.target} · all"
        for axis in card.axes:
            if axis.role != "invariant":
                continue
            invariant = True
            measured = measured or axis.spurious_change is not None
            if axis.spurious_change is not None and _above_zero(
                axis.spurious_change, axis.spurious_low
            ):
                said = True
                yield Finding(
                    "spurious",
                    (
                        f"{card.target}: on the invariant axis {axis.axis}, answers changed "
                        "where the correct answer does not: spurious change ",
                        Number(
                            _interval(
                                axis.spurious_change, axis.spurious_low, axis.spurious_high, 3
                            ),
                            f"{where} · {axis.axis}: spurious change",
                            axis.measurement_ids,
                        ),
                        ", its interval above zero.",
                    ),
                )
            for found in axis.departures:
                said = True
                opening = (
                    f"{card.target}: on the invariant axis {axis.axis}, answers at "
                    f"{_value(found.after)} departed from those at its baseline "
                    f"{_value(found.before)}"
                )
                yield _step("spurious", card.target, found, "departure", opening)
    if said:
        return
    if not invariant:
        text = "No axis is invariant, so no answer change can be spurious."
    elif not measured:
        text = "Spurious change on the invariant axes could not be measured for any target."
    else:
        text = (
            "No invariant axis shows spurious change with an interval above zero, and none "
            "departs from its baseline."
        )
    yield Finding("spurious", (text,))


def _missed(report: Findable) -> Iterator[Finding]:
    said = causal = measured = False
    for card in _cards(report):
        for axis in card.axes:
            if axis.role != "causal":
                continue
            causal = True
            measured = measured or axis.missed_change is not None
            if axis.missed_change is not None and _above_zero(axis.missed_change, axis.missed_low):
                said = True
                yield Finding(
                    "missed",
                    (
                        f"{card.target}: on the causal axis {axis.axis}, answers stayed the "
                        "same where the correct answer moved: missed change ",
                        Number(
                            _interval(axis.missed_change, axis.missed_low, axis.missed_high, 3),
                            f"{card.target} · all · {axis.axis}: missed change",
                            axis.measurement_ids,
                        ),
                        ", its interval above zero.",
                    ),
                )
    if said:
        return
    if not causal:
        text = "No axis is causal, so no change of the correct answer can be missed."
    elif not measured:
        text = "Missed change on the causal axes could not be measured for any target."
    else:
        text = "No causal axis shows missed change with an interval above zero."
    yield Finding("missed", (text,))


def _diverges(divergence: Divergence) -> Finding:
    candidates = divergence.candidates
    where = f"{divergence.second} against {divergence.first}"
    largest = max(candidates, key=lambda c: c.excess or 0.0)
    label = f"{where} at {_coordinate(largest.coordinate)}: excess answer change"
    ids = tuple(dict.fromkeys(i for c in candidates for i in c.measurement_ids))
    parts: list[str | Number] = [
        f"{divergence.second} answers differently from {divergence.first} at ",
        Number(str(len(candidates)), f"{where}: divergent coordinates", ids),
        f" coordinate{'s' if len(candidates) != 1 else ''}; the largest at "
        f"{_coordinate(largest.coordinate)}: excess ",
        Number(
            _interval(largest.excess or 0.0, largest.low, largest.high, 2),
            label,
            largest.measurement_ids,
        ),
    ]
    if largest.adjusted_p is not None:
        parts += [
            ", Holm-adjusted p ",
            Number(f"{largest.adjusted_p:.3g}", f"{label} (adjusted p)", largest.measurement_ids),
        ]
    return Finding("divergence", (*parts, "."))


def _divergence(report: Findable) -> Iterator[Finding]:
    if not report.divergences:
        yield Finding("divergence", ("One target only: there is no divergence to measure.",))
        return
    alike: list[str] = []
    for divergence in report.divergences:
        if divergence.undefined is not None:
            continue
        if divergence.candidates:
            yield _diverges(divergence)
        elif any(c.excess is not None for c in divergence.contrasts):
            alike.append(divergence.second)
    if alike:
        verb = "answers" if len(alike) == 1 else "answer"
        yield Finding(
            "divergence",
            (
                f"{_words(alike)} {verb} like {report.targets[0]} within run-to-run noise at "
                "every coordinate tested.",
            ),
        )
    elif not any(d.candidates for d in report.divergences):
        yield Finding(
            "divergence",
            (f"Divergence from {report.targets[0]} could not be measured for any target.",),
        )


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
            "unmeasured", (f"{card.target}: {_words(names)} could not be measured: {reason}.",)
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
            else "; ".join(_coordinate(c.coordinate) for c in contrasts)
        )
        yield Finding(
            "unmeasured", (f"{where}: divergence could not be measured at {at}: {reason}.",)
        )


def _unmeasured(report: Findable) -> Iterator[Finding]:
    said = False
    errors = {t.name: t.first_error for t in report.provenance.targets}
    for card in _cards(report):
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


def _union(groups: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for group in groups for i in group))


def _power(report: Findable) -> Iterator[Finding]:
    axes: dict[str, tuple[Scorecard, AxisScore]] = {}
    ids: dict[str, list[tuple[str, ...]]] = {}
    for card in _cards(report):
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
            _union(ids[name]),
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
            _union(d.measurement_ids for d in divergences),
            f"Between {report.targets[0]} and {others}, the divergence tests",
        )
    if not said:
        yield Finding(
            "power", ("No test was run, so the design could not have detected any change.",)
        )


def findings(report: Findable) -> list[Finding]:
    """What ``report`` found, as sentences in the order of :data:`KINDS`."""
    return [
        *_boundaries(report),
        *_spurious(report),
        *_missed(report),
        *_divergence(report),
        *_unmeasured(report),
        *_power(report),
    ]
