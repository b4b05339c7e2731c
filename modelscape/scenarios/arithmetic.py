"""Arithmetic word problems: which changes move the answer, and which should not.

The design follows the idea of symbolic variants of grade-school problems: one story is told
with other names, other numbers, with a sentence that is true but irrelevant (it even holds a
number), and with one more step. The answer is computed from the story's own numbers, so:

- ``who`` (the person's name) and ``noise`` (the irrelevant sentence) are invariant: a change of
  answer there is a spurious one;
- ``amount`` (the first number of the story) and ``steps`` (an extra operation) are causal: the
  correct answer changes with them, and an answer that does not is a missed change.

The stories and their wording are written for modelscape; no benchmark text is reused.
"""

from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from modelscape import answers
from modelscape.scenario import Scenario
from modelscape.task import Axis, Task, TaskSpace, attribute, perturbation, realizer

__all__ = ["SCENARIO", "STORIES", "WordProblem"]

Operation = Literal["add", "multiply", "subtract"]

#: Each story: how its first two numbers combine, how the extra step changes the total, the
#: story, the extra step, the irrelevant sentence and the question. {name}, {a}, {b}, {c}.
STORIES: dict[str, tuple[Operation, Operation, str, str, str, str]] = {
    "shells": (
        "add",
        "subtract",
        "{name} collects {a} seashells on Monday and {b} more on Tuesday.",
        "On Wednesday, {name} gives {c} of the shells to a younger cousin.",
        "Four of the shells have stripes, which {name} likes best.",
        "How many seashells does {name} have now?",
    ),
    "pages": (
        "multiply",
        "add",
        "{name} reads {a} pages every evening for {b} evenings.",
        "On Sunday morning, {name} reads another {c} pages.",
        "The book has a green cover and was printed 12 years ago.",
        "How many pages has {name} read in all?",
    ),
    "savings": (
        "subtract",
        "subtract",
        "{name} has {a} dollars and spends {b} dollars on a lunch box.",
        "Later that day, {name} spends {c} dollars on a pencil case.",
        "The shop where {name} buys it closes at 6 in the evening.",
        "How many dollars does {name} have left?",
    ),
    "tulips": (
        "multiply",
        "subtract",
        "{name} plants {a} rows of tulips with {b} tulips in each row.",
        "A week later, rabbits eat {c} of the tulips.",
        "The garden gate next to the tulips was painted 3 years ago.",
        "How many tulips are in the garden now?",
    ),
}


def _apply(operation: Operation, x: int, y: int) -> int:
    if operation == "add":
        return x + y
    if operation == "multiply":
        return x * y
    return x - y


class WordProblem(Task):
    """One story with its person, its three numbers, and whether the irrelevant sentence and
    the extra step are told."""

    story: str
    name: str
    a: int
    b: int
    c: int
    noisy: bool = False
    extra: bool = False

    @model_validator(mode="after")
    def _valid(self) -> WordProblem:
        if self.story not in STORIES:
            raise ValueError(f"no story {self.story!r}; the stories are {sorted(STORIES)}")
        if min(self.a, self.b, self.c) < 1:
            raise ValueError("every number of a word problem is a positive whole number")
        if self.reference() < 0:
            raise ValueError(
                f"the {self.story} story with {self.a}, {self.b}, {self.c} ends below 0"
            )
        return self

    @attribute
    def who(self) -> str:
        return self.name

    @attribute
    def amount(self) -> int:
        return self.a

    @attribute
    def noise(self) -> str:
        return "irrelevant sentence" if self.noisy else "none"

    @attribute
    def steps(self) -> int:
        return 3 if self.extra else 2

    def reference(self) -> int:
        first, then, *_ = STORIES[self.story]
        total = _apply(first, self.a, self.b)
        return _apply(then, total, self.c) if self.extra else total


@perturbation
def rename(task: WordProblem, value: str) -> WordProblem:
    return task.model_copy(update={"name": value})


@perturbation
def renumber(task: WordProblem, value: int) -> WordProblem:
    return task.model_copy(update={"a": value})


@perturbation
def distract(task: WordProblem, value: str) -> WordProblem:
    return task.model_copy(update={"noisy": value != "none"})


@perturbation
def lengthen(task: WordProblem, value: int) -> WordProblem:
    return task.model_copy(update={"extra": value == 3})


SYSTEM = (
    'Solve the word problem. Reply with a JSON object of the form {"answer": N}, where N is '
    "the final number as digits, and nothing else."
)


@realizer(name="word-problem", version="1", system=SYSTEM)
def tell(task: WordProblem) -> str:
    """The story, the irrelevant sentence after its first line, the extra step, the question."""
    _, _, story, extra, noise, question = STORIES[task.story]
    lines = [story, *([noise] if task.noisy else []), *([extra] if task.extra else []), question]
    return " ".join(line.format(name=task.name, a=task.a, b=task.b, c=task.c) for line in lines)


#: Two cases per story: the same story with other second and third numbers (small enough for
#: the savings story to stay above zero at the smallest first number).
_NUMBERS = {"shells": [(3, 2), (5, 4)], "pages": [(3, 2), (5, 4)], "savings": [(3, 2), (2, 1)],
            "tulips": [(3, 2), (5, 4)]}  # fmt: skip
_CASES = {
    f"{story}-{i + 1}": WordProblem(story=story, name="Sofia", a=6, b=b, c=c)
    for story, numbers in _NUMBERS.items()
    for i, (b, c) in enumerate(numbers)
}

SCENARIO = Scenario(
    name="arithmetic",
    version="1",
    description=(
        "Do a model's answers to a word problem follow its numbers and steps, and only them? "
        "Names and an irrelevant sentence should not change the answer; the first number and "
        "an extra step should, to the value the problem computes."
    ),
    task_space=TaskSpace(
        _CASES,
        [
            Axis("who", ["Sofia", "Liam", "Aisha", "Kenji", "Olga"], rename, scale="nominal"),
            Axis("amount", [6, 9, 14, 23, 38], renumber, scale="numeric"),
            Axis("noise", ["none", "irrelevant sentence"], distract, scale="nominal"),
            Axis("steps", [2, 3], lengthen, scale="ordinal"),
        ],
        realizer=tell,
    ),
    answer=answers.json_field("answer"),
    groups={
        "addition and subtraction": [
            c for c, t in _CASES.items() if STORIES[t.story][0] != "multiply"
        ],
        "multiplication": [c for c, t in _CASES.items() if STORIES[t.story][0] == "multiply"],
    },
)
