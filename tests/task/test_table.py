"""Variant tables: every variant assembled from its compact record is the one the task space builds.

Checked over every task language shipped (the specs, which are template languages, and the
Python scenarios), over the loan language of these tests with its system prompt, and over
random task spaces whose values mix types that Python calls equal (0, 0.0, -0.0, False).
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape import Axis, Grid, Message, Prompt, Spec, Sweep, TaskSpace, Variant
from modelscape.scenario import Scenario
from modelscape.scenarios import arithmetic, conditioning, evidence
from modelscape.specs import available, load_spec
from modelscape.task import Task, attribute, perturbation, realizer
from modelscape.task.coordinate import Coordinate
from modelscape.task.table import VariantTable

from .languages import loan_space

CONTENT_SPECS = sorted((Path(__file__).resolve().parents[2] / "content" / "specs").glob("*.yaml"))


def _fresh(space: TaskSpace[Any]) -> TaskSpace[Any]:
    """The same space with nothing built yet (a shipped scenario's space is shared)."""
    return TaskSpace(space.cases, space.axes, space.realizer)


def _same(assembled: Variant, built: Variant) -> None:
    """Equal as models, as stored JSON (which spells 1, 1.0, -0.0 and true apart), and in the
    fields each model says were set."""
    assert assembled == built
    assert assembled.model_dump_json() == built.model_dump_json()
    assert assembled.__pydantic_fields_set__ == built.__pydantic_fields_set__
    assert assembled.prompt.__pydantic_fields_set__ == built.prompt.__pydantic_fields_set__
    for mine, theirs in zip(assembled.prompt.messages, built.prompt.messages, strict=True):
        assert mine.__pydantic_fields_set__ == theirs.__pydantic_fields_set__
    for name in ("coordinate", "attributes"):
        mine, theirs = getattr(assembled, name), getattr(built, name)
        assert [(k, type(v)) for k, v in mine.items()] == [(k, type(v)) for k, v in theirs.items()]
    assert type(assembled.reference) is type(built.reference)
    assert assembled.task is built.task or assembled.task == built.task


def _check(space: TaskSpace[Any], coordinates: Sequence[Coordinate]) -> VariantTable:
    """Build a table of ``space`` and compare each variant with the space's own."""
    table = VariantTable(space, coordinates)
    assert not space._variants  # built without filling the space's cache
    expected = [space.variant(case, c) for case in space.cases for c in coordinates]
    assert len(table) == len(expected)
    assert table.ids == [v.id for v in expected]
    for index, built in enumerate(expected):
        _same(table[index], built)
    assert [v.id for v in table] == table.ids
    return table


def _scenarios() -> list[tuple[str, Scenario]]:
    found = [(f"shipped:{name}", load_spec(name).scenario()) for name in available()]
    found += [(f"content:{p.name}", Spec.load(p).scenario()) for p in CONTENT_SPECS]
    found += [
        (f"python:{m.__name__.rsplit('.', 1)[1]}", m.SCENARIO)
        for m in (arithmetic, conditioning, evidence)
    ]
    return found


SCENARIOS = _scenarios()


def test_every_shipped_language_is_covered() -> None:
    names = [name for name, _ in SCENARIOS]
    assert len(names) == len(available()) + len(CONTENT_SPECS) + 3
    assert CONTENT_SPECS  # the site's own specs are read, not skipped


@pytest.mark.parametrize(("name", "scenario"), SCENARIOS, ids=[n for n, _ in SCENARIOS])
def test_a_shipped_languages_variants_assemble_as_the_task_space_builds_them(
    name: str, scenario: Scenario
) -> None:
    space = _fresh(scenario.task_space)
    _check(space, scenario.design.coordinates(space))


def test_a_grid_and_a_system_prompt_assemble_as_built() -> None:
    space = loan_space()
    table = _check(space, Grid(axes=("size", "months")).coordinates(space))
    # A prompt with a system instruction is kept whole, not rebuilt from its text.
    assert all(isinstance(p, Prompt) for p in table.prompts)
    assert table[0].prompt.system == "You are a loan officer."


def test_steps_attributes_and_coordinates_are_held_once_per_value() -> None:
    space = _fresh(arithmetic.SCENARIO.task_space)
    table = VariantTable(space, Sweep().coordinates(space))
    assert len({id(s) for s in table.steps}) == len(set(table.steps)) < len(table)
    assert len({id(a) for a in table.attributes}) < len(table)
    assert len(table.coordinates) == table.width


def test_every_assembled_variant_has_dicts_of_its_own() -> None:
    space = loan_space()
    table = VariantTable(space, Sweep().coordinates(space))
    first = table[1]
    first.coordinate["months"] = 99
    first.attributes["size"] = "changed"
    again = table[1]
    assert again.coordinate["months"] != 99
    assert again.attributes["size"] != "changed"
    assert again == space.variant(again.case, again.coordinate)


def test_positions_slices_and_lookups_by_id() -> None:
    space = loan_space()
    table = VariantTable(space, Sweep().coordinates(space))
    assert table[-1] == table[len(table) - 1]
    assert [v.id for v in table[1:3]] == table.ids[1:3]
    with pytest.raises(IndexError, match="no variant at position"):
        table.variant(len(table))
    by_id = table.by_id()
    assert len(by_id) == len(table)
    assert list(by_id) == table.ids
    assert by_id[table.ids[2]] == table[2]
    with pytest.raises(KeyError):
        by_id["0000000000000000"]
    assert table == VariantTable(loan_space(), Sweep().coordinates(space))
    assert table != VariantTable(space, Grid(axes=("size", "months")).coordinates(space))


def test_a_cached_variant_is_taken_as_it_is_and_nothing_is_added() -> None:
    space = loan_space()
    at = {"months": 24}
    kept = space.variant("ada", at)
    assert space.build_variant("ada", at) is kept
    fresh = space.build_variant("bo", at)
    assert set(space._variants) == {("ada", space.coordinate(at))}
    assert fresh == space.variant("bo", at)
    assert fresh is not space.variant("bo", at)


class Mixed(Task):
    """A task whose attributes take values Python calls equal across types."""

    first: str | int | float | bool
    second: str | int | float | bool
    label: str

    @attribute
    def one(self) -> str | int | float | bool:
        return self.first

    @attribute
    def two(self) -> str | int | float | bool:
        return self.second

    @attribute
    def kind(self) -> str:
        return self.label

    def reference(self) -> str | int | float | bool | None:
        return self.second if self.label != "none" else None


@perturbation
def set_first(task: Mixed, value: Any) -> Mixed:
    return task.model_copy(update={"first": value})


@perturbation
def set_second(task: Mixed, value: Any) -> Mixed:
    return task.model_copy(update={"second": value})


def _text(task: Mixed) -> str:
    return f"{task.label}: {task.first!r} and {task.second!r}"


@realizer(name="plain")
def plain(task: Mixed) -> str:
    return _text(task)


@realizer(name="with-system", system="Answer briefly.")
def with_system(task: Mixed) -> str:
    return _text(task)


@realizer(name="conversation")
def conversation(task: Mixed) -> Prompt:
    return Prompt(
        messages=(
            Message(role="user", content="Before we start."),
            Message(role="assistant", content="Go on."),
            Message(role="user", content=_text(task)),
        )
    )


@realizer(name="no-system-given")
def no_system_given(task: Mixed) -> Prompt:
    # A prompt whose system field was never set: kept whole, so it dumps as it was made.
    return Prompt(messages=(Message(role="user", content=_text(task)),))


# Values Python calls equal in groups: 0 == 0.0 == -0.0 == False, 1 == 1.0 == True.
SCALARS = st.sampled_from([0, 0.0, -0.0, False, 1, 1.0, True, "0", "", "x", 2, 2.5, -3])


def _distinct(values: list[Any]) -> list[Any]:
    """Values an axis accepts: none twice by type and value (-0.0 is 0.0 to an axis)."""
    seen: set[tuple[type, Any]] = set()
    kept = []
    for value in values:
        if (type(value), value) not in seen:
            seen.add((type(value), value))
            kept.append(value)
    return kept


@given(
    seeds=st.lists(
        st.tuples(SCALARS, SCALARS, st.sampled_from(["a", "b", "none"])), min_size=1, max_size=4
    ),
    firsts=st.lists(SCALARS, min_size=1, max_size=4).map(_distinct),
    seconds=st.lists(SCALARS, min_size=1, max_size=4).map(_distinct),
    writer=st.sampled_from([plain, with_system, conversation, no_system_given]),
    grid=st.booleans(),
)
def test_random_spaces_assemble_as_built(
    seeds: list[tuple[Any, Any, str]],
    firsts: list[Any],
    seconds: list[Any],
    writer: Any,
    grid: bool,
) -> None:
    cases = {f"c{i}": Mixed(first=f, second=s, label=k) for i, (f, s, k) in enumerate(seeds)}
    space = TaskSpace(
        cases,
        [
            Axis("one", firsts, set_first, scale="nominal"),
            Axis("two", seconds, set_second, scale="nominal"),
        ],
        writer,
    )
    design = Grid(axes=("one", "two")) if grid else Sweep()
    _check(space, design.coordinates(space))


def _weight(make: Any) -> tuple[Any, float]:
    """What ``make()`` returns, and the bytes it holds once made."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = make()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return made, after - before


class Numbered(Task):
    """The scale benchmark's language: a numbered question at some level."""

    number: int
    level_value: int

    @attribute
    def level(self) -> int:
        return self.level_value

    def reference(self) -> str:
        return "yes"

    def prompt(self) -> str:
        return f"Question {self.number} at level {self.level_value}: answer yes or no."


@perturbation
def move(task: Numbered, value: int) -> Numbered:
    return task.model_copy(update={"level_value": value})


def test_a_table_weighs_a_fraction_of_the_variants_it_holds() -> None:
    def space() -> TaskSpace[Numbered]:
        return TaskSpace(
            {f"c{i}": Numbered(number=i, level_value=0) for i in range(300)},
            [Axis("level", list(range(10)), move, scale="ordinal")],
        )

    first = space()
    coordinates = Sweep().coordinates(first)
    table, table_bytes = _weight(lambda: VariantTable(first, coordinates))
    second = space()
    held, held_bytes = _weight(
        lambda: [second.variant(c, x) for c in second.cases for x in coordinates]
    )
    assert len(table) == len(held) == 3000
    # Measured: about 640 bytes a variant in the table against 4,400 as models.
    assert table_bytes / len(table) < 1024
    assert table_bytes * 4 < held_bytes
    assert not any(isinstance(o, Variant) for o in gc.get_referents(*table.__dict__.values()))
