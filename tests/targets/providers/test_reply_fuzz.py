"""Every reply reader of the new providers, fuzzed: any JSON object gives an output or a
TargetError, never another exception.

Two kinds of input: any JSON object at all, and replies of each protocol's shape whose fields
hold any JSON, which reach deeper into each reader than random objects do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.targets.protocol import TargetError, TargetOutput
from modelscape.targets.providers._chat import read_chat_completion
from modelscape.targets.providers.bedrock import read_converse
from modelscape.targets.providers.gemini import read_generate_content
from modelscape.targets.providers.responses import read_response

TEXT = st.text(st.characters(exclude_categories=()), max_size=20)  # surrogates included
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
ANY_JSON = st.recursive(
    SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=20,
)


def anything_or(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Either the expected value or any JSON in its place."""
    return st.one_of(value, ANY_JSON)


def objects(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with some of ``fields`` (each the expected form or anything) and any others."""
    return st.fixed_dictionaries(
        {}, optional={name: anything_or(value) for name, value in fields.items()}
    ).flatmap(
        lambda known: st.dictionaries(TEXT, ANY_JSON, max_size=2).map(
            lambda extra: {**extra, **known}
        )
    )


COUNTS = st.integers(min_value=-5, max_value=10**20)
RESPONSES = objects(
    {
        "status": st.sampled_from(["completed", "incomplete", "failed", "in_progress"]),
        "model": TEXT,
        "output_text": TEXT,
        "error": objects({"message": TEXT}),
        "incomplete_details": objects({"reason": TEXT}),
        "usage": objects({"input_tokens": COUNTS, "output_tokens": COUNTS}),
        "output": st.lists(
            objects(
                {
                    "type": st.sampled_from(["message", "reasoning"]),
                    "content": st.lists(
                        objects(
                            {
                                "type": st.sampled_from(["output_text", "refusal"]),
                                "text": TEXT,
                                "refusal": TEXT,
                            }
                        ),
                        max_size=3,
                    ),
                }
            ),
            max_size=3,
        ),
    }
)
GEMINI = objects(
    {
        "modelVersion": TEXT,
        "promptFeedback": objects({"blockReason": TEXT}),
        "usageMetadata": objects(
            {
                "promptTokenCount": COUNTS,
                "candidatesTokenCount": COUNTS,
                "thoughtsTokenCount": COUNTS,
            }
        ),
        "candidates": st.lists(
            objects(
                {
                    "finishReason": TEXT,
                    "content": objects(
                        {
                            "parts": st.lists(
                                objects({"text": TEXT, "thought": st.booleans()}), max_size=3
                            )
                        }
                    ),
                }
            ),
            max_size=2,
        ),
    }
)
CONVERSE = objects(
    {
        "stopReason": TEXT,
        "message": TEXT,
        "usage": objects({"inputTokens": COUNTS, "outputTokens": COUNTS}),
        "output": objects(
            {
                "message": objects(
                    {
                        "content": st.lists(
                            objects(
                                {
                                    "text": TEXT,
                                    "toolUse": objects(
                                        {"name": st.just("answer"), "input": ANY_JSON}
                                    ),
                                }
                            ),
                            max_size=3,
                        )
                    }
                )
            }
        ),
    }
)
CHAT = objects(
    {
        "model": TEXT,
        "usage": objects({"prompt_tokens": COUNTS, "completion_tokens": COUNTS}),
        "choices": st.lists(
            objects(
                {
                    "finish_reason": TEXT,
                    "message": objects({"content": anything_or(TEXT), "refusal": TEXT}),
                }
            ),
            max_size=2,
        ),
    }
)

Reader = Callable[[dict[str, Any]], TargetOutput]
READERS: dict[str, tuple[Reader, st.SearchStrategy[dict[str, Any]]]] = {
    "openai-responses": (lambda p: read_response(p, provider="openai-responses"), RESPONSES),
    "gemini": (lambda p: read_generate_content(p, provider="gemini"), GEMINI),
    "bedrock": (lambda p: read_converse(p, provider="bedrock"), CONVERSE),
    "bedrock-structured": (
        lambda p: read_converse(p, provider="bedrock", structured=True),
        CONVERSE,
    ),
    "azure-openai": (lambda p: read_chat_completion(p, provider="azure-openai"), CHAT),
}


def read_or_refuse(reader: Reader, payload: dict[str, Any]) -> None:
    refusal: TargetError | None = None
    try:
        output = reader(payload)
    except TargetError as error:
        refusal = error
    if refusal is not None:
        assert str(refusal)  # a clear message, never an empty one
        return
    assert isinstance(output, TargetOutput)
    assert isinstance(output.text, str)
    if output.usage is not None:
        assert output.usage.input_tokens >= 0
        assert output.usage.output_tokens >= 0


@pytest.mark.parametrize("name", sorted(READERS))
@given(data=st.data())
def test_any_json_object_is_read_or_refused(name: str, data: st.DataObject) -> None:
    reader, _ = READERS[name]
    read_or_refuse(reader, data.draw(st.dictionaries(TEXT, ANY_JSON, max_size=5)))


@pytest.mark.parametrize("name", sorted(READERS))
@given(data=st.data())
def test_replies_of_the_protocols_shape_are_read_or_refused(name: str, data: st.DataObject) -> None:
    reader, shaped = READERS[name]
    read_or_refuse(reader, data.draw(shaped))
