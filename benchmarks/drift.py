"""Drift on an invariant axis: does the scorecard see a slow change made of small steps?

The setting of issue 28: twelve cases, R = 5 repetitions, one ordinal invariant axis of six
levels (the correct answer never moves along it). In the *drift* setting a target's chance of
the wrong answer rises by 0.1 per level from its case's starting chance (0 or 0.1),
so the baseline and the last level differ by an excess of 0.5² = 0.25 while each neighbour
step differs by 0.01. In the *no drift* setting the chance stays where it starts; in *null
0.5* every answer is a coin flip at every level (the hardest null for the tests).

Each target is one trial. Printed per setting: the mean spurious change, the share of targets
whose spurious interval lies above 0 (drift: the target is at least 80%), the coverage of the
true mean spurious change by that interval, the share of targets with any shift (adjacent
steps) and with any departure (comparisons with the baseline, Holm over that family; without
drift this is the family-wise false-positive rate, to stay at most alpha + 3 Monte-Carlo
standard errors).

    python benchmarks/drift.py [--targets 200] [--permutations 2000] [--resamples 1000]

Run on one core (it sets the BLAS threads to 1).
"""

from __future__ import annotations

import os

from modelscape.results.results import run_of

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402
from collections.abc import Mapping  # noqa: E402
from dataclasses import dataclass  # noqa: E402

from modelscape._identity import AxisValue  # noqa: E402
from modelscape.answers import json_field  # noqa: E402
from modelscape.execution import Runner  # noqa: E402
from modelscape.results.results import Results  # noqa: E402
from modelscape.scenario import Scenario  # noqa: E402
from modelscape.stats import Inference  # noqa: E402
from modelscape.targets import CallableTarget, TargetRequest  # noqa: E402
from modelscape.task.design import Sweep  # noqa: E402
from modelscape.templates.template import Template  # noqa: E402

CASES = 12
REPETITIONS = 5
LEVELS = ("l0", "l1", "l2", "l3", "l4", "l5")
STEP = 0.1
STARTS = (0.0, 0.1)
ALPHA = 0.05
#: The hardest null for the tests: every answer a coin flip, nothing drifting.
COIN = (0.5,)
#: (label, drift per level, starting chances) of each setting printed.
SETTINGS = (("drift", STEP, STARTS), ("no drift", 0.0, STARTS), ("null 0.5", 0.0, COIN))
ANSWER = json_field("answer", ["yes", "no"])


def _reference(attributes: Mapping[str, AxisValue]) -> AxisValue:
    return "yes"


def _start(case: str, starts: tuple[float, ...]) -> float:
    """A case's chance of the wrong answer at the baseline."""
    return starts[int(case[4:]) % len(starts)]


def scenario(cases: int = CASES, repetitions: int = REPETITIONS) -> Scenario:
    """The task space: ``cases`` items along one ordinal axis of six levels, all invariant."""
    items = [f"item{i:02d}" for i in range(cases)]
    template = Template(
        "Case {item}. Level {level}.",
        {"item": items, "level": list(LEVELS)},
        name="drift-space",
        reference=_reference,
    )
    return Scenario(
        name="drift-space",
        version="1",
        description="A slow drift along an invariant ordinal axis.",
        task_space=template.space([template.axis("level", "ordinal")]),
        answer=ANSWER,
        repetitions=repetitions,
        design=Sweep(),
    )


def wrong_chance(case: str, level: int, drift: float, starts: tuple[float, ...] = STARTS) -> float:
    """The chance of the wrong answer of ``case`` at the level of index ``level``."""
    return _start(case, starts) + drift * level


def target(name: str, drift: float, starts: tuple[float, ...] = STARTS) -> CallableTarget:
    """A target that answers "no" (wrong) with :func:`wrong_chance`."""

    async def answer(request: TargetRequest) -> str:
        text = request.prompt.text
        found = re.search(r"Case (item\d+)\. Level l(\d)", text)
        assert found is not None, text
        rng = random.Random(f"{name}|{request.seed}")
        wrong = rng.random() < wrong_chance(found.group(1), int(found.group(2)), drift, starts)
        return json.dumps({"answer": "no" if wrong else "yes"})

    return CallableTarget(answer, name=name)


def truth(cases: int, drift: float, starts: tuple[float, ...] = STARTS) -> float:
    """The true mean spurious change: over adjacent steps and comparisons with the baseline."""
    pairs = set(itertools.pairwise(range(len(LEVELS))))
    pairs |= {(0, k) for k in range(1, len(LEVELS))}
    items = [f"item{i:02d}" for i in range(cases)]
    values = [
        (wrong_chance(c, b, drift, starts) - wrong_chance(c, a, drift, starts)) ** 2
        for c in items
        for a, b in pairs
    ]
    return sum(values) / len(values)


def run(
    space: Scenario, count: int, drift: float, prefix: str, starts: tuple[float, ...] = STARTS
) -> Results:
    """One run of ``count`` targets of the same drift."""
    targets = [target(f"{prefix}-{i:03d}", drift, starts) for i in range(count)]
    return Runner().run(space.experiment(targets))


@dataclass
class Figures:
    """What a setting gives over its targets."""

    targets: int
    mean: float
    above_zero: float
    covered: float
    shifted: float
    departed: float


def measure(
    results: Results, drift: float, inference: Inference, starts: tuple[float, ...] = STARTS
) -> Figures:
    """The scorecard of every target of a run, summed up."""
    indexed = run_of(results)
    true = truth(len(indexed.cases), drift, starts)
    names = list(indexed.targets)
    values, above, covered, shifted, departed = [], 0, 0, 0, 0
    for name in names:
        card = results.scorecard("correct", "answer_change", target=name, inference=inference)
        assert card.spurious_change is not None
        assert card.spurious_low is not None
        assert card.spurious_high is not None
        values.append(card.spurious_change)
        above += card.spurious_low > 0
        covered += card.spurious_low <= true <= card.spurious_high
        shifted += card.invariant_shifts > 0
        departed += card.invariant_departures > 0
    n = len(names)
    return Figures(n, sum(values) / n, above / n, covered / n, shifted / n, departed / n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=200)
    parser.add_argument("--permutations", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    options = parser.parse_args()
    inference = Inference(permutations=options.permutations, resamples=options.resamples)
    space = scenario()
    print(
        f"{CASES} cases, R = {REPETITIONS}, {len(LEVELS)} ordinal levels, {options.targets} targets"
    )
    print(
        f"{'setting':<10} {'truth':>6} {'mean':>6} {'>0':>6} {'cover':>6} "
        f"{'shift':>6} {'depart':>6}"
    )
    for label, drift, starts in SETTINGS:
        started = time.perf_counter()
        results = run(space, options.targets, drift, label.replace(" ", "-"), starts)
        found = measure(results, drift, inference, starts)
        se = math.sqrt(ALPHA * (1 - ALPHA) / found.targets)
        print(
            f"{label:<10} {truth(CASES, drift, starts):6.3f} {found.mean:6.3f} "
            f"{found.above_zero:6.1%} "
            f"{found.covered:6.1%} {found.shifted:6.1%} {found.departed:6.1%}"
            f"   ({time.perf_counter() - started:.0f} s)"
        )
        if drift == 0 and starts == COIN:
            print(f"{'':<10} family-wise limit alpha + 3 se = {ALPHA + 3 * se:.1%}")


if __name__ == "__main__":
    main()
