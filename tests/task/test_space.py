"""Task spaces: the checked path from a seed to the task at any coordinate."""

from __future__ import annotations

import pytest

from modelscape import Axis, Prompt, TaskSpace, Variant, perturbation, realizer
from modelscape.errors import PerturbationError, TaskSpaceError
from modelscape.task import Task

from .languages import LARGE, SMALL, Applicant, Loan, cases, loan_space, set_size, set_term


def _space_with(size_via: object = set_size, term_via: object = set_term) -> TaskSpace[Loan]:
    axes = [
        Axis(Loan.size, ["small", "large"], size_via, scale="nominal"),  # type: ignore[arg-type]
        Axis("months", [12, 24, 36], term_via, scale="ordinal"),  # type: ignore[arg-type]
    ]
    return loan_space(axes=axes)


def test_task_at_the_baseline_is_the_seed_when_it_is_at_the_baseline() -> None:
    space = loan_space()
    assert space.task("ada") == cases()["ada"]
    assert space.task("ada", {"size": "small"}) == cases()["ada"]


def test_task_carries_exactly_the_coordinates_values() -> None:
    space = loan_space()
    for case in space.cases:
        for size in ("small", "large"):
            for months in (12, 24, 36):
                task = space.task(case, {"size": size, "months": months})
                assert task.attribute_values() == {"size": size, "months": months}
                assert task.applicant == cases()[case].applicant


def test_seeds_away_from_the_baseline_are_moved_to_it() -> None:
    space = loan_space()
    variant = space.variant("cy")
    assert variant.coordinate == {"size": "small", "months": 12}
    assert variant.task.amount == SMALL  # type: ignore[union-attr]
    assert [(s.axis, s.before, s.after) for s in variant.steps] == [
        ("size", "large", "small"),
        ("months", 24, 12),
    ]
    # already where the coordinate asks: no step at all
    assert space.variant("cy", {"size": "large", "months": 24}).steps == ()


def test_perturbations_are_applied_in_axis_order() -> None:
    calls: list[str] = []

    @perturbation
    def size_logged(loan: Loan, size: str) -> Loan:
        calls.append("size")
        return set_size(loan, size)

    @perturbation
    def term_logged(loan: Loan, months: int) -> Loan:
        calls.append("months")
        return set_term(loan, months)

    variant = _space_with(size_logged, term_logged).variant("ada", {"months": 36, "size": "large"})
    # Each step is applied twice: the second application checks that it is deterministic.
    assert calls == ["size", "size", "months", "months"]
    assert [step.axis for step in variant.steps] == ["size", "months"]
    assert variant.steps[1].perturbation == "term_logged@1"
    assert variant.steps[0].model_dump() == {
        "axis": "size",
        "before": "small",
        "after": "large",
        "perturbation": "size_logged@1",
        "also": (),
    }


def test_a_perturbation_that_does_not_set_its_attribute_is_caught() -> None:
    @perturbation
    def lazy(loan: Loan, months: int) -> Loan:
        return loan

    space = _space_with(term_via=lazy)
    with pytest.raises(PerturbationError) as caught:
        space.task("ada", {"size": "large", "months": 24})
    message = str(caught.value)
    assert "case 'ada'" in message
    assert "axis 'months'" in message
    assert "step 2 of 2" in message
    assert "perturbation 'lazy', 12 -> 24" in message
    assert "attribute 'months' is 12 afterwards" in message


def test_a_perturbation_that_moves_another_axis_is_caught() -> None:
    @perturbation
    def greedy(loan: Loan, size: str) -> Loan:
        return set_size(loan, size).model_copy(update={"term": 36})

    with pytest.raises(PerturbationError) as caught:
        _space_with(size_via=greedy).task("bo", {"size": "large"})
    message = str(caught.value)
    assert "case 'bo', axis 'size', step 1 of 1" in message
    assert "attribute 'months' moved from 12 to 36" in message
    assert "keep every other axis's attribute" in message


def test_a_perturbation_that_raises_is_reported_with_its_step() -> None:
    @perturbation
    def broken(loan: Loan, months: int) -> Loan:
        raise RuntimeError("no term table")

    with pytest.raises(PerturbationError) as caught:
        _space_with(term_via=broken).task("bo", {"months": 36})
    message = str(caught.value)
    assert "case 'bo', axis 'months', step 1 of 1 (perturbation 'broken', 12 -> 36)" in message
    assert "raised RuntimeError('no term table')" in message
    assert isinstance(caught.value.__cause__, RuntimeError)


def test_a_perturbation_that_returns_an_invalid_task_is_caught() -> None:
    # Dee earns 1,000, so a large loan breaks the language's validator; model_copy skips it
    poor = {"dee": Loan(applicant=Applicant(name="Dee", income=1_000), amount=SMALL)}
    space = loan_space(cases=poor)
    with pytest.raises(PerturbationError) as caught:
        space.task("dee", {"size": "large"})
    message = str(caught.value)
    assert "case 'dee', axis 'size', step 1 of 1" in message
    assert "produced an invalid task" in message
    assert f"amount {LARGE} exceeds ten times the income" in message


def test_a_perturbation_that_returns_no_task_is_caught() -> None:
    @perturbation
    def wrong(loan: Loan, size: str) -> Loan:
        return {"amount": 1}  # type: ignore[return-value]

    with pytest.raises(PerturbationError, match=r"axis 'size'.*returned dict, not a task of"):
        _space_with(size_via=wrong).task("ada", {"size": "large"})


def test_perturbation_error_is_a_task_space_error() -> None:
    assert issubclass(PerturbationError, TaskSpaceError)


def test_perturbation_identity() -> None:
    assert set_size.name == "set_size"
    assert str(set_size.identity) == "set_size@1"
    assert str(set_term.identity) == "set term@2"
    assert set_term.identity.kind == "perturbation"
    assert repr(set_term) == "perturbation(set term@2)"


def test_variant_has_everything_a_measure_needs() -> None:
    variant = loan_space().variant("bo", {"size": "large"})
    assert isinstance(variant, Variant)
    assert variant.case == "bo"
    assert variant.coordinate == {"size": "large", "months": 12}
    assert variant.location == {"size": "large", "months": 12}
    assert variant.language == "Loan"
    assert isinstance(variant.task, Loan)
    assert variant.task.amount == LARGE
    assert variant.attributes == {"size": "large", "months": 12}
    assert variant.reference == "decline"
    assert variant.prompt.system == "You are a loan officer."
    assert "asks for 20000 over 12 months" in variant.prompt.messages[0].content
    assert [step.axis for step in variant.steps] == ["size"]
    assert variant.changed({"size": "small", "months": 12}) == ("size",)
    assert len(variant.id) == 16


def test_variant_ids_are_stable_across_fresh_spaces() -> None:
    first = loan_space().variant("cy", {"months": 36})
    second = loan_space().variant("cy", {"months": 36})
    assert first.id == second.id
    assert first == second
    # a variant's data reads back; the task comes back as plain data
    data = first.model_dump(mode="json")
    assert Variant.model_validate(data).id == first.id


def test_variant_ids_differ_by_case_coordinate_and_prompt() -> None:
    space = loan_space()
    ids = {
        space.variant(case, {"size": size}).id
        for case in space.cases
        for size in ("small", "large")
    }
    assert len(ids) == 6

    @realizer(name="loan-letter", version="3", system="You are a strict loan officer.")
    def stricter(loan: Loan) -> str:
        return "Decide."

    other = loan_space(realizer=stricter).variant("ada")
    assert other.id != space.variant("ada").id


def test_variants_are_cached_by_coordinate() -> None:
    space = loan_space()
    assert space.variant("ada", {"months": 12}) is space.variant("ada")


def test_unknown_case_suggests_the_nearest() -> None:
    space = loan_space()
    with pytest.raises(TaskSpaceError, match=r"no case 'adda' \(did you mean 'ada'\?\)"):
        space.variant("adda")
    with pytest.raises(TaskSpaceError, match="no case 'zzz'"):
        space.task("zzz")


def test_task_prompt_is_used_without_a_realizer() -> None:
    class Question(Task):
        text: str

        def prompt(self) -> str:
            return self.text

    space = TaskSpace({"q": Question(text="Why?")}, [])
    variant = space.variant("q")
    assert variant.prompt == Prompt.of("Why?")
    assert variant.coordinate == {}
    assert space.realizer_identity is None
    assert loan_space().realizer_identity is not None


def test_space_without_realizer_or_prompt_names_the_language() -> None:
    space = loan_space(realizer=None)
    with pytest.raises(TaskSpaceError, match="task language 'Loan' has no prompt"):
        space.variant("ada")


def test_space_needs_cases_of_one_language() -> None:
    with pytest.raises(TaskSpaceError, match="needs at least one case"):
        loan_space(cases={})

    class Other(Task):
        text: str = ""

    mixed = {**cases(), "odd": Other()}
    with pytest.raises(TaskSpaceError, match=r"cases mix task languages \['Loan', 'Other'\]"):
        loan_space(cases=mixed)
    with pytest.raises(TaskSpaceError, match="case 'raw' is a dict, not a Task"):
        loan_space(cases={"raw": {"amount": 1}})


def test_space_rejects_unknown_and_duplicate_axes() -> None:
    with pytest.raises(TaskSpaceError) as caught:
        loan_space(axes=[Axis("sise", ["small"], set_size, scale="nominal")])
    message = str(caught.value)
    assert "axis 'sise': task language 'Loan' has no attribute 'sise'" in message
    assert "(did you mean 'size'?)" in message
    twice = [
        Axis("months", [12], set_term, scale="ordinal"),
        Axis("months", [24], set_term, scale="ordinal"),
    ]
    with pytest.raises(TaskSpaceError, match="axis 'months' is declared twice"):
        loan_space(axes=twice)


def test_space_repr() -> None:
    assert repr(loan_space()) == "TaskSpace(language='Loan', cases=3, axes=['size', 'months'])"
