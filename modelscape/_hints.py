"""The "did you mean" hint every error about a misspelled name ends with."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

__all__ = ["nearest"]


def nearest(word: object, options: Sequence[object]) -> str:
    """A ``(did you mean ...?)`` hint naming the option closest to ``word``, or nothing."""
    if not isinstance(word, str | int | float) or isinstance(word, bool):
        return ""
    spelled = {str(option): option for option in options}
    hint = difflib.get_close_matches(str(word), list(spelled), n=1)
    return f" (did you mean {spelled[hint[0]]!r}?)" if hint else ""
