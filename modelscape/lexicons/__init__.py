"""Lexicons that ship with modelscape, ready to fill template slots by name.

Each lexicon is a YAML file in rows form under ``data/``, inside the package so that it ships
in the wheel; its opening comment says what it holds, where it comes from and how it is ordered.

- ``names``: 70 full names, five for each of two genders in seven regions, ordered so that
  gender and region swaps pair every name with the counterpart of the same rank.
- ``pressure``, ``injections``, ``tones`` and ``roles``: sentences that stand on a line of their
  own, each lexicon starting with an empty entry so that a slot filled from it leaves the
  baseline prompt as it was.
"""

from __future__ import annotations

import difflib
import functools
from importlib import resources
from importlib.resources.abc import Traversable

from modelscape.errors import TemplateError
from modelscape.templates.lexicon import Lexicon

__all__ = ["available", "get"]

_SUFFIX = ".yaml"


def _data() -> Traversable:
    return resources.files("modelscape.lexicons") / "data"


def available() -> tuple[str, ...]:
    """The name of every shipped lexicon, sorted: what ``get`` accepts."""
    return tuple(
        sorted(
            item.name.removesuffix(_SUFFIX)
            for item in _data().iterdir()
            if item.is_file() and item.name.endswith(_SUFFIX)
        )
    )


@functools.cache
def get(name: str) -> Lexicon:
    """The shipped lexicon called ``name``, read once and then reused.

    Lexicons are immutable, so every caller can share the one copy.
    """
    names = available()
    if name not in names:
        near = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise TemplateError(
            f"no shipped lexicon called {name!r}; {hint}the shipped lexicons are {', '.join(names)}"
        )
    with resources.as_file(_data() / f"{name}{_SUFFIX}") as path:
        return Lexicon.load(path)
