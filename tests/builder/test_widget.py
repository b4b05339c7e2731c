"""The widget side: synced traits after every edit, and edits that arrive as messages."""

from __future__ import annotations

import json
from pathlib import Path

import anywidget
import pytest
from pydantic import ValidationError

from modelscape.builder import Builder, Draft, Piece, edits
from modelscape.specs import load_spec


def test_the_builder_is_an_anywidget_with_its_module_and_styles() -> None:
    builder = Builder("Hi")
    assert isinstance(builder, anywidget.AnyWidget)
    static = Path(__file__).resolve().parents[2] / "modelscape" / "builder" / "static"
    assert builder._esm == (static / "builder.js").read_text(encoding="utf-8")
    assert builder._css == (static / "builder.css").read_text(encoding="utf-8")


def test_traits_follow_every_edit(cities: Builder) -> None:
    assert cities.problems == []
    assert [row["changed"] for row in cities.preview] == ["baseline"]
    cities.vary("city", "nominal")
    assert [row["changed"] for row in cities.preview] == ["baseline", "city=Lyon", "city=Nice"]
    assert [row["answer"] for row in cities.preview] == [True, False, False]
    assert cities.preview[1]["prompt"] == "Is Lyon the capital of France? Answer politely, in JSON."
    cities.edit("prompt", "Is {town} big?")
    assert cities.preview == []
    assert cities.problems == list(cities.draft.problems)
    assert cities.problems[0].startswith("prompt: template 'capitals', prompt: {town} has no slot")
    assert cities.view["complete"] is False


def test_the_synced_data_is_json_with_keys_spelled_out(cities: Builder) -> None:
    assert cities.data["answer"]["correct"] == {"city.capital": {"true": True, "false": False}}
    assert json.loads(json.dumps(cities.data)) == cities.data
    assert json.loads(json.dumps(cities.view)) == cities.view


def test_the_view_holds_pieces_slots_attributes_and_the_yaml(cities: Builder) -> None:
    view = cities.view
    assert view["prompts"] == [
        {
            "label": None,
            "pieces": [
                {"text": "Is ", "slot": None},
                {"text": "{city}", "slot": "city"},
                {"text": " the capital of France? Answer politely, in JSON.", "slot": None},
            ],
            "error": None,
        }
    ]
    (slot,) = view["slots"]
    assert slot["properties"] == ["capital"]
    assert slot["rows"][1] == {"label": "Lyon", "text": "Lyon", "properties": {"capital": False}}
    assert {a["name"]: a["values"] for a in view["attributes"]} == {
        "city": ["Paris", "Lyon", "Nice"],
        "city.capital": [True, False],
    }
    assert view["answer"]["correct"] == {
        "kind": "mapping",
        "attribute": "city.capital",
        "pairs": [[True, True], [False, False]],
    }
    assert "tones" in view["lexicons"]
    assert view["yaml"] == cities.spec.dump()


def test_the_view_of_versions_lists_texts_in_version_order() -> None:
    builder = Builder.load(Path(__file__).with_name("versioned.yaml"))
    view = builder.view
    assert view["versions"] == {"name": "tone", "labels": ["neutral", "polite"]}
    assert [p["label"] for p in view["prompts"]] == ["neutral", "polite"]
    assert view["slots"][0]["rows"][0]["text"] == ["Paris", "lovely Paris"]


def test_the_view_shows_what_cannot_be_read() -> None:
    builder = Builder("Hi {who}")
    builder.edit("slots", {"who": "nonsense"})
    (slot,) = builder.view["slots"]
    assert "no shipped lexicon called 'nonsense'" in slot["error"]
    builder.edit("prompt", None)
    assert builder.view["prompts"][0]["error"].startswith("prompt: the prompt is missing")


def test_messages_run_edits_and_report_errors(cities: Builder, tmp_path: Path) -> None:
    cities._handle_custom_msg({"method": "vary", "args": ["city", "nominal"], "kwargs": {}}, [])
    assert cities.error == ""
    assert cities.draft.data["vary"] == {"city": "nominal"}
    cities._handle_custom_msg({"method": "vary", "args": ["cty", "nominal"]}, [])
    assert cities.error.startswith("vary cty: unknown attribute 'cty'")
    cities._handle_custom_msg({"method": "undo"}, [])
    assert cities.error == ""
    assert "vary" not in cities.draft.data
    cities._handle_custom_msg({"method": "mark", "args": [0], "kwargs": {}}, [])
    assert cities.error.startswith("mark: ")
    assert "missing 2 required positional arguments" in cities.error
    cities._handle_custom_msg({"method": "add", "args": {"slot": "city"}}, [])
    assert cities.error == "add: a message carries args as a list and kwargs as a mapping"
    cities._handle_custom_msg({"method": "load", "args": ["pressure"]}, [])
    assert cities.error.startswith("unknown edit 'load'; edits: mark, remove")
    path = tmp_path / "capitals.yaml"
    cities._handle_custom_msg({"method": "save", "args": [str(path)]}, [])
    assert cities.status == f"saved {path}"
    assert path.read_text(encoding="utf-8") == cities.spec.dump()
    cities._handle_custom_msg({"method": "add", "args": ["city"]}, [])
    assert cities.status == ""


def test_pieces_follow_the_prompt_and_its_versions() -> None:
    builder = Builder("A {x} b", name="n")
    builder.edit("slots", {"x": [1]})
    assert builder.pieces() == (Piece("A "), Piece("{x}", "x"), Piece(" b"))
    builder.versions("v", ["one", "two"])
    builder.version("two", "{x}")
    assert builder.pieces("two") == (Piece(""), Piece("{x}", "x"), Piece(""))


def test_prompts_lists_every_variant_as_the_scenario_does() -> None:
    builder = Builder.load("review-injection")
    assert builder.prompts.equals(load_spec("review-injection").scenario().prompts())


def test_a_draft_is_a_frozen_record() -> None:
    draft = Draft(data={"name": "x"}, problems=("answer: missing",))
    assert not draft.complete
    assert Draft(data={}).complete
    with pytest.raises(ValidationError):
        Draft(data={}, extra=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        draft.problems = ()  # type: ignore[misc]


def test_a_type_error_inside_an_edit_is_a_bug_not_bad_arguments(
    cities: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(data: object, key: str, value: object) -> object:
        return len(None)  # type: ignore[arg-type]

    monkeypatch.setattr(edits, "edit", broken)
    with pytest.raises(TypeError, match="has no len"):
        cities._receive(cities, {"method": "edit", "args": ["cases", 3]}, [])
    assert cities.error.startswith("edit: TypeError inside the edit: ")
    assert "a bug in modelscape" in cities.error
    # arguments that do not fit the method are the message's fault, and no bug
    cities._receive(cities, {"method": "edit", "args": ["cases"]}, [])
    assert cities.error == "edit: Builder.edit() missing 1 required positional argument: 'value'"
    cities._receive(cities, {"method": "instruct", "kwargs": {"x": 1}}, [])
    assert cities.error == "instruct: Builder.instruct() got an unexpected keyword argument 'x'"
