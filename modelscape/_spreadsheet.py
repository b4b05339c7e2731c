"""CSV cells that a spreadsheet shows as text and never runs as a formula.

Two parts of modelscape write CSV that people open in a spreadsheet: ``modelscape prompts``
(every prompt of a scenario) and the site's ``leaderboard.csv``. Both hold text that came from
contributors (specs, lexicons, target names), and a cell such as ``=HYPERLINK(...)`` would run
when the file is opened. The list of dangerous first characters is OWASP's ("CSV Injection");
it lives here once, so the two writers cannot drift apart.
"""

from __future__ import annotations

__all__ = ["FORMULA_STARTS", "spreadsheet_safe"]

#: What a spreadsheet reads as the start of a formula in a cell.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """A CSV cell a spreadsheet shows as text: text that starts like a formula gets a ``'``.

    Numbers stay numbers, so a column of them still sorts as numbers.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
