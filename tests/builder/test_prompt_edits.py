"""Marking, removing and renaming slots, prompt versions, fields and the reply instruction."""

from __future__ import annotations

import pytest

from modelscape.builder import Builder
from modelscape.errors import ModelscapeError, SpecError


def test_marking_a_selection_makes_a_slot_with_that_value() -> None:
    builder = Builder("Ship in 30 days? It is {{urgent}}.")
    builder.mark(0, 8, 10)  # a number without a name is named after the word that follows
    assert builder.draft.data["prompt"] == "Ship in {days} days? It is {{urgent}}."
    assert builder.draft.data["slots"] == {"days": [30]}  # 30 spells a number
    builder.mark(2, 13, 21, "flag")  # "{urgent}" as shown: braces read as one
    assert builder.draft.data["slots"]["flag"] == ["{urgent}"]
    assert builder.draft.data["prompt"] == "Ship in {days} days? It is {flag}."


def test_a_new_slot_is_named_after_its_selection_and_kept_unique() -> None:
    builder = Builder("Dear Ms Smith, dear Ms Smith")
    builder.mark(0, 5, 13)
    builder.mark(2, 7, 15)
    assert list(builder.draft.data["slots"]) == ["ms_smith", "ms_smith2"]


def test_a_selection_that_spells_a_number_differently_keeps_its_text() -> None:
    builder = Builder("Flag: True")
    builder.mark(0, 6, 10, "flag")
    assert builder.draft.data["slots"]["flag"] == {True: "True"}
    builder.answer("x", ["a"])
    assert builder.preview[0]["prompt"] == "Flag: True"


def test_marking_an_existing_slot_places_it_and_a_lexicon_inserts_one() -> None:
    builder = Builder("Paris or Paris?")
    builder.mark(0, 0, 5, "city")
    builder.mark(2, 4, 9, "city")
    assert builder.draft.data["prompt"] == "{city} or {city}?"
    assert builder.draft.data["slots"] == {"city": ["Paris"]}
    builder.mark(4, 1, 1, lexicon="tones")
    assert builder.draft.data["prompt"] == "{city} or {city}?{tones}"
    assert builder.draft.data["slots"]["tones"] == "tones"


def test_marking_in_a_prompt_version_changes_only_that_version() -> None:
    builder = Builder("Hello Ann")
    builder.versions("tone", ["plain", "polite"])
    builder.version("polite", "Hello dear Ann")
    builder.mark(0, 11, 14, "who", version="polite")
    assert builder.draft.data["prompt"] == {
        "tone": {"plain": "Hello Ann", "polite": "Hello dear {who}"}
    }
    assert [p.text for p in builder.pieces("polite")] == ["Hello dear ", "{who}", ""]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((2, 1, 1), {}, "select some text"),
        ((2, 0, 2, "1x"), {}, "slot name '1x' is not a name"),
        ((2, 0, 2), {"lexicon": "tone"}, "no shipped lexicon 'tone' \\(did you mean 'tones'\\?\\)"),
        ((2, 0, 2, "city"), {"lexicon": "tones"}, "slot 'city' exists"),
        ((2, 0, 2), {"version": "a"}, "the prompt has no versions"),
        ((1, 0, 1), {}, "piece 1 is the slot \\{city\\}"),
    ],
)
def test_mark_says_what_is_wrong(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    builder = Builder("Paris is big")
    builder.mark(0, 0, 5, "city")
    before = builder.draft
    with pytest.raises(SpecError, match=message):
        builder.mark(*args, **kwargs)  # type: ignore[arg-type]
    assert builder.draft == before


def test_remove_turns_a_slot_back_into_its_first_text_everywhere(cities: Builder) -> None:
    cities.edit("system", "About {city}.")
    cities.vary("city.capital", "nominal")
    cities.group("capitals", {"city.capital": True, "city": ["Paris", "Lyon"]})
    cities.remove("city")
    data = cities.draft.data
    assert data["prompt"] == "Is Paris the capital of France? Answer politely, in JSON."
    assert data["system"] == "About Paris."
    assert not {"slots", "vary", "groups"} & set(data)
    assert "correct" not in data["answer"]
    assert cities.draft.complete


def test_remove_fills_each_version_with_its_own_text() -> None:
    builder = Builder("Hi Ann")
    builder.mark(0, 3, 6, "who")
    builder.versions("lang", ["en", "fr"])
    builder.version("fr", "Salut {who}")
    builder.per_version("who")
    builder.rows("who", [{"label": "ann", "text": {"en": "Ann", "fr": "Anne"}}])
    builder.remove("who")
    assert builder.draft.data["prompt"] == {"lang": {"en": "Hi Ann", "fr": "Salut Anne"}}


def test_rename_follows_the_slot_everywhere(cities: Builder) -> None:
    cities.edit("system", "About {city}.")
    cities.vary("city", "nominal")
    cities.group("capitals", {"city.capital": True})
    cities.rename("city", "town")
    data = cities.draft.data
    assert data["prompt"].startswith("Is {town} the capital")
    assert data["system"] == "About {town}."
    assert list(data["slots"]) == ["town"]
    assert data["vary"] == {"town": "nominal"}
    assert data["groups"] == {"capitals": {"town.capital": True}}
    assert data["answer"]["correct"] == {"town.capital": {True: True, False: False}}
    assert cities.draft.complete


@pytest.mark.parametrize(
    ("slot", "name", "message"),
    [
        ("cty", "town", "no slot 'cty' \\(did you mean 'city'\\?\\)"),
        ("city", "my town", "new name 'my town' is not a name"),
        ("city", "city", "'city' is already taken"),
    ],
)
def test_rename_says_what_is_wrong(cities: Builder, slot: str, name: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        cities.rename(slot, name)


def test_versions_copy_the_first_and_keep_existing_texts(cities: Builder) -> None:
    cities.versions("tone", ["neutral", "rude"])
    prompt = cities.draft.data["prompt"]["tone"]
    assert prompt["neutral"] == prompt["rude"]
    cities.version("rude", "Is {city} the capital of France? Quick.")
    cities.vary("tone", "nominal")
    cities.versions("style", ["neutral", "rude", "kind"])
    data = cities.draft.data
    assert data["prompt"]["style"]["rude"].endswith("Quick.")
    assert data["prompt"]["style"]["kind"] == data["prompt"]["style"]["neutral"]
    assert data["vary"] == {"style": "nominal"}
    cities.versions(None)
    assert cities.draft.data["prompt"] == prompt["neutral"]
    assert "vary" not in cities.draft.data
    assert cities.draft.complete


def test_versions_extend_per_version_slot_texts() -> None:
    builder = Builder("Hi Ann")
    builder.mark(0, 3, 6, "who")
    builder.versions("lang", ["en"])
    builder.per_version("who")
    builder.versions("lang", ["en", "fr"])
    assert builder.draft.data["slots"]["who"] == {"Ann": {"en": "Ann", "fr": "Ann"}}
    builder.versions(None)
    assert builder.draft.data["slots"]["who"] == ["Ann"]


@pytest.mark.parametrize(
    ("name", "labels", "message"),
    [
        (None, [], "no versions to undo"),
        ("city", ["a"], "'city' names a slot"),
        ("tone", ["a", "a"], "label 'a' appears twice"),
        ("tone", ["a", ""], "a version label is a non-empty"),
        ("tone", "ab", "labels are a list"),
        ("2tone", ["a"], "versions name '2tone' is not a name"),
    ],
)
def test_versions_say_what_is_wrong(
    cities: Builder, name: str | None, labels: object, message: str
) -> None:
    with pytest.raises(SpecError, match=message):
        cities.versions(name, labels)  # type: ignore[arg-type]


def test_version_says_what_is_wrong(cities: Builder) -> None:
    with pytest.raises(SpecError, match="the prompt has no versions"):
        cities.version("a", "text")
    cities.versions("tone", ["a", "b"])
    with pytest.raises(SpecError, match="no prompt version 'c'; versions: \\['a', 'b'\\]"):
        cities.version("c", "text")
    with pytest.raises(SpecError, match=r"prompt version 'a': .*literal braces"):
        cities.version("a", "text {")


def test_edit_sets_and_clears_top_level_fields(cities: Builder) -> None:
    cities.edit("description", "Capitals.")
    cities.edit("cases", 2)
    cities.edit("version", 3)
    cities.edit("seed", 7)
    cities.edit("repetitions", 2)
    data = cities.draft.data
    assert (data["description"], data["cases"], data["version"], data["seed"]) == (
        "Capitals.",
        2,
        "3",
        7,
    )
    assert list(data) == [
        "name",
        "version",
        "description",
        "prompt",
        "slots",
        "answer",
        "cases",
        "repetitions",
        "seed",
    ]
    cities.edit("cases", None)
    assert "cases" not in cities.draft.data
    cities.edit("prompt", "Is {city} a capital? Reply in JSON.")
    assert cities.spec.prompt == "Is {city} a capital? Reply in JSON."
    cities.edit("vary", {"city": "nominal"})
    assert cities.spec.vary["city"].scale == "nominal"


def test_edit_of_the_prompt_sets_the_first_version(cities: Builder) -> None:
    cities.versions("tone", ["a", "b"])
    cities.edit("prompt", "Is {city} big?")
    assert cities.draft.data["prompt"]["tone"]["a"] == "Is {city} big?"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("nam", "x", "unknown field \\(did you mean 'name'\\?\\)"),
        ("name", " ", "must be a non-empty text, not ' '"),
        ("cases", 0, "must be a whole number of at least 1, not 0"),
        ("seed", True, "must be a whole number of at least 0"),
        ("system", "{", "system: .*literal braces"),
        ("prompt", 3, "must be a text, not int 3"),
        ("version", [1], "must be a short text, such as 2 or 1.1, not \\[1\\]"),
        ("system", 3, "edit system: must be a text, not 3"),
        ("vary", 3, "give the vary as a spec writes them"),
    ],
)
def test_edit_says_what_is_wrong(cities: Builder, key: str, value: object, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        cities.edit(key, value)  # type: ignore[arg-type]


def test_a_cleared_name_or_prompt_is_missing_from_the_draft(cities: Builder) -> None:
    cities.edit("name", None)
    assert cities.draft.problems[0].startswith("name: every spec needs a name")
    with pytest.raises(SpecError, match="name: every spec needs a name"):
        _ = cities.spec
    cities.undo()
    cities.edit("prompt", None)
    with pytest.raises(SpecError, match="the prompt is missing"):
        cities.mark(0, 0, 1)


def test_instruct_writes_the_reply_format_and_replaces_an_earlier_one(cities: Builder) -> None:
    cities.edit("system", "You check facts.")
    cities.instruct()
    expected = (
        'You check facts. Reply with a JSON object of the form {{"capital": true}} or '
        '{{"capital": false}}, and nothing else.'
    )
    assert cities.draft.data["system"] == expected
    cities.answer("verdict", ["yes", "no", "unsure"])
    cities.instruct()
    assert cities.draft.data["system"] == (
        'You check facts. Reply with a JSON object of the form {{"verdict": "yes"}}, '
        '{{"verdict": "no"}} or {{"verdict": "unsure"}}, and nothing else.'
    )
    assert cities.spec.scenario().example().count('{"verdict": "yes"}') == 1


def test_instruct_needs_a_json_answer() -> None:
    builder = Builder("Hi")
    with pytest.raises(SpecError, match="set it first with answer"):
        builder.instruct()
    builder.answer(None, ["a"], pattern="(a)")
    with pytest.raises(SpecError, match="not read from a JSON field"):
        builder.instruct()


def test_undo_takes_back_each_change_and_then_refuses(cities: Builder) -> None:
    fresh = Builder("Is Paris the capital of France? Answer politely, in JSON.", name="capitals")
    for _ in range(3):
        cities.undo()
    assert cities.draft == fresh.draft
    with pytest.raises(ModelscapeError, match="nothing to take back"):
        cities.undo()
