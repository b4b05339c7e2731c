"""A small task language shared by the task tests: a loan application and its perturbations."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from modelscape.task import Axis, Node, Task, TaskSpace, attribute, perturbation, realizer

__all__ = [
    "Applicant",
    "Loan",
    "loan_space",
    "set_size",
    "set_term",
    "write_loan",
]

SMALL, LARGE = 2_000, 20_000


class Applicant(Node):
    """Who asks for the loan."""

    name: str
    income: int = Field(gt=0)


class Loan(Task):
    """A loan application: the amount must not exceed ten times the yearly income."""

    applicant: Applicant
    amount: int = Field(gt=0)
    term: Literal[12, 24, 36] = 12
    note: str = ""

    @model_validator(mode="after")
    def _affordable(self) -> Loan:
        if self.amount > 10 * self.applicant.income:
            raise ValueError(f"amount {self.amount} exceeds ten times the income")
        return self

    @attribute
    def size(self) -> str:
        """Whether the amount is small or large."""
        return "small" if self.amount < 10_000 else "large"

    @attribute
    def months(self) -> int:
        return self.term

    def reference(self) -> str:
        return "approve" if self.amount <= self.applicant.income // 2 else "decline"


@perturbation
def set_size(loan: Loan, size: str) -> Loan:
    return loan.model_copy(update={"amount": SMALL if size == "small" else LARGE})


@perturbation(name="set term", version="2")
def set_term(loan: Loan, months: int) -> Loan:
    return loan.model_copy(update={"term": months})


@realizer(name="loan-letter", version="3", system="You are a loan officer.")
def write_loan(loan: Loan) -> str:
    return (
        f"{loan.applicant.name} earns {loan.applicant.income} a year and asks for "
        f"{loan.amount} over {loan.term} months.{loan.note} Approve or decline?"
    )


def cases() -> dict[str, Loan]:
    """Two seeds at the baseline and one away from it (a large loan over 24 months)."""
    return {
        "ada": Loan(applicant=Applicant(name="Ada", income=50_000), amount=SMALL),
        "bo": Loan(applicant=Applicant(name="Bo", income=3_000), amount=SMALL),
        "cy": Loan(applicant=Applicant(name="Cy", income=90_000), amount=LARGE, term=24),
    }


def loan_space(**overrides: object) -> TaskSpace[Loan]:
    """A fresh space over size (nominal) and months (ordinal), realized by write_loan."""
    axes = [
        Axis(Loan.size, ["small", "large"], set_size, scale="nominal"),
        Axis("months", [12, 24, 36], set_term, scale="ordinal"),
    ]
    settings: dict[str, object] = {"cases": cases(), "axes": axes, "realizer": write_loan}
    settings.update(overrides)
    return TaskSpace(**settings)  # type: ignore[arg-type]
