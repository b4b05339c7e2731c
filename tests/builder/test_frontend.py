"""The widget's front end in headless Chromium: selecting text makes a slot, edits travel as
messages to the Python side, and the pieces it sends back are drawn again.

The browser is Debian's chromium driven by Playwright. Without it the tests skip locally, but
under CI=true they fail, so a CI run never passes without having run them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from modelscape.builder import Builder

from .harness import deliver, select


def test_selecting_text_and_clicking_makes_a_slot(open_builder: Any) -> None:
    builder = Builder("Is Paris the capital of France?", name="capitals")
    page = open_builder(builder)
    assert page.locator(".ms-piece").all_inner_texts() == ["Is Paris the capital of France?"]
    select(page, 0, 3, 8)
    assert page.inner_text(".ms-selection") == "Selected “Paris”"
    page.fill("input[placeholder='slot name (optional)']", "city")
    page.click("button.ms-mark")
    sent = deliver(page, builder)
    assert sent == [{"method": "mark", "args": [0, 3, 8, "city"], "kwargs": {}}]
    assert page.locator("[data-piece]").all_inner_texts() == [
        "Is ",
        "{city}",
        " the capital of France?",
    ]
    assert builder.draft.data["slots"] == {"city": ["Paris"]}
    assert page.locator(".ms-slot-box[data-slot-name='city'] input").first.input_value() == "city"


def test_a_whole_piece_selected_with_the_mouse_and_a_shipped_lexicon(open_builder: Any) -> None:
    builder = Builder("Is {{this}} true?\n\nFacts")
    page = open_builder(builder)
    piece = page.locator(".ms-piece").first
    assert piece.inner_text() == "Is {this} true?\n\nFacts"  # doubled braces show as one
    box = piece.bounding_box()
    page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] - 4)
    text = piece.inner_text()
    select(page, 0, text.index("Facts"), len(text))
    page.select_option("select.ms-source-pick", "lexicon:tones")
    page.click("button.ms-mark")
    sent = deliver(page, builder)
    assert sent[0]["kwargs"] == {"lexicon": "tones"}
    assert builder.pieces()[1].slot == "tones"
    assert builder.draft.data["prompt"] == "Is {{this}} true?\n\n{tones}"
    assert page.locator(".ms-slot").all_inner_texts() == ["{tones}"]


def test_the_front_end_edits_values_scale_and_answer(open_builder: Any) -> None:
    builder = Builder("Ship in 3 days? Reply in JSON.")
    builder.mark(0, 8, 9, "days")
    builder.range("days", 1, 5, 1)
    page = open_builder(builder)
    page.locator("section:has(h3:text('What varies')) select").first.select_option("numeric")
    deliver(page, builder)
    # the example's 3 stays the baseline of the increasing numbers a numeric scale needs
    assert builder.draft.data["vary"] == {"days": {"scale": "numeric", "baseline": 3}}
    page.fill("input[placeholder='field name or pattern']", "ok")
    page.fill("input[placeholder='choices, comma separated']", "true, false")
    page.select_option("select.ms-kind", "one")
    page.click("button:text('Set answer')")
    sent = deliver(page, builder)
    assert sent[0]["args"] == ["ok", [True, False], None]  # no choice picked yet: no correct
    assert builder.draft.complete
    assert page.locator(".ms-variant").count() == 5
    assert page.inner_text(".ms-complete").startswith("Complete")


def test_errors_from_python_are_shown(open_builder: Any) -> None:
    builder = Builder("Hello world")
    page = open_builder(builder)
    page.click("button.ms-undo")
    deliver(page, builder)
    assert page.inner_text(".ms-error") == "undo: nothing to take back"
    select(page, 0, 0, 5)
    page.click("button.ms-mark")
    deliver(page, builder)
    assert page.locator(".ms-error").count() == 0
    assert builder.draft.data["slots"] == {"hello": ["Hello"]}


def test_editing_a_value_per_version_sends_every_row(open_builder: Any) -> None:
    builder = Builder.load(Path(__file__).with_name("versioned.yaml"))
    page = open_builder(builder)
    cell = (
        page.locator(".ms-slot-box[data-slot-name='city'] tbody tr").nth(1).locator("input").nth(2)
    )
    assert cell.input_value() == "lovely Nice"
    cell.fill("sunny Nice")
    cell.press("Enter")
    cell.blur()
    (message,) = deliver(page, builder)
    assert message["method"] == "rows"
    assert message["args"][1][1] == {
        "label": "nice",
        "big": False,
        "text": {"neutral": "Nice", "polite": "sunny Nice"},
    }
    assert builder.draft.complete
    prompts = [row["prompt"] for row in builder.preview]
    assert prompts[1].startswith("Please, is lovely Paris big?")
    assert (
        page.locator(".ms-slot-box tbody tr").nth(1).locator("input").nth(2).input_value()
        == "sunny Nice"
    )
