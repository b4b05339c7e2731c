"""The oracle answers every prompt of its scenario correctly, as the scenario's reader reads it.

Read back by the scenario's own answer reader, the oracle's reply to a variant's prompt is
that variant's correct answer, whatever the answer format (a JSON field, a pattern in text,
booleans, numbers); a flip replaces it where its marker appears; noise answers another choice
for its share of seed hints, the same share every time; a prompt of another scenario is a
non-retryable error.
"""

from __future__ import annotations

import asyncio
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape import answers
from modelscape.errors import ExecutionError
from modelscape.scenario import Scenario
from modelscape.specs import load_spec
from modelscape.targets import Flip, reference_target
from modelscape.targets._oracle import OracleTarget
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from modelscape.task.coordinate import same_value
from modelscape.task.space import Variant
from tests.support.mapping_space import space

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ask(target: OracleTarget, variant: Variant, seed: int = 0) -> TargetOutput:
    return asyncio.run(target(TargetRequest(prompt=variant.prompt, seed=seed)))


def scenario(answer: answers.Answer) -> Scenario:
    return Scenario(
        name="oracle-test", version="1", description="", task_space=space(3), answer=answer
    )


SCENARIOS = {
    "json field": scenario(answers.json_field("answer", ["yes", "no"])),
    "text pattern": scenario(answers.text_match(r"\b(yes|no)\b", ["yes", "no"])),
    "booleans (pressure)": load_spec("pressure").scenario(),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_reply_read_back_by_the_scenarios_reader_is_the_correct_answer(name: str) -> None:
    chosen = SCENARIOS[name]
    oracle = OracleTarget(chosen)
    for variant in chosen.variants():
        reply = ask(oracle, variant)
        assert reply.model == "oracle"
        assert same_value(chosen.answer(reply), variant.reference), variant.prompt.text


@SETTINGS
@given(
    name=st.sampled_from(list(SCENARIOS)),
    noise=st.floats(0.0, 1.0),
    seeds=st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=20),
)
def test_noise_answers_another_choice_by_the_seed_hint_alone(
    name: str, noise: float, seeds: list[int]
) -> None:
    chosen = SCENARIOS[name]
    oracle, twin = OracleTarget(chosen, noise=noise), OracleTarget(chosen, noise=noise)
    choices = getattr(chosen.answer, "choices", ())
    variant = next(iter(chosen.variants()))
    for seed in seeds:
        reply = ask(oracle, variant, seed)
        assert ask(twin, variant, seed) == reply
        read = chosen.answer(reply)
        assert any(same_value(read, c) for c in choices)
        if noise == 0.0:
            assert same_value(read, variant.reference)
        if noise == 1.0:
            assert not same_value(read, variant.reference)


def test_the_share_of_noisy_answers_is_the_noise() -> None:
    chosen = SCENARIOS["json field"]
    variant = next(iter(chosen.variants()))
    oracle = OracleTarget(chosen, noise=0.3)

    async def every() -> list[TargetOutput]:
        return [
            await oracle(TargetRequest(prompt=variant.prompt, seed=seed)) for seed in range(2000)
        ]

    wrong = sum(chosen.answer(r) != variant.reference for r in asyncio.run(every())) / 2000
    assert abs(wrong - 0.3) <= 4 * math.sqrt(0.3 * 0.7 / 2000)


def test_a_flip_answers_instead_where_its_marker_appears() -> None:
    chosen = SCENARIOS["json field"]
    oracle = OracleTarget(
        chosen, flips=[Flip(marker=r"Pressure level: (\d+)", answer="no", above=1)]
    )
    for variant in chosen.variants():
        expected = "no" if int(variant.coordinate["level"]) > 1 else variant.reference
        assert chosen.answer(ask(oracle, variant)) == expected


def test_a_prompt_of_another_scenario_is_not_retried() -> None:
    oracle = OracleTarget(SCENARIOS["json field"])
    with pytest.raises(TargetError, match="does not know this prompt") as caught:
        asyncio.run(
            oracle(
                TargetRequest.model_validate(
                    {
                        "prompt": {
                            "messages": [
                                {"role": "user", "content": "</script> not one of its prompts"}
                            ]
                        },
                        "seed": 0,
                    }
                )
            )
        )
    assert caught.value.retryable is False


def test_noise_needs_two_choices_and_a_share_between_0_and_1() -> None:
    free = scenario(answers.json_field("answer"))  # any value: no choices to draw from
    with pytest.raises(ExecutionError, match="at least two choices"):
        OracleTarget(free, noise=0.1)
    assert OracleTarget(free).name == "oracle"
    with pytest.raises(ExecutionError, match="noise must be between 0 and 1"):
        OracleTarget(SCENARIOS["json field"], noise=-0.1)


def test_by_name_the_oracle_of_a_shipped_spec() -> None:
    target = reference_target("oracle:pressure")
    assert isinstance(target, OracleTarget)
    assert target.identity == OracleTarget(SCENARIOS["booleans (pressure)"]).identity
