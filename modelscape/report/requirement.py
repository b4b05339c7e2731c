"""Requirements: bounds on report quantities that gate a CI job, such as ``accuracy>=0.9``."""

from __future__ import annotations

import difflib
import operator
import re
from collections.abc import Callable, Collection
from typing import Literal

from modelscape._model import FrozenModel
from modelscape.analysis.records import Divergence, Scorecard
from modelscape.errors import ReportError
from modelscape.report.report import Report

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


#: Scorecard quantities a requirement may bound.
SCORECARD_QUANTITIES: dict[str, Callable[[Scorecard], float | None]] = {
    "accuracy": lambda c: c.accuracy,
    "accuracy_low": lambda c: c.accuracy_low,
    "accuracy_high": lambda c: c.accuracy_high,
    "answered": lambda c: c.answered,
    "spurious_change": lambda c: c.spurious_change,
    "missed_change": lambda c: c.missed_change,
    "invariant_shifts": lambda c: float(c.invariant_shifts),
    "shifts": _shifts,
    "failed": lambda c: float(c.failed),
}
#: Divergence quantities: the largest excess over coordinates, and how many are divergent.
DIVERGENCE_QUANTITIES: dict[str, Callable[[Divergence], float | None]] = {
    "divergence": lambda d: max((c.excess for c in d.contrasts), default=0.0),
    "divergent": lambda d: float(len(d.candidates)),
}
_PATTERN = re.compile(
    r"^\s*(?:(?P<group>[^:<>=\s]+)\s*:\s*)?(?P<quantity>[a-z_]+)\s*(?P<op>>=|<=|==|>|<)\s*"
    r"(?P<bound>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$"
)


class Requirement(FrozenModel):
    """A bound on one report quantity, such as ``accuracy>=0.9`` or ``control:accuracy>=0.9``.

    ``group`` limits a scorecard quantity to one case group (``all`` by default). Scorecard
    quantities: accuracy, accuracy_low, accuracy_high, answered, spurious_change, missed_change,
    invariant_shifts, shifts, failed. Divergence quantities (each target against the first):
    divergence (the largest excess) and divergent (how many coordinates are candidates).
    A quantity that could not be measured misses every bound.
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

        def check(subject: str, value: float | None) -> None:
            if value is None:
                lines.append(f"{subject}: {self.quantity} could not be measured ({self})")
            elif not test(value, self.bound):
                lines.append(f"{subject}: {self.quantity} {value:.4g} misses {self}")

        if self.quantity in DIVERGENCE_QUANTITIES:
            read = DIVERGENCE_QUANTITIES[self.quantity]
            for divergence in report.divergences:
                if targets is None or divergence.second in targets:
                    check(f"{divergence.second} vs {divergence.first}", read(divergence))
            return lines
        group = self.group or "all"
        if group not in report.groups:
            hint = difflib.get_close_matches(group, list(report.groups), n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise ReportError(
                f"requirement {self}: no group {group!r}{extra} in the report; groups: "
                f"{', '.join(report.groups)}"
            )
        read_card = SCORECARD_QUANTITIES[self.quantity]
        for card in report.scorecards:
            if card.group == group and (targets is None or card.target in targets):
                check(f"{card.target} · {group}", read_card(card))
        return lines
