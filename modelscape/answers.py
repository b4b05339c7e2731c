"""Answer readers: how a scenario reads the answer out of a target's output.

An answer reader is a function ``TargetOutput -> value or None``; None means no answer could
be read, which is a value of its own when answers are compared. Readers carry an identity so
that the measures built on them are named in stored records.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from modelscape._identity import AxisValue, Identity
from modelscape.errors import ModelscapeError
from modelscape.targets._shape import AnswerShape, spelling
from modelscape.targets.protocol import TargetOutput

__all__ = [
    "Answer",
    "FieldAnswer",
    "PatternAnswer",
    "answer_of",
    "json_field",
    "json_reply",
    "shape_of",
    "text_match",
]


@runtime_checkable
class Answer(Protocol):
    """Reads the answer from an output, or None when it cannot."""

    @property
    def identity(self) -> Identity: ...

    def __call__(self, output: TargetOutput) -> AxisValue | None: ...


def shape_of(answer: Answer) -> AnswerShape | None:
    """The shape of the replies ``answer`` reads, when the reader says (the built-in ones do)."""
    shape = getattr(answer, "shape", None)
    return shape if isinstance(shape, AnswerShape) else None


def json_reply(output: TargetOutput) -> dict[str, object]:
    """The JSON object in an output, read from its first ``{`` to its last ``}``.

    Structured output (``output.data``) wins when it is an object. Empty when the output
    holds no JSON object.
    """
    if isinstance(output.data, dict):
        return dict(output.data)
    text = output.text
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return {}
    try:
        value = json.loads(text[start : end + 1])
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _spelled(text: str) -> AxisValue:
    """A string that spells a number or a boolean becomes one; anything else stays text."""
    stripped = text.strip()
    lowered = stripped.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if re.fullmatch(r"[-+]?\d+", stripped):
        return int(stripped)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", stripped):
        number = float(stripped)
        if math.isfinite(number):
            return number
    return stripped


def _normal(value: AxisValue) -> tuple[str, object]:
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    return ("text", " ".join(value.split()).casefold())


class _Chooser:
    """Matches a read value against a fixed set of choices, forgiving case and spacing."""

    def __init__(self, choices: Iterable[AxisValue] | None, where: str) -> None:
        self.choices: tuple[AxisValue, ...] | None = None if choices is None else tuple(choices)
        if self.choices is not None and not self.choices:
            raise ModelscapeError(f"{where}: choices must not be empty")
        self._index = {_normal(c): c for c in self.choices or ()}

    def pick(self, value: object) -> AxisValue | None:
        if value is None or isinstance(value, (dict, list)):
            return None
        if not isinstance(value, (str, int, float, bool)):
            return None
        spelling = value if isinstance(value, str) else json.dumps(value)
        if isinstance(value, str):
            value = _spelled(value)
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if self.choices is None:
            return value
        picked = self._index.get(_normal(value))
        if picked is None:
            # choices written as text ("1", "true") match the reply's spelling, which would
            # otherwise be read as the number or boolean it spells and never match them
            picked = self._index.get(_normal(spelling))
        return picked


class FieldAnswer:
    """Reads one field of a JSON reply; see :func:`json_field`."""

    def __init__(self, name: str, choices: Iterable[AxisValue] | None = None) -> None:
        if not name:
            raise ModelscapeError("json_field: the field name must not be empty")
        self.field = name
        self._last: tuple[TargetOutput, AxisValue | None] | None = None
        self._chooser = _Chooser(choices, f"json_field({name!r})")
        self.choices = self._chooser.choices
        self.identity = Identity(
            kind="answer",
            name="json_field",
            parameters={
                "field": name,
                "choices": None if self.choices is None else list(self.choices),
            },
        )

    def __call__(self, output: TargetOutput) -> AxisValue | None:
        # The built-in measures read the same output three times in a row (correct, answered,
        # answer change); remembering the last output read saves two JSON parses of three.
        last = self._last
        if last is not None and last[0] is output:
            return last[1]
        value = self._chooser.pick(json_reply(output).get(self.field))
        self._last = (output, value)
        return value

    @property
    def shape(self) -> AnswerShape:
        """The replies this reader reads: a JSON object with its field set to one of the
        choices (or to any text, number or boolean when it has none)."""
        return AnswerShape(field=self.field, choices=self.choices)

    def __repr__(self) -> str:
        return f"json_field({self.field!r}, choices={self.choices!r})"


class PatternAnswer:
    """Reads the first match of a regular expression; see :func:`text_match`."""

    def __init__(self, pattern: str, choices: Iterable[AxisValue]) -> None:
        try:
            self.regex = re.compile(pattern)
        except re.error as error:
            raise ModelscapeError(f"text_match: invalid pattern {pattern!r}: {error}") from None
        self.pattern = pattern
        self._last: tuple[TargetOutput, AxisValue | None] | None = None
        self._chooser = _Chooser(choices, f"text_match({pattern!r})")
        self.choices = self._chooser.choices
        self.identity = Identity(
            kind="answer",
            name="text_match",
            parameters={"pattern": pattern, "choices": list(self.choices or ())},
        )

    def __call__(self, output: TargetOutput) -> AxisValue | None:
        last = self._last
        if last is not None and last[0] is output:
            return last[1]
        match = self.regex.search(output.text)
        value = None
        if match is not None:
            value = self._chooser.pick(match.group(1) if self.regex.groups else match.group(0))
        self._last = (output, value)
        return value

    @property
    def shape(self) -> AnswerShape | None:
        """A reply that is exactly one of the choices, when the pattern reads each choice,
        written alone, back as itself; None when it does not (a pattern that needs words
        around the choice, as ``Answer: (yes|no)``), since no such reply would be read."""
        choices = self.choices or ()
        for choice in choices:
            if self(TargetOutput(text=spelling(choice))) != choice:
                return None
        return AnswerShape(choices=choices) if choices else None

    def __repr__(self) -> str:
        return f"text_match({self.pattern!r}, {self.choices!r})"


def json_field(name: str, choices: Iterable[AxisValue] | None = None) -> FieldAnswer:
    """An answer that reads field ``name`` of a JSON reply, such as ``{"verdict": "close"}``.

    Text that spells a number or a boolean becomes one. With ``choices``, the value is matched
    ignoring case and surrounding space, and any other value counts as no answer.
    """
    return FieldAnswer(name, choices)


def text_match(pattern: str, choices: Iterable[AxisValue]) -> PatternAnswer:
    """An answer that reads the first match of ``pattern``, or of its first group.

    A match that spells a number or a boolean becomes one; a value not in ``choices`` (compared
    ignoring case and surrounding space) counts as no answer.
    """
    return PatternAnswer(pattern, choices)


def answer_of(identity: Identity | dict[str, object]) -> Answer:
    """The answer reader a stored identity names, so stored runs can be read again.

    Only the built-in readers (``json_field``, ``text_match``) can be rebuilt; a custom reader
    raises a clear error.
    """
    record = identity if isinstance(identity, Identity) else Identity.model_validate(identity)
    parameters = record.parameters
    choices = parameters.get("choices")
    if choices is not None and not isinstance(choices, list):
        raise ModelscapeError(f"stored answer reader has invalid choices {choices!r}")
    if record.name == "json_field" and isinstance(parameters.get("field"), str):
        return json_field(str(parameters["field"]), choices)  # type: ignore[arg-type]
    if record.name == "text_match" and isinstance(parameters.get("pattern"), str):
        return text_match(str(parameters["pattern"]), choices or ())  # type: ignore[arg-type]
    raise ModelscapeError(
        f"the answer reader {record.name!r} of this run is not a built-in one; build the report "
        "from the scenario in Python: scenario.report(results)"
    )
