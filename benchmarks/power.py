"""Power through the whole pipeline: how often a report finds a step planted in every case.

Simulated targets answer a yes/no question along one ordinal axis on which the correct
answer never moves (an invariant axis): nine levels, as issue 28's audit used, or two (a
single test, as the lost first attempt computed). In every case the chance of "yes" is
½ − δ/2 up to the middle of the axis and ½ + δ/2 after it: one planted step of excess δ².
Each target is one trial: it is run by the real runner, stored, and scored by
``Results.scorecard`` (its shifts: the axis's adjacent steps tested together under Holm).

Printed per setting: the share of targets whose planted step is among the shifts, with its
Monte-Carlo standard error, beside what :func:`modelscape.stats.power.power` says for that
design (family = levels − 1); and the share with any shift, which under no change (δ = 0)
is the family-wise false-positive rate the test keeps at most alpha.

    python benchmarks/power.py [--targets 400] [--permutations 4000]

Run on one core (it sets the BLAS threads to 1).
"""

from __future__ import annotations

import os

from modelscape.results.results import run_of

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402
from collections.abc import Mapping  # noqa: E402

from modelscape._identity import AxisValue  # noqa: E402
from modelscape.answers import json_field  # noqa: E402
from modelscape.execution import Runner  # noqa: E402
from modelscape.results.results import Results  # noqa: E402
from modelscape.scenario import Scenario  # noqa: E402
from modelscape.stats import Inference  # noqa: E402
from modelscape.stats.power import power  # noqa: E402
from modelscape.targets import CallableTarget, TargetRequest  # noqa: E402
from modelscape.task.design import Sweep  # noqa: E402
from modelscape.templates.template import Template  # noqa: E402

ALPHA = 0.05
ANSWER = json_field("answer", ["yes", "no"])
#: (levels, cases, repetitions, excess) of every setting printed; excess 0 is the null.
SETTINGS = (
    (9, 10, 2, 0.09),
    (9, 10, 5, 0.09),
    (9, 10, 2, 0.3),
    (9, 10, 5, 0.3),
    (9, 10, 3, 0.3),
    (9, 20, 3, 0.09),
    (9, 10, 2, 0.0),
    (9, 10, 5, 0.0),
    (2, 10, 2, 0.3),
    (2, 10, 5, 0.3),
    (2, 10, 3, 0.09),
    (2, 10, 2, 0.0),
)


def _reference(attributes: Mapping[str, AxisValue]) -> AxisValue:
    return "yes"


def levels_of(count: int) -> tuple[str, ...]:
    """The names of an axis of ``count`` levels."""
    return tuple(f"l{i}" for i in range(count))


def first_after(count: int) -> int:
    """The first level after the planted step: the middle of the axis (5 of 9, 1 of 2)."""
    return (count + 1) // 2


def scenario(levels: int, cases: int, repetitions: int) -> Scenario:
    """``cases`` items along one invariant ordinal axis of ``levels`` levels."""
    items = [f"item{i:02d}" for i in range(cases)]
    template = Template(
        "Case {item}. Level {level}.",
        {"item": items, "level": list(levels_of(levels))},
        name="power-space",
        reference=_reference,
    )
    return Scenario(
        name="power-space",
        version="1",
        description="One planted step along an invariant ordinal axis.",
        task_space=template.space([template.axis("level", "ordinal")]),
        answer=ANSWER,
        repetitions=repetitions,
        design=Sweep(),
    )


def yes_chance(level: int, after: int, excess: float) -> float:
    """The chance of "yes" at the level of index ``level`` under a step of ``excess`` whose
    first level after is ``after``."""
    delta = math.sqrt(excess)
    return 0.5 + delta / 2 if level >= after else 0.5 - delta / 2


def target(name: str, after: int, excess: float) -> CallableTarget:
    """A target that answers "yes" with :func:`yes_chance`, its draws seeded per request."""

    async def answer(request: TargetRequest) -> str:
        found = re.search(r"Level l(\d)", request.prompt.text)
        assert found is not None, request.prompt.text
        rng = random.Random(f"{name}|{request.seed}")
        yes = rng.random() < yes_chance(int(found.group(1)), after, excess)
        return json.dumps({"answer": "yes" if yes else "no"})

    return CallableTarget(answer, name=name)


def found_rates(results: Results, levels: int, inference: Inference) -> tuple[float, float]:
    """The share of targets whose planted step is a shift, and with any shift at all."""
    indexed = run_of(results)
    names, after = levels_of(levels), first_after(levels)
    planted = (names[after - 1], names[after])
    step, anything = 0, 0
    for name in indexed.targets:
        card = results.scorecard("correct", "answer_change", target=name, inference=inference)
        (axis,) = card.axes
        steps = {(shift.before, shift.after) for shift in axis.shifts}
        step += planted in steps
        anything += bool(steps)
    count = len(indexed.targets)
    return step / count, anything / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=400)
    parser.add_argument("--permutations", type=int, default=4000)
    options = parser.parse_args()
    inference = Inference(permutations=options.permutations, resamples=0)
    print(
        f"one planted step per target, {options.targets} targets a setting, "
        f"{options.permutations} permutations, alpha {ALPHA}"
    )
    print(
        f"{'levels':>6} {'C':>3} {'R':>2} {'excess':>6} {'found':>7} {'± se':>6} {'power':>7} "
        f"{'any':>7}"
    )
    for levels, cases, repetitions, excess in SETTINGS:
        started = time.perf_counter()
        space = scenario(levels, cases, repetitions)
        names = [
            f"t{levels}-{cases}-{repetitions}-{excess}-{i:03d}" for i in range(options.targets)
        ]
        after = first_after(levels)
        results = Runner().run(space.experiment([target(n, after, excess) for n in names]))
        step, anything = found_rates(results, levels, inference)
        family = levels - 1
        figure = power(excess, cases=cases, repetitions=repetitions, family=family, alpha=ALPHA)
        se = math.sqrt(max(step * (1 - step), 1e-12) / options.targets)
        shown = "" if excess > 0 else "(null)"
        print(
            f"{levels:>6} {cases:>3} {repetitions:>2} {excess:>6.2f} {step:>7.1%} {se:>6.1%} "
            f"{figure:>7.1%} {anything:>7.1%} {shown}  ({time.perf_counter() - started:.0f} s)"
        )


if __name__ == "__main__":
    main()
