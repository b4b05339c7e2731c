"""Edits of a slot's values: rows, ranges, adding, moving, properties and per-version texts."""

from __future__ import annotations

import pytest

from modelscape import lexicons
from modelscape.builder import Builder
from modelscape.errors import SpecError


def test_rows_replace_values_and_read_cells_as_a_spec_does(cities: Builder) -> None:
    cities.rows(
        "city",
        [
            {"label": "6", "text": "Paris", "capital": "true", "size": "2.1"},
            {"label": "7", "text": "7", "capital": "false", "size": ""},
        ],
    )
    assert cities.draft.data["slots"]["city"] == [
        {"label": 6, "text": "Paris", "capital": True, "size": 2.1},
        {"label": 7, "capital": False, "size": None},
    ]


def test_rows_match_version_keys_by_their_spelling() -> None:
    builder = Builder("Hi Ann")
    builder.mark(0, 3, 6, "who")
    builder.versions("level", [1, 2])
    builder.per_version("who")
    builder.rows("who", [{"label": "ann", "text": {"1": "Ann", "2": "Anne"}}])
    assert builder.draft.data["slots"]["who"] == {"ann": {1: "Ann", 2: "Anne"}}
    builder.answer(None, ["x"], pattern="(x)")
    assert builder.draft.complete


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([], "a non-empty list of rows"),
        ("Paris", "a non-empty list of rows"),
        ([3], "row 0 is 3, not a mapping"),
        ([{"label": "a"}, {"label": "a"}], "label 'a' appears twice"),
        ([{"label": "a", "x": 1}, {"label": "b"}], "row 1 lacks \\['x'\\]"),
        ([{"label": "a"}, {"label": 2}], "labels mix kinds"),
    ],
)
def test_rows_say_what_is_wrong(cities: Builder, rows: object, message: str) -> None:
    with pytest.raises(SpecError, match=f"rows city: .*{message}"):
        cities.rows("city", rows)  # type: ignore[arg-type]


def test_every_value_edit_names_an_unknown_slot(cities: Builder) -> None:
    for call in (
        lambda: cities.rows("cty", [{"label": "a"}]),
        lambda: cities.range("cty", 1, 2, 1),
        lambda: cities.add("cty"),
        lambda: cities.move("cty", 1),
        lambda: cities.extend("cty", "p"),
        lambda: cities.drop("cty", "p"),
        lambda: cities.per_version("cty"),
        lambda: cities.remove("cty"),
    ):
        with pytest.raises(
            SpecError, match="no slot 'cty' \\(did you mean 'city'\\?\\); slots: \\['city'\\]"
        ):
            call()


def test_range_writes_a_range_and_refuses_bad_bounds() -> None:
    builder = Builder("In 2 days")
    builder.mark(0, 3, 4, "days")
    builder.range("days", 2, 10, 2)
    assert builder.draft.data["slots"]["days"] == {"start": 2, "stop": 10, "step": 2}
    builder.range("days", 0.5, 1.5, 0.5)  # the example's 2 stays, added to the range
    assert builder.draft.data["slots"]["days"] == [2, 0.5, 1.0, 1.5]
    builder.answer(None, ["x"], pattern="(x)")
    assert [row["coordinate"] for row in builder.preview] == [{}]
    assert len(builder.spec.scenario().task_space.cases) == 4
    with pytest.raises(SpecError, match="range days: a range needs a positive step, not 0"):
        builder.range("days", 1, 5, 0)
    with pytest.raises(SpecError, match="range days: a range needs stop >= start"):
        builder.range("days", 5, 1, 1)
    with pytest.raises(SpecError, match="range days: start must be a number, not '1'"):
        builder.range("days", "1", 5, 1)  # type: ignore[arg-type]


def test_add_continues_the_labels() -> None:
    builder = Builder("In 3 days, Paris, yes")
    builder.mark(0, 3, 4, "days")
    builder.add("days")
    builder.add("days")
    assert builder.draft.data["slots"]["days"] == {"start": 3, "stop": 5, "step": 1}
    builder.mark(2, 7, 12, "city")
    builder.add("city")
    assert builder.draft.data["slots"]["city"] == ["Paris", "Paris 2"]
    builder.mark(4, 2, 5, "flag")
    builder.rows("flag", [{"label": "true", "text": "yes"}])
    builder.add("flag")
    assert builder.draft.data["slots"]["flag"] == {True: "yes", False: "yes"}
    with pytest.raises(SpecError, match="add flag: both booleans are already values"):
        builder.add("flag")


def test_add_copies_text_and_properties_of_the_last_value(cities: Builder) -> None:
    cities.rows("city", [{"label": "p", "text": "Paris", "capital": True}])
    cities.add("city")
    assert cities.draft.data["slots"]["city"][-1] == {
        "label": "p 2",
        "text": "Paris",
        "capital": True,
    }


def test_move_raises_a_value_and_the_top_one_is_the_baseline(cities: Builder) -> None:
    cities.vary("city", "nominal")
    cities.move("city", 2)
    cities.move("city", 1)
    assert [row["label"] for row in cities.draft.data["slots"]["city"]] == ["Nice", "Paris", "Lyon"]
    assert cities.preview[0]["coordinate"] == {"city": "Nice"}
    with pytest.raises(SpecError, match="value 0 \\('Nice'\\) is already at the top"):
        cities.move("city", 0)
    with pytest.raises(SpecError, match="no value 3; slot 'city' has values 0 to 2"):
        cities.move("city", 3)


def test_extend_and_drop_properties(cities: Builder) -> None:
    cities.extend("city", "river")
    assert cities.draft.data["slots"]["city"][0] == {
        "label": "Paris",
        "capital": True,
        "river": None,
    }
    cities.group("big", {"city.capital": True})
    cities.drop("city", "capital")
    data = cities.draft.data
    assert data["slots"]["city"][0] == {"label": "Paris", "river": None}
    assert "groups" not in data
    assert "correct" not in data["answer"]
    with pytest.raises(SpecError, match="extend city: slot 'city' already has 'river'"):
        cities.extend("city", "river")
    with pytest.raises(SpecError, match=r"extend city: property 'a\.b' is not a name"):
        cities.extend("city", "a.b")
    with pytest.raises(SpecError, match="has no property 'rivr' \\(did you mean 'river'\\?\\)"):
        cities.drop("city", "rivr")


def test_per_version_gives_each_version_a_text_and_back() -> None:
    builder = Builder("Hello Ann")
    builder.mark(0, 6, 9, "who")
    with pytest.raises(SpecError, match="per_version who: the prompt has no versions"):
        builder.per_version("who")
    builder.versions("lang", ["en", "de"])
    builder.per_version("who")
    assert builder.draft.data["slots"]["who"] == {"Ann": {"en": "Ann", "de": "Ann"}}
    with pytest.raises(SpecError, match="already has one text per version"):
        builder.per_version("who")
    builder.per_version("who", False)
    assert builder.draft.data["slots"]["who"] == ["Ann"]
    with pytest.raises(SpecError, match="already has one text for every version"):
        builder.per_version("who", False)


def test_a_shipped_lexicon_becomes_rows_once_edited() -> None:
    builder = Builder("Hi")
    builder.mark(0, 2, 2, lexicon="tones")
    builder.add("tones")
    slot = builder.draft.data["slots"]["tones"]
    assert isinstance(slot, list)
    assert len(slot) == len(lexicons.get("tones")) + 1
    builder.undo()
    assert builder.draft.data["slots"]["tones"] == "tones"
