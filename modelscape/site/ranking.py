"""The leaderboard's ranking rule, and how sure each place is.

The rule, for one group of cases (the Method page states it for readers):

- **Who is ranked.** Models and other targets, never reference targets: an oracle or a random
  answerer is measured by the same protocol and shown as an anchor beside the ranking, but it
  takes no place in it. A target is ranked when its accuracy is defined on at least
  :func:`minimum_scenarios` of the matrix's scenarios (half of them, rounded up); below that it
  is listed, unranked, with the count and the reason.
- **Score.** The mean of its accuracy over the scenarios where that accuracy is defined. A
  scenario it did not run, or where its accuracy is n/a, is left out of the mean (never a 0);
  the count is shown beside the score.
- **Place.** 1 + the number of ranked targets with a higher score (competition ranking: ties
  share the better place).
- **Rank interval.** A case bootstrap (Efron and Tibshirani, 1993, ch. 6), paired: on every
  scenario the same cases are drawn with replacement for every ranked target, each target's
  accuracy there is the mean of its drawn cases' accuracies, its score the mean over its
  scenarios, and its place among the ranked targets is taken again. The interval runs from the
  2.5% to the 97.5% quantile of those places (the smallest place at least that share of
  resamples reach or beat). Cases are the units the package's accuracy intervals resample.
- **Tied.** Two ranked targets whose rank intervals overlap are shown tied: the data do not
  settle their order.

Draws come from ``numpy.random.SeedSequence(SEED)`` spawned into one stream per scenario in
the matrix, in sorted order, each drawing a ``resamples × cases`` array of case indices, so the
same reports always give the same intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from modelscape.site.catalog import Kind

__all__ = [
    "CONFIDENCE",
    "RESAMPLES",
    "SEED",
    "TIE_TOLERANCE",
    "Score",
    "Standing",
    "minimum_scenarios",
    "rank_targets",
]

#: Bootstrap resamples behind each rank interval.
RESAMPLES = 1000
#: The seed of the rank bootstrap: fixed, so a rebuild shows the same intervals.
SEED = 28
#: The rank interval's coverage: from the 2.5% to the 97.5% quantile of the resampled places.
CONFIDENCE = 0.95
#: Two scores closer than this are equal (the same mean reached by sums in another order).
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Score:
    """One target's accuracy on one scenario, and the per-case accuracies behind it (case id
    to the mean metric of that case; empty when the report predates them)."""

    accuracy: float | None
    cases: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Standing:
    """A target's place in one group's ranking.

    ``score`` is its mean accuracy over the ``scenarios`` where its accuracy is defined, of the
    ``ran`` it ran (None when there is none). ``rank`` is its place, and ``low`` and ``high``
    bound it; ``tied`` names the ranked targets whose intervals overlap its own. An unranked
    target (a reference target, or one with too few scenarios) has ``rank`` None and the
    ``reason``; ``interval_reason`` says why a ranked target has no interval.
    """

    model: str
    kind: Kind
    score: float | None
    scenarios: int
    ran: int
    rank: int | None = None
    low: int | None = None
    high: int | None = None
    tied: tuple[str, ...] = ()
    reason: str | None = None
    interval_reason: str | None = None

    @property
    def reference(self) -> bool:
        """Whether the target is an anchor of the reference band rather than a competitor."""
        return self.kind == "reference"


def minimum_scenarios(total: int) -> int:
    """The fewest scenarios with a defined accuracy that a target needs to be ranked: half of
    the matrix's ``total``, rounded up (at least 1)."""
    return max(1, math.ceil(total / 2))


def _places(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Competition places along the last axis: 1 + how many scores are higher (beyond the
    tolerance). Works on one row of scores or on one row per resample.

    Each row is sorted and searched rather than compared pair by pair, so that a thousand
    resamples of hundreds of targets stay a few megabytes.
    """
    rows = np.atleast_2d(scores)
    places = np.empty(rows.shape, dtype=np.int64)
    count = rows.shape[-1]
    for k, row in enumerate(rows):
        ordered = np.sort(row)
        places[k] = 1 + count - np.searchsorted(ordered, row + TIE_TOLERANCE, side="right")
    return places.reshape(scores.shape)


def _quantile_places(places: npt.NDArray[np.int64]) -> tuple[list[int], list[int]]:
    """Each column's 2.5% and 97.5% quantile by the inverted CDF: the smallest place that at
    least that share of resamples reach or beat (always a place some resample took).

    The order statistic is counted in whole numbers (the k-th smallest, k = ceil(share x
    resamples)), since a float share times the count can land just above a whole number and
    pick the next place (numpy's ``inverted_cdf`` does for 0.025 x 200).
    """
    count = places.shape[0]
    tail = (1 - CONFIDENCE) / 2
    first = max(1, math.ceil(round(tail * count, 6)))
    last = max(1, math.ceil(round((1 - tail) * count, 6)))
    ordered = np.sort(places, axis=0)
    return [int(v) for v in ordered[first - 1]], [int(v) for v in ordered[last - 1]]


def _resampled_scores(
    table: Mapping[str, Mapping[str, Score]],
    ranked: Sequence[str],
    scenarios: Sequence[str],
    resamples: int,
    seed: int,
) -> npt.NDArray[np.float64]:
    """Every ranked target's score in every resample (``resamples × targets``)."""
    streams = np.random.SeedSequence(seed).spawn(len(scenarios))
    total = np.zeros((resamples, len(ranked)))
    counted = np.zeros(len(ranked))
    for scenario, stream in zip(scenarios, streams, strict=True):
        row = table.get(scenario, {})
        mine = [(i, row[m]) for i, m in enumerate(ranked) if m in row and _defined(row[m].accuracy)]
        cases = sorted({c for _, score in mine for c in score.cases})
        if not cases:
            continue
        draws = np.random.default_rng(stream).integers(0, len(cases), size=(resamples, len(cases)))
        # How often each case was drawn in each resample.
        counts = np.zeros((resamples, len(cases)))
        np.add.at(counts, (np.arange(resamples)[:, None], draws), 1.0)
        where = {c: k for k, c in enumerate(cases)}
        for i, score in mine:
            values = np.zeros(len(cases))
            present = np.zeros(len(cases))
            for case, value in score.cases.items():
                values[where[case]] = value
                present[where[case]] = 1.0
            weight = counts @ present
            # A resample that drew none of this target's cases keeps its observed accuracy.
            drawn = np.divide(
                counts @ (values * present),
                weight,
                out=np.full(resamples, float(score.accuracy or 0.0)),
                where=weight > 0,
            )
            total[:, i] += drawn
            counted[i] += 1
    scores: npt.NDArray[np.float64] = total / np.maximum(counted, 1)
    return scores


def _defined(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def rank_targets(
    table: Mapping[str, Mapping[str, Score]],
    kinds: Mapping[str, Kind],
    *,
    scenarios: Sequence[str] | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> dict[str, Standing]:
    """Every target's standing, from its scores by scenario and then by target.

    ``kinds`` tells reference targets apart; ``scenarios`` are the matrix's (by default the
    table's), which set the minimum. ``resamples`` = 0 gives places without intervals.
    """
    names = sorted(scenarios if scenarios is not None else table)
    targets = sorted({m for row in table.values() for m in row})
    need = minimum_scenarios(len(names))
    ran = {m: sum(1 for s in names if m in table.get(s, {})) for m in targets}
    defined: dict[str, list[float]] = {m: [] for m in targets}
    for s in names:
        for m, score in table.get(s, {}).items():
            if score.accuracy is not None and _defined(score.accuracy):
                defined[m].append(score.accuracy)
    means = {m: (sum(v) / len(v) if v else None) for m, v in defined.items()}
    result: dict[str, Standing] = {}
    ranked: list[str] = []
    for m in targets:
        kind = kinds.get(m, "other")
        count = len(defined[m])
        base = Standing(m, kind, means[m], count, ran[m])
        if kind == "reference":
            reason = "a reference target: an anchor beside the ranking, not ranked"
        elif count < need:
            reason = f"accuracy defined on {count} of {len(names)} scenarios; ranking needs {need}"
        else:
            ranked.append(m)
            continue
        result[m] = _with(base, reason=reason)
    if not ranked:
        return result
    places = _places(np.array([means[m] or 0.0 for m in ranked]))
    low: list[int | None] = [None] * len(ranked)
    high: list[int | None] = [None] * len(ranked)
    missing = _missing_cases(table, ranked, names)
    if resamples > 0 and missing is None:
        resampled = _places(_resampled_scores(table, ranked, names, resamples, seed))
        found_low, found_high = _quantile_places(resampled)
        low, high = list(found_low), list(found_high)
    interval_reason = "no resamples asked for" if resamples <= 0 else missing if missing else None
    for i, m in enumerate(ranked):
        tied: tuple[str, ...] = ()
        lo, hi = low[i], high[i]
        if lo is not None and hi is not None:
            tied = tuple(
                other
                for j, other in enumerate(ranked)
                if j != i and _overlap((lo, hi), (low[j], high[j]))
            )
        standing = Standing(
            m,
            kinds.get(m, "other"),
            means[m],
            len(defined[m]),
            ran[m],
            rank=int(places[i]),
            low=lo,
            high=hi,
            tied=tied,
            interval_reason=interval_reason,
        )
        result[m] = standing
    return result


def _overlap(first: tuple[int, int], second: tuple[int | None, int | None]) -> bool:
    low, high = second
    if low is None or high is None:
        return False
    return first[0] <= high and low <= first[1]


def _missing_cases(
    table: Mapping[str, Mapping[str, Score]], ranked: Sequence[str], scenarios: Sequence[str]
) -> str | None:
    """Why the rank bootstrap cannot run: a ranked target's defined accuracy without the
    per-case accuracies behind it (a report written before they were kept)."""
    for s in scenarios:
        for m in ranked:
            score = table.get(s, {}).get(m)
            if score is not None and _defined(score.accuracy) and not score.cases:
                return (
                    f"the report of {m!r} on {s!r} has no per-case accuracies (written "
                    "before they were kept); make the report again for rank intervals"
                )
    return None


def _with(standing: Standing, *, reason: str) -> Standing:
    return Standing(
        standing.model,
        standing.kind,
        standing.score,
        standing.scenarios,
        standing.ran,
        reason=reason,
    )
