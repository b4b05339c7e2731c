"""Lexicon and Entry: every form `of` takes, the checks, the shortest form, values and swaps."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from modelscape._identity import AxisValue
from modelscape.errors import TemplateError
from modelscape.templates.lexicon import Cell, Entry, Lexicon

# -- the four forms -------------------------------------------------------------------------


def test_values_spell_out_their_text() -> None:
    lexicon = Lexicon.of([1, 3, 2.5])
    assert lexicon.labels == (1, 3, 2.5)
    assert [entry.text for entry in lexicon] == ["1", "3", "2.5"]
    assert lexicon.properties == ()
    assert not lexicon.versioned
    assert lexicon.versions == ()


def test_booleans_are_spelled_as_yaml_writes_them() -> None:
    lexicon = Lexicon.of([True, False])
    assert [entry.text for entry in lexicon] == ["true", "false"]
    assert lexicon.labels == (True, False)


def test_mapping_of_labels_to_texts() -> None:
    lexicon = Lexicon.of({"short": "Be brief.", "long": "Explain in detail."})
    assert lexicon.labels == ("short", "long")
    assert lexicon.entry("long").text == "Explain in detail."


def test_mapping_of_labels_to_versioned_texts() -> None:
    lexicon = Lexicon.of({"cat": {"en": "cat", "fr": "chat"}, "dog": {"fr": "chien", "en": "dog"}})
    assert lexicon.versioned
    assert lexicon.versions == ("en", "fr")
    assert lexicon.entry("dog").text_in("fr") == "chien"


def test_rows_with_label_text_or_both() -> None:
    lexicon = Lexicon.of(
        [
            {"label": "a", "text": "Alpha", "size": 1},
            {"label": "b", "size": 2},
            {"text": "Gamma", "size": None},
        ]
    )
    assert lexicon.labels == ("a", "b", "Gamma")
    assert [entry.text for entry in lexicon] == ["Alpha", "b", "Gamma"]
    assert lexicon.properties == ("size",)
    assert lexicon.entry("Gamma").properties == {"size": None}


def test_row_with_numeric_label_spells_it_out() -> None:
    lexicon = Lexicon.of([{"label": 3, "odd": True}, {"label": 4, "odd": False}])
    assert lexicon.entry(3).text == "3"


def test_rows_may_be_entries() -> None:
    entry = Entry(label="x", text="X", properties={"p": 1})
    assert Lexicon.of([entry, {"label": "y", "p": 2}]).entries[0] is entry


def test_a_lexicon_is_returned_as_is() -> None:
    lexicon = Lexicon.of(["a"])
    assert Lexicon.of(lexicon) is lexicon


def test_len_and_iteration_are_over_entries() -> None:
    lexicon = Lexicon.of(["a", "b"])
    assert len(lexicon) == 2
    assert [entry.label for entry in lexicon] == ["a", "b"]


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([], "at least one entry"),
        ("abc", "not str 'abc'"),
        ({1, 2}, "not set"),
        ([None], "item 0 must be a string, number or boolean, not NoneType"),
        ([1.0, math.inf], "item 1 must be a finite number"),
        (["a", {"label": "b"}], "item 1 .* is a row but item 0 is a value"),
        (["a", "a"], "label 'a' appears twice \\(entries 0 and 1\\)"),
        ([1, 1.0], "label 1.0 appears twice"),
        ([True, 1], "labels mix kinds: True is a boolean but entry 1 1 is a number"),
        (["1", 2], "labels mix kinds"),
        ([""], "must not be empty"),
        ({"a": 1}, "key 'a': a text must be a string or a mapping"),
        ({"a": {"en": 1}}, "key 'a': the text for version 'en' must be a string"),
        ({"a": {}}, "entry 'a' has an empty mapping of versions"),
        ({"a": {"en": "A"}, "b": "B"}, "entry 'a' has one text per version but entry 'b'"),
        ({"a": {"en": "A"}, "b": {"fr": "B"}}, "entry 'b' has versions 'fr' but entry 'a'"),
        ({"a": {"en": "A", 1: "B"}}, "entry 'a' mixes number and string versions"),
        ([{"size": 1}], "row 0 has neither a label nor a text"),
        ([{"label": "a", "p": 1}, {"label": "b"}], "row 1 lacks \\['p'\\]"),
        ([{"label": "a"}, {"label": "b", "p": 1}], "row 1 has properties \\['p'\\]"),
        ([{"label": "a", 1: "x"}], "row 0: property names must be strings"),
        ([{"label": "a", "p": [1]}], "row 0: property 'p' must be a string"),
        ([{"label": "a", "p.q": 1}], "property named 'p.q'"),
        ([{"text": {"en": "A"}}], "row 0 has one text per version but no label"),
        (
            [{"label": "a", "p": 1}, {"label": "b", "p": "x"}],
            "property 'p' mixes number and string values \\('a' has 1; 'b' has 'x'\\)",
        ),
        ([{"label": "a", "p": True}, {"label": "b", "p": 0}], "property 'p' mixes boolean"),
    ],
)
def test_invalid_lexicons_say_what_is_wrong(values: Any, message: str) -> None:
    with pytest.raises(TemplateError, match=message):
        Lexicon.of(values)


def test_empty_lexicon_model_is_rejected() -> None:
    with pytest.raises(TemplateError, match="at least one entry"):
        Lexicon(entries=())


def test_none_property_values_do_not_fix_the_kind() -> None:
    lexicon = Lexicon.of([{"label": "a", "p": None}, {"label": "b", "p": "x"}])
    assert lexicon.values("p") == ("x",)


# -- versions -------------------------------------------------------------------------------


def test_versioned_entry_needs_a_known_version() -> None:
    entry = Entry(label="cat", text={"en": "cat", "fr": "chat"})
    assert entry.text_in("en") == "cat"
    with pytest.raises(
        TemplateError, match=r"entry 'cat' has no text for version 'de'.*'en', 'fr'"
    ):
        entry.text_in("de")
    with pytest.raises(TemplateError, match=r"entry 'cat' has one text per version.*name the"):
        entry.text_in(None)


def test_version_keys_compare_by_kind() -> None:
    entry = Entry(label="x", text={1: "one", 2: "two"})
    assert entry.text_in(1) == "one"
    with pytest.raises(TemplateError, match="no text for version True"):
        entry.text_in(True)


def test_plain_entry_has_one_text_for_every_version() -> None:
    entry = Entry(label="x", text="X")
    assert entry.text_in(None) == entry.text_in("fr") == "X"


# -- load -----------------------------------------------------------------------------------


def test_load_reads_any_form(tmp_path: Path) -> None:
    path = tmp_path / "levels.yaml"
    path.write_text("- {label: low, level: 1}\n- {label: high, level: 2}\n", encoding="utf-8")
    lexicon = Lexicon.load(path)
    assert lexicon.values("level") == (1, 2)
    path.write_text("[a, b, 'true']\n", encoding="utf-8")
    assert Lexicon.load(str(path)).labels == ("a", "b", "true")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "the file is empty"),
        ("[a, [b\n", "not valid YAML"),
        ("- 2024-01-01\n", "item 0 must be .* not date .*quote it"),
        ("- {label: a}\n- {label: a}\n", "label 'a' appears twice"),
    ],
)
def test_load_errors_name_the_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(TemplateError, match=f"^{re.escape(str(path))}: .*{message}"):
        Lexicon.load(path)


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match=r"missing\.yaml: cannot read lexicon"):
        Lexicon.load(tmp_path / "missing.yaml")


# -- the shortest form ----------------------------------------------------------------------


def test_data_is_values_when_texts_are_spelled_labels() -> None:
    assert Lexicon.of([1, 2]).data() == [1, 2]
    assert Lexicon.of({"a": "a", "b": "b"}).data() == ["a", "b"]


def test_data_is_a_mapping_without_properties() -> None:
    assert Lexicon.of({"a": "Alpha", "b": "b"}).data() == {"a": "Alpha", "b": "b"}
    versioned = {"a": {"en": "A", "fr": "À"}}
    assert Lexicon.of(versioned).data() == versioned


def test_data_is_rows_with_properties_leaving_out_spelled_texts() -> None:
    lexicon = Lexicon.of([{"label": "a", "p": 1}, {"label": "b", "text": "Bee", "p": None}])
    assert lexicon.data() == [{"label": "a", "p": 1}, {"label": "b", "text": "Bee", "p": None}]


def test_data_is_a_copy() -> None:
    lexicon = Lexicon.of({"a": {"en": "A"}})
    data = lexicon.data()
    assert isinstance(data, dict)
    data["a"] = "changed"
    assert lexicon.entry("a").text == {"en": "A"}


_words = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=8).filter(
    lambda word: word.strip() == word and word != ""
)
_finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
_scalars: dict[str, st.SearchStrategy[AxisValue]] = {
    "string": _words,
    "integer": st.integers(-(10**12), 10**12),
    "number": st.one_of(st.integers(-1000, 1000), _finite),
    "boolean": st.booleans(),
}
_kinds = st.sampled_from(sorted(_scalars))
_names = _words.filter(lambda name: name not in ("label", "text") and "." not in name)


@st.composite
def lexicons(draw: st.DrawFn) -> Lexicon:
    """Any valid lexicon: labels of one kind, properties of one kind each, texts plain or
    versioned, some texts equal to the spelled label."""
    labels: list[AxisValue] = draw(
        _kinds.flatmap(
            lambda kind: st.lists(
                _scalars[kind],
                min_size=1,
                max_size=6,
                unique_by=lambda value: value + 0.0 if not isinstance(value, str) else value,
            )
        )
    )
    properties = draw(st.lists(st.tuples(_names, _kinds), max_size=3, unique_by=lambda p: p[0]))
    versions: list[AxisValue] | None = draw(
        st.none() | _kinds.flatmap(lambda kind: st.lists(_scalars[kind], min_size=1, max_size=3))
    )
    entries = []
    for label in labels:
        spelled = Lexicon.of([label]).entries[0].text
        text: str | dict[AxisValue, str]
        if versions is None:
            text = draw(st.just(spelled) | st.text(max_size=10).filter(_yaml_safe))
        else:
            text = {version: draw(st.text(max_size=10).filter(_yaml_safe)) for version in versions}
        cells: dict[str, Cell] = {
            name: draw(st.none() | _scalars[kind]) for name, kind in properties
        }
        entries.append(Entry(label=label, text=text, properties=cells))
    return Lexicon(entries=tuple(entries))


def _yaml_safe(text: str) -> bool:
    return all(ch.isprintable() or ch in " \n" for ch in text) and "\ufeff" not in text


@given(lexicons())
def test_data_reads_back_to_the_same_lexicon(lexicon: Lexicon) -> None:
    assert Lexicon.of(lexicon.data()) == lexicon


@given(lexicons())
def test_data_survives_yaml(lexicon: Lexicon) -> None:
    # sort_keys=False: the order of a mapping is the order of the entries.
    text = yaml.safe_dump(lexicon.data(), allow_unicode=True, sort_keys=False)
    assert Lexicon.of(yaml.safe_load(text)) == lexicon


@given(lexicons())
def test_swap_to_own_value_is_identity(lexicon: Lexicon) -> None:
    for entry in lexicon:
        for name in lexicon.properties:
            value = entry.properties[name]
            if value is not None:
                assert lexicon.swap(entry, name, value) is entry


# -- values, entry, swap --------------------------------------------------------------------

_PEOPLE = Lexicon.of(
    [
        {"label": "Ann", "gender": "female", "region": "north"},
        {"label": "Bob", "gender": "male", "region": "north"},
        {"label": "Cleo", "gender": "female", "region": "north"},
        {"label": "Dan", "gender": "male", "region": "north"},
        {"label": "Eva", "gender": "female", "region": "south"},
        {"label": "Finn", "gender": "male", "region": "south"},
        {"label": "Gia", "gender": "female", "region": "south"},
        {"label": "Hal", "gender": "male", "region": "south"},
        {"label": "Ida", "gender": "female", "region": "south"},
    ]
)


def test_values_in_order_of_first_appearance() -> None:
    assert _PEOPLE.values() == _PEOPLE.labels
    assert _PEOPLE.values("region") == ("north", "south")
    assert _PEOPLE.values("gender") == ("female", "male")


def test_values_of_unknown_property_lists_the_known_ones() -> None:
    with pytest.raises(TemplateError, match="no property 'age'; the properties are 'gender', 're"):
        _PEOPLE.values("age")


def test_entry_lookup_suggests_near_labels() -> None:
    assert _PEOPLE.entry("Bob").label == "Bob"
    with pytest.raises(TemplateError, match="no entry labelled 'Bobb'; did you mean 'Bob'"):
        _PEOPLE.entry("Bobb")
    with pytest.raises(TemplateError, match="no entry labelled 'zzz'; the labels are 'Ann'"):
        _PEOPLE.entry("zzz")


def test_entry_lookup_compares_by_kind() -> None:
    lexicon = Lexicon.of([1, 2])
    assert lexicon.entry(1).label == 1
    with pytest.raises(TemplateError, match="no entry labelled True"):
        lexicon.entry(True)


@pytest.mark.parametrize(
    ("label", "property", "value", "expected"),
    [
        ("Ann", "gender", "male", "Bob"),
        ("Cleo", "gender", "male", "Dan"),
        ("Dan", "gender", "female", "Cleo"),
        ("Ann", "region", "south", "Eva"),
        ("Dan", "region", "south", "Hal"),
        ("Gia", "region", "north", "Cleo"),
        ("Ann", "gender", "female", "Ann"),
    ],
)
def test_swap_keeps_rank_and_other_properties(
    label: str, property: str, value: str, expected: str
) -> None:
    assert _PEOPLE.swap(_PEOPLE.entry(label), property, value).label == expected


def test_swap_without_counterpart_says_how_many_there_are() -> None:
    with pytest.raises(
        TemplateError,
        match="entry 'Ida' has no counterpart with gender='male': it is number 3 of its group, "
        "but only 2 entries have gender='male' and \\{'region': 'south'\\}",
    ):
        _PEOPLE.swap(_PEOPLE.entry("Ida"), "gender", "male")


def test_swap_to_unknown_value_lists_the_values() -> None:
    with pytest.raises(TemplateError, match="no entry has that value; the values of 'region'"):
        _PEOPLE.swap(_PEOPLE.entry("Ann"), "region", "east")


def test_swap_of_a_foreign_entry_or_property_fails() -> None:
    with pytest.raises(TemplateError, match="entry 'Zoe' is not in this lexicon"):
        _PEOPLE.swap(
            Entry(label="Zoe", text="Zoe", properties={"gender": "f", "region": "n"}),
            "gender",
            "male",
        )
    with pytest.raises(TemplateError, match="no property 'age'"):
        _PEOPLE.swap(_PEOPLE.entry("Ann"), "age", 3)


def test_swap_matches_property_values_by_kind() -> None:
    lexicon = Lexicon.of([{"label": "a", "p": 1}, {"label": "b", "p": 2}])
    assert lexicon.swap(lexicon.entry("a"), "p", 2).label == "b"
    with pytest.raises(TemplateError, match="no entry has that value"):
        lexicon.swap(lexicon.entry("a"), "p", True)
