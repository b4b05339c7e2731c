"""Requirements: bounds on report quantities that gate a CI job, such as ``accuracy>=0.9``."""

from __future__ import annotations

import difflib
import operator
import re
from collections.abc import Callable, Collection
from typing import Literal

from modelscape._model import FrozenModel
from modelscape.analysis.aggregates import Divergence, Scorecard
from modelscape.errors import ReportError
from modelscape.report.power import WANTED, card_power, family_power
from modelscape.report.report import Report
from modelscape.stats.power import DesignPower

__all__ = ["DIVERGENCE_QUANTITIES", "SCORECARD_QUANTITIES", "Requirement"]

Operator = Literal[">=", "<=", ">", "<", "=="]
_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}


def _shifts(card: Scorecard) -> float:
    return float(sum(len(axis.shifts) for axis in card.axes))


def _largest(divergence: Divergence) -> float | None:
    largest = divergence.largest
    return None if largest is None else largest.excess


#: Scorecard quantities a requirement may bound.
SCORECARD_QUANTITIES: dict[str, Callable[[Scorecard], float | None]] = {
    "accuracy": lambda c: c.accuracy,
    "accuracy_low": lambda c: c.accuracy_low,
    "accuracy_high": lambda c: c.accuracy_high,
    "baseline_accuracy": lambda c: c.baseline_accuracy,
    "baseline_accuracy_low": lambda c: c.baseline_accuracy_low,
    "baseline_accuracy_high": lambda c: c.baseline_accuracy_high,
    "answered": lambda c: c.answered,
    "spurious_change": lambda c: c.spurious_change,
    "spurious_low": lambda c: c.spurious_low,
    "spurious_high": lambda c: c.spurious_high,
    "missed_change": lambda c: c.missed_change,
    "missed_low": lambda c: c.missed_low,
    "missed_high": lambda c: c.missed_high,
    "invariant_shifts": lambda c: float(c.invariant_shifts),
    "invariant_departures": lambda c: float(c.invariant_departures),
    "shifts": _shifts,
    "failed": lambda c: float(c.failed),
}
#: The scorecard quantity whose reason explains each bound of an interval.
_BASE = {
    "accuracy_low": "accuracy",
    "accuracy_high": "accuracy",
    "baseline_accuracy_low": "baseline_accuracy",
    "baseline_accuracy_high": "baseline_accuracy",
    "spurious_low": "spurious_change",
    "spurious_high": "spurious_change",
    "missed_low": "missed_change",
    "missed_high": "missed_change",
}
#: Divergence quantities: the largest excess over coordinates, and how many are divergent.
DIVERGENCE_QUANTITIES: dict[str, Callable[[Divergence], float | None]] = {
    "divergence": _largest,
    "divergent": lambda d: float(len(d.candidates)),
}


def _card_value(card: Scorecard, quantity: str) -> tuple[float | None, str | None]:
    """A scorecard quantity, or None and why (undefined, or not measured)."""
    reason = card.undefined.get(_BASE.get(quantity, quantity))
    if reason is not None:
        return None, reason
    value = SCORECARD_QUANTITIES[quantity](card)
    if value is None and quantity in _BASE and card.undefined.get(_BASE[quantity]) is None:
        return None, "no interval (resamples = 0, or a single case)"
    return value, None if value is not None else "not measured"


def _divergence_value(divergence: Divergence, quantity: str) -> tuple[float | None, str | None]:
    if divergence.undefined is not None:
        return None, divergence.undefined
    value = DIVERGENCE_QUANTITIES[quantity](divergence)
    if value is not None:
        return value, None
    reasons = [c.insufficient for c in divergence.contrasts if c.insufficient]
    return None, reasons[0] if reasons else "no coordinate was compared"


#: Counts of tests that found something, with the kind of test behind each and whether it
#: counts invariant axes only: a requirement that they found nothing is only as good as the
#: tests' power.
_COUNTS: dict[str, tuple[Literal["shifts", "departures", "boundaries"], bool]] = {
    "invariant_shifts": ("shifts", True),
    "invariant_departures": ("departures", True),
    "shifts": ("shifts", False),
    "divergent": ("boundaries", False),
}


def _design(power: DesignPower) -> str:
    """The design a power figure is for, as a warning names it."""
    tests = "test" if power.family == 1 else f"{power.family} tests under Holm"
    return f"{power.cases} cases, R = {power.repetitions}, {tests}"


_PATTERN = re.compile(
    r"^\s*(?:(?P<group>[^:<>=\s]+)\s*:\s*)?(?P<quantity>[a-z_]+)\s*(?P<op>>=|<=|==|>|<)\s*"
    r"(?P<bound>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$"
)


class Requirement(FrozenModel):
    """A bound on one report quantity, such as ``accuracy>=0.9`` or ``control:accuracy>=0.9``.

    ``group`` limits a scorecard quantity to one case group (``all`` by default). Scorecard
    quantities: accuracy, accuracy_low, accuracy_high, baseline_accuracy (accuracy at the
    baseline coordinate alone) with baseline_accuracy_low and _high, answered,
    spurious_change with spurious_low and spurious_high, missed_change with missed_low and
    missed_high, invariant_shifts,
    invariant_departures (comparisons with the baseline on invariant axes that changed beyond
    noise), shifts, failed. Divergence quantities (each target against the first): divergence (the
    largest excess) and divergent (how many coordinates are candidates). A quantity that is
    undefined (too few read answers, nothing to measure) or could not be measured misses
    every bound, and the violation says why.
    """

    group: str | None = None
    quantity: str
    operator: Operator
    bound: float

    @classmethod
    def parse(cls, text: str) -> Requirement:
        """A requirement from text such as ``control:spurious_change<=0.05``."""
        match = _PATTERN.match(text)
        if match is None:
            raise ReportError(
                f"cannot read requirement {text!r}: write [GROUP:]QUANTITY OP NUMBER, such as "
                "accuracy>=0.9 or control:spurious_change<=0.05"
            )
        quantity = match["quantity"]
        known = [*SCORECARD_QUANTITIES, *DIVERGENCE_QUANTITIES]
        if quantity not in known:
            hint = difflib.get_close_matches(quantity, known, n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise ReportError(
                f"requirement {text!r}: unknown quantity {quantity!r}{extra}; quantities: "
                f"{', '.join(known)}"
            )
        if quantity in DIVERGENCE_QUANTITIES and match["group"] not in (None, "all"):
            raise ReportError(f"requirement {text!r}: divergence quantities take no group")
        return cls(
            group=match["group"],
            quantity=quantity,
            operator=match["op"],
            bound=float(match["bound"]),
        )

    def __str__(self) -> str:
        prefix = f"{self.group}:" if self.group else ""
        return f"{prefix}{self.quantity}{self.operator}{self.bound:g}"

    @property
    def finds_nothing(self) -> bool:
        """Whether the requirement asks a count of findings to be zero (``shifts==0``,
        ``invariant_departures<1``, ...): a claim that rests on the tests' power."""
        if self.quantity not in _COUNTS:
            return False
        return (
            (self.operator == "==" and self.bound == 0)
            or (self.operator == "<=" and self.bound < 1)
            or (self.operator == "<" and self.bound <= 1)
        )

    def weak(self, report: Report, targets: Collection[str] | None = None) -> list[str]:
        """One line for every scorecard or divergence in scope whose tests could not find an
        excess of 0.3 with 80% power, when this requirement asks them to find nothing.

        Such a requirement passes however the target behaves: ``check`` prints these lines
        as warnings, and ``check --strict`` fails on them.
        """
        if not self.finds_nothing:
            return []
        kind, invariant = _COUNTS[self.quantity]
        lines: list[str] = []

        def note(subject: str, power: DesignPower | None) -> None:
            if power is None or not power.weak:
                return
            if power.detectable is None:
                found = f"its tests have no power figure ({power.reason})"
            else:
                found = (
                    f"its tests ({_design(power)}) find only an excess of "
                    f"{power.detectable:.2f} or more with 80% power, above {WANTED:g}"
                )
            more = (
                f"; R = {power.needed} would find {WANTED:g}"
                if power.needed is not None and power.needed > power.repetitions
                else ""
            )
            lines.append(f"{subject}: {self} is weak evidence: {found}{more}")

        if self.quantity in DIVERGENCE_QUANTITIES:
            for divergence in report.divergences:
                if targets is not None and divergence.second not in targets:
                    continue
                tested = [c for c in divergence.contrasts if c.excess is not None]
                if not tested or _divergence_value(divergence, self.quantity)[0] != 0:
                    continue  # a violation, or something found: power is beside the point
                power = family_power(
                    report, kind, cases=min(c.cases for c in tested), family=len(tested)
                )
                note(f"{divergence.second} vs {divergence.first}", power)
            return lines
        group = self.group or "all"
        for card in report.scorecards:
            if card.group != group or (targets is not None and card.target not in targets):
                continue
            if _card_value(card, self.quantity)[0] == 0:
                found = card_power(report, card, kind, invariant=invariant)
                note(f"{card.target} · {group}", found)
        return lines

    def violations(self, report: Report, targets: Collection[str] | None = None) -> list[str]:
        """One line for every scorecard or divergence in scope that misses this requirement.

        ``targets`` limits the requirement to those targets; a divergence belongs to the target
        compared with the first.
        """
        if targets is not None:
            unknown = [t for t in targets if t not in report.targets]
            if unknown:
                raise ReportError(
                    f"unknown targets {unknown}; the report has {list(report.targets)}"
                )
        test = _OPERATORS[self.operator]
        lines: list[str] = []

        def check(subject: str, found: tuple[float | None, str | None]) -> None:
            value, reason = found
            if value is None:
                lines.append(f"{subject}: {self.quantity} is n/a ({reason}), so it misses {self}")
            elif not test(value, self.bound):
                lines.append(f"{subject}: {self.quantity} {value:.4g} misses {self}")

        if self.quantity in DIVERGENCE_QUANTITIES:
            for divergence in report.divergences:
                if targets is None or divergence.second in targets:
                    check(
                        f"{divergence.second} vs {divergence.first}",
                        _divergence_value(divergence, self.quantity),
                    )
            return lines
        group = self.group or "all"
        if group not in report.groups:
            hint = difflib.get_close_matches(group, list(report.groups), n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise ReportError(
                f"requirement {self}: no group {group!r}{extra} in the report; groups: "
                f"{', '.join(report.groups)}"
            )
        for card in report.scorecards:
            if card.group == group and (targets is None or card.target in targets):
                check(f"{card.target} · {group}", _card_value(card, self.quantity))
        return lines
