"""Spurious and missed change over the steps of a scorecard, with what they rest on.

A step is a comparison of two coordinates along one axis (adjacent values, or the baseline and
another value on a nominal axis). For each case and step, the correct answer either stays (any
change of answers beyond run-to-run noise is *spurious*) or moves (an answer that stays is a
*missed* change). A :class:`Tally` collects both over any set of steps, together with the
cases that had two read answers on both sides, which decide whether the result is defined.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from modelscape.analysis.cells import Prepared
from modelscape.analysis.common import quiet_caveats
from modelscape.analysis.readable import Readable, case_shortfall, first_reason
from modelscape.errors import AnalysisError
from modelscape.records.grid import Rows
from modelscape.records.run import IndexedRun
from modelscape.stats import Inference, cluster_mean, random_stream, smoothed_interval
from modelscape.stats.cases import StackedCases, group_cases
from modelscape.stats.excess import FloatArray, IndexArray
from modelscape.stats.floored import floored_ratio
from modelscape.task.coordinate import Coordinate, same_value

__all__ = ["Missed", "Spurious", "Tally"]

#: Why spurious or missed change has nothing to measure, whatever the outputs.
NO_KEPT = "no step keeps the correct answer"
NO_MOVED = "no step changes the correct answer"


@dataclass(frozen=True)
class Spurious:
    """A spurious change with its interval, or None and why."""

    value: float | None
    low: float | None = None
    high: float | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Missed:
    """A missed change with its interval, or None and why."""

    value: float | None
    low: float | None = None
    high: float | None = None
    reason: str | None = None


@dataclass
class Tally:
    """Spurious and missed change over some steps of one target."""

    #: Spurious units (one case's distance matrix over one step that keeps the answer) as
    #: stacks of one size: (positions among the units, n_a, stack), for :class:`StackedCases`.
    blocks: list[tuple[IndexArray, int, FloatArray]] = field(default_factory=list)
    units: int = 0
    #: The case of each unit, and its excess change.
    clusters: list[str] = field(default_factory=list)
    excess: list[float] = field(default_factory=list)
    #: Measurement ids as parts: point rows, or text when read cell by cell (see IdRows).
    spurious_ids: list[Rows | Sequence[str]] = field(default_factory=list)
    #: Cross pairs of read answers that stayed, of all cross pairs of read answers, where
    #: the correct answer moves (two unreadable outputs are no answer that stayed); and the
    #: same two counts per case, which the interval resamples.
    missed_same: int = 0
    missed_total: int = 0
    missed_cases: dict[str, list[int]] = field(default_factory=dict)
    missed_ids: list[Rows | Sequence[str]] = field(default_factory=list)
    #: (case, step) pairs that keep or move the correct answer, outputs or not.
    kept_pairs: int = 0
    moved_pairs: int = 0
    #: Cases with two read answers on both sides of a step that keeps or moves the answer.
    kept_read: set[str] = field(default_factory=set)
    moved_read: set[str] = field(default_factory=set)

    def add_step(
        self,
        records: IndexedRun,
        readable: Readable,
        cases: tuple[str, ...],
        first: Coordinate,
        second: Coordinate,
        found: Prepared,
    ) -> None:
        """Count one step over the chosen cases, with its prepared matrices."""
        # Every case's correct answers and read counts at once, then one pass over the cases.
        kept_of = {
            case: same_value(before, after)
            for case, before, after in zip(
                cases,
                records.references(cases, first),
                records.references(cases, second),
                strict=True,
            )
        }
        kept_count = sum(kept_of.values())
        self.kept_pairs += kept_count
        self.moved_pairs += len(cases) - kept_count
        for case, read in zip(cases, readable.all_sides(cases, first, second), strict=True):
            if read:
                (self.kept_read if kept_of[case] else self.moved_read).add(case)
        excess = (found.between - found.within).tolist()
        flags = [
            kept_of[case]
            if case in kept_of
            else same_value(records.reference(case, first), records.reference(case, second))
            for case in found.cases
        ]
        # The cases that keep the answer, in order, as units of spurious change: each block
        # of the prepared stacks keeps its rows of those cases, numbered after the units so far.
        kept = [index for index, flag in enumerate(flags) if flag]
        numbers = np.cumsum(flags, dtype=np.intp) - 1 + self.units
        chosen = np.asarray(flags, dtype=np.bool_)
        for members, n_a, stack in found.blocks:
            mine = chosen[members]
            if mine.any():
                self.blocks.append((numbers[members[mine]], n_a, stack[mine]))
        self.units += len(kept)
        self.clusters.extend(found.cases[i] for i in kept)
        self.excess.extend(excess[i] for i in kept)
        rows = found.id_rows(chosen)
        self.spurious_ids.append(
            rows if rows is not None else list(chain.from_iterable(found.ids[i] for i in kept))
        )
        for index, flag in enumerate(flags):
            if not flag:
                self._add_missed(readable, found, index, first, second)
        if len(kept) < len(flags):
            rows = found.id_rows(~chosen)
            self.missed_ids.append(
                rows
                if rows is not None
                else [i for index in np.flatnonzero(~chosen).tolist() for i in found.ids[index]]
            )

    def _add_missed(
        self,
        readable: Readable,
        found: Prepared,
        index: int,
        first: Coordinate,
        second: Coordinate,
    ) -> None:
        """Count one case's cross pairs of read answers over a step that moves the answer."""
        case = found.cases[index]
        matrix, n_a = found.matrices[index], found.sizes[index]
        read_a, read_b = readable.flags(case, first), readable.flags(case, second)
        if len(read_a) != n_a or len(read_b) != matrix.shape[0] - n_a:
            raise AnalysisError(
                f"internal: case {case!r} has {matrix.shape[0]} outputs in its distance matrix "
                f"but {len(read_a) + len(read_b)} in its cells; rebuild the run's records"
            )
        both = read_a[:, None] & read_b[None, :]
        same = int(np.count_nonzero((matrix[:n_a, n_a:] == 0) & both))
        total = int(np.count_nonzero(both))
        self.missed_same += same
        self.missed_total += total
        if total:
            counts = self.missed_cases.setdefault(case, [0, 0])
            counts[0] += same
            counts[1] += total

    def merge(self, other: Tally) -> None:
        """Add another tally's steps to this one."""
        self.blocks.extend(
            (positions + self.units, n_a, stack) for positions, n_a, stack in other.blocks
        )
        self.units += other.units
        self.clusters.extend(other.clusters)
        self.excess.extend(other.excess)
        self.spurious_ids.extend(other.spurious_ids)
        self.missed_same += other.missed_same
        self.missed_total += other.missed_total
        for case, (same, total) in other.missed_cases.items():
            counts = self.missed_cases.setdefault(case, [0, 0])
            counts[0] += same
            counts[1] += total
        self.missed_ids.extend(other.missed_ids)
        self.kept_pairs += other.kept_pairs
        self.moved_pairs += other.moved_pairs
        self.kept_read |= other.kept_read
        self.moved_read |= other.moved_read

    # -- results ---------------------------------------------------------------------------
    def spurious_reason(self, answered: str | None) -> str | None:
        """Why spurious change is undefined here, or None."""
        return first_reason(
            NO_KEPT if self.kept_pairs == 0 else None,
            answered,
            case_shortfall(self.kept_read, "a step that keeps the correct answer"),
        )

    def missed_reason(self, answered: str | None) -> str | None:
        """Why missed change is undefined here, or None."""
        return first_reason(
            NO_MOVED if self.moved_pairs == 0 else None,
            answered,
            case_shortfall(self.moved_read, "a step that changes the correct answer"),
        )

    def shifts_reason(self, answered: str | None) -> str | None:
        """Why a count of shifts over these steps is undefined, or None."""
        return first_reason(
            answered, case_shortfall(self.kept_read | self.moved_read, "a step of this axis")
        )

    def missed(self, answered: str | None, inference: Inference, key: str, where: str) -> Missed:
        """The missed change with its interval, or None and why.

        The share pools the cross pairs of read answers of every case; its interval resamples
        cases (their pairs together) and is floored at the t interval
        (:func:`~modelscape.stats.floored.floored_ratio`); ``inference.interval`` "bca" or
        "percentile" resample cases alone.
        """
        reason = self.missed_reason(answered)
        if reason is not None or self.missed_total == 0:
            reason = reason or case_shortfall((), "a step that changes the correct answer")
            return Missed(None, reason=reason)
        value = self.missed_same / self.missed_total
        if inference.resamples == 0:
            return Missed(value)
        counts = np.asarray(list(self.missed_cases.values()), dtype=np.float64)
        rng = random_stream(inference, key, "bootstrap")
        with quiet_caveats():
            if inference.interval == "smoothed":
                interval = floored_ratio(
                    counts[:, 0],
                    counts[:, 1],
                    resamples=inference.resamples,
                    confidence=inference.confidence,
                    rng=rng,
                    bounds=(0.0, 1.0),
                    where=where,
                )
            else:
                interval = floored_ratio(
                    counts[:, 0],
                    counts[:, 1],
                    resamples=inference.resamples,
                    confidence=inference.confidence,
                    method=inference.mean_interval,
                    rng=rng,
                    floor=False,
                    where=where,
                )
        return Missed(value, interval.low, interval.high)

    def spurious(
        self, answered: str | None, inference: Inference, key: str, where: str
    ) -> Spurious:
        """The spurious change with its interval (units clustered by case), or None and why.

        The interval is the smoothed one of the excess change over (case, step) units, or a
        case bootstrap of the units' mean, as ``inference.interval`` says.
        """
        reason = self.spurious_reason(answered)
        if reason is not None or self.units == 0:
            reason = reason or case_shortfall((), "a step that keeps the correct answer")
            return Spurious(None, reason=reason)
        value = float(np.mean(self.excess))
        if inference.resamples == 0:
            return Spurious(value)
        rng = random_stream(inference, key, "bootstrap")
        with quiet_caveats():
            if inference.interval == "smoothed":
                interval = smoothed_interval(
                    group_cases(StackedCases(self.blocks, self.units), key=key),
                    self.units,
                    clusters=self.clusters,
                    resamples=inference.resamples,
                    confidence=inference.confidence,
                    rng=rng,
                    where=where,
                )
            else:
                interval = cluster_mean(
                    self.excess,
                    self.clusters,
                    resamples=inference.resamples,
                    confidence=inference.confidence,
                    method=inference.mean_interval,
                    rng=rng,
                    where=where,
                )
        return Spurious(value, interval.low, interval.high)
