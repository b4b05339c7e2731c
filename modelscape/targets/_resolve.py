"""Targets named by text, as the CLI and specs name them.

A target spec is ``KIND:ARGUMENT`` or a bare reference name:

- ``python:module:attribute`` (or ``python:path/to/file.py:attribute``): a target object, a
  factory called without arguments that returns one, or a function of a request wrapped in a
  :class:`CallableTarget` named after it;
- a reference target: ``echo``, ``constant:TEXT``, ``random:A,B``, ``scripted:FILE``,
  ``planted:REGEX``, ``oracle:SPEC`` (see :mod:`modelscape.targets._reference_kinds`);
- a provider target: ``openai:MODEL``, ``anthropic:MODEL``, ``openai-compatible:MODEL@URL``,
  ``llama-cpp:PATH`` (see :mod:`modelscape.targets.providers`);
- any kind another installed package registers in the ``modelscape.providers`` entry point
  group, or that this process adds with :func:`~modelscape.targets.registry.registered`.

Every kind but ``python`` is found the same way, in the one registry
(:mod:`modelscape.targets.registry`): the kinds this process added first, then the entry point
group, which names the module that declares the kind; that module is imported only when a
target of its kind is made.

Options (a name, temperature, max_tokens, ...) reach a kind's factory as keyword arguments:
from Python through ``resolve_target(spec, **options)``, from a file through
:func:`load_targets`, which reads a targets.yaml: a list whose items are a target name, or a
mapping of ``target:`` and the options::

    - echo
    - target: openai-compatible:gemma@http://127.0.0.1:8080/v1
      name: gemma
      temperature: 0.7
      max_tokens: 64
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from modelscape.errors import ExecutionError
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import Target
from modelscape.targets.registry import KIND_PATTERN, find_provider, provider_kinds

__all__ = ["load_object", "load_targets", "resolve_target"]

_KIND = re.compile(KIND_PATTERN)
_SURROGATE = re.compile("[\ud800-\udfff]")


def load_object(reference: str) -> object:
    """The object named by ``module:attribute`` or ``path/to/file.py:attribute``."""
    module_name, _, attribute = reference.rpartition(":")
    if not module_name or not attribute:
        raise ExecutionError(f"{reference!r}: name an object as module:attribute")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None or not path.exists():
                raise ExecutionError(f"{path}: no such Python file")
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(path.stem, module)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except ExecutionError:
        raise
    except Exception as error:
        raise ExecutionError(f"cannot import {module_name!r}: {error!r}") from error
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ExecutionError(f"module {module_name!r} has no {attribute!r}") from None


def _needs_arguments(function: Callable[..., object]) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature: treat as a target function
        return True
    return any(
        p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in parameters
    )


def _python(argument: str) -> Target:
    found = load_object(argument)
    if isinstance(found, Target):
        return found
    if callable(found) and not _needs_arguments(found):
        # A factory (a function of no arguments, or a class) that builds the target.
        made = found()
        if isinstance(made, Target):
            return made
        raise ExecutionError(f"python:{argument}() returned {type(made).__name__}, not a target")
    if callable(found):
        name = getattr(found, "__name__", argument.rpartition(":")[2])
        return CallableTarget(found, name=name)
    raise ExecutionError(f"python:{argument} is a {type(found).__name__}, not a target or function")


def _takes_options(factory: Callable[..., Target]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD for p in parameters)


def resolve_target(spec: str, **options: Any) -> Target:
    """The target a spec names: ``python:module:function``, a reference target, or a
    registered kind such as a provider, made with ``options`` (which only kinds whose factory
    takes keyword arguments accept)."""
    if _SURROGATE.search(spec):
        # A command line's bytes that are not UTF-8 arrive as surrogates (PEP 383): no
        # identity holding them could be hashed or stored.
        raise ExecutionError(
            f"target {spec!r} holds bytes or escapes that are not UTF-8 text; write its name "
            "in UTF-8"
        )
    kind, _, argument = spec.partition(":")
    if kind == "python":
        if options:
            raise _no_options(spec, options)
        return _python(argument)
    provider = find_provider(kind) if _KIND.fullmatch(kind) else None
    if provider is None:
        known = sorted({"python", *provider_kinds()})
        raise ExecutionError(f"unknown target {spec!r}; a target starts with one of {known}")
    if options and not _takes_options(provider.make):
        raise _no_options(spec, options)
    # made first, then the extra checked: a wrong option is named as such either way
    return provider.target(argument, **options)


def _no_options(spec: str, options: dict[str, Any]) -> ExecutionError:
    return ExecutionError(
        f"target {spec!r} takes no options ({', '.join(sorted(options))}); options apply "
        "to provider targets such as openai-compatible:MODEL@URL"
    )


def load_targets(path: str | Path) -> list[Target]:
    """The targets a targets.yaml lists: each item a target name, or a mapping of ``target``
    (the name) and that target's options."""
    import yaml

    from modelscape._yaml import describe, read_yaml

    path = Path(path)
    try:
        entries = read_yaml(path)
    except OSError as error:
        raise ExecutionError(f"{path}: cannot read the targets file: {error}") from None
    except yaml.YAMLError as error:  # invalid, not UTF-8, or over a limit; line and column
        raise ExecutionError(f"{path}: {describe(error)}") from None
    if not isinstance(entries, list) or not entries:
        raise ExecutionError(
            f"{path}: a targets file is a list of targets, each a name such as echo or a "
            "mapping with target: and its options"
        )
    targets = []
    for number, entry in enumerate(entries, start=1):
        where = f"{path}, target {number}"
        if isinstance(entry, str):
            spec, options = entry, {}
        elif isinstance(entry, dict) and isinstance(entry.get("target"), str):
            options = {str(k): v for k, v in entry.items() if k != "target"}
            spec = entry["target"]
        else:
            raise ExecutionError(f"{where}: give a target name, or a mapping with target: NAME")
        try:
            targets.append(resolve_target(spec, **options))
        except ExecutionError as error:
            raise ExecutionError(f"{where}: {error}") from None
    return targets
