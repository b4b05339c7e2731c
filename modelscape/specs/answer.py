"""Reading a spec's answer: a JSON field or a pattern, its choices, and the correct answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from modelscape._identity import AxisValue
from modelscape.specs.model import AnswerSpec, Condition, Correct
from modelscape.specs.problems import (
    Problems,
    among,
    at,
    check_attribute,
    check_value,
    item,
    message,
    nearest,
    read_condition,
    scalar,
)
from modelscape.task.coordinate import same_value
from modelscape.templates.template import Template

__all__ = ["read_answer"]


def read_answer(value: Any, template: Template | None, problems: Problems) -> AnswerSpec | None:
    if not isinstance(value, Mapping):
        problems.add(
            "answer",
            "give {field: NAME, choices: [...], correct: ...} or {pattern: REGEX, choices: [...]}",
        )
        return None
    problems.unknown_keys("answer", value, tuple(AnswerSpec.model_fields))
    field, pattern = value.get("field"), value.get("pattern")
    if (field is None) == (pattern is None):
        problems.add(
            "answer",
            "give exactly one of field (a JSON reply's field) or pattern (a regular expression)",
        )
    for key, text in (("field", field), ("pattern", pattern)):
        if text is not None and (not isinstance(text, str) or not text):
            problems.add(f"answer.{key}", "must be a non-empty text")
    if isinstance(pattern, str):
        import re

        try:
            re.compile(pattern)
        except re.error as error:
            problems.add("answer.pattern", f"invalid regular expression: {error}")
    choices = value.get("choices")
    if not isinstance(choices, list) or not choices:
        problems.add(
            "answer.choices", "choices are a non-empty list of the answers a reply may give"
        )
        return None
    before = len(problems.found)
    for index, choice in enumerate(choices):
        if not scalar(choice):
            problems.add(
                item("answer.choices", index),
                f"a choice is a text, number or boolean, not {choice!r}",
            )
    if len(problems.found) > before:
        return None
    correct = read_correct(value.get("correct"), tuple(choices), template, problems)
    if problems.under("answer"):
        return None
    try:
        return AnswerSpec(field=field, pattern=pattern, choices=tuple(choices), correct=correct)
    except ValidationError as error:
        problems.add("answer", message(error))
        return None


def read_correct(
    value: Any, choices: tuple[AxisValue, ...], template: Template | None, problems: Problems
) -> Correct | None:
    path = "answer.correct"

    def check_choice(where: str, answer: Any) -> bool:
        if not among(answer, choices):
            texts = [choice for choice in choices if isinstance(choice, str)]
            hint = nearest(answer, texts) if isinstance(answer, str) else ""
            problems.add(where, f"{answer!r} is not one of the choices{hint} {list(choices)}")
            return False
        return True

    if value is None:
        return None
    if scalar(value):
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
        where = at(path, attribute)
        if not isinstance(table, Mapping) or not table:
            problems.add(where, "map each value of the attribute to its answer")
            return None
        if check_attribute(where, attribute, template, problems) and template is not None:
            known = template.values(attribute)
            for key in table:
                check_value(at(where, key), key, attribute, known, problems)
            missing = [k for k in known if not any(same_value(k, t) for t in table)]
            if missing:
                problems.add(where, f"no answer for values {missing}")
        for key, answer in table.items():
            check_choice(at(where, key), answer)
        return {str(attribute): dict(table)}
    if isinstance(value, list) and value:
        rows: list[dict[str, Condition]] = []
        for index, row in enumerate(value):
            where = item(path, index)
            if not isinstance(row, Mapping) or "answer" not in row:
                problems.add(where, "a table row maps attributes to values and has an answer")
                continue
            clean: dict[str, Condition] = {}
            for attribute, condition in row.items():
                if attribute == "answer":
                    check_choice(at(where, "answer"), condition)
                    clean["answer"] = condition
                    continue
                read = read_condition(
                    at(where, attribute), attribute, condition, template, problems
                )
                if read is not None:
                    clean[str(attribute)] = read
            rows.append(clean)
        return tuple(rows)
    problems.add(
        path, "the correct answer is one value, {attribute: {value: answer}}, or a table of rows"
    )
    return None
