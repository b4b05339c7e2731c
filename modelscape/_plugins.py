"""Finding what installed distributions register under one of modelscape's entry point groups.

Target kinds (``modelscape.providers``) and kinds of store (``modelscape.stores``) are found the
same way: by name in the group, checked to be the object the group promises and to carry the
name it is registered under. modelscape registers its own built-in kinds through the same
groups, so an install whose metadata predates a group (an old editable install) would make every
built-in kind look unknown; that is reported as what it is.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, distribution, entry_points
from typing import TypeVar

from modelscape._version import DISTRIBUTION
from modelscape.errors import ModelscapeError

__all__ = ["SCENARIO_GROUP", "find_plugin", "plugin_names"]

#: The entry point group other packages register scenarios in. It lives here, with the code that
#: reads entry point groups, so that what only lists the group (a site build with nothing to
#: make) names it without loading the specs, which load the statistics.
SCENARIO_GROUP = "modelscape.scenarios"

T = TypeVar("T")


def find_plugin(
    group: str,
    name: str,
    kind: type[T],
    *,
    named: Callable[[T], str],
    field: str,
    what: str,
    error: type[ModelscapeError],
) -> T | None:
    """The ``kind`` object registered as ``name`` in ``group``, or None when none is.

    ``named`` reads the name an object says it has (its ``field``), which must be the one it
    is registered under; ``what`` names such objects in messages (``"target kind"``) and
    ``error`` is the exception of the caller's layer.
    """
    for entry in entry_points(group=group, name=name):
        try:
            found = entry.load()
        except ImportError as problem:
            raise error(
                f"the {name!r} {what} ({entry.value}) cannot be imported: {problem}"
            ) from None
        if not isinstance(found, kind) or named(found) != name:
            raise error(
                f"the {group} entry point {name!r} names {entry.value}, which is not a "
                f"{kind.__name__} of {field} {name!r}"
            )
        return found
    if not _own_registered(group):
        raise error(
            f"no {what} {name!r}: modelscape's installed metadata registers none ({group}); "
            "reinstall it (pip install -e . in a checkout)"
        )
    return None


def plugin_names(group: str) -> list[str]:
    """Every name the installed distributions register in ``group``, sorted."""
    return sorted({entry.name for entry in entry_points(group=group)})


def _own_registered(group: str) -> bool:
    try:
        own = distribution(DISTRIBUTION).entry_points
    except PackageNotFoundError:
        return False
    return any(entry.group == group for entry in own)
