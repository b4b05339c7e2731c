"""Cleaning outputs before they are stored: valid Unicode, and redaction of every text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.targets._cleaning import clean_data, clean_output, clean_text, redact_output
from modelscape.targets.protocol import TargetError, TargetOutput

# Every code point, surrogates included (Hypothesis leaves out category Cs unless told).
ANY_CHARACTER = st.one_of(
    st.characters(exclude_categories=()),
    st.sampled_from(["\ud83d", "\ude00", "\x00", "\u202e", "\u200f", "\ufeff"]),
)


def test_lone_surrogates_become_the_replacement_character() -> None:
    assert clean_text("a\ud83db") == "a\ufffdb"
    assert clean_text("\ude00") == "\ufffd"
    assert clean_text("end\ud83d") == "end\ufffd"


def test_a_split_surrogate_pair_is_joined_into_its_character() -> None:
    assert clean_text("\ud83d\ude00") == "😀"
    assert clean_text("\ude00\ud83d") == "\ufffd\ufffd"  # the wrong order pairs nothing


def test_valid_text_is_kept_as_it_is() -> None:
    for text in ["plain", "", "nul \x00 inside", "\u202eright to left\u202c", "😀 ü ß 中"]:
        assert clean_text(text) is text


@given(st.text(ANY_CHARACTER))
def test_cleaned_text_always_encodes_and_keeps_everything_else(text: str) -> None:
    cleaned = clean_text(text)
    cleaned.encode("utf-8")  # never raises
    json.dumps(cleaned, ensure_ascii=False).encode("utf-8")
    if not any("\ud800" <= c <= "\udfff" for c in text):
        assert cleaned == text
    assert len(cleaned) <= len(text)


def test_every_field_of_an_output_is_cleaned() -> None:
    output = TargetOutput(
        text="a\ud83d",
        data={"k\ude00": ["x\ud83d", {"y": "\ud83d"}], "n": 1},
        model="m\ud83d",
        finish_reason="stop\ud83d",
        error="e\ud83d",
    )
    cleaned = clean_output(output)
    assert cleaned.text == "a\ufffd"
    assert cleaned.data == {"k\ufffd": ["x\ufffd", {"y": "\ufffd"}], "n": 1}
    assert (cleaned.model, cleaned.finish_reason, cleaned.error) == (
        "m\ufffd",
        "stop\ufffd",
        "e\ufffd",
    )
    cleaned.model_dump_json()  # serializable now


def test_a_clean_output_is_returned_unchanged() -> None:
    output = TargetOutput(text="fine", model="m")
    assert clean_output(output) is output


def test_redaction_keeps_the_non_secret_parts_of_lists() -> None:
    secret = "sk-SECRET-1234"
    output = TargetOutput(
        text="ok",
        data={
            "items": ["keep me", secret, {"note": f"before {secret} after"}, 3, None],
            secret: [f"{secret}{secret}", "also kept"],
        },
    )
    redacted = redact_output(output, lambda text: text.replace(secret, "[x]"))
    assert redacted.data == {
        "items": ["keep me", "[x]", {"note": "before [x] after"}, 3, None],
        "[x]": ["[x][x]", "also kept"],
    }


def test_data_nested_too_deeply_fails_with_a_clear_error() -> None:
    deep: object = "leaf"
    for _ in range(100_000):
        deep = [deep]
    output = TargetOutput.model_construct(text="", data=deep)
    with pytest.raises(TargetError, match="nested too deeply"):
        clean_output(output, lambda text: text)
    # Provider targets scrub their replies with redact_output: asking again would return the
    # same nesting, so the error must not be retried.
    with pytest.raises(TargetError, match="nested too deeply") as raised:
        redact_output(output, str.upper)
    assert raised.value.retryable is False


def test_measure_data_is_cleaned_like_outputs() -> None:
    assert clean_data({"k\ud83d": ["a\ude00", {"b": "ok"}, 1, 2.5, True, None]}) == {
        "k\ufffd": ["a\ufffd", {"b": "ok"}, 1, 2.5, True, None]
    }
    assert clean_data("lone \ud83d") == "lone \ufffd"
    for value in (None, 3, 0.5, False, "plain", ["x"]):
        assert clean_data(value) == value
