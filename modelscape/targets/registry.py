"""Kinds of target named by text, found through the ``modelscape.providers`` entry point group.

A target spec such as ``openai:gpt-4o-mini`` or ``echo`` starts with a kind. Each kind is a
:class:`Provider` that some module declares, and that a distribution registers under the entry
point group :data:`ENTRY_POINT_GROUP`, by kind, in its ``pyproject.toml``::

    [project.entry-points."modelscape.providers"]
    mymodel = "my_package.provider:PROVIDER"

modelscape registers its own kinds (the providers and the reference targets) the same way, so a
provider that ships in another package is found exactly as a built-in one is, and adding one is
one module (its target and its :class:`Provider`) plus one line of metadata. A kind's module is
imported only when a target of that kind is made, so a missing optional dependency is
reported for that kind only, by name, before anything else is tried
(:meth:`Provider.check_installed`).

This is the only registry of kinds. A kind that exists for one process only (a test's, or a
notebook's) is added to it with :func:`registered`, for the length of a ``with`` block, and is
found before the entry point group; there is no second table of factories beside it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel, Field, model_validator

from modelscape._model import FrozenModel
from modelscape._plugins import find_plugin, plugin_names
from modelscape.errors import ExecutionError
from modelscape.targets.protocol import Target

__all__ = [
    "ENTRY_POINT_GROUP",
    "KIND_PATTERN",
    "Provider",
    "find_provider",
    "provider_kinds",
    "registered",
]

#: The entry point group that names every kind of target.
ENTRY_POINT_GROUP = "modelscape.providers"
#: A kind is a plain name, hyphens allowed inside (``openai-compatible``).
KIND_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z0-9_]+)*$"


class Provider(FrozenModel):
    """One kind of target, as its module declares it.

    ``make(argument, **options)`` builds the target that ``KIND:ARGUMENT`` names; a ``make``
    without ``**options`` serves specs without options only. ``key_variable`` is the
    environment variable the key is read from unless a target names another (None for kinds
    that take no key). ``extra`` is what to install for the kind's dependencies (the pip
    requirement, such as ``modelscape-map[providers]``), and ``requires`` the modules it brings,
    checked before the kind's targets are made.

    The rest describes the kind for people, and is what the targets.yaml reference page is
    written from (``python -m modelscape.targets.providers.reference``): ``forms`` are the ways a
    target of the kind is written (``openai:MODEL``, ``openai:MODEL@URL``), ``summary`` says in
    a line what such a target reaches, ``options`` is the model whose fields are the options
    ``make`` reads (None for a kind that takes none) and ``refuses`` those of its fields that
    the kind turns down, which ``make`` passes on when it checks them. ``defaults`` lists
    the options whose default for this kind is not the model's (a reply bound that an API
    requires, say).
    """

    kind: str = Field(pattern=KIND_PATTERN)
    make: Callable[..., Target]
    key_variable: str | None = None
    extra: str | None = None
    requires: tuple[str, ...] = ()
    forms: tuple[str, ...] = ()
    summary: str = ""
    options: type[BaseModel] | None = None
    refuses: frozenset[str] = frozenset()
    defaults: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_options(self) -> Provider:
        named = set(self.refuses) | set(self.defaults)
        fields = set(self.options.model_fields) if self.options is not None else set()
        unknown = sorted(named - fields)
        if unknown:
            raise ValueError(
                f"{self.kind}: refuses and defaults name options its options model lacks: "
                f"{', '.join(unknown)}"
            )
        return self

    def option_names(self) -> list[str]:
        """The options a target of this kind takes, in the order its options model lists them."""
        if self.options is None:
            return []
        return [name for name in self.options.model_fields if name not in self.refuses]

    def check_installed(self) -> None:
        """Raise an error naming what to install when a module the kind needs is missing."""
        for module in self.requires:
            if importlib.util.find_spec(module) is None:
                install = self.extra or module
                raise ExecutionError(
                    f"{self.kind} targets need {install} ({module}): pip install '{install}'"
                )

    def target(self, argument: str, **options: Any) -> Target:
        """The target ``KIND:ARGUMENT`` names, made with ``options``.

        The target is made first, so that a wrong option or a missing model file is reported
        as such whether or not the kind's extra is installed; then the extra is checked.
        """
        try:
            made = self.make(argument, **options)
        except ImportError:
            self.check_installed()  # names what to install when that is what failed
            raise
        self.check_installed()
        return made


#: Kinds added in this process by :func:`registered`, by kind; found before the entry points.
_REGISTERED: dict[str, Provider] = {}


@contextmanager
def registered(provider: Provider) -> Iterator[Provider]:
    """Let ``KIND:ARGUMENT`` name a target of ``provider`` inside the ``with`` block.

    For a kind that lives in one process (a test's scripted model, a notebook's wrapper): a
    kind meant for others is an entry point of its distribution instead. The kind is found
    before any entry point of the same name, and is removed again when the block ends, so
    nothing outlives the code that added it. ``python`` is not a kind (it names an object by
    its import path), and a kind cannot be added twice at once.
    """
    if provider.kind == "python":
        raise ExecutionError("python: names an object by its import path; it is not a kind")
    if provider.kind in _REGISTERED:
        raise ExecutionError(f"the target kind {provider.kind!r} is registered already")
    _REGISTERED[provider.kind] = provider
    try:
        yield provider
    finally:
        del _REGISTERED[provider.kind]


def find_provider(kind: str) -> Provider | None:
    """The provider of ``kind``: one added by :func:`registered`, else the one an installed
    distribution registers, else None."""
    own = _REGISTERED.get(kind)
    if own is not None:
        return own
    return find_plugin(
        ENTRY_POINT_GROUP,
        kind,
        Provider,
        named=lambda provider: provider.kind,
        field="kind",
        what="target kind",
        error=ExecutionError,
    )


def provider_kinds() -> list[str]:
    """Every kind there is, sorted: those the installed distributions register, and those
    added in this process."""
    return sorted({*plugin_names(ENTRY_POINT_GROUP), *_REGISTERED})
