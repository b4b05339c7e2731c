"""The shipped lexicons: they load, keep the conventions templates rely on, and pair names."""

from __future__ import annotations

from collections import Counter
from importlib import resources

import pytest

from modelscape import lexicons
from modelscape.errors import TemplateError
from modelscape.templates.lexicon import Lexicon

_SHIPPED = ("injections", "names", "pressure", "roles", "tones")
_SENTENCES = ("injections", "pressure", "roles", "tones")


def test_available_lists_the_data_files() -> None:
    assert lexicons.available() == _SHIPPED


@pytest.mark.parametrize("name", _SHIPPED)
def test_every_shipped_lexicon_loads_in_rows_form(name: str) -> None:
    lexicon = lexicons.get(name)
    assert isinstance(lexicon, Lexicon)
    assert len(set(lexicon.labels)) == len(lexicon)
    assert lexicon.properties
    assert not lexicon.versioned
    for entry in lexicon:
        assert isinstance(entry.text, str)
        assert entry.text == entry.text.strip(), entry.label
        assert "\n" not in entry.text, entry.label


@pytest.mark.parametrize("name", _SHIPPED)
def test_data_files_start_with_a_comment(name: str) -> None:
    text = (resources.files("modelscape.lexicons") / "data" / f"{name}.yaml").read_text("utf-8")
    assert text.startswith(f"# {name}: ")


def test_get_is_cached() -> None:
    assert lexicons.get("names") is lexicons.get("names")


def test_unknown_name_suggests_the_nearest() -> None:
    with pytest.raises(
        TemplateError, match=r"no shipped lexicon called 'name'; did you mean 'names'.*injections"
    ):
        lexicons.get("name")
    with pytest.raises(TemplateError, match="the shipped lexicons are injections, names"):
        lexicons.get("zzz")


@pytest.mark.parametrize("name", _SENTENCES)
def test_sentence_lexicons_start_empty_then_hold_sentences(name: str) -> None:
    lexicon = lexicons.get(name)
    first, *rest = lexicon.entries
    assert first.text == ""
    assert rest
    for entry in rest:
        assert entry.text, entry.label
        assert entry.text[0].isupper() or entry.text[0] in "[=", entry.label
        assert entry.text[-1] in ".?!", entry.label
        assert isinstance(entry.label, str)
        assert entry.label == entry.label.lower()
        assert " " not in entry.label


def test_pressure_levels_rise_from_zero() -> None:
    pressure = lexicons.get("pressure")
    assert pressure.labels[0] == "none"
    assert [entry.properties["level"] for entry in pressure] == list(range(len(pressure)))
    assert pressure.properties == ("level", "kind")


def test_every_injection_asks_for_the_canary() -> None:
    injections = lexicons.get("injections")
    assert injections.labels[0] == "none"
    assert injections.entries[0].properties["technique"] == "none"
    for entry in injections.entries[1:]:
        # the encoded entry carries the canary in base64
        assert "HACKED" in entry.text or entry.properties["technique"] == "obfuscation"
    assert len(injections.values("technique")) >= 6


def test_tones_start_neutral() -> None:
    tones = lexicons.get("tones")
    assert tones.entries[0].label == "neutral"
    assert tones.entries[0].properties == {"tone": "neutral", "politeness": 0}
    assert set(tones.values("tone")) == {"neutral", "positive", "negative"}


def test_roles_start_with_no_role() -> None:
    roles = lexicons.get("roles")
    assert roles.labels[0] == "none"
    assert all(str(entry.text).startswith("You are ") for entry in roles.entries[1:])


# -- names ----------------------------------------------------------------------------------


def test_names_has_five_per_gender_and_region() -> None:
    names = lexicons.get("names")
    assert len(names) == 70
    assert names.properties == ("gender", "region")
    assert names.values("gender") == ("female", "male")
    assert len(names.values("region")) == 7
    groups = Counter((entry.properties["gender"], entry.properties["region"]) for entry in names)
    assert set(groups.values()) == {5}
    assert len(groups) == 14


def test_names_are_full_names_written_as_their_text() -> None:
    for entry in lexicons.get("names"):
        assert isinstance(entry.label, str)
        assert entry.text == entry.label
        assert len(entry.label.split()) >= 2, entry.label
        assert entry.label.isascii(), entry.label


def test_gender_swaps_pair_every_name_and_back() -> None:
    names = lexicons.get("names")
    seen = set()
    for entry in names:
        other = "male" if entry.properties["gender"] == "female" else "female"
        swapped = names.swap(entry, "gender", other)
        assert swapped.properties == {**entry.properties, "gender": other}
        assert names.swap(swapped, "gender", str(entry.properties["gender"])) == entry
        # the pair shares its family name, so a swap changes the given name only
        assert str(entry.label).split(" ", 1)[1] == str(swapped.label).split(" ", 1)[1]
        seen.add(swapped.label)
    assert len(seen) == 70


def test_region_swaps_pair_every_name_and_back() -> None:
    names = lexicons.get("names")
    regions = names.values("region")
    for entry in names:
        for region in regions:
            swapped = names.swap(entry, "region", region)
            assert swapped.properties == {**entry.properties, "region": region}
            assert names.swap(swapped, "region", str(entry.properties["region"])) == entry
    for region in regions:
        images = {names.swap(entry, "region", region).label for entry in names}
        assert len(images) == 10
