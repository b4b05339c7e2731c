"""The reference targets by name: ``echo``, ``constant:TEXT``, ``random:A,B``,
``scripted:FILE``, ``planted:REGEX`` and ``oracle:SPEC``.

Each is a :class:`~modelscape.targets.registry.Provider` registered in the
``modelscape.providers`` entry point group like any provider, so ``resolve_target`` finds
them the same way; :func:`reference_target` makes one from its name here, without the
registry. This module imports both :mod:`~modelscape.targets._reference` and
:mod:`~modelscape.targets._oracle`, so that neither imports the other's names.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from modelscape.errors import ExecutionError
from modelscape.targets._oracle import OracleTarget
from modelscape.targets._reference import (
    ConstantTarget,
    EchoTarget,
    PlantedTarget,
    RandomTarget,
    ScriptedTarget,
)
from modelscape.targets.protocol import Target
from modelscape.targets.registry import Provider

__all__ = [
    "CONSTANT",
    "ECHO",
    "ORACLE",
    "PLANTED",
    "RANDOM",
    "REFERENCE_TARGETS",
    "SCRIPTED",
    "reference_target",
]


def _script(argument: str) -> ScriptedTarget:
    import yaml

    from modelscape._yaml import describe, read_yaml

    path = Path(argument)
    try:
        script = read_yaml(path)  # JSON is YAML too
    except OSError as error:
        raise ExecutionError(f"scripted target: cannot read {path}: {error}") from None
    except yaml.YAMLError as error:  # invalid, not UTF-8, or over a limit
        raise ExecutionError(f"{path}: {describe(error)}") from None
    if not isinstance(script, dict) or not all(isinstance(k, str) for k in script):
        raise ExecutionError(f"{path}: a script is a mapping from prompt substrings to replies")
    return ScriptedTarget(script)


def _needs(name: str, argument: str | None) -> str:
    if not argument:
        raise ExecutionError(f"reference target {name!r} needs an argument: {name}:VALUE")
    return argument


def _oracle(spec: str) -> Target:
    # any reference a command takes: a spec file, a shipped or registered name, python:...
    from modelscape.specs.registry import find_scenario

    return OracleTarget(find_scenario(spec))


#: Reference targets by name; each factory takes the text after ``name:`` (or None).
REFERENCE_TARGETS: dict[str, Callable[[str | None], Target]] = {
    "echo": lambda argument: EchoTarget(),
    "constant": lambda argument: ConstantTarget(_needs("constant", argument)),
    "random": lambda argument: RandomTarget(
        [c.strip() for c in _needs("random", argument).split(",") if c.strip()]
    ),
    "scripted": lambda argument: _script(_needs("scripted", argument)),
    "planted": lambda argument: PlantedTarget(_needs("planted", argument)),
    "oracle": lambda argument: _oracle(_needs("oracle", argument)),
}


def reference_target(spec: str) -> Target:
    """A reference target from its spec, such as ``echo``, ``constant:yes``, ``random:yes,no``,
    ``scripted:replies.yaml`` or ``planted:Answer: (\\w+)``."""
    name, _, argument = spec.partition(":")
    factory = REFERENCE_TARGETS.get(name)
    if factory is None:
        raise ExecutionError(
            f"no reference target {name!r}; the reference targets are "
            f"{', '.join(sorted(REFERENCE_TARGETS))}"
        )
    return factory(argument or None)


def _provider(kind: str, form: str, summary: str) -> Provider:
    factory = REFERENCE_TARGETS[kind]

    def make(argument: str) -> Target:  # no options: a reference target has none
        return factory(argument or None)

    return Provider(kind=kind, make=make, forms=(form,), summary=summary)


ECHO = _provider(
    "echo", "echo", "replies with the prompt's last user message, to show what a target receives"
)
CONSTANT = _provider("constant", "constant:TEXT", "replies TEXT to every prompt")
RANDOM = _provider(
    "random",
    "random:A,B,...",
    "replies one of the comma-separated texts, drawn from the seed hint and blind to the prompt",
)
SCRIPTED = _provider(
    "scripted",
    "scripted:FILE",
    "replies from a YAML or JSON file that maps prompt substrings to replies",
)
PLANTED = _provider(
    "planted",
    "planted:REGEX",
    'replies {"answer": ...} with what REGEX reads from the prompt (its first group, or the '
    "whole match): a known behaviour for a run to find again",
)
ORACLE = _provider(
    "oracle",
    "oracle:SPEC",
    "answers every prompt of the scenario SPEC names correctly",
)
