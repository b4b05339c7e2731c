"""Spec errors: every problem reported at once, each with its path and the nearest valid name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from modelscape import Spec
from modelscape.errors import ModelscapeError, SpecError


def _data(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "check",
        "prompt": "{who} asks: is {n} prime?",
        "slots": {"who": "names", "n": [2, 3, 4]},
        "answer": {"field": "prime", "choices": [True, False]},
    }
    data.update(fields)
    return data


def _problems(data: object) -> tuple[str, ...]:
    with pytest.raises(SpecError) as caught:
        Spec.of(data)
    assert isinstance(caught.value, ModelscapeError)
    return caught.value.problems


def test_unknown_lexicon_suggests_the_nearest() -> None:
    problems = _problems(_data(slots={"who": "nmes", "n": [2]}))
    assert len(problems) == 1
    assert problems[0].startswith("slots.who: unknown lexicon 'nmes' (did you mean 'names'?)")
    assert "a slot with one value is a list: [nmes]" in problems[0]


def test_every_problem_is_reported_at_once() -> None:
    data = _data(
        colour="red",
        slots={"who": "nmes", "n": [2, 3]},
        vary={"n": "ordnal"},
        answer={"field": "prime", "choices": ["y", "n"], "correct": "maybe"},
        cases=0,
        repetitions="many",
        seed="s",
    )
    with pytest.raises(SpecError) as caught:
        Spec.of(data)
    problems = caught.value.problems
    assert problems == (
        "colour: unknown key; allowed: name, version, description, system, prompt, slots, vary, "
        "groups, answer, measures, cases, repetitions, seed",
        problems[1],
        "vary.n.scale: unknown scale 'ordnal' (did you mean 'ordinal'?); use nominal, ordinal "
        "or numeric",
        "answer.correct: 'maybe' is not one of the choices ['y', 'n']",
        "cases: must be a whole number of at least 1, not 0",
        "repetitions: must be a whole number of at least 1, not 'many'",
        "seed: must be a whole number of at least 0, not 's'",
    )
    assert problems[1].startswith("slots.who: unknown lexicon 'nmes'")
    message = str(caught.value)
    assert message.startswith("7 problems:\n  - colour: unknown key")
    assert all(f"  - {problem}" in message for problem in problems)


def test_unknown_top_level_key_suggests_the_nearest() -> None:
    (problem,) = _problems(_data(vray={"n": "ordinal"}))
    assert problem.startswith("vray: unknown key (did you mean 'vary'?)")


def test_unknown_attributes_in_vary_groups_and_correct() -> None:
    problems = _problems(
        _data(
            vary={"who.gendr": "nominal"},
            groups={"women": {"who.gnder": "female"}},
            answer={
                "field": "prime",
                "choices": [True, False],
                "correct": {"nn": {2: True}},
            },
        )
    )
    assert problems[0].startswith(
        "vary.who.gendr: unknown attribute 'who.gendr' (did you mean 'who.gender'?); attributes:"
    )
    assert problems[1].startswith("groups.women.who.gnder: unknown attribute 'who.gnder'")
    assert "(did you mean 'who.gender'?)" in problems[1]
    assert problems[2].startswith("answer.correct.nn: unknown attribute 'nn' (did you mean 'n'?)")
    assert len(problems) == 3


def test_unknown_attribute_in_a_table_row() -> None:
    rows = [{"n": 2, "answer": True}, {"nn": 3, "answer": "yes"}, {"n": 4}]
    problems = _problems(
        _data(answer={"field": "prime", "choices": [True, False], "correct": rows})
    )
    assert problems[0].startswith(
        "answer.correct[1].nn: unknown attribute 'nn' (did you mean 'n'?)"
    )
    assert problems[1] == "answer.correct[1].answer: 'yes' is not one of the choices [True, False]"
    assert (
        problems[2] == "answer.correct[2]: a table row maps attributes to values and has an answer"
    )


def test_values_that_are_not_values_of_their_attribute() -> None:
    problems = _problems(
        _data(
            vary={"who.gender": {"scale": "nominal", "values": ["female", "other"], "extra": 1}},
            groups={"some": {"n": [2, 7]}},
            answer={
                "field": "prime",
                "choices": [True, False],
                "correct": {"n": {2: True, 9: False}},
            },
        )
    )
    assert problems == (
        "vary.who.gender.extra: unknown key; allowed: scale, values, baseline",
        "vary.who.gender.values[1]: 'other' is not a value of 'who.gender'; "
        "values: ['female', 'male']",
        "groups.some.n[1]: 7 is not a value of 'n'; values: [2, 3, 4]",
        "answer.correct.n.9: 9 is not a value of 'n'; values: [2, 3, 4]",
        "answer.correct.n: no answer for values [3, 4]",
    )


def test_a_baseline_that_is_not_a_value() -> None:
    problems = _problems(_data(vary={"n": {"scale": "ordinal", "values": [2, 3], "baseline": 4}}))
    assert problems == ("vary.n.baseline: baseline 4 is not one of the values [2, 3]",)
    problems = _problems(_data(vary={"n": {"scale": "ordinal", "baseline": 5}}))
    assert problems == ("vary.n.baseline: baseline 5 is not one of the values [2, 3, 4]",)


def test_a_numeric_scale_over_text_is_reported_at_its_path() -> None:
    problems = _problems(_data(vary={"who": "numeric"}))
    assert len(problems) == 1
    assert problems[0].startswith("vary.who: axis 'who': a numeric axis takes numbers only")
    problems = _problems(_data(vary={"n": {"scale": "numeric", "values": [4, 2]}}))
    assert problems == ("vary.n: axis 'n': numeric values must increase, got (4, 2)",)


def test_vary_needs_a_scale() -> None:
    problems = _problems(_data(vary={"n": 3, "who": {"values": ["Wei Wang"]}}))
    assert problems[0] == (
        "vary.n: give a scale (nominal, ordinal, numeric) or {scale, values, baseline}"
    )
    assert problems[1].startswith("vary.who: unknown scale None")


def test_correct_answers_must_be_among_the_choices() -> None:
    correct = {"n": {2: "yes", 3: True, 4: False}}
    problems = _problems(
        _data(answer={"field": "prime", "choices": [True, False], "correct": correct})
    )
    assert problems == ("answer.correct.n.2: 'yes' is not one of the choices [True, False]",)
    # True is a boolean, not the number 1
    problems = _problems(_data(answer={"field": "n", "choices": [1, 2], "correct": True}))
    assert problems == ("answer.correct: True is not one of the choices [1, 2]",)


def test_answer_problems() -> None:
    assert _problems(_data(answer="prime")) == (
        "answer: give {field: NAME, choices: [...], correct: ...} or {pattern: REGEX, "
        "choices: [...]}",
    )
    problems = _problems(_data(answer={"choices": [1], "regex": "x"}))
    assert problems[0].startswith("answer.regex: unknown key")
    assert problems[1].startswith("answer: give exactly one of field")
    problems = _problems(_data(answer={"pattern": "(yes", "choices": []}))
    assert problems[0].startswith("answer.pattern: invalid regular expression:")
    assert problems[1].startswith("answer.choices: choices are a non-empty list")
    problems = _problems(_data(answer={"field": "", "choices": [1], "correct": {"n": 1, "who": 2}}))
    assert problems[0] == "answer.field: must be a non-empty text"
    assert problems[1].startswith("answer.correct: a mapping gives the answer per value of ONE")


def test_missing_required_fields_and_a_non_mapping() -> None:
    assert _problems({}) == (
        "name: every spec needs a name (a short text)",
        "prompt: every spec needs a prompt",
        "answer: every spec needs an answer: {field: NAME, choices: [...]} or "
        "{pattern: ..., choices: [...]}",
    )
    (problem,) = _problems(["not", "a", "mapping"])
    assert problem == "a spec is a mapping of keys such as name, prompt, slots; got list"


def test_template_problems_are_reported_under_prompt() -> None:
    (problem,) = _problems(
        _data(prompt="{who} asks: is {m} prime?", slots={"who": "names", "m": [1], "n": [2]})
    )
    assert problem.startswith("prompt: template 'check'")
    assert "slots ['n'] are not used in the prompt" in problem
    (problem,) = _problems(_data(prompt="{who} asks about {x}"))
    assert "{x} has no slot" in problem
    (problem,) = _problems(_data(prompt={"a": "x", "b": "y"}))
    assert problem.startswith("prompt: the prompt is one text, or versions of it under one")


def test_bad_slots() -> None:
    problems = _problems(
        _data(
            prompt="{who} {n} {a} {b} {c}",
            slots={
                "who": "names",
                "n": [],
                "a": 3,
                "b": ["x", {"label": "y"}],
                "c": {"start": 1, "stop": 0, "step": 1},
            },
        )
    )
    assert problems[0].startswith("slots.n: a slot is a shipped lexicon's name, a non-empty list")
    assert problems[1].startswith("slots.a: a slot is a shipped lexicon's name")
    assert problems[2].startswith("slots.b: item 1")
    assert problems[3] == "slots.c: a range needs stop >= start, got 1..0"


def test_group_problems() -> None:
    problems = _problems(_data(groups={"all": {"n": 2}, "empty": {}, "odd": {"n": {"x": 1}}}))
    assert problems == (
        "groups.all: 'all' already names every case; choose another name",
        "groups.empty: a group maps attributes to the values its cases have",
        "groups.odd.n: a condition is one value or a list of values",
    )


def test_invalid_yaml_reports_line_and_column() -> None:
    with pytest.raises(SpecError) as caught:
        Spec.parse("name: x\nprompt: [unclosed\n")
    assert str(caught.value).startswith("line 3, column 1: not valid YAML: expected ',' or ']'")
    with pytest.raises(SpecError, match=r"^line 2, column 6: not valid YAML: mapping values"):
        Spec.parse("name: x\n  bad: indent\n")


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\nprompt: '{who}'\nslots: {who: nmes}\ncolour: 1\n", encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        Spec.load(broken)
    assert caught.value.source == str(broken)
    message = str(caught.value)
    assert message.startswith(f"{broken}: 3 problems:")
    assert "slots.who: unknown lexicon 'nmes' (did you mean 'names'?)" in message
    assert "colour: unknown key" in message
    assert "answer: every spec needs an answer" in message
    invalid = tmp_path / "invalid.yaml"
    invalid.write_text("name: [x\n", encoding="utf-8")
    with pytest.raises(
        SpecError, match=rf"^{re.escape(str(invalid))}: line 2, column 1: not valid YAML"
    ):
        Spec.load(invalid)
    missing = tmp_path / "missing.yaml"
    with pytest.raises(SpecError, match=rf"cannot read {re.escape(str(missing))}: No such file"):
        Spec.load(missing)


def test_spec_error_with_one_problem_reads_as_one_line() -> None:
    error = SpecError("name: missing", source="spec.yaml")
    assert str(error) == "spec.yaml: name: missing"
    assert error.problems == ("name: missing",)


def test_a_range_with_a_typo_is_reported_as_a_range() -> None:
    problems = _problems(_data(slots={"who": "names", "n": {"start": 1, "stop": 5, "stpe": 1}}))
    assert problems == (
        "slots.n.stpe: unknown key (did you mean 'step'?); a range has start, stop and step",
        "slots.n: a range needs step",
    )
    # texts under such keys are an ordinary mapping of labels to texts
    spec = Spec.of(
        _data(prompt="{who} {n}", slots={"who": "names", "n": {"start": "Go", "stop": "Halt"}})
    )
    assert spec.lexicon("n").labels == ("start", "stop")


def test_an_empty_spec_says_so(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"^the spec is empty; write at least its name, prompt"):
        Spec.parse("# only a comment\n")
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(SpecError, match=rf"^{re.escape(str(empty))}: the spec is empty"):
        Spec.load(empty)


def test_a_system_prompt_that_is_not_text_is_a_problem_not_a_crash() -> None:
    text = "name: x\nsystem: 3\nprompt: 'Is {n} prime?'\nslots: {n: [2, 3]}\n"
    text += "vary: {n: {scale: ordinal, baseline: 5}}\nanswer: {field: p, choices: [true, false]}\n"
    with pytest.raises(SpecError) as caught:
        Spec.parse(text)
    # the wrong system prompt stops nothing else being checked against the template
    assert caught.value.problems == (
        "system: must be a text, not 3",
        "vary.n.baseline: baseline 5 is not one of the values [2, 3]",
    )


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"name": 3}, "name: must be a short text, not 3"),
        ({"name": "  "}, "name: must be a non-empty text, not '  '"),
        ({"version": ""}, "version: must be a non-empty text, not ''"),
        ({"version": True}, "version: must be a short text, such as 2 or 1.1, not True"),
        ({"description": {"a": 1}}, "description: must be a text, not {'a': 1}"),
        ({"cases": 2.5}, "cases: must be a whole number of at least 1, not 2.5"),
        ({"repetitions": True}, "repetitions: must be a whole number of at least 1, not True"),
        ({"seed": -1}, "seed: must be a whole number of at least 0, not -1"),
        ({"slots": ["who", "n"]}, "slots: must be a mapping of each {placeholder} to its values"),
        ({"vary": "n"}, "vary: must be a mapping of each attribute to vary to its scale"),
        ({"groups": [1]}, "groups: must be a mapping of each group's name to its conditions"),
        ({"vary": {"n": {"scale": 3}}}, "vary.n.scale: unknown scale 3; use nominal"),
        ({"vary": {"n": {"scale": "ordinal", "values": [2, [3]]}}}, "vary.n.values[1]: a value"),
        ({"groups": {"g": {"n": [2, 9]}}}, "groups.g.n[1]: 9 is not a value of 'n'"),
        ({"groups": {"g": {"who.gender": "femal"}}}, "(did you mean 'female'?)"),
        ({"groups": {2: {"n": 2}}}, "groups.2: a group's name is a text, not 2"),
        ({"slots": {"who": "names", "n": [2], "my n": [3]}}, "slots['my n']: a slot's name is"),
        ({"slots": {"who": "names", "n": {"start": 1, "stop": "9", "step": 1}}}, "slots.n.stop:"),
        ({"answer": {"field": "p", "choices": [True, None]}}, "answer.choices[1]: a choice is"),
        ({"answer": {"field": 3, "choices": [1]}}, "answer.field: must be a non-empty text"),
        ({"answer": {"field": "p", "choices": ["yes"], "correct": "yse"}}, "(did you mean 'yes'?)"),
        ({"": 1}, "['']: unknown key; allowed: name, version"),
    ],
)
def test_a_value_of_the_wrong_kind_anywhere_is_named_at_its_path(
    fields: dict[Any, Any], problem: str
) -> None:
    problems = _problems(_data() | fields)
    assert any(found.startswith(problem) or problem in found for found in problems), problems
    assert all(re.match(r"^[\w\[]", found) for found in problems), problems


def test_null_takes_the_default() -> None:
    spec = Spec.of(_data(version=None, description=None, system=None, repetitions=None, seed=None))
    assert (spec.version, spec.description, spec.system) == ("1", "", None)
    assert (spec.repetitions, spec.seed) == (5, 0)
    assert _problems(_data(name=None)) == ("name: every spec needs a name (a short text)",)
