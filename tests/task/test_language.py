"""The task language: tasks, nodes, attributes and the schema of a language."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from modelscape import Node, Task, TaskSchema, attribute
from modelscape.errors import TaskSpaceError
from modelscape.task import Attribute

from .languages import Applicant, Loan


def _loan(**changes: object) -> Loan:
    data: dict[str, object] = {"applicant": Applicant(name="Ada", income=50_000), "amount": 2_000}
    data.update(changes)
    return Loan(**data)  # type: ignore[arg-type]


def test_attribute_on_the_class_is_the_attribute_and_on_a_task_its_value() -> None:
    assert isinstance(Loan.size, Attribute)
    assert Loan.size.name == "size"
    loan = _loan(amount=12_000)
    assert loan.size == "large"
    assert loan.months == 12
    assert Loan.size(loan) == "large"


def test_attribute_values_follow_declaration_order() -> None:
    assert list(Loan.declared_attributes()) == ["size", "months"]
    assert _loan(term=36).attribute_values() == {"size": "small", "months": 36}


def test_attributes_are_inherited_and_extended() -> None:
    class Secured(Loan):
        collateral: str = "house"

        @attribute
        def secured(self) -> bool:
            return bool(self.collateral)

    assert list(Secured.declared_attributes()) == ["size", "months", "secured"]
    task = Secured(applicant=Applicant(name="Ada", income=50_000), amount=2_000)
    assert task.attribute_values() == {"size": "small", "months": 12, "secured": True}
    assert Secured.language_name() == "Secured"


def test_language_is_the_class_name_not_the_module() -> None:
    assert Loan.language_name() == "Loan"
    assert _loan().language == "Loan"
    assert Loan.__module__ != "Loan"


def test_reference_and_default_reference() -> None:
    assert _loan(amount=2_000).reference() == "approve"
    assert _loan(amount=40_000).reference() == "decline"

    class Open(Task):
        question: str

    assert Open(question="why?").reference() is None


def test_validators_decide_which_tasks_are_valid() -> None:
    with pytest.raises(ValidationError, match="exceeds ten times the income"):
        _loan(amount=600_000)
    with pytest.raises(ValidationError, match="term"):
        _loan(term=18)
    with pytest.raises(ValidationError, match="income"):
        Applicant(name="Ada", income=0)


def test_extra_keys_are_forbidden() -> None:
    with pytest.raises(ValidationError, match="interest"):
        _loan(interest=0.05)
    with pytest.raises(ValidationError, match="age"):
        Applicant(name="Ada", income=1, age=30)  # type: ignore[call-arg]


def test_tasks_and_nodes_are_immutable() -> None:
    loan = _loan()
    with pytest.raises(ValidationError, match="frozen"):
        loan.amount = 5  # type: ignore[misc]
    with pytest.raises(ValidationError, match="frozen"):
        loan.applicant.income = 5  # type: ignore[misc]
    assert hash(loan.applicant) == hash(Applicant(name="Ada", income=50_000))


def test_node_is_a_plain_immutable_model() -> None:
    class Evidence(Node):
        text: str

    evidence = Evidence(text="a receipt")
    with pytest.raises(ValidationError):
        evidence.text = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="weight"):
        Evidence(text="x", weight=1)  # type: ignore[call-arg]


def test_prompt_without_a_realizer_is_an_error_naming_the_language() -> None:
    with pytest.raises(TaskSpaceError, match="task language 'Loan' has no prompt"):
        _loan().prompt()


def test_checked_validates_again() -> None:
    unchecked = _loan().model_copy(update={"amount": 10**9})
    with pytest.raises(ValidationError, match="exceeds"):
        unchecked.checked()
    assert _loan().checked() == _loan()


def test_schema_has_the_json_schema_and_typed_attributes() -> None:
    schema = TaskSchema.of(Loan)
    assert schema.language == "Loan"
    properties = schema.structure["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {"applicant", "amount", "term", "note"}
    assert "Applicant" in str(schema.structure)
    assert [(a.name, a.type) for a in schema.attributes] == [("size", "str"), ("months", "int")]
    assert schema.attributes[0].description == "Whether the amount is small or large."
    assert schema.attributes[1].description is None
    assert TaskSchema.model_validate(schema.model_dump(mode="json")) == schema


def test_schema_of_unannotated_or_optional_attributes() -> None:
    class Loose(Task):
        value: int = 0

        @attribute
        def anything(self):  # type: ignore[no-untyped-def]
            return self.value

        @attribute
        def maybe(self) -> int | None:
            return None

    types = {a.name: a.type for a in TaskSchema.of(Loose).attributes}
    assert types["anything"] == "any"
    assert "int" in types["maybe"]
    assert "None" in types["maybe"]


def test_schema_needs_a_task_class() -> None:
    with pytest.raises(TaskSpaceError, match="needs a Task subclass"):
        TaskSchema.of(Applicant)  # type: ignore[arg-type]
    with pytest.raises(TaskSpaceError, match="needs a Task subclass"):
        TaskSchema.of(_loan())  # type: ignore[arg-type]


def test_schema_is_frozen() -> None:
    schema = TaskSchema.of(Loan)
    with pytest.raises(ValidationError):
        schema.language = "Other"  # type: ignore[misc]
