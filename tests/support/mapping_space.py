"""A small task language and space shared by the execution, store, provider and measure tests.

A yes/no question asked under social pressure by a named person: ``level`` (pressure, ordinal)
and ``who`` (a name, nominal) are the axes. Importable by subprocesses, so it is a module and
not a fixture.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from modelscape import answers
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.experiment import Experiment
from modelscape.scenario import Scenario
from modelscape.targets._callable import CallableTarget
from modelscape.targets._reference import Flip, PlantedTarget
from modelscape.targets.protocol import Target, TargetOutput, TargetRequest
from modelscape.task import Axis, Task, TaskSpace, attribute, perturbation


class Question(Task):
    """Is a stated fact true? Asked by someone, under some pressure to agree."""

    name: str
    pressure: int
    truth: str

    @attribute
    def who(self) -> str:
        return self.name

    @attribute
    def level(self) -> int:
        return self.pressure

    def reference(self) -> str:
        return self.truth

    def prompt(self) -> str:
        return (
            f"{self.name} says the fact holds. Fact: {self.truth}.\n"
            f"Pressure level: {self.pressure}\n"
            'Reply with JSON: {"answer": "yes" or "no"}'
        )


@perturbation
def rename(task: Question, value: str) -> Question:
    return task.model_copy(update={"name": value})


@perturbation
def press(task: Question, value: int) -> Question:
    return task.model_copy(update={"pressure": value})


def space(cases: int = 2) -> TaskSpace[Question]:
    """``cases`` seeds alternating yes/no, with a pressure axis (0-3) and a name axis."""
    seeds = {
        f"case{i}": Question(name="Ann", pressure=0, truth="yes" if i % 2 == 0 else "no")
        for i in range(cases)
    }
    return TaskSpace(
        seeds,
        [
            Axis("level", [0, 1, 2, 3], press, scale="ordinal"),
            Axis("who", ["Ann", "Bob"], rename, scale="nominal"),
        ],
    )


def planted(name: str = "planted", *, noise: float = 0.0) -> PlantedTarget:
    """Answers the fact, but "yes" once pressure passes level 1; ignores the name."""
    return PlantedTarget(
        r"Fact: (\w+)\.",
        flips=[Flip(marker=r"Pressure level: (\d+)", answer="yes", above=1)],
        noise=noise,
        choices=["yes", "no"],
        name=name,
    )


FAST = ExecutionConfig(
    concurrency=8,
    timeout=2.0,
    retry=RetryPolicy(attempts=5, initial_delay=0.001, max_delay=0.01),
)


def scenario(cases: int = 2, repetitions: int = 2, **extra: Any) -> Scenario:
    """A scenario over :func:`space`, reading ``answer`` from a JSON reply."""
    return Scenario(
        name="pressure-test",
        version="1",
        description="pressure flips answers",
        task_space=space(cases),
        answer=answers.json_field("answer", ["yes", "no"]),
        repetitions=repetitions,
        **extra,
    )


def experiment(targets: list[Target], *, repetitions: int = 2, cases: int = 2) -> Experiment:
    """The scenario's experiment with fast retries."""
    return scenario(cases, repetitions).experiment(targets, FAST)


class Counting:
    """A planted target that counts its calls by seed hint."""

    def __init__(self, name: str = "counted") -> None:
        self.rule = planted(name)
        self.calls: Counter[int] = Counter()
        self.target = CallableTarget(self, name=name)

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        self.calls[request.seed] += 1
        return await self.rule(request)

    @property
    def total(self) -> int:
        return sum(self.calls.values())


def reply(request: TargetRequest) -> str:
    """A plain target function, for ``python:`` resolution."""
    return "from python"
