"""ScenarioPage: every axis and every variant, with the words each variant changes marked."""

from __future__ import annotations

import itertools
import re

import pytest

from modelscape.pages import ScenarioPage
from modelscape.pages.scenario import show_value, word_diff
from modelscape.specs import available, load_spec
from tests.pages.parsing import parse


def _rebuild(segments: list[tuple[str, str]], keep: str) -> str:
    return "".join(text for kind, text in segments if kind in ("same", keep))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Applicant: Xiuying Wang", "Applicant: Mariam Hassan"),
        ("same text", "same text"),
        ("", "all new"),
        ("dropped entirely", ""),
        ("Is it true?\n\nStatement: x", "Is it true?\n\nStatement: x\n\nI doubt it."),
    ],
)
def test_word_diff_rebuilds_both_texts(before: str, after: str) -> None:
    segments = word_diff(before, after)
    assert _rebuild(segments, "ins") == after
    assert _rebuild(segments, "del") == before
    kinds = [kind for kind, _ in segments]
    assert all(a != b for a, b in itertools.pairwise(kinds))  # runs are merged


def test_word_diff_marks_whole_words() -> None:
    segments = word_diff("Applicant: Xiuying Wang, 44", "Applicant: Mariam Hassan, 44")
    assert ("ins", "Mariam Hassan") in segments
    assert ("del", "Xiuying Wang") in segments


def test_show_value() -> None:
    assert [show_value(v) for v in (True, False, None, 3, "doubt", " x")] == [
        "true",
        "false",
        "—",
        "3",
        "doubt",
        "' x'",
    ]


@pytest.mark.parametrize("name", available())
def test_every_shipped_spec_renders_every_variant(name: str) -> None:
    scenario = load_spec(name).scenario()
    page = ScenarioPage(scenario).html()
    variants = list(scenario.variants())
    assert page.count('<article class="variant') == len(variants)
    assert page.count('<details class="case"') == len(scenario.task_space.cases)
    assert page.count('<details class="case" open>') == 1  # large scenarios start collapsed
    for variant in variants[:: max(1, len(variants) // 10)]:
        assert variant.id in page
    roles = scenario.roles()
    for axis in scenario.task_space.axes:
        assert re.search(
            rf"<th scope=\"row\">{re.escape(axis.name)}</th><td>{axis.scale}</td>"
            rf"<td><span class=\"role role-{roles[axis.name]}\">",
            page,
        )
    assert f"{scenario.calls_per_target()} calls per target" in page
    parsed = parse(page)
    assert parsed.tags.get("input") == 1  # the filter box
    assert parsed.handlers == []


def test_changed_words_are_marked_against_the_baseline() -> None:
    page = ScenarioPage(load_spec("pressure").scenario()).html()
    assert "<ins>\n\nI&#39;m not sure this is true.</ins>" in page
    baseline = page.split('<article class="variant is-baseline">', 1)[1].split("</article>", 1)[0]
    assert "<ins>" not in baseline
    assert "<del>" not in baseline


def test_system_prompt_shared_by_every_variant_is_shown_once() -> None:
    scenario = load_spec("pressure").scenario()
    page = ScenarioPage(scenario).html()
    system = next(scenario.variants()).prompt.system
    assert system is not None
    assert page.count("You check facts.") == 1


def test_each_variant_shows_what_its_steps_also_moved() -> None:
    # fair-lending swaps a name's gender and region: the name itself moves with each swap.
    scenario = load_spec("fair-lending").scenario()
    page = ScenarioPage(scenario).html()
    space = scenario.task_space
    case = next(iter(space.cases))
    variant = space.variant(case, {"name.gender": "male"})
    (step,) = variant.steps
    (change,) = step.also
    assert change.attribute == "name"
    shown = f"Also moved by its steps: name: {change.before} → {change.after}"
    assert shown in parse(page).text
    baseline = space.variant(case)
    assert baseline.steps == ()


def test_word_diff_at_the_edges_and_between_changes() -> None:
    # Whitespace before the first change or after the last is shared text...
    assert word_diff(" a", " b") == [("same", " "), ("del", "a"), ("ins", "b")]
    assert word_diff("a ", "b ") == [("del", "a"), ("ins", "b"), ("same", " ")]
    # ...while whitespace between two changes joins them into one.
    assert word_diff("a b c", "x y c") == [("del", "a b"), ("ins", "x y"), ("same", " c")]


def test_prompt_parts_against_a_baseline_without_system_or_turns() -> None:
    from modelscape.pages.scenario import _parts
    from modelscape.task.prompt import Message, Prompt

    baseline = Prompt(messages=(Message(role="user", content="Is it true?"),))
    variant = Prompt(
        system="Be brief.",
        messages=(
            Message(role="user", content="Is it true?"),
            Message(role="assistant", content="Yes."),
            Message(role="user", content="Sure?"),
        ),
    )
    parts = _parts(variant, baseline, system=True)
    assert parts == [
        {"role": "system", "segments": [("ins", "Be brief.")]},
        {"role": "user", "segments": [("same", "Is it true?")]},
        {"role": "assistant", "segments": [("ins", "Yes.")]},
        {"role": "user", "segments": [("ins", "Sure?")]},
    ]
    assert _parts(baseline, variant, system=True)[0] == {
        "role": "system",
        "segments": [("del", "Be brief.")],
    }
    assert [p["role"] for p in _parts(variant, baseline, system=False)] == [
        "user",
        "assistant",
        "user",
    ]


def test_word_diff_of_a_long_prompt_marks_only_the_changed_words() -> None:
    # A prompt of hundreds of words in which "the" is frequent: difflib's automatic junk rule
    # (for 200 tokens or more) would stop "the" from matching, so a "the" between two changed
    # words would be marked changed with them.
    words = [f"item{i}" if i % 2 else "the" for i in range(240)]
    before = "Read the list: " + " ".join(words)
    words[121], words[123] = "changed", "altered"
    after = "Read the list: " + " ".join(words)
    segments = word_diff(before, after)
    assert [s for s in segments if s[0] != "same"] == [
        ("del", "item121"),
        ("ins", "changed"),
        ("del", "item123"),
        ("ins", "altered"),
    ]
    assert ("same", " the ") in segments
    assert _rebuild(segments, "ins") == after
    assert _rebuild(segments, "del") == before
