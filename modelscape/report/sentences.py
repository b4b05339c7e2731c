"""The parts of a finding: sentences of text and numbers that carry their measurement ids.

:mod:`modelscape.report.findings` says what a run found in :class:`Finding` sentences; this
module holds what a sentence is made of, what the findings read of a report
(:class:`Findable`), and how they write values, intervals and lists, so that the modules that
make sentences write them alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from modelscape._identity import AxisValue
from modelscape.analysis.aggregates import BoundaryCandidate, Divergence, Scorecard
from modelscape.report.power import Design
from modelscape.report.provenance import Provenance

__all__ = [
    "KINDS",
    "Findable",
    "Finding",
    "FindingKind",
    "Number",
    "cards_of",
    "coordinate_words",
    "listed",
    "shown_interval",
    "shown_value",
    "union",
]

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


def shown_value(value: AxisValue) -> str:
    """An axis value as the page's tables write it (true/false, padded text quoted). The
    pages' own helper lives above the report and cannot be imported from here."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and (value == "" or value != value.strip()):
        return repr(value)
    return str(value)


def shown_interval(value: float, low: float | None, high: float | None, digits: int) -> str:
    """A value with its interval to ``digits`` places, as the tables print it."""
    shown = f"{value:.{digits}f}"
    if low is None or high is None:
        return shown
    return f"{shown} [{low:.{digits}f}, {high:.{digits}f}]"


def coordinate_words(values: dict[str, AxisValue]) -> str:
    """A coordinate as ``axis = value, ...`` (an empty one is the baseline)."""
    return ", ".join(f"{axis} = {shown_value(v)}" for axis, v in values.items()) or "the baseline"


def cards_of(report: Findable) -> list[Scorecard]:
    """The scorecards the findings read: each target's over every case (group ``all``)."""
    return [card for card in report.scorecards if card.group == "all"]


def listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) < 3:
        return " and ".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def union(groups: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    """Every id of the groups, once each, in the order first met."""
    return tuple(dict.fromkeys(i for group in groups for i in group))
