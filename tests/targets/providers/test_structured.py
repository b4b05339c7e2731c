"""Structured answers: the answer reader's shape, how each provider asks for it, and real
llama.cpp models whose every reply parses when it is on."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from modelscape import CallableTarget, Experiment, Runner
from modelscape.answers import json_field, shape_of, text_match
from modelscape.errors import ExecutionError
from modelscape.results.results import Results, run_of
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore
from modelscape.targets._shape import AnswerShape
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.targets.providers import Generation
from modelscape.targets.providers._names import provider_target
from modelscape.targets.providers.anthropic import AnthropicTarget
from modelscape.targets.providers.openai import OpenAICompatibleTarget
from modelscape.task.prompt import Prompt
from tests.targets.providers.fake_server import FakeProvider, anthropic_message, chat_completion
from tests.targets.providers.loopback import require
from tests.targets.providers.small_specs import VARIANTS, small_return_window

VERDICT = AnswerShape(field="verdict", choices=("yes", "no"))
REQUEST = TargetRequest(prompt=Prompt.of("Is 7 prime?"), seed=3, answer=VERDICT)


# -- the shape ---------------------------------------------------------------------------------
def test_a_json_field_shape_is_a_strict_schema() -> None:
    assert VERDICT.json_schema() == {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["verdict"],
        "additionalProperties": False,
    }
    mixed = AnswerShape(field="n", choices=(1, 2.5, True))
    assert mixed.json_schema()["properties"]["n"] == {
        "type": ["boolean", "integer", "number"],
        "enum": [1, 2.5, True],
    }
    free = AnswerShape(field="n")
    assert free.json_schema()["properties"]["n"] == {"type": ["string", "number", "boolean"]}


def test_a_plain_shape_has_no_schema_and_needs_choices() -> None:
    with pytest.raises(ValueError, match="no JSON schema"):
        AnswerShape(choices=("yes",)).json_schema()
    with pytest.raises(ValueError, match="needs its choices"):
        AnswerShape()
    with pytest.raises(ValueError, match="must not be empty"):
        AnswerShape(field="x", choices=())


def test_grammars_spell_choices_as_the_reader_reads_them() -> None:
    assert VERDICT.grammar() == (
        'root ::= "{" space "\\"verdict\\"" space ":" space value space "}"\n'
        'value ::= "\\"yes\\"" | "\\"no\\""\n'
        'space ::= " "?\n'
    )
    assert AnswerShape(field="ok", choices=(True, False)).grammar().splitlines()[1] == (
        'value ::= "true" | "false"'
    )
    plain = AnswerShape(choices=("yes", 3, 'say "hi"\\\n'))
    assert plain.grammar() == 'root ::= value\nvalue ::= "yes" | "3" | "say \\"hi\\"\\\\\\x0A"\n'


def test_the_built_in_readers_give_their_shapes() -> None:
    assert shape_of(json_field("verdict", ["yes", "no"])) == VERDICT
    assert shape_of(json_field("n")) == AnswerShape(field="n")
    assert shape_of(text_match(r"\b(yes|no)\b", ["yes", "no"])) == AnswerShape(
        choices=("yes", "no")
    )
    # a pattern that needs words around the choice reads no reply that is only the choice
    assert shape_of(text_match(r"Answer: (yes|no)", ["yes", "no"])) is None
    assert shape_of(lambda output: None) is None  # type: ignore[arg-type]


def _reads(shape: AnswerShape, reply: str) -> object:
    reader = (
        text_match(r"(?s)^(.*)$", list(shape.choices or ()))
        if shape.field is None
        else json_field(shape.field, shape.choices)
    )
    return reader(TargetOutput(text=reply))


@given(
    field=st.text(min_size=1, max_size=20),
    choices=st.lists(
        st.one_of(
            st.text(min_size=1, max_size=20).filter(lambda t: t.strip() == t and t.strip()),
            st.integers(-1000, 1000),
            st.booleans(),
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda c: (type(c), c),
    ),
)
def test_every_reply_a_grammar_allows_is_read_as_its_choice(
    field: str, choices: list[str | int | bool]
) -> None:
    """The replies a grammar spells, parsed by the reader, are the choices themselves; and
    llama.cpp compiles the grammar of any field name and choice text."""
    shape = AnswerShape(field=field, choices=tuple(choices))
    grammar = shape.grammar()
    alternatives = re.search(r"^value ::= (.*)$", grammar, re.M)
    assert alternatives is not None
    for choice in choices:
        reply = "{" + json.dumps(field, ensure_ascii=False) + ":" + json.dumps(choice) + "}"
        assert json.loads(reply)[field] == choice
        read = _reads(shape, reply)
        assert read == choice or (isinstance(choice, str) and read is not None)
    if importlib.util.find_spec("llama_cpp") is not None:
        import llama_cpp

        assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) is not None


# -- how each provider asks ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "json_schema",
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": "answer",
                        "strict": True,
                        "schema": VERDICT.json_schema(),
                    },
                }
            },
        ),
        (
            "json_object",
            {"response_format": {"type": "json_object", "schema": VERDICT.json_schema()}},
        ),
        ("grammar", {"grammar": VERDICT.grammar()}),
    ],
)
def test_openai_compatible_targets_ask_in_the_way_chosen(
    fake: FakeProvider, mode: str, expected: dict[str, Any]
) -> None:
    target = OpenAICompatibleTarget("m", base_url=fake.url, structured=mode)
    asyncio.run(target(REQUEST))
    (received,) = fake.requests
    assert {k: v for k, v in received.body.items() if k in expected} == expected
    assert target.parameters["structured"] == mode


def test_structured_true_is_the_providers_own_way_and_off_changes_nothing(
    fake: FakeProvider,
) -> None:
    assert OpenAICompatibleTarget("m", base_url=fake.url, structured=True).structured == (
        "json_schema"
    )
    assert AnthropicTarget("m", base_url=fake.root, structured=True).structured == "tool"
    plain = OpenAICompatibleTarget("m", base_url=fake.url)
    asyncio.run(plain(REQUEST))
    (received,) = fake.requests
    assert "response_format" not in received.body
    assert "grammar" not in received.body
    # plain targets keep the identity they had before structured answers existed
    assert "structured" not in plain.parameters
    assert plain.identity.id == OpenAICompatibleTarget("m", base_url=fake.url).identity.id
    assert (
        plain.identity.id
        != OpenAICompatibleTarget("m", base_url=fake.url, structured=True).identity.id
    )


def test_a_refusal_is_kept_as_the_reply(fake: FakeProvider) -> None:
    reply = chat_completion()
    reply["choices"][0]["message"] = {"role": "assistant", "content": None, "refusal": "No."}
    fake.then(body=reply)
    output = asyncio.run(OpenAICompatibleTarget("m", base_url=fake.url, structured=True)(REQUEST))
    assert output.text == "No."
    assert json_field("verdict", ["yes", "no"])(output) is None


def test_anthropic_makes_the_model_call_an_answer_tool(fake: FakeProvider) -> None:
    reply = anthropic_message()
    reply["content"] = [
        {"type": "tool_use", "id": "t1", "name": "answer", "input": {"verdict": "no"}}
    ]
    reply["stop_reason"] = "tool_use"
    fake.then(body=reply)
    target = AnthropicTarget("claude-x", base_url=fake.root, structured=True)
    output = asyncio.run(target(REQUEST))
    (received,) = fake.requests
    assert received.body["tools"] == [
        {
            "name": "answer",
            "description": "Give your answer.",
            "input_schema": VERDICT.json_schema(),
        }
    ]
    assert received.body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert output.data == {"verdict": "no"}
    assert json.loads(output.text) == {"verdict": "no"}
    assert json_field("verdict", ["yes", "no"])(output) == "no"
    assert target.parameters["structured"] == "tool"


def test_a_plain_anthropic_target_ignores_tool_blocks(fake: FakeProvider) -> None:
    reply = anthropic_message("yes")
    reply["content"].append({"type": "tool_use", "name": "answer", "input": {"verdict": "no"}})
    fake.then(body=reply)
    output = asyncio.run(AnthropicTarget("claude-x", base_url=fake.root)(REQUEST))
    assert output.data is None
    assert output.text == "yes"


@pytest.mark.parametrize(
    ("kind", "argument", "value", "problem"),
    [
        (
            "openai-compatible",
            "m@http://127.0.0.1:9/v1",
            "tool",
            "one of json_schema, json_object, grammar",
        ),
        ("anthropic", "m@http://127.0.0.1:9", "grammar", "one of tool"),
        ("openai-compatible", "m@http://127.0.0.1:9/v1", "xml", "structured: .*not 'xml'"),
    ],
)
def test_a_way_the_provider_lacks_is_refused_by_name(
    kind: str, argument: str, value: str, problem: str
) -> None:
    with pytest.raises(ExecutionError, match=problem):
        provider_target(kind, argument, structured=value)


# -- experiments check the shape before any call ------------------------------------------------
def _space_scenario(answer: Any) -> Any:
    spec = load_spec("return-window")
    scenario = spec.scenario()
    from dataclasses import replace

    return replace(scenario, answer=answer)


def test_an_experiment_without_a_shape_is_refused_for_a_structured_target(
    fake: FakeProvider,
) -> None:
    scenario = load_spec("return-window").scenario()
    target = OpenAICompatibleTarget("m", base_url=fake.url, structured=True)
    with pytest.raises(ExecutionError, match="does not say what shape"):
        Experiment(task_space=scenario.task_space, targets=[target])
    assert scenario.experiment([target]).answer_shape == AnswerShape(
        field="eligible", choices=(True, False)
    )


def test_a_plain_text_answer_needs_a_grammar(fake: FakeProvider) -> None:
    scenario = _space_scenario(text_match(r"(true|false)", [True, False]))
    with pytest.raises(ExecutionError, match="only a grammar"):
        scenario.experiment([OpenAICompatibleTarget("m", base_url=fake.url, structured=True)])
    experiment = scenario.experiment(
        [OpenAICompatibleTarget("m", base_url=fake.url, structured="grammar")]
    )
    assert experiment.answer_shape == AnswerShape(choices=(True, False))


def test_every_request_of_a_run_carries_the_shape(tmp_path: Path) -> None:
    seen: list[AnswerShape | None] = []

    def reply(request: TargetRequest) -> str:
        seen.append(request.answer)
        return '{"eligible": true}'

    scenario = load_spec("return-window").scenario()
    experiment = scenario.experiment([CallableTarget(reply, name="c")])
    Runner(store=SQLiteStore(tmp_path / "runs.db")).run(experiment)
    assert len(seen) == experiment.calls()
    assert set(seen) == {AnswerShape(field="eligible", choices=(True, False))}


# -- real models ---------------------------------------------------------------------------------
def _answered(store: Path) -> tuple[int, int]:
    from modelscape.results.results import Results

    opened = SQLiteStore(store)
    (experiment,) = opened.experiments()
    results = Results.load(opened, experiment.id)
    indexed = run_of(results)
    reader = json_field("eligible", [True, False])
    outputs = [o.output for o in indexed.observations if o.status == "ok"]
    return sum(reader(o) is not None for o in outputs), len(indexed.observations)


@pytest.mark.parametrize("mode", ["grammar", "json_object"])
def test_every_structured_reply_of_a_real_server_parses(
    smollm2_server: str, tmp_path: Path, mode: str
) -> None:
    from modelscape.cli import main

    store = tmp_path / "runs.db"
    targets = tmp_path / "targets.yaml"
    targets.write_text(
        f"- target: openai-compatible:smollm2@{smollm2_server}\n"
        f"  structured: {mode}\n  max_tokens: 32\n  temperature: 0.7\n"
    )
    spec = small_return_window(tmp_path)
    arguments = ["run", str(spec), "--targets", str(targets), "--store", str(store)]
    # Grouped: a variant's two repetitions back to back, so the server reads each prompt once.
    result = CliRunner().invoke(main, [*arguments, "--repetitions", "2", "--order", "grouped"])
    assert result.exit_code == 0, result.output
    read, asked = _answered(store)
    assert asked == 2 * VARIANTS
    assert read == asked  # with structured answers on, every reply parses
    report = tmp_path / "report.json"
    page = tmp_path / "report.html"
    made = CliRunner().invoke(main, ["report", "--store", str(store), "-o", str(report)])
    assert made.exit_code == 0, made.output
    (provenance,) = json.loads(report.read_text())["provenance"]["targets"]
    assert provenance["parameters"]["structured"] == mode
    shown = CliRunner().invoke(main, ["page", str(report), "-o", str(page)])
    assert shown.exit_code == 0, shown.output
    assert f"structured ({mode})" in page.read_text()


def test_a_plain_run_of_the_same_server_reads_fewer(smollm2_server: str) -> None:
    """The control: without structure, the small model's replies are not all readable."""
    target = OpenAICompatibleTarget(
        "smollm2", base_url=smollm2_server, generation=Generation(max_tokens=24)
    )
    scenario = load_spec("return-window").scenario()
    variants = scenario.experiment([target]).variants()[:8]

    async def ask() -> list[TargetOutput]:
        return [
            await target(TargetRequest(prompt=v.prompt, seed=i)) for i, v in enumerate(variants)
        ]

    outputs = asyncio.run(ask())
    reader = json_field("eligible", [True, False])
    assert all(o.text for o in outputs)
    assert sum(reader(o) is not None for o in outputs) < len(outputs)


def test_an_in_process_model_follows_a_grammar_even_for_plain_answers(smollm2_path: Path) -> None:
    require(importlib.util.find_spec("llama_cpp") is not None, "llama-cpp-python is missing")
    target = provider_target(
        "llama-cpp", str(smollm2_path), structured=True, max_tokens=32, temperature=1.0
    )
    plain = AnswerShape(choices=("approve", "decline"))
    prompt = Prompt.of("Should the bank approve a loan for an applicant with no income?")

    async def ask(shape: AnswerShape) -> list[TargetOutput]:
        # Two seeds each: every grammar-sampled token costs a pass over the vocabulary in
        # Python, so each reply takes seconds on two cores.
        return [await target(TargetRequest(prompt=prompt, seed=s, answer=shape)) for s in range(2)]

    try:
        as_json = asyncio.run(ask(AnswerShape(field="decision", choices=("approve", "decline"))))
        as_text = asyncio.run(ask(plain))
    finally:
        target.close()  # type: ignore[attr-defined]
    assert target.parameters["structured"] == "grammar"
    assert all(json_field("decision", ["approve", "decline"])(o) for o in as_json)
    assert all(o.text in {"approve", "decline"} for o in as_text)


def test_a_hostile_tool_input_is_stored_cleaned(fake: FakeProvider, tmp_path: Path) -> None:
    """An answer tool's input is data from the server: lone surrogates, NUL, deep nesting and
    an echoed key in it must neither cost an observation nor reach the store as they are."""
    nested: object = "deep"
    for _ in range(200):
        nested = {"n": nested}
    hostile = {"eligible": "\ud83d\u0000", "key": "sk-ant-secret", "nested": nested}

    def reply(received: object) -> dict[str, object]:
        message = anthropic_message()
        message["content"] = [{"type": "tool_use", "name": "answer", "input": hostile}]
        return message

    fake.respond = reply
    scenario = load_spec("return-window").scenario()
    target = AnthropicTarget("claude-x", base_url=fake.root, structured=True, name="tool")
    experiment = replace(scenario.experiment([target]), repetitions=2)
    path = tmp_path / "runs.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
        results = Runner(store=SQLiteStore(path)).run(experiment)
    assert len(run_of(results).observations) == experiment.calls()
    stored = SQLiteStore(path)
    (record,) = stored.experiments()
    reloaded = run_of(Results.load(stored, record.id)).observations
    assert len(reloaded) == experiment.calls()
    assert all(o.status == "ok" for o in reloaded)
    for observation in reloaded:
        data = observation.output.data
        assert isinstance(data, dict)
        assert data["eligible"] == "\ufffd\u0000"  # the lone surrogate replaced, NUL kept
        assert "sk-ant-secret" not in json.dumps(data)  # the echoed key scrubbed
    stored.close()
    for written in tmp_path.glob("runs.db*"):  # the write-ahead log too
        assert b"sk-ant-secret" not in written.read_bytes()
