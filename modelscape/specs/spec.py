"""Specs: a scenario written as data, read from and written to YAML."""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import AfterValidator, BeforeValidator, Field, ValidationError

from modelscape._identity import AxisValue
from modelscape._model import FrozenModel
from modelscape._yaml import describe, load_yaml, read_yaml_text
from modelscape.answers import Answer, json_field, text_match
from modelscape.errors import SpecError, TaskSpaceError, TemplateError
from modelscape.measures import DifferenceMeasure
from modelscape.scenario import Scenario
from modelscape.specs.model import AnswerSpec, Condition, Correct, Varied, text_measure
from modelscape.specs.read import read_spec
from modelscape.task.coordinate import same_value
from modelscape.templates.lexicon import Lexicon
from modelscape.templates.template import Template

__all__ = ["Spec"]


def _matches(value: object, condition: Condition) -> bool:
    if isinstance(condition, tuple):
        return any(same_value(value, option) for option in condition)
    return same_value(value, condition)


class _Reference:
    """The correct answer a spec prescribes, computed from a filling's attributes."""

    def __init__(self, correct: Correct) -> None:
        self.correct = correct

    def __call__(self, attributes: Mapping[str, AxisValue]) -> AxisValue | None:
        correct = self.correct
        if isinstance(correct, dict):
            ((attribute, table),) = correct.items()
            value = attributes.get(attribute)
            return next((a for k, a in table.items() if same_value(k, value)), None)
        if isinstance(correct, tuple):
            for row in correct:
                if all(_matches(attributes.get(k), c) for k, c in row.items() if k != "answer"):
                    answer = row["answer"]
                    return answer if not isinstance(answer, tuple) else None
            return None
        return correct


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must be a non-empty text")
    return text


def _version_text(version: object) -> object:
    # YAML reads `version: 2` as a number; a version is a text, so a number is spelled out
    if isinstance(version, int | float) and not isinstance(version, bool):
        return str(version)
    return version


def _measure_of(name: str) -> DifferenceMeasure:
    """The difference measure a spec's ``measures`` entry names."""
    from modelscape.text_measures import TEXT_MEASURES, embedding_difference

    if name in TEXT_MEASURES:
        return TEXT_MEASURES[name]()
    return embedding_difference("python:" + name.removeprefix("embedding:"))


class Spec(FrozenModel):
    """A scenario written as data, read from and written to YAML.

    ``prompt`` is one text, or versions of the whole prompt under one attribute name, such as
    ``{friendliness: {neutral: ..., polite: ...}}``. ``slots`` fill the prompt's
    ``{placeholders}``; each is a shipped lexicon by name, a list of values, a mapping of labels
    to texts, a list of rows, or a range ``{start, stop, step}``; a text may be one text per
    prompt version. ``vary`` maps each attribute to vary to its scale, or to a ``Varied``.
    ``groups`` name the cases whose attributes match their conditions, each with its own
    scorecard. ``answer`` says how to read the answer and which one is correct. ``measures``
    adds text measures (see :mod:`modelscape.text_measures`) to every run's difference measures.
    """

    # The fields below are the schema of a spec document: its keys, their order in YAML, their
    # types, limits and defaults are read from here (see modelscape.specs.read), and each
    # description finishes the sentence "must be ..." in a problem's message.
    name: Annotated[str, AfterValidator(_not_blank)] = Field(description="a short text")
    version: Annotated[str, BeforeValidator(_version_text), AfterValidator(_not_blank)] = Field(
        "1", description="a short text, such as 2 or 1.1"
    )
    description: str = Field("", description="a text")
    system: str | None = Field(None, description="a text")
    prompt: str | dict[str, dict[AxisValue, str]] = Field(
        description="one text, or versions of it under one attribute name, such as "
        "{tone: {neutral: ..., polite: ...}}"
    )
    slots: dict[str, Lexicon] = Field(
        default_factory=dict, description="a mapping of each {placeholder} to its values"
    )
    vary: dict[str, Varied] = Field(
        default_factory=dict, description="a mapping of each attribute to vary to its scale"
    )
    groups: dict[str, dict[str, Condition]] = Field(
        default_factory=dict, description="a mapping of each group's name to its conditions"
    )
    answer: AnswerSpec = Field(
        description="{field: NAME, choices: [...]} or {pattern: ..., choices: [...]}"
    )
    measures: tuple[Annotated[str, AfterValidator(text_measure)], ...] = Field(
        (),
        description="a list of text measures: edit_distance, token_jaccard or "
        "embedding:MODULE:FUNCTION",
    )
    cases: int | None = Field(None, ge=1, description="a whole number of at least 1")
    repetitions: int = Field(5, ge=1, description="a whole number of at least 1")
    seed: int = Field(0, ge=0, description="a whole number of at least 0")

    # -- reading -----------------------------------------------------------------------------
    @classmethod
    def of(cls, data: object) -> Spec:
        """The spec in ``data``, as read from YAML; raises SpecError naming every problem."""
        if isinstance(data, Spec):
            return data
        fields = read_spec(data, model=cls, build=_template_of)
        try:
            return cls.model_validate(fields)
        except ValidationError as error:  # a check the reader lacks: still one SpecError
            raise SpecError(
                [
                    f"{'.'.join(str(part) for part in each['loc'])}: {each['msg']}"
                    for each in error.errors()
                ]
            ) from None

    @classmethod
    def parse(cls, text: str) -> Spec:
        """The spec in a YAML document."""
        try:
            data = load_yaml(text)
        except yaml.YAMLError as error:  # invalid, or over a limit (see modelscape._yaml)
            raise SpecError(describe(error)) from None
        return cls.of(data)

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Spec:
        """The spec in a YAML file."""
        file = Path(path)
        try:
            text = read_yaml_text(file)
        except OSError as error:
            raise SpecError(f"cannot read {file}: {error.strerror}") from None
        except yaml.YAMLError as error:  # too large, or not UTF-8
            raise SpecError(describe(error), source=str(file)) from None
        try:
            return cls.parse(text)
        except SpecError as error:
            raise SpecError(error.problems, source=str(file)) from None

    # -- writing -----------------------------------------------------------------------------
    def data(self) -> dict[str, Any]:
        """The spec as plain data in its shortest form (what ``dump`` writes)."""
        from modelscape import lexicons

        shipped = {name: lexicons.get(name) for name in lexicons.available()}
        out: dict[str, Any] = {"name": self.name}
        for key in ("version", "description", "system"):
            if getattr(self, key) != _default(key):
                out[key] = getattr(self, key)
        out["prompt"] = self.prompt
        if self.slots:
            out["slots"] = {
                slot: _slot_data(lexicon, shipped) for slot, lexicon in self.slots.items()
            }
        if self.vary:
            out["vary"] = {
                attribute: varied.scale
                if varied.values is None and varied.baseline is None
                else varied.model_dump(exclude_none=True, mode="python")
                for attribute, varied in self.vary.items()
            }
            for value in out["vary"].values():
                if isinstance(value, dict) and "values" in value:
                    value["values"] = list(value["values"])
        if self.groups:
            out["groups"] = {g: _conditions(c) for g, c in self.groups.items()}
        answer: dict[str, Any] = {}
        if self.answer.field is not None:
            answer["field"] = self.answer.field
        if self.answer.pattern is not None:
            answer["pattern"] = self.answer.pattern
        answer["choices"] = list(self.answer.choices)
        if self.answer.correct is not None:
            correct = self.answer.correct
            answer["correct"] = (
                [_conditions(r) for r in correct] if isinstance(correct, tuple) else correct
            )
        out["answer"] = answer
        if self.measures:
            out["measures"] = list(self.measures)
        for key in ("cases", "repetitions", "seed"):
            if getattr(self, key) != _default(key):
                out[key] = getattr(self, key)
        return out

    def dump(self) -> str:
        """The spec as YAML, with every lexicon in its shortest form."""
        return yaml.dump(
            self.data(), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
        )

    def save(self, path: str | PathLike[str]) -> Path:
        """Write the spec as a YAML file and return its path."""
        file = Path(path)
        file.write_text(self.dump(), encoding="utf-8")
        return file

    # -- building ------------------------------------------------------------------------------
    def lexicon(self, slot: str) -> Lexicon:
        """The lexicon that fills ``slot``."""
        try:
            return self.slots[slot]
        except KeyError:
            raise SpecError(f"slots.{slot}: no such slot; slots: {list(self.slots)}") from None

    def template(self) -> Template:
        """The template the spec describes."""
        return _template_of(self.model_dump() | {"slots": self.slots, "answer": self.answer})

    def answer_reader(self) -> Answer:
        """The answer reader the spec describes."""
        if self.answer.field is not None:
            return json_field(self.answer.field, self.answer.choices)
        assert self.answer.pattern is not None
        return text_match(self.answer.pattern, self.answer.choices)

    def scenario(self) -> Scenario:
        """The scenario the spec describes; every variant is checked as it is generated."""
        template = self.template()
        try:
            axes = [
                template.axis(attribute, varied.scale, varied.values, baseline=varied.baseline)
                for attribute, varied in self.vary.items()
            ]
            space = template.space(axes, cases=self.cases, seed=self.seed)
        except (TemplateError, TaskSpaceError) as error:
            raise SpecError(f"vary: {error}") from None
        groups: dict[str, list[str]] = {}
        for group, conditions in self.groups.items():
            members = [
                case
                for case, task in space.cases.items()
                if all(_matches(task.attribute_values().get(k), c) for k, c in conditions.items())
            ]
            if not members:
                raise SpecError(f"groups.{group}: no case matches {dict(conditions)}")
            groups[group] = members
        scenario = Scenario(
            name=self.name,
            version=self.version,
            description=self.description,
            task_space=space,
            answer=self.answer_reader(),
            repetitions=self.repetitions,
            measures=tuple(_measure_of(name) for name in self.measures),
            groups=groups,
            seed=self.seed,
        )
        if self.answer.correct is not None:
            missing = [
                f"case {v.case!r} at {v.location.label() or 'baseline'}"
                for v in scenario.variants()
                if v.reference is None
            ]
            if missing:
                raise SpecError(
                    f"answer.correct: no correct answer for {len(missing)} variants, such as "
                    f"{'; '.join(missing[:3])}"
                )
        return scenario


def _default(key: str) -> Any:
    """The default of field ``key``: what the shortest form of a spec leaves out."""
    return Spec.model_fields[key].get_default(call_default_factory=True)


def _template_of(fields: Mapping[str, Any]) -> Template:
    answer = fields.get("answer")
    correct = answer.correct if isinstance(answer, AnswerSpec) else None
    return Template(
        fields["prompt"],
        fields["slots"],
        name=fields["name"],
        system=fields.get("system"),
        reference=None if correct is None else _Reference(correct),
        version=fields.get("version") or "1",
    )


def _slot_data(lexicon: Lexicon, shipped: Mapping[str, Lexicon]) -> Any:
    for name, candidate in shipped.items():
        if candidate == lexicon:
            return name
    labels = lexicon.labels
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in labels)
    if numeric and len(labels) >= 3 and lexicon.data() == list(labels):
        step = labels[1] - labels[0]  # type: ignore[operator]
        if step > 0:
            from modelscape.specs.model import Range

            try:
                candidate_range = Range(start=labels[0], stop=labels[-1], step=step)
            except SpecError:  # not a range at all, such as [0, 1, -1] or [0, 1e-9, 5]
                return lexicon.data()
            # compare lexicons, not numbers: 1 == 1.0, but a range of floats reads back as
            # labels 1.0, 2.5, 4.0 with texts "1.0", ..., which is not the list [1, 2.5, 4]
            numbers = candidate_range.numbers()
            if len(numbers) == len(labels) and Lexicon.of(list(numbers)) == lexicon:
                return candidate_range.model_dump()
    return lexicon.data()


def _conditions(conditions: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in conditions.items()}


class _Dumper(yaml.SafeDumper):
    """Writes multi-line texts as literal blocks, so prompts read as they are sent."""


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    if any(mark in text for mark in "\r\x85\u2028\u2029"):
        # YAML's other line breaks survive only escaped: PyYAML writes \x85 raw in plain,
        # quoted and block styles and reads it back as a line break, changing the text
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"')
    if "\n" in text:
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", text)


_Dumper.add_representer(str, _represent_text)
