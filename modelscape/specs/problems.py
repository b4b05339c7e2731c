"""What spec reading shares: the problem collector, and the checks of names and conditions."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from modelscape.specs.model import Condition
from modelscape.templates.template import Template

__all__ = [
    "Problems",
    "among",
    "check_attribute",
    "message",
    "nearest",
    "read_condition",
    "same",
    "scalar",
]


def same(left: object, right: object) -> bool:
    return type(left) is type(right) and left == right


def among(value: object, options: Sequence[object]) -> bool:
    return any(same(value, option) for option in options)


def nearest(word: object, options: Sequence[str]) -> str:
    hint = difflib.get_close_matches(str(word), list(options), n=1)
    return f" (did you mean {hint[0]!r}?)" if hint else ""


def scalar(value: object) -> bool:
    return isinstance(value, (str, int, float, bool))


class Problems:
    """Collects problems, each prefixed with its path in the spec document."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.found.append(f"{path}: {message}" if path else message)

    def unknown_keys(self, path: str, data: Mapping[Any, Any], allowed: Sequence[str]) -> None:
        for key in data:
            if key not in allowed:
                where = f"{path}.{key}" if path else str(key)
                self.add(
                    where, f"unknown key{nearest(key, allowed)}; allowed: {', '.join(allowed)}"
                )


def message(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(str(e["msg"]) for e in error.errors())
    return str(error)


def check_attribute(
    path: str, attribute: object, template: Template | None, problems: Problems
) -> bool:
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


def read_condition(
    path: str, attribute: str, value: Any, template: Template | None, problems: Problems
) -> Condition | None:
    options = value if isinstance(value, list) else [value]
    if not options or not all(scalar(v) for v in options):
        problems.add(path, "a condition is one value or a list of values")
        return None
    if check_attribute(path, attribute, template, problems) and template is not None:
        known = template.values(attribute)
        for option in options:
            if not among(option, known):
                problems.add(
                    path, f"{option!r} is not a value of {attribute!r}; values: {list(known)}"
                )
    return tuple(options) if isinstance(value, list) else value
