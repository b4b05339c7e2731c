"""Lone surrogates in loaded data, and the paths that name a place in it.

A UTF-16 surrogate is half of a character. JSON's and YAML's ``"\\ud800"`` escape reads as one
on its own (and ``"\\ud83d\\ude00"`` as two halves, not an emoji), and no UTF-8 text can hold
it: a spec, page or report holding one could never be hashed, stored or written out. The spec
reader, the site's content readers and the report reader all look for them the same way, here.

This module imports nothing but :mod:`re`, so the site's plan can use it without loading the
analysis packages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

__all__ = ["SURROGATE", "at", "first_surrogate", "item", "surrogates"]

SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN = re.compile(r"[\w\-.]+")


def at(path: str, key: object) -> str:
    """The path of ``key`` inside the mapping at ``path``."""
    if isinstance(key, int) and not isinstance(key, bool):
        spelled = str(key)
    elif isinstance(key, str) and _PLAIN.fullmatch(key):
        spelled = key
    else:
        return f"{path}[{key!r}]"
    return f"{path}.{spelled}" if path else spelled


def item(path: str, index: int) -> str:
    """The path of item ``index`` of the list at ``path``."""
    return f"{path}[{index}]"


def surrogates(value: object, path: str = "") -> Iterator[tuple[str, re.Match[str]]]:
    """Every text in ``value`` (mapping keys included, at any depth) that holds a surrogate:
    its path and the first surrogate in it, in the order the data is walked."""
    if isinstance(value, str):
        found = SURROGATE.search(value)
        if found is not None:
            yield path, found
    elif isinstance(value, Mapping):
        for key, entry in value.items():
            where = at(path, key)
            if isinstance(key, str):
                yield from surrogates(key, where)
            yield from surrogates(entry, where)
    elif isinstance(value, list | tuple):
        for index, entry in enumerate(value):
            yield from surrogates(entry, item(path, index))


def first_surrogate(value: object, place: str = "") -> str | None:
    """Where the first lone surrogate in ``value`` is, as ``slots.item[2]: a lone surrogate
    (U+D800)``, or None when there is none."""
    for where, found in surrogates(value, place):
        return f"{where or 'the text'}: a lone surrogate (U+{ord(found.group()):04X})"
    return None
