"""What a first-time user of the builder is shown and kept: the example's baseline, suggested
names, the preview from the first slot, problems in plain words at their place, and prompts
without pandas."""

from __future__ import annotations

import sys

import pytest

from modelscape import lexicons
from modelscape.builder import Builder
from modelscape.builder.advice import place_of, plain
from modelscape.builder.rows import PromptRows
from modelscape.errors import SpecError
from modelscape.specs import load_spec

REFUND = "Returns are accepted within 30 days. I bought a lamp 12 days ago. Yes or no?"


def _refund() -> Builder:
    builder = Builder(REFUND, name="refund")
    at = builder.pieces()[0].text.index("12")
    builder.mark(0, at, at + 2)
    return builder


def test_a_number_is_named_after_the_word_that_follows_it() -> None:
    builder = _refund()
    assert list(builder.draft.data["slots"]) == ["days"]
    builder = Builder("The price is 12")
    builder.mark(0, 13, 15)
    assert list(builder.draft.data["slots"]) == ["is"]  # at the end: the word before it
    builder.mark(0, 4, 9)
    assert list(builder.draft.data["slots"]) == ["is", "price"]
    builder = Builder("3 4")
    builder.mark(0, 0, 1)
    builder.mark(2, 1, 2)
    assert list(builder.draft.data["slots"]) == ["value", "value2"]


def test_a_range_keeps_the_example_as_the_baseline() -> None:
    builder = _refund()
    builder.range("days", 10, 40, 10)
    # not varied yet: the baseline is the first value
    assert builder.draft.data["slots"]["days"] == [12, 10, 20, 30, 40]
    builder.vary("days", "numeric")
    # a numeric scale needs increasing values: the baseline is named instead
    assert builder.draft.data["slots"]["days"] == [10, 12, 20, 30, 40]
    assert builder.draft.data["vary"] == {"days": {"scale": "numeric", "baseline": 12}}
    builder.range("days", 10, 40, 5)
    assert builder.draft.data["vary"] == {"days": {"scale": "numeric", "baseline": 12}}
    assert builder.draft.data["slots"]["days"] == [10, 12, 15, 20, 25, 30, 35, 40]
    builder.vary("days", "ordinal")
    assert builder.draft.data["slots"]["days"][0] == 12
    assert builder.draft.data["vary"] == {"days": "ordinal"}
    builder.vary("days", None)
    assert builder.draft.data["slots"]["days"][0] == 12
    builder.answer(None, ["yes", "no"], pattern="(yes|no)")
    builder.vary("days", "numeric")
    assert builder.spec.scenario().task_space.baseline == {"days": 12}


def test_a_range_on_the_example_keeps_its_short_form() -> None:
    builder = Builder("In 20 days")
    builder.mark(0, 3, 5, "days")
    builder.range("days", 20, 40, 2)
    assert builder.draft.data["slots"]["days"] == {"start": 20, "stop": 40, "step": 2}


def test_a_lexicon_keeps_the_selected_text_as_the_baseline() -> None:
    builder = Builder("Maria asks for a loan.")
    builder.mark(0, 0, 5, "who", lexicon="names")
    slot = builder.draft.data["slots"]["who"]
    assert slot[0] == {"label": "Maria", "gender": None, "region": None}
    assert len(slot) == len(lexicons.get("names")) + 1
    builder = Builder("Xiuying Wang asks for a loan.")
    second = lexicons.get("names").entries[1].text
    builder.edit("prompt", f"{second} asks for a loan.")
    builder.mark(0, 0, len(second), "who", lexicon="names")
    # a name the lexicon has moves to the top
    assert builder.draft.data["slots"]["who"][0]["label"] == lexicons.get("names").labels[1]
    builder = Builder("Hello")
    builder.mark(0, 5, 5, "tone", lexicon="tones")  # nothing selected: the lexicon as shipped
    assert builder.draft.data["slots"]["tone"] == "tones"


def test_the_preview_shows_from_the_first_slot_with_unknown_answers() -> None:
    builder = Builder(REFUND, name="refund")
    assert [row["answer"] for row in builder.preview] == [None]
    assert builder.view["cases"] == 1
    builder = _refund()
    builder.range("days", 10, 40, 10)
    builder.vary("days", "numeric")
    assert [row["changed"] for row in builder.preview][:2] == ["baseline", "days=10"]
    assert {row["answer"] for row in builder.preview} == {None}
    builder.answer(None, ["yes", "no"], pattern="(yes|no)", correct={"days": [[10, "yes"]]})
    assert not builder.draft.complete
    assert [row["answer"] for row in builder.preview] == [None, "yes", None, None, None]
    builder.edit("prompt", "Broken {nothing}")
    assert builder.preview == []
    assert "{nothing} in the prompt is not a slot" in builder.view["stopped"]


def test_a_json_answer_nothing_asks_for_is_a_problem() -> None:
    builder = _refund()
    builder.answer("eligible", ["yes", "no"])
    (problem,) = builder.draft.problems
    assert problem.startswith("answer.field: the answer is read from the JSON field 'eligible'")
    with pytest.raises(SpecError, match="asks for a JSON reply"):
        builder.spec  # noqa: B018 - the property raises
    builder.instruct()
    assert builder.draft.complete
    builder.edit("system", None)
    text = REFUND.replace("12", "{days}").replace("Yes or no?", 'Reply {{"eligible": "yes"}}.')
    builder.edit("prompt", text)
    assert builder.draft.complete  # the field written as a JSON key asks for it too


def test_problems_are_worded_plainly_at_their_place() -> None:
    builder = _refund()
    (note,) = builder.view["notes"]
    assert note["place"] == "answer"
    assert "{field" not in note["text"]
    assert "Set answer" in note["text"]
    assert plain("groups.big: no case matches {'days': 12}") == (
        "group:big",
        "No case has 'days' = 12, so this group would be empty: a varied attribute keeps its "
        "baseline in every case.",
    )
    assert plain("answer.correct.days: no answer for values [12]")[0] == "correct"
    assert plain("vary.days.scale: unknown scale 'numerc'")[0] == "vary:days"
    assert plain("slots.who: unknown lexicon 'nope'; shipped ...") == (
        "slot:who",
        "There is no shipped list of values called “nope”.",
    )
    assert plain("seed: must be a whole number of at least 0, not -1") == (
        "field:seed",
        "Must be a whole number of at least 0, not -1",
    )
    assert plain("no path here") == ("spec", "No path here")
    assert [place_of(path) for path in ("prompt", "system", "slots", "answer.pattern")] == [
        "prompt",
        "system",
        "spec",
        "answer",
    ]
    fresh = Builder("Hello")
    assert fresh.view["notes"][0] == {
        "place": "prompt",
        "text": "Select the part of the prompt that should change (a number, a name) and click "
        "“Make slot”.",
    }


def test_groups_offer_only_what_cases_differ_in(cities: Builder) -> None:
    offered = {a["name"]: a["values"] for a in cities.view["case_attributes"]}
    assert offered == {"city": ["Paris", "Lyon", "Nice"], "city.capital": [True, False]}
    cities.vary("city", "nominal")
    assert cities.view["case_attributes"] == []
    builder = Builder("{a} and {b}")
    builder.edit("slots", {"a": [1, 2], "b": ["x", "y"]})
    builder.vary("a", "numeric")
    assert builder.view["case_attributes"] == [{"name": "b", "values": ["x", "y"]}]


def test_the_system_prompt_is_shown_as_pieces(cities: Builder) -> None:
    cities.edit("system", 'Reply {{"capital": true}} about {city}.')
    assert cities.view["system"] == {
        "pieces": [
            {"text": 'Reply {"capital": true} about ', "slot": None},
            {"text": "{city}", "slot": "city"},
            {"text": ".", "slot": None},
        ],
        "error": None,
    }


def test_the_saved_note_is_cleared_by_any_later_edit(cities: Builder, tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    cities.save(tmp_path / "capitals.yaml")
    assert cities.status.startswith("saved ")
    cities.edit("cases", 2)
    assert cities.status == ""
    cities.save(tmp_path / "capitals.yaml")
    cities.undo()
    assert cities.status == ""


def test_prompts_work_without_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    builder = Builder.load("review-injection")
    expected = load_spec("review-injection").scenario().prompt_rows()
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    rows = builder.prompts
    assert isinstance(rows, PromptRows)
    assert list(rows) == expected
    assert rows.columns[:2] == ["variant", "case"]
    assert rows.column("case") == [row["case"] for row in expected]
    table = PromptRows([{"prompt": "<b>1 < 2</b>", "answer": None}])._repr_html_()
    assert "<b>" not in table.replace("<table>", "")
    assert "&lt;b&gt;1 &lt; 2&lt;/b&gt;" in table
