"""Reading a spec from YAML data, collecting every problem with its path in the document.

The schema is the ``Spec`` model and its parts (``Varied``, ``AnswerSpec``, ``Range``): the
keys a document may hold, the scales, the types, limits and defaults of the plain fields are
read from their fields, never restated here. What this module adds is what a model cannot
say in one place: the short forms a person writes (a slot as a lexicon's name, a scale alone
for ``vary``), and the checks that need the template (does an attribute exist, is a value one
of its values). Nothing is built from a document that has problems: the template is made
from a prompt and slots that read cleanly, only to check the rest against, and the spec only
once nothing is wrong at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Annotated, Any, get_args

from pydantic import BaseModel, TypeAdapter, ValidationError

from modelscape._identity import AxisValue
from modelscape.errors import SpecError, TaskSpaceError, TemplateError
from modelscape.specs.answer import read_answer
from modelscape.specs.model import Condition, Range, Varied, measure_name, text_measure
from modelscape.specs.problems import (
    Problems,
    among,
    at,
    check_attribute,
    check_text,
    check_value,
    item,
    message,
    nearest,
    read_condition,
    scalar,
)
from modelscape.task.space import Scale
from modelscape.templates.lexicon import Lexicon
from modelscape.templates.template import Template

__all__ = ["SCALES", "read_field", "read_spec"]

SCALES: tuple[str, ...] = get_args(Scale)
_SCALES_LISTED = f"{', '.join(SCALES[:-1])} or {SCALES[-1]}"
_BOUNDS = tuple(Range.model_fields)
_VARIED = tuple(Varied.model_fields)
#: What stands in for a template's part that has a problem, to check the rest against.
_STAND_INS: dict[str, Any] = {"name": "spec", "version": "1", "system": None}
#: What is checked against the template's attributes and values.
_CHECKED = ("vary", "groups", "answer")
#: What a required field's absence asks for, beyond its description.
_MISSING = {
    "name": "every spec needs a name (a short text)",
    "prompt": "every spec needs a prompt",
    "answer": "every spec needs an answer: {field: NAME, choices: [...]} "
    "or {pattern: ..., choices: [...]}",
}


@cache
def _adapter(model: type[BaseModel], key: str) -> TypeAdapter[Any]:
    field = model.model_fields[key]
    annotation: Any = field.annotation
    if field.metadata:
        annotation = Annotated[(annotation, *field.metadata)]
    return TypeAdapter(annotation)


def read_field(model: type[BaseModel], key: str, value: Any) -> tuple[Any, str | None]:
    """``value`` of plain field ``key`` checked exactly as ``model`` types and limits it.

    Returns the value as the model holds it (a version written as a number becomes text),
    and None; or None and what is wrong, without the path. The builder's ``edit`` checks a
    field with it too, so a document and an edit are held to the same rule.
    """
    try:
        return _adapter(model, key).validate_python(value, strict=True), None
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "value_error":  # a validator of the field says what it must be
            return None, f"{first['ctx']['error']}, not {value!r}"
        described = model.model_fields[key].description or "valid"
        return None, f"must be {described}, not {value!r}"


def _read_slot(path: str, value: Any, problems: Problems) -> Lexicon | None:
    from modelscape import lexicons

    if isinstance(value, str):
        if value in lexicons.available():
            return lexicons.get(value)
        problems.add(
            path,
            f"unknown lexicon {value!r}{nearest(value, lexicons.available())}; shipped lexicons: "
            f"{', '.join(lexicons.available())} (a slot with one value is a list: [{value}])",
        )
        return None
    if (
        isinstance(value, Mapping)
        and set(value) != set(_BOUNDS)
        and len(set(value) & set(_BOUNDS)) >= 2
        and not all(isinstance(text, str | Mapping) for text in value.values())
    ):
        # numbers under start/stop are a range with a typo, not a mapping of labels to texts
        missing = [key for key in _BOUNDS if key not in value]
        for key in value:
            if key not in _BOUNDS:
                problems.add(
                    at(path, key),
                    f"unknown key{nearest(key, missing or _BOUNDS)}; a range has "
                    f"{', '.join(_BOUNDS[:-1])} and {_BOUNDS[-1]}",
                )
        for key in missing:
            problems.add(path, f"a range needs {key}")
        return None
    if isinstance(value, Mapping) and set(value) == set(_BOUNDS):
        try:
            numbers = Range.model_validate(value, strict=True).numbers()
        except ValidationError as error:
            for key in dict.fromkeys(str(each["loc"][0]) for each in error.errors()):
                problems.add(at(path, key), f"a range's {key} is a number, not {value[key]!r}")
            return None
        except SpecError as error:
            problems.add(path, message(error))
            return None
        return Lexicon.of(list(numbers))
    if not isinstance(value, Mapping | list) or not value:
        problems.add(
            path,
            "a slot is a shipped lexicon's name, a non-empty list of values, a mapping of labels "
            f"to texts, a list of rows, or a range {{{', '.join(_BOUNDS)}}}",
        )
        return None
    try:
        return Lexicon.of(value)
    except (TemplateError, ValidationError) as error:
        problems.add(path, message(error))
        return None


def _read_prompt(value: Any, problems: Problems) -> str | dict[str, dict[AxisValue, str]] | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and len(value) == 1:
        ((attribute, versions),) = value.items()
        if isinstance(attribute, str) and isinstance(versions, Mapping) and versions:
            texts: dict[AxisValue, str] = {}
            for label, text in versions.items():
                if not scalar(label) or not isinstance(text, str):
                    problems.add(
                        at(at("prompt", attribute), label), "each version is a label and a text"
                    )
                    continue
                texts[label] = text
            return {attribute: texts}
    problems.add(
        "prompt",
        "the prompt is one text, or versions of it under one attribute name, such as "
        "{tone: {neutral: ..., polite: ...}}",
    )
    return None


def _read_varied(
    path: str, value: Any, template: Template | None, attribute: object, problems: Problems
) -> Varied | None:
    if isinstance(value, str):
        value = {"scale": value}
    if not isinstance(value, Mapping):
        problems.add(path, f"give a scale ({', '.join(SCALES)}) or {{{', '.join(_VARIED)}}}")
        return None
    before = len(problems.found)
    problems.unknown_keys(path, value, _VARIED)
    scale = value.get("scale")
    if not isinstance(scale, str) or scale not in SCALES:
        problems.add(
            at(path, "scale") if "scale" in value else path,
            f"unknown scale {scale!r}{nearest(scale, SCALES)}; use {_SCALES_LISTED}",
        )
    values = value.get("values")
    baseline = value.get("baseline")
    known: tuple[AxisValue, ...] | None = None
    if template is not None and isinstance(attribute, str) and attribute in template.attributes:
        known = template.values(attribute)
    if values is not None:
        if not isinstance(values, list) or not values:
            problems.add(at(path, "values"), "values are a non-empty list of labels")
            values = None
        else:
            for index, label in enumerate(values):
                where = item(at(path, "values"), index)
                if not scalar(label):
                    problems.add(where, f"a value is a text, number or boolean, not {label!r}")
                elif known is not None:
                    check_value(where, label, str(attribute), known, problems)
            values = tuple(values)
    if baseline is not None:
        pool = values if values is not None else known
        if not scalar(baseline) or (pool is not None and not among(baseline, pool)):
            problems.add(
                at(path, "baseline"),
                f"baseline {baseline!r} is not one of the values {list(pool or ())}",
            )
    if len(problems.found) > before:
        return None
    return Varied(scale=scale, values=values, baseline=baseline)


def _read_vary(raw: Any, template: Template | None, problems: Problems) -> dict[str, Varied]:
    vary: dict[str, Varied] = {}
    for attribute, value in raw.items():
        where = at("vary", attribute)
        before = len(problems.found)
        check_attribute(where, attribute, template, problems)
        varied = _read_varied(where, value, template, attribute, problems)
        if varied is None or len(problems.found) > before:
            continue
        vary[str(attribute)] = varied
        if template is not None:
            # the axis itself checks what the parts above cannot: a numeric scale needs
            # increasing numbers, so `days: numeric` over text labels is caught here
            try:
                template.axis(str(attribute), varied.scale, varied.values, baseline=varied.baseline)
            except (TemplateError, TaskSpaceError) as error:
                problems.add(where, str(error))
    return vary


def _read_groups(
    raw: Any, template: Template | None, problems: Problems
) -> dict[str, dict[str, Condition]]:
    groups: dict[str, dict[str, Condition]] = {}
    for group, conditions in raw.items():
        where = at("groups", group)
        if group == "all":
            problems.add(where, "'all' already names every case; choose another name")
        if not isinstance(group, str):
            problems.add(where, f"a group's name is a text, not {group!r}")
        if not isinstance(conditions, Mapping) or not conditions:
            problems.add(where, "a group maps attributes to the values its cases have")
            continue
        clean: dict[str, Condition] = {}
        for attribute, condition in conditions.items():
            read = read_condition(at(where, attribute), attribute, condition, template, problems)
            if read is not None:
                clean[str(attribute)] = read
        groups[str(group)] = clean
    return groups


def _mapping(value: Any, key: str, problems: Problems, model: type[BaseModel]) -> Any:
    """``value`` of field ``key`` if it is a mapping; otherwise a problem, and no entries."""
    if not isinstance(value, Mapping):
        problems.add(key, f"must be {model.model_fields[key].description}, not {value!r}")
        return {}
    return value


def read_spec(
    data: object,
    *,
    model: type[BaseModel],
    build: Callable[[dict[str, Any]], Template],
) -> dict[str, Any]:
    """The fields of a spec read from ``data``, for ``model`` (``Spec``) to validate.

    A key left out, or given as null, is left out, so that the model's default applies.
    Raises SpecError naming every problem found, each with its path.
    """
    problems = Problems()
    if data is None:
        raise SpecError("the spec is empty; write at least its name, prompt and answer")
    if not isinstance(data, Mapping):
        raise SpecError(
            f"a spec is a mapping of keys such as name, prompt, slots; got {type(data).__name__}"
        )
    # First and alone: a text that is not a text breaks whatever reads it next.
    check_text("", data, problems)
    if problems.found:
        raise SpecError(problems.found)
    keys = tuple(model.model_fields)
    problems.unknown_keys("", data, keys)
    given = {key: data[key] for key in keys if data.get(key) is not None}
    fields: dict[str, Any] = {}
    template: Template | None = None
    made = False  # whether the template was made, or could not be
    for key in keys:
        if key in _CHECKED and not made:  # the model lists what makes the template first
            made = True
            if "prompt" in fields:
                template = _template(fields, build, problems)
        if key not in given:
            if model.model_fields[key].is_required():
                problems.add(key, _MISSING.get(key, "every spec needs it"))
            continue
        value = given[key]
        if key == "prompt":
            fields[key] = _read_prompt(value, problems)
        elif key == "slots":
            fields[key] = _read_slots(_mapping(value, key, problems, model), problems)
        elif key == "vary":
            fields[key] = _read_vary(_mapping(value, key, problems, model), template, problems)
        elif key == "groups":
            fields[key] = _read_groups(_mapping(value, key, problems, model), template, problems)
        elif key == "answer":
            fields[key] = read_answer(value, template, problems)
        elif key == "measures":
            fields[key] = _read_measures(value, model, problems)
        else:
            fields[key], wrong = read_field(model, key, value)
            if wrong is not None:
                problems.add(key, wrong)
    if problems.found:
        raise SpecError(problems.found)
    return fields


def _read_measures(value: Any, model: type[BaseModel], problems: Problems) -> tuple[str, ...]:
    """The text measures a spec names, each once (their measures' names must differ)."""
    if not isinstance(value, list):
        problems.add("measures", f"must be {model.model_fields['measures'].description}")
        return ()
    names: list[str] = []
    for index, name in enumerate(value):
        where = item("measures", index)
        if not isinstance(name, str):
            problems.add(where, f"a measure is named by a text, not {name!r}")
            continue
        try:
            text_measure(name)
        except ValueError as error:
            problems.add(where, str(error))
            continue
        if any(measure_name(name) == measure_name(other) for other in names):
            problems.add(where, f"{measure_name(name)} is listed twice; list each measure once")
            continue
        names.append(name)
    return tuple(names)


def _read_slots(raw: Mapping[Any, Any], problems: Problems) -> dict[str, Lexicon]:
    slots: dict[str, Lexicon] = {}
    for slot, value in raw.items():
        lexicon = _read_slot(at("slots", slot), value, problems)
        if not isinstance(slot, str) or not slot.isidentifier():
            problems.add(
                at("slots", slot),
                f"a slot's name is a word of letters, digits and underscores, not {slot!r}",
            )
        elif lexicon is not None:
            slots[slot] = lexicon
    return slots


def _template(
    fields: dict[str, Any], build: Callable[[dict[str, Any]], Template], problems: Problems
) -> Template | None:
    """The template of the fields read so far, to check vary, groups and answer against.

    None when the prompt or a slot has a problem. A wrong name, version or system prompt
    does not change which attributes there are, so the check goes on with a stand-in for
    each, and a template problem is then not reported (the stand-in could cause it: a slot
    used only in the wrong system prompt). The template is only ever used for checking.
    """
    if problems.under("prompt", "slots"):
        return None
    parts = {"slots": {}} | fields
    stood_in = False
    for key, stand_in in _STAND_INS.items():
        if problems.under(key):
            parts[key] = stand_in
            stood_in = True
    try:
        return build(parts)
    except TemplateError as error:
        if not stood_in:
            problems.add("prompt", str(error))
        return None
