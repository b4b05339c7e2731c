"""Reading a spec from YAML data, collecting every problem with its path in the document."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from modelscape._identity import AxisValue
from modelscape.errors import SpecError, TaskSpaceError, TemplateError
from modelscape.specs.model import AnswerSpec, Condition, Correct, Range, Varied
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


def _same(left: object, right: object) -> bool:
    return type(left) is type(right) and left == right


def _among(value: object, options: Sequence[object]) -> bool:
    return any(_same(value, option) for option in options)


def _nearest(word: object, options: Sequence[str]) -> str:
    hint = difflib.get_close_matches(str(word), list(options), n=1)
    return f" (did you mean {hint[0]!r}?)" if hint else ""


def _scalar(value: object) -> bool:
    return isinstance(value, (str, int, float, bool))


class Problems:
    """Collects problems, each prefixed with its path in the spec document."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.found.append(f"{path}: {message}" if path else message)

    def unknown_keys(self, path: str, data: Mapping[Any, Any], allowed: Sequence[str]) -> None:
        for key in data:
            if key not in allowed:
                where = f"{path}.{key}" if path else str(key)
                self.add(
                    where, f"unknown key{_nearest(key, allowed)}; allowed: {', '.join(allowed)}"
                )


def _read_slot(path: str, value: Any, problems: Problems) -> Lexicon | None:
    from modelscape import lexicons

    if isinstance(value, str):
        if value in lexicons.available():
            return lexicons.get(value)
        problems.add(
            path,
            f"unknown lexicon {value!r}{_nearest(value, lexicons.available())}; shipped lexicons: "
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
                    f"unknown key{_nearest(key, missing or bounds)}; "
                    "a range has start, stop and step",
                )
        for key in missing:
            problems.add(path, f"a range needs {key}")
        return None
    if isinstance(value, Mapping) and set(value) == set(bounds):
        try:
            numbers = Range(**value).numbers()
        except (SpecError, ValidationError) as error:
            problems.add(path, _message(error))
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


def _message(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(str(e["msg"]) for e in error.errors())
    return str(error)


def _read_prompt(value: Any, problems: Problems) -> str | dict[str, dict[AxisValue, str]] | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and len(value) == 1:
        ((attribute, versions),) = value.items()
        if isinstance(attribute, str) and isinstance(versions, Mapping) and versions:
            texts: dict[AxisValue, str] = {}
            for label, text in versions.items():
                if not _scalar(label) or not isinstance(text, str):
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
            f"unknown scale {scale!r}{_nearest(scale, SCALES)}; use nominal, ordinal or numeric",
        )
        return None
    values = value.get("values")
    baseline = value.get("baseline")
    known: tuple[AxisValue, ...] | None = None
    if template is not None and attribute in template.attributes:
        known = template.values(attribute)
    if values is not None:
        if not isinstance(values, list) or not values or not all(_scalar(v) for v in values):
            problems.add(f"{path}.values", "values are a non-empty list of labels")
            return None
        if known is not None:
            for item in values:
                if not _among(item, known):
                    problems.add(
                        f"{path}.values",
                        f"{item!r} is not a value of {attribute!r}; values: {list(known)}",
                    )
        values = tuple(values)
    if baseline is not None:
        pool = values if values is not None else known
        if not _scalar(baseline) or (pool is not None and not _among(baseline, pool)):
            problems.add(
                f"{path}.baseline",
                f"baseline {baseline!r} is not one of the values {list(pool or ())}",
            )
    return Varied(scale=scale, values=values, baseline=baseline)


def _check_attribute(
    path: str, attribute: object, template: Template | None, problems: Problems
) -> bool:
    if template is None:
        return False
    if not isinstance(attribute, str) or attribute not in template.attributes:
        problems.add(
            path,
            f"unknown attribute {attribute!r}{_nearest(attribute, list(template.attributes))}; "
            f"attributes: {', '.join(template.attributes)}",
        )
        return False
    return True


def _read_condition(
    path: str, attribute: str, value: Any, template: Template | None, problems: Problems
) -> Condition | None:
    options = value if isinstance(value, list) else [value]
    if not options or not all(_scalar(v) for v in options):
        problems.add(path, "a condition is one value or a list of values")
        return None
    if _check_attribute(path, attribute, template, problems) and template is not None:
        known = template.values(attribute)
        for option in options:
            if not _among(option, known):
                problems.add(
                    path, f"{option!r} is not a value of {attribute!r}; values: {list(known)}"
                )
    return tuple(options) if isinstance(value, list) else value


def _read_answer(value: Any, template: Template | None, problems: Problems) -> AnswerSpec | None:
    if not isinstance(value, Mapping):
        problems.add(
            "answer",
            "give {field: NAME, choices: [...], correct: ...} or {pattern: REGEX, choices: [...]}",
        )
        return None
    problems.unknown_keys("answer", value, ("field", "pattern", "choices", "correct"))
    field, pattern = value.get("field"), value.get("pattern")
    if (field is None) == (pattern is None):
        problems.add(
            "answer",
            "give exactly one of field (a JSON reply's field) or pattern (a regular expression)",
        )
    for key, item in (("field", field), ("pattern", pattern)):
        if item is not None and (not isinstance(item, str) or not item):
            problems.add(f"answer.{key}", "must be a non-empty text")
    if isinstance(pattern, str):
        import re

        try:
            re.compile(pattern)
        except re.error as error:
            problems.add("answer.pattern", f"invalid regular expression: {error}")
    choices = value.get("choices")
    if not isinstance(choices, list) or not choices or not all(_scalar(c) for c in choices):
        problems.add(
            "answer.choices", "choices are a non-empty list of the answers a reply may give"
        )
        return None
    correct = _read_correct(value.get("correct"), tuple(choices), template, problems)
    try:
        return AnswerSpec(field=field, pattern=pattern, choices=tuple(choices), correct=correct)
    except ValidationError as error:
        problems.add("answer", _message(error))
        return None


def _read_correct(
    value: Any, choices: tuple[AxisValue, ...], template: Template | None, problems: Problems
) -> Correct | None:
    path = "answer.correct"

    def check_choice(where: str, answer: Any) -> bool:
        if not _among(answer, choices):
            problems.add(where, f"{answer!r} is not one of the choices {list(choices)}")
            return False
        return True

    if value is None:
        return None
    if _scalar(value):
        check_choice(path, value)
        return value  # type: ignore[no-any-return]
    if isinstance(value, Mapping):
        if len(value) != 1:
            problems.add(
                path,
                "a mapping gives the answer per value of ONE attribute: "
                "{attribute: {value: answer}}",
            )
            return None
        ((attribute, table),) = value.items()
        where = f"{path}.{attribute}"
        if not isinstance(table, Mapping) or not table:
            problems.add(where, "map each value of the attribute to its answer")
            return None
        if _check_attribute(where, attribute, template, problems) and template is not None:
            known = template.values(attribute)
            for key in table:
                if not _among(key, known):
                    problems.add(
                        f"{where}.{key}",
                        f"{key!r} is not a value of {attribute!r}; values: {list(known)}",
                    )
            missing = [k for k in known if not any(_same(k, t) for t in table)]
            if missing:
                problems.add(where, f"no answer for values {missing}")
        for key, answer in table.items():
            check_choice(f"{where}.{key}", answer)
        return {str(attribute): dict(table)}
    if isinstance(value, list) and value:
        rows: list[dict[str, Condition]] = []
        for index, row in enumerate(value):
            where = f"{path}[{index}]"
            if not isinstance(row, Mapping) or "answer" not in row:
                problems.add(where, "a table row maps attributes to values and has an answer")
                continue
            clean: dict[str, Condition] = {}
            for attribute, condition in row.items():
                if attribute == "answer":
                    check_choice(f"{where}.answer", condition)
                    clean["answer"] = condition
                    continue
                read = _read_condition(
                    f"{where}.{attribute}", attribute, condition, template, problems
                )
                if read is not None:
                    clean[str(attribute)] = read
            rows.append(clean)
        return tuple(rows)
    problems.add(
        path, "the correct answer is one value, {attribute: {value: answer}}, or a table of rows"
    )
    return None


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
        _check_attribute(f"vary.{attribute}", attribute, template, problems)
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
            read = _read_condition(f"{where}.{attribute}", attribute, condition, template, problems)
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
        fields["answer"] = _read_answer(data["answer"], template, problems)
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
