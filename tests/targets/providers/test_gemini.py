"""The Gemini target against a loopback ``generateContent``: the key's header, the body, the
candidates, thoughts and blocked prompts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from modelscape.targets._resolve import resolve_target
from modelscape.targets._shape import AnswerShape
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers.gemini import GEMINI_BASE_URL, GeminiTarget
from modelscape.task.prompt import Message, Prompt
from tests.targets.providers.wire import WireServer, gemini_reply

REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?", system="Answer briefly."), seed=42)
KEY = "AIza-loopback-" + "6" * 24


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[WireServer]:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    running = WireServer(lambda seen: gemini_reply()).start()
    yield running
    running.stop()


def ask(target: GeminiTarget, request: TargetRequest = REQUEST) -> TargetOutput:
    return asyncio.run(target(request))


def test_the_key_travels_in_a_header_never_in_the_address(server: WireServer) -> None:
    ask(GeminiTarget("models/gemini-2.0-flash", base_url=server.url))
    (seen,) = server.seen
    assert seen.raw_path == "/models/gemini-2.0-flash:generateContent"
    assert seen.query == {}
    assert seen.headers["x-goog-api-key"] == KEY
    assert KEY not in seen.raw_path


def test_the_body_holds_contents_system_instruction_and_config(server: WireServer) -> None:
    conversation = Prompt(
        system="Answer briefly.",
        messages=(
            Message(role="user", content="Is 7 prime?"),
            Message(role="assistant", content="Yes."),
            Message(role="user", content="And 9?"),
        ),
    )
    target = GeminiTarget(
        "gemini-2.0-flash",
        base_url=server.url,
        generation=Generation(temperature=0.4, max_tokens=20, top_p=0.5, stop=["END"]),
    )
    ask(target, TargetRequest(prompt=conversation, seed=(1 << 40) + 7))
    assert server.seen[0].body == {
        "contents": [
            {"role": "user", "parts": [{"text": "Is 7 prime?"}]},
            {"role": "model", "parts": [{"text": "Yes."}]},
            {"role": "user", "parts": [{"text": "And 9?"}]},
        ],
        "systemInstruction": {"parts": [{"text": "Answer briefly."}]},
        "generationConfig": {
            "temperature": 0.4,
            "maxOutputTokens": 20,
            "topP": 0.5,
            "seed": 7,  # a 32-bit seed: the hint's low 31 bits
            "stopSequences": ["END"],
        },
    }


def test_thoughts_are_left_out_of_the_text_and_counted_as_output(server: WireServer) -> None:
    output = ask(GeminiTarget("gemini-2.5-flash", base_url=server.url))
    assert output.text == '{"answer": "yes"}'
    assert output.model == "gemini-2.0-flash-001"
    assert output.finish_reason == "STOP"
    assert output.usage is not None
    assert (output.usage.input_tokens, output.usage.output_tokens) == (10, 9)


def test_a_blocked_prompt_is_an_empty_reply_that_says_so(server: WireServer) -> None:
    server.then(
        body={"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 8}}
    )
    output = ask(GeminiTarget("gemini-2.0-flash", base_url=server.url))
    assert output.text == ""
    assert output.finish_reason == "blocked: SAFETY"
    assert output.error is None


def test_structured_answers_ask_for_json_of_the_answers_schema(server: WireServer) -> None:
    shape = AnswerShape(field="answer", choices=(True, False))
    target = GeminiTarget(
        "gemini-2.0-flash", base_url=server.url, structured=True, generation=Generation(seed=False)
    )
    ask(target, REQUEST.model_copy(update={"answer": shape}))
    assert server.seen[0].body["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseJsonSchema": shape.json_schema(),
    }


def test_named_by_text_it_reaches_googles_api_by_default(server: WireServer) -> None:
    target = resolve_target("gemini:gemini-2.0-flash", temperature=0)
    assert target.parameters["base_url"] == GEMINI_BASE_URL
    assert target.parameters["model"] == "gemini-2.0-flash"
    # "models/NAME" is how the API lists a model; it names the same target
    listed = resolve_target("gemini:models/gemini-2.0-flash", temperature=0)
    assert listed.identity == target.identity
