"""The builder's state: a spec as data, in the form ``Spec.data()`` writes and ``Spec.of`` reads.

Every edit is a pure function from one such dict to a new one. The helpers here read the parts
an edit needs (the prompt's versions, the slots' lexicons, every attribute and its values)
leniently, because a draft may be invalid anywhere, and write them back in the spec's order.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from modelscape import lexicons
from modelscape._hints import nearest
from modelscape._identity import AxisValue
from modelscape.errors import SpecError, TemplateError
from modelscape.specs.model import Range
from modelscape.specs.spec import Spec
from modelscape.templates.entry import same
from modelscape.templates.lexicon import Lexicon

__all__ = [
    "SPEC_KEYS",
    "Data",
    "among",
    "attribute_values",
    "check_name",
    "forget_attribute",
    "lexicon_of",
    "nearest",
    "ordered",
    "prompt_texts",
    "rename_attribute",
    "slot_data",
    "slots_of",
    "with_prompt",
]

#: A spec as data: what ``Spec.data()`` returns, possibly incomplete or invalid.
Data = dict[str, Any]
#: The keys of a spec, in the order its YAML lists them: the ``Spec`` model's fields.
SPEC_KEYS: tuple[str, ...] = tuple(Spec.model_fields)


def among(value: object, options: Sequence[object]) -> bool:
    """Whether ``value`` is one of ``options``, compared as ``same`` does."""
    return any(same(value, option) for option in options)


def ordered(data: Mapping[str, Any]) -> Data:
    """``data`` with its keys in the order a spec's YAML lists them, unknown keys last."""
    known = {key: data[key] for key in SPEC_KEYS if key in data}
    return known | {key: value for key, value in data.items() if key not in known}


def check_name(name: object, what: str, where: str) -> str:
    """``name`` if it can name a slot, property or attribute in a template; raise otherwise."""
    if not isinstance(name, str) or not name.isidentifier():
        raise SpecError(
            f"{where}: {what} {name!r} is not a name; use letters, digits and underscores, "
            "not starting with a digit"
        )
    return name


def prompt_texts(data: Mapping[str, Any], where: str) -> tuple[str | None, dict[AxisValue, str]]:
    """The prompt's version attribute (None for one prompt) and its text per version.

    One prompt is keyed by ``""``. Raises SpecError when there is no readable prompt.
    """
    prompt = data.get("prompt")
    if isinstance(prompt, str):
        return None, {"": prompt}
    if isinstance(prompt, Mapping) and len(prompt) == 1:
        ((attribute, versions),) = prompt.items()
        if (
            isinstance(attribute, str)
            and isinstance(versions, Mapping)
            and versions
            and all(isinstance(text, str) for text in versions.values())
        ):
            return attribute, dict(versions)
    raise SpecError(
        f"{where}: the prompt is missing or unreadable; set it first with edit('prompt', ...)"
    )


def with_prompt(data: Data, attribute: str | None, texts: Mapping[AxisValue, str]) -> Data:
    """``data`` with its prompt set to ``texts``, under ``attribute`` when in versions."""
    out = dict(data)
    out["prompt"] = texts[""] if attribute is None else {attribute: dict(texts)}
    return ordered(out)


def slots_of(data: Mapping[str, Any]) -> dict[str, Any]:
    """The slots of ``data`` as written (empty when there are none or they are unreadable)."""
    slots = data.get("slots")
    return dict(slots) if isinstance(slots, Mapping) else {}


def lexicon_of(value: Any, where: str) -> Lexicon:
    """The lexicon a slot's data describes: a shipped name, a range, or any lexicon form."""
    if isinstance(value, str):
        try:
            return lexicons.get(value)
        except TemplateError as error:
            raise SpecError(f"{where}: {error}") from None
    try:
        if isinstance(value, Mapping) and set(value) == {"start", "stop", "step"}:
            return Lexicon.of(list(Range(**value).numbers()))
        return Lexicon.of(value)
    except (TemplateError, SpecError, ValidationError) as error:
        message = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise SpecError(f"{where}: {message}") from None


def slot_data(lexicon: Lexicon) -> Any:
    """A slot's values in the shortest form a spec writes: a shipped lexicon's name, a range
    of three or more evenly spaced numbers, or the lexicon's own shortest data."""
    for name in lexicons.available():
        if lexicons.get(name) == lexicon:
            return name
    labels = lexicon.labels
    numbers = [v for v in labels if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) == len(labels) >= 3 and lexicon.data() == list(labels):
        step = numbers[1] - numbers[0]
        if step > 0:
            try:
                candidate = Range(start=numbers[0], stop=numbers[-1], step=step)
            except (SpecError, ValidationError):
                return lexicon.data()
            if Lexicon.of(list(candidate.numbers())) == lexicon:
                return candidate.model_dump()
    return lexicon.data()


def attribute_values(data: Mapping[str, Any]) -> dict[str, tuple[AxisValue, ...]]:
    """Every attribute the draft's template has, with its values; unreadable slots are skipped.

    That is the prompt versions' attribute, every slot, and every ``slot.property``.
    """
    found: dict[str, tuple[AxisValue, ...]] = {}
    try:
        attribute, texts = prompt_texts(data, "prompt")
    except SpecError:
        attribute = None
    if attribute is not None:
        found[attribute] = tuple(texts)
    for slot, value in slots_of(data).items():
        try:
            lexicon = lexicon_of(value, f"slots.{slot}")
        except SpecError:
            continue
        found[str(slot)] = lexicon.values()
        for prop in lexicon.properties:
            found[f"{slot}.{prop}"] = lexicon.values(prop)
    return found


def _uses(data: Data, change: Callable[[str], str | None]) -> Data:
    """``data`` with every attribute name used in vary, groups and the correct answer passed
    through ``change``: a new name renames it, None forgets it."""
    out = copy.deepcopy(data)
    vary = out.get("vary")
    if isinstance(vary, Mapping):
        renamed = {change(str(key)): value for key, value in vary.items()}
        out["vary"] = {key: value for key, value in renamed.items() if key is not None}
        if not out["vary"]:
            del out["vary"]
    groups = out.get("groups")
    if isinstance(groups, Mapping):
        kept: dict[str, Any] = {}
        for group, conditions in groups.items():
            if not isinstance(conditions, Mapping):
                kept[group] = conditions
                continue
            moved = {change(str(key)): value for key, value in conditions.items()}
            if any(key is not None for key in moved):
                kept[group] = {key: value for key, value in moved.items() if key is not None}
        if kept:
            out["groups"] = kept
        else:
            del out["groups"]
    answer = out.get("answer")
    if isinstance(answer, Mapping) and "correct" in answer:
        correct = answer["correct"]
        forget = False
        if isinstance(correct, Mapping) and len(correct) == 1:
            ((key, table),) = correct.items()
            new = change(str(key))
            forget = new is None
            correct = {new: table}
        elif isinstance(correct, list):
            rows = []
            for row in correct:
                if isinstance(row, Mapping):
                    keys = {k: "answer" if k == "answer" else change(str(k)) for k in row}
                    forget = forget or any(new is None for new in keys.values())
                    row = {keys[k]: value for k, value in row.items()}
                rows.append(row)
            correct = rows
        if forget:
            out["answer"] = {k: v for k, v in answer.items() if k != "correct"}
        else:
            out["answer"] = dict(answer) | {"correct": correct}
    return out


def rename_attribute(data: Data, old: str, new: str) -> Data:
    """``data`` with attribute ``old`` (and, for a slot, each ``old.property``) named ``new``."""

    def change(name: str) -> str:
        if name == old:
            return new
        if name.startswith(old + "."):
            return new + name[len(old) :]
        return name

    return _uses(data, change)


def forget_attribute(data: Data, name: str, *, properties: bool = True) -> Data:
    """``data`` with every use of attribute ``name`` gone: it is no longer varied, group
    conditions on it are dropped (a group left without conditions too), and a correct answer
    that depends on it is cleared. With ``properties``, ``name.property`` goes as well."""

    def change(attribute: str) -> str | None:
        if attribute == name or (properties and attribute.startswith(name + ".")):
            return None
        return attribute

    return _uses(data, change)
