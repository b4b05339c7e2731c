"""Reading a spec from YAML data, collecting every problem with its path in the document."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from modelscape._identity import AxisValue
from modelscape.errors import SpecError, TaskSpaceError, TemplateError
from modelscape.specs.answer import read_answer
from modelscape.specs.model import Condition, Range, Varied
from modelscape.specs.problems import (
    Problems,
    among,
    check_attribute,
    message,
    nearest,
    read_condition,
    scalar,
)
from modelscape.templates.lexicon import Lexicon
from modelscape.templates.template import Template

__all__ = ["Problems", "read_spec"]

TOP_KEYS = (
    "name",
    "version",
    "description",
    "system",
    "prompt",
    "slots",
    "vary",
    "groups",
    "answer",
    "cases",
    "repetitions",
    "seed",
)
SCALES = ("nominal", "ordinal", "numeric")


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
    bounds = ("start", "stop", "step")
    if (
        isinstance(value, Mapping)
        and set(value) != set(bounds)
        and len(set(value) & set(bounds)) >= 2
        and not all(isinstance(text, str | Mapping) for text in value.values())
    ):
        # numbers under start/stop are a range with a typo, not a mapping of labels to texts
        missing = [key for key in bounds if key not in value]
        for key in value:
            if key not in bounds:
                problems.add(
                    f"{path}.{key}",
                    f"unknown key{nearest(key, missing or bounds)}; "
                    "a range has start, stop and step",
                )
        for key in missing:
            problems.add(path, f"a range needs {key}")
        return None
    if isinstance(value, Mapping) and set(value) == set(bounds):
        try:
            numbers = Range(**value).numbers()
        except (SpecError, ValidationError) as error:
            problems.add(path, message(error))
            return None
        return Lexicon.of(list(numbers))
    if not isinstance(value, (Mapping, list)) or not value:
        problems.add(
            path,
            "a slot is a shipped lexicon's name, a non-empty list of values, a mapping of labels "
            "to texts, a list of rows, or a range {start, stop, step}",
        )
        return None
    try:
        return Lexicon.of(value)
    except TemplateError as error:
        problems.add(path, str(error))
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
                        f"prompt.{attribute}.{label}", "each version is a label and a text"
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
    path: str, value: Any, template: Template | None, attribute: str, problems: Problems
) -> Varied | None:
    if isinstance(value, str):
        value = {"scale": value}
    if not isinstance(value, Mapping):
        problems.add(path, "give a scale (nominal, ordinal, numeric) or {scale, values, baseline}")
        return None
    problems.unknown_keys(path, value, ("scale", "values", "baseline"))
    scale = value.get("scale")
    if scale not in SCALES:
        problems.add(
            f"{path}.scale" if "scale" in value else path,
            f"unknown scale {scale!r}{nearest(scale, SCALES)}; use nominal, ordinal or numeric",
        )
        return None
    values = value.get("values")
    baseline = value.get("baseline")
    known: tuple[AxisValue, ...] | None = None
    if template is not None and attribute in template.attributes:
        known = template.values(attribute)
    if values is not None:
        if not isinstance(values, list) or not values or not all(scalar(v) for v in values):
            problems.add(f"{path}.values", "values are a non-empty list of labels")
            return None
        if known is not None:
            for item in values:
                if not among(item, known):
                    problems.add(
                        f"{path}.values",
                        f"{item!r} is not a value of {attribute!r}; values: {list(known)}",
                    )
        values = tuple(values)
    if baseline is not None:
        pool = values if values is not None else known
        if not scalar(baseline) or (pool is not None and not among(baseline, pool)):
            problems.add(
                f"{path}.baseline",
                f"baseline {baseline!r} is not one of the values {list(pool or ())}",
            )
    return Varied(scale=scale, values=values, baseline=baseline)


def _integer(data: Mapping[str, Any], key: str, minimum: int, problems: Problems) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        problems.add(key, f"must be a whole number of at least {minimum}, not {value!r}")
        return None
    return value


def read_spec(data: object, *, build: Callable[[dict[str, Any]], Template]) -> dict[str, Any]:
    """The fields of a spec read from ``data``; raises SpecError naming every problem found."""
    problems = Problems()
    if data is None:
        raise SpecError("the spec is empty; write at least its name, prompt and answer")
    if not isinstance(data, Mapping):
        raise SpecError(
            f"a spec is a mapping of keys such as name, prompt, slots; got {type(data).__name__}"
        )
    problems.unknown_keys("", data, TOP_KEYS)
    fields: dict[str, Any] = {}
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.add("name", "every spec needs a name (a short text)")
    fields["name"] = name
    version = data.get("version", "1")
    if isinstance(version, bool) or not isinstance(version, (str, int, float)):
        problems.add("version", f"a version is a short text, not {version!r}")
    fields["version"] = str(version)
    for key in ("description", "system"):
        if key in data and data[key] is not None and not isinstance(data[key], str):
            problems.add(key, "must be a text")
    fields["description"] = data.get("description") or ""
    fields["system"] = data.get("system")
    if "prompt" not in data:
        problems.add("prompt", "every spec needs a prompt")
        prompt = None
    else:
        prompt = _read_prompt(data["prompt"], problems)
    fields["prompt"] = prompt
    slots: dict[str, Lexicon] = {}
    raw_slots = data.get("slots") or {}
    if not isinstance(raw_slots, Mapping):
        problems.add("slots", "slots map each {placeholder} to its values")
        raw_slots = {}
    for slot, value in raw_slots.items():
        lexicon = _read_slot(f"slots.{slot}", value, problems)
        if lexicon is not None:
            slots[str(slot)] = lexicon
    fields["slots"] = slots
    template: Template | None = None
    if prompt is not None and len(slots) == len(raw_slots) and fields["name"]:
        try:
            template = build(fields)
        except TemplateError as error:
            problems.add("prompt", str(error))
    vary: dict[str, Varied] = {}
    raw_vary = data.get("vary") or {}
    if not isinstance(raw_vary, Mapping):
        problems.add("vary", "vary maps each attribute to its scale")
        raw_vary = {}
    for attribute, value in raw_vary.items():
        before = len(problems.found)
        check_attribute(f"vary.{attribute}", attribute, template, problems)
        varied = _read_varied(f"vary.{attribute}", value, template, str(attribute), problems)
        if varied is not None:
            vary[str(attribute)] = varied
            if template is not None and len(problems.found) == before:
                # the axis itself checks what the parts above cannot: a numeric scale needs
                # increasing numbers, so `days: numeric` over text labels is caught here
                try:
                    template.axis(
                        str(attribute), varied.scale, varied.values, baseline=varied.baseline
                    )
                except (TemplateError, TaskSpaceError) as error:
                    problems.add(f"vary.{attribute}", str(error))
    fields["vary"] = vary
    groups: dict[str, dict[str, Condition]] = {}
    raw_groups = data.get("groups") or {}
    if not isinstance(raw_groups, Mapping):
        problems.add("groups", "groups map a name to attribute conditions")
        raw_groups = {}
    for group, conditions in raw_groups.items():
        where = f"groups.{group}"
        if group == "all":
            problems.add(where, "'all' already names every case; choose another name")
        if not isinstance(conditions, Mapping) or not conditions:
            problems.add(where, "a group maps attributes to the values its cases have")
            continue
        clean: dict[str, Condition] = {}
        for attribute, condition in conditions.items():
            read = read_condition(f"{where}.{attribute}", attribute, condition, template, problems)
            if read is not None:
                clean[str(attribute)] = read
        groups[str(group)] = clean
    fields["groups"] = groups
    if "answer" not in data:
        problems.add(
            "answer",
            "every spec needs an answer: {field: NAME, choices: [...]} "
            "or {pattern: ..., choices: [...]}",
        )
        fields["answer"] = None
    else:
        fields["answer"] = read_answer(data["answer"], template, problems)
    fields["cases"] = _integer(data, "cases", 1, problems)
    fields["repetitions"] = _integer(data, "repetitions", 1, problems) or 5
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        problems.add("seed", f"a seed is a whole number, not {seed!r}")
        seed = 0
    fields["seed"] = seed
    if problems.found:
        raise SpecError(problems.found)
    return fields
