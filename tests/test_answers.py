"""Answer readers: a JSON reply, one of its fields, or the first match of a pattern."""

from __future__ import annotations

import pytest

from modelscape import TargetOutput, json_field, json_reply, text_match
from modelscape.answers import Answer
from modelscape.errors import ModelscapeError


def _out(text: str = "", data: object = None) -> TargetOutput:
    return TargetOutput(text=text, data=data)  # type: ignore[arg-type]


# -- json_reply ---------------------------------------------------------------------------------


def test_json_reply_reads_from_the_first_to_the_last_brace() -> None:
    text = 'Sure! Here it is: {"verdict": "close", "detail": {"why": "x"}} Hope it helps.'
    assert json_reply(_out(text)) == {"verdict": "close", "detail": {"why": "x"}}
    fenced = '```json\n{"answer": true}\n```'
    assert json_reply(_out(fenced)) == {"answer": True}


@pytest.mark.parametrize(
    "text",
    ["", "no json here", "{not json}", "} backwards {", '["a", "list"]', '{"a": 1} and {"b": 2}'],
)
def test_json_reply_is_empty_without_one_json_object(text: str) -> None:
    assert json_reply(_out(text)) == {}


def test_json_reply_prefers_structured_data() -> None:
    assert json_reply(_out('{"a": 1}', data={"a": 2})) == {"a": 2}
    # data that is not an object does not count; the text is read instead
    assert json_reply(_out('{"a": 1}', data=[1, 2])) == {"a": 1}
    data = {"a": 3}
    reply = json_reply(_out(data=data))
    reply["a"] = 4
    assert data == {"a": 3}


def test_json_reply_survives_deep_nesting() -> None:
    assert json_reply(_out("{" * 100_000 + "}" * 100_000)) == {}


# -- json_field ---------------------------------------------------------------------------------


def test_json_field_without_choices_reads_any_scalar() -> None:
    read = json_field("verdict")
    assert read(_out('{"verdict": "close"}')) == "close"
    assert read(_out('{"verdict": "  spaced  "}')) == "spaced"
    assert read(_out('{"verdict": 3}')) == 3
    assert read(_out('{"verdict": "3"}')) == 3
    assert read(_out('{"verdict": "2.5"}')) == 2.5
    assert read(_out('{"verdict": "TRUE"}')) is True
    assert read(_out('{"verdict": false}')) is False


@pytest.mark.parametrize(
    "text",
    [
        "no json",
        '{"other": "close"}',
        '{"verdict": null}',
        '{"verdict": ["close"]}',
        '{"verdict": {"value": "close"}}',
        '{"verdict": Infinity}',
        '{"verdict": NaN}',
    ],
)
def test_json_field_reads_no_answer_from_other_values(text: str) -> None:
    assert json_field("verdict")(_out(text)) is None
    assert json_field("verdict", ["close"])(_out(text)) is None


def test_json_field_with_choices_returns_the_canonical_choice() -> None:
    read = json_field("decision", ["Approve", "decline", "needs review"])
    assert read(_out('{"decision": "approve"}')) == "Approve"
    assert read(_out('{"decision": " DECLINE "}')) == "decline"
    assert read(_out('{"decision": "Needs   Review"}')) == "needs review"
    assert read(_out('{"decision": "maybe"}')) is None


def test_json_field_with_numeric_and_boolean_choices() -> None:
    flags = json_field("answer", [True, False])
    assert flags(_out('{"answer": true}')) is True
    assert flags(_out('{"answer": "False"}')) is False
    assert flags(_out('{"answer": 1}')) is None
    assert flags(_out('{"answer": "yes"}')) is None
    numbers = json_field("days", [30, 32.5])
    assert numbers(_out('{"days": "30"}')) == 30
    assert numbers(_out('{"days": 30.0}')) == 30
    assert numbers(_out('{"days": 32.5}')) == 32.5
    assert numbers(_out('{"days": true}')) is None
    assert numbers(_out('{"days": 31}')) is None


def test_choices_written_as_text_match_their_spelling() -> None:
    quoted = json_field("answer", ["true", "false", "1"])
    assert quoted(_out('{"answer": true}')) == "true"
    assert quoted(_out('{"answer": "FALSE"}')) == "false"
    assert quoted(_out('{"answer": 1}')) == "1"
    assert text_match(r"level (\w+)", ["1", "2"])(_out("level 2")) == "2"


def test_json_field_identity_and_errors() -> None:
    read = json_field("decision", ["approve", "decline"])
    assert isinstance(read, Answer)
    assert read.identity.name == "json_field"
    assert read.identity.parameters == {"field": "decision", "choices": ["approve", "decline"]}
    assert json_field("decision").identity.parameters == {"field": "decision", "choices": None}
    assert json_field("decision").identity.id != read.identity.id
    assert repr(read) == "json_field('decision', choices=('approve', 'decline'))"
    with pytest.raises(ModelscapeError, match="json_field: the field name must not be empty"):
        json_field("")
    with pytest.raises(ModelscapeError, match=r"json_field\('decision'\): choices must not be"):
        json_field("decision", [])


# -- text_match ---------------------------------------------------------------------------------


def test_text_match_reads_the_first_match() -> None:
    read = text_match(r"\b(?:yes|no)\b", ["yes", "no"])
    assert read(_out("Well, no. Then yes.")) == "no"
    assert read(_out("YES")) is None  # the pattern decides what matches; case is the pattern's
    assert read(_out("nothing")) is None


def test_text_match_reads_the_first_group() -> None:
    read = text_match(r"(?i)answer:\s*(yes|no)", ["Yes", "No"])
    assert read(_out("My answer: NO, final.")) == "No"
    optional = text_match(r"answer(:\s*\w+)?", ["x"])
    assert optional(_out("answer")) is None  # the group did not take part


def test_text_match_spells_numbers_and_booleans() -> None:
    days = text_match(r"(\d+) days", [30, 31])
    assert days(_out("about 30 days")) == 30
    assert days(_out("about 29 days")) is None
    flags = text_match(r"eligible: (\w+)", [True, False])
    assert flags(_out("eligible: False")) is False
    assert flags(_out("eligible: unsure")) is None


def test_text_match_errors_name_the_pattern() -> None:
    with pytest.raises(ModelscapeError, match=r"text_match: invalid pattern '\(yes'"):
        text_match("(yes", ["yes"])
    with pytest.raises(ModelscapeError, match="choices must not be empty"):
        text_match("yes", [])
    read = text_match("(yes|no)", ["yes", "no"])
    assert read.identity.parameters == {"pattern": "(yes|no)", "choices": ["yes", "no"]}
    assert repr(read) == "text_match('(yes|no)', ('yes', 'no'))"
