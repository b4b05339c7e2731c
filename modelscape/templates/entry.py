"""Lexicon entries: one way to fill a slot, and how entries are read from user data.

Values are compared by kind as well as by value: ``True`` is a boolean, never the number 1.
Integers and floats are one kind, numbers, so a lexicon may hold ``1`` and ``2.5`` together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from pydantic import Field, ValidationError, model_validator

from modelscape._identity import AxisValue
from modelscape._model import FrozenModel
from modelscape.errors import TemplateError

__all__ = [
    "RESERVED",
    "Cell",
    "Entry",
    "Row",
    "Texts",
    "check_scalar",
    "copy_texts",
    "from_mapping",
    "from_rows",
    "kind",
    "make_entry",
    "read_texts",
    "same",
    "show",
    "spell",
]

#: One text, or one text per prompt version, such as ``{"en": ..., "fr": ...}``.
Texts: TypeAlias = str | dict[AxisValue, str]
#: The value of an entry's property; ``None`` marks an entry that has no value for it.
Cell: TypeAlias = AxisValue | None
#: One row of the rows form: ``label``, ``text`` and one key per property.
Row: TypeAlias = dict[str, Cell | dict[AxisValue, str]]

RESERVED = ("label", "text")


def kind(value: object) -> str:
    """The kind a value is compared by: booleans are not numbers, ints and floats are."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def same(first: object, second: object) -> bool:
    """Equal and of one :func:`kind`: ``True`` is not ``1``, but ``1`` is ``1.0``.

    Looser than :func:`~modelscape.task.coordinate.same_value` on purpose: a label or version
    a person types (in YAML or the builder) as ``3`` or ``3.0`` names the same one.
    """
    return kind(first) == kind(second) and first == second


def spell(value: AxisValue) -> str:
    """A value spelled out as YAML writes it, so that ``[3, 4.5, true]`` reads as written.

    Strings stay as they are, numbers use ``str`` and booleans are ``true`` and ``false``.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_scalar(value: object, what: str) -> AxisValue:
    """``value`` itself if it can be a label, version key or property value; raise otherwise."""
    if not isinstance(value, str | int | float):  # bool is an int
        hint = "; quote it in YAML" if type(value).__name__ in ("date", "datetime") else ""
        raise TemplateError(
            f"{what} must be a string, number or boolean, not {type(value).__name__} "
            f"{value!r}{hint}"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise TemplateError(f"{what} must be a finite number, not {value!r}")
    return value


def show(values: Sequence[object], limit: int = 8) -> str:
    shown = ", ".join(repr(value) for value in values[:limit])
    return shown + (f", … ({len(values)} in all)" if len(values) > limit else "")


class Entry(FrozenModel):
    """One way to fill a slot: the label an axis records, the text the prompt gets, and
    properties that describe it (a name's gender, a pressure level).

    ``text`` is one text, or one text per prompt version when the prompt comes in versions
    (languages, tones), so that one entry stays one entry whatever version is rendered.
    """

    label: AxisValue
    text: Texts
    properties: dict[str, Cell] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Entry:
        check_scalar(self.label, "a label")
        if self.label == "":
            raise TemplateError("a label must not be empty; give the entry a name")
        name = repr(self.label)
        if isinstance(self.text, dict):
            if not self.text:
                raise TemplateError(
                    f"entry {name} has an empty mapping of versions; give it a text"
                )
            kinds = set()
            for version in self.text:
                check_scalar(version, f"a version of entry {name}")
                kinds.add(kind(version))
            if len(kinds) > 1:
                raise TemplateError(
                    f"entry {name} mixes {' and '.join(sorted(kinds))} versions "
                    f"({show(list(self.text))}); spell every version the same way"
                )
        for key, value in self.properties.items():
            if not key or key in RESERVED or "." in key:
                raise TemplateError(
                    f"entry {name} has a property named {key!r}; property names must be "
                    "non-empty, have no '.', and not be 'label' or 'text'"
                )
            if value is not None:
                check_scalar(value, f"property {key!r} of entry {name}")
        return self

    @property
    def versioned(self) -> bool:
        """Whether this entry has one text per prompt version."""
        return isinstance(self.text, dict)

    def text_in(self, version: AxisValue | None) -> str:
        """The text this entry puts in prompt version ``version``.

        An entry with one text gives it for every version; an entry with one text per version
        needs one of its versions, and says which it has otherwise.
        """
        if isinstance(self.text, str):
            return self.text
        for key, text in self.text.items():
            if same(key, version):
                return text
        known = ", ".join(repr(key) for key in self.text)
        if version is None:
            raise TemplateError(
                f"entry {self.label!r} has one text per version ({known}); name the version"
            )
        raise TemplateError(
            f"entry {self.label!r} has no text for version {version!r}; its versions are {known}"
        )


def copy_texts(text: Texts) -> Texts:
    return dict(text) if isinstance(text, dict) else text


def read_texts(text: object, where: str) -> Texts:
    """Check a text read from user data: one string, or a mapping of versions to strings."""
    if isinstance(text, str):
        return text
    if isinstance(text, Mapping):
        versions: dict[AxisValue, str] = {}
        for key, each in text.items():
            version = check_scalar(key, f"{where}: a version")
            if not isinstance(each, str):
                raise TemplateError(
                    f"{where}: the text for version {version!r} must be a string, not "
                    f"{type(each).__name__} {each!r}; quote it in YAML"
                )
            versions[version] = each
        return versions
    raise TemplateError(
        f"{where}: a text must be a string or a mapping of versions to strings, not "
        f"{type(text).__name__} {text!r}; quote it in YAML"
    )


def make_entry(where: str, label: AxisValue, text: Texts, properties: dict[str, Cell]) -> Entry:
    try:
        return Entry(label=label, text=text, properties=properties)
    except TemplateError as error:
        raise TemplateError(f"{where}: {error}") from None
    except ValidationError as error:  # pragma: no cover - the checks above come first
        raise TemplateError(f"{where}: {error}") from None


def from_mapping(values: Mapping[Any, Any]) -> list[Entry]:
    entries = []
    for key, text in values.items():
        where = f"key {key!r}"
        label = check_scalar(key, where)
        entries.append(make_entry(where, label, read_texts(text, where), {}))
    return entries


def from_rows(rows: Sequence[Any]) -> list[Entry]:
    entries: list[Entry] = []
    names: list[str] | None = None
    for index, row in enumerate(rows):
        where = f"row {index}"
        if isinstance(row, Entry):
            entries.append(row)
            continue
        if "label" not in row and "text" not in row:
            raise TemplateError(f"{where} has neither a label nor a text; give it at least one")
        for key in row:
            if not isinstance(key, str):
                raise TemplateError(
                    f"{where}: property names must be strings, not {type(key).__name__} {key!r}"
                )
        properties: dict[str, Cell] = {}
        for key, value in row.items():
            if key in RESERVED:
                continue
            if value is not None:
                check_scalar(value, f"{where}: property {key!r}")
            properties[key] = value
        if names is None:
            names = list(properties)
        elif set(properties) != set(names):
            missing = [name for name in names if name not in properties]
            extra = [name for name in properties if name not in names]
            problem = f"lacks {missing}" if missing else f"has properties {extra} that row 0 lacks"
            raise TemplateError(
                f"{where} {problem}; every row needs the same properties (null for an empty value)"
            )
        if "label" in row:
            label = check_scalar(row["label"], f"{where}: the label")
            text = read_texts(row["text"], where) if "text" in row else spell(label)
        else:
            text = read_texts(row["text"], where)
            if not isinstance(text, str):
                raise TemplateError(
                    f"{where} has one text per version but no label; give it a label"
                )
            label = text
        entries.append(make_entry(where, label, text, properties))
    return entries
