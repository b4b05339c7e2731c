"""Kinds of target through the ``modelscape.providers`` entry point group: the shipped ones, and
one from a package installed beside modelscape (here, into a temporary folder on sys.path)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from modelscape.errors import ExecutionError
from modelscape.targets._resolve import resolve_target
from modelscape.targets.protocol import TargetRequest
from modelscape.targets.registry import ENTRY_POINT_GROUP, find_provider, provider_kinds
from modelscape.task.prompt import Prompt
from tests.support.plugins import install_plugin

# A whole provider package: one module with its target and its Provider.
PROVIDER_MODULE = """
from modelscape._identity import Identity
from modelscape.targets.protocol import IdentifiedTarget, TargetOutput
from modelscape.targets.registry import Provider


class ParrotTarget(IdentifiedTarget):
    def __init__(self, word, *, name="parrot", loud=False):
        self.word = word.upper() if loud else word
        self._identity = Identity(
            kind="target", name=name, version="1", parameters={"word": self.word}
        )

    async def __call__(self, request):
        return TargetOutput(text=f"{self.word}: {request.prompt.text}", model="parrot-1")


def make(argument, **options):
    return ParrotTarget(argument, **options)


PROVIDER = Provider(kind="parrot", make=make, key_variable="PARROT_KEY")
NEEDY = Provider(kind="needy", make=make, extra="parrot[fast]", requires=("no_such_module_x",))
WRONG = "not a provider"
"""


@pytest.fixture
def parrot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    install_plugin(
        tmp_path,
        monkeypatch,
        module="parrot_provider",
        source=PROVIDER_MODULE,
        group=ENTRY_POINT_GROUP,
        entry_points="parrot = parrot_provider:PROVIDER\n"
        "needy = parrot_provider:NEEDY\n"
        "wrong = parrot_provider:WRONG\n"
        "mislabelled = parrot_provider:PROVIDER\n",
    )
    return tmp_path


def test_every_shipped_kind_is_registered_as_a_plugin_would_be() -> None:
    shipped = {"anthropic", "llama-cpp", "openai", "openai-compatible"}
    shipped |= {"constant", "echo", "oracle", "planted", "random", "scripted"}
    assert shipped <= set(provider_kinds())
    openai = find_provider("openai")
    assert openai is not None
    assert openai.key_variable == "OPENAI_API_KEY"
    assert openai.extra == "modelscape-map[providers]"
    llama = find_provider("llama-cpp")
    assert llama is not None
    assert llama.extra == "modelscape-map[llama]"
    assert find_provider("no-such-kind") is None


def test_a_package_with_an_entry_point_adds_a_kind(parrot: Path) -> None:
    assert "parrot" in provider_kinds()
    target = resolve_target("parrot:hello")
    assert target.name == "parrot"
    output = asyncio.run(target(TargetRequest(prompt=Prompt.of("who?"), seed=0)))
    assert output.text == "hello: who?"
    loud = resolve_target("parrot:hi", name="loud", loud=True)  # options reach its factory
    assert (loud.name, loud.parameters) == ("loud", {"word": "HI"})
    provider = find_provider("parrot")
    assert provider is not None
    assert provider.key_variable == "PARROT_KEY"


def test_a_kind_whose_dependencies_are_missing_says_what_to_install(parrot: Path) -> None:
    with pytest.raises(ExecutionError, match=r"needy targets need parrot\[fast\] \(no_such_mo"):
        resolve_target("needy:x")


def test_an_entry_point_that_is_not_a_provider_of_its_kind_is_refused(parrot: Path) -> None:
    with pytest.raises(ExecutionError, match="not a Provider of kind 'wrong'"):
        resolve_target("wrong:x")
    with pytest.raises(ExecutionError, match="not a Provider of kind 'mislabelled'"):
        resolve_target("mislabelled:x")


def test_unknown_kinds_list_the_registered_ones(parrot: Path) -> None:
    with pytest.raises(ExecutionError, match=r"unknown target 'nosuch:x'.*'parrot'"):
        resolve_target("nosuch:x")


def test_a_kind_is_a_plain_name() -> None:
    from pydantic import ValidationError

    from modelscape.targets.registry import Provider

    with pytest.raises(ValidationError, match="kind"):
        Provider(kind="my model", make=lambda argument: None)
    assert Provider(kind="my-model_2", make=lambda argument: None).key_variable is None
