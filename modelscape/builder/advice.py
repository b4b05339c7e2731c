"""Problems in plain words, each placed beside the control that can fix it.

A draft's problems are those a YAML spec would get: each starts with its path in the
document (``answer.correct.days: no answer for values [12]``) and speaks of keys and
brackets, which is right for a file and wrong for a person clicking through the widget. Here
each problem becomes a note: a place (the widget part whose control can fix it) and a text
that says what is missing and what to click. Problems with no plain wording yet keep their
own text, still placed by their path.

Places: ``prompt``, ``system``, ``slot:NAME``, ``vary:ATTRIBUTE``, ``answer``, ``correct``,
``group:NAME``, ``field:KEY`` (name, cases, ...) and ``spec`` for the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from modelscape.builder.state import Data

__all__ = ["notes", "place_of", "plain"]

_FIELDS = ("name", "version", "description", "cases", "repetitions", "seed")


def place_of(path: str) -> str:
    """The widget part a problem at ``path`` (such as ``vary.days.scale``) belongs to."""
    parts = path.split(".")
    head = parts[0]
    second = parts[1] if len(parts) > 1 else ""
    if head in ("prompt", "system"):
        return head
    if head in _FIELDS:
        return f"field:{head}"
    if head == "slots" and second:
        return f"slot:{second}"
    if head == "vary" and second:
        return f"vary:{second}"
    if head == "groups" and second:
        return f"group:{second}"
    if head == "answer":
        return "correct" if second == "correct" else "answer"
    return "spec"


def _quoted(match: re.Match[str]) -> str:
    return f"“{match.group(1)}”"


#: Plain wordings: a message pattern, and how to say it given the match and the path.
_WORDINGS: list[tuple[re.Pattern[str], Callable[[re.Match[str], list[str]], str]]] = [
    (
        re.compile(r"every spec needs an answer"),
        lambda m, p: (
            "Say how the reply is read: choose how, list the answers it may give "
            "(such as yes, no), and click “Set answer”."
        ),
    ),
    (
        re.compile(r"the answer is read from the JSON field '(.*)', but neither"),
        lambda m, p: (
            f"The reply is read as JSON (its field “{m.group(1)}”), but nothing asks "
            "the model to reply in JSON: click “Add reply instruction to system prompt”, or read "
            "a word of the reply instead."
        ),
    ),
    (
        re.compile(r"no answer for values \[(.*)\]"),
        lambda m, p: f"Choose the correct answer for {p[-1]} = {m.group(1)} too.",
    ),
    (
        re.compile(r"no correct answer for (\d+) variants, such as (.*)"),
        lambda m, p: (
            f"{m.group(1)} variants have no correct answer yet (such as "
            f"{m.group(2)}): choose an answer for every value."
        ),
    ),
    (
        re.compile(r"no case matches \{(.*)\}"),
        lambda m, p: (
            f"No case has {m.group(1).replace(': ', ' = ')}, so this group would be "
            "empty: a varied attribute keeps its baseline in every case."
        ),
    ),
    (
        re.compile(r"\{(\w+)\} has no slot"),
        lambda m, p: (
            f"{{{m.group(1)}}} in the prompt is not a slot: make it one, or correct its name."
        ),
    ),
    (
        re.compile(r"choices are a non-empty list"),
        lambda m, p: "List the answers a reply may give, separated by commas (such as yes, no).",
    ),
    (
        re.compile(r"a numeric axis takes numbers only"),
        lambda m, p: (
            "A numeric scale needs numbers, and these values are not all numbers: "
            "choose ordinal for ordered levels, or nominal."
        ),
    ),
    (
        re.compile(r"unknown lexicon '(.*?)'"),
        lambda m, p: f"There is no shipped list of values called “{m.group(1)}”.",
    ),
]


def plain(problem: str) -> tuple[str, str]:
    """The place and plain wording of one problem, as ``path: message``."""
    path, separator, message = problem.partition(": ")
    if not separator or " " in path:
        path, message = "spec", problem
    parts = path.split(".")
    for pattern, wording in _WORDINGS:
        found = pattern.search(message)
        if found:
            return place_of(path), wording(found, parts)
    text = re.sub(r"'([^']*)'", _quoted, message)
    return place_of(path), text[:1].upper() + text[1:]


def notes(data: Data, problems: Sequence[str]) -> list[dict[str, Any]]:
    """Every problem of a draft as a note ``{place, text}``, in the order the spec lists them.

    A draft without a slot also gets a first note at the prompt saying how to make one: until
    something varies there is nothing to map.
    """
    found: list[dict[str, Any]] = []
    slots = data.get("slots")
    if not slots:
        found.append(
            {
                "place": "prompt",
                "text": "Select the part of the prompt that should change (a number, a name) "
                "and click “Make slot”.",
            }
        )
    for problem in problems:
        place, text = plain(problem)
        found.append({"place": place, "text": text})
    return found
