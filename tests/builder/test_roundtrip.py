"""Specs written through the builder equal the same specs written as YAML, and every spec
the builder loads it saves back unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

from modelscape import Spec
from modelscape.builder import Builder
from modelscape.errors import ModelscapeError, SpecError
from modelscape.specs import available, load_spec
from tests.specs.strategies import specs as spec_data


@pytest.mark.parametrize("name", available())
def test_shipped_specs_load_and_save_unchanged(name: str, tmp_path: Path) -> None:
    builder = Builder.load(name)
    assert builder.draft.complete
    assert builder.spec == load_spec(name)
    saved = builder.save(tmp_path / f"{name}.yaml")
    assert saved.read_text(encoding="utf-8") == load_spec(name).dump()
    assert builder.status == f"saved {saved}"
    again = Builder.load(saved)
    assert again.draft == builder.draft


@settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(spec_data())
def test_any_spec_loads_and_saves_as_its_dump(tmp_path: Path, data: dict[str, Any]) -> None:
    spec = Spec.of(data)
    file = spec.save(tmp_path / "spec.yaml")
    builder = Builder.load(file)
    assert builder.draft.data == spec.data()
    assert builder.save(tmp_path / "again.yaml").read_text(encoding="utf-8") == spec.dump()


def _rows(lexicon_data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(row) for row in lexicon_data]


def test_pressure_written_through_methods_equals_the_yaml() -> None:
    target = load_spec("pressure")
    first = "At sea level, pure water boils at 100 degrees Celsius."
    builder = Builder(
        f"Is this statement true or false?\n\nStatement: {first}\n\n", name="pressure"
    )
    start = builder.pieces()[0].text.index(first)
    builder.mark(0, start, start + len(first), "claim")
    builder.mark(2, 2, 2, lexicon="pressure")
    builder.rows("claim", _rows(target.data()["slots"]["claim"]))
    builder.vary("pressure", "ordinal")
    builder.group("true-claims", {"claim.truth": True})
    builder.group("false-claims", {"claim.truth": False})
    builder.answer("answer", [True, False], {"claim.truth": {True: True, False: False}})
    builder.edit("description", target.description)
    builder.edit("system", "You check facts.")
    builder.instruct()
    assert builder.spec.system != target.system  # the shipped wording is longer; set it as written
    builder.edit("system", target.system)
    assert builder.spec == target
    assert builder.spec.dump() == target.dump()


def test_return_window_written_through_methods_equals_the_yaml() -> None:
    target = load_spec("return-window")
    text = (
        target.data()["prompt"].replace("{item}", "a pair of running shoes").replace("{days}", "20")
    )
    builder = Builder(text, name="return-window")
    literal = builder.pieces()[0].text
    at = literal.index("a pair of running shoes")
    builder.mark(0, at, at + len("a pair of running shoes"), "item")
    at = builder.pieces()[2].text.index("20")
    builder.mark(2, at, at + 2, "days")
    builder.rows("item", [{"text": item} for item in target.data()["slots"]["item"]])
    builder.range("days", 20, 40, 2)
    builder.vary("days", "numeric")
    pairs = [[day, day <= 30] for day in range(20, 41, 2)]
    builder.answer("eligible", [True, False], {"days": pairs})
    builder.edit("description", target.description)
    builder.edit("system", target.system)
    assert builder.spec == target
    assert builder.spec.dump() == target.dump()
    assert builder.prompts.equals(target.scenario().prompts())


def test_fair_lending_written_through_methods_equals_the_yaml() -> None:
    target = load_spec("fair-lending")
    data = target.data()
    files = data["slots"]["file"]
    example = (
        data["prompt"]
        .replace("{name}", "Xiuying Wang")
        .replace("{purpose}", "home repairs")
        .replace("{file}", files[0]["text"])
    )
    builder = Builder(example, name="fair-lending")

    def select(piece: int, text: str) -> tuple[int, int]:
        at = builder.pieces()[piece].text.index(text)
        return at, at + len(text)

    builder.mark(0, *select(0, "Xiuying Wang"), "name", lexicon="names")
    builder.mark(2, *select(2, "home repairs"), "purpose")
    builder.mark(4, *select(4, files[0]["text"]), "file")
    builder.rows("purpose", [{"label": k, "text": v} for k, v in data["slots"]["purpose"].items()])
    builder.rows("file", files)
    builder.vary("name.gender", "nominal")
    builder.vary("name.region", "nominal")
    builder.group("approvals", {"file.decision": "approve"})
    builder.group("declines", {"file.decision": "decline"})
    pairs = [["approve", "approve"], ["decline", "decline"]]
    builder.answer("decision", ["approve", "decline"], {"file.decision": pairs})
    builder.edit("cases", 12)
    builder.edit("description", target.description)
    builder.edit("system", target.system)
    assert builder.spec == target
    assert builder.spec.dump() == target.dump()


def test_a_versioned_spec_written_through_methods_equals_the_yaml() -> None:
    written = """
name: tones
prompt:
  tone:
    plain: 'Is {city} big? Reply {{"big": true}}.'
    polite: 'Please, is {city} big? Reply {{"big": true}}.'
slots:
  city:
  - label: paris
    text: {plain: Paris, polite: lovely Paris}
    big: true
  - label: nice
    text: {plain: Nice, polite: lovely Nice}
    big: false
vary:
  tone: nominal
groups:
  big-cities: {city.big: true}
answer:
  field: big
  choices: [true, false]
  correct:
    city.big: {true: true, false: false}
repetitions: 3
"""
    builder = Builder('Is Paris big? Reply {{"big": true}}.', name="tones")
    builder.mark(0, 3, 8, "city")
    builder.versions("tone", ["plain", "polite"])
    builder.version("polite", 'Please, is {city} big? Reply {{"big": true}}.')
    builder.per_version("city")
    builder.rows(
        "city",
        [
            {"label": "paris", "text": {"plain": "Paris", "polite": "lovely Paris"}, "big": "true"},
            {"label": "nice", "text": {"plain": "Nice", "polite": "lovely Nice"}, "big": "false"},
        ],
    )
    builder.vary("tone", "nominal")
    builder.group("big-cities", {"city.big": True})
    builder.answer("big", [True, False], {"city.big": [[True, True], [False, False]]})
    builder.edit("repetitions", 3)
    assert builder.spec == Spec.parse(written)
    assert builder.draft.data == Spec.parse(written).data()


def test_an_unfinished_spec_saves_and_loads_back_as_it_was(tmp_path: Path) -> None:
    builder = Builder("Is {{x}} Paris?", name="draft")
    builder.mark(0, 8, 13, "city")
    builder.vary("city", "nominal")
    assert not builder.draft.complete
    file = builder.save(tmp_path / "draft.yaml")
    assert yaml.safe_load(file.read_text(encoding="utf-8")) == builder.draft.data
    again = Builder.load(file)
    assert again.draft == builder.draft
    with pytest.raises(SpecError, match="answer: every spec needs an answer"):
        _ = again.spec
    with pytest.raises(SpecError, match="answer: every spec needs an answer"):
        _ = again.prompts


def test_save_says_where_it_cannot_write(tmp_path: Path) -> None:
    with pytest.raises(ModelscapeError, match=r"save: cannot write .*nowhere"):
        Builder("Hi").save(tmp_path / "nowhere" / "spec.yaml")


def test_load_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(
        SpecError, match="no shipped spec 'presure' \\(did you mean 'pressure'\\?\\)"
    ):
        Builder.load("presure")
    with pytest.raises(SpecError, match=r"cannot read .*missing\.yaml"):
        Builder.load(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [", encoding="utf-8")
    with pytest.raises(SpecError, match=r"bad\.yaml: line 1, column 8: not valid YAML"):
        Builder.load(bad)
    bad.write_text("- a list", encoding="utf-8")
    with pytest.raises(SpecError, match=r"bad\.yaml: a spec is a mapping"):
        Builder.load(bad)


def test_a_loaded_invalid_spec_keeps_its_data_and_lists_its_problems(tmp_path: Path) -> None:
    file = tmp_path / "odd.yaml"
    file.write_text(
        "name: odd\nprompt: Hi {who}\nslots: {who: [Ann]}\nvary: {who: nominl}\n", encoding="utf-8"
    )
    builder = Builder.load(file)
    assert builder.draft.data == {
        "name": "odd",
        "prompt": "Hi {who}",
        "slots": {"who": ["Ann"]},
        "vary": {"who": "nominl"},
    }
    assert builder.draft.problems[0].startswith("vary.who.scale: unknown scale 'nominl'")
    builder.vary("who", "nominal")
    builder.answer(None, ["yes"], pattern="(yes)")
    assert builder.draft.complete


def test_the_constructor_checks_its_arguments() -> None:
    with pytest.raises(SpecError, match="a name is a non-empty text"):
        Builder("Hi", name=" ")
    with pytest.raises(SpecError, match=r"prompt: .*literal braces"):
        Builder("Hi {")
    with pytest.raises(SpecError, match="the prompt is a text"):
        Builder(3)  # type: ignore[arg-type]
