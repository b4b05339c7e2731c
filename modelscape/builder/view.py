"""What the widget's front end shows, computed from a draft's data as plain JSON.

The front end gets the prompt already cut into pieces (see ``modelscape.builder.pieces``), each
slot's values as a table, every attribute with its values and scale, the answer with a correct
mapping written as ``[value, answer]`` pairs (JSON keys are text, values need not be), the
groups, the shipped lexicons and the YAML a save would write. It never parses template text
itself, so what it shows and what ``mark`` counts are the same characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from modelscape import lexicons
from modelscape._identity import AxisValue
from modelscape.builder.advice import notes, plain
from modelscape.builder.draft import Assessment, jsonable
from modelscape.builder.pieces import split
from modelscape.builder.preview import Preview
from modelscape.builder.state import Data, attribute_values, lexicon_of, prompt_texts, slots_of
from modelscape.builder.values import baseline_of
from modelscape.errors import SpecError
from modelscape.task.coordinate import same_value
from modelscape.templates.lexicon import Lexicon

__all__ = ["view"]

_FIELDS = ("name", "version", "description", "system", "cases", "repetitions", "seed")


def _prompts(data: Data) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        attribute, texts = prompt_texts(data, "prompt")
    except SpecError as error:
        return {"name": None, "labels": []}, [{"label": None, "pieces": [], "error": str(error)}]
    shown = []
    for label, text in texts.items():
        try:
            pieces = [{"text": p.text, "slot": p.slot} for p in split(text, "prompt")]
            problem = None
        except SpecError as error:
            pieces, problem = [{"text": text, "slot": None}], str(error)
        shown.append({"label": label if attribute else None, "pieces": pieces, "error": problem})
    labels = list(texts) if attribute else []
    return {"name": attribute, "labels": labels}, shown


def _row(lexicon: Lexicon, index: int, labels: list[AxisValue]) -> dict[str, Any]:
    entry = lexicon.entries[index]
    text: Any = entry.text
    if isinstance(text, dict):
        text = [entry.text_in(v) if _has(text, v) else "" for v in labels]
    return {"label": entry.label, "text": text, "properties": dict(entry.properties)}


def _has(texts: Mapping[AxisValue, str], version: AxisValue) -> bool:
    return any(same_value(k, version) for k in texts)


def _slots(data: Data, labels: list[AxisValue]) -> list[dict[str, Any]]:
    shown = []
    for name, value in slots_of(data).items():
        slot: dict[str, Any] = {"name": name, "lexicon": None, "range": None, "error": None}
        if isinstance(value, str):
            slot["lexicon"] = value
        elif isinstance(value, Mapping) and set(value) == {"start", "stop", "step"}:
            slot["range"] = dict(value)
        try:
            lexicon = lexicon_of(value, f"slots.{name}")
        except SpecError as error:
            shown.append(slot | {"error": str(error), "rows": [], "properties": []})
            continue
        slot["baseline"] = baseline_of(data, name, lexicon)
        slot["versioned"] = lexicon.versioned
        slot["properties"] = list(lexicon.properties)
        slot["rows"] = [_row(lexicon, index, labels) for index in range(len(lexicon))]
        shown.append(slot)
    return shown


def _scale(data: Data, attribute: str) -> str | None:
    vary = data.get("vary")
    if not isinstance(vary, Mapping) or attribute not in vary:
        return None
    value = vary[attribute]
    if isinstance(value, Mapping):
        scale = value.get("scale")
        return scale if isinstance(scale, str) else None
    return value if isinstance(value, str) else None


def _answer(data: Data) -> dict[str, Any]:
    answer = data.get("answer")
    if not isinstance(answer, Mapping):
        return {"field": None, "pattern": None, "choices": [], "correct": {"kind": "none"}}
    correct = answer.get("correct")
    shown: dict[str, Any]
    if correct is None:
        shown = {"kind": "none"}
    elif isinstance(correct, Mapping) and len(correct) == 1:
        ((attribute, table),) = correct.items()
        pairs = [[k, v] for k, v in table.items()] if isinstance(table, Mapping) else []
        shown = {"kind": "mapping", "attribute": attribute, "pairs": pairs}
    elif isinstance(correct, list):
        shown = {"kind": "rows", "rows": correct}
    else:
        shown = {"kind": "one", "value": correct}
    choices = answer.get("choices")
    return {
        "field": answer.get("field"),
        "pattern": answer.get("pattern"),
        "choices": choices if isinstance(choices, list) else [],
        "correct": shown,
    }


def _groups(data: Data) -> list[dict[str, Any]]:
    groups = data.get("groups")
    if not isinstance(groups, Mapping):
        return []
    return [
        {
            "name": name,
            "when": [[k, v] for k, v in when.items()] if isinstance(when, Mapping) else [],
        }
        for name, when in groups.items()
    ]


def _system(data: Data) -> dict[str, Any]:
    """The system prompt as pieces, so the front end shows a literal brace as one brace."""
    system = data.get("system")
    if not isinstance(system, str):
        return {"pieces": [], "error": None}
    try:
        pieces = [{"text": p.text, "slot": p.slot} for p in split(system, "system")]
    except SpecError as error:
        return {"pieces": [{"text": system, "slot": None}], "error": str(error)}
    return {"pieces": pieces, "error": None}


def view(data: Data, assessment: Assessment, shown: Preview) -> dict[str, Any]:
    """Everything the front end draws for ``data``, as JSON-ready values: ``assessment`` is
    the draft's, ``shown`` its preview."""
    yaml, complete = assessment.yaml, assessment.draft.complete
    versions, prompts = _prompts(data)
    attributes = [
        {"name": name, "values": list(values), "scale": _scale(data, name)}
        for name, values in attribute_values(data).items()
    ]
    shown = {
        "fields": {key: data.get(key) for key in _FIELDS},
        "versions": versions,
        "prompts": prompts,
        "slots": _slots(data, versions["labels"]),
        "attributes": attributes,
        "answer": _answer(data),
        "groups": _groups(data),
        "lexicons": list(lexicons.available()),
        "yaml": yaml,
        "complete": complete,
        "system": _system(data),
        "notes": notes(data, assessment.draft.problems),
        "cases": shown["cases"],
        "stopped": None if shown["stopped"] is None else plain(shown["stopped"])[1],
        "case_attributes": shown["attributes"],
    }
    result: dict[str, Any] = jsonable(shown)
    return result
