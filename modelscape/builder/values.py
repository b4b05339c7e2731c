"""Edits of a slot's values: each reads the slot's lexicon, changes its entries, and writes
the result back in the shortest form a spec uses (a shipped name, a range, a list, a mapping
or rows), so a builder's data always reads like a hand-written spec.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from modelscape._identity import AxisValue
from modelscape.builder.pieces import spelled
from modelscape.builder.state import (
    Data,
    among,
    check_name,
    forget_attribute,
    lexicon_of,
    nearest,
    ordered,
    prompt_texts,
    slot_data,
    slots_of,
)
from modelscape.errors import SpecError, TemplateError
from modelscape.specs.model import Range
from modelscape.templates.entry import same, spell
from modelscape.templates.lexicon import Entry, Lexicon

__all__ = [
    "add",
    "baseline_of",
    "drop",
    "extend",
    "move",
    "per_version",
    "range_of",
    "rows",
    "slot_lexicon",
    "with_baseline",
]


def slot_lexicon(data: Data, slot: str, where: str) -> Lexicon:
    """The lexicon of ``slot``; raises SpecError naming the slot when it is unknown or broken."""
    slots = slots_of(data)
    if slot not in slots:
        known = list(slots)
        raise SpecError(
            f"{where}: no slot {slot!r}{nearest(slot, known)}; slots: {known or 'none yet'}"
        )
    return lexicon_of(slots[slot], f"{where}: slot {slot!r}")


def _revised(entry: Entry, where: str, **changes: Any) -> Entry:
    """A new entry like ``entry`` with ``changes``, checked as any entry is."""
    fields = {"label": entry.label, "text": entry.text, "properties": entry.properties} | changes
    try:
        return Entry(**fields)
    except (TemplateError, ValidationError) as error:
        message = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise SpecError(f"{where}: {message}") from None


def _entries(where: str, entries: Sequence[Entry]) -> Lexicon:
    try:
        return Lexicon(entries=tuple(entries))
    except (TemplateError, ValidationError) as error:
        message = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise SpecError(f"{where}: {message}") from None


def _write(data: Data, slot: str, value: Any) -> Data:
    slots = slots_of(data)
    slots[slot] = value
    return ordered(dict(data) | {"slots": slots})


def _stored(data: Data, slot: str, lexicon: Lexicon) -> Data:
    return _write(data, slot, slot_data(lexicon))


def drop(data: Data, slot: str, property: str) -> Data:
    """Remove ``property`` from every value of ``slot``, and every use of ``slot.property``."""
    where = f"drop {slot}.{property}"
    lexicon = slot_lexicon(data, slot, where)
    if property not in lexicon.properties:
        known = list(lexicon.properties)
        raise SpecError(
            f"{where}: slot {slot!r} has no property {property!r}{nearest(property, known)}; "
            f"properties: {known or 'none'}"
        )
    entries = [
        _revised(
            entry,
            where,
            properties={k: v for k, v in entry.properties.items() if k != property},
        )
        for entry in lexicon
    ]
    out = _stored(data, slot, _entries(where, entries))
    return forget_attribute(out, f"{slot}.{property}", properties=False)


def per_version(data: Data, slot: str, enabled: bool) -> Data:
    """Give every value of ``slot`` one text per prompt version (``enabled``), or one again."""
    where = f"per_version {slot}"
    lexicon = slot_lexicon(data, slot, where)
    attribute, texts = prompt_texts(data, where)
    if enabled:
        if attribute is None:
            raise SpecError(
                f"{where}: the prompt has no versions; write it in versions first with "
                "versions(name, labels)"
            )
        if lexicon.versioned:
            raise SpecError(f"{where}: slot {slot!r} already has one text per version")
        entries = [
            _revised(entry, where, text=dict.fromkeys(texts, entry.text)) for entry in lexicon
        ]
    else:
        if not lexicon.versioned:
            raise SpecError(f"{where}: slot {slot!r} already has one text for every version")
        first = next(iter(texts)) if attribute is not None else lexicon.versions[0]
        if not among(first, lexicon.versions):
            first = lexicon.versions[0]
        entries = [_revised(entry, where, text=entry.text_in(first)) for entry in lexicon]
    return _stored(data, slot, _entries(where, entries))


def _text_cell(value: object, versions: Sequence[AxisValue], where: str) -> object:
    """A row's text, its version keys matched to the prompt's versions by spelling."""
    if not isinstance(value, Mapping):
        return value
    matched: dict[object, object] = {}
    for key, text in value.items():
        if isinstance(key, str) and not among(key, versions):
            key = next((v for v in versions if spell(v) == key), key)
        matched[key] = text
    return matched


def _cell(value: object) -> object:
    if isinstance(value, str):
        return None if value == "" else spelled(value)
    return value


def rows(data: Data, slot: str, table: Sequence[Mapping[str, Any]]) -> Data:
    """Replace the values of ``slot`` with ``table``: rows with a label, a text or both, and
    one key per property. Label and property cells written as text that spell a number or a
    boolean become one, and an empty property cell is empty (null); a text is kept as written,
    and may map each prompt version (or its spelling) to its text."""
    where = f"rows {slot}"
    slot_lexicon(data, slot, where)
    if isinstance(table, str | bytes | Mapping) or not isinstance(table, Sequence) or not table:
        raise SpecError(f"{where}: give a non-empty list of rows, each a mapping")
    try:
        _, texts = prompt_texts(data, where)
        versions: Sequence[AxisValue] = list(texts)
    except SpecError:
        versions = []
    clean: list[dict[str, Any]] = []
    for index, row in enumerate(table):
        if not isinstance(row, Mapping):
            raise SpecError(f"{where}: row {index} is {row!r}, not a mapping of label, text, ...")
        converted: dict[str, Any] = {}
        for key, value in row.items():
            if key == "text":
                converted[key] = _text_cell(value, versions, where)
            elif key == "label":
                converted[key] = spelled(value) if isinstance(value, str) and value else value
            else:
                converted[key] = _cell(value)
        clean.append(converted)
    try:
        lexicon = Lexicon.of(clean)
    except TemplateError as error:
        raise SpecError(f"{where}: {error}") from None
    return _stored(data, slot, lexicon)


def range_of(data: Data, slot: str, start: object, stop: object, step: object) -> Data:
    """Make the values of ``slot`` the numbers from ``start`` up to ``stop``, ``step`` apart.

    The slot's baseline (the example's own value, unless another was chosen) stays its
    baseline, and is added to the numbers when the range misses it: a range replaces the
    other values, never the example. See ``baseline_of`` for where the baseline is kept.
    """
    where = f"range {slot}"
    lexicon = slot_lexicon(data, slot, where)
    for name, value in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SpecError(f"{where}: {name} must be a number, not {value!r}")
    try:
        bounds = Range(start=start, stop=stop, step=step)
    except SpecError as error:
        raise SpecError(f"{where}: {error}") from None
    except ValidationError as error:  # pragma: no cover - the checks above come first
        raise SpecError(f"{where}: {error.errors()[0]['msg']}") from None
    example = baseline_of(data, slot, lexicon)
    numbers = list(bounds.numbers())
    if isinstance(example, bool) or not isinstance(example, int | float):
        # a text or a boolean cannot sit among numbers: the range replaces it
        return with_baseline(_write(data, slot, bounds.model_dump()), slot, None)
    if not among(example, numbers):
        numbers = sorted([*numbers, example])
    entries = [Entry(label=number, text=spell(number)) for number in numbers]
    return with_baseline(_stored(data, slot, _entries(where, entries)), slot, example)


def baseline_of(data: Data, slot: str, lexicon: Lexicon) -> AxisValue:
    """The baseline of ``slot``: the one ``vary`` names, or else its first value.

    A builder keeps the example's value as the baseline. While a slot is not varied on a
    numeric scale that is simply its first value (the top row); a numeric scale needs its
    values in increasing order, so there the baseline is named in ``vary`` instead.
    """
    varied = _varied(data).get(slot)
    if isinstance(varied, Mapping) and "baseline" in varied:
        chosen = varied["baseline"]
        if among(chosen, lexicon.labels):
            return next(label for label in lexicon.labels if same(label, chosen))
    return lexicon.labels[0]


def _varied(data: Data) -> dict[str, Any]:
    vary = data.get("vary")
    return dict(vary) if isinstance(vary, Mapping) else {}


def _scale(varied: object) -> object:
    return varied.get("scale") if isinstance(varied, Mapping) else varied


def with_baseline(data: Data, slot: str, baseline: AxisValue | None) -> Data:
    """``data`` with ``baseline`` as the baseline of ``slot``, kept where the slot's scale
    lets it be kept: its values in increasing order and the baseline named in ``vary`` for a
    numeric scale, the baseline first among the values otherwise. None keeps the first value.
    """
    lexicon = lexicon_of(slots_of(data)[slot], f"slots.{slot}")
    vary = _varied(data)
    varied = vary.get(slot)
    entries = list(lexicon.entries)
    numbers = all(
        isinstance(label, int | float) and not isinstance(label, bool) for label in lexicon.labels
    )
    if _scale(varied) == "numeric" and numbers:
        entries.sort(key=lambda entry: entry.label)
    elif baseline is not None:
        entries.sort(key=lambda entry: not same(entry.label, baseline))
    moved = [entry.label for entry in entries] != list(lexicon.labels)
    out = _stored(data, slot, _entries(f"slots.{slot}", entries)) if moved else dict(data)
    first = entries[0].label
    if varied is None:
        return out
    written = dict(varied) if isinstance(varied, Mapping) else {"scale": varied}
    if baseline is None or same(baseline, first):
        written.pop("baseline", None)
    else:
        written["baseline"] = baseline
    vary[slot] = written if set(written) != {"scale"} else written["scale"]
    return ordered(out | {"vary": vary})


def _next_label(lexicon: Lexicon) -> AxisValue:
    labels = lexicon.labels
    last = labels[-1]
    if isinstance(last, bool):
        if among(not last, labels):
            raise SpecError("both booleans are already values; a boolean slot has no third value")
        return not last
    if isinstance(last, int | float):
        numbers = [float(label) for label in labels]
        step = numbers[-1] - numbers[-2] if len(numbers) >= 2 else 1.0
        value = numbers[-1] + (step if step > 0 else 1.0)
        while among(value, labels):
            value += 1.0
        integral = all(isinstance(label, int) for label in labels) and value.is_integer()
        return int(value) if integral else round(value, 10)
    count = 2
    while among(f"{last} {count}", labels):
        count += 1
    return f"{last} {count}"


def add(data: Data, slot: str) -> Data:
    """Add a value to ``slot``: a copy of its last value under a new label.

    The new label continues the labels: a number one step on, the other boolean, or the last
    text with a count (``Paris 2``). The text is copied, unless it was the label spelled out,
    when it is the new label spelled out, so a list of values stays a list.
    """
    where = f"add {slot}"
    lexicon = slot_lexicon(data, slot, where)
    last = lexicon.entries[-1]
    try:
        label = _next_label(lexicon)
    except SpecError as error:
        raise SpecError(f"{where}: {error}") from None
    text = spell(label) if last.text == spell(last.label) else last.text
    entry = _revised(last, where, label=label, text=text)
    return _stored(data, slot, _entries(where, [*lexicon.entries, entry]))


def move(data: Data, slot: str, row: int) -> Data:
    """Move value ``row`` (counted from 0) of ``slot`` one place up; the top one is the baseline."""
    where = f"move {slot}"
    lexicon = slot_lexicon(data, slot, where)
    if isinstance(row, bool) or not isinstance(row, int):
        raise SpecError(f"{where}: row must be a whole number, not {row!r}")
    if row == 0:
        raise SpecError(f"{where}: value 0 ({lexicon.labels[0]!r}) is already at the top")
    if not 0 < row < len(lexicon):
        raise SpecError(
            f"{where}: no value {row}; slot {slot!r} has values 0 to {len(lexicon) - 1}"
        )
    entries = list(lexicon.entries)
    entries[row - 1], entries[row] = entries[row], entries[row - 1]
    return _stored(data, slot, _entries(where, entries))


def extend(data: Data, slot: str, property: str) -> Data:
    """Give every value of ``slot`` a new ``property``, empty (null) until edited."""
    where = f"extend {slot}"
    lexicon = slot_lexicon(data, slot, where)
    check_name(property, "property", where)
    if property in lexicon.properties or property in ("label", "text"):
        raise SpecError(f"{where}: slot {slot!r} already has {property!r}; choose another name")
    entries = [
        _revised(entry, where, properties=entry.properties | {property: None}) for entry in lexicon
    ]
    return _stored(data, slot, _entries(where, entries))
