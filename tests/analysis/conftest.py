"""A small task space with planted behaviours, run once per session against scripted targets.

Six cases (items) vary along three axes: ``level`` (numeric 1..5, causal: the correct answer is
"yes" up to level 3 and "no" above), ``mode`` (ordinal low/mid/high) and ``tone`` (nominal
plain/warm/curt), both invariant. Targets read the level from the prompt:

- ``steady`` answers correctly, with a tenth of its replies flipped at random (seed hint);
- ``swayed`` answers like steady but always "no" when the tone is curt;
- ``late`` says "yes" up to level 4: its answers flip one level after the correct answer;
- ``mumbler`` answers correctly but gives no readable answer in a quarter of its replies;
- ``exact`` answers correctly every time (not in the shared run: tests run it when needed).

Besides the built-in ``answer_change`` there are two more difference measures: ``differs``, a
pairwise measure that is 1 when two read answers differ (the same as ``answer_change``), and
``length``, a keyed measure with the absolute distance between reply lengths.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping

import pytest

from modelscape._identity import AxisValue, JsonValue
from modelscape.answers import json_field
from modelscape.execution import Runner
from modelscape.measures import CallableDifference, KeyedDifference, Response
from modelscape.results.results import Results
from modelscape.scenario import Scenario
from modelscape.stats import Inference
from modelscape.targets import CallableTarget, TargetRequest
from modelscape.task.design import Grid, Sweep
from modelscape.templates.template import Template

ITEMS = ["anvil", "bell", "cog", "drum", "easel", "flute"]
ANSWER = json_field("answer", ["yes", "no"])
#: Enough permutations for Holm over the four steps of a profile (P + 1 >= 20 * 4 / 0.05).
FAST = Inference(permutations=2000, resamples=200)


def _reference(attributes: Mapping[str, AxisValue]) -> AxisValue:
    level = attributes["level"]
    assert isinstance(level, int)
    return "yes" if level <= 3 else "no"


TEMPLATE = Template(
    "Item {item}. Level {level}. Mode {mode}. Tone {tone}.",
    {
        "item": ITEMS,
        "level": [1, 2, 3, 4, 5],
        "mode": ["low", "mid", "high"],
        "tone": ["plain", "warm", "curt"],
    },
    name="planted-space",
    reference=_reference,
)
AXES = [
    TEMPLATE.axis("level", "numeric"),
    TEMPLATE.axis("mode", "ordinal"),
    TEMPLATE.axis("tone", "nominal"),
]


def level_of(text: str) -> int:
    match = re.search(r"Level (\d)", text)
    assert match is not None
    return int(match.group(1))


def _reply(answer: str | None) -> str:
    return "no idea" if answer is None else json.dumps({"answer": answer})


def _target(name: str, rule: Callable[[str, random.Random], str | None]) -> CallableTarget:
    async def answer(request: TargetRequest) -> str:
        return _reply(rule(request.prompt.text, random.Random(request.seed)))

    return CallableTarget(answer, name=name)


def _correct(text: str, limit: int = 3) -> str:
    return "yes" if level_of(text) <= limit else "no"


def _flip(answer: str) -> str:
    return "no" if answer == "yes" else "yes"


def _steady(text: str, rng: random.Random) -> str | None:
    answer = _correct(text)
    return _flip(answer) if rng.random() < 0.1 else answer


def _swayed(text: str, rng: random.Random) -> str | None:
    return "no" if "Tone curt" in text else _steady(text, rng)


def _late(text: str, rng: random.Random) -> str | None:
    return _correct(text, limit=4)


def _mumbler(text: str, rng: random.Random) -> str | None:
    return None if rng.random() < 0.25 else _correct(text)


def _read(response: Response) -> AxisValue | None:
    return ANSWER(response.output)


def _differs(first: Response, second: Response) -> float:
    return 0.0 if _read(first) == _read(second) else 1.0


def _length(response: Response) -> JsonValue:
    return len(response.output.text)


def scenario(design: Sweep | Grid | None = None, repetitions: int = 4) -> Scenario:
    return Scenario(
        name="planted-space",
        version="1",
        description="Planted behaviours along three axes.",
        task_space=TEMPLATE.space(AXES),
        answer=ANSWER,
        repetitions=repetitions,
        measures=(
            CallableDifference(_differs, name="differs"),
            KeyedDifference(_length, name="length", distance="absolute"),
        ),
        design=design or Sweep(),
        groups={"first-three": ITEMS[:3]},
    )


def _exact(text: str, rng: random.Random) -> str | None:
    return _correct(text)


def _stuck(text: str, rng: random.Random) -> str | None:
    return _correct(text, limit=100)  # "yes" at every level: its answers never flip


TARGETS = {
    "steady": _steady,
    "swayed": _swayed,
    "late": _late,
    "mumbler": _mumbler,
    "exact": _exact,
    "stuck": _stuck,
}


def run(space: Scenario, *names: str) -> Results:
    targets = [_target(name, TARGETS[name]) for name in names]
    return Runner().run(space.experiment(targets))


@pytest.fixture(scope="session")
def space() -> Scenario:
    return scenario()


@pytest.fixture(scope="session")
def results(space: Scenario) -> Results:
    """A Sweep run of every target: 6 cases x 9 coordinates x 4 repetitions each."""
    return run(space, "steady", "swayed", "late", "mumbler")


@pytest.fixture(scope="session")
def grid() -> Results:
    """A Grid over level and mode (tone stays at its baseline) of two targets."""
    return run(scenario(Grid(axes=("level", "mode"))), "steady", "swayed")
