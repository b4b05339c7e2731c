"""Why a number is n/a, said once: a short marker in each cell, one numbered note per reason.

A scorecard whose numbers cannot be computed usually has one reason for all of them ("fewer
than 70% of outputs had a readable answer"); printed in every cell, it made each row five lines
tall and the table unreadable. Templates therefore mark an n/a cell with its reason as data
(the ``note`` macro writes ``<span data-na="REASON"></span>`` after the cell's "n/a"), and
:func:`number_notes`, run on every rendered page, turns the marks into numbered links in
document order, one number per distinct reason, and lists each note once, at the end of the
section where it first appears (a later section's cells link back to it).

Only that macro writes the mark: every other text on a page (outputs, names, notes) is escaped,
so it can never contain the literal mark, and embedded data is escaped by ``json_script``.
"""

from __future__ import annotations

import re

__all__ = ["number_notes"]

#: The mark the ``na`` macro writes; the reason is attribute-escaped, so it holds no quote.
_MARK = re.compile(r'<span data-na="([^"]*)"></span>')
#: Where a note list may go, nearest first after its first mark.
_ENDS = ("</section>", "</main>", "</body>")


def _end(page: str, start: int) -> int:
    """Where the notes first marked at ``start`` are listed: before the next end of a
    section, else of the main content, else of the page, else at the very end."""
    found = [i for i in (page.find(tag, start) for tag in _ENDS) if i >= 0]
    return min(found) if found else len(page)


def _marker(number: int, reason: str) -> str:
    return (
        f'<sup class="na-mark"><a class="na-link" href="#na-{number}" title="{reason}" '
        f'aria-label="note {number}: {reason}">{number}</a></sup>'
    )


def _notes(notes: list[tuple[int, str]]) -> str:
    items = "".join(f'<li id="na-{n}" value="{n}">{reason}</li>' for n, reason in notes)
    return f'<ol class="na-notes" aria-label="Why numbers are n/a">{items}</ol>'


def number_notes(page: str) -> str:
    """``page`` with every n/a mark numbered and its notes listed (see the module)."""
    if 'data-na="' not in page:
        return page
    numbers: dict[str, int] = {}
    # what to write, by its place in ``page``: a mark's replacement over its span, or a list
    # of notes before the tag that ends the section of their first mark
    edits: list[tuple[int, int, str]] = []
    lists: dict[int, list[tuple[int, str]]] = {}
    for match in _MARK.finditer(page):
        reason = match.group(1)
        number = numbers.get(reason)
        if number is None:
            number = numbers[reason] = len(numbers) + 1
            lists.setdefault(_end(page, match.end()), []).append((number, reason))
        edits.append((match.start(), match.end(), _marker(number, reason)))
    edits.extend((place, place, _notes(notes)) for place, notes in lists.items())
    out: list[str] = []
    last = 0
    for start, end, text in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        out.append(page[last:start])
        out.append(text)
        last = end
    out.append(page[last:])
    return "".join(out)
