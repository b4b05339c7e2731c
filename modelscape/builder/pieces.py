"""Pieces of a prompt: its template text cut into literal text and slots.

A template text such as ``"Is {claim} true?"`` reads as alternating pieces, always starting
and ending with literal text: ``["Is ", "{claim}", " true?"]``. Literal pieces sit at even
positions and slots at odd ones, so two adjacent slots have an empty literal piece between
them (``"{a}{b}"`` is ``["", "{a}", "", "{b}", ""]``). A literal piece holds its text as a
reader sees it: doubled braces, the template's way of writing a literal brace, read as one.
Character offsets into a piece (what ``Builder.mark`` takes and what the widget sends) count
the characters of that text, so they match what the front end displays.

Joining the pieces gives back the template text exactly; every edit of a prompt goes through
these functions so that literal braces stay escaped.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Sequence
from typing import NamedTuple

from modelscape._identity import AxisValue
from modelscape.errors import SpecError

__all__ = [
    "Piece",
    "escape",
    "fill_slot",
    "join",
    "place_slot",
    "rename_slot",
    "slot_names",
    "spelled",
    "split",
]

_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")


class Piece(NamedTuple):
    """One piece of a prompt: literal ``text`` (``slot`` is None) or a slot ``{slot}``.

    For a slot, ``text`` is the placeholder as written between and including its braces.
    """

    text: str
    slot: str | None = None


def escape(text: str) -> str:
    """Literal text written as template text: every brace doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def split(text: str, where: str = "prompt") -> list[Piece]:
    """The pieces of template ``text``; raises SpecError naming ``where`` if braces don't pair."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as error:
        raise SpecError(f"{where}: {error}; write literal braces as {{{{ and }}}}") from None
    pieces = [Piece("")]
    for literal, field, spec, conversion in parsed:
        pieces[-1] = Piece(pieces[-1].text + literal)
        if field is not None:
            written = (
                field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            )
            pieces.extend([Piece("{" + written + "}", field), Piece("")])
    return pieces


def join(pieces: Sequence[Piece]) -> str:
    """The template text of ``pieces``: literal braces doubled, slots as written."""
    return "".join(piece.text if piece.slot is not None else escape(piece.text) for piece in pieces)


def slot_names(text: str) -> list[str]:
    """The slots a template text uses, in order of first use."""
    names: list[str] = []
    for piece in split(text):
        if piece.slot is not None and piece.slot not in names:
            names.append(piece.slot)
    return names


def place_slot(text: str, piece: int, start: int, end: int, slot: str, where: str) -> str:
    """``text`` with characters ``start`` to ``end`` of literal piece ``piece`` made ``{slot}``."""
    pieces = split(text, where)
    literal = selected_piece(pieces, piece, start, end, where)
    cut = [Piece(literal[:start]), Piece("{" + slot + "}", slot), Piece(literal[end:])]
    return join([*pieces[:piece], *cut, *pieces[piece + 1 :]])


def selected_piece(pieces: Sequence[Piece], piece: int, start: int, end: int, where: str) -> str:
    """The text of literal piece ``piece``, after checking that ``start:end`` lies inside it."""
    for name, value in (("piece", piece), ("start", start), ("end", end)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(f"{where}: {name} must be a whole number, not {value!r}")
    if not 0 <= piece < len(pieces):
        raise SpecError(f"{where}: no piece {piece}; the prompt has pieces 0 to {len(pieces) - 1}")
    chosen = pieces[piece]
    if chosen.slot is not None:
        raise SpecError(
            f"{where}: piece {piece} is the slot {chosen.text}; select text in a literal piece "
            "(an even number)"
        )
    if not 0 <= start <= end <= len(chosen.text):
        raise SpecError(
            f"{where}: characters {start} to {end} are not inside piece {piece}, which has "
            f"{len(chosen.text)} characters; give 0 <= start <= end <= {len(chosen.text)}"
        )
    return chosen.text


def rename_slot(text: str, old: str, new: str) -> str:
    """``text`` with every ``{old}`` written ``{new}``."""
    pieces = [
        Piece("{" + new + "}", new)
        if piece.slot == old and piece.text == "{" + old + "}"
        else piece
        for piece in split(text)
    ]
    return join(pieces)


def fill_slot(text: str, slot: str, replacement: str) -> str:
    """``text`` with every ``{slot}`` replaced by the literal text ``replacement``."""
    merged: list[Piece] = []
    for piece in split(text):
        if piece.slot == slot:
            piece = Piece(replacement)
        if merged and merged[-1].slot is None and piece.slot is None:
            merged[-1] = Piece(merged[-1].text + piece.text)
        else:
            merged.append(piece)
    return join(merged)


def spelled(cell: str) -> AxisValue:
    """The number or boolean ``cell`` spells, or ``cell`` itself.

    Integers (``30``, ``-2``), decimals (``2.5``) and ``true``/``false`` in any case count;
    anything else, such as ``007``, ``1e3`` or ``1,000``, stays text, so a label never
    silently turns into a number its writer did not mean.
    """
    if _INTEGER.fullmatch(cell):
        return int(cell)
    if _DECIMAL.fullmatch(cell):
        number = float(cell)
        return number if math.isfinite(number) else cell
    if cell.lower() in ("true", "false"):
        return cell.lower() == "true"
    return cell
