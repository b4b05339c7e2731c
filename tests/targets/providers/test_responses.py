"""The OpenAI Responses target against a loopback ``/v1/responses``: body, reply items, status."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from modelscape.errors import ExecutionError
from modelscape.targets._resolve import resolve_target
from modelscape.targets._shape import AnswerShape
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers.responses import OpenAIResponsesTarget
from modelscape.task.prompt import Message, Prompt
from tests.targets.providers.wire import WireServer, responses_reply

REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?", system="Answer briefly."), seed=42)


@pytest.fixture
def server() -> Iterator[WireServer]:
    running = WireServer(lambda seen: responses_reply()).start()
    yield running
    running.stop()


def ask(server: WireServer, request: TargetRequest = REQUEST, **options: object) -> TargetOutput:
    target = OpenAIResponsesTarget("gpt-fake", base_url=f"{server.url}/v1", **options)  # type: ignore[arg-type]
    return asyncio.run(target(request))


def test_the_body_holds_instructions_input_and_no_seed(server: WireServer) -> None:
    conversation = Prompt(
        system="Answer briefly.",
        messages=(
            Message(role="user", content="Is 7 prime?"),
            Message(role="assistant", content="Yes."),
            Message(role="user", content="And 9?"),
        ),
    )
    ask(
        server,
        REQUEST.model_copy(update={"prompt": conversation}),
        generation=Generation(temperature=0.3, max_tokens=40),
    )
    (seen,) = server.seen
    assert seen.raw_path == "/v1/responses"
    assert seen.body == {
        "model": "gpt-fake",
        "input": [
            {"role": "user", "content": "Is 7 prime?"},
            {"role": "assistant", "content": "Yes."},
            {"role": "user", "content": "And 9?"},
        ],
        "instructions": "Answer briefly.",
        "store": False,
        "temperature": 0.3,
        "max_output_tokens": 40,
    }


def test_message_items_are_read_and_reasoning_items_skipped(server: WireServer) -> None:
    reply = responses_reply("Yes", model="gpt-fake-2025-06")
    reply["output"][1]["content"].append({"type": "output_text", "text": ", prime."})
    reply["output"].insert(0, {"type": "web_search_call", "id": "ws_1", "status": "completed"})
    server.then(body=reply)
    output = ask(server)
    assert output.text == "Yes, prime."
    assert output.model == "gpt-fake-2025-06"
    assert output.finish_reason == "completed"
    assert output.usage is not None
    assert (output.usage.input_tokens, output.usage.output_tokens) == (11, 7)


def test_an_incomplete_reply_says_why(server: WireServer) -> None:
    reply = responses_reply("Yes, se")
    reply["status"] = "incomplete"
    reply["incomplete_details"] = {"reason": "max_output_tokens"}
    server.then(body=reply)
    output = ask(server)
    assert output.text == "Yes, se"
    assert output.finish_reason == "incomplete: max_output_tokens"


def test_a_refusal_is_the_reply_when_there_is_no_text(server: WireServer) -> None:
    reply = responses_reply()
    reply["output"][1]["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
    server.then(body=reply)
    assert ask(server).text == "I can't help with that."


def test_the_joined_output_text_is_read_when_a_server_sends_only_that(server: WireServer) -> None:
    server.then(body={"status": "completed", "output_text": "Yes.", "model": "m"})
    assert ask(server).text == "Yes."


def test_a_failed_response_is_a_retryable_error_with_its_message(server: WireServer) -> None:
    server.then(
        body={
            "status": "failed",
            "error": {"code": "server_error", "message": "The model crashed."},
            "output": [],
        }
    )
    with pytest.raises(TargetError, match=r"The model crashed\.") as raised:
        ask(server)
    assert raised.value.retryable


def test_structured_answers_ask_for_the_schema_in_text_format(server: WireServer) -> None:
    shape = AnswerShape(field="answer", choices=("yes", "no"))
    ask(server, REQUEST.model_copy(update={"answer": shape}), structured=True)
    assert server.seen[0].body["text"] == {
        "format": {
            "type": "json_schema",
            "name": "answer",
            "strict": True,
            "schema": shape.json_schema(),
        }
    }


@pytest.mark.parametrize("option", [{"seed": True}, {"stop": ["\n"]}, {"region": "us-east-1"}])
def test_options_the_api_lacks_are_refused(option: dict[str, object]) -> None:
    with pytest.raises(ExecutionError, match="not apply to openai-responses"):
        resolve_target("openai-responses:gpt-fake@http://127.0.0.1:9/v1", **option)
