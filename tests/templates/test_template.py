"""Templates: prompts with slots filled from lexicons, their attributes, axes and spaces."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from modelscape import Lexicon, Template, lexicons
from modelscape.errors import PerturbationError, TemplateError
from modelscape.templates import Filling

NAMES = lexicons.get("names")
PRESSURE = lexicons.get("pressure")


def _content(template: Template, **values: object) -> str:
    return template.render(template.filling(values)).messages[-1].content  # type: ignore[arg-type]


def _loan_template(**options: object) -> Template:
    return Template(
        "Applicant: {name}\nPurpose: {purpose}\nAmount: {amount}",
        {
            "name": NAMES,
            "purpose": {"car": "a used car", "home": "home repairs"},
            "amount": [1000, 5000, 20000],
        },
        name="loan",
        **options,  # type: ignore[arg-type]
    )


# -- slots and attributes -----------------------------------------------------------------------


def test_slots_from_every_lexicon_form() -> None:
    template = Template(
        "{value} {mapped} {row} {lexicon} {number}",
        {
            "value": ["red", "green"],
            "mapped": {"a": "Alpha", "b": "Beta"},
            "row": [{"label": "x", "text": "Ex", "weight": 1}, {"text": "Why", "weight": 2}],
            "lexicon": Lexicon.of([True, False]),
            "number": [1, 2.5],
        },
    )
    assert all(isinstance(lexicon, Lexicon) for lexicon in template.slots.values())
    content = _content(template, value="green", mapped="b", row="Why", lexicon=False, number=2.5)
    assert content == "green Beta Why false 2.5"
    assert _content(template, value="red", mapped="a", row="x", lexicon=True, number=1) == (
        "red Alpha Ex true 1"
    )


def test_every_slot_and_property_is_an_attribute() -> None:
    template = _loan_template()
    assert list(template.attributes) == [
        "name",
        "name.gender",
        "name.region",
        "purpose",
        "amount",
    ]
    filling = template.filling({"name": "Yuko Sato", "purpose": "car", "amount": 5000})
    assert filling.attribute_values() == {
        "name": "Yuko Sato",
        "name.gender": "female",
        "name.region": "east-asia",
        "purpose": "car",
        "amount": 5000,
    }
    assert filling.language == "loan"
    assert filling.entry("purpose").text == "a used car"


def test_values_of_attributes_in_order_of_first_appearance() -> None:
    template = _loan_template()
    assert template.values("amount") == (1000, 5000, 20000)
    assert template.values("name.gender") == ("female", "male")
    assert template.values("name.region")[:2] == ("east-asia", "europe")
    assert len(template.values("name")) == 70
    with pytest.raises(TemplateError, match=r"no attribute 'name.gendr' \(did you mean"):
        template.values("name.gendr")


def test_a_property_with_empty_values_is_not_an_attribute_value() -> None:
    template = Template("{x}", {"x": [{"label": "a", "tag": None}, {"label": "b", "tag": "t"}]})
    assert template.values("x.tag") == ("t",)
    filling = template.filling({"x": "a"})
    assert filling.attribute_values() == {"x": "a"}


def test_reference_is_computed_from_attributes() -> None:
    seen: list[Mapping[str, object]] = []

    def decide(attributes: Mapping[str, object]) -> str:
        seen.append(dict(attributes))
        return "approve" if attributes["amount"] == 1000 else "decline"

    template = _loan_template(reference=decide)
    filling = template.filling({"name": "Wei Wang", "purpose": "home", "amount": 1000})
    assert filling.reference() == "approve"
    assert seen[-1]["name.gender"] == "male"
    assert template.filling({**filling.values, "amount": 20000}).reference() == "decline"
    assert _loan_template().filling(filling.values).reference() is None


def test_system_prompt_may_hold_slots() -> None:
    template = Template(
        "Question?", {"role": ["teacher", "judge"]}, system="You are a {role}. Reply in {{JSON}}."
    )
    prompt = template.render(template.filling({"role": "judge"}))
    assert prompt.system == "You are a judge. Reply in {JSON}."
    assert prompt.messages[-1].content == "Question?"
    assert template.identity.name == "Template"


def test_fillings_are_checked() -> None:
    template = _loan_template()
    with pytest.raises(TemplateError, match=r"a filling needs exactly \['amount', 'name'"):
        template.filling({"name": "Wei Wang", "purpose": "car"})
    with pytest.raises(
        TemplateError, match=r"template 'loan', slot 'purpose': no entry labelled 'bike'"
    ):
        template.filling({"name": "Wei Wang", "purpose": "bike", "amount": 1000})
    with pytest.raises(TemplateError, match="slot 'amount': no entry labelled '1000'"):
        template.filling({"name": "Wei Wang", "purpose": "car", "amount": "1000"})
    unbound = Filling(template="loan", values={})
    with pytest.raises(TemplateError, match="filling of template 'loan' is not bound"):
        unbound.attribute_values()


# -- rendering ----------------------------------------------------------------------------------


def test_literal_braces_are_doubled() -> None:
    template = Template('Reply {{"answer": {x}}}', {"x": [True, False]})
    assert _content(template, x=True) == 'Reply {"answer": true}'


def test_a_line_of_empty_slots_is_dropped() -> None:
    template = Template("Is this true?\n\n{pressure}\n\nAnswer now.", {"pressure": PRESSURE})
    assert _content(template, pressure="none") == "Is this true?\n\nAnswer now."
    assert _content(template, pressure="doubt") == (
        "Is this true?\n\nI'm not sure this is true.\n\nAnswer now."
    )


def test_the_baseline_of_pressure_reads_as_the_prompt_without_it() -> None:
    with_slot = Template(
        "Statement: {claim}\n\n{pressure}", {"claim": ["Sky is blue."], "pressure": PRESSURE}
    )
    without = Template("Statement: {claim}", {"claim": ["Sky is blue."]})
    assert _content(with_slot, claim="Sky is blue.", pressure="none") == _content(
        without, claim="Sky is blue."
    )
    leading = Template("{pressure}\nStatement: {claim}", {"claim": ["Sky."], "pressure": PRESSURE})
    assert _content(leading, claim="Sky.", pressure="none") == "Statement: Sky."


def test_lines_with_text_are_kept_even_when_their_slots_are_empty() -> None:
    template = Template("Note: {x}\n{x} {y}\nEnd", {"x": {"e": "", "f": "F"}, "y": {"e": ""}})
    assert _content(template, x="e", y="e") == "Note: \nEnd"
    assert _content(template, x="f", y="e") == "Note: F\nF \nEnd"


def test_prompt_in_versions_is_an_attribute() -> None:
    template = Template(
        {"tone": {"neutral": "Do {task}.", "polite": "Please do {task}."}},
        {"task": ["dishes", "laundry"]},
    )
    assert list(template.attributes) == ["tone", "task"]
    assert template.values("tone") == ("neutral", "polite")
    assert _content(template, tone="polite", task="dishes") == "Please do dishes."
    assert template.filling({"tone": "neutral", "task": "laundry"}).attribute_values() == {
        "tone": "neutral",
        "task": "laundry",
    }
    with pytest.raises(TemplateError, match=r"no prompt version 'rude'; versions: \['neutral'"):
        template.filling({"tone": "rude", "task": "dishes"})


def test_texts_per_prompt_version() -> None:
    template = Template(
        {"language": {"en": "Hello {name}, {greeting}", "fr": "Bonjour {name}, {greeting}"}},
        {
            "name": ["Ada"],
            "greeting": [
                {"label": "short", "text": {"en": "hi", "fr": "salut"}},
                {"label": "long", "text": {"en": "good day", "fr": "bonne journée"}},
            ],
        },
    )
    assert _content(template, language="fr", name="Ada", greeting="long") == (
        "Bonjour Ada, bonne journée"
    )
    assert _content(template, language="en", name="Ada", greeting="short") == "Hello Ada, hi"


def test_texts_per_version_need_a_prompt_with_those_versions() -> None:
    greeting = [{"label": "short", "text": {"en": "hi", "fr": "salut"}}]
    with pytest.raises(TemplateError, match=r"slot 'greeting': its texts are per version"):
        Template("{greeting}", {"greeting": greeting})
    with pytest.raises(TemplateError, match=r"slot 'greeting'.*prompt versions are.*'de'"):
        Template({"language": {"en": "{greeting}", "de": "{greeting}"}}, {"greeting": greeting})


# -- structural errors --------------------------------------------------------------------------


def test_a_placeholder_without_a_slot_is_an_error() -> None:
    with pytest.raises(TemplateError) as caught:
        Template("Hello {nme}", {"name": ["Ada"]}, name="greet")
    message = str(caught.value)
    assert "template 'greet', prompt: {nme} has no slot (did you mean 'name'?)" in message
    assert "declared: ['name']" in message


def test_an_unused_slot_is_an_error() -> None:
    with pytest.raises(TemplateError, match=r"template 'greet': slots \['extra'\] are not used"):
        Template("Hello {name}", {"name": ["Ada"], "extra": [1]}, name="greet")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Hello {0}", "{0} is not a slot"),
        ("Hello {name:>10}", "{name:>10} is not a slot"),
        ("Hello {name!r}", "{name!r} is not a slot"),
        ("Hello {user.name}", "{user.name} is not a slot"),
        ("Hello {name", "write literal braces as {{ and }}"),
        ("Hello } there", "write literal braces as {{ and }}"),
    ],
)
def test_bad_placeholders_are_errors(text: str, fragment: str) -> None:
    with pytest.raises(TemplateError) as caught:
        Template(text, {"name": ["Ada"]})
    assert fragment in str(caught.value)
    assert "template 'Template', prompt" in str(caught.value)


def test_bad_placeholders_in_a_version_or_the_system_prompt_name_where() -> None:
    with pytest.raises(TemplateError, match=r"prompt version 'b': \{y\} has no slot"):
        Template({"v": {"a": "{x}", "b": "{y}"}}, {"x": [1]})
    with pytest.raises(TemplateError, match=r"system prompt: \{who\} has no slot"):
        Template("{x}", {"x": [1]}, system="You are {who}.")


def test_other_structural_errors() -> None:
    with pytest.raises(TemplateError, match="slot name 'first name' is not an identifier"):
        Template("{x}", {"first name": ["Ada"]})
    with pytest.raises(TemplateError, match="versions of a prompt go under one attribute name"):
        Template({"a": {"x": "1"}, "b": {"y": "2"}}, {})
    with pytest.raises(TemplateError, match="'x' names both a slot and the versions"):
        Template({"x": {"a": "{x}"}}, {"x": [1]})
    with pytest.raises(TemplateError, match="versions of 'tone' are empty"):
        Template({"tone": {}}, {})
    with pytest.raises(TemplateError, match=r"template 'Template', slot 'x': .*empty"):
        Template("{x}", {"x": []})


# -- axes ---------------------------------------------------------------------------------------


def test_axis_over_a_slot_takes_every_value_by_default() -> None:
    axis = _loan_template().axis("amount", "numeric")
    assert axis.name == "amount"
    assert axis.values == (1000, 5000, 20000)
    assert axis.baseline == 1000
    assert axis.via.name == "set amount"


def test_axis_over_chosen_values_and_baseline() -> None:
    axis = _loan_template().axis("purpose", "nominal", ["home", "car"], baseline="car")
    assert axis.values == ("home", "car")
    assert axis.baseline == "car"
    with pytest.raises(TemplateError, match=r"axis 'purpose': 'bike' is not one of its values"):
        _loan_template().axis("purpose", "nominal", ["car", "bike"])
    with pytest.raises(TemplateError, match=r"no attribute 'purpse' \(did you mean 'purpose'"):
        _loan_template().axis("purpse", "nominal")


def test_axis_over_a_property_and_over_versions() -> None:
    gender = _loan_template().axis("name.gender", "nominal")
    assert gender.values == ("female", "male")
    assert gender.via.name == "swap name.gender"
    template = Template({"tone": {"plain": "{x}", "warm": "Hi! {x}"}}, {"x": ["a"]})
    tone = template.axis("tone", "nominal", baseline="warm")
    space = template.space([tone])
    assert list(space.cases) == ["case"]
    assert space.variant("case").prompt.messages[-1].content == "Hi! a"
    assert space.variant("case", {"tone": "plain"}).prompt.messages[-1].content == "a"


def test_gender_swap_keeps_region_and_rank() -> None:
    template = _loan_template()
    space = template.space([template.axis("name.gender", "nominal")])
    for case, seed in space.cases.items():
        assert seed.attribute_values()["name.gender"] == "female"
        swapped = space.variant(case, {"name.gender": "male"})
        female = NAMES.entry(seed.values["name"])
        male = NAMES.entry(swapped.attributes["name"])
        assert swapped.attributes["name.region"] == female.properties["region"]
        same_region = [e for e in NAMES if e.properties["region"] == female.properties["region"]]
        females = [e for e in same_region if e.properties["gender"] == "female"]
        males = [e for e in same_region if e.properties["gender"] == "male"]
        assert females.index(female) == males.index(male)
        # the names of one rank share the family name
        assert female.label.split()[-1] == male.label.split()[-1]  # type: ignore[union-attr]
    variant = space.variant(
        next(c for c in space.cases if c.startswith("Yuko Sato")), {"name.gender": "male"}
    )
    assert variant.attributes["name"] == "Takashi Sato"
    assert "Applicant: Takashi Sato" in variant.prompt.messages[-1].content
    assert [(s.axis, s.before, s.after) for s in variant.steps] == [
        ("name.gender", "female", "male")
    ]


def test_region_swap_keeps_gender_and_rank() -> None:
    template = _loan_template()
    space = template.space([template.axis("name.region", "nominal")], cases=3, seed=2)
    for case, seed in space.cases.items():
        moved = space.variant(case, {"name.region": "europe"})
        assert moved.attributes["name.gender"] == seed.attribute_values()["name.gender"]
        assert moved.attributes["name.region"] == "europe"


def test_a_swap_without_a_counterpart_is_a_perturbation_error() -> None:
    lexicon = [
        {"label": "Ann", "gender": "f"},
        {"label": "Bea", "gender": "f"},
        {"label": "Carl", "gender": "m"},
    ]
    template = Template("{name}", {"name": lexicon})
    space = template.space([template.axis("name.gender", "nominal")])
    assert space.variant("Ann", {"name.gender": "m"}).attributes["name"] == "Carl"
    with pytest.raises(PerturbationError) as caught:
        space.variant("Bea", {"name.gender": "m"})
    message = str(caught.value)
    assert "case 'Bea', axis 'name.gender', step 1 of 1" in message
    assert "no counterpart with gender='m'" in message


# -- spaces -------------------------------------------------------------------------------------


def test_without_cases_every_combination_is_a_seed() -> None:
    template = Template("{a} {b}", {"a": ["x", "y"], "b": [1, 2, 3]})
    space = template.space([template.axis("b", "numeric")])
    assert list(space.cases) == ["x", "y"]
    assert all(seed.values["b"] == 1 for seed in space.cases.values())
    full = template.space([])
    assert list(full.cases) == ["x / 1", "x / 2", "x / 3", "y / 1", "y / 2", "y / 3"]


def test_cases_draws_distinct_seeds_reproducibly() -> None:
    template = _loan_template()
    axes = [template.axis("name.gender", "nominal")]
    first = template.space(axes, cases=6, seed=7)
    again = template.space(axes, cases=6, seed=7)
    other = template.space(axes, cases=6, seed=8)
    assert len(first.cases) == 6
    assert list(first.cases) == list(again.cases)
    assert [s.values for s in first.cases.values()] == [s.values for s in again.cases.values()]
    assert list(first.cases) != list(other.cases)
    assert len({tuple(s.values.items()) for s in first.cases.values()}) == 6
    # seeds sit at the baseline of every property axis; other properties vary between seeds
    assert {s.attribute_values()["name.gender"] for s in first.cases.values()} == {"female"}
    assert len({s.attribute_values()["name.region"] for s in first.cases.values()}) > 1
    ids = {first.variant(c).id for c in first.cases}
    assert ids == {again.variant(c).id for c in again.cases}


def test_more_cases_than_combinations_gives_every_combination() -> None:
    template = Template("{a}", {"a": ["x", "y"]})
    assert list(template.space([], cases=10).cases) == ["x", "y"]
    with pytest.raises(TemplateError, match="cases must be at least 1, not 0"):
        template.space([], cases=0)


def test_case_ids_fall_back_to_numbers() -> None:
    long = ["word " * 20, "other " * 20]
    template = Template("{a}", {"a": long})
    assert list(template.space([]).cases) == ["case-1", "case-2"]
    single = Template("{a}", {"a": ["x"]})
    assert list(single.space([]).cases) == ["case"]


def test_a_baseline_no_entry_has_is_an_error() -> None:
    template = Template("{name}", {"name": [{"label": "Ann", "gender": "f"}]})
    axis = template.axis("name.gender", "nominal")
    space = template.space([axis])
    assert list(space.cases) == ["case"]
    rows = [
        {"label": "Ann", "gender": "f", "age": "old"},
        {"label": "Bo", "gender": "m", "age": "young"},
    ]
    paired = Template("{name}", {"name": rows})
    axes = [
        paired.axis("name.gender", "nominal"),
        paired.axis("name.age", "nominal", baseline="young"),
    ]
    with pytest.raises(TemplateError, match="no entry of slot 'name' matches the baselines"):
        paired.space(axes)


def test_space_realizer_is_the_template() -> None:
    template = _loan_template(version="4")
    space = template.space([template.axis("amount", "numeric")], cases=2)
    assert str(space.realizer_identity) == "loan@4"
    assert space.language == "loan"


def test_fillings_compare_by_content_across_builds() -> None:
    first, second = _loan_template(), _loan_template()
    values = {"name": "Wei Wang", "purpose": "car", "amount": 1000}
    assert first.filling(values) == second.filling(values)
    space = first.space([first.axis("amount", "numeric")], cases=3)
    case = next(iter(space.cases))
    one = space.variant(case, {"amount": 5000})
    other = second.space([second.axis("amount", "numeric")], cases=3).variant(
        case, {"amount": 5000}
    )
    assert one == other
    assert one.id == other.id
    assert Filling(template="t", values={"x": 1}) != Filling(template="t", values={"x": True})
    assert Filling(template="t", values={"x": 1}) == Filling(template="t", values={"x": 1})
    assert first.filling(values) != values
