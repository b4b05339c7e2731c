"""Coverage of the leaderboard's 95% rank intervals, measured by simulation.

The leaderboard (``modelscape.site.ranking``) places each model by its mean accuracy over the
scenarios it ran and bounds the place by a paired case bootstrap. This script plants models
whose true places are known and counts how often the published interval holds them.

Each trial makes ``S`` scenarios of ``C`` cases. A case has a difficulty ``d`` drawn from a
Beta distribution (shared by every model: the cases are the same for all of them, which is
what the paired bootstrap resamples), and model ``m`` answers it correctly with probability
``expit(logit(d) + theta_m)``. Each case's accuracy is read from ``n`` outputs (its
coordinates times repetitions, 30 by default), as a report's per-case accuracy is. The true
score of a model is its expected accuracy over cases like these (a mean over 200,000 drawn
difficulties per scenario's distribution), and its true places are every place its score
could take among the true scores (a range when true scores are equal).

An interval covers when it meets that range. Printed per setting: the coverage over models
and trials with its Monte Carlo standard error, the mean interval length (in places), and the
share of truly different pairs shown tied (the cost of honesty: the interval's width). The
settings were not used to choose anything in the ranking: 3 and 6 models, 1, 4 and 7
scenarios, 6 and 12 cases, ability steps of 0 (all equal), 0.25 and 0.75 on the logit scale,
and two difficulty families (Beta(2, 2) and the skewed Beta(4, 0.5)).

    python benchmarks/rank_coverage.py [--trials 200] [--seed 0] [--quick]

``--quick`` runs 60 trials a setting.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit, logit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from modelscape.site.ranking import Score, rank_targets

FAMILIES = {"Beta(2, 2)": (2.0, 2.0), "Beta(4, 0.5)": (4.0, 0.5)}
OUTPUTS = 30


def true_scores(
    thetas: np.ndarray, family: tuple[float, float], rng: np.random.Generator
) -> np.ndarray:
    """Each model's expected accuracy over the population of cases."""
    population = np.clip(rng.beta(*family, size=200_000), 1e-6, 1 - 1e-6)
    return np.array([expit(logit(population) + t).mean() for t in thetas])


def true_places(scores: np.ndarray) -> list[tuple[int, int]]:
    """Each model's possible places: from 1 + the strictly better to the better-or-equal."""
    tolerance = 1e-4  # true scores closer than this are the same place
    return [
        (
            1 + int(np.sum(scores > s + tolerance)),
            int(np.sum(scores >= s - tolerance)),
        )
        for s in scores
    ]


def trial(
    models: int,
    scenarios: int,
    cases: int,
    step: float,
    family: tuple[float, float],
    truth: np.ndarray,
    rng: np.random.Generator,
) -> tuple[int, int, float, int, int]:
    """(covered, models, total interval length, different pairs shown tied, different pairs)."""
    thetas = step * np.arange(models)
    table: dict[str, dict[str, Score]] = {}
    for s in range(scenarios):
        difficulty = np.clip(rng.beta(*family, size=cases), 1e-6, 1 - 1e-6)
        row = {}
        for m, theta in enumerate(thetas):
            p = expit(logit(difficulty) + theta)
            per_case = rng.binomial(OUTPUTS, p) / OUTPUTS
            row[f"m{m}"] = Score(
                float(per_case.mean()), {f"c{c}": float(v) for c, v in enumerate(per_case)}
            )
        table[f"s{s}"] = row
    standing = rank_targets(table, {f"m{m}": "model" for m in range(models)})
    places = true_places(truth)
    covered = 0
    length = 0.0
    for m in range(models):
        found = standing[f"m{m}"]
        assert found.low is not None
        assert found.high is not None
        low, high = places[m]
        covered += int(found.low <= high and low <= found.high)
        length += found.high - found.low + 1
    tied = different = 0
    for a, b in itertools.combinations(range(models), 2):
        if places[a] != places[b]:
            different += 1
            tied += int(f"m{b}" in standing[f"m{a}"].tied)
    return covered, models, length, tied, different


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    trials = 60 if options.quick else options.trials
    rng = np.random.default_rng(options.seed)
    started = time.perf_counter()
    header = (
        f"{'family':<13}{'models':>7}{'scen.':>6}{'cases':>6}{'step':>6}"
        f"{'coverage':>10}{'± se':>7}{'length':>8}{'tied of different':>19}"
    )
    print(f"rank interval coverage, {trials} trials a setting, {OUTPUTS} outputs a case")
    print(header)
    worst = 1.0
    for name, family in FAMILIES.items():
        for models, scenarios, cases, step in itertools.product(
            (3, 6), (1, 4, 7), (6, 12), (0.0, 0.25, 0.75)
        ):
            truth = true_scores(step * np.arange(models), family, rng)
            totals = np.zeros(5)
            for _ in range(trials):
                totals += trial(models, scenarios, cases, step, family, truth, rng)
            covered, count, length, tied, different = totals
            share = covered / count
            se = np.sqrt(share * (1 - share) / count)
            worst = min(worst, share)
            tied_text = f"{tied / different:.2f}" if different else "n/a (all equal)"
            print(
                f"{name:<13}{models:>7}{scenarios:>6}{cases:>6}{step:>6.2f}"
                f"{share:>10.3f}{se:>7.3f}{length / count:>8.2f}{tied_text:>19}"
            )
    print(f"lowest coverage: {worst:.3f}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
