"""Drafts: a spec as written so far, checked the way a YAML spec is, with its variants.

A draft is complete when ``Spec.of`` reads its data without a problem and the scenario it
describes can be built, every variant checked; until then ``problems`` says what is missing
or wrong, each problem with its path in the spec, exactly as loading the YAML would say it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import yaml
from pydantic import ValidationError

from modelscape._model import FrozenModel
from modelscape.builder.state import Data
from modelscape.errors import ModelscapeError, SpecError
from modelscape.scenario import Scenario
from modelscape.specs.spec import Spec
from modelscape.templates.entry import spell

__all__ = [
    "Assessment",
    "Draft",
    "assess",
    "jsonable",
    "unasked_json",
    "yaml_text",
]


class Draft(FrozenModel):
    """The spec as written so far, valid or not.

    ``data`` is the spec in the form ``Spec.data()`` writes (and YAML holds); ``problems``
    lists what is still missing or wrong, each with its path, and is empty once the spec is
    complete.
    """

    data: dict[str, Any]
    problems: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """Whether the draft is a complete spec: no problem left."""
        return not self.problems


class Assessment:
    """A draft with the spec and scenario it describes, when they could be built, and the
    YAML a builder would save for it."""

    def __init__(self, draft: Draft, spec: Spec | None, scenario: Scenario | None) -> None:
        self.draft = draft
        self.spec = spec
        self.scenario = scenario
        self.yaml = yaml_text(draft.data, spec)


def _problems(error: Exception) -> tuple[str, ...]:
    if isinstance(error, SpecError):
        return error.problems
    if isinstance(error, ValidationError):
        return tuple(
            f"{'.'.join(str(part) for part in e['loc']) or 'spec'}: {e['msg']}"
            for e in error.errors()
        )
    return (str(error),)


def assess(data: Data) -> Assessment:
    """Check ``data`` as a spec: read it, then build its scenario and every variant."""
    kept = copy.deepcopy(data)
    try:
        spec = Spec.of(copy.deepcopy(data))
    except (ModelscapeError, ValidationError) as error:
        return Assessment(Draft(data=kept, problems=_problems(error)), None, None)
    try:
        scenario = spec.scenario()
        if spec.answer.correct is None:
            # with a correct answer, scenario() has made (and so checked) every variant already
            list(scenario.variants())
    except (ModelscapeError, ValidationError) as error:
        return Assessment(Draft(data=kept, problems=_problems(error)), spec, None)
    unasked = unasked_json(spec)
    if unasked is not None:
        return Assessment(Draft(data=kept, problems=(unasked,)), spec, scenario)
    return Assessment(Draft(data=kept), spec, scenario)


def unasked_json(spec: Spec) -> str | None:
    """The problem of an answer read from a JSON field that nothing asks the model to write.

    A reply is read as JSON only when the model was told to reply in JSON; a spec whose system
    prompt and prompt never mention it (neither the word nor the field written as a JSON key,
    ``"eligible":``) would count nearly every reply as unanswered, so a draft with such an
    answer is not complete.
    """
    if spec.answer.field is None:
        return None
    texts = [spec.system or ""]
    if isinstance(spec.prompt, str):
        texts.append(spec.prompt)
    else:
        texts += [text for versions in spec.prompt.values() for text in versions.values()]
    key = re.compile(r'"' + re.escape(spec.answer.field) + r'"\s*:')
    if any("json" in text.lower() or key.search(text) for text in texts):
        return None
    return (
        f"answer.field: the answer is read from the JSON field {spec.answer.field!r}, but "
        "neither the system prompt nor the prompt asks for a JSON reply"
    )


class _Dumper(yaml.SafeDumper):
    """Writes multi-line texts as literal blocks, as a spec file writes prompts."""


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _represent_text)


def yaml_text(data: Data, spec: Spec | None) -> str:
    """The YAML a builder saves: the spec's own dump once it reads, the draft's data before."""
    if spec is not None:
        return spec.dump()
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def jsonable(value: Any) -> Any:
    """``value`` as JSON can carry it: mapping keys spelled out as text, tuples as lists."""
    if isinstance(value, Mapping):
        return {_key(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)


def _key(key: object) -> str:
    if isinstance(key, str | int | float):
        return spell(key)
    return str(key)
