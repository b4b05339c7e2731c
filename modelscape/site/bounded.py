"""Sizes a template may make in one step.

The render time limit (:mod:`modelscape.site.limits`) stops a template between Python steps,
but one step of C code runs to its end: ``"x" * 10**10``, ``"x".center(10**10)`` or
``"%10000000000d" % 1`` would allocate gigabytes, or never end, before any limit could act.
Each such step is checked here before it runs, from its arguments alone, and refused with a
:class:`~jinja2.exceptions.SecurityError` that the build reports with the template's file and
line:

- ``*`` of a text or list by a whole number, and ``**`` of whole numbers (:func:`binop`);
- text methods and filters given a width or count (``center``, ``ljust``, ``zfill``,
  ``expandtabs``, ``indent``, ``wordwrap``, ``slice``, ``batch``...), a ``replace`` whose
  result would be too long, and a format (``%``, ``format``) with a field too wide
  (:func:`call`, :func:`bounded_filter`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from jinja2.exceptions import SecurityError

__all__ = ["MAX_POWER_BITS", "MAX_REPEAT", "binop", "bounded_filter", "call"]

#: The most items one step may make of a text or a list in a template.
MAX_REPEAT = 10_000_000
#: The largest whole number ``**`` may make in a template, in bits.
MAX_POWER_BITS = 100_000
#: A field width or precision in a format with eight digits or more (``%10000000d``).
_WIDE = re.compile(r"\d{8,}")
#: The text methods and filters that make as much as a whole number they are given.
_SIZED = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs", "indent", "slice", "batch"})
#: The filters checked before each call: the sized ones, and those whose format or
#: replacement can grow a text many times over.
SIZED_FILTERS = frozenset({*_SIZED, "format", "replace"})


def _count(value: object) -> int:
    """A whole number given as a size, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def binop(operator: str, left: Any, right: Any) -> None:
    """Refuse ``left operator right`` when its result would be too large to make at once."""
    if operator == "*":
        for sequence, times in ((left, right), (right, left)):
            if (
                isinstance(sequence, str | list | tuple)
                and len(sequence) * _count(times) > MAX_REPEAT
            ):
                raise SecurityError(f"a sequence repeated into more than {MAX_REPEAT:,} items")
    elif operator == "**" and _count(left) and _count(right):
        if abs(left) > 1 and right > 0 and left.bit_length() * right > MAX_POWER_BITS:
            raise SecurityError(f"a power of more than {MAX_POWER_BITS:,} bits")
    elif operator == "%" and isinstance(left, str) and _WIDE.search(left):
        raise SecurityError(f"a format field wider than {MAX_REPEAT:,} characters")


def _arguments(
    name: str, subject: object, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> None:
    """Refuse a call named ``name`` on ``subject`` that would make too much in one step."""
    values = (*args, *kwargs.values())
    if name in _SIZED and any(_count(value) > MAX_REPEAT for value in values):
        raise SecurityError(f"{name} given a size over {MAX_REPEAT:,}")
    if name in {"format", "format_map"}:
        texts = [value for value in (subject, *values) if isinstance(value, str)]
        if any(_WIDE.search(text) for text in texts):
            raise SecurityError(f"a format field wider than {MAX_REPEAT:,} characters")
    if name == "replace" and isinstance(subject, str) and len(args) >= 2:
        old, new = args[0], args[1]
        if isinstance(old, str) and isinstance(new, str):
            times = len(subject) + 1 if old == "" else subject.count(old)
            if len(subject) + times * len(new) > MAX_REPEAT:
                raise SecurityError(f"a replace that makes more than {MAX_REPEAT:,} characters")


def call(function: object, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """Refuse a method call of a template's that would make too much in one step."""
    # The sandbox hands out ``str.format`` as a wrapper that keeps the method it wraps.
    method = getattr(function, "__wrapped__", function)
    owner = getattr(method, "__self__", None)
    if isinstance(owner, str | list | tuple | dict):
        _arguments(str(getattr(method, "__name__", "a method")), owner, args, kwargs)


def bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, the filter ``name``, checked like a method before each call."""
    # A filter that takes Jinja's context or environment gets it first, before its value.
    skip = 0 if getattr(function, "jinja_pass_arg", None) is None else 1

    @functools.wraps(function)  # keeps the mark Jinja reads (which context the filter takes)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if len(args) > skip:
            _arguments(name, args[skip], args[skip + 1 :], kwargs)
        return function(*args, **kwargs)

    return checked
