"""The preview of a draft: its variants from the first slot on, long before the spec is done.

A spec is complete only once its answer is set, but a person writing one wants to see what
each change does to the prompt while choosing the values. So the preview builds the
scenario from the draft with a stand-in answer reader (and without its groups, which only
name cases), shows every variant of the first case, and gives each the correct answer the
draft knows so far: none (shown as "?") where the answer or its table is not written yet.
The same scenario says which attributes the cases differ in, the only ones a group can use.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from modelscape._identity import AxisValue, JsonValue
from modelscape.builder.draft import Assessment
from modelscape.builder.state import Data, attribute_values
from modelscape.errors import ModelscapeError
from modelscape.scenario import Scenario
from modelscape.specs.spec import Spec
from modelscape.task.coordinate import same_value
from modelscape.templates.entry import spell

__all__ = ["Preview", "case_attributes", "preview", "preview_rows"]

#: What a preview is: its rows, how many cases the draft has, why there is none.
Preview = dict[str, Any]
Reference = Callable[[Mapping[str, AxisValue]], AxisValue | None]

#: An answer reader that stands in for one not written yet: it never decides a variant.
_STAND_IN: dict[str, Any] = {"pattern": "(?s).+", "choices": ["?"]}


def preview_rows(
    scenario: Scenario, reference: Reference | None = None
) -> list[dict[str, JsonValue]]:
    """Every variant of the scenario's first case: what changes, its correct answer, its prompt.

    The same variants as ``Scenario.example``, as rows in the shape of ``Scenario.prompts``.
    ``reference`` computes the answer from a variant's attributes when the scenario's own
    answers are not known yet; an unknown answer is None.
    """
    space = scenario.task_space
    case = next(iter(space.cases))
    baseline = space.baseline
    rows: list[dict[str, JsonValue]] = []
    for coordinate in scenario.coordinates():
        variant = space.variant(case, coordinate)
        changed = variant.changed(baseline)
        answer = variant.reference
        if reference is not None and not isinstance(variant.task, dict):
            answer = reference(variant.task.attribute_values())
        rows.append(
            {
                "case": case,
                "changed": ", ".join(
                    f"{axis}={spell(variant.coordinate[axis])}" for axis in changed
                )
                or "baseline",
                "coordinate": dict(variant.coordinate.items()),
                "system": variant.prompt.system,
                "prompt": "\n\n".join(m.content for m in variant.prompt.messages),
                "answer": answer,
            }
        )
    return rows


def _stand_in(data: Data) -> tuple[Scenario | None, Reference | None, str | None]:
    """The draft's scenario with a stand-in answer, the reference its answer so far gives,
    and what stops the scenario from being built."""
    stand_in = copy.deepcopy(data)
    stand_in.pop("groups", None)
    answer = stand_in.get("answer")
    stand_in["answer"] = dict(_STAND_IN)
    try:
        scenario = Spec.of(stand_in).scenario()
    except (ModelscapeError, ValidationError) as error:
        problems = getattr(error, "problems", None) or (str(error),)
        return None, None, str(problems[0])
    reference = None
    if isinstance(answer, Mapping) and answer.get("correct") is not None:
        try:
            reference = Spec.of(stand_in | {"answer": answer}).template().reference
        except (ModelscapeError, ValidationError):
            reference = _partial(answer["correct"])
    return scenario, reference, None


def _partial(correct: object) -> Reference | None:
    """The answers of a table per value that does not cover every value yet (which a spec
    refuses): each value written gives its answer, any other none."""
    if not isinstance(correct, Mapping) or len(correct) != 1:
        return None
    ((attribute, table),) = correct.items()
    if isinstance(table, Mapping):
        pairs = list(table.items())
    elif isinstance(table, list):
        pairs = [tuple(pair) for pair in table if isinstance(pair, list | tuple) and len(pair) == 2]
    else:
        return None

    def reference(attributes: Mapping[str, AxisValue]) -> AxisValue | None:
        value = attributes.get(str(attribute))
        return next((answer for key, answer in pairs if same_value(key, value)), None)

    return reference


def preview(data: Data, assessment: Assessment) -> Preview:
    """The preview of a draft: the rows of its first case, the number of cases, and, when it
    cannot be shown, the problem that stops it."""
    scenario = assessment.scenario
    reference: Reference | None = None
    stopped = None
    if scenario is None:
        scenario, reference, stopped = _stand_in(data)
    rows: list[dict[str, JsonValue]] = []
    if scenario is not None:
        try:
            rows = preview_rows(scenario, reference)
        except (ModelscapeError, ValidationError) as error:
            # a stand-in scenario's variants are made here first, and one may not be valid
            problems = getattr(error, "problems", None) or (str(error),)
            scenario, stopped = None, str(problems[0])
    if scenario is None:
        return {"rows": [], "cases": 0, "stopped": stopped, "attributes": []}
    return {
        "rows": rows,
        "cases": len(scenario.task_space.cases),
        "stopped": None,
        "attributes": case_attributes(data, scenario),
    }


def case_attributes(data: Data, scenario: Scenario | None) -> list[dict[str, Any]]:
    """The attributes a group can name, each with the values its cases have.

    A varied attribute is the same (its baseline) in every case, and so is each property of a
    varied slot, so a group on another of its values could never match: those are left out.
    Without a scenario, every attribute that is not varied, with all its values.
    """
    vary = data.get("vary")
    varied = set(vary) if isinstance(vary, Mapping) else set()

    def free(name: str) -> bool:
        return name not in varied and name.partition(".")[0] not in varied

    known = attribute_values(data)
    if scenario is None:
        return [{"name": k, "values": list(v)} for k, v in known.items() if free(k)]
    found: dict[str, list[AxisValue]] = {}
    for task in scenario.task_space.cases.values():
        values = task.attribute_values() if not isinstance(task, dict) else {}
        for name, value in values.items():
            seen = found.setdefault(name, [])
            if not any(same_value(value, other) for other in seen):
                seen.append(value)
    return [
        {"name": name, "values": [v for v in values if any(same_value(v, s) for s in found[name])]}
        for name, values in known.items()
        if free(name) and name in found
    ]
