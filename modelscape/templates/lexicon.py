"""Lexicons: the entries a template slot can take, with their texts and properties.

A lexicon is a small table. Each entry has a label (the value an axis takes), the text it puts
in the prompt, and properties such as a name's gender or region. Properties are what let a
template vary one thing at a time: ``swap`` finds the entry that differs from another in one
property only, so a gender swap of a name keeps its region and its rank.

Four forms are accepted wherever a lexicon is expected, so that a YAML spec can use whichever
is shortest: a list of values, a mapping of labels to texts, a list of rows, or a ``Lexicon``.
``Lexicon.data`` writes the shortest form that reads back to the same lexicon.

Entries and the reading of user data live in :mod:`modelscape.templates.entry`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import Any, TypeAlias

import yaml
from pydantic import model_validator

from modelscape._identity import AxisValue
from modelscape._model import FrozenModel
from modelscape._yaml import describe, read_yaml
from modelscape.errors import TemplateError
from modelscape.templates.entry import (
    Cell,
    Entry,
    Row,
    Texts,
    check_scalar,
    copy_texts,
    from_mapping,
    from_rows,
    kind,
    make_entry,
    same,
    show,
    spell,
)

__all__ = ["MAX_ENTRIES", "Cell", "Entry", "Lexical", "Lexicon", "Row", "Texts"]

#: The most entries one lexicon holds (and so the most values one slot can take): enough for
#: any axis a person reviews, and a bound on what a contributed spec can make a build do.
MAX_ENTRIES = 10_000


_Key: TypeAlias = tuple[str, AxisValue | None]


def _key(value: AxisValue | None) -> _Key:
    """A value as lexicons compare it: ``same`` values have equal keys."""
    return kind(value), value


def _hashable(value: object) -> bool:
    return isinstance(value, str | int | float | bool) or value is None


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
        if len(self.entries) > MAX_ENTRIES:
            raise TemplateError(
                f"a lexicon holds at most {MAX_ENTRIES:,} entries, not {len(self.entries):,}; "
                "split the slot, or vary fewer values"
            )
        first = self.entries[0]
        # Labels by kind and value (1 and 1.0 are one label, True and 1 are not): one pass,
        # so a lexicon of thousands of values is checked in linear time.
        labels: dict[_Key, int] = {_key(first.label): 0}
        for index, entry in enumerate(self.entries[1:], start=1):
            if kind(entry.label) != kind(first.label):
                raise TemplateError(
                    f"labels mix kinds: {first.label!r} is a {kind(first.label)} but entry "
                    f"{index} {entry.label!r} is a {kind(entry.label)}; in YAML, quote numbers "
                    "and booleans to make every label a string"
                )
            earlier = labels.setdefault(_key(entry.label), index)
            if earlier != index:
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
                    not any(same(key, mine) for mine in ours) for key in theirs
                ):
                    raise TemplateError(
                        f"entry {entry.label!r} has versions {show(theirs)} but entry "
                        f"{first.label!r} has {show(ours)}; every entry needs the same versions"
                    )
        for name in first.properties:
            seen = [(entry, entry.properties[name]) for entry in self.entries]
            kinds = {kind(value) for _, value in seen if value is not None}
            if len(kinds) > 1:
                examples: dict[str, tuple[AxisValue, AxisValue]] = {}
                for entry, value in seen:
                    if value is not None:
                        examples.setdefault(kind(value), (entry.label, value))
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
            return cls(entries=tuple(from_mapping(values)))
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
            return cls(entries=tuple(from_rows(values)))
        entries = []
        for index, item in enumerate(values):
            value = check_scalar(item, f"item {index}")
            entries.append(make_entry(f"item {index}", value, spell(value), {}))
        return cls(entries=tuple(entries))

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Lexicon:
        """A lexicon from a YAML file holding any form ``of`` takes."""
        source = Path(path)
        try:
            data = read_yaml(source)
        except OSError as error:
            raise TemplateError(f"{source}: cannot read lexicon: {error.strerror}") from None
        except yaml.YAMLError as error:  # invalid, not UTF-8, or over a limit
            raise TemplateError(f"{source}: {describe(error)}") from None
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
            entry.text == spell(entry.label) for entry in self.entries
        )
        if not self.properties:
            if plain:
                return [entry.label for entry in self.entries]
            return {entry.label: copy_texts(entry.text) for entry in self.entries}
        rows: list[Row] = []
        for entry in self.entries:
            row: Row = {"label": entry.label}
            if entry.text != spell(entry.label):
                row["text"] = copy_texts(entry.text)
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
        return self._property_values[property]

    @cached_property
    def _property_values(self) -> dict[str, tuple[AxisValue, ...]]:
        # Swaps ask for these once per variant, so they are found once, in one pass each.
        found: dict[str, tuple[AxisValue, ...]] = {}
        for name in self.properties:
            distinct: dict[_Key, AxisValue] = {}
            for entry in self.entries:
                value = entry.properties[name]
                if value is not None:
                    distinct.setdefault(_key(value), value)
            found[name] = tuple(distinct.values())
        return found

    @cached_property
    def _by_label(self) -> dict[_Key, Entry]:
        # Every variant looks its entries up by label: an index keeps that constant-time.
        return {_key(entry.label): entry for entry in self.entries}

    def entry(self, label: AxisValue) -> Entry:
        """The entry labelled ``label``."""
        found = self._by_label.get(_key(label)) if _hashable(label) else None
        if found is not None:
            return found
        spelled = {str(known): known for known in self.labels}
        near = [spelled[close] for close in difflib.get_close_matches(str(label), spelled, n=3)]
        if near:
            hint = f"did you mean {' or '.join(map(repr, near))}?"
        else:
            hint = f"the labels are {show(list(self.labels))}"
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
        if not any(same(value, known) for known in self.values(property)):
            raise TemplateError(
                f"cannot swap entry {entry.label!r} to {property}={value!r}: no entry has that "
                f"value; the values of {property!r} are {show(self.values(property))}"
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

    @cached_property
    def _groups(self) -> dict[tuple[_Key, ...], list[Entry]]:
        # The entries by all their properties at once, for swaps: one pass, then lookups.
        groups: dict[tuple[_Key, ...], list[Entry]] = {}
        for entry in self.entries:
            key = tuple(_key(entry.properties[name]) for name in self.properties)
            groups.setdefault(key, []).append(entry)
        return groups

    def _alike(self, properties: Mapping[str, Cell]) -> list[Entry]:
        """The entries whose every property agrees with ``properties``, in order."""
        if set(properties) == set(self.properties) and all(map(_hashable, properties.values())):
            key = tuple(_key(properties[name]) for name in self.properties)
            return list(self._groups.get(key, ()))
        return [
            known
            for known in self.entries
            if all(same(known.properties[key], item) for key, item in properties.items())
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
