"""The reference targets reply as documented, and by the prompt and the seed hint alone.

``echo``, ``constant``, ``random``, ``scripted`` and ``planted`` answer without a model, so a
pipeline runs offline and a planted behaviour can be found again. Each property asks a target
with any prompt (hostile text included) and any seed hint and checks the documented reply;
asking again, or asking a second target made the same way, gives the same reply, whatever was
asked in between.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.errors import ExecutionError
from modelscape.targets import (
    ConstantTarget,
    EchoTarget,
    Flip,
    PlantedTarget,
    RandomTarget,
    ScriptedTarget,
    reference_target,
)
from modelscape.targets.protocol import Target, TargetError, TargetOutput, TargetRequest
from modelscape.task.prompt import Message, Prompt
from tests.records import hostile

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(-(2**63), 2**63 - 1)
texts = hostile.valid_text
words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)


def ask(target: Target, prompt: Prompt | str, seed: int = 0, repetition: int = 0) -> TargetOutput:
    request = TargetRequest(
        prompt=prompt if isinstance(prompt, Prompt) else Prompt.of(prompt),
        seed=seed,
        repetition=repetition,
    )
    return asyncio.run(target(request))


def asked_twice(make: Any, prompt: str, seed: int, between: Sequence[str] = ()) -> TargetOutput:
    """The reply of a target made by ``make``, checked to be the reply of a second one made
    the same way, and of the first asked again after other prompts."""
    first, second = make(), make()
    reply = ask(first, prompt, seed)
    for other in between:
        ask(first, other, seed + 1)
    assert ask(first, prompt, seed) == reply
    assert ask(second, prompt, seed) == reply
    return reply


# -- echo and constant ----------------------------------------------------------------------------
@SETTINGS
@given(messages=st.lists(texts, min_size=1, max_size=4), system=st.none() | texts, seed=seeds)
def test_echo_replies_with_the_last_message_exactly(
    messages: list[str], system: str | None, seed: int
) -> None:
    roles = ["user", "assistant"]
    prompt = Prompt(
        system=system,
        messages=(
            *(
                Message(role=roles[i % 2], content=text)  # type: ignore[arg-type]
                for i, text in enumerate(messages[:-1])
            ),
            Message(role="user", content=messages[-1]),
        ),
    )
    reply = ask(EchoTarget(), prompt, seed)
    assert reply == TargetOutput(text=messages[-1], model="echo")


@SETTINGS
@given(text=texts, prompt=texts, seed=seeds, between=st.lists(texts, max_size=3))
def test_constant_replies_with_its_text_whatever_it_is_asked(
    text: str, prompt: str, seed: int, between: list[str]
) -> None:
    reply = asked_twice(lambda: ConstantTarget(text), prompt, seed, between)
    assert reply == TargetOutput(text=text, model="constant")


# -- random ---------------------------------------------------------------------------------------
@SETTINGS
@given(
    choices=st.lists(words, min_size=1, max_size=5),
    prompt=texts,
    seed=seeds,
    between=st.lists(texts, max_size=3),
)
def test_random_draws_one_choice_from_the_seed_hint_alone(
    choices: list[str], prompt: str, seed: int, between: list[str]
) -> None:
    reply = asked_twice(lambda: RandomTarget(choices), prompt, seed, between)
    assert reply.text == random.Random(seed).choice(choices)
    assert reply.model == "random"
    assert ask(RandomTarget(choices), "another prompt", seed) == reply  # the prompt is ignored


def test_random_varies_over_seeds_and_needs_a_choice() -> None:
    drawn = {ask(RandomTarget(["a", "b", "c"]), "q", seed).text for seed in range(60)}
    assert drawn == {"a", "b", "c"}
    with pytest.raises(ExecutionError, match="at least one choice"):
        RandomTarget([])
    # By name, choices are split at commas and stripped, empty ones dropped.
    assert reference_target("random: a ,, b ").parameters["choices"] == ["a", "b"]
    with pytest.raises(ExecutionError, match="at least one choice"):
        reference_target("random: , ,")


# -- scripted -------------------------------------------------------------------------------------
replies = st.one_of(
    texts,
    st.dictionaries(words, st.none() | st.integers() | words, max_size=3),
    st.lists(st.integers() | words, max_size=3),
)


def scripted(script: dict[str, Any], default: Any, prompt: str) -> Any:
    """The reply the documented rule picks: the first marker, in order, found in the prompt."""
    for marker, reply in script.items():
        if marker in prompt:
            return reply
    return default


@SETTINGS
@given(
    script=st.dictionaries(words, replies, max_size=4),
    default=st.none() | replies,
    prompt=texts,
    seed=seeds,
)
def test_scripted_replies_with_the_first_marker_found_in_order(
    script: dict[str, Any], default: Any, prompt: str, seed: int
) -> None:
    # Some prompts hold markers, in any order.
    prompt = prompt + "".join(reversed(list(script)[: seed % 3]))
    expected = scripted(script, default, prompt)
    make = lambda: ScriptedTarget(script, default=default)  # noqa: E731
    if expected is None:
        with pytest.raises(TargetError, match="no entry of the script") as caught:
            ask(make(), prompt, seed)
        assert caught.value.retryable is False
        return
    reply = asked_twice(make, prompt, seed)
    if isinstance(expected, str):
        assert reply == TargetOutput(text=expected)
    else:  # JSON: stored as data, its text the JSON itself
        assert reply.data == expected
        assert json.loads(reply.text) == expected


def test_scripted_by_function_and_a_reply_that_is_not_json() -> None:
    shout = ScriptedTarget(lambda text: text.upper() + "\x00")
    assert ask(shout, "é</script>").text == "É</SCRIPT>\x00"
    with pytest.raises(TargetError, match="not JSON") as caught:
        ask(ScriptedTarget({"q": {"answer": math.nan}}), "q")
    assert caught.value.retryable is False
    with pytest.raises(TargetError, match=r"returned int") as caught:
        ask(ScriptedTarget(lambda text: 3), "q")  # type: ignore[arg-type, return-value]
    assert caught.value.retryable is False


# -- planted --------------------------------------------------------------------------------------
LEVEL = r"level (-?\d+)"


def planted_rule(prompt: str, answer: str, flips: list[Flip]) -> Any:
    """The documented rule, before noise: the first flip that applies, else what the answer
    pattern reads (its first group, or the whole match)."""
    for flip in flips:
        found = re.search(flip.marker, prompt)
        if found is None:
            continue
        if flip.above is None:
            return flip.answer
        try:
            if float(found.group(1)) > flip.above:
                return flip.answer
        except (IndexError, ValueError):
            continue
    read = re.search(answer, prompt)
    if read is None:
        return None
    return read.group(1) if re.compile(answer).groups else read.group(0)


flips = st.lists(
    st.builds(
        Flip,
        marker=st.sampled_from([LEVEL, "professor", "level", r"(x)"]),
        answer=st.none() | st.booleans() | st.integers() | words,
        # Whole numbers too: a level equal to the threshold does not flip.
        above=st.none() | st.integers(-3, 5).map(float) | st.floats(-5, 5),
    ),
    max_size=3,
)


@SETTINGS
@given(
    flips=flips,
    answer=st.sampled_from([r"Fact: (\w+)\.", r"Fact: \w+", "nothing here"]),
    level=st.integers(-3, 5),
    who=st.sampled_from(["Ann", "a professor", "x"]),
    fact=st.sampled_from(["yes", "no", "ü"]),
    seed=seeds,
)
def test_planted_replies_by_its_rule_of_the_prompt(
    flips: list[Flip], answer: str, level: int, who: str, fact: str, seed: int
) -> None:
    prompt = f"{who} insists. Fact: {fact}.\nPressure level {level}"
    make = lambda: PlantedTarget(answer, flips=flips, field="a\x00")  # noqa: E731
    reply = asked_twice(make, prompt, seed)
    expected = planted_rule(prompt, answer, flips)
    assert reply.data == {"a\x00": expected}
    assert reply.text == json.dumps({"a\x00": expected})
    assert reply.model == "planted"


def ask_many(target: Target, prompt: str, seeds: range) -> list[Any]:
    """The answers to one prompt under many seed hints, asked on one event loop."""

    async def every() -> list[TargetOutput]:
        return [await target(TargetRequest(prompt=Prompt.of(prompt), seed=s)) for s in seeds]

    return [reply.data["answer"] for reply in asyncio.run(every())]  # type: ignore[index]


@pytest.mark.parametrize("noise", [0.05, 0.5, 0.9])
def test_planted_noise_answers_another_choice_for_its_share_of_seeds(noise: float) -> None:
    target = PlantedTarget(r"Fact: (\w+)", noise=noise, choices=["yes", "no", "maybe"])
    answers = ask_many(target, "Fact: yes", range(2000))
    assert set(answers) == {"yes", "no", "maybe"}
    flipped = sum(a != "yes" for a in answers) / len(answers)
    # Binomial(2000, noise): four standard deviations either way.
    assert abs(flipped - noise) <= 4 * math.sqrt(noise * (1 - noise) / len(answers))
    assert ask_many(target, "Fact: yes", range(2000)) == answers
    again = PlantedTarget(r"Fact: (\w+)", noise=noise, choices=["yes", "no", "maybe"])
    assert ask_many(again, "Fact: yes", range(2000)) == answers


def test_planted_checks_what_it_is_given() -> None:
    with pytest.raises(ExecutionError, match=r"noise must be between 0 and 1, not 1\.5"):
        PlantedTarget("x", noise=1.5, choices=["a", "b"])
    with pytest.raises(ExecutionError, match="at least two choices"):
        PlantedTarget("x", noise=0.5, choices=["a"])
    with pytest.raises(ExecutionError, match=r"invalid pattern '\('"):
        PlantedTarget("(")
