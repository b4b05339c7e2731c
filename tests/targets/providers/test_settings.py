"""The two settings objects a provider constructor takes, and the flat options of a targets.yaml
that each kind's factory turns into them (design note 040).

A target made in Python from a ``Generation`` and an ``HttpOptions`` must be the very target
that ``resolve_target`` makes from the same values written flat, and a kind must refuse a
generation parameter it has no way to send rather than drop it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from modelscape.errors import ExecutionError
from modelscape.targets._resolve import resolve_target
from modelscape.targets.providers import (
    AnthropicTarget,
    BedrockTarget,
    GeminiTarget,
    Generation,
    HttpOptions,
    OpenAICompatibleTarget,
    OpenAIResponsesTarget,
    Price,
    TargetOptions,
)
from modelscape.targets.providers._settings import GENERATION_FIELDS

LOCAL = "http://127.0.0.1:9"


def test_both_objects_are_frozen_and_refuse_unknown_keys() -> None:
    with pytest.raises(ValidationError, match="temprature"):
        Generation(temprature=0.5)  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="timeout"):
        HttpOptions(timeout=3)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        HttpOptions(max_concurrency=0)
    generation = Generation(temperature=0.5)
    with pytest.raises(ValidationError):
        generation.temperature = 0.7  # type: ignore[misc]


def test_the_old_keywords_are_gone_from_the_constructors() -> None:
    with pytest.raises(TypeError, match="temperature"):
        OpenAICompatibleTarget("m", base_url=LOCAL, temperature=0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="max_concurrency"):
        GeminiTarget("g", base_url=LOCAL, max_concurrency=2)  # type: ignore[call-arg]


def test_target_options_split_into_the_two_objects_keeping_what_was_given() -> None:
    options = TargetOptions(temperature=0.2, stop="END", max_concurrency=3, name="n")
    assert options.generation == Generation(temperature=0.2, stop=("END",))
    assert options.generation.model_fields_set == {"temperature", "stop"}
    assert options.http == HttpOptions(max_concurrency=3)
    assert options.http.model_fields_set == {"max_concurrency"}
    # Every field of both objects is an option a targets.yaml may write, under the same name.
    assert set(Generation.model_fields) | set(HttpOptions.model_fields) <= set(
        TargetOptions.model_fields
    )


@pytest.mark.parametrize(
    ("make", "refused"),
    [
        (lambda g: AnthropicTarget("c", base_url=LOCAL, generation=g), {"seed"}),
        (
            lambda g: BedrockTarget("b", region="eu-west-1", base_url=LOCAL, generation=g),
            {"seed"},
        ),
        (lambda g: OpenAIResponsesTarget("r", base_url=LOCAL, generation=g), {"seed", "stop"}),
    ],
)
def test_a_kind_refuses_a_parameter_it_cannot_send(make: Any, refused: set[str]) -> None:
    for name in refused:
        value = False if name == "seed" else ("x",)
        with pytest.raises(ExecutionError, match=f"{name} does not apply"):
            make(Generation(**{name: value}))
    target = make(Generation(temperature=0.1))
    # Neither sent nor hashed: the identity holds only what the kind has.
    assert not refused & set(target.parameters)
    assert target.parameters["temperature"] == 0.1


def test_limited_to_turns_off_what_a_kind_lacks() -> None:
    limited = Generation(temperature=0.3).limited_to({"temperature"}, where="here")
    assert (limited.seed, limited.stop, limited.temperature) == (False, None, 0.3)
    assert Generation().identity(takes={"top_p"}) == {"top_p": None}
    assert list(Generation().identity()) == list(GENERATION_FIELDS)


def test_the_http_options_reach_the_target() -> None:
    price = Price(input=1, output=2)
    target = OpenAICompatibleTarget(
        "m",
        base_url=LOCAL,
        http=HttpOptions(max_concurrency=5, max_response_bytes=100, price=price),
    )
    assert (target.limiter.maximum, target.max_response_bytes, target.price) == (5, 100, price)
    plain = OpenAICompatibleTarget("m", base_url=LOCAL)
    # None of it is in the identity.
    assert target.identity == plain.identity


_generations = st.fixed_dictionaries(
    {},
    optional={
        "temperature": st.floats(0, 2, allow_nan=False),
        "max_tokens": st.integers(1, 4096),
        "top_p": st.floats(0.01, 1, allow_nan=False),
        "seed": st.booleans(),
        "stop": st.lists(st.text(min_size=1, max_size=5), max_size=3),
    },
)
_http = st.fixed_dictionaries(
    {},
    optional={
        "max_concurrency": st.integers(1, 10_000),
        "allow_http_key": st.booleans(),
        "max_response_bytes": st.integers(1, 1 << 30),
    },
)


@settings(max_examples=60, deadline=None)
@given(generation=_generations, http=_http, kind=st.sampled_from(["openai-compatible", "gemini"]))
def test_a_target_from_objects_is_the_target_a_name_and_flat_options_make(
    generation: dict[str, Any], http: dict[str, Any], kind: str
) -> None:
    named = resolve_target(f"{kind}:m@{LOCAL}/v1", **generation, **http)
    made_class = OpenAICompatibleTarget if kind == "openai-compatible" else GeminiTarget
    made = made_class(
        "m", base_url=f"{LOCAL}/v1", generation=Generation(**generation), http=HttpOptions(**http)
    )
    assert named.identity == made.identity
    assert named.identity.id == made.identity.id
    assert isinstance(named, made_class)
    assert named.http == made.http
