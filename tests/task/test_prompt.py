"""Prompts, messages and realizers: the exact text a target receives."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from modelscape import Message, Prompt, realizer
from modelscape.errors import TaskSpaceError
from modelscape.task import FunctionRealizer

from .languages import Applicant, Loan, write_loan

LOAN = Loan(applicant=Applicant(name="Ada", income=50_000), amount=2_000)


def test_message_roles_are_user_or_assistant() -> None:
    assert Message(role="assistant", content="hi").role == "assistant"
    with pytest.raises(ValidationError, match="role"):
        Message(role="system", content="hi")  # type: ignore[arg-type]


def test_prompt_must_end_with_a_user_message() -> None:
    turns = (Message(role="user", content="a"), Message(role="assistant", content="b"))
    with pytest.raises(ValidationError, match="must end with a user message"):
        Prompt(messages=turns)
    with pytest.raises(ValidationError, match="messages"):
        Prompt(messages=())
    prompt = Prompt(messages=(*turns, Message(role="user", content="c")))
    assert [m.content for m in prompt.messages] == ["a", "b", "c"]


def test_prompt_is_frozen_and_forbids_extra_keys() -> None:
    prompt = Prompt.of("hello")
    with pytest.raises(ValidationError):
        prompt.system = "x"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="temperature"):
        Prompt(messages=prompt.messages, temperature=0)  # type: ignore[call-arg]


def test_prompt_of_text_and_of_prompt() -> None:
    prompt = Prompt.of("hello", system="be brief")
    assert prompt.system == "be brief"
    assert prompt.messages == (Message(role="user", content="hello"),)
    assert Prompt.of(prompt, system="ignored") is prompt
    with pytest.raises(TaskSpaceError, match="must return a Prompt or text, not int"):
        Prompt.of(3)  # type: ignore[arg-type]


def test_prompt_text_for_review() -> None:
    assert Prompt.of("hello").text == "hello"
    assert Prompt.of("hello", system="sys").text == "[system]\nsys\n\n[user]\nhello"


def test_bare_realizer_is_named_after_its_function() -> None:
    @realizer
    def ask(loan: Loan) -> str:
        return f"Amount {loan.amount}?"

    assert isinstance(ask, FunctionRealizer)
    assert ask.identity.name == "ask"
    assert ask.identity.version == "1"
    assert ask.identity.kind == "realizer"
    assert ask.identity.parameters == {}
    assert ask(LOAN) == Prompt(messages=(Message(role="user", content="Amount 2000?"),))


def test_realizer_with_options_applies_system_to_text() -> None:
    assert write_loan.identity.name == "loan-letter"
    assert write_loan.identity.version == "3"
    assert str(write_loan.identity) == "loan-letter@3"
    assert write_loan.identity.parameters == {"system": "You are a loan officer."}
    prompt = write_loan(LOAN)
    assert prompt.system == "You are a loan officer."
    assert prompt.messages[-1].content.startswith("Ada earns 50000")


def test_system_is_not_applied_to_a_returned_prompt() -> None:
    @realizer(system="ignored for prompts")
    def chat(loan: Loan) -> Prompt:
        return Prompt(
            messages=(
                Message(role="user", content="Hi"),
                Message(role="assistant", content="Hello"),
                Message(role="user", content=str(loan.amount)),
            )
        )

    prompt = chat(LOAN)
    assert prompt.system is None
    assert len(prompt.messages) == 3


def test_realizer_parameters_and_version_change_identity() -> None:
    def ask(loan: Loan) -> str:
        return "?"

    first = realizer(name="ask", parameters={"language": "en"})(ask)
    second = realizer(name="ask", parameters={"language": "fr"})(ask)
    third = realizer(name="ask", version="2", parameters={"language": "en"})(ask)
    assert first.identity.parameters == {"language": "en"}
    ids = {first.identity.id, second.identity.id, third.identity.id}
    assert len(ids) == 3
    again = realizer(name="ask", parameters={"language": "en"})(ask)
    assert again.identity.id == first.identity.id


def test_realizer_returning_something_else_is_an_error() -> None:
    @realizer
    def broken(loan: Loan) -> str:
        return 42  # type: ignore[return-value]

    with pytest.raises(TaskSpaceError, match="not int"):
        broken(LOAN)
