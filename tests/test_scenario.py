"""Scenarios: a task space with a fixed protocol, reviewed before anything runs."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import pytest

from modelscape import Grid, Scenario, Sweep, Template, json_field
from modelscape.errors import ModelscapeError, TaskSpaceError


def _reference(attributes: Mapping[str, Any]) -> str:
    return "yes" if attributes["n"] in (2, 3, 5) else "no"


TEMPLATE = Template(
    "{tone}\nIs {n} prime? Asked by {who}.",
    {
        "tone": {"plain": "", "warm": "Hello there!"},
        "n": [3, 4, 5],
        "who": ["Ann", "Bo"],
    },
    name="primes",
    system="Reply as JSON.",
    reference=_reference,
)


def _scenario(**options: Any) -> Scenario:
    axes = [TEMPLATE.axis("tone", "nominal"), TEMPLATE.axis("n", "numeric")]
    settings: dict[str, Any] = {
        "name": "primes",
        "version": "2",
        "description": "Is a number prime?\nAsked two ways.",
        "task_space": TEMPLATE.space(axes),
        "answer": json_field("answer", ["yes", "no"]),
        "repetitions": 3,
        "groups": {"ann": ["Ann"]},
        "seed": 4,
    }
    settings.update(options)
    return Scenario(**settings)


def test_variants_go_case_by_case_through_the_design() -> None:
    scenario = _scenario()
    variants = list(scenario.variants())
    assert [(v.case, v.coordinate["tone"], v.coordinate["n"]) for v in variants] == [
        (case, tone, n)
        for case in ("Ann", "Bo")
        for tone, n in (("plain", 3), ("warm", 3), ("plain", 4), ("plain", 5))
    ]
    assert scenario.coordinates()[0] == scenario.task_space.baseline


def test_describe_lists_cases_axes_variants_and_calls() -> None:
    text = _scenario().describe()
    lines = text.splitlines()
    assert lines[0] == "primes (version 2)"
    assert lines[1:3] == ["  Is a number prime?", "  Asked two ways."]
    assert "cases      2" in lines
    assert "axes       2" in lines
    assert "  tone  nominal  invariant baseline plain; values plain, warm" in lines
    assert "  n     numeric  causal    baseline 3; values 3, 4, 5" in lines
    assert "design     sweep (one axis at a time): 4 coordinates" in lines
    assert "variants   8 (every one generated and checked)" in lines
    assert "answer     json_field('answer', choices=('yes', 'no'))" in lines
    assert "repeats    3 per variant" in lines
    # calls per target = cases x coordinates x repetitions
    assert "calls      24 per target" in lines
    assert "groups     ann (1 cases)" in lines
    assert "seed       4" in lines
    assert "without a correct answer" not in text


def test_describe_a_grid_and_missing_answers() -> None:
    no_reference = Template("Is {n} prime?", {"n": [3, 4]})
    scenario = _scenario(
        task_space=no_reference.space([no_reference.axis("n", "ordinal")]),
        design=Grid(axes=("n",)),
        groups={},
        repetitions=1,
    )
    text = scenario.describe()
    assert "design     grid over n: 2 coordinates" in text
    assert "           2 without a correct answer" in text
    assert "calls      2 per target" in text
    assert "groups" not in text
    assert scenario.roles() == {"n": "invariant"}


def test_calls_per_target_follows_the_design() -> None:
    assert _scenario().calls_per_target() == 2 * 4 * 3
    assert _scenario(design=Grid(axes=("tone", "n"))).calls_per_target() == 2 * 6 * 3
    assert _scenario(design=Sweep(axes=("tone",)), repetitions=5).calls_per_target() == 2 * 2 * 5


def test_describe_checks_every_variant() -> None:
    broken = Template(
        "{name}",
        {"name": [{"label": "A", "g": "f"}, {"label": "B", "g": "f"}, {"label": "C", "g": "m"}]},
    )
    space = broken.space([broken.axis("name.g", "nominal")])
    scenario = _scenario(task_space=space, groups={})
    with pytest.raises(TaskSpaceError, match=r"case 'B', axis 'name.g'"):
        scenario.describe()


def test_example_shows_every_variant_of_the_first_case() -> None:
    text = _scenario().example()
    blocks = text.split("\n\n── ")
    assert blocks[0].startswith("primes: every variant of case 'Ann'")
    assert "system prompt (the same for every variant)\n   Reply as JSON." in blocks[0]
    headers = [block.splitlines()[0] for block in blocks[1:]]
    assert headers == [
        "baseline · correct answer: yes",
        "tone=warm · correct answer: yes",
        "n=4 · correct answer: no",
        "n=5 · correct answer: yes",
    ]
    assert blocks[1].splitlines()[1:] == ["   Is 3 prime? Asked by Ann."]
    assert blocks[2].splitlines()[1:] == ["   Hello there!", "   Is 3 prime? Asked by Ann."]
    assert "Bo" not in text


def test_example_shows_systems_that_differ_with_each_prompt() -> None:
    template = Template(
        "Is {n} prime?", {"n": [3, 4], "who": ["a judge", "a tutor"]}, system="You are {who}."
    )
    space = template.space([template.axis("who", "nominal"), template.axis("n", "ordinal")])
    text = _scenario(task_space=space, groups={}).example()
    assert "the same for every variant" not in text
    assert "[system]\n   You are a tutor.\n\n   [user]\n   Is 3 prime?" in text
    assert "correct answer: —" in text


def test_prompts_is_a_data_frame_with_one_row_per_variant() -> None:
    pytest.importorskip("pandas")
    scenario = _scenario()
    frame = scenario.prompts()
    assert len(frame) == len(list(scenario.variants())) == 8
    assert list(frame.columns) == [
        "variant",
        "case",
        "axis:tone",
        "axis:n",
        "changed",
        "system",
        "prompt",
        "answer",
    ]
    row = frame.iloc[1]
    assert (row["case"], row["axis:tone"], row["changed"], row["answer"]) == (
        "Ann",
        "warm",
        "tone",
        "yes",
    )
    assert row["prompt"] == "Hello there!\nIs 3 prime? Asked by Ann."
    assert row["system"] == "Reply as JSON."
    assert frame.iloc[0]["changed"] == ""
    assert list(frame["variant"]) == [v.id for v in scenario.variants()]


def test_prompts_without_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ModelscapeError, match=r"needs pandas.*modelscape-map\[pandas\]"):
        _scenario().prompts()
    assert len(_scenario().prompt_rows()) == 8


def test_groups_are_checked() -> None:
    with pytest.raises(ModelscapeError, match="'all' names every case; choose another group"):
        _scenario(groups={"all": ["Ann"]})
    with pytest.raises(
        ModelscapeError,
        match=r"scenario 'primes': group 'g' names unknown case 'An' \(did you mean 'Ann'\?\)",
    ):
        _scenario(groups={"g": ["An"]})
    scenario = _scenario(groups={"both": ["Ann", "Bo"]})
    assert scenario.groups == {"both": ("Ann", "Bo")}
    assert scenario.group_of("all") == ("Ann", "Bo")
    assert scenario.group_of("both") == ("Ann", "Bo")
    with pytest.raises(TaskSpaceError, match=r"no group 'nobody'; groups: \['all', 'both'\]"):
        scenario.group_of("nobody")


def test_protocol_is_checked() -> None:
    with pytest.raises(ModelscapeError, match="repetitions must be at least 1, not 0"):
        _scenario(repetitions=0)
    with pytest.raises(ModelscapeError, match="a scenario needs a name"):
        _scenario(name="")


def test_identity_holds_the_protocol() -> None:
    identity = _scenario().identity
    assert identity.kind == "scenario"
    assert str(identity) == "primes@2"
    assert identity.parameters["repetitions"] == 3
    assert identity.parameters["seed"] == 4
    assert identity.parameters["design"] == {"kind": "sweep", "axes": None}
    assert _scenario(repetitions=4).identity.id != identity.id
    assert _scenario().identity.id == identity.id


def test_describe_says_what_each_axis_could_find() -> None:
    """Before any call: the smallest excess found with 80% power, and the R that finds 0.3."""
    lines = _scenario().describe().splitlines()
    start = lines.index(
        "power      smallest excess found with 80% power (a yes/no answer moved in every "
        "case; alpha 0.05, Holm over each axis's steps)"
    )
    tone, n = lines[start + 1 :]
    # Two cases at R = 3: one test on tone, two under Holm on n.
    assert tone == "  tone  0.80 (1 test); excess 0.3 needs R >= 9 (this spec: 3)"
    assert n == "  n     0.90 (2 tests); excess 0.3 needs R >= 10 (this spec: 3)"
    once = _scenario(repetitions=1).describe().splitlines()
    assert once[-2] == (
        "  tone  n/a (1 repetition per variant: no run-to-run variation to test against); "
        "excess 0.3 needs R >= 9 (this spec: 1)"
    )
