"""Speed of a full report (``build_report``) on a mid-sized run, and the ratio against scipy.

The run: 20 cases x 4 axes of 5 values (a Sweep, 17 coordinates) x 5 repetitions x 3 reference
targets, made in memory beforehand and excluded from the timing. The report computes the
scorecards of every target on two groups, the divergences from the first target, the profile of
every axis for every target and every target's sensitivity ranking, with
``Inference(permutations=10_000, resamples=2_000)``, on one core.

The reference tests the same transitions with ``scipy.stats.permutation_test``: one call per
transition (``permutation_type="samples"`` over the cases would not pool labelings per case,
so each case is one sample of an ``independent`` test per case, as the statistics suggest),
timed on a sample of transitions and extrapolated to all the report computes.

    python benchmarks/report_speed.py [--runs 3] [--scipy-sample 3] [--profile]
"""

from __future__ import annotations

import os

from modelscape.results.results import run_of

# One core: set before numpy loads its BLAS.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Mapping  # noqa: E402

import numpy as np  # noqa: E402
import scipy.stats  # noqa: E402

from modelscape import Scenario, Template, json_field  # noqa: E402
from modelscape._identity import AxisValue  # noqa: E402
from modelscape.execution import Runner  # noqa: E402
from modelscape.report import Report, build_report  # noqa: E402
from modelscape.results.results import Results  # noqa: E402
from modelscape.stats import Inference, StatisticsWarning  # noqa: E402
from modelscape.targets._oracle import OracleTarget  # noqa: E402
from modelscape.targets._reference import Flip  # noqa: E402

INFERENCE = Inference(permutations=10_000, resamples=2_000)
ITEMS = [f"item-{index:02d}" for index in range(20)]


def _reference(attributes: Mapping[str, AxisValue]) -> AxisValue:
    level = attributes["level"]
    assert isinstance(level, int)
    return "yes" if level <= 3 else "no"


def scenario() -> Scenario:
    """Four axes of five values each (numeric, ordinal, nominal, numeric), 20 cases."""
    template = Template(
        "Case {item}. Level {level}. Mode {mode}. Tone {tone}. Size {size}.",
        {
            "item": ITEMS,
            "level": [1, 2, 3, 4, 5],
            "mode": ["m1", "m2", "m3", "m4", "m5"],
            "tone": ["plain", "warm", "curt", "formal", "casual"],
            "size": [10, 20, 30, 40, 50],
        },
        name="bench",
        reference=_reference,
    )
    axes = [
        template.axis("level", "numeric"),
        template.axis("mode", "ordinal"),
        template.axis("tone", "nominal"),
        template.axis("size", "numeric"),
    ]
    return Scenario(
        name="report-speed",
        version="1",
        description="A benchmark space.",
        task_space=template.space(axes),
        answer=json_field("answer", ["yes", "no"]),
        repetitions=5,
        groups={"first-half": ITEMS[:10]},
    )


def run(space: Scenario) -> Results:
    """Three reference targets: noisy oracle, one with a planted threshold, one tone-swayed."""
    targets = [
        OracleTarget(space, noise=0.1, name="oracle"),
        OracleTarget(
            space,
            flips=[Flip(marker=r"Level (\d)", answer="no", above=2)],
            noise=0.1,
            name="early",
        ),
        OracleTarget(space, flips=[Flip(marker="Tone curt", answer="no")], noise=0.1, name="curt"),
    ]
    return Runner().run(space.experiment(targets))


def best_of(runs: int, work: Callable[[], object]) -> float:
    """Smallest wall time of ``runs`` runs, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def fresh(results: Results) -> Results:
    """The same records in a new Results: nothing an earlier report computed is reused."""
    indexed = run_of(results)
    return Results(
        indexed.experiment,
        indexed.variants,
        indexed.observations,
        indexed.point_measurements,
        indexed.difference_measurements,
    )


def time_reports(
    runs: int, space: Scenario, results: Results, inference: Inference = INFERENCE
) -> tuple[float, float]:
    """Best wall and CPU seconds of ``runs`` reports, each on fresh results built untimed."""
    walls, cpus = [], []
    for _ in range(runs):
        copy = fresh(results)
        wall, cpu = time.perf_counter(), time.process_time()
        report(space, copy, inference)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def report(space: Scenario, results: Results, inference: Inference = INFERENCE) -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatisticsWarning)
        return build_report(
            results,
            answer=space.answer,
            groups=space.groups,
            criterion=space.criterion,
            inference=inference,
        )


def report_transitions(
    built: Report,
) -> list[tuple[str, dict[str, AxisValue], dict[str, AxisValue]]]:
    """(target, first, second) of every same-target transition the report tested."""
    found = []
    for profile in built.profiles:
        for transition in (*profile.baseline, *profile.local):
            if transition.first != transition.second:
                found.append((transition.target, transition.first, transition.second))
    return found


def excess_statistic(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """The 0/1 excess of answer samples x and y, vectorised along leading axes (for scipy)."""
    x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    n_a, n_b = x.shape[-1], y.shape[-1]
    between = (x[..., :, None] != y[..., None, :]).mean(axis=(-2, -1))
    within_a = (x[..., :, None] != x[..., None, :]).sum(axis=(-2, -1)) / (n_a * (n_a - 1))
    within_b = (y[..., :, None] != y[..., None, :]).sum(axis=(-2, -1)) / (n_b * (n_b - 1))
    result: np.ndarray = between - (within_a + within_b) / 2
    return result


def answers_of(
    space: Scenario, results: Results, target: str, coordinate: Mapping[str, AxisValue]
) -> np.ndarray:
    """Answer codes (cases x repetitions) of one target at one coordinate."""
    indexed = run_of(results)
    codes = {"yes": 0, "no": 1, None: 2}
    rows = []
    for case in indexed.cases:
        cell = indexed.cell(target, case, coordinate)
        rows.append([codes.get(space.answer(o.output), 3) for o in cell])  # type: ignore[arg-type]
    return np.asarray(rows)


def scipy_transition(x: np.ndarray, y: np.ndarray, seed: int) -> None:
    """One transition with scipy: a permutation test per case of the excess (the costly part)."""
    rng = np.random.default_rng(seed)
    for case_x, case_y in zip(x, y, strict=True):
        scipy.stats.permutation_test(
            (case_x, case_y),
            excess_statistic,
            permutation_type="independent",
            alternative="greater",
            n_resamples=INFERENCE.permutations,
            vectorized=True,
            rng=rng,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs")
    parser.add_argument("--scipy-sample", type=int, default=3, help="transitions run by scipy")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one report")
    arguments = parser.parse_args()

    space = scenario()
    start = time.perf_counter()
    results = run(space)
    indexed = run_of(results)
    made = time.perf_counter() - start
    print(
        f"run: {len(indexed.cases)} cases x {len(indexed.experiment.axes)} axes x 5 values x "
        f"{indexed.experiment.repetitions} repetitions x {len(indexed.targets)} targets = "
        f"{len(indexed.observations)} observations, made in {made:.1f} s (not timed)"
    )
    if arguments.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        report(space, fresh(results))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    built = report(space, fresh(results))  # warms numpy and the statistics core's caches
    seconds, cpu = time_reports(arguments.runs, space, results)
    transitions = report_transitions(built)
    contrasts = sum(len(d.contrasts) for d in built.divergences)
    print(
        f"modelscape build_report (10,000 permutations, 2,000 resamples): {seconds:.3f} s wall, "
        f"{cpu:.3f} s CPU "
        f"({len(built.scorecards)} scorecards, {len(built.divergences)} divergences with "
        f"{contrasts} contrasts, {len(built.profiles)} profiles with {len(transitions)} "
        f"transitions, {len(built.sensitivity)} sensitivity rows); target <= 1 s"
    )
    bca = INFERENCE.model_copy(update={"interval": "bca"})
    report(space, fresh(results), bca)
    bca_seconds, bca_cpu = time_reports(arguments.runs, space, results, bca)
    print(
        f"the same with BCa intervals (as before issue 11): {bca_seconds:.3f} s wall; "
        f"ratio smoothed / BCa: {seconds / bca_seconds:.2f}x (wall), {cpu / bca_cpu:.2f}x (CPU)"
    )

    # Every comparison the report tests, counted in cases: profiles (the scorecards of all
    # cases test the same steps again), the scorecards' steps on the group, the divergences.
    group = len(space.groups["first-half"])
    profile_cases = sum(
        t.cases for p in built.profiles for t in (*p.baseline, *p.local) if t.first != t.second
    )
    group_cases = sum(len(p.steps) * group for p in built.profiles)
    divergence_cases = sum(c.cases for d in built.divergences for c in d.contrasts)
    case_tests = profile_cases + group_cases + divergence_cases
    tested = len(transitions) + sum(len(p.steps) for p in built.profiles) + contrasts

    sample = transitions[: max(1, arguments.scipy_sample)]
    data = [
        (answers_of(space, results, t, first), answers_of(space, results, t, second))
        for t, first, second in sample
    ]

    def scipy_loop() -> None:
        for seed, (x, y) in enumerate(data):
            scipy_transition(x, y, seed)

    scipy_seconds = best_of(1, scipy_loop)
    per_case = scipy_seconds / sum(len(x) for x, _ in data)
    extrapolated = per_case * case_tests
    print(
        f"scipy.stats.permutation_test loop: {per_case * 1e3:.1f} ms per case and transition "
        f"(measured on {len(sample)} transitions x {len(data[0][0])} cases), extrapolated "
        f"{extrapolated:.1f} s for the report's {tested} transitions ({case_tests} case tests)"
    )
    print(
        f"ratio scipy / modelscape: {extrapolated / seconds:.0f}x (wall), "
        f"{extrapolated / cpu:.0f}x (CPU)"
    )


if __name__ == "__main__":
    main()
