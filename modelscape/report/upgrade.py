"""Reading report files of an earlier layout: what format 1 lacks, filled in honestly.

Format 1 reports kept no reasons for quantities they could not measure, and reported answer
changes however few answers were read. Loading one, every None quantity gets the reason that
the file keeps none, and quantities built on answer changes of a target that answered less
than :data:`~modelscape.analysis.readable.MIN_ANSWERED` of the time become undefined, as a
report made today would show them. Nothing else changes: the numbers are the file's.
"""

from __future__ import annotations

from typing import Any

from modelscape.analysis.readable import answered_shortfall

__all__ = ["mark_departures", "upgrade_format_1"]

#: Why a report written before departures were computed shows none.
NO_DEPARTURES = "not computed (the report was written before departures were)"
#: The reason given to a None quantity of a format-1 report.
UNKNOWN = "not measured (a format-1 report keeps no reason)"
_CARD = ("accuracy", "baseline_accuracy", "answered", "spurious_change", "missed_change")
_AXIS = ("spurious_change", "missed_change")
#: Quantities that rest on comparing answers, undefined when too few were read.
_ANSWER_CHANGES = ("spurious_change", "missed_change")


def _card(card: dict[str, Any]) -> dict[str, Any]:
    undefined: dict[str, str] = {}
    for name in _CARD:
        if card.get(name) is None:
            undefined[name] = UNKNOWN
    answered = card.get("answered")
    reason = answered_shortfall(answered if isinstance(answered, float | int) else None)
    axes = []
    for axis in card.get("axes") or []:
        axis_undefined = {name: UNKNOWN for name in _AXIS if axis.get(name) is None}
        if reason is not None:
            for name in _ANSWER_CHANGES:
                axis[name] = None
                axis_undefined[name] = reason
            axis_undefined["shifts"] = reason
            axis["shifts"] = []
            if axis.get("threshold") is not None:
                axis["threshold"] = None
                axis_undefined["threshold"] = reason
        axes.append({**axis, "undefined": axis_undefined})
    if reason is not None:
        for name in _ANSWER_CHANGES:
            card[name] = None
            undefined[name] = reason
        if axes:
            undefined["shifts"] = undefined["invariant_shifts"] = reason
    return {**card, "axes": axes, "undefined": undefined}


def upgrade_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """A format-1 report's data in the current layout (see the module's description)."""
    cards = data.get("scorecards")
    if not isinstance(cards, list):
        return data
    return {
        **data,
        "scorecards": [_card(dict(card)) if isinstance(card, dict) else card for card in cards],
    }


def _marked(card: dict[str, Any]) -> dict[str, Any]:
    axes = card.get("axes")
    if not isinstance(axes, list) or not all(isinstance(a, dict) for a in axes):
        return card
    invariant = [a for a in axes if a.get("role") == "invariant"]
    if not invariant or any("departures" in a for a in axes):
        return card
    marked = [
        {**a, "undefined": {**(a.get("undefined") or {}), "departures": NO_DEPARTURES}}
        if a.get("role") == "invariant"
        else a
        for a in axes
    ]
    undefined = {**(card.get("undefined") or {}), "invariant_departures": NO_DEPARTURES}
    return {**card, "axes": marked, "undefined": undefined}


def mark_departures(data: dict[str, Any]) -> dict[str, Any]:
    """A report's data with its departures said to be n/a when the file has none at all.

    Reports written before departures were computed keep no ``departures`` on any axis; an
    empty list read from them would look like "none found".
    """
    cards = data.get("scorecards")
    if not isinstance(cards, list):
        return data
    return {
        **data,
        "scorecards": [_marked(card) if isinstance(card, dict) else card for card in cards],
    }
