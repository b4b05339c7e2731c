"""Variant tables: the variants of a design held compactly, each assembled when it is read.

A run asks every variant ``targets × repetitions`` times in a shuffled order, so it needs every
variant at hand for its whole length. Held as :class:`Variant` models, one weighs about 4.4 KB
(five pydantic models, each with its own dict and set of fields, and copies of the coordinate
and attributes), which made the variants most of what a run of a million observations held.

A table keeps, per variant, what is its own: the id, the task, the prompt's text and the
reference. What many variants share is kept once: the case and the coordinate follow from the
variant's position (variants go case by case, each coordinate in design order), and equal
attribute values and equal steps are one object each. A :class:`Variant` is assembled from
that with the trusted constructor in a few microseconds, equal to what the task space builds:
every piece is taken from a variant the task space built and checked, and only the models
that hold nothing of their own (the variant, a one-message prompt) are made anew.

The variants are built through :meth:`TaskSpace.build_variant`, which does not keep them in the
space: a table of a hundred thousand variants is then all that holds them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from pydantic import BaseModel

from modelscape._identity import AxisValue
from modelscape._model import trusted
from modelscape.task.coordinate import Coordinate
from modelscape.task.prompt import Message, Prompt
from modelscape.task.space import TaskSpace, Variant
from modelscape.task.steps import Step

__all__ = ["VariantTable"]

_MESSAGE_FIELDS = frozenset(Message.model_fields)
_PROMPT_FIELDS = frozenset(Prompt.model_fields)


def _key(value: object) -> object:
    """A key under which two values are one only when they are the same in every way.

    Python calls ``0``, ``0.0``, ``-0.0`` and ``False`` equal, and frozen models compare their
    fields that way; a shared value must keep its exact type and spelling, so the key holds
    each value's type, a float's ``repr`` (exact, and apart for ``-0.0``), and walks into
    models and containers.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return (kind, value)
    if isinstance(value, BaseModel):
        return (kind, tuple((k, _key(v)) for k, v in value.__dict__.items()))
    if kind is tuple:
        return (kind, tuple(_key(v) for v in value))  # type: ignore[attr-defined]
    if kind is dict:
        return (kind, tuple((k, _key(v)) for k, v in value.items()))  # type: ignore[attr-defined]
    return (kind, repr(value))


class VariantTable(Sequence[Variant]):
    """The variants of ``cases`` at ``coordinates`` (case by case), held compactly.

    Reading a position assembles its :class:`Variant`: a new model each time, equal to the one
    :meth:`TaskSpace.variant` gives, whose dicts are its own (changing one changes no other
    variant). The task, the steps and a prompt of several parts are shared with every variant
    assembled from the same position, as the task space shares them between calls.
    """

    def __init__(self, space: TaskSpace[Any], coordinates: Sequence[Coordinate]) -> None:
        self.language = space.language
        self.width = len(coordinates)
        #: The cases, as their variants hold them.
        self.cases: list[str] = []
        #: Each coordinate as a variant holds it (checked once, by the first variant there).
        self.coordinates: list[dict[str, AxisValue]] = []
        self.ids: list[str] = []
        self.tasks: list[Any] = []
        # The text of a one-message prompt (rebuilt when assembled), or the prompt itself.
        self.prompts: list[str | Prompt] = []
        self.references: list[AxisValue | None] = []
        self.attributes: list[dict[str, AxisValue]] = []
        self.steps: list[tuple[Step, ...]] = []
        shared: dict[object, Any] = {}
        for case in space.cases:
            for position, coordinate in enumerate(coordinates):
                self._add(space.build_variant(case, coordinate), position, shared)
        self._positions: dict[str, int] | None = None

    def _add(self, variant: Variant, position: int, shared: dict[object, Any]) -> None:
        fields = variant.__dict__
        if position == 0:
            self.cases.append(fields["case"])
            self.language = fields["language"]
        if len(self.coordinates) <= position:
            self.coordinates.append(fields["coordinate"])
        self.ids.append(fields["id"])
        self.tasks.append(fields["task"])
        self.prompts.append(_compact(fields["prompt"]))
        # References, attribute values and steps repeat across cases and coordinates: one
        # object each per distinct value.
        for column, name in (
            (self.references, "reference"),
            (self.attributes, "attributes"),
            (self.steps, "steps"),
        ):
            value = fields[name]
            column.append(shared.setdefault(_key(value), value))

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> Variant: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Variant]: ...
    def __getitem__(self, index: int | slice) -> Variant | Sequence[Variant]:
        if isinstance(index, slice):
            return tuple(self.variant(i) for i in range(len(self))[index])
        return self.variant(index)

    def __iter__(self) -> Iterator[Variant]:
        for index in range(len(self.ids)):
            yield self.variant(index)

    def variant(self, index: int) -> Variant:
        """The variant at position ``index``, assembled."""
        if index < 0:
            index += len(self.ids)
        if not 0 <= index < len(self.ids):
            raise IndexError(f"no variant at position {index} of {len(self.ids)}")
        case, position = divmod(index, self.width)
        prompt = self.prompts[index]
        if type(prompt) is str:
            message = trusted(Message, {"role": "user", "content": prompt})
            prompt = trusted(Prompt, {"system": None, "messages": (message,)})
        return trusted(
            Variant,
            {
                "id": self.ids[index],
                "case": self.cases[case],
                "coordinate": dict(self.coordinates[position]),
                "language": self.language,
                "task": self.tasks[index],
                "attributes": dict(self.attributes[index]),
                "reference": self.references[index],
                "prompt": prompt,
                "steps": self.steps[index],
            },
        )

    def by_id(self) -> Mapping[str, Variant]:
        """The variants by id, each assembled when it is looked up."""
        return _ById(self)

    def position(self, variant_id: str) -> int:
        """The position of the variant with id ``variant_id`` (a KeyError when none)."""
        if self._positions is None:
            # Made on the first lookup: a run that measures everything while its calls are in
            # flight never looks a variant up by id.
            self._positions = {vid: index for index, vid in enumerate(self.ids)}
        return self._positions[variant_id]

    def __eq__(self, other: object) -> bool:
        # The same variants in the same order: ids are content hashes of everything a variant
        # holds (its steps and attributes follow from its task and coordinate).
        if not isinstance(other, VariantTable):
            return NotImplemented
        return self is other or self.ids == other.ids

    def __hash__(self) -> int:
        return hash((self.language, len(self.ids)))

    def __repr__(self) -> str:
        return f"VariantTable(language={self.language!r}, variants={len(self.ids)})"


def _compact(prompt: Prompt) -> str | Prompt:
    """The prompt's text when the prompt is one user message and nothing else, which
    :class:`VariantTable` rebuilds as it was; else the prompt itself."""
    fields = prompt.__dict__
    messages = fields["messages"]
    if (
        fields["system"] is None
        and type(prompt) is Prompt
        and prompt.__pydantic_fields_set__ == _PROMPT_FIELDS
        and type(messages) is tuple
        and len(messages) == 1
    ):
        (message,) = messages
        if (
            type(message) is Message
            and message.__pydantic_fields_set__ == _MESSAGE_FIELDS
            and message.role == "user"
            and type(message.content) is str
        ):
            return message.content
    return prompt


class _ById(Mapping[str, Variant]):
    """A table's variants by id, assembled on lookup."""

    def __init__(self, table: VariantTable) -> None:
        self.table = table

    def __getitem__(self, variant_id: str) -> Variant:
        return self.table.variant(self.table.position(variant_id))

    def __iter__(self) -> Iterator[str]:
        return iter(self.table.ids)

    def __len__(self) -> int:
        return len(self.table.ids)
