"""Read answers, and when a scorecard quantity has too few of them to mean anything.

A quantity built on comparing answers (spurious and missed change, shifts, thresholds) is
*undefined* when too few answers could be read: ``None`` with a reason, never a number that
looks perfect. Two minimums, both chosen by simulation (``benchmarks/coverage.py``;
docs/design/007-honest-numbers.md), decide it:

- the answered share of the target on the group: "no answer" is an answer of its own, so a
  change of answers in the read share s shows in the excess at s² of its size. At
  :data:`MIN_ANSWERED` (70%) that is half its size (0.49), and the permutation test finds a
  planted shift of 0.3 less than half as often as with every answer read (27% against 61%,
  at 12 cases and 5 repetitions); below it, less still, and the quantity would say more
  about losing answers than about changing them;
- the cases with at least two read answers on both sides of a step the quantity uses: below
  :data:`MIN_READ_CASES` (the fewest cases at which the intervals held their coverage in
  every simulated setting) an estimate rests on too few cases to carry an interval.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue
from modelscape.answers import Answer
from modelscape.records.run import CoordinateKey, IndexedRun
from modelscape.stats.smoothed import CASES_FOR_COVERAGE

__all__ = ["MIN_ANSWERED", "MIN_READ_CASES", "Readable", "answered_shortfall", "case_shortfall"]

#: Smallest answered share at which answer-change quantities are reported.
MIN_ANSWERED = 0.7
#: Fewest cases with two read answers on both sides of a step that a quantity needs.
MIN_READ_CASES = CASES_FOR_COVERAGE


class Readable:
    """How many outputs of each cell of one target had an answer that could be read.

    Read from the ``answered`` metric when the run has one, else by the answer reader; with
    neither, every successful output counts as read (nothing says otherwise).
    """

    def __init__(
        self, results: IndexedRun, target: str, answered: str | None, answer: Answer | None
    ) -> None:
        self.results = results
        self.target = target
        self.answered = answered
        self.answer = answer
        self._counts: dict[tuple[str, CoordinateKey], int] = {}
        self._every: dict[CoordinateKey, NDArray[np.int64]] = {}
        self._position = {case: index for index, case in enumerate(results.cases)}

    def count(self, case: str, coordinate: Mapping[str, AxisValue]) -> int:
        """The read outputs of one cell."""
        coordinate_key = self.results.key(coordinate)
        key = (case, coordinate_key)
        found = self._counts.get(key)
        if found is None:
            if self.answered is not None:
                values, _ = self.results.cell_points(
                    self.answered, self.target, case, coordinate_key
                )
                found = sum(1 for value in values if value >= 0.5)
            else:
                outputs = self.results.outputs(self.target, case, coordinate_key)
                reader = self.answer
                found = (
                    len(outputs)
                    if reader is None
                    else sum(1 for o in outputs if reader(o.output) is not None)
                )
            self._counts[key] = found
        return found

    def flags(self, case: str, coordinate: Mapping[str, AxisValue]) -> NDArray[np.bool_]:
        """Whether each successful output of one cell had a read answer, by repetition (the
        order of the cell's rows in a distance matrix), counted as :meth:`count` counts."""
        key = self.results.key(coordinate)
        rows = self.results.rows(self.target, case, key)
        if self.answered is not None:
            at = self.results.point_rows(self.answered)
            if at is None:
                return np.zeros(len(rows), dtype=np.bool_)
            found = at[rows]
            present = found >= 0
            columns = self.results.point_columns
            safe = np.maximum(found, 0)
            read: NDArray[np.bool_] = (
                present & columns.has_value[safe] & (columns.values[safe] >= 0.5)
            )
            return read
        reader = self.answer
        if reader is None:
            return np.ones(len(rows), dtype=np.bool_)
        outputs = self.results.outputs(self.target, case, key)
        return np.asarray([reader(o.output) is not None for o in outputs], dtype=np.bool_)

    def both_sides(
        self, case: str, first: Mapping[str, AxisValue], second: Mapping[str, AxisValue]
    ) -> bool:
        """Whether a case has at least two read answers on each side of a step."""
        return self.count(case, first) >= 2 and self.count(case, second) >= 2

    def counts(
        self, cases: Sequence[str], coordinate: Mapping[str, AxisValue]
    ) -> NDArray[np.int64]:
        """The read outputs of many cases' cells at one coordinate (see :meth:`count`).

        With an answered metric, every case of the run is counted at once, from the columns.
        """
        if self.answered is None or any(case not in self._position for case in cases):
            return np.asarray([self.count(case, coordinate) for case in cases], dtype=np.int64)
        key = self.results.key(coordinate)
        every = self._every.get(key)
        if every is None:
            everyone = self.results.cases
            lengths, values, _ = self.results.case_points(
                self.answered, self.target, everyone, (key,)
            )
            owner = np.repeat(np.arange(len(everyone)), lengths)
            every = np.bincount(owner, weights=values >= 0.5, minlength=len(everyone))
            every = self._every[key] = every.astype(np.int64)
        return every[[self._position[case] for case in cases]]

    def all_sides(
        self, cases: Sequence[str], first: Mapping[str, AxisValue], second: Mapping[str, AxisValue]
    ) -> list[bool]:
        """:meth:`both_sides` of many cases at once."""
        both = (self.counts(cases, first) >= 2) & (self.counts(cases, second) >= 2)
        result: list[bool] = both.tolist()
        return result


def answered_shortfall(share: float | None) -> str | None:
    """Why an answered share is too small for answer-change quantities, or None."""
    if share is None or share >= MIN_ANSWERED:
        return None
    return f"answered {share:.0%}: too few read answers (needs {MIN_ANSWERED:.0%})"


def case_shortfall(cases: Iterable[str], where: str) -> str | None:
    """Why the cases with two read answers on both sides of a step are too few, or None.

    ``where`` says which steps were looked at, such as "a step that keeps the correct answer".
    """
    count = len(set(cases))
    if count >= MIN_READ_CASES:
        return None
    found = "no case" if count == 0 else f"only {count} case{'s' if count != 1 else ''}"
    return f"{found} with two read answers on both sides of {where} (needs {MIN_READ_CASES})"


def first_reason(*reasons: str | None) -> str | None:
    """The first of several possible reasons that applies."""
    return next((reason for reason in reasons if reason is not None), None)


def joined(reasons: Sequence[tuple[str, str]]) -> str | None:
    """Reasons of several axes as one, each named: ``tone: answered 6%: ...; mode: ...``."""
    if not reasons:
        return None
    texts = list(dict.fromkeys(reason for _, reason in reasons))
    if len(texts) == 1:
        return texts[0]
    return "; ".join(f"{axis}: {reason}" for axis, reason in reasons)
