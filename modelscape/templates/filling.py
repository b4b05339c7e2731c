"""Fillings: the tasks of a template's language, which entry fills each slot.

A filling is bound to its template, which computes its attributes, reference and prompt; it is
compared by content, so the same filling of two builds of one spec is equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import PrivateAttr

from modelscape._identity import AxisValue, canonical_json
from modelscape.errors import TemplateError
from modelscape.task.language import Attribute, Task
from modelscape.task.prompt import Prompt
from modelscape.templates.lexicon import Entry, Lexicon

__all__ = ["Filling", "Owner"]


class Owner(Protocol):
    """What a filling asks of the template it belongs to.

    :class:`~modelscape.templates.template.Template` is the one owner; naming only what a
    filling uses keeps this module below the template's, so the two never import each other.
    """

    @property
    def attributes(self) -> Mapping[str, Attribute[Filling, Any]]: ...

    @property
    def slots(self) -> Mapping[str, Lexicon]: ...

    def reference_of(self, filling: Filling) -> AxisValue | None: ...

    def render(self, filling: Filling) -> Prompt: ...

    def check_filling(self, filling: Filling) -> None: ...


class Filling(Task):
    """A task of a template's language: which entry fills each slot, and the prompt version.

    ``values`` maps each slot to its entry's label and, for a prompt in versions, the version
    attribute to its label. Its language is named after the template.
    """

    template: str
    values: dict[str, AxisValue]
    _template: Owner | None = PrivateAttr(default=None)

    def bound(self, template: Owner) -> Filling:
        """This filling tied to its template (needed to compute attributes and prompts)."""
        self._template = template
        return self

    @property
    def owner(self) -> Owner:
        """The template this filling belongs to."""
        if self._template is None:
            raise TemplateError(f"filling of template {self.template!r} is not bound to it")
        return self._template

    @property
    def language(self) -> str:
        return self.template

    def attributes(self) -> Mapping[str, Attribute[Any, Any]]:
        return self.owner.attributes

    def attribute_values(self) -> dict[str, AxisValue]:
        found: dict[str, AxisValue] = {}
        for name, attr in self.attributes().items():
            value = attr(self)
            if value is not None:
                found[name] = value
        return found

    def entry(self, slot: str) -> Entry:
        """The lexicon entry filling ``slot``."""
        return self.owner.slots[slot].entry(self.values[slot])

    def reference(self) -> AxisValue | None:
        return self.owner.reference_of(self)

    def prompt(self) -> Prompt:
        return self.owner.render(self)

    def checked(self) -> Filling:
        self.owner.check_filling(self)
        return self

    def with_value(self, name: str, value: AxisValue) -> Filling:
        """A copy with one slot (or the version) set to another label."""
        copy = Filling(template=self.template, values={**self.values, name: value})
        return copy.bound(self.owner)

    def __eq__(self, other: object) -> bool:
        # pydantic would also compare the bound template, an object without equality, so the
        # same filling of two builds of one spec would differ; compare the content instead,
        # keeping 1, 1.0 and True apart as labels
        if not isinstance(other, Filling):
            return NotImplemented
        return self.template == other.template and canonical_json(self.values) == canonical_json(
            other.values
        )

    __hash__ = None  # type: ignore[assignment]
