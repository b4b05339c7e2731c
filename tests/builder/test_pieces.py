"""Pieces: a prompt cut into literal text and slots, and back, exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.builder.pieces import (
    Piece,
    escape,
    fill_slot,
    join,
    place_slot,
    rename_slot,
    slot_names,
    spelled,
    split,
)
from modelscape.errors import SpecError


def test_pieces_alternate_literal_text_and_slots() -> None:
    assert [p.text for p in split("Is {claim} true?")] == ["Is ", "{claim}", " true?"]
    assert split("{a}{b}") == [
        Piece(""),
        Piece("{a}", "a"),
        Piece(""),
        Piece("{b}", "b"),
        Piece(""),
    ]
    assert split("") == [Piece("")]


def test_doubled_braces_read_as_one_and_join_doubles_them_again() -> None:
    text = 'Reply {{"ok": {answer}}} now'
    pieces = split(text)
    assert pieces == [Piece('Reply {"ok": '), Piece("{answer}", "answer"), Piece("} now")]
    assert join(pieces) == text


@given(st.lists(st.one_of(st.text(max_size=8), st.sampled_from(["a", "b_1", "x"])), max_size=6))
def test_join_gives_back_any_template_text(parts: list[str]) -> None:
    text = "".join(
        "{" + part + "}" if part in ("a", "b_1", "x") else escape(part) for part in parts
    )
    assert join(split(text)) == text


def test_unpaired_braces_are_reported_with_how_to_write_them() -> None:
    with pytest.raises(SpecError, match=r"prompt: .*literal braces as \{\{ and \}\}"):
        split("a { b")


def test_placing_renaming_and_filling_slots() -> None:
    text = "Is {{it}} {x} in {place}?"
    assert place_slot(text, 0, 3, 7, "it", "mark") == "Is {it} {x} in {place}?"
    assert place_slot("Is Paris big?", 0, 3, 8, "city", "mark") == "Is {city} big?"
    assert place_slot("{a} and {b}", 2, 0, 0, "c", "mark") == "{a}{c} and {b}"
    assert rename_slot(text, "x", "y") == "Is {{it}} {y} in {place}?"
    assert fill_slot(text, "x", "a {brace}") == "Is {{it}} a {{brace}} in {place}?"
    assert slot_names("{a} {b} {a}") == ["a", "b"]


@pytest.mark.parametrize(
    ("piece", "start", "end", "message"),
    [
        (1, 0, 1, "piece 1 is the slot {x}"),
        (5, 0, 1, "no piece 5"),
        (0, 2, 1, "characters 2 to 1 are not inside piece 0"),
        (0, 0, 99, "which has 3 characters"),
        (0, "0", 1, "start must be a whole number"),
    ],
)
def test_selections_outside_a_literal_piece_are_refused(
    piece: int, start: int, end: int, message: str
) -> None:
    with pytest.raises(SpecError, match=message.replace("{", r"\{").replace("}", r"\}")):
        place_slot("Is {x}?", piece, start, end, "y", "mark")


@pytest.mark.parametrize(
    ("cell", "value"),
    [
        ("30", 30),
        ("-2", -2),
        ("2.5", 2.5),
        ("true", True),
        ("False", False),
        ("007", "007"),
        ("1e3", "1e3"),
        ("1,000", "1,000"),
        ("yes", "yes"),
        ("", ""),
    ],
)
def test_cells_that_spell_numbers_or_booleans_become_them(cell: str, value: object) -> None:
    result = spelled(cell)
    assert result == value
    assert type(result) is type(value)
