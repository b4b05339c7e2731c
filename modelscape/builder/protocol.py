"""Edits of the protocol: what varies and on which scale, how the answer is read and which is
correct, and the named groups of cases.

Like the prompt edits, each is a pure function of a spec's data that checks its arguments
against the draft's attributes and their values before it changes anything.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any, get_args

from modelscape._identity import AxisValue
from modelscape.builder.state import (
    Data,
    among,
    attribute_values,
    lexicon_of,
    nearest,
    ordered,
    slots_of,
)
from modelscape.builder.values import baseline_of, with_baseline
from modelscape.errors import SpecError
from modelscape.task.space import Scale

__all__ = ["answer", "group", "vary"]

SCALES: tuple[str, ...] = get_args(Scale)


def _attribute(data: Data, attribute: object, where: str) -> tuple[AxisValue, ...]:
    """The values of ``attribute``; raises SpecError naming the attributes there are."""
    known = attribute_values(data)
    if not isinstance(attribute, str) or attribute not in known:
        names = list(known)
        raise SpecError(
            f"{where}: unknown attribute {attribute!r}{nearest(attribute, names)}; "
            f"attributes: {', '.join(names) or 'none yet (mark a slot first)'}"
        )
    return known[attribute]


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float)


def vary(data: Data, attribute: str, scale: str | None) -> Data:
    """Vary ``attribute`` on ``scale``, or stop varying it with None.

    Values and a baseline already chosen for it (in a spec's ``{scale, values, baseline}``)
    stay. A numeric scale needs numbers, so it is refused for an attribute with other values.
    A slot keeps its baseline: a numeric scale puts its values in increasing order and names
    the baseline, any other scale (or none) puts the baseline first again.
    """
    where = f"vary {attribute}"
    values = _attribute(data, attribute, where)
    slots = slots_of(data)
    example = (
        baseline_of(data, attribute, lexicon_of(slots[attribute], f"slots.{attribute}"))
        if attribute in slots
        else None
    )
    out = copy.deepcopy(data)
    current = dict(out.get("vary") or {})
    if scale is None:
        if attribute not in current:
            raise SpecError(f"{where}: {attribute!r} is not varied; varied: {list(current)}")
        del current[attribute]
    else:
        if scale not in SCALES:
            raise SpecError(
                f"{where}: unknown scale {scale!r}{nearest(scale, SCALES)}; use nominal "
                "(categories), ordinal (ordered levels) or numeric (numbers)"
            )
        odd = [v for v in values if isinstance(v, bool) or not isinstance(v, int | float)]
        if scale == "numeric" and odd:
            raise SpecError(
                f"{where}: a numeric scale needs numbers, but {attribute!r} has {odd[:3]}; "
                "use ordinal for ordered levels"
            )
        before = current.get(attribute)
        if isinstance(before, Mapping) and ("values" in before or "baseline" in before):
            current[attribute] = dict(before) | {"scale": scale}
        else:
            current[attribute] = scale
    out["vary"] = current
    if not current:
        del out["vary"]
    out = ordered(out)
    before = current.get(attribute)
    if example is not None and not (isinstance(before, Mapping) and "values" in before):
        # the example's value stays the baseline whatever the scale asks of the values' order
        out = with_baseline(out, attribute, example)
    return out


def _check_value(value: object, values: Sequence[AxisValue], attribute: str, where: str) -> None:
    if not _scalar(value) or not among(value, values):
        raise SpecError(
            f"{where}: {value!r} is not a value of {attribute!r}; values: {list(values)}"
        )


def _condition(data: Data, attribute: object, condition: object, where: str) -> Any:
    """A group or table condition checked against the attribute's values (one or a list)."""
    values = _attribute(data, attribute, where)
    options = list(condition) if isinstance(condition, list | tuple) else [condition]
    if not options:
        raise SpecError(f"{where}: a condition on {attribute!r} needs at least one value")
    for option in options:
        _check_value(option, values, str(attribute), where)
    return options if isinstance(condition, list | tuple) else condition


def _correct(data: Data, correct: Any, choices: list[AxisValue], where: str) -> Any:
    def check(answer: object, at: str) -> None:
        if not _scalar(answer) or not among(answer, choices):
            raise SpecError(f"{at}: {answer!r} is not one of the choices {choices}")

    if correct is None:
        return None
    if _scalar(correct):
        check(correct, where)
        return correct
    if isinstance(correct, Mapping):
        if len(correct) != 1:
            raise SpecError(
                f"{where}: give the answer per value of ONE attribute: {{attribute: {{value: "
                "answer}}}}"
            )
        ((attribute, table),) = correct.items()
        values = _attribute(data, attribute, where)
        if isinstance(table, Mapping):
            pairs = list(table.items())
        elif isinstance(table, list | tuple) and all(
            isinstance(p, list | tuple) and len(p) == 2 for p in table
        ):
            pairs = [tuple(p) for p in table]
        else:
            raise SpecError(
                f"{where}.{attribute}: map each value to its answer, or give [value, answer] pairs"
            )
        mapping: dict[AxisValue, AxisValue] = {}
        for value, answer in pairs:
            _check_value(value, values, attribute, f"{where}.{attribute}")
            if among(value, list(mapping)):
                raise SpecError(f"{where}.{attribute}: value {value!r} is given twice")
            check(answer, f"{where}.{attribute}.{value}")
            mapping[value] = answer
        return {attribute: mapping}
    if isinstance(correct, list | tuple) and correct:
        rows = []
        for index, row in enumerate(correct):
            at = f"{where}[{index}]"
            if not isinstance(row, Mapping) or "answer" not in row:
                raise SpecError(f"{at}: a table row maps attributes to values and has an answer")
            check(row["answer"], f"{at}.answer")
            clean = {
                key: _condition(data, key, value, f"{at}.{key}")
                for key, value in row.items()
                if key != "answer"
            }
            rows.append(clean | {"answer": row["answer"]})
        return rows
    raise SpecError(
        f"{where}: the correct answer is one choice, {{attribute: {{value: answer}}}}, or a "
        "table of rows"
    )


def answer(
    data: Data,
    field: str | None,
    choices: Sequence[AxisValue],
    correct: Any = None,
    *,
    pattern: str | None = None,
) -> Data:
    """Read ``field`` of a JSON reply, or the first match of ``pattern``, one of ``choices``.

    ``correct`` is one choice, ``{attribute: {value: choice}}`` (the inner mapping may also be
    a list of ``[value, choice]`` pairs, which JSON can carry for numbers and booleans), or a
    table of rows of conditions with an ``answer``.
    """
    where = "answer"
    if (field is None) == (pattern is None):
        raise SpecError(
            f"{where}: give exactly one of field (a JSON reply's field) or pattern (a regular "
            "expression)"
        )
    for name, text in (("field", field), ("pattern", pattern)):
        if text is not None and (not isinstance(text, str) or not text):
            raise SpecError(f"{where}: {name} must be a non-empty text, not {text!r}")
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as error:
            raise SpecError(
                f"{where}: pattern {pattern!r} is not a regular expression: {error}"
            ) from None
    if isinstance(choices, str | bytes) or not isinstance(choices, Sequence) or not choices:
        raise SpecError(f"{where}: choices are a non-empty list of the answers a reply may give")
    listed: list[AxisValue] = []
    for choice in choices:
        if not _scalar(choice) or choice == "":
            raise SpecError(f"{where}: a choice is a non-empty text, number or boolean")
        if among(choice, listed):
            raise SpecError(f"{where}: choice {choice!r} appears twice")
        listed.append(choice)
    written: dict[str, Any] = {"field": field} if field is not None else {"pattern": pattern}
    written["choices"] = listed
    checked = _correct(data, correct, listed, f"{where}.correct")
    if checked is not None:
        written["correct"] = checked
    return ordered(copy.deepcopy(data) | {"answer": written})


def group(data: Data, name: str, when: Mapping[str, Any] | None) -> Data:
    """Name the cases whose attributes match ``when`` (each a value or a list of values), or
    remove group ``name`` with None."""
    where = f"group {name}"
    if not isinstance(name, str) or not name.strip():
        raise SpecError(f"{where}: a group's name is a non-empty text, not {name!r}")
    if name == "all":
        raise SpecError(f"{where}: 'all' already names every case; choose another name")
    out = copy.deepcopy(data)
    groups = dict(out.get("groups") or {})
    if when is None:
        if name not in groups:
            raise SpecError(f"{where}: no group {name!r}; groups: {list(groups) or 'none'}")
        del groups[name]
    else:
        if not isinstance(when, Mapping) or not when:
            raise SpecError(f"{where}: give the attributes and values its cases have")
        groups[name] = {
            key: _condition(data, key, value, f"{where}.{key}") for key, value in when.items()
        }
    out["groups"] = groups
    if not groups:
        del out["groups"]
    return ordered(out)
