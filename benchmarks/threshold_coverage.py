"""Coverage of the threshold offset's 95% interval, measured by simulation.

A threshold (``modelscape.analysis.threshold``) is read per case where the isotonic fit of the
share of answers that take the flipped value crosses one half, and the published ``offset`` is
the mean over crossing cases of (observed − expected), with the interval every mean over cases
gets (``analysis.common.mean_interval``: the case bootstrap floored by Student's t). This
script feeds that code planted cases and counts how often the interval holds the truth.

A case's correct answer flips between two neighbouring levels of an axis of 11 levels one
apart (expected: the midpoint). The target flips at its own point, the expected one plus an
offset drawn per case from a family, with a logistic slope: at a level x, a share
``expit((x − t) / slope)`` of its ``R`` answers take the flipped value. The truth is what the
published number estimates: the mean per-case offset over cases like these, read as the code
reads it (isotonic crossing of R answers per level), from 100,000 cases. Cases whose answers
never cross are left out of both, as the code leaves them out.

Settings, none used to choose the interval: 6 and 12 cases; R 3 and 10; offsets from N(1, ½)
(a late target), N(0, 2) (an inconsistent one) and 1 + Exp(1.5) (skewed late); slopes ½ and
1.5. Printed: coverage with its Monte Carlo standard error, the mean width, and how many trials
had an interval (two crossing cases at least).

    python benchmarks/threshold_coverage.py [--trials 400] [--seed 0] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from modelscape.analysis.common import mean_interval
from modelscape.analysis.threshold import crossing
from modelscape.stats import Inference

LEVELS = np.arange(11, dtype=np.float64)
EXPECTED = 4.5  # the correct answer flips between levels 4 and 5
Offsets = Callable[[np.random.Generator, int], np.ndarray]
FAMILIES: dict[str, Offsets] = {
    "N(1, 0.5)": lambda rng, n: rng.normal(1.0, 0.5, n),
    "N(0, 2)": lambda rng, n: rng.normal(0.0, 2.0, n),
    "1+Exp(1.5)": lambda rng, n: 1.0 + rng.exponential(1.5, n),
}


def read_offsets(
    offsets: np.ndarray, repetitions: int, slope: float, rng: np.random.Generator
) -> list[float]:
    """Each case's offset as the code reads it, for the cases whose answers cross."""
    found = []
    weights = [float(repetitions)] * len(LEVELS)
    for offset in offsets:
        chance = expit((LEVELS - (EXPECTED + offset)) / slope)
        shares = rng.binomial(repetitions, chance) / repetitions
        crossed = crossing(LEVELS.tolist(), shares.tolist(), weights)
        if crossed is not None:
            found.append(crossed[0] - EXPECTED)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    trials = 100 if options.quick else options.trials
    rng = np.random.default_rng(options.seed)
    inference = Inference(resamples=1000)
    started = time.perf_counter()
    print(f"threshold offset coverage, {trials} trials a setting")
    print(
        f"{'offsets':<12}{'slope':>6}{'cases':>6}{'R':>4}{'truth':>8}"
        f"{'coverage':>10}{'± se':>7}{'width':>8}{'with interval':>15}"
    )
    worst = 1.0
    for (name, family), slope, cases, repetitions in itertools.product(
        FAMILIES.items(), (0.5, 1.5), (6, 12), (3, 10)
    ):
        truth = float(np.mean(read_offsets(family(rng, 100_000), repetitions, slope, rng)))
        covered = made = 0
        width = 0.0
        for trial in range(trials):
            per_case = read_offsets(family(rng, cases), repetitions, slope, rng)
            low, high = mean_interval(per_case, inference, f"trial|{trial}", "threshold")
            if low is None or high is None:
                continue
            made += 1
            covered += int(low <= truth <= high)
            width += high - low
        share = covered / made if made else float("nan")
        se = np.sqrt(share * (1 - share) / made) if made else float("nan")
        worst = min(worst, share)
        print(
            f"{name:<12}{slope:>6.1f}{cases:>6}{repetitions:>4}{truth:>8.3f}"
            f"{share:>10.3f}{se:>7.3f}{width / max(made, 1):>8.2f}{made:>10} of {trials}"
        )
    print(f"lowest coverage: {worst:.3f}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
