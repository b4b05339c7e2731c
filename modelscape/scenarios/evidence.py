"""Evidence weighing: does the conclusion follow the weight of the evidence on both sides?

Each case is a question with two possible conclusions, A and B. The leading evidence, told
first and at length, supports A; the rival evidence, told after it, supports B. Both are counts
of equally good sources (witnesses, studies, sensors...), so the correct conclusion is the side
with more of them. The two counts are the axes, evaluated on a grid: every combination of
``leading`` and ``rival`` is asked, so a reader sees whether a model follows the larger count
wherever it lies, or sides with whatever is told first. Both axes are causal; the counts never
tie.

The cases and their wording are written for modelscape.
"""

from __future__ import annotations

from pydantic import model_validator

from modelscape import answers
from modelscape.scenario import Scenario
from modelscape.task import Axis, Grid, Task, TaskSpace, attribute, perturbation, realizer

__all__ = ["CASES", "SCENARIO", "Weighing"]

#: Each case: the question, conclusion A, conclusion B, how a source for A and a source for B
#: is told ({n} is the count), and what makes the sources equally good.
CASES: dict[str, tuple[str, str, str, str, str, str]] = {
    "getaway-car": (
        "Which car left the scene of the break-in?",
        "the red car",
        "the blue car",
        "{n} independent witnesses, questioned separately, say they saw the red car drive away.",
        "{n} other independent witnesses, also questioned separately, say it was the blue car.",
        "Every witness stood at the same distance from the road, in the same light.",
    ),
    "drug-trial": (
        "Which treatment lowers blood pressure more?",
        "treatment A",
        "treatment B",
        "{n} randomised trials of the same size found that treatment A lowered it more.",
        "{n} further randomised trials, of the same size and design, found that treatment B did.",
        "All trials enrolled similar patients and were run to the same standard.",
    ),
    "rain-gauge": (
        "Did it rain in the valley last night?",
        "it rained",
        "it stayed dry",
        "{n} rain gauges in the valley recorded rain overnight.",
        "{n} other rain gauges in the valley, of the same make, recorded no rain at all.",
        "The gauges were checked the day before and all worked.",
    ),
    "site-age": (
        "When was the settlement first occupied?",
        "in the Bronze Age",
        "in the Iron Age",
        "{n} samples from the lowest layer were dated to the Bronze Age.",
        "{n} other samples from the same layer, dated by the same laboratory, gave the Iron Age.",
        "The samples were taken with the same method from undisturbed ground.",
    ),
    "bridge-crack": (
        "Is the crack in the bridge growing?",
        "it is growing",
        "it is stable",
        "{n} inspections over the past year measured the crack as wider than before.",
        "{n} other inspections in the same year, with the same gauge, measured no change.",
        "Every inspection was made by a certified engineer at the same spot.",
    ),
    "bird-count": (
        "Which bird is the most common in the park?",
        "the sparrow",
        "the starling",
        "{n} volunteer counts this spring found sparrows the most numerous bird.",
        "{n} other volunteer counts this spring, on the same routes, found more starlings.",
        "All counts followed the same route at the same hour.",
    ),
}

SYSTEM = (
    "Weigh the evidence and decide which conclusion it supports. Every source counts the same. "
    'Reply with a JSON object of the form {"conclusion": "A"} or {"conclusion": "B"}, and '
    "nothing else."
)


class Weighing(Task):
    """A question, and how many equally good sources support each of its two conclusions."""

    case: str
    leading_count: int
    rival_count: int

    @model_validator(mode="after")
    def _valid(self) -> Weighing:
        if self.case not in CASES:
            raise ValueError(f"no case {self.case!r}; the cases are {sorted(CASES)}")
        if min(self.leading_count, self.rival_count) < 1:
            raise ValueError("each side has at least one source")
        if self.leading_count == self.rival_count:
            raise ValueError("the two sides never have as many sources: that has no answer")
        return self

    @attribute
    def leading(self) -> int:
        return self.leading_count

    @attribute
    def rival(self) -> int:
        return self.rival_count

    def reference(self) -> str:
        return "A" if self.leading_count > self.rival_count else "B"


@perturbation
def lead(task: Weighing, value: int) -> Weighing:
    return task.model_copy(update={"leading_count": value})


@perturbation
def rival(task: Weighing, value: int) -> Weighing:
    return task.model_copy(update={"rival_count": value})


@realizer(name="weighing", version="1", system=SYSTEM)
def tell(task: Weighing) -> str:
    """The question, both conclusions, the leading evidence, the rival evidence, the question."""
    question, a, b, leading, rivalling, equal = CASES[task.case]
    return (
        f"{question}\nConclusion A: {a}.\nConclusion B: {b}.\n\n"
        f"{leading.format(n=task.leading_count)} {rivalling.format(n=task.rival_count)} {equal}\n\n"
        "Which conclusion does the evidence support, A or B?"
    )


SCENARIO = Scenario(
    name="evidence",
    version="1",
    description=(
        "Does a model side with the conclusion that more equally good sources support, when the "
        "evidence for it is told first and when it is told second? Two counts of sources vary "
        "on a grid; the larger count is the correct conclusion."
    ),
    task_space=TaskSpace(
        {case: Weighing(case=case, leading_count=5, rival_count=2) for case in CASES},
        [
            Axis("leading", [1, 3, 5, 7], lead, scale="numeric", baseline=5),
            Axis("rival", [2, 4, 6], rival, scale="numeric"),
        ],
        realizer=tell,
    ),
    answer=answers.json_field("conclusion", ["A", "B"]),
    design=Grid(axes=("leading", "rival")),
)
