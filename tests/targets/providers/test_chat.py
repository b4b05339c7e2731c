"""The OpenAI chat-completions reply, read by one function for the HTTP and in-process targets."""

from __future__ import annotations

from typing import Any

import pytest

from modelscape.targets.protocol import TargetError, Usage
from modelscape.targets.providers._chat import chat_messages, read_chat_completion
from modelscape.task.prompt import Message, Prompt


def reply(**message: Any) -> dict[str, Any]:
    return {
        "model": "m-1",
        "choices": [{"message": {"role": "assistant", **message}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 2},
    }


def test_the_first_choice_its_finish_reason_the_model_and_usage() -> None:
    output = read_chat_completion(reply(content="yes"), provider="p", latency=0.5)
    assert (output.text, output.model, output.finish_reason) == ("yes", "m-1", "stop")
    assert output.usage == Usage(input_tokens=9, output_tokens=2)
    assert output.latency == 0.5


def test_content_parts_are_joined_and_a_refusal_is_the_reply() -> None:
    parts = [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
    assert read_chat_completion(reply(content=parts), provider="p").text == "ab"
    refused = read_chat_completion(reply(content=None, refusal="I cannot"), provider="p")
    assert refused.text == "I cannot"


def test_missing_or_malformed_fields_are_left_empty() -> None:
    payload: dict[str, Any] = {"choices": [{"message": "odd", "finish_reason": 3}]}
    output = read_chat_completion(payload, provider="p")
    assert (output.text, output.model, output.usage, output.finish_reason) == ("", None, None, None)
    flags = {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": True}}
    assert read_chat_completion(flags, provider="p").usage == Usage()  # a bool is no count


def test_a_reply_without_choices_is_a_retryable_error() -> None:
    with pytest.raises(
        TargetError, match="p at http://h/v1 sent a reply without choices"
    ) as caught:
        read_chat_completion({"choices": []}, provider="p", url="http://h/v1")
    assert caught.value.retryable
    with pytest.raises(TargetError, match="sent an error in its reply: over quota sk-\\[key\\]"):
        read_chat_completion(
            {"error": {"message": "over quota sk-secret"}},
            provider="p",
            scrub=lambda text: text.replace("secret", "[key]"),
        )


def test_messages_put_the_system_instruction_first() -> None:
    prompt = Prompt(system="Be brief.", messages=(Message(role="user", content="Hi"),))
    assert chat_messages(prompt) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert chat_messages(Prompt.of("Hi")) == [{"role": "user", "content": "Hi"}]
