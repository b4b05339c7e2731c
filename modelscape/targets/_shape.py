"""The shape of an answer: what a scenario's answer reader can read, for targets that can
constrain a model's reply to it.

A scenario's reader knows the answers it accepts: ``json_field('verdict', ['yes', 'no'])`` reads
a JSON object with one field whose value is one of two choices; ``text_match`` with choices
reads a reply that names one of them. An :class:`AnswerShape` carries that knowledge to a
target, which may then ask its provider for output of exactly that shape (a JSON schema, a
tool's input schema, a grammar). The shape is the same for every variant of a scenario, so a
target still cannot tell which variant it is answering.

Two spellings of one shape are made here, so that every provider writes the same thing:
:meth:`AnswerShape.json_schema` (OpenAI's structured outputs, a tool's input schema) and
:meth:`AnswerShape.grammar` (llama.cpp's GBNF, which can also constrain a reply that is not
JSON).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import model_validator

from modelscape._model import FrozenModel

__all__ = ["AnswerShape", "spelling"]

# A JSON string value that a grammar allows when a field takes any value: bounded, so that a
# model cannot spend its whole reply on one string.
_ANY_STRING = r'"\"" [^"\\\x00-\x1F]{0,100} "\""'
_ANY_NUMBER = r'"-"? [0-9]{1,15} ("." [0-9]{1,15})?'


def spelling(value: str | int | float | bool) -> str:
    """How a value is written in a reply: text as it is, anything else as JSON writes it."""
    return value if isinstance(value, str) else json.dumps(value)


def _literal(text: str) -> str:
    """``text`` as a GBNF string literal (every character but quotes, backslashes and control
    characters stands for itself)."""
    escaped = []
    for char in text:
        if char in '"\\':
            escaped.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\x{ord(char):02X}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


def _json_type(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


class AnswerShape(FrozenModel):
    """The replies an answer reader can read.

    With a ``field``, a JSON object holding that one field, whose value is one of ``choices``
    (or any text, number or boolean when ``choices`` is None). Without one, a plain reply that
    is exactly one of ``choices``, each written as :func:`spelling` writes it.
    """

    field: str | None = None
    choices: tuple[str | int | float | bool, ...] | None = None

    @model_validator(mode="after")
    def _readable(self) -> AnswerShape:
        if self.field is None and not self.choices:
            raise ValueError("a plain-text answer shape needs its choices")
        if self.choices is not None and not self.choices:
            raise ValueError("choices must not be empty")
        return self

    def describe(self) -> str:
        """The shape in a few words, for messages."""
        options = "any value" if self.choices is None else " or ".join(map(spelling, self.choices))
        if self.field is None:
            return f"a reply that is exactly {options}"
        return f"a JSON object with field {self.field!r} set to {options}"

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the replies (only for a shape with a ``field``).

        It is written in the subset that OpenAI's strict structured outputs accept: every
        property required, no others allowed, each value typed.
        """
        if self.field is None:
            raise ValueError("a plain-text answer has no JSON schema")
        value: dict[str, Any]
        if self.choices is None:
            value = {"type": ["string", "number", "boolean"]}
        else:
            types = sorted({_json_type(c) for c in self.choices})
            value = {"type": types[0] if len(types) == 1 else types, "enum": list(self.choices)}
        return {
            "type": "object",
            "properties": {self.field: value},
            "required": [self.field],
            "additionalProperties": False,
        }

    def grammar(self) -> str:
        """The replies as a llama.cpp GBNF grammar: nothing before or after them."""
        if self.choices is None:
            values = [_ANY_STRING, _ANY_NUMBER, '"true"', '"false"']
        elif self.field is None:
            values = [_literal(spelling(c)) for c in self.choices]
        else:
            values = [_literal(json.dumps(c, ensure_ascii=False)) for c in self.choices]
        rules = [f"value ::= {' | '.join(values)}"]
        if self.field is None:
            rules.insert(0, "root ::= value")
        else:
            key = _literal(json.dumps(self.field, ensure_ascii=False))
            rules.insert(0, f'root ::= "{{" space {key} space ":" space value space "}}"')
            rules.append('space ::= " "?')
        return "\n".join(rules) + "\n"
