"""Text from a target, made safe to store: valid Unicode, and no secret left in it.

Everything a target returns crosses into the store through :func:`clean_output`, once, before
any other code reads it:

- **Unpaired surrogates** (``"\\ud83d"`` is a valid JSON escape, and models emit it) cannot be
  encoded as UTF-8, so one of them would make the whole write of its batch fail. A surrogate
  pair split over two code points is joined into the character it spells; a lone surrogate
  becomes U+FFFD, the replacement character. NUL, right-to-left marks and every other code
  point are valid Unicode and are kept as they are.
- **Secrets**: a redactor (the runner's ``redact``, or a provider target's key scrubber) runs on
  every string, JSON keys included, on the whole text: nothing is cut before it is scrubbed,
  so a secret cannot leak half of itself across a cut.

- **Numbers JSON cannot hold**: NaN and the infinities (Python's ``json`` reads ``NaN`` and
  ``Infinity`` in a provider's reply) become None, in the data and as the latency or cost. The
  SQLite store writes JSON, which made them null, while the memory store kept them, so one run
  read back differently by store.

A measure's details and a keyed measure's key come from user code and are stored beside the
outputs, so :func:`clean_data` makes their text valid Unicode too.

An output nested too deeply to walk cannot be stored either; it fails as a non-retryable
:class:`~modelscape.targets.protocol.TargetError` naming the problem.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, TypeAlias

from modelscape._identity import JsonValue
from modelscape._model import trusted
from modelscape.targets.protocol import TargetError, TargetOutput, Usage

__all__ = ["Redactor", "clean_data", "clean_output", "clean_text", "redact_output"]

#: A function that removes secrets from text before anything is stored.
Redactor: TypeAlias = Callable[[str], str]

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` as valid Unicode: surrogate pairs joined, lone surrogates replaced by U+FFFD."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    # UTF-16 with surrogatepass writes every code point as it is, so a decoder sees a split
    # pair as the pair it is and a lone half as an error, which "replace" turns into U+FFFD.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_data(value: JsonValue) -> JsonValue:
    """JSON data with every string in it, keys included, made valid Unicode by :func:`clean_text`.

    A measure's details and a keyed measure's key are computed by user code and stored beside
    the outputs, so they cross the same boundary: a lone surrogate in them would make their
    write fail.
    """
    return _walk(value, clean_text)  # type: ignore[no-any-return]


def _both(redact: Redactor | None) -> Redactor:
    if redact is None:
        return clean_text
    return lambda text: redact(clean_text(text))


def _walk(value: Any, fix: Redactor) -> Any:
    if isinstance(value, str):
        return fix(value)
    if isinstance(value, list):
        return [_walk(item, fix) for item in value]
    if isinstance(value, dict):
        return {fix(str(key)): _walk(item, fix) for key, item in value.items()}
    return value


def _walk_data(value: Any, fix: Redactor) -> Any:
    """An output's data walked as :func:`_walk` does, with NaN and infinities made None."""
    if isinstance(value, str):
        return fix(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list):
        return [_walk_data(item, fix) for item in value]
    if isinstance(value, dict):
        return {fix(str(key)): _walk_data(item, fix) for key, item in value.items()}
    return value


def _finite(number: float | None) -> float | None:
    return number if number is None or math.isfinite(number) else None


def redact_output(output: TargetOutput, redact: Redactor | None) -> TargetOutput:
    """``output`` with every piece of text cleaned, and redacted by ``redact`` when given; its
    numbers made ones JSON can hold."""
    fix = _both(redact)
    try:
        data: JsonValue = None if output.data is None else _walk_data(output.data, fix)
    except RecursionError:
        raise TargetError(
            "the output's JSON data is nested too deeply to store", retryable=False
        ) from None
    usage = output.usage
    if usage is not None and _finite(usage.cost) != usage.cost:
        usage = trusted(Usage, {**usage.__dict__, "cost": None})
    values = dict(output.__dict__)
    values.update(
        text=fix(output.text),
        data=data,
        usage=usage,
        latency=_finite(output.latency),
        model=None if output.model is None else fix(output.model),
        finish_reason=None if output.finish_reason is None else fix(output.finish_reason),
        error=None if output.error is None else fix(output.error),
    )
    # Built without validating again: every value is the output's own or a cleaned string.
    return trusted(TargetOutput, values)


def _clean(text: str | None) -> bool:
    return text is None or text.isascii() or _SURROGATE.search(text) is None


def clean_output(output: TargetOutput, redact: Redactor | None = None) -> TargetOutput:
    """``output`` ready to store: valid Unicode everywhere, numbers JSON can hold, and redacted
    when ``redact`` is set.

    An output that needs none of it is returned as it is, which is the common case and costs
    one scan of its text.
    """
    cost = None if output.usage is None else output.usage.cost
    if (
        redact is None
        and output.data is None
        and _finite(output.latency) == output.latency
        and _finite(cost) == cost
        and _clean(output.text)
        and _clean(output.model)
        and _clean(output.finish_reason)
        and _clean(output.error)
    ):
        return output
    return redact_output(output, redact)
