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

from collections.abc import Iterator

from modelscape.analysis.aggregates import BoundaryCandidate, Divergence
from modelscape.report.sentences import (
    KINDS,
    Findable,
    Finding,
    FindingKind,
    Number,
    cards_of,
    coordinate_words,
    listed,
    shown_interval,
    shown_value,
)
from modelscape.report.unseen import power, unmeasured

__all__ = ["KINDS", "Findable", "Finding", "FindingKind", "Number", "findings"]


def _step(
    kind: FindingKind, target: str, found: BoundaryCandidate, what: str, opening: str
) -> Finding:
    """A candidate boundary or departure: its step, excess with interval and adjusted p."""
    label = f"{target} · all · {what} {found.axis}: {found.before} → {found.after}"
    parts: list[str | Number] = [
        f"{opening}: excess ",
        Number(
            shown_interval(found.excess, found.low, found.high, 2),
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
    for card in cards_of(report):
        for axis in card.axes:
            for shift in axis.shifts:
                said = True
                opening = (
                    f"{card.target}: candidate boundary on {axis.axis} ({axis.role} axis) at "
                    f"{shown_value(shift.before)} → {shown_value(shift.after)}"
                )
                yield _step("boundaries", card.target, shift, "shift", opening)
    if said:
        return
    tested = [
        card.target
        for card in cards_of(report)
        if "shifts" not in card.undefined and any(len(a.accuracy) > 1 for a in card.axes)
    ]
    if report.inference.permutations == 0:
        text = "No step was tested for a candidate boundary: the permutation tests were off."
    elif not tested:
        text = "No step of any axis could be tested for a candidate boundary."
    else:
        text = (
            f"No candidate boundary: no step of any axis changed the answers of "
            f"{listed(tested)} beyond run-to-run noise."
        )
    yield Finding("boundaries", (text,))


def _above_zero(value: float | None, low: float | None) -> bool:
    return value is not None and low is not None and low > 0


def _spurious(report: Findable) -> Iterator[Finding]:
    said = False
    invariant = measured = False
    for card in cards_of(report):
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
                            shown_interval(
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
                    f"{shown_value(found.after)} departed from those at its baseline "
                    f"{shown_value(found.before)}"
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
    for card in cards_of(report):
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
                            shown_interval(
                                axis.missed_change, axis.missed_low, axis.missed_high, 3
                            ),
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
    label = f"{where} at {coordinate_words(largest.coordinate)}: excess answer change"
    ids = tuple(dict.fromkeys(i for c in candidates for i in c.measurement_ids))
    parts: list[str | Number] = [
        f"{divergence.second} answers differently from {divergence.first} at ",
        Number(str(len(candidates)), f"{where}: divergent coordinates", ids),
        f" coordinate{'s' if len(candidates) != 1 else ''}; the largest at "
        f"{coordinate_words(largest.coordinate)}: excess ",
        Number(
            shown_interval(largest.excess or 0.0, largest.low, largest.high, 2),
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
                f"{listed(alike)} {verb} like {report.targets[0]} within run-to-run noise at "
                "every coordinate tested.",
            ),
        )
    elif not any(d.candidates for d in report.divergences):
        yield Finding(
            "divergence",
            (f"Divergence from {report.targets[0]} could not be measured for any target.",),
        )


def findings(report: Findable) -> list[Finding]:
    """What ``report`` found, as sentences in the order of :data:`KINDS`."""
    return [
        *_boundaries(report),
        *_spurious(report),
        *_missed(report),
        *_divergence(report),
        *unmeasured(report),
        *power(report),
    ]
