"""Targets named by text, as the CLI and specs name them.

A target spec is ``KIND:ARGUMENT`` or a bare reference name:

- ``python:module:attribute`` (or ``python:path/to/file.py:attribute``): a target object, a
  factory called without arguments that returns one, or a function of a request wrapped in a
  :class:`CallableTarget` named after it;
- a reference target: ``echo``, ``constant:TEXT``, ``random:A,B``, ``scripted:FILE``,
  ``planted:REGEX`` (see :mod:`modelscape.targets.reference`);
- any kind registered with :func:`register_target_kind`; provider targets register theirs
  (``openai:MODEL`` and the like) when they are added.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path

from modelscape.errors import ExecutionError
from modelscape.execution.callable import CallableTarget
from modelscape.execution.target import Target

__all__ = ["TARGET_KINDS", "load_object", "register_target_kind", "resolve_target"]

#: Target factories by kind; each takes the text after ``KIND:``.
TARGET_KINDS: dict[str, Callable[[str], Target]] = {}


def register_target_kind(kind: str, factory: Callable[[str], Target]) -> None:
    """Let ``KIND:ARGUMENT`` name a target made by ``factory(ARGUMENT)``."""
    if not kind.isidentifier():
        raise ExecutionError(f"a target kind is a plain name, not {kind!r}")
    TARGET_KINDS[kind] = factory


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


def resolve_target(spec: str) -> Target:
    """The target a spec names: ``python:module:function``, a reference target, or a
    registered kind such as a provider."""
    kind, _, argument = spec.partition(":")
    if kind == "python":
        return _python(argument)
    if kind in TARGET_KINDS:
        return TARGET_KINDS[kind](argument)
    from modelscape.targets.reference import REFERENCE_TARGETS, reference_target

    if kind in REFERENCE_TARGETS:
        return reference_target(spec)
    known = sorted({"python", *TARGET_KINDS, *REFERENCE_TARGETS})
    raise ExecutionError(f"unknown target {spec!r}; a target starts with one of {known}")
