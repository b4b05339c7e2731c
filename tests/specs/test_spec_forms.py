"""Specs: every form the reference lists, read, written back, and built into a scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modelscape import Lexicon, Scenario, Spec, Template, lexicons
from modelscape.errors import SpecError
from modelscape.specs import AnswerSpec, Range, Varied

DEMO = Path(__file__).with_name("demo.yaml")


def _spec(**fields: Any) -> Spec:
    data: dict[str, Any] = {
        "name": "check",
        "prompt": "Is {n} prime?",
        "slots": {"n": [2, 3, 4]},
        "answer": {"field": "prime", "choices": [True, False]},
    }
    data.update(fields)
    return Spec.of(data)


def test_a_minimal_spec_takes_defaults() -> None:
    spec = _spec()
    assert spec.version == "1"
    assert spec.description == ""
    assert spec.system is None
    assert spec.vary == {}
    assert spec.groups == {}
    assert spec.cases is None
    assert spec.repetitions == 5
    assert spec.seed == 0
    assert spec.answer == AnswerSpec(field="prime", choices=(True, False))
    assert Spec.of(spec) is spec


def test_every_form_in_one_spec() -> None:
    spec = Spec.load(DEMO)
    assert spec.name == "demo"
    assert spec.version == "2"  # a number in YAML, a text in the spec
    assert isinstance(spec.prompt, dict)
    assert list(spec.prompt["tone"]) == ["plain", "warm"]
    assert spec.lexicon("who") == lexicons.get("names")
    assert spec.lexicon("role").labels == ("judge", "teacher")
    assert spec.lexicon("n").labels == (2, 3, 4, 5, 6)
    style = spec.lexicon("style")
    assert style.properties == ("length",)
    assert style.versioned
    assert style.entry("long").text_in("warm") == "Please be long."
    assert spec.vary == {
        "tone": Varied(scale="nominal"),
        "n": Varied(scale="numeric", values=(2, 3, 4), baseline=3),
    }
    assert spec.groups == {
        "women": {"who.gender": "female"},
        "some": {"n": (2, 3), "role": "judge"},
    }
    assert spec.answer.pattern == r"\b(yes|no)\b"
    assert spec.answer.choices == ("yes", "no")  # YAML 1.2: yes and no stay text
    assert spec.answer.correct == ({"n": (2, 3, 5), "answer": "yes"}, {"n": (4, 6), "answer": "no"})
    assert (spec.cases, spec.repetitions, spec.seed) == (4, 2, 3)


def test_the_demo_builds_a_template_and_a_scenario() -> None:
    spec = Spec.load(DEMO)
    template = spec.template()
    assert isinstance(template, Template)
    assert template.name == "demo"
    assert template.version == "2"
    assert template.versions_attribute == "tone"
    assert "who.gender" in template.attributes
    scenario = spec.scenario()
    assert isinstance(scenario, Scenario)
    assert len(scenario.task_space.cases) == 4
    assert scenario.repetitions == 2
    assert scenario.seed == 3
    assert [axis.name for axis in scenario.task_space.axes] == ["tone", "n"]
    assert scenario.task_space.axis("n").baseline == 3
    assert scenario.roles() == {"tone": "invariant", "n": "causal"}
    answers = {v.coordinate["n"]: v.reference for v in scenario.variants()}
    assert answers == {2: "yes", 3: "yes", 4: "no"}
    variant = next(scenario.variants())
    assert variant.prompt.system is not None
    assert variant.prompt.system.startswith('Reply in JSON {"answer": "..."}; you are ')
    assert set(scenario.groups) == {"women", "some"}


def test_slots_as_lexicon_name_list_mapping_rows_and_range() -> None:
    spec = _spec(
        prompt="{a} {b} {c} {d} {e}",
        slots={
            "a": "tones",
            "b": ["x", "y"],
            "c": {"k": "Kay", "l": "Ell"},
            "d": [{"label": "p", "text": "Pee", "rank": 1}, {"text": "Queue", "rank": 2}],
            "e": {"start": 0.5, "stop": 1.5, "step": 0.25},
        },
    )
    assert spec.lexicon("a") == lexicons.get("tones")
    assert spec.lexicon("b") == Lexicon.of(["x", "y"])
    assert spec.lexicon("c").entry("l").text == "Ell"
    assert spec.lexicon("d").labels == ("p", "Queue")
    assert spec.lexicon("d").values("rank") == (1, 2)
    assert spec.lexicon("e").labels == (0.5, 0.75, 1.0, 1.25, 1.5)


def test_range_forms() -> None:
    assert Range(start=20, stop=40, step=5).numbers() == (20, 25, 30, 35, 40)
    assert Range(start=0, stop=10, step=4).numbers() == (0, 4, 8)  # stop only when on a step
    assert Range(start=0.1, stop=0.3, step=0.1).numbers() == (0.1, 0.2, 0.3)
    assert Range(start=1, stop=1, step=1).numbers() == (1,)
    with pytest.raises(SpecError, match="a range needs a positive step, not 0"):
        Range(start=0, stop=1, step=0)
    with pytest.raises(SpecError, match=r"a range needs stop >= start, got 5..1"):
        Range(start=5, stop=1, step=1)
    with pytest.raises(SpecError, match="more than 10,000 values"):
        Range(start=0, stop=100_000, step=1)


def test_vary_as_scale_or_varied() -> None:
    spec = _spec(vary={"n": {"scale": "ordinal", "values": [4, 2], "baseline": 2}})
    axis = spec.scenario().task_space.axis("n")
    assert axis.values == (4, 2)
    assert axis.baseline == 2
    assert axis.scale == "ordinal"
    default = _spec(vary={"n": "numeric"}).scenario().task_space.axis("n")
    assert default.values == (2, 3, 4)
    assert default.baseline == 2


def test_groups_match_one_value_or_any_of_a_list() -> None:
    spec = _spec(
        prompt="{who}: is {n} prime?",
        slots={"who": "names", "n": [2, 3, 4]},
        vary={"n": "ordinal"},
        groups={"women": {"who.gender": "female"}, "east": {"who.region": ["east-asia", "europe"]}},
        cases=20,
    )
    scenario = spec.scenario()
    cases = scenario.task_space.cases
    for case in scenario.groups["women"]:
        assert cases[case].attribute_values()["who.gender"] == "female"
    for case in scenario.groups["east"]:
        assert cases[case].attribute_values()["who.region"] in ("east-asia", "europe")
    outside = set(cases) - set(scenario.groups["women"])
    assert all(cases[c].attribute_values()["who.gender"] == "male" for c in outside)


def test_a_group_that_matches_no_case_is_an_error() -> None:
    spec = _spec(
        prompt="{who}: is {n} prime?",
        slots={"who": "names", "n": [2, 3]},
        vary={"who.gender": "nominal"},
        groups={"men": {"who.gender": "male"}},
    )
    # seeds sit at the baseline, female: no seed is a man
    with pytest.raises(SpecError, match=r"groups.men: no case matches \{'who.gender': 'male'\}"):
        spec.scenario()


def test_answer_as_field_or_pattern() -> None:
    field = _spec().scenario().answer
    assert field.identity.name == "json_field"
    pattern = _spec(answer={"pattern": "(yes|no)", "choices": ["yes", "no"]}).scenario().answer
    assert pattern.identity.name == "text_match"
    assert pattern.identity.parameters["pattern"] == "(yes|no)"


def test_correct_as_one_value() -> None:
    spec = _spec(answer={"field": "prime", "choices": [True, False], "correct": True})
    assert {v.reference for v in spec.scenario().variants()} == {True}


def test_correct_as_a_mapping_per_attribute_value() -> None:
    correct = {"n": {2: True, 3: True, 4: False}}
    spec = _spec(
        vary={"n": "numeric"},
        answer={"field": "prime", "choices": [True, False], "correct": correct},
    )
    assert {v.coordinate["n"]: v.reference for v in spec.scenario().variants()} == correct["n"]
    assert spec.scenario().roles() == {"n": "causal"}


def test_correct_as_a_table_of_rows() -> None:
    rows = [{"n": [2, 3], "answer": True}, {"n": 4, "answer": False}]
    spec = _spec(
        vary={"n": "numeric"}, answer={"field": "prime", "choices": [True, False], "correct": rows}
    )
    assert spec.answer.correct == ({"n": (2, 3), "answer": True}, {"n": 4, "answer": False})
    assert [v.reference for v in spec.scenario().variants()] == [True, True, False]


def test_a_table_that_misses_variants_is_an_error() -> None:
    rows = [{"n": [2, 3], "answer": True}]
    spec = _spec(
        vary={"n": "numeric"}, answer={"field": "prime", "choices": [True, False], "correct": rows}
    )
    with pytest.raises(SpecError, match=r"answer.correct: no correct answer for 1 variants.*n=4"):
        spec.scenario()


def test_system_cases_repetitions_and_seed() -> None:
    spec = _spec(
        system="Answer in JSON.",
        prompt="{who}: is {n} prime?",
        slots={"who": "names", "n": [2, 3]},
        cases=5,
        repetitions=3,
        seed=11,
    )
    scenario = spec.scenario()
    assert len(scenario.task_space.cases) == 5
    assert scenario.repetitions == 3
    assert scenario.seed == 11
    assert next(scenario.variants()).prompt.system == "Answer in JSON."
    again = spec.scenario()
    assert list(again.task_space.cases) == list(scenario.task_space.cases)
    other = spec.model_copy(update={"seed": 12}).scenario()
    assert list(other.task_space.cases) != list(scenario.task_space.cases)


def test_dump_writes_the_shortest_form() -> None:
    spec = _spec(
        version="3",
        description="About primes.",
        prompt="Line one {n}\nline two {who}",
        slots={"n": [20, 22, 24, 26], "who": "names"},
        vary={"n": "numeric"},
    )
    text = spec.dump()
    assert "version: '3'" in text
    assert "who: names" in text
    assert "start: 20" in text
    assert "step: 2" in text
    assert "prompt: |-\n  Line one {n}\n  line two {who}" in text
    assert "repetitions" not in text
    assert "seed" not in text
    data = spec.data()
    assert data["vary"] == {"n": "numeric"}
    assert data["answer"] == {"field": "prime", "choices": [True, False]}
    assert Spec.parse(text) == spec


def test_dump_keeps_lists_that_are_not_ranges() -> None:
    lists = ([1, 2, 4], [1, 2.5, 4], [1.0, 2.0, 3.0], [3, 2, 1], [5, 6], [0, 1, -1.0], [0, 1e-9, 5])
    for values in lists:
        spec = _spec(slots={"n": values})
        assert Spec.parse(spec.dump()) == spec, values
        assert spec.lexicon("n").labels == tuple(values)


def test_texts_with_other_line_breaks_read_back_unchanged() -> None:
    for text in ("Is {n} prime?\n\x85", "Is {n}\u2028prime?", "Is {n}\r\nprime?\n"):
        spec = _spec(prompt=text, description="one\x85two")
        assert Spec.parse(spec.dump()).prompt == text
        assert Spec.parse(spec.dump()) == spec


def test_save_and_load(tmp_path: Path) -> None:
    spec = Spec.load(DEMO)
    path = spec.save(tmp_path / "demo-copy.yaml")
    assert path == tmp_path / "demo-copy.yaml"
    assert Spec.load(path) == spec
    assert Spec.load(str(path)) == spec


def test_lexicon_of_an_unknown_slot() -> None:
    with pytest.raises(SpecError, match=r"slots.m: no such slot; slots: \['n'\]"):
        _spec().lexicon("m")


def test_spec_is_frozen_and_forbids_extra_fields() -> None:
    spec = _spec()
    with pytest.raises(ValueError, match="frozen"):
        spec.name = "other"  # type: ignore[misc]
    with pytest.raises(ValueError, match="colour"):
        Spec.model_validate({**spec.model_dump(), "colour": "red"})
