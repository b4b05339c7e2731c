"""Every step controlled: what a perturbation may move, determinism, and realizers."""

from __future__ import annotations

import itertools

import pytest

from modelscape.errors import PerturbationError, TaskSpaceError
from modelscape.task import Axis, Task, TaskSpace, attribute, perturbation, realizer
from modelscape.task.steps import Change
from modelscape.templates.template import Template


class Credit(Task):
    """A credit file: income band and outstanding debt are both declared attributes."""

    income: int
    debt: int = 0

    @attribute
    def band(self) -> str:
        return "high" if self.income >= 50_000 else "low"

    @attribute
    def has_debt(self) -> bool:
        return self.debt > 0

    def reference(self) -> str:
        return "approve" if self.band == "high" and not self.has_debt else "decline"


@realizer
def ask(credit: Credit) -> str:
    return f"Income {credit.income}, debt {credit.debt}. Approve?"


@perturbation
def set_band(credit: Credit, band: str) -> Credit:
    return credit.model_copy(update={"income": 80_000 if band == "high" else 20_000})


@perturbation
def set_band_confounded(credit: Credit, band: str) -> Credit:
    # A "richer" applicant written with a mortgage as well: two things change at once.
    income = 80_000 if band == "high" else 20_000
    return credit.model_copy(update={"income": income, "debt": 5_000 if band == "high" else 0})


@perturbation(free=["has_debt"])
def set_band_with_debt(credit: Credit, band: str) -> Credit:
    return set_band_confounded(credit, band)


def space(via: object) -> TaskSpace[Credit]:
    return TaskSpace(
        {"ann": Credit(income=20_000), "ben": Credit(income=30_000)},
        [Axis(Credit.band, ["low", "high"], via, scale="nominal")],  # type: ignore[arg-type]
        ask,
    )


def test_a_step_that_moves_an_attribute_no_axis_varies_is_refused() -> None:
    with pytest.raises(PerturbationError) as caught:
        space(set_band_confounded).variant("ann", {"band": "high"})
    message = str(caught.value)
    assert message.startswith(
        "case 'ann', axis 'band', step 1 of 1 (perturbation 'set_band_confounded', "
        "'low' -> 'high'): attribute 'has_debt' moved from False to True"
    )
    assert "no axis varies it" in message
    assert "@perturbation(free=['has_debt'])" in message


def test_a_declared_free_attribute_may_move_and_the_step_records_it() -> None:
    variant = space(set_band_with_debt).variant("ben", {"band": "high"})
    (step,) = variant.steps
    assert step.axis == "band"
    assert (step.before, step.after) == ("low", "high")
    assert step.also == (Change(attribute="has_debt", before=False, after=True),)
    assert variant.attributes == {"band": "high", "has_debt": True}
    assert set_band_with_debt.free == frozenset({"has_debt"})
    # A step that moves nothing else records nothing else.
    (plain,) = space(set_band).variant("ben", {"band": "high"}).steps
    assert plain.also == ()


def test_a_non_deterministic_perturbation_is_refused() -> None:
    draws = itertools.count()

    @perturbation(free=["has_debt"])
    def noisy(credit: Credit, band: str) -> Credit:
        # Each call writes a different debt: the same step gives two different tasks.
        moved = set_band(credit, band)
        return moved.model_copy(update={"debt": next(draws)})

    with pytest.raises(PerturbationError) as caught:
        space(noisy).variant("ann", {"band": "high"})
    message = str(caught.value)
    assert "case 'ann', axis 'band', step 1 of 1 (perturbation 'noisy'" in message
    assert "not deterministic" in message
    assert "attribute 'has_debt' is False once and True the other time" in message

    @perturbation
    def jittery(credit: Credit, band: str) -> Credit:
        # The attributes agree, but a field the prompt shows does not.
        return set_band(credit, band).model_copy(update={"income": 80_000 + next(draws)})

    with pytest.raises(PerturbationError, match=r"not deterministic.*field 'income' differs"):
        space(jittery).variant("ann", {"band": "high"})


def test_free_takes_a_list_of_names() -> None:
    with pytest.raises(TaskSpaceError, match="free takes a list of attribute names"):
        perturbation(free="has_debt")(set_band.function)


def test_a_plain_function_is_refused_as_a_realizer_at_construction() -> None:
    def write(credit: Credit) -> str:
        return "hello"

    with pytest.raises(TaskSpaceError) as caught:
        TaskSpace(
            {"ann": Credit(income=1)},
            [Axis(Credit.band, ["low", "high"], set_band, scale="nominal")],
            write,  # type: ignore[arg-type]
        )
    message = str(caught.value)
    assert "the realizer 'write' is a plain function, not a realizer" in message
    assert "declare it with @realizer" in message


def test_template_steps_declare_what_moves_with_them() -> None:
    template = Template(
        "{name} asks.",
        {
            "name": [
                {"label": "Ann", "gender": "female", "region": "north"},
                {"label": "Ben", "gender": "male", "region": "north"},
                {"label": "Cleo", "gender": "female", "region": "south"},
                {"label": "Dan", "gender": "male", "region": "south"},
            ]
        },
    )
    swapped = template.space([template.axis("name.gender", "nominal")], cases=2)
    case = next(iter(swapped.cases))
    (step,) = swapped.variant(case, {"name.gender": "male"}).steps
    assert step.also == (Change(attribute="name", before="Ann", after="Ben"),)
    relabelled = template.space([template.axis("name", "nominal")])
    (step,) = relabelled.variant("case", {"name": "Dan"}).steps
    assert step.also == (
        Change(attribute="name.gender", before="female", after="male"),
        Change(attribute="name.region", before="north", after="south"),
    )
