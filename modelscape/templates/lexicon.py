"""Lexicons: the entries a template slot can take, with their texts and properties.

A lexicon is a small table. Each entry has a label (the value an axis takes), the text it puts
in the prompt, and properties such as a name's gender or region. Properties are what let a
template vary one thing at a time: ``swap`` finds the entry that differs from another in one
property only, so a gender swap of a name keeps its region and its rank.

Four forms are accepted wherever a lexicon is expected, so that a YAML spec can use whichever
is shortest: a list of values, a mapping of labels to texts, a list of rows, or a ``Lexicon``.
``Lexicon.data`` writes the shortest form that reads back to the same lexicon.

Values are compared by kind as well as by value: ``True`` is a boolean, never the number 1.
Integers and floats are one kind, numbers, so a lexicon may hold ``1`` and ``2.5`` together.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterator, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, TypeAlias

import yaml
from pydantic import Field, ValidationError, model_validator

from modelscape._identity import AxisValue
from modelscape._model import FrozenModel
from modelscape._yaml import load_yaml
from modelscape.errors import TemplateError

__all__ = ["Cell", "Entry", "Lexical", "Lexicon", "Row", "Texts"]

#: One text, or one text per prompt version, such as ``{"en": ..., "fr": ...}``.
Texts: TypeAlias = str | dict[AxisValue, str]
#: The value of an entry's property; ``None`` marks an entry that has no value for it.
Cell: TypeAlias = AxisValue | None
#: One row of the rows form: ``label``, ``text`` and one key per property.
Row: TypeAlias = dict[str, Cell | dict[AxisValue, str]]

_RESERVED = ("label", "text")


def _kind(value: object) -> str:
    """The kind a value is compared by: booleans are not numbers, ints and floats are."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def _same(first: object, second: object) -> bool:
    return _kind(first) == _kind(second) and first == second


def _spell(value: AxisValue) -> str:
    """A value spelled out as YAML writes it, so that ``[3, 4.5, true]`` reads as written.

    Strings stay as they are, numbers use ``str`` and booleans are ``true`` and ``false``.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _check_scalar(value: object, what: str) -> AxisValue:
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


def _show(values: Sequence[object], limit: int = 8) -> str:
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
        _check_scalar(self.label, "a label")
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
                _check_scalar(version, f"a version of entry {name}")
                kinds.add(_kind(version))
            if len(kinds) > 1:
                raise TemplateError(
                    f"entry {name} mixes {' and '.join(sorted(kinds))} versions "
                    f"({_show(list(self.text))}); spell every version the same way"
                )
        for key, value in self.properties.items():
            if not key or key in _RESERVED or "." in key:
                raise TemplateError(
                    f"entry {name} has a property named {key!r}; property names must be "
                    "non-empty, have no '.', and not be 'label' or 'text'"
                )
            if value is not None:
                _check_scalar(value, f"property {key!r} of entry {name}")
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
            if _same(key, version):
                return text
        known = ", ".join(repr(key) for key in self.text)
        if version is None:
            raise TemplateError(
                f"entry {self.label!r} has one text per version ({known}); name the version"
            )
        raise TemplateError(
            f"entry {self.label!r} has no text for version {version!r}; its versions are {known}"
        )


class Lexicon(FrozenModel):
    """The entries a slot can take: labels unique and of one kind, every entry with the same
    properties, each property of one kind, and texts either all plain or all with the same
    versions. These checks are what make every label an axis value and every property an
    attribute a template can vary.
    """

    entries: tuple[Entry, ...]

    @model_validator(mode="after")
    def _check(self) -> Lexicon:
        if not self.entries:
            raise TemplateError("a lexicon needs at least one entry")
        first = self.entries[0]
        for index, entry in enumerate(self.entries[1:], start=1):
            if _kind(entry.label) != _kind(first.label):
                raise TemplateError(
                    f"labels mix kinds: {first.label!r} is a {_kind(first.label)} but entry "
                    f"{index} {entry.label!r} is a {_kind(entry.label)}; in YAML, quote numbers "
                    "and booleans to make every label a string"
                )
            for earlier in range(index):
                if _same(self.entries[earlier].label, entry.label):
                    raise TemplateError(
                        f"label {entry.label!r} appears twice (entries {earlier} and {index}); "
                        "every label must be unique"
                    )
            if set(entry.properties) != set(first.properties):
                raise TemplateError(
                    f"entry {entry.label!r} has properties {sorted(entry.properties)} but entry "
                    f"{first.label!r} has {sorted(first.properties)}; give every entry the same "
                    "properties (null for an empty value)"
                )
            if entry.versioned != first.versioned:
                which, other = (entry, first) if entry.versioned else (first, entry)
                raise TemplateError(
                    f"entry {which.label!r} has one text per version but entry {other.label!r} "
                    "has one text; give every entry a text for every version, or none"
                )
            if isinstance(entry.text, dict) and isinstance(first.text, dict):
                theirs, ours = list(entry.text), list(first.text)
                if len(theirs) != len(ours) or any(
                    not any(_same(key, mine) for mine in ours) for key in theirs
                ):
                    raise TemplateError(
                        f"entry {entry.label!r} has versions {_show(theirs)} but entry "
                        f"{first.label!r} has {_show(ours)}; every entry needs the same versions"
                    )
        for name in first.properties:
            seen = [(entry, entry.properties[name]) for entry in self.entries]
            kinds = {_kind(value) for _, value in seen if value is not None}
            if len(kinds) > 1:
                examples: dict[str, tuple[AxisValue, AxisValue]] = {}
                for entry, value in seen:
                    if value is not None:
                        examples.setdefault(_kind(value), (entry.label, value))
                described = "; ".join(
                    f"{label!r} has {value!r}" for label, value in examples.values()
                )
                raise TemplateError(
                    f"property {name!r} mixes {' and '.join(sorted(kinds))} values ({described}); "
                    "give it values of one kind"
                )
        return self

    @classmethod
    def of(cls, values: Lexical) -> Lexicon:
        """A lexicon from any of its forms: a lexicon, a list of values, a mapping of labels
        to texts, or a list of rows.

        A value's text is the value spelled out (booleans as ``true`` and ``false``). A row
        is a mapping with a ``label``, a ``text`` or both: a row with a text only is labelled
        by its text, a row with a label only has the label spelled out as its text, and every
        other key is a property.
        """
        if isinstance(values, Lexicon):
            return values
        if isinstance(values, Mapping):
            return cls(entries=tuple(_from_mapping(values)))
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            raise TemplateError(
                f"a lexicon is a list of values, a mapping of labels to texts, or a list of rows, "
                f"not {type(values).__name__} {values!r}"
            )
        if not values:
            raise TemplateError("a lexicon needs at least one entry, but the list is empty")
        rows = [isinstance(item, Mapping | Entry) for item in values]
        if any(rows) and not all(rows):
            odd = rows.index(not rows[0])
            raise TemplateError(
                f"item {odd} ({values[odd]!r}) is {'a row' if rows[odd] else 'a value'} but item 0 "
                f"is {'a row' if rows[0] else 'a value'}; write every item as a row or every "
                "item as a value"
            )
        if all(rows):
            return cls(entries=tuple(_from_rows(values)))
        entries = []
        for index, item in enumerate(values):
            value = _check_scalar(item, f"item {index}")
            entries.append(_entry(f"item {index}", value, _spell(value), {}))
        return cls(entries=tuple(entries))

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Lexicon:
        """A lexicon from a YAML file holding any form ``of`` takes."""
        source = Path(path)
        try:
            data = load_yaml(source.read_text(encoding="utf-8"))
        except OSError as error:
            raise TemplateError(f"{source}: cannot read lexicon: {error.strerror}") from error
        except yaml.YAMLError as error:
            raise TemplateError(f"{source}: not valid YAML: {error}") from error
        if data is None:
            raise TemplateError(f"{source}: the file is empty; write a list or mapping of entries")
        try:
            return cls.of(data)
        except TemplateError as error:
            raise TemplateError(f"{source}: {error}") from error

    def data(self) -> list[AxisValue] | list[Row] | dict[AxisValue, Texts]:
        """The lexicon in the shortest form ``of`` reads back to an equal lexicon.

        That is a list of labels when no entry has properties and every text is its label
        spelled out, a mapping of labels to texts when no entry has properties, and rows
        otherwise, leaving out a row's text when it is its label spelled out. The order of a
        mapping is the order of the entries, so write it to YAML with ``sort_keys=False``.
        """
        plain = not self.versioned and all(
            entry.text == _spell(entry.label) for entry in self.entries
        )
        if not self.properties:
            if plain:
                return [entry.label for entry in self.entries]
            return {entry.label: _copy(entry.text) for entry in self.entries}
        rows: list[Row] = []
        for entry in self.entries:
            row: Row = {"label": entry.label}
            if entry.text != _spell(entry.label):
                row["text"] = _copy(entry.text)
            row.update(entry.properties)
            rows.append(row)
        return rows

    @property
    def versioned(self) -> bool:
        """Whether every entry has one text per prompt version."""
        return self.entries[0].versioned

    @property
    def versions(self) -> tuple[AxisValue, ...]:
        """The prompt versions every entry has a text for, or ``()`` for plain texts."""
        text = self.entries[0].text
        return tuple(text) if isinstance(text, dict) else ()

    @property
    def labels(self) -> tuple[AxisValue, ...]:
        """Every label, in order."""
        return tuple(entry.label for entry in self.entries)

    @property
    def properties(self) -> tuple[str, ...]:
        """The names of the properties every entry has."""
        return tuple(self.entries[0].properties)

    def values(self, property: str | None = None) -> tuple[AxisValue, ...]:
        """Every label, or every value of one property, in order of first appearance.

        Empty (``None``) property values are left out: they are not values an axis can take.
        """
        if property is None:
            return self.labels
        self._known(property)
        distinct: list[AxisValue] = []
        for entry in self.entries:
            value = entry.properties[property]
            if value is not None and not any(_same(value, seen) for seen in distinct):
                distinct.append(value)
        return tuple(distinct)

    def entry(self, label: AxisValue) -> Entry:
        """The entry labelled ``label``."""
        for entry in self.entries:
            if _same(entry.label, label):
                return entry
        spelled = {str(known): known for known in self.labels}
        near = [spelled[close] for close in difflib.get_close_matches(str(label), spelled, n=3)]
        if near:
            hint = f"did you mean {' or '.join(map(repr, near))}?"
        else:
            hint = f"the labels are {_show(list(self.labels))}"
        raise TemplateError(f"no entry labelled {label!r}; {hint}")

    def swap(self, entry: Entry, property: str, value: AxisValue) -> Entry:
        """The counterpart of ``entry`` with ``property`` set to ``value``.

        It agrees with ``entry`` on every other property and has the same rank among such
        entries: if ``entry`` is the k-th of the entries that share all its properties, the
        answer is the k-th of those that share its other properties and have ``value``. This
        is what pairs the k-th female name of a region with the k-th male name.
        """
        self._known(property)
        group = self._alike(entry.properties)
        rank = next((index for index, known in enumerate(group) if known == entry), None)
        if rank is None:
            raise TemplateError(
                f"entry {entry.label!r} is not in this lexicon; swap entries of the lexicon itself"
            )
        if not any(_same(value, known) for known in self.values(property)):
            raise TemplateError(
                f"cannot swap entry {entry.label!r} to {property}={value!r}: no entry has that "
                f"value; the values of {property!r} are {_show(self.values(property))}"
            )
        candidates = self._alike({**entry.properties, property: value})
        if rank >= len(candidates):
            others = {key: item for key, item in entry.properties.items() if key != property}
            raise TemplateError(
                f"entry {entry.label!r} has no counterpart with {property}={value!r}: it is "
                f"number {rank + 1} of its group, but only {len(candidates)} "
                f"{'entry has' if len(candidates) == 1 else 'entries have'} {property}={value!r} "
                f"and {others or 'no other properties'}; give every group as many entries"
            )
        return candidates[rank]

    def _alike(self, properties: Mapping[str, Cell]) -> list[Entry]:
        """The entries whose every property agrees with ``properties``, in order."""
        return [
            known
            for known in self.entries
            if all(_same(known.properties[key], item) for key, item in properties.items())
        ]

    def _known(self, property: str) -> None:
        if property not in self.entries[0].properties:
            known = ", ".join(map(repr, self.properties)) or "none"
            raise TemplateError(f"no property {property!r}; the properties are {known}")

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Entry]:  # type: ignore[override]
        """The entries in order (not pydantic's field pairs)."""
        return iter(self.entries)


#: Anything ``Lexicon.of`` accepts: a ``Lexicon``; a sequence of values (``AxisValue``); a
#: mapping of labels to ``Texts``; or a sequence of rows, each a mapping with a ``label``, a
#: ``text`` or both and one key per property (or an ``Entry``). The items are typed loosely and
#: checked when the lexicon is built, because lexicons mostly come from YAML, and because a
#: literal list of rows with mixed value types must type-check as it is.
Lexical: TypeAlias = Lexicon | Mapping[Any, Any] | Sequence[Any]


def _copy(text: Texts) -> Texts:
    return dict(text) if isinstance(text, dict) else text


def _texts(text: object, where: str) -> Texts:
    """Check a text read from user data: one string, or a mapping of versions to strings."""
    if isinstance(text, str):
        return text
    if isinstance(text, Mapping):
        versions: dict[AxisValue, str] = {}
        for key, each in text.items():
            version = _check_scalar(key, f"{where}: a version")
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


def _entry(where: str, label: AxisValue, text: Texts, properties: dict[str, Cell]) -> Entry:
    try:
        return Entry(label=label, text=text, properties=properties)
    except TemplateError as error:
        raise TemplateError(f"{where}: {error}") from None
    except ValidationError as error:  # pragma: no cover - the checks above come first
        raise TemplateError(f"{where}: {error}") from None


def _from_mapping(values: Mapping[Any, Any]) -> list[Entry]:
    entries = []
    for key, text in values.items():
        where = f"key {key!r}"
        label = _check_scalar(key, where)
        entries.append(_entry(where, label, _texts(text, where), {}))
    return entries


def _from_rows(rows: Sequence[Any]) -> list[Entry]:
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
            if key in _RESERVED:
                continue
            if value is not None:
                _check_scalar(value, f"{where}: property {key!r}")
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
            label = _check_scalar(row["label"], f"{where}: the label")
            text = _texts(row["text"], where) if "text" in row else _spell(label)
        else:
            text = _texts(row["text"], where)
            if not isinstance(text, str):
                raise TemplateError(
                    f"{where} has one text per version but no label; give it a label"
                )
            label = text
        entries.append(_entry(where, label, text, properties))
    return entries
