"""Edits of the prompt and its slots: marking, removing and renaming slots, prompt versions,
top-level fields, and the system prompt's reply instruction.

Each function takes a spec as data and returns a new one; none changes its argument. Each
checks its arguments first and raises SpecError saying what is wrong and what to do.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from typing import Any

from modelscape import lexicons
from modelscape._identity import AxisValue
from modelscape.builder.pieces import fill_slot, place_slot, rename_slot, selected_piece, split
from modelscape.builder.pieces import spelled as spelled_value
from modelscape.builder.state import (
    SPEC_KEYS,
    Data,
    among,
    check_name,
    forget_attribute,
    lexicon_of,
    nearest,
    ordered,
    prompt_texts,
    rename_attribute,
    slot_data,
    slots_of,
    with_prompt,
)
from modelscape.builder.values import slot_lexicon
from modelscape.errors import SpecError
from modelscape.specs.read import read_field
from modelscape.specs.spec import Spec
from modelscape.templates.entry import same
from modelscape.templates.lexicon import Entry, Lexicon

__all__ = ["edit", "instruct", "mark", "remove", "rename", "version", "version_key", "versions"]

_INSTRUCTION = re.compile(r"Reply with a JSON object of the form .*?, and nothing else\.", re.S)


def version_key(
    attribute: str | None, texts: dict[AxisValue, str], version: AxisValue | None, where: str
) -> AxisValue:
    """The key in ``texts`` of prompt version ``version``: the first by default, ``""`` for a
    prompt without versions."""
    if attribute is None:
        if version is not None:
            raise SpecError(f"{where}: the prompt has no versions, so give no version")
        return ""
    if version is None:
        return next(iter(texts))
    for label in texts:
        if same(label, version):
            return label
    raise SpecError(f"{where}: no prompt version {version!r}; versions: {list(texts)}")


def _suggest(text: str, taken: Sequence[str], before: str = "", after: str = "") -> str:
    """A slot name made from the first words of ``text``, unique among ``taken``.

    A selection without words, such as the 12 of "12 days", is named after the word that
    follows it (or, at the end of a sentence, the one before it): a number's unit says what
    it counts far better than a generic ``value`` would.
    """
    words = re.findall(r"[^\W\d_]+", text.lower())
    if not words:
        following = re.match(r"\W*([^\W\d_]+)", after)
        preceding = re.search(r"([^\W\d_]+)\W*$", before)
        found = following or preceding
        words = [found.group(1).lower()] if found else []
    base = "_".join(words[:2])[:24] or "value"
    name, count = base, 2
    while name in taken or not name.isidentifier():
        name, count = f"{base}{count}", count + 1
    return name


def _with_example(lexicon: Lexicon, chosen: str) -> Lexicon:
    """A shipped lexicon with the selected text as its first value, the baseline.

    An entry that reads as the selection moves to the top; otherwise the selection is added
    as a value of its own (its properties empty, to be filled in the values table), so
    choosing a lexicon for an example's name never replaces that name.
    """
    if not chosen:
        return lexicon
    entries = list(lexicon.entries)
    found = next((e for e in entries if e.text == chosen or same(e.label, chosen)), None)
    if found is None:
        label = spelled_value(chosen)
        if among(label, lexicon.labels) or (entries and type(label) is not type(entries[0].label)):
            label = chosen if not among(chosen, lexicon.labels) else f"{chosen} (example)"
        properties = dict.fromkeys(lexicon.properties)
        found = Entry(label=label, text=chosen, properties=properties)
    else:
        entries.remove(found)
    return Lexicon(entries=(found, *entries))


def mark(
    data: Data,
    piece: int,
    start: int,
    end: int,
    slot: str | None = None,
    *,
    version: AxisValue | None = None,
    lexicon: str | None = None,
) -> Data:
    """Make characters ``start`` to ``end`` of piece ``piece`` of one prompt version a slot.

    See ``modelscape.builder.pieces`` for what pieces and offsets are. An existing slot is
    placed there; a new slot takes the selection as its one value (its label a number or a
    boolean when the selection spells one, its text the selection as written), or the values
    of the shipped lexicon ``lexicon``, in which case the selection may be empty: the slot is
    inserted there. A selected text stays the baseline of a lexicon's values (added to them
    when the lexicon lacks it). A new slot without a name is named after the selection (a
    number after the word that follows it) or the lexicon.
    """
    where = "mark"
    attribute, texts = prompt_texts(data, where)
    key = version_key(attribute, texts, version, where)
    literal = selected_piece(split(texts[key], "prompt"), piece, start, end, where)
    chosen = literal[start:end]
    slots = slots_of(data)
    taken = [*slots, *([attribute] if attribute else [])]
    if slot is not None:
        check_name(slot, "slot name", where)
        if slot == attribute:
            raise SpecError(f"{where}: {slot!r} names the prompt versions; choose another name")
    if slot is not None and slot in slots:
        if lexicon is not None:
            raise SpecError(
                f"{where}: slot {slot!r} exists, so it keeps its values; a lexicon is for a new "
                "slot (use another name)"
            )
        name = slot
    elif lexicon is not None:
        if lexicon not in lexicons.available():
            raise SpecError(
                f"{where}: no shipped lexicon {lexicon!r}{nearest(lexicon, lexicons.available())}; "
                f"shipped: {', '.join(lexicons.available())}"
            )
        name = slot or _suggest(lexicon, taken)
        slots[name] = slot_data(_with_example(lexicons.get(lexicon), chosen))
    else:
        if not chosen:
            raise SpecError(
                f"{where}: select some text to make a slot of (characters {start} to {end} are "
                "empty), or give a shipped lexicon to insert one"
            )
        name = slot or _suggest(chosen, taken, literal[:start], literal[end:])
        entry = Entry(label=spelled_value(chosen), text=chosen)
        slots[name] = slot_data(Lexicon(entries=(entry,)))
    texts[key] = place_slot(texts[key], piece, start, end, name, where)
    return ordered(with_prompt(data, attribute, texts) | {"slots": slots})


def remove(data: Data, slot: str) -> Data:
    """Turn ``slot`` back into the text of its first value wherever it is used, and forget it.

    A value with one text per version gives each prompt version its own text; the system
    prompt gets the text of the first version. Every use of the slot and its properties in
    vary, groups and the correct answer goes too.
    """
    where = f"remove {slot}"
    first = slot_lexicon(data, slot, where).entries[0]
    attribute, texts = prompt_texts(data, where)
    first_version = next(iter(texts)) if attribute is not None else None

    def text_of(version: AxisValue | None) -> str:
        if isinstance(first.text, str):
            return first.text
        if version is None or not among(version, list(first.text)):
            return next(iter(first.text.values()))
        return first.text_in(version)

    texts = {
        label: fill_slot(text, slot, text_of(label if attribute else None))
        for label, text in texts.items()
    }
    out = with_prompt(data, attribute, texts)
    if isinstance(out.get("system"), str):
        out["system"] = fill_slot(out["system"], slot, text_of(first_version))
    slots = slots_of(out)
    del slots[slot]
    out["slots"] = slots
    if not slots:
        del out["slots"]
    return forget_attribute(out, slot)


def rename(data: Data, slot: str, name: str) -> Data:
    """Rename ``slot`` to ``name`` in every prompt version, the system prompt, its values, and
    every use of it and its properties in vary, groups and the correct answer."""
    where = f"rename {slot}"
    slot_lexicon(data, slot, where)
    check_name(name, "new name", where)
    attribute, texts = prompt_texts(data, where)
    slots = slots_of(data)
    if name in slots or name == attribute:
        raise SpecError(f"{where}: {name!r} is already taken; choose another name")
    texts = {label: rename_slot(text, slot, name) for label, text in texts.items()}
    out = with_prompt(data, attribute, texts)
    if isinstance(out.get("system"), str):
        out["system"] = rename_slot(out["system"], slot, name)
    out["slots"] = {name if key == slot else key: value for key, value in slots.items()}
    return rename_attribute(out, slot, name)


def _check_labels(labels: Sequence[AxisValue], where: str) -> list[AxisValue]:
    if isinstance(labels, str | bytes) or not isinstance(labels, Sequence):
        raise SpecError(f"{where}: labels are a list, not {labels!r}")
    checked: list[AxisValue] = []
    for label in labels:
        if not isinstance(label, str | int | float) or label == "":
            raise SpecError(f"{where}: a version label is a non-empty text, number or boolean")
        if among(label, checked):
            raise SpecError(f"{where}: label {label!r} appears twice; every label is unique")
        checked.append(label)
    return checked


def versions(data: Data, name: str | None, labels: Sequence[AxisValue] = ()) -> Data:
    """Write the whole prompt in versions, one per label, as values of attribute ``name``.

    Existing versions keep their text; a new one starts as a copy of the first. Values of a
    slot with one text per version get a text for each new version the same way. Without a
    name or labels the first version becomes the one prompt again, slot texts likewise, and
    every use of the versions' attribute goes.
    """
    where = "versions"
    attribute, texts = prompt_texts(data, where)
    first = next(iter(texts))
    slots = slots_of(data)
    if name is None or not labels:
        if attribute is None:
            raise SpecError(f"{where}: the prompt has no versions to undo; give a name and labels")
        out = with_prompt(data, None, {"": texts[first]})
        plain = {s: _revise_texts(v, [first], None, where) for s, v in slots.items()}
        return forget_attribute(ordered(out | ({"slots": plain} if slots else {})), attribute)
    check_name(name, "versions name", where)
    if name in slots:
        raise SpecError(f"{where}: {name!r} names a slot; choose another name for the versions")
    chosen = _check_labels(labels, where)
    kept = {
        label: next((text for old, text in texts.items() if same(old, label)), texts[first])
        for label in chosen
    }
    out = with_prompt(data, name, kept)
    if slots:
        out["slots"] = {s: _revise_texts(v, list(texts), chosen, where) for s, v in slots.items()}
    if attribute is not None and attribute != name:
        out = rename_attribute(out, attribute, name)
    return out


def _revise_texts(value: Any, old: list[AxisValue], new: list[AxisValue] | None, where: str) -> Any:
    """A slot's data with per-version texts fitted to versions ``new`` (None: one text)."""
    try:
        lexicon = lexicon_of(value, where)
    except SpecError:
        return value
    if not lexicon.versioned:
        return value

    def fitted(entry: Entry) -> Entry:
        text = entry.text
        assert isinstance(text, dict)
        base = next((t for k, t in text.items() if among(k, old[:1])), next(iter(text.values())))
        if new is None:
            return Entry(label=entry.label, text=base, properties=entry.properties)
        texts = {v: next((t for k, t in text.items() if same(k, v)), base) for v in new}
        return Entry(label=entry.label, text=texts, properties=entry.properties)

    return slot_data(Lexicon(entries=tuple(fitted(entry) for entry in lexicon)))


def version(data: Data, label: AxisValue, text: str) -> Data:
    """Set the template text of prompt version ``label``."""
    where = f"version {label!r}"
    attribute, texts = prompt_texts(data, where)
    if attribute is None:
        raise SpecError(f"{where}: the prompt has no versions; use edit('prompt', ...)")
    key = version_key(attribute, texts, label, where)
    if not isinstance(text, str):
        raise SpecError(f"{where}: a prompt is a text, not {text!r}")
    split(text, f"prompt version {label!r}")
    texts[key] = text
    return with_prompt(data, attribute, texts)


#: Fields whose whole data an edit takes as a spec writes it, checked by the draft.
_WHOLE = ("slots", "vary", "groups", "answer")


def edit(data: Data, key: str, value: Any) -> Data:
    """Set top-level field ``key`` of the spec to ``value``; None clears it.

    ``prompt`` and ``system`` are template text (slots in braces, literal braces doubled); a
    prompt in versions gets ``value`` as its first version. ``slots``, ``vary``, ``groups`` and
    ``answer`` take their whole data as a spec writes it, checked by the draft. Every other
    field is checked as the ``Spec`` model types and limits it, as reading a YAML spec does.
    """
    where = f"edit {key}"
    if key not in SPEC_KEYS:
        raise SpecError(
            f"{where}: unknown field{nearest(key, SPEC_KEYS)}; fields: {', '.join(SPEC_KEYS)}"
        )
    out = copy.deepcopy(data)
    if value is None:
        out.pop(key, None)
        return out
    if key == "prompt":
        if not isinstance(value, str):
            raise SpecError(f"{where}: must be a text, not {type(value).__name__} {value!r}")
        split(value, "prompt")
        try:
            attribute, texts = prompt_texts(data, where)
        except SpecError:
            attribute, texts = None, {"": ""}
        if attribute is not None:
            texts[next(iter(texts))] = value
            return with_prompt(out, attribute, texts)
    elif key in _WHOLE:
        if not isinstance(value, dict | list | str):
            raise SpecError(f"{where}: give the {key} as a spec writes them, not {value!r}")
    else:
        value, wrong = read_field(Spec, key, value)
        if wrong is not None:
            raise SpecError(f"{where}: {wrong}")
        if key == "system":
            split(value, "system")
    out[key] = copy.deepcopy(value)
    return ordered(out)


def instruct(data: Data) -> Data:
    """End the system prompt with an instruction to reply in the answer's JSON format.

    The instruction lists every choice, as the shipped specs do; an earlier instruction of
    this form is replaced, so calling it again after changing the choices keeps one.
    """
    where = "instruct"
    answer = data.get("answer")
    field = answer.get("field") if isinstance(answer, dict) else None
    choices = answer.get("choices") if isinstance(answer, dict) else None
    if not isinstance(field, str) or not field or not isinstance(choices, list) or not choices:
        raise SpecError(
            f"{where}: the answer is not read from a JSON field; set it first with "
            "answer(field, choices)"
        )
    forms = [
        "{{" + json.dumps({field: choice}, ensure_ascii=False)[1:-1] + "}}" for choice in choices
    ]
    listed = forms[0] if len(forms) == 1 else ", ".join(forms[:-1]) + " or " + forms[-1]
    sentence = f"Reply with a JSON object of the form {listed}, and nothing else."
    system = data.get("system")
    if not isinstance(system, str) or not system.strip():
        text = sentence
    elif _INSTRUCTION.search(system):
        text = _INSTRUCTION.sub(lambda _: sentence, system, count=1)
    else:
        text = system.rstrip() + " " + sentence
    return ordered(copy.deepcopy(data) | {"system": text})
