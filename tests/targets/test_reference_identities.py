"""What identifies a reference target: its name, version and the parameters that shape its
replies, the same however it was made, and nothing else.

Every stored observation names its target by the identity's id, so the id must not depend
on how the target was made (directly, by name, through the registry) and must change with
anything that changes the replies. What ``parameters`` hands out is a copy: changing it must
not change the identity the target's observations are filed under.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modelscape._identity import canonical_json
from modelscape.targets import (
    REFERENCE_TARGETS,
    ConstantTarget,
    EchoTarget,
    Flip,
    PlantedTarget,
    RandomTarget,
    ScriptedTarget,
    reference_target,
)
from modelscape.targets._oracle import OracleTarget
from modelscape.targets.protocol import IdentifiedTarget
from modelscape.targets.registry import find_provider
from tests.records import hostile
from tests.support.mapping_space import scenario

words = st.text(min_size=1, max_size=8)
flips = st.lists(
    st.builds(Flip, marker=words, answer=st.none() | words, above=st.none() | st.floats(-9, 9)),
    max_size=2,
)


def made(kind: str, draw: st.DrawFn) -> tuple[Callable[[str], IdentifiedTarget], dict[str, Any]]:
    """A maker of reference targets of ``kind`` with drawn settings (given a name), and the
    parameters it documents."""
    if kind == "echo":
        return lambda name: EchoTarget(name=name), {"kind": "echo"}
    if kind == "constant":
        text = draw(hostile.valid_text)
        return lambda name: ConstantTarget(text, name=name), {"kind": "constant", "text": text}
    if kind == "random":
        choices = draw(st.lists(words, min_size=1, max_size=3))
        return lambda name: RandomTarget(choices, name=name), {"kind": "random", "choices": choices}
    if kind == "scripted":
        script = draw(st.dictionaries(words, words | st.lists(st.integers(), max_size=2)))
        default = draw(st.none() | words)
        return (
            lambda name: ScriptedTarget(script, default=default, name=name),
            {"kind": "scripted", "script": script, "default": default},
        )
    chosen = draw(flips)
    noise = draw(st.sampled_from([0.0, 0.25]))
    choices = ["yes", "no"] if noise else draw(st.lists(words, max_size=2))
    return (
        lambda name: PlantedTarget(r"(\w+)", flips=chosen, noise=noise, choices=choices, name=name),
        {
            "kind": "planted",
            "answer": r"(\w+)",
            "flips": [f.model_dump(mode="json") for f in chosen],
            "noise": noise,
            "choices": choices,
            "field": "answer",
        },
    )


KINDS = ["echo", "constant", "random", "scripted", "planted"]
names = hostile.valid_text.filter(bool)


@settings(deadline=None)
@given(kind=st.sampled_from(KINDS), name=names, data=st.data())
def test_an_identity_is_the_name_version_and_documented_parameters_and_a_copy_is_handed_out(
    kind: str, name: str, data: st.DataObject
) -> None:
    make, parameters = made(kind, data.draw)
    target = make(name)
    identity = target.identity
    assert (identity.kind, identity.name, identity.version) == ("target", name, "1")
    assert (target.name, target.version) == (name, "1")
    assert target.parameters == parameters == identity.parameters
    canonical_json(target.parameters)  # JSON, so the id can be computed
    before = identity.id
    handed = target.parameters
    for value in handed.values():  # change everything a caller could reach
        if isinstance(value, list):
            value.append("changed")
            for item in value:
                if isinstance(item, dict):
                    item["changed"] = "changed"
        elif isinstance(value, dict):
            value["changed"] = "changed"
    handed["extra"] = "changed"
    assert target.identity.id == before
    assert target.parameters == parameters


@settings(deadline=None)
@given(kind=st.sampled_from(KINDS), name=names, other=names, data=st.data())
def test_the_same_settings_give_the_same_id_and_another_name_another(
    kind: str, name: str, other: str, data: st.DataObject
) -> None:
    make, _ = made(kind, data.draw)
    assert make(name).identity.id == make(name).identity.id
    assert (make(other).identity.id == make(name).identity.id) == (other == name)


@pytest.mark.parametrize(
    ("spec", "direct"),
    [
        ("echo", EchoTarget()),
        ("constant:</script>\x00", ConstantTarget("</script>\x00")),
        ("random:yes,no", RandomTarget(["yes", "no"])),
        ("planted:verdict=(\\w+)", PlantedTarget("verdict=(\\w+)")),
    ],
)
def test_by_name_or_through_the_registry_a_target_has_the_identity_made_directly(
    spec: str, direct: IdentifiedTarget
) -> None:
    kind, _, argument = spec.partition(":")
    assert reference_target(spec).identity == direct.identity
    assert find_provider(kind).make(argument).identity == direct.identity  # type: ignore[union-attr]


def test_the_oracle_is_identified_by_its_scenarios_id_its_flips_and_noise() -> None:
    oracle = OracleTarget(scenario())
    assert oracle.parameters == {
        "kind": "oracle",
        "scenario": scenario().identity.id,
        "flips": [],
        "noise": 0.0,
    }


def test_a_script_read_from_a_file_is_identified_by_what_it_says(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.json"
    first.write_text('hello: "hi"\nbye: [1, 2]\n', encoding="utf-8")
    second.write_text('{"hello": "hi", "bye": [1, 2]}', encoding="utf-8")
    by_yaml, by_json = reference_target(f"scripted:{first}"), reference_target(f"scripted:{second}")
    assert by_yaml.identity == by_json.identity  # the content, not where it was read from
    assert by_yaml.identity == ScriptedTarget({"hello": "hi", "bye": [1, 2]}).identity


def test_the_reference_kinds_are_the_six_documented() -> None:
    assert sorted(REFERENCE_TARGETS) == [
        "constant",
        "echo",
        "oracle",
        "planted",
        "random",
        "scripted",
    ]
