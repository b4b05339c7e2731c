"""What spec reading shares: paths in the document, the problem collector, and the checks of
names, values and conditions that several parts of a spec make.

A path names the place of a problem the way a reader finds it in the YAML: keys joined by
dots (``vary.who.gender.values``), list items by index (``answer.choices[2]``). A key that
is not a plain word (empty, with a space or a quote, or not text at all, as YAML allows) is
written in brackets as Python spells it (``slots['my slot']``), so every path is unambiguous
about where it starts and ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from modelscape._hints import nearest
from modelscape._identity import AxisValue
from modelscape._surrogates import at, item, surrogates
from modelscape.specs.model import Condition
from modelscape.task.coordinate import same_value
from modelscape.templates.template import Template

__all__ = [
    "Problems",
    "among",
    "at",
    "check_attribute",
    "check_text",
    "check_value",
    "item",
    "message",
    "nearest",
    "read_condition",
    "scalar",
]


def among(value: object, options: Sequence[object]) -> bool:
    """Whether ``value`` is one of ``options``, compared as ``same`` does."""
    return any(same_value(value, option) for option in options)


def scalar(value: object) -> bool:
    """Whether ``value`` can be a label: a text, a number or a boolean."""
    return isinstance(value, str | int | float | bool)


class Problems:
    """Collects problems, each prefixed with its path in the spec document."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, path: str, message: str) -> None:
        """Note one problem at ``path`` (the empty path is the document itself)."""
        self.found.append(f"{path}: {message}" if path else message)

    def under(self, *paths: str) -> bool:
        """Whether a problem was found at any of ``paths`` or inside it."""
        return any(
            problem.startswith(f"{path}{mark}")
            for problem in self.found
            for path in paths
            for mark in (":", ".", "[")
        )

    def unknown_keys(
        self, path: str, data: Mapping[Any, Any], allowed: Sequence[str], *, what: str = ""
    ) -> None:
        """Note every key of ``data`` that is not one of ``allowed``, with the nearest one."""
        for key in data:
            if key not in allowed:
                listed = what or f"allowed: {', '.join(allowed)}"
                self.add(at(path, key), f"unknown key{nearest(key, allowed)}; {listed}")


def check_text(path: str, value: object, problems: Problems) -> None:
    """Note every text in ``value`` (keys included, at any depth) that holds a surrogate.

    YAML's ``"\\ud800"`` escape makes one, and so does ``"\\ud83d\\ude00"``, which writes an
    emoji as the two halves UTF-16 uses: YAML reads them as two code points, not as one
    character.
    """
    for where, found in surrogates(value, path):
        problems.add(
            where,
            f"holds U+{ord(found.group()):04X} at character {found.start() + 1}, half of a "
            "UTF-16 pair and not a character: write the character itself, or escape it "
            "whole (\\U0001F600 for U+1F600)",
        )


def message(error: Exception) -> str:
    """An error's text; a pydantic error as its messages alone, without its locations."""
    if isinstance(error, ValidationError):
        return "; ".join(str(e["msg"]) for e in error.errors())
    return str(error)


def check_attribute(
    path: str, attribute: object, template: Template | None, problems: Problems
) -> bool:
    """Whether ``attribute`` is an attribute of ``template``; notes the problem if not.

    Without a template (its prompt or slots have problems of their own) nothing is checked.
    """
    if template is None:
        return False
    if not isinstance(attribute, str) or attribute not in template.attributes:
        problems.add(
            path,
            f"unknown attribute {attribute!r}{nearest(attribute, list(template.attributes))}; "
            f"attributes: {', '.join(template.attributes)}",
        )
        return False
    return True


def check_value(
    path: str, value: object, attribute: str, known: Sequence[AxisValue], problems: Problems
) -> bool:
    """Whether ``value`` is one of the values ``known`` of ``attribute``; notes it if not."""
    if among(value, known):
        return True
    hint = (
        nearest(value, [k for k in known if isinstance(k, str)]) if isinstance(value, str) else ""
    )
    problems.add(path, f"{value!r} is not a value of {attribute!r}{hint}; values: {list(known)}")
    return False


def read_condition(
    path: str, attribute: object, value: Any, template: Template | None, problems: Problems
) -> Condition | None:
    """A group's or table row's condition on ``attribute``: one value, or a list of them."""
    options = value if isinstance(value, list) else [value]
    if not options or not all(scalar(v) for v in options):
        problems.add(path, "a condition is one value or a list of values")
        return None
    if check_attribute(path, attribute, template, problems) and template is not None:
        assert isinstance(attribute, str)  # check_attribute says so
        known = template.values(attribute)
        for index, option in enumerate(options):
            where = item(path, index) if isinstance(value, list) else path
            check_value(where, option, attribute, known, problems)
    return tuple(options) if isinstance(value, list) else value
