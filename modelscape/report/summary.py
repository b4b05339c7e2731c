"""The report as the command line prints it: compact, aligned, readable in a CI log.

A number that could not be computed shows as ``n/a [k]``, with note k below the tables giving
the reason (the row says whose number it is); an interval with a caveat (too few cases for its
coverage to be known) is marked the same way. A negative excess gets a note that says what it
means.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Literal, Protocol

from modelscape.analysis.aggregates import Scorecard
from modelscape.report.findings import Findable, findings
from modelscape.report.power import card_power

__all__ = ["NEGATIVE", "Notes", "Summarized", "interval", "number", "summarize", "text_table"]


class Summarized(Findable, Protocol):
    """What the summary reads of a report (a :class:`~modelscape.report.Report` is one):
    what its findings read (design, targets, scorecards, divergences, provenance) and the
    rest below.

    Named here, below the report, so that the report can print itself with this module and
    this module never imports the report back.
    """

    @property
    def scenario(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def experiment(self) -> str: ...
    @property
    def cases(self) -> int: ...


#: What a negative excess change means, wherever one is shown.
NEGATIVE = (
    "answers differed less across the step than between repetitions: an unbiased estimate of "
    "no change that fell below zero by chance; its interval says how far from zero the change "
    "may be"
)


def number(value: float | None, digits: int = 2) -> str:
    """A number for a table: fixed digits, or a dash when it was not measured."""
    return "—" if value is None else f"{value:.{digits}f}"


def interval(value: float | None, low: float | None, high: float | None, digits: int = 2) -> str:
    """A value with its interval, such as ``0.72 [0.61, 0.85]``."""
    if value is None:
        return "—"
    if low is None or high is None:
        return number(value, digits)
    return f"{number(value, digits)} [{number(low, digits)}, {number(high, digits)}]"


class Notes:
    """Numbered notes under a table; one number per distinct text."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def mark(self, text: str) -> str:
        """The marker ``[k]`` of a note, added if new."""
        if text not in self.texts:
            self.texts.append(text)
        return f"[{self.texts.index(text) + 1}]"

    def lines(self) -> list[str]:
        """The notes, each wrapped to the width of a terminal."""
        lines: list[str] = []
        for index, text in enumerate(self.texts, start=1):
            marker = f"  [{index}] "
            lines.extend(
                textwrap.wrap(
                    text, width=100, initial_indent=marker, subsequent_indent=" " * len(marker)
                )
            )
        return lines


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of text as aligned columns, two spaces apart, with no trailing spaces: the one
    table layout of everything modelscape prints (the summary, ``modelscape runs``)."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True)).rstrip()
    ]
    lines.extend(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
    return lines


def _cell(card: Scorecard, quantity: str, text: str, notes: Notes) -> str:
    reason = card.undefined.get(quantity)
    if reason is None:
        return text
    return f"n/a {notes.mark(reason)}"


def _power_mark(
    report: Summarized,
    card: Scorecard,
    kind: Literal["shifts", "departures"],
    notes: Notes,
    *,
    invariant: bool,
) -> str:
    """A note beside a count of 0: the smallest excess its tests find with 80% power."""
    found = card_power(report, card, kind, invariant=invariant)
    return "" if found is None else f" {notes.mark(found.phrase)}"


def _scorecards(report: Summarized, notes: Notes) -> list[str]:
    rows = []
    for card in report.scorecards:
        shifts = sum(len(a.shifts) for a in card.axes)
        spurious = interval(card.spurious_change, card.spurious_low, card.spurious_high, 3)
        if card.spurious_change is not None and card.spurious_change < 0:
            spurious += f" {notes.mark('negative excess: ' + NEGATIVE)}"
        undefined_shifts = "shifts" in card.undefined or "invariant_shifts" in card.undefined
        shift_text = f"{shifts} ({card.invariant_shifts})"
        if undefined_shifts:
            reason = card.undefined.get("invariant_shifts") or card.undefined["shifts"]
            shift_text = f"n/a {notes.mark(reason)}"
        departures = str(card.invariant_departures)
        if "invariant_departures" in card.undefined:
            departures = f"n/a {notes.mark(card.undefined['invariant_departures'])}"
        # Beside a 0, what the tests could have found (the page says the same).
        if not undefined_shifts and shifts == 0:
            shift_text += _power_mark(report, card, "shifts", notes, invariant=False)
        if "invariant_departures" not in card.undefined and card.invariant_departures == 0:
            departures += _power_mark(report, card, "departures", notes, invariant=True)
        accuracy = interval(card.accuracy, card.accuracy_low, card.accuracy_high)
        for warning in card.warnings:
            accuracy += f" {notes.mark(warning)}"
        rows.append(
            [
                card.target,
                card.group,
                _cell(card, "accuracy", accuracy, notes),
                _cell(
                    card,
                    "baseline_accuracy",
                    interval(
                        card.baseline_accuracy,
                        card.baseline_accuracy_low,
                        card.baseline_accuracy_high,
                    ),
                    notes,
                ),
                _cell(card, "answered", number(card.answered), notes),
                _cell(card, "spurious_change", spurious, notes),
                _cell(
                    card,
                    "missed_change",
                    interval(card.missed_change, card.missed_low, card.missed_high, 3),
                    notes,
                ),
                shift_text,
                departures,
                str(card.failed),
            ]
        )
    header = [
        "target",
        "group",
        "accuracy",
        "at baseline",
        "answered",
        "spurious",
        "missed",
        "shifts (inv.)",
        "departures",
        "failed",
    ]
    return text_table(header, rows)


def _boundaries(report: Summarized, notes: Notes) -> list[str]:
    boundaries = [
        (card.target, axis, shift)
        for card in report.scorecards
        if card.group == "all"
        for axis in card.axes
        for shift in axis.shifts
    ]
    if not boundaries:
        return ["candidate boundaries: none"]
    rows = []
    for target, axis, shift in boundaries:
        excess = interval(shift.excess, shift.low, shift.high)
        for warning in shift.warnings:
            excess += f" {notes.mark(warning)}"
        if shift.excess < 0:
            excess += f" {notes.mark('negative excess: ' + NEGATIVE)}"
        rows.append(
            [
                target,
                f"{shift.axis}: {shift.before} → {shift.after}",
                axis.role,
                excess,
                "—" if shift.adjusted_p is None else f"{shift.adjusted_p:.3g}",
            ]
        )
    return [
        "candidate boundaries (where answers changed beyond run-to-run noise)",
        *(
            "  " + line
            for line in text_table(["target", "step", "role", "excess", "p (Holm)"], rows)
        ),
    ]


def _thresholds(report: Summarized, notes: Notes) -> list[str]:
    rows = []
    for card in report.scorecards:
        if card.group != "all":
            continue
        for axis in card.axes:
            found = axis.threshold
            if found is not None:
                rows.append(
                    [
                        card.target,
                        found.axis,
                        number(found.expected),
                        number(found.observed),
                        interval(found.offset, found.low, found.high)
                        if found.offset is not None or "threshold" not in axis.undefined
                        else f"n/a {notes.mark(axis.undefined['threshold'])}",
                        f"{found.crossing} of {found.cases}",
                    ]
                )
            elif "threshold" in axis.undefined:
                note = notes.mark(axis.undefined["threshold"])
                rows.append([card.target, axis.axis, "—", "—", f"n/a {note}", "—"])
    if not rows:
        return []
    header = ["target", "axis", "expected", "observed", "offset", "cases crossing"]
    return [
        "",
        "thresholds (where answers flip, against where the correct answer flips)",
        *("  " + line for line in text_table(header, rows)),
    ]


def _divergences(report: Summarized, notes: Notes) -> list[str]:
    if not report.divergences:
        return []
    rows = []
    for divergence in report.divergences:
        largest = divergence.largest
        computed = sum(1 for c in divergence.contrasts if c.excess is not None)
        where = ", ".join(f"{k}={v}" for k, v in largest.coordinate.items()) if largest else "—"
        excess = f"largest {number(largest.excess if largest else None, 3)} at {where}"
        if largest is not None and largest.excess is not None and largest.excess <= 0:
            # Every coordinate answered alike within noise: a "largest" below 0 is no finding.
            excess = f"none above 0 (largest {number(largest.excess, 3)})"
        if largest is None:
            reasons = [c.insufficient for c in divergence.contrasts if c.insufficient]
            excess = f"n/a {notes.mark(reasons[0] if reasons else 'no coordinate evaluated')}"
        divergent = f"{len(divergence.candidates)} of {computed} coordinates"
        if divergence.undefined is not None:
            divergent = f"n/a {notes.mark(divergence.undefined)}"
        rows.append([divergence.second, divergent, excess])
    return [
        "",
        f"divergence from {report.targets[0]}",
        *("  " + line for line in text_table(["target", "divergent", "excess"], rows)),
    ]


def _failures(report: Summarized) -> list[str]:
    failed = [t for t in report.provenance.targets if t.failed]
    if not failed:
        return []
    lines = ["", "failed calls (asked again by the next run)"]
    for target in failed:
        count = (
            f"every call failed ({target.failed} of {target.observations})"
            if target.failed == target.observations
            else f"{target.failed} of {target.observations} calls failed"
        )
        lines.append(
            f"  {target.name}: {count}; first error: {target.first_error or 'not recorded'}"
        )
    return lines


def _findings(report: Summarized) -> list[str]:
    """What the run found, one sentence a line: the words the report page opens with."""
    return ["findings", *(f"  - {finding.text}" for finding in findings(report))]


def summarize(report: Summarized) -> str:
    """What a report found, then its scorecards, boundaries, thresholds, divergences and
    failures, as text."""
    inference = report.inference
    criterion = report.criterion
    notes = Notes()
    lines = [
        f"{report.scenario} (version {report.version}) · experiment {report.experiment} · "
        f"{len(report.targets)} target{'s' if len(report.targets) != 1 else ''} · "
        f"{report.cases} cases · {report.repetitions} repetitions",
        f"boundaries: Holm-adjusted p <= {criterion.alpha:g} and excess > {criterion.min_excess:g}"
        f" · {inference.permutations} permutations, {inference.resamples} resamples, "
        f"{inference.confidence:.0%} {inference.interval} intervals",
        "",
        *_findings(report),
        "",
        *_scorecards(report, notes),
        "",
        *_boundaries(report, notes),
        *_thresholds(report, notes),
        *_divergences(report, notes),
        *_failures(report),
    ]
    if notes.texts:
        lines.extend(["", "notes", *notes.lines()])
    return "\n".join(lines)
