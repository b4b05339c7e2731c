"""What varies, how the answer is read and which one is correct, and groups of cases."""

from __future__ import annotations

import pytest

from modelscape.builder import Builder
from modelscape.errors import SpecError


def test_vary_sets_changes_and_stops_a_scale(cities: Builder) -> None:
    cities.vary("city", "nominal")
    cities.vary("city.capital", "nominal")
    cities.vary("city", "ordinal")
    assert cities.draft.data["vary"] == {"city": "ordinal", "city.capital": "nominal"}
    cities.vary("city", None)
    cities.vary("city.capital", None)
    assert "vary" not in cities.draft.data


def test_vary_keeps_chosen_values_and_baseline(cities: Builder) -> None:
    cities.edit("vary", {"city": {"scale": "nominal", "values": ["Lyon", "Nice"]}})
    cities.vary("city", "ordinal")
    assert cities.draft.data["vary"] == {"city": {"scale": "ordinal", "values": ["Lyon", "Nice"]}}
    assert cities.draft.complete


@pytest.mark.parametrize(
    ("attribute", "scale", "message"),
    [
        (
            "cty",
            "nominal",
            "unknown attribute 'cty' \\(did you mean 'city'\\?\\); attributes: city, city.capital",
        ),
        ("city", "nominl", "unknown scale 'nominl' \\(did you mean 'nominal'\\?\\)"),
        (
            "city",
            "numeric",
            "a numeric scale needs numbers, but 'city' has \\['Paris', 'Lyon', 'Nice'\\]",
        ),
        ("city", None, "'city' is not varied"),
    ],
)
def test_vary_says_what_is_wrong(
    cities: Builder, attribute: str, scale: str | None, message: str
) -> None:
    with pytest.raises(SpecError, match=message):
        cities.vary(attribute, scale)


def test_vary_before_any_slot_says_to_mark_one() -> None:
    with pytest.raises(SpecError, match="none yet \\(mark a slot first\\)"):
        Builder("Hi").vary("x", "nominal")


def test_answer_forms_of_the_correct_answer(cities: Builder) -> None:
    cities.answer("capital", [True, False], True)
    assert cities.draft.data["answer"] == {
        "field": "capital",
        "choices": [True, False],
        "correct": True,
    }
    cities.answer(
        "capital", [True, False], {"city": [["Paris", True], ["Lyon", False], ["Nice", False]]}
    )
    assert cities.draft.data["answer"]["correct"] == {
        "city": {"Paris": True, "Lyon": False, "Nice": False}
    }
    rows = [{"city": ["Paris"], "answer": True}, {"city.capital": False, "answer": False}]
    cities.answer("capital", [True, False], rows)
    assert cities.draft.data["answer"]["correct"] == rows
    assert cities.draft.complete
    cities.answer(None, ["yes", "no"], pattern=r"\b(yes|no)\b")
    assert cities.draft.data["answer"] == {"pattern": r"\b(yes|no)\b", "choices": ["yes", "no"]}


def test_a_partial_correct_mapping_is_a_problem_of_the_draft(cities: Builder) -> None:
    cities.answer("capital", [True, False], {"city": {"Paris": True}})
    assert cities.draft.problems == ("answer.correct.city: no answer for values ['Lyon', 'Nice']",)


@pytest.mark.parametrize(
    ("field", "choices", "correct", "pattern", "message"),
    [
        ("a", ["x"], None, "b", "give exactly one of field"),
        (None, ["x"], None, None, "give exactly one of field"),
        ("", ["x"], None, None, "field must be a non-empty text"),
        (None, ["x"], None, "(", "pattern '\\(' is not a regular expression"),
        ("a", [], None, None, "choices are a non-empty list"),
        ("a", "xy", None, None, "choices are a non-empty list"),
        ("a", ["x", "x"], None, None, "choice 'x' appears twice"),
        ("a", [None], None, None, "a choice is a non-empty text"),
        ("a", ["x"], "y", None, "answer.correct: 'y' is not one of the choices \\['x'\\]"),
        (
            "a",
            ["x"],
            {"city": {"Rome": "x"}},
            None,
            "answer.correct.city: 'Rome' is not a value of 'city'",
        ),
        ("a", ["x"], {"cty": {"Rome": "x"}}, None, "unknown attribute 'cty'"),
        (
            "a",
            ["x"],
            {"city": {"Paris": "y"}},
            None,
            "answer.correct.city.Paris: 'y' is not one of",
        ),
        (
            "a",
            ["x"],
            {"city": [["Paris", "x"], ["Paris", "x"]]},
            None,
            "value 'Paris' is given twice",
        ),
        ("a", ["x"], {"city": 3}, None, "give \\[value, answer\\] pairs"),
        ("a", ["x"], {"city": {}, "tone": {}}, None, "ONE attribute"),
        ("a", ["x"], [{"city": "Paris"}], None, "answer.correct\\[0\\]: a table row"),
        (
            "a",
            ["x"],
            [{"city": "Rome", "answer": "x"}],
            None,
            "answer.correct\\[0\\].city: 'Rome' is not a value",
        ),
        ("a", ["x"], [], None, "the correct answer is one choice"),
    ],
)
def test_answer_says_what_is_wrong(
    cities: Builder,
    field: str | None,
    choices: object,
    correct: object,
    pattern: str | None,
    message: str,
) -> None:
    before = cities.draft
    with pytest.raises(SpecError, match=message):
        cities.answer(field, choices, correct, pattern=pattern)  # type: ignore[arg-type]
    assert cities.draft == before


def test_groups_are_named_changed_and_removed(cities: Builder) -> None:
    cities.group("capitals", {"city.capital": True})
    cities.group("others", {"city": ["Lyon", "Nice"]})
    assert cities.draft.data["groups"] == {
        "capitals": {"city.capital": True},
        "others": {"city": ["Lyon", "Nice"]},
    }
    assert cities.spec.scenario().groups == {"capitals": ("Paris",), "others": ("Lyon", "Nice")}
    cities.group("capitals", None)
    cities.group("others", None)
    assert "groups" not in cities.draft.data


@pytest.mark.parametrize(
    ("name", "when", "message"),
    [
        ("all", {"city": "Paris"}, "'all' already names every case"),
        ("", {"city": "Paris"}, "a group's name is a non-empty text"),
        ("g", {}, "give the attributes and values its cases have"),
        ("g", None, "no group 'g'; groups: none"),
        (
            "g",
            {"city": "Rome"},
            "group g.city: 'Rome' is not a value of 'city'; values: \\['Paris', 'Lyon', 'Nice'\\]",
        ),
        ("g", {"city": []}, "needs at least one value"),
        (
            "g",
            {"city.capitol": True},
            "unknown attribute 'city.capitol' \\(did you mean 'city.capital'\\?\\)",
        ),
    ],
)
def test_group_says_what_is_wrong(cities: Builder, name: str, when: object, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        cities.group(name, when)  # type: ignore[arg-type]


def test_a_group_no_case_matches_is_a_problem_of_the_draft(cities: Builder) -> None:
    cities.edit("cases", 1)
    (drawn,) = cities.spec.scenario().task_space.cases
    other = next(city for city in ("Paris", "Lyon") if city != drawn)
    cities.group("other", {"city": other})
    assert cities.draft.problems == (f"groups.other: no case matches {{'city': '{other}'}}",)
