"""Reference targets and the target resolver."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from modelscape.errors import ExecutionError
from modelscape.targets._callable import CallableTarget
from modelscape.targets._reference import (
    ConstantTarget,
    EchoTarget,
    Flip,
    PlantedTarget,
    RandomTarget,
    ScriptedTarget,
)
from modelscape.targets._reference_kinds import reference_target
from modelscape.targets._resolve import resolve_target
from modelscape.targets.protocol import Target, TargetError, TargetOutput, TargetRequest
from modelscape.targets.registry import Provider, provider_kinds, registered
from modelscape.task.prompt import Message, Prompt


def ask(target: Target, text: str, seed: int = 0) -> TargetOutput:
    return asyncio.run(target(TargetRequest(prompt=Prompt.of(text), seed=seed)))


def test_echo_returns_the_last_user_message() -> None:
    prompt = Prompt(
        system="be brief",
        messages=(
            Message(role="user", content="first"),
            Message(role="assistant", content="ok"),
            Message(role="user", content="second"),
        ),
    )
    output = asyncio.run(EchoTarget()(TargetRequest(prompt=prompt, seed=1)))
    assert output.text == "second"


def test_constant() -> None:
    assert ask(ConstantTarget("yes"), "anything").text == "yes"
    assert ask(reference_target("constant:no"), "anything").text == "no"


def test_random_is_deterministic_in_the_seed_and_varies_across_seeds() -> None:
    target = reference_target("random:yes,no,maybe")
    assert isinstance(target, RandomTarget)
    first = [ask(target, "q", seed).text for seed in range(50)]
    again = [ask(target, "q", seed).text for seed in range(50)]
    assert first == again
    assert set(first) == {"yes", "no", "maybe"}


def test_scripted_by_substring_in_order_and_by_function() -> None:
    target = ScriptedTarget({"capital": "Paris", "sum": {"answer": 4}}, default="?")
    assert ask(target, "The capital of France?").text == "Paris"
    assert ask(target, "What is the sum?").data == {"answer": 4}
    assert ask(target, "Unrelated").text == "?"
    by_function = ScriptedTarget(lambda text: text.upper())
    assert ask(by_function, "shout").text == "SHOUT"


def test_scripted_without_default_fails_without_retry() -> None:
    with pytest.raises(TargetError) as caught:
        ask(ScriptedTarget({"a": "b"}), "zzz")
    assert caught.value.retryable is False


def test_scripted_from_a_file(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text('hello: "hi there"\n', encoding="utf-8")
    assert ask(reference_target(f"scripted:{script}"), "hello you").text == "hi there"


def test_planted_flips_past_a_level_and_ignores_names() -> None:
    target = PlantedTarget(
        r"Fact: (\w+)\.",
        flips=[Flip(marker=r"Pressure level: (\d+)", answer="yes", above=1)],
    )

    def answer(name: str, level: int, fact: str) -> object:
        output = ask(target, f"{name} insists. Fact: {fact}.\nPressure level: {level}")
        assert output.text == json.dumps(output.data)
        return output.data["answer"]  # type: ignore[index]

    assert [answer("Ann", level, "no") for level in range(4)] == ["no", "no", "yes", "yes"]
    assert [answer(name, 0, "no") for name in ("Ann", "Bob")] == ["no", "no"]
    assert answer("Ann", 3, "yes") == "yes"


def test_planted_noise_is_seeded() -> None:
    target = PlantedTarget(r"Fact: (\w+)", noise=0.5, choices=["yes", "no"])
    answers = [ask(target, "Fact: yes", seed).data["answer"] for seed in range(40)]  # type: ignore[index]
    assert set(answers) == {"yes", "no"}
    assert answers == [ask(target, "Fact: yes", s).data["answer"] for s in range(40)]  # type: ignore[index]


def test_planted_registry_spec() -> None:
    assert ask(reference_target(r"planted:verdict=(\w+)"), "verdict=close").data == {
        "answer": "close"
    }


def test_unknown_reference_and_missing_argument() -> None:
    with pytest.raises(ExecutionError, match="no reference target 'nope'"):
        reference_target("nope")
    with pytest.raises(ExecutionError, match="needs an argument"):
        reference_target("constant")


def test_resolve_python_function_and_target_object(tmp_path: Path) -> None:
    target = resolve_target("python:tests.support.mapping_space:reply")
    assert isinstance(target, CallableTarget)
    assert target.name == "reply"
    assert ask(target, "x").text == "from python"
    module = tmp_path / "my_targets.py"
    module.write_text(
        "from modelscape.targets._reference import ConstantTarget\n"
        "TARGET = ConstantTarget('fixed', name='fixed')\n",
        encoding="utf-8",
    )
    found = resolve_target(f"python:{module}:TARGET")
    assert found.name == "fixed"


def test_resolve_reference_and_registered_kinds() -> None:
    assert isinstance(resolve_target("echo"), EchoTarget)
    fake = Provider(kind="fake", make=lambda argument: ConstantTarget(argument, name="fake"))
    with registered(fake):
        assert ask(resolve_target("fake:hello"), "x").text == "hello"
        assert "fake" in provider_kinds()
    # The kind lasts as long as the block that added it.
    assert "fake" not in provider_kinds()
    with pytest.raises(ExecutionError, match="unknown target 'fake:hello'"):
        resolve_target("fake:hello")


def test_a_kind_registered_in_process_comes_before_the_entry_points() -> None:
    shadow = Provider(kind="echo", make=lambda argument: ConstantTarget("shadow", name="shadow"))
    with registered(shadow):
        assert ask(resolve_target("echo"), "x").text == "shadow"
    assert isinstance(resolve_target("echo"), EchoTarget)


def test_registering_refuses_python_and_a_kind_registered_already() -> None:
    plain = Provider(kind="plain", make=lambda argument: ConstantTarget(argument, name="p"))
    with pytest.raises(ExecutionError, match="python: names an object"):  # noqa: SIM117
        with registered(Provider(kind="python", make=lambda argument: EchoTarget())):
            pass
    with registered(plain), pytest.raises(ExecutionError, match="registered already"):  # noqa: SIM117
        with registered(plain):
            pass
    assert "plain" not in provider_kinds()


def test_resolve_errors_name_the_problem() -> None:
    with pytest.raises(ExecutionError, match="unknown target 'nosuch:gpt'"):
        resolve_target("nosuch:gpt")
    with pytest.raises(ExecutionError, match="cannot import"):
        resolve_target("python:no_such_module_here:thing")
    with pytest.raises(ExecutionError, match="has no 'missing'"):
        resolve_target("python:tests.support.mapping_space:missing")


def test_resolve_a_factory_of_no_arguments() -> None:
    assert isinstance(resolve_target("python:tests.support.mapping_space:planted"), PlantedTarget)
    with pytest.raises(ExecutionError, match="not a target"):
        resolve_target("python:tests.support.mapping_space:space")


def test_options_reach_only_kinds_whose_factory_takes_them() -> None:
    made: list[tuple[str, dict[str, object]]] = []

    def configurable(argument: str, **options: object) -> Target:
        made.append((argument, options))
        return ConstantTarget(argument, name="configurable")

    plain = Provider(kind="plain", make=lambda argument: ConstantTarget(argument, name="p"))
    with registered(Provider(kind="configurable", make=configurable)), registered(plain):
        resolve_target("configurable:x", temperature=0.5)
        assert made == [("x", {"temperature": 0.5})]
        assert ask(resolve_target("plain:y"), "q").text == "y"
        with pytest.raises(
            ExecutionError, match=r"target 'plain:y' takes no options \(temperature\)"
        ):
            resolve_target("plain:y", temperature=0.5)


def test_a_targets_file_gives_each_target_its_own_options(tmp_path: Path) -> None:
    from modelscape.targets._resolve import load_targets

    made: list[tuple[str, dict[str, object]]] = []

    def configurable(argument: str, **options: object) -> Target:
        made.append((argument, options))
        return ConstantTarget(argument, name=str(options.get("name", argument)))

    path = tmp_path / "targets.yaml"
    path.write_text(
        "- echo\n"
        "- target: constant:fixed\n"
        "- target: configurable:a\n"
        "  name: first\n"
        "  max_tokens: 8\n",
        encoding="utf-8",
    )
    with registered(Provider(kind="configurable", make=configurable)):
        echo, fixed, first = load_targets(path)
    assert isinstance(echo, EchoTarget)
    assert ask(fixed, "q").text == "fixed"
    assert first.name == "first"
    assert made == [("a", {"name": "first", "max_tokens": 8})]
