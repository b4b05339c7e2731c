"""Speed of the statistics core on a profile-sized batch, and the ratio against scipy.

A profile of ``--transitions`` transitions x ``--cases`` cases x ``--repetitions`` outputs per
coordinate, compared with the 0/1 "answers differ" measure on random categorical answers:
every transition gets its excess, an interval (the smoothed one by default; BCa, as before
issue 11, for comparison) and a permutation p-value, then Holm's correction over the batch.

The reference does the same number of permutation and bootstrap statistics with scipy: per
transition, one ``scipy.stats.permutation_test`` per case (vectorised statistic) and one
``scipy.stats.bootstrap`` over cases, timed on a sample of transitions and extrapolated.

    python benchmarks/stats_speed.py [--transitions 200] [--scipy-sample 3]
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable

import numpy as np
import scipy.stats

from modelscape.stats import Inference, StatisticsWarning, compare_many, holm

Item = tuple[str, list[tuple[np.ndarray, int]]]


def make_profile(
    transitions: int, cases: int, repetitions: int, seed: int = 0
) -> tuple[list[Item], np.ndarray]:
    """Random categorical answers (4 values), their 0/1 distance matrices, and the answers."""
    rng = np.random.default_rng(seed)
    answers = rng.integers(0, 4, size=(transitions, cases, 2 * repetitions))
    matrices = (answers[..., :, None] != answers[..., None, :]).astype(np.float64)
    items = [
        (f"axis: {t} -> {t + 1}", [(matrices[t, c], repetitions) for c in range(cases)])
        for t in range(transitions)
    ]
    return items, answers


def best_of(runs: int, work: Callable[[], object]) -> float:
    """Smallest wall time of ``runs`` runs, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def modelscape_report(items: list[Item], inference: Inference) -> None:
    comparisons = compare_many(items, inference=inference)
    holm([comparison.p_value for comparison in comparisons])


def excess_statistic(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """The 0/1 excess of answer samples x and y, vectorised along leading axes (for scipy)."""
    x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    n_a, n_b = x.shape[-1], y.shape[-1]
    between = (x[..., :, None] != y[..., None, :]).mean(axis=(-2, -1))
    within_a = (x[..., :, None] != x[..., None, :]).sum(axis=(-2, -1)) / (n_a * (n_a - 1))
    within_b = (y[..., :, None] != y[..., None, :]).sum(axis=(-2, -1)) / (n_b * (n_b - 1))
    result: np.ndarray = between - (within_a + within_b) / 2
    return result


def scipy_transition(answers: np.ndarray, inference: Inference, seed: int) -> None:
    """One transition with scipy: a permutation test per case, a bootstrap over cases."""
    rng = np.random.default_rng(seed)
    repetitions = answers.shape[-1] // 2
    per_case = []
    for case in answers:
        x, y = case[:repetitions], case[repetitions:]
        result = scipy.stats.permutation_test(
            (x, y),
            excess_statistic,
            permutation_type="independent",
            alternative="greater",
            n_resamples=inference.permutations,
            vectorized=True,
            rng=rng,
        )
        per_case.append(result.statistic)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on degenerate bootstrap distributions
        scipy.stats.bootstrap(
            (np.asarray(per_case),),
            np.mean,
            n_resamples=inference.resamples,
            method="BCa",
            rng=rng,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transitions", type=int, default=200)
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs")
    parser.add_argument("--scipy-sample", type=int, default=3, help="transitions run by scipy")
    arguments = parser.parse_args()

    items, answers = make_profile(arguments.transitions, arguments.cases, arguments.repetitions)
    size = (
        f"{arguments.transitions} transitions x {arguments.cases} cases x R={arguments.repetitions}"
    )
    print(f"profile: {size}, 0/1 distances on random categorical answers")
    settings = {
        "design target (1,000 permutations, 1,000 resamples)": Inference(
            permutations=1000, resamples=1000
        ),
        "full report (10,000 permutations, 2,000 resamples)": Inference(
            permutations=10000, resamples=2000
        ),
        "full report with BCa intervals (before issue 11)": Inference(
            permutations=10000, resamples=2000, interval="bca"
        ),
    }
    timings = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatisticsWarning)  # degenerate intervals are expected
        modelscape_report(items[:2], Inference())  # warm the kernel caches
        for label, inference in settings.items():
            seconds = best_of(arguments.runs, lambda i=inference: modelscape_report(items, i))
            timings[label] = seconds
            print(
                f"modelscape, {label}: {seconds * 1e3:.1f} ms "
                f"({seconds / arguments.transitions * 1e6:.0f} µs per transition)"
            )

    full = settings["full report (10,000 permutations, 2,000 resamples)"]
    sample = min(arguments.scipy_sample, arguments.transitions)
    seconds = best_of(
        1, lambda: [scipy_transition(answers[t], full, seed=t) for t in range(sample)]
    )
    per_transition = seconds / sample
    extrapolated = per_transition * arguments.transitions
    ours = timings["full report (10,000 permutations, 2,000 resamples)"]
    print(
        f"scipy loop, full report: {per_transition * 1e3:.0f} ms per transition "
        f"(measured on {sample}), extrapolated {extrapolated:.1f} s for {arguments.transitions}"
    )
    print(f"ratio scipy / modelscape (full report): {extrapolated / ours:.0f}x")
    bca = timings["full report with BCa intervals (before issue 11)"]
    print(f"ratio smoothed / BCa intervals (full report): {ours / bca:.2f}x")


if __name__ == "__main__":
    main()
