"""The front end drawn in place, in headless Chromium: what a person typed, focused or opened
survives every change the Python side sends back; the answer step works from what is typed.

Each test sends the page's messages through a real Builder and pushes its new state back
(``deliver``), as a kernel would.
"""

from __future__ import annotations

from typing import Any

from modelscape.builder import Builder

from .harness import deliver, select

REFUND = "Returns are accepted within 30 days. I bought a lamp 12 days ago. Yes or no?"


def _refund(*, varied: bool = True) -> Builder:
    builder = Builder(REFUND, name="refund")
    at = builder.pieces()[0].text.index("12")
    builder.mark(0, at, at + 2)
    builder.range("days", 10, 40, 10)
    if varied:
        builder.vary("days", "numeric")
    return builder


def _active(page: Any) -> str | None:
    label: str | None = page.evaluate(
        "document.activeElement && document.activeElement.getAttribute('aria-label')"
    )
    return label


def test_typed_input_and_open_panels_survive_a_change(open_builder: Any) -> None:
    builder = _refund(varied=False)
    page = open_builder(builder)
    page.fill(".ms-choices", "yes, maybe")  # typed, not applied
    box = page.locator(".ms-slot-box[data-slot-name='days']")
    box.locator("input[placeholder='start']").fill("5")  # typed, not applied either
    page.click(".ms-yaml-panel summary")
    page.evaluate("document.querySelector('.ms-choices').dataset.mark = 'same element'")
    page.locator(".ms-vary-part select").first.select_option("numeric")
    (message,) = deliver(page, builder)
    assert message["method"] == "vary"
    assert page.input_value(".ms-choices") == "yes, maybe"
    assert box.locator("input[placeholder='start']").input_value() == "5"
    assert page.get_attribute(".ms-yaml-panel", "open") == ""
    assert "baseline: 12" in page.inner_text(".ms-yaml")
    assert page.evaluate("document.querySelector('.ms-choices').dataset.mark") == "same element"
    # a value the Python side changes is written into its control
    page.fill(".ms-fields input >> nth=0", "typed")
    builder.edit("name", "renamed")
    deliver(page, builder)
    assert page.locator(".ms-fields input").first.input_value() == "renamed"


def test_tab_moves_through_the_values_table_while_edits_apply(open_builder: Any) -> None:
    builder = Builder("Is Paris big? Reply in JSON.", name="cities")
    builder.mark(0, 3, 8, "city")
    builder.rows("city", [{"label": "Paris"}, {"label": "Lyon"}, {"label": "Nice"}])
    page = open_builder(builder)
    page.focus("[aria-label='text 0']")
    page.keyboard.press("Control+A")
    page.keyboard.type("lovely Paris")
    page.keyboard.press("Tab")  # applies the cell (its change event) and moves on
    assert _active(page) == "label 1"
    (message,) = deliver(page, builder)
    assert message["method"] == "rows"
    assert builder.draft.data["slots"]["city"]["Paris"] == "lovely Paris"
    assert _active(page) == "label 1"  # the reply kept focus where the person is
    page.keyboard.press("Tab")
    assert _active(page) == "text 1"
    page.keyboard.press("End")  # Tab selects a field's text; typing goes after it
    page.keyboard.type(" (city)")
    page.keyboard.press("Tab")
    deliver(page, builder)
    assert builder.draft.data["slots"]["city"]["Lyon"] == "Lyon (city)"
    assert _active(page) == "move value 1 up"  # each row's button is reachable too
    page.keyboard.press("Tab")
    assert _active(page) == "label 2"


def test_answer_dropdowns_follow_the_choices_as_typed(open_builder: Any) -> None:
    builder = _refund()
    page = open_builder(builder)
    # the values are in increasing order; the example's 12 is the baseline row
    first_cells = page.locator(".ms-slot-box tbody tr td:first-child").all_inner_texts()
    assert first_cells == ["0", "baseline", "2", "3", "4"]
    page.select_option("select.ms-mode", "word")
    assert page.is_hidden("input[placeholder='field name or pattern']")
    page.fill(".ms-choices", "yes, no")
    page.select_option("select.ms-kind", "mapping")
    page.select_option("select.ms-attribute", "days")
    pairs = page.locator(".ms-pairs select")
    assert pairs.count() == 5
    assert pairs.first.locator("option").all_inner_texts() == ["choice…", "yes", "no"]
    assert page.evaluate("window.sent.length") == 0  # nothing applied yet
    page.fill(".ms-choices", "yes, no, unsure")
    assert pairs.first.locator("option").all_inner_texts() == ["choice…", "yes", "no", "unsure"]
    page.fill(".ms-threshold input", "30")
    page.locator(".ms-threshold select").nth(0).select_option("yes")
    page.locator(".ms-threshold select").nth(1).select_option("no")
    page.click("button.ms-fill")
    assert [pairs.nth(i).input_value() for i in range(5)] == ["yes", "yes", "yes", "yes", "no"]
    page.click("button.ms-set-answer")
    (message,) = deliver(page, builder)
    assert message["kwargs"] == {"pattern": "(?i)\\b(yes|no|unsure)\\b"}
    assert message["args"][2] == {
        "days": [[10, "yes"], [12, "yes"], [20, "yes"], [30, "yes"], [40, "no"]]
    }
    assert builder.draft.complete
    labels = page.locator(".ms-variant .ms-label").all_inner_texts()
    assert labels[0] == "baseline · correct answer: yes"
    assert page.inner_text(".ms-complete").startswith("Complete")
    assert page.input_value("select.ms-mode") == "word"  # read back from the pattern


def test_the_preview_shows_from_the_first_slot(open_builder: Any) -> None:
    builder = Builder(REFUND, name="refund")
    page = open_builder(builder)
    assert page.inner_text(".ms-preview-part h3") == "Preview: the example prompt"
    select(page, 0, REFUND.index("12"), REFUND.index("12") + 2)
    page.click("button.ms-mark")
    deliver(page, builder)
    assert list(builder.draft.data["slots"]) == ["days"]
    assert page.locator(".ms-variant .ms-label").all_inner_texts() == [
        "baseline · correct answer: ?"
    ]
    box = page.locator(".ms-slot-box[data-slot-name='days']")
    for name, value in (("start", "10"), ("stop", "40"), ("step", "10")):
        box.locator(f"input[placeholder='{name}']").fill(value)
    box.locator("button:text-is('Numbers')").click()
    deliver(page, builder)
    box.locator("button.ms-vary-numeric").click()
    deliver(page, builder)
    assert page.inner_text(".ms-preview-part h3") == "Preview: 5 variants of the example"
    assert page.locator(".ms-variant .ms-label").nth(1).inner_text() == (
        "days=10 · correct answer: ?"
    )


def test_problems_and_errors_show_beside_their_controls(open_builder: Any) -> None:
    builder = _refund()
    builder.answer("eligible", ["yes", "no"])
    page = open_builder(builder)
    note = page.locator(".ms-answer-part .ms-problem")
    assert note.count() == 1
    assert "nothing asks the model to reply in JSON" in note.inner_text()
    assert page.locator(".ms-prompt-part .ms-problem").count() == 0
    box = page.locator(".ms-slot-box[data-slot-name='days']")
    for name, value in (("start", "10"), ("stop", "40"), ("step", "0")):
        box.locator(f"input[placeholder='{name}']").fill(value)
    box.locator("button:text-is('Numbers')").click()
    deliver(page, builder)
    error = box.locator(".ms-error").inner_text()
    assert error == "range days: a range needs a positive step, not 0"
    assert page.locator(".ms-error").count() == 1
    page.click("button:text-is('Add reply instruction to system prompt')")
    deliver(page, builder)
    assert page.locator(".ms-error").all_inner_texts() == []
    assert page.locator(".ms-answer-part .ms-problem").count() == 0


def test_the_system_prompt_shows_braces_as_written(open_builder: Any, cities: Builder) -> None:
    cities.edit("system", 'Say {{"capital": true}} about {city}.')
    page = open_builder(cities)
    box = page.locator("textarea.ms-system-text")
    assert box.input_value() == 'Say {"capital": true} about {city}.'
    box.fill('Write {"capital": false} for {city}, not {town}.')
    box.blur()
    (message,) = deliver(page, cities)
    assert message["args"] == [
        "system",
        'Write {{"capital": false}} for {city}, not {{town}}.',
    ]
    assert box.input_value() == 'Write {"capital": false} for {city}, not {town}.'


def test_long_values_wrap_instead_of_being_cut(open_builder: Any) -> None:
    builder = Builder("Review: fine. Reply in JSON.", name="reviews")
    builder.mark(0, 8, 12, "review")
    long = "A very long review that goes on about the product for many words, " * 3
    builder.rows("review", [{"label": "short", "text": "fine"}, {"label": "long", "text": long}])
    page = open_builder(builder)
    cell = page.locator("textarea[aria-label='text 1']")
    assert cell.input_value() == long
    sizes = cell.evaluate("(e) => [e.scrollWidth, e.clientWidth, e.scrollHeight, e.clientHeight]")
    assert sizes[0] <= sizes[1]  # no text hidden sideways
    assert sizes[2] <= sizes[3] + 2  # nor below
    assert page.locator("input[aria-label='text 0']").input_value() == "fine"


def test_groups_offer_only_attributes_cases_differ_in(open_builder: Any, cities: Builder) -> None:
    cities.edit("slots", cities.draft.data["slots"] | {"tone": ["calm", "rude"]})
    cities.edit("prompt", "Is {city} the capital of France? {tone} Reply in JSON.")
    cities.vary("city", "nominal")
    page = open_builder(cities)
    offered = page.locator(".ms-groups-part select").first.locator("option").all_inner_texts()
    assert offered == ["attribute…", "tone"]
