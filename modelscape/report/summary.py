"""The report as the command line prints it: compact, aligned, readable in a CI log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from modelscape.report.report import Report

__all__ = ["summarize"]


def number(value: float | None, digits: int = 2) -> str:
    """A number for a table: fixed digits, or a dash when it was not measured."""
    return "—" if value is None else f"{value:.{digits}f}"


def interval(value: float | None, low: float | None, high: float | None) -> str:
    """A value with its interval, such as ``0.72 [0.61, 0.85]``."""
    if value is None:
        return "—"
    if low is None or high is None:
        return number(value)
    return f"{number(value)} [{number(low)}, {number(high)}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True)).rstrip()
    ]
    lines.extend(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
    return lines


def summarize(report: Report) -> str:
    """Scorecards, boundaries, thresholds and divergences of a report as aligned text."""
    inference = report.inference
    criterion = report.criterion
    lines = [
        f"{report.scenario} (version {report.version}) · experiment {report.experiment} · "
        f"{len(report.targets)} target{'s' if len(report.targets) != 1 else ''} · "
        f"{report.cases} cases · {report.repetitions} repetitions",
        f"boundaries: Holm-adjusted p <= {criterion.alpha:g} and excess > {criterion.min_excess:g}"
        f" · {inference.permutations} permutations, {inference.resamples} resamples, "
        f"{inference.confidence:.0%} intervals",
        "",
    ]
    rows = []
    for card in report.scorecards:
        shifts = sum(len(a.shifts) for a in card.axes)
        rows.append(
            [
                card.target,
                card.group,
                interval(card.accuracy, card.accuracy_low, card.accuracy_high),
                number(card.answered),
                number(card.spurious_change, 3),
                number(card.missed_change, 3),
                f"{shifts} ({card.invariant_shifts})",
                str(card.failed),
            ]
        )
    lines.extend(
        _table(
            [
                "target",
                "group",
                "accuracy",
                "answered",
                "spurious",
                "missed",
                "shifts (inv.)",
                "failed",
            ],
            rows,
        )
    )
    boundaries = [
        (card.target, axis, shift)
        for card in report.scorecards
        if card.group == "all"
        for axis in card.axes
        for shift in axis.shifts
    ]
    lines.append("")
    if boundaries:
        lines.append("candidate boundaries (where answers changed beyond run-to-run noise)")
        lines.extend(
            "  " + line
            for line in _table(
                ["target", "step", "role", "excess", "p (Holm)"],
                [
                    [
                        target,
                        f"{shift.axis}: {shift.before} → {shift.after}",
                        axis.role,
                        interval(shift.excess, shift.low, shift.high),
                        "—" if shift.adjusted_p is None else f"{shift.adjusted_p:.3g}",
                    ]
                    for target, axis, shift in boundaries
                ],
            )
        )
    else:
        lines.append("candidate boundaries: none")
    thresholds = [
        (card.target, axis.threshold)
        for card in report.scorecards
        if card.group == "all"
        for axis in card.axes
        if axis.threshold is not None
    ]
    if thresholds:
        lines.append("")
        lines.append("thresholds (where answers flip, against where the correct answer flips)")
        lines.extend(
            "  " + line
            for line in _table(
                ["target", "axis", "expected", "observed", "offset", "cases crossing"],
                [
                    [
                        target,
                        found.axis,
                        number(found.expected),
                        number(found.observed),
                        interval(found.offset, found.low, found.high),
                        f"{found.crossing} of {found.cases}",
                    ]
                    for target, found in thresholds
                ],
            )
        )
    if report.divergences:
        lines.append("")
        lines.append(f"divergence from {report.targets[0]}")
        rows = []
        for divergence in report.divergences:
            largest = divergence.largest
            where = ", ".join(f"{k}={v}" for k, v in largest.coordinate.items()) if largest else "—"
            rows.append(
                [
                    divergence.second,
                    f"{len(divergence.candidates)} of {len(divergence.contrasts)} coordinates",
                    f"largest {number(largest.excess if largest else None, 3)} at {where}",
                ]
            )
        lines.extend("  " + line for line in _table(["target", "divergent", "excess"], rows))
    return "\n".join(lines)
