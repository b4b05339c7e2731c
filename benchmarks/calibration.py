"""Calibration of the boundary rule by simulation: false boundaries under the null, and power.

Each simulated experiment is one profile: ``--transitions`` transitions over ``--cases`` cases
with R outputs per coordinate, yes/no answers compared with the 0/1 measure, each case with
its own yes-probability. Under the null every transition leaves the probabilities alone; the
family-wise rate of false boundaries (any Holm-adjusted p ≤ alpha) must stay within
alpha + 3 Monte-Carlo standard errors. Power plants one transition that shifts every case's
yes-probability by each of ``--shifts`` and counts how often that transition is found.

    python benchmarks/calibration.py [--experiments 2000] [--transitions 5] [--cases 10]
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np

from modelscape.stats import (
    BoundaryCriterion,
    Comparison,
    Inference,
    StatisticsWarning,
    compare_many,
    holm,
)


def simulate_profile(
    rng: np.random.Generator,
    *,
    transitions: int,
    cases: int,
    repetitions: int,
    shift: float,
    planted: int | None,
) -> list[tuple[str, list[tuple[np.ndarray, int]]]]:
    """One profile of yes/no answers; transition ``planted`` (if any) moves by ``shift``."""
    base = rng.uniform(0.2, 0.8, size=cases)
    items = []
    for transition in range(transitions):
        after = np.clip(base + (shift if transition == planted else 0.0), 0.0, 1.0)
        a = rng.random((cases, repetitions)) < base[:, None]
        b = rng.random((cases, repetitions)) < after[:, None]
        answers = np.concatenate([a, b], axis=1)
        matrices = (answers[:, :, None] != answers[:, None, :]).astype(np.float64)
        items.append((f"step {transition}", [(m, repetitions) for m in matrices]))
    return items


def boundaries(comparisons: list[Comparison], criterion: BoundaryCriterion) -> list[bool]:
    adjusted = holm([comparison.p_value for comparison in comparisons])
    return [
        criterion.selects(p, comparison.excess)
        for p, comparison in zip(adjusted, comparisons, strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=2000)
    parser.add_argument("--transitions", type=int, default=5)
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument(
        "--shifts", type=float, nargs="+", default=[0.3, 0.5], help="planted probability shifts"
    )
    parser.add_argument("--alpha", type=float, default=0.05)
    arguments = parser.parse_args()

    criterion = BoundaryCriterion(alpha=arguments.alpha)
    # Enough permutations for Holm over the profile: P + 1 >= 20·m/alpha.
    permutations = math.ceil(20 * arguments.transitions / arguments.alpha) - 1
    inference = Inference(permutations=permutations, resamples=0)
    experiments = arguments.experiments
    limit = arguments.alpha + 3 * math.sqrt(arguments.alpha * (1 - arguments.alpha) / experiments)
    print(
        f"{experiments} simulated profiles of {arguments.transitions} transitions x "
        f"{arguments.cases} cases; {permutations} permutations; alpha = {arguments.alpha}"
    )
    start = time.perf_counter()
    for repetitions in (2, 5):
        rng = np.random.default_rng(repetitions)
        false_families = 0
        single_rejections = 0
        found = dict.fromkeys(arguments.shifts, 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StatisticsWarning)
            for experiment in range(experiments):
                common = {
                    "transitions": arguments.transitions,
                    "cases": arguments.cases,
                    "repetitions": repetitions,
                }
                null = simulate_profile(rng, shift=0.0, planted=None, **common)
                seeded = inference.model_copy(update={"seed": experiment})
                results = compare_many(null, inference=seeded)
                false_families += any(boundaries(results, criterion))
                single_rejections += sum(
                    c.p_value is not None and c.p_value <= arguments.alpha for c in results
                )
                for shift in arguments.shifts:
                    planted = simulate_profile(rng, shift=shift, planted=0, **common)
                    found[shift] += boundaries(compare_many(planted, inference=seeded), criterion)[
                        0
                    ]
        family_rate = false_families / experiments
        single_rate = single_rejections / (experiments * arguments.transitions)
        verdict = "ok" if family_rate <= limit else "TOO HIGH"
        print(
            f"R={repetitions}: family-wise false-boundary rate {family_rate:.4f} "
            f"(limit alpha + 3 SE = {limit:.4f}: {verdict}); "
            f"per-test P(p <= alpha) = {single_rate:.4f}"
        )
        for shift, count in found.items():
            print(f"  power, one transition shifted by {shift}: {count / experiments:.3f}")
    print(f"elapsed {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
