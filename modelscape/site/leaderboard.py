"""The leaderboard's matrix: one row per target, one column group per scenario, and a ranking.

A :class:`Matrix` arranges the catalog's most recent scorecards of one group of cases (``all``
of them, or a group a scenario names) by target and scenario, and ranks them by the rule of
:mod:`modelscape.site.ranking`: models only (reference targets form a band of anchors beside
the ranking), by mean accuracy over the scenarios where it is defined, with a rank interval
from a paired case bootstrap and ties where the intervals overlap.

Each target's **mean win rate** on accuracy is kept beside it, as the downloads give it:

- on one scenario, among the targets whose accuracy is defined there, a target's win rate is
  the share of the *other* targets it beats, a tie counting as half a win;
- a target's mean win rate is the mean of its win rates over the scenarios where it has one
  (its accuracy is defined, and at least one other target's is too).

This is HELM's aggregate (Liang et al., 2022, "Holistic Evaluation of Language Models",
section 4.2), with ties split as in a rank sum: on one scenario it equals
``(rank - 1) / (n - 1)`` with average ranks of the ``n`` defined values, counted from the
lowest. It no longer orders the rows: it ignores the intervals and how many scenarios a
target ran.

The module holds the data and its definitions; :mod:`modelscape.site.views` turns them into
table rows and :mod:`modelscape.site.exports` into the CSV and JSON downloads.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from modelscape.site.catalog import ALL, Catalog, Entry, Kind
from modelscape.site.ranking import TIE_TOLERANCE, Score, Standing, rank_targets

__all__ = [
    "HEAT_BINS",
    "QUANTITIES",
    "Matrix",
    "Quantity",
    "Ranked",
    "WinRate",
    "heat",
    "win_rates",
]

#: How many colour steps the accuracy scale has (``heat-0`` .. ``heat-9`` in site.css).
HEAT_BINS = 10


@dataclass(frozen=True)
class Quantity:
    """One number of a scorecard as the leaderboard shows and exports it.

    ``key`` names it in the page's cells and in the downloads; ``unit`` says what its values
    are; ``headline`` marks the one the matrix shows by default and ranks by.
    """

    key: str
    label: str
    unit: str
    description: str
    headline: bool = False


#: The quantities of a scorecard, in the order the matrix and the downloads give them.
QUANTITIES: tuple[Quantity, ...] = (
    Quantity(
        "accuracy",
        "Accuracy",
        "share of correct answers, 0 to 1",
        "mean of the correct-answer metric over every variant, cases weighted equally",
        headline=True,
    ),
    Quantity(
        "baseline",
        "At baseline",
        "share of correct answers, 0 to 1",
        "accuracy at the baseline prompt of each case alone",
    ),
    Quantity(
        "spurious",
        "Spurious change",
        "excess answer change, about -1 to 1 (ideally 0)",
        "answer change beyond run-to-run noise on steps where the correct answer stays",
    ),
    Quantity(
        "missed",
        "Missed change",
        "share of answers, 0 to 1 (ideally 0)",
        "share of answers that stay where the correct answer changes",
    ),
    Quantity(
        "shifts",
        "Invariant shifts",
        "count of steps",
        "steps on axes that should not matter where answers changed beyond noise",
    ),
    Quantity(
        "departures",
        "Invariant departures",
        "count of comparisons",
        "values of axes that should not matter whose answers moved away from the baseline's "
        "beyond noise (a slow drift shows here even when no single step does)",
    ),
    Quantity(
        "answered",
        "Answered",
        "share of outputs, 0 to 1",
        "share of outputs from which an answer could be read",
    ),
)


def heat(value: float | None) -> int | None:
    """The colour step of a share between 0 and 1 (0.0-0.1 is step 0, 0.9-1.0 step 9)."""
    if value is None or not math.isfinite(value):
        return None
    clipped = min(max(value, 0.0), 1.0)
    return min(int(clipped * HEAT_BINS), HEAT_BINS - 1)


@dataclass(frozen=True)
class WinRate:
    """A target's mean win rate: its value (None: n/a), the scenarios it averages, and why it
    is n/a when it is."""

    value: float | None
    scenarios: int
    reason: str | None = None


def _beats(value: float, other: float) -> float:
    """One comparison of a win rate: 1 for a win, 0.5 for a tie, 0 for a loss."""
    if abs(value - other) <= TIE_TOLERANCE:
        return 0.5
    return 1.0 if value > other else 0.0


def scenario_win_rates(values: Mapping[str, float]) -> dict[str, float]:
    """Each target's share of the other targets it beats on one scenario (ties: half).

    ``values`` holds the defined accuracies only; with fewer than two there is nobody to beat
    and the result is empty.
    """
    if len(values) < 2:
        return {}
    others = len(values) - 1
    return {
        model: sum(_beats(value, v) for m, v in values.items() if m != model) / others
        for model, value in values.items()
    }


def win_rates(values: Mapping[str, Mapping[str, float | None]]) -> dict[str, WinRate]:
    """Every target's mean win rate, from its accuracies by scenario and then by target.

    A target with no scenario where it has a win rate is n/a: its accuracy was never defined,
    or no other target's was on the scenarios it ran.
    """
    earned: dict[str, list[float]] = {}
    for by_model in values.values():
        defined = {m: v for m, v in by_model.items() if v is not None and math.isfinite(v)}
        for model, rate in scenario_win_rates(defined).items():
            earned.setdefault(model, []).append(rate)
    models = {m for by_model in values.values() for m in by_model}
    result = {}
    for model in sorted(models):
        rates = earned.get(model, [])
        if rates:
            result[model] = WinRate(sum(rates) / len(rates), len(rates))
        else:
            result[model] = WinRate(
                None, 0, "no scenario where its accuracy and another target's are defined"
            )
    return result


@dataclass(frozen=True)
class Ranked:
    """One row of the matrix: a target, its kind, its entries by scenario, its standing in
    the ranking (place, interval, ties, or why it has none) and its mean win rate."""

    model: str
    kind: Kind
    entries: dict[str, Entry]
    win_rate: WinRate
    standing: Standing

    @property
    def rank(self) -> int | None:
        """Its place in the ranking (None: a reference target, or unranked)."""
        return self.standing.rank


@dataclass(frozen=True)
class Matrix:
    """The most recent scorecards of one group of cases, by target and scenario, ranked.

    ``scenarios`` are the scenarios that have the group, sorted; ``rows`` are the ranked
    targets by place (then name), then the unranked ones, then the reference band, each of
    the last two by mean accuracy, highest first (n/a last).
    """

    group: str
    scenarios: tuple[str, ...]
    rows: tuple[Ranked, ...]
    #: Each scenario's win rates, made when first asked for (a model page asks for each).
    _win_rates: dict[str, dict[str, float]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    @classmethod
    def of(cls, catalog: Catalog, group: str = ALL) -> Matrix:
        """The matrix of one group of cases, from the catalog's most recent runs (ranked once
        per catalog: every model page shows it)."""
        return catalog.memo(("matrix", group), lambda: cls._ranked(catalog, group))

    @classmethod
    def _ranked(cls, catalog: Catalog, group: str) -> Matrix:
        entries = catalog.leaderboard(group)
        scenarios = tuple(sorted({e.run.scenario for e in entries}))
        by_model: dict[str, dict[str, Entry]] = {}
        for entry in entries:
            by_model.setdefault(entry.headline.target, {})[entry.run.scenario] = entry
        accuracies = {
            scenario: {
                model: row[scenario].headline.accuracy
                for model, row in by_model.items()
                if scenario in row
            }
            for scenario in scenarios
        }
        rates = win_rates(accuracies)
        table = {
            scenario: {
                model: Score(row[scenario].headline.accuracy, row[scenario].headline.case_accuracy)
                for model, row in by_model.items()
                if scenario in row
            }
            for scenario in scenarios
        }
        kinds = {model: next(iter(row.values())).headline.kind for model, row in by_model.items()}
        standings = rank_targets(table, kinds, scenarios=scenarios)
        rows = [
            Ranked(model, kinds[model], by_model[model], rates[model], standings[model])
            for model in by_model
        ]
        rows.sort(key=_row_order)
        return cls(group, scenarios, tuple(rows))

    def win_rate_on(self, scenario: str) -> dict[str, float]:
        """Every target's win rate on one scenario (targets with defined accuracy only)."""
        found = self._win_rates.get(scenario)
        if found is None:
            found = self._win_rates[scenario] = self._win_rate_on(scenario)
        return dict(found)

    def _win_rate_on(self, scenario: str) -> dict[str, float]:
        values = {
            row.model: row.entries[scenario].headline.accuracy
            for row in self.rows
            if scenario in row.entries
        }
        return scenario_win_rates(
            {m: v for m, v in values.items() if v is not None and math.isfinite(v)}
        )


def _row_order(row: Ranked) -> tuple[int, int, float, str]:
    """Ranked targets by place (names breaking ties: targets that share a place share it
    whatever their scores' last digits), then unranked ones, then the reference band (by
    score)."""
    standing = row.standing
    if standing.rank is not None:
        return (0, standing.rank, 0.0, row.model)
    band = 2 if standing.reference else 1
    score = -standing.score if standing.score is not None else math.inf
    return (band, 0, score, row.model)
