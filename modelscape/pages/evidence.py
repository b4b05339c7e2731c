"""Evidence: the outputs behind every number on a report page, each embedded once.

Every number a page shows is registered here with the measurement ids it was computed from.
They are traced to observations (as :meth:`Results.trace` would, without building a record
for each: a report page traces tens of thousands of ids); the page embeds each of those
observations once (with the variant it answered, also once) and every number refers to its set
of observations by index. Observations no number uses are left out of the page.

A number that compares two coordinates (a profile step, a boundary candidate, a scorecard's
shift) also names the two: its set's ``steps`` entry holds both coordinates as the variants
spell them, so the page can lay the outputs out side by side without embedding anything twice.
A number that compares two targets on the same prompts (a divergence) names the two targets
in its set's ``pairs`` entry, for the same side-by-side view with a target on each side.

Several runs' evidence can share one page (a model page, a markdown page that embeds numbers
of several runs): :func:`merge_data` puts their data one after the other, moving every index.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from modelscape._identity import AxisValue
from modelscape.pages.embedded import embedded
from modelscape.pages.scenario import show_value
from modelscape.records.stored import Observation
from modelscape.results.results import Results, run_of
from modelscape.task.space import Variant

__all__ = ["OUTPUT_LIMIT", "Cell", "Evidence", "coordinate_text", "merge_data"]

#: Two coordinates a number compares, each as :func:`coordinate_text` spells it.
Step = tuple[str, str]


def coordinate_text(values: Mapping[str, AxisValue]) -> str:
    """A coordinate as the page shows it, ``axis = value, ...``; also how the page matches the
    two sides of a step to the variants it embeds, so both are spelled by this one function."""
    return ", ".join(f"{axis} = {show_value(value)}" for axis, value in values.items())


@dataclass(frozen=True)
class Cell:
    """One number as the page shows it: its text, and the evidence set behind it (if any).

    ``label`` names the number in the panel that lists its outputs; ``count`` is how many
    outputs that is. ``reason`` says why a number could not be computed (the text is then
    "n/a"); ``caveats`` say why an interval deserves caution.
    """

    text: str
    label: str
    evidence: int | None = None
    count: int = 0
    reason: str | None = None
    caveats: tuple[str, ...] = ()

    def undefined(self, reason: str | None) -> Cell:
        """This cell as "n/a" with the reason, when there is one."""
        if reason is None:
            return self
        return Cell(text="n/a", label=self.label, reason=reason)

    def warned(self, caveats: tuple[str, ...]) -> Cell:
        """This cell with caveats about its interval."""
        if not caveats:
            return self
        return Cell(self.text, self.label, self.evidence, self.count, self.reason, caveats)


def _runs(indices: Sequence[int]) -> list[int]:
    """Sorted indices as flat ``[start, length, start, length, ...]`` runs.

    Observations are stored by target, variant and repetition, so the outputs behind a number
    are mostly consecutive and a few runs describe hundreds of them.
    """
    runs: list[int] = []
    for index in indices:
        if runs and runs[-2] + runs[-1] == index:
            runs[-1] += 1
        else:
            runs.extend((index, 1))
    return runs


#: The most characters of one output (its text, or its structured data as JSON) a page embeds.
#: A model can answer with megabytes; beyond this the page shows the start, says how long the
#: whole is, and links to it (a file beside a site's page) or names it in the store.
OUTPUT_LIMIT = 10_000


class Evidence:
    """Collects the observations behind the numbers of one page.

    Without results (a report page with no outputs attached), numbers are plain text. With
    ``attachments`` (a folder, relative to the page), the full text of every output longer
    than :data:`OUTPUT_LIMIT` is collected in ``attachments`` (file name to text), for the
    site to write beside the page; without it, the page names the observation instead.
    """

    def __init__(self, results: Results | None, *, attachments: str | None = None) -> None:
        self.results = results
        self.folder = attachments
        self.attachments: dict[str, str] = {}
        self._sets: list[frozenset[str]] = []
        self._index: dict[frozenset[str], int] = {}
        self._steps: dict[int, Step] = {}
        self._pairs: dict[int, tuple[str, str]] = {}

    def cell(
        self,
        text: str,
        ids: Iterable[str],
        label: str,
        *,
        step: tuple[Mapping[str, AxisValue], Mapping[str, AxisValue]] | None = None,
        targets: tuple[str, str] | None = None,
    ) -> Cell:
        """A number computed from the measurements ``ids``.

        ``step`` gives the two coordinates the number compares (before, after), when it
        compares two; a step from a coordinate to itself (run-to-run variation) is no step.
        ``targets`` gives the two targets it compares on the same prompts (first, second),
        when it compares two (a divergence); a set that is a step stays one.
        """
        if self.results is None:
            return Cell(text=text, label=label)
        wanted = tuple(ids)
        traced = self._traced
        if all(i in traced for i in wanted):
            observed = [o for i in wanted for o in traced[i]]
        else:  # an id these results do not hold: the trace raises its own error
            observed = [o.id for o in self.results.trace(wanted).observations]
        cell = self._register(text, observed, label)
        if step is not None and cell.evidence is not None:
            before, after = coordinate_text(step[0]), coordinate_text(step[1])
            if before != after:
                self._steps.setdefault(cell.evidence, (before, after))
        if targets is not None and cell.evidence is not None and targets[0] != targets[1]:
            self._pairs.setdefault(cell.evidence, targets)
        return cell

    @cached_property
    def _traced(self) -> dict[str, tuple[str, ...]]:
        """The observations behind each measurement id, read from the columns once."""
        assert self.results is not None
        run = run_of(self.results)
        points = run.point_measurements
        ids = getattr(points, "ids", None)
        owners = getattr(points, "observation_ids", None)
        traced: dict[str, tuple[str, ...]]
        if isinstance(ids, list) and isinstance(owners, list):  # held as columns
            traced = {i: (o,) for i, o in zip(ids, owners, strict=True)}
        else:
            traced = {m.id: (m.observation_id,) for m in points}
        # A difference measurement wins over a point one of the same id, as in the trace.
        for pair in run.difference_measurements:
            traced[pair.id] = (pair.first, pair.second)
        return traced

    def outputs(self, text: str, observations: Iterable[Observation], label: str) -> Cell:
        """A number that counts observations directly, such as failed calls."""
        if self.results is None:
            return Cell(text=text, label=label)
        return self._register(text, (o.id for o in observations), label)

    def _register(self, text: str, ids: Iterable[str], label: str) -> Cell:
        key = frozenset(ids)
        if not key:
            return Cell(text=text, label=label)
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self._sets)
            self._sets.append(key)
        return Cell(text=text, label=label, evidence=index, count=len(key))

    @property
    def observation_ids(self) -> frozenset[str]:
        """Every observation some number on the page refers to."""
        return frozenset().union(*self._sets)

    def data(self) -> dict[str, Any]:
        """The JSON the page embeds: targets, variants, observations, and the evidence sets.

        ``steps`` runs beside ``sets``: for each set, the two coordinates it compares (as
        ``[before, after]``), or None when its number is not a step. So does ``pairs``: the
        two targets a set compares (indices into ``targets``, first then second), or None.
        """
        if self.results is None:
            return {
                "targets": [],
                "variants": [],
                "observations": [],
                "sets": [],
                "steps": [],
                "pairs": [],
            }
        results = self.results
        run = run_of(results)
        found = embedded(results, self.observation_ids, self._long, limit=OUTPUT_LIMIT)
        position = {observation: i for i, observation in enumerate(found.ids)}
        targets = list(run.targets)
        return {
            "targets": targets,
            "variants": [_variant(run.variant(v)) for v in found.variants],
            "observations": found.entries,
            "sets": [_runs(sorted(position[i] for i in ids)) for ids in self._sets],
            "steps": [
                list(self._steps[index]) if index in self._steps else None
                for index in range(len(self._sets))
            ],
            "pairs": [_pair(self._pairs.get(index), targets) for index in range(len(self._sets))],
        }

    def _long(self, key: str, text: str | None, name: str) -> dict[str, Any]:
        """``text`` under ``key``, cut to the limit; a cut one keeps its length and the file
        that holds it whole (``KEY_length``, ``KEY_file``)."""
        if text is None or len(text) <= OUTPUT_LIMIT:
            return {key: text}
        entry: dict[str, Any] = {key: text[:OUTPUT_LIMIT], f"{key}_length": len(text)}
        if self.folder is not None:
            path = f"{self.folder}/{name}"
            self.attachments[path] = text
            entry[f"{key}_file"] = path
        return entry


def _pair(names: tuple[str, str] | None, targets: list[str]) -> list[int] | None:
    """Two targets by their index among ``targets``; None when either is not among them."""
    if names is None or names[0] not in targets or names[1] not in targets:
        return None
    return [targets.index(names[0]), targets.index(names[1])]


def merge_data(parts: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], list[int]]:
    """Several :meth:`Evidence.data` blobs as one, for a page that shows numbers of several
    runs (the dialog reads one blob per page), and where each part's sets start in it.

    Every index inside a part (an observation's target and variant, a set's runs of
    observations, a pair's targets) moves by what the parts before it hold; ``steps`` need no
    moving, since they name coordinates by their text.
    """
    merged: dict[str, Any] = {
        "targets": [],
        "variants": [],
        "observations": [],
        "sets": [],
        "steps": [],
        "pairs": [],
    }
    offsets = []
    for data in parts:
        offsets.append(len(merged["sets"]))
        targets, variants = len(merged["targets"]), len(merged["variants"])
        observations = len(merged["observations"])
        merged["targets"].extend(data["targets"])
        merged["variants"].extend(data["variants"])
        merged["observations"].extend(
            {**o, "target": o["target"] + targets, "variant": o["variant"] + variants}
            for o in data["observations"]
        )
        merged["sets"].extend(
            [v + observations if i % 2 == 0 else v for i, v in enumerate(runs)]
            for runs in data["sets"]
        )
        count = len(data["sets"])
        merged["steps"].extend(data.get("steps") or [None] * count)
        merged["pairs"].extend(
            None if pair is None else [pair[0] + targets, pair[1] + targets]
            for pair in data.get("pairs") or [None] * count
        )
    return merged, offsets


def _variant(variant: Variant) -> dict[str, Any]:
    return {
        "id": variant.id,
        "case": variant.case,
        "coordinate": coordinate_text(variant.coordinate),
        "reference": show_value(variant.reference),
        "system": variant.prompt.system,
        "messages": [[m.role, m.content] for m in variant.prompt.messages],
    }
