"""The parts of a spec: what varies (``Varied``), numeric slots (``Range``) and the answer."""

from __future__ import annotations

import difflib
import math
import re
from typing import TypeAlias

from pydantic import model_validator

from modelscape._identity import AxisValue
from modelscape._model import FrozenModel
from modelscape.errors import SpecError
from modelscape.task.space import Scale
from modelscape.templates.lexicon import MAX_ENTRIES

__all__ = ["AnswerSpec", "Condition", "Correct", "Range", "Varied", "measure_name", "text_measure"]

#: A group or table condition: one value, or any of several.
Condition: TypeAlias = AxisValue | tuple[AxisValue, ...]
#: The correct answer: one value, a mapping per value of one attribute, or a table of rows.
Correct: TypeAlias = (
    AxisValue | dict[str, dict[AxisValue, AxisValue]] | tuple[dict[str, Condition], ...]
)


class Range(FrozenModel):
    """Numbers from ``start`` up to ``stop`` (included when it falls on a step), ``step`` apart."""

    start: int | float
    stop: int | float
    step: int | float

    @model_validator(mode="after")
    def _check(self) -> Range:
        bounds = {"start": self.start, "stop": self.stop, "step": self.step}
        for name, value in bounds.items():
            if not math.isfinite(value):
                raise SpecError(f"a range needs a finite {name}, not {value}")
        if self.step <= 0:
            raise SpecError(f"a range needs a positive step, not {self.step}")
        if self.stop < self.start:
            raise SpecError(f"a range needs stop >= start, got {self.start}..{self.stop}")
        if (self.stop - self.start) / self.step >= MAX_ENTRIES:
            raise SpecError(
                f"a range of more than {MAX_ENTRIES:,} values is too large for an axis "
                f"({self.start} to {self.stop} by {self.step}); take a larger step"
            )
        return self

    def numbers(self) -> tuple[int | float, ...]:
        """The values of the range, as integers when every bound is an integer."""
        count = min(int((self.stop - self.start) / self.step + 1e-9) + 1, MAX_ENTRIES)
        integral = all(isinstance(v, int) for v in (self.start, self.stop, self.step))
        values: list[int | float] = []
        for index in range(count):
            value = self.start + index * self.step
            values.append(int(value) if integral else round(float(value), 10))
        return tuple(values)


class Varied(FrozenModel):
    """How one attribute varies: its scale and, optionally, which values and which baseline."""

    scale: Scale
    values: tuple[AxisValue, ...] | None = None
    baseline: AxisValue | None = None


class AnswerSpec(FrozenModel):
    """How to read the answer (a JSON field or a text pattern), its choices, and what is correct."""

    field: str | None = None
    pattern: str | None = None
    choices: tuple[AxisValue, ...]
    correct: Correct | None = None


#: ``embedding:`` and an installed module's function; never a file path, since a contributed
#: spec could ship a Python file beside itself and so have it run
_EMBEDDER = re.compile(r"embedding:[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def text_measure(name: str) -> str:
    """``name`` if it names a text measure a spec may list; raises ValueError otherwise."""
    from modelscape.text_measures import TEXT_MEASURES

    if name in TEXT_MEASURES or _EMBEDDER.fullmatch(name):
        return name
    known = [*TEXT_MEASURES, "embedding:MODULE:FUNCTION"]
    hint = difflib.get_close_matches(name, known, n=1)
    extra = f" (did you mean {hint[0]!r}?)" if hint else ""
    raise ValueError(f"unknown text measure {name!r}{extra}; use {', '.join(known)}")


def measure_name(name: str) -> str:
    """The name of the measure a spec's ``measures`` entry makes (what analyses take)."""
    return "embedding_distance" if name.startswith("embedding:") else name
