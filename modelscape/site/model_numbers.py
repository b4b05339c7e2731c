"""The numbers of a model page that open the outputs behind them, as a report page's do.

A model page lists the model's scorecards on every run it took part in. Each of those numbers
is the same number its run's report page shows, so it is made by the report page's own code
(:meth:`~modelscape.site.embeds.RunData.card`, one :class:`~modelscape.pages.evidence.Evidence`
per run), and the page embeds only the outputs behind this model's numbers: the model's own
outputs in those runs, never the other targets'. The runs' evidence is merged into the one blob
the outputs dialog reads (:func:`~modelscape.pages.evidence.merge_data`).

A model page must stay within the site's page budget however many runs the model took part
in and however long its outputs are, so its embedded evidence is held to
:data:`MODEL_EVIDENCE_BYTES` (measured as the page writes it): runs are taken most recent
first, and a run whose evidence would go beyond the limit keeps its numbers as links to its
report page, where they open their outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from modelscape.pages.evidence import Cell, merge_data
from modelscape.pages.page import json_script
from modelscape.site.catalog import ALL, Entry
from modelscape.site.embeds import RunData

__all__ = ["MODEL_EVIDENCE_BYTES", "QUANTITIES", "ModelNumbers", "model_numbers"]

#: The most bytes of embedded evidence one model page carries, over all its runs: half the
#: 2.1 MB page budget, leaving the rest to the page itself (its tables, chart and scripts
#: are some 100 kB). The plotting bundle is a shared file of the site, not part of the page.
MODEL_EVIDENCE_BYTES = 1_000_000

#: The scorecard quantities a model page shows as numbers, in the cells' names.
QUANTITIES = ("accuracy", "baseline", "spurious", "missed", "shifts", "departures", "answered")


@dataclass(frozen=True)
class ModelNumbers:
    """The cells of a model's scorecards by run (runs left out have none), and the evidence
    the page embeds for them (None when no run's outputs are there)."""

    cells: dict[str, dict[str, Cell]]
    evidence: dict[str, Any] | None
    #: Runs whose outputs are there but were left out to keep the page within its budget.
    left_out: tuple[str, ...] = ()


def _moved(cell: Cell, offset: int) -> Cell:
    if cell.evidence is None:
        return cell
    return dataclasses.replace(cell, evidence=cell.evidence + offset)


def model_numbers(
    model: str,
    entries: Sequence[Entry],
    runs: Callable[[str], RunData | None],
    *,
    limit: int | None = None,
) -> ModelNumbers:
    """The numbers of ``model``'s scorecards on all cases in the runs of ``entries``.

    ``runs`` gives a run's data by name (None, or data without results, when its outputs are
    not there: that run's numbers stay links to its report). ``limit`` is the most bytes of
    evidence embedded (:data:`MODEL_EVIDENCE_BYTES` unless given).
    """
    limit = MODEL_EVIDENCE_BYTES if limit is None else limit
    newest = sorted(entries, key=lambda e: (e.run.created, e.run.run), reverse=True)
    made: dict[str, tuple[dict[str, Cell], dict[str, Any]]] = {}
    left_out: list[str] = []
    used = 0
    for entry in newest:
        name = entry.run.run
        if name in made or entry.headline.group != ALL:
            continue
        run = runs(name)
        if run is None or run.page.results is None or model not in run.report.targets:
            continue
        card = run.card(model, ALL)
        data = run.evidence.data()
        size = len(str(json_script(data)).encode())
        if used + size > limit:
            left_out.append(name)
            continue
        used += size
        made[name] = ({q: card[q] for q in QUANTITIES}, data)
    if not made:
        return ModelNumbers({}, None, tuple(left_out))
    names = list(made)
    merged, offsets = merge_data([made[name][1] for name in names])
    cells = {
        name: {q: _moved(cell, offset) for q, cell in made[name][0].items()}
        for name, offset in zip(names, offsets, strict=True)
    }
    return ModelNumbers(cells, merged, tuple(left_out))
