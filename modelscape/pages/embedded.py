"""The observations a page embeds, as the entries of its JSON: read from a stored run's columns.

A report page embeds some seven hundred observations, each with the answer a reader took from
it and whether that answer was correct. Built record by record (an observation and up to three
point measurements each, and the structured data written out as JSON) that was a third of a
report page's time. A run loaded from its store holds its outputs as columns
(:mod:`modelscape.records.columns`), and every record the store would build is made of those
columns' values as they are, without validation or conversion; so the same values are read
here from the columns, a column at a time. Results held as records (a run made in this
process) are read from the records, as before.

Both ways end in :func:`_entry`, so an entry has the same keys in the same order, and a value is
printed by the same code whichever way it was read; a test compares the two over hostile
stored values and over the committed runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from modelscape.pages.scenario import show_value
from modelscape.records.categorical import ABSENT, Categorical
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.results.results import Results, run_of
from modelscape.targets.protocol import TargetOutput

__all__ = ["Embedded", "Long", "cut", "embedded"]

# Point metrics whose details keep the answer read from an output (see measures.answer_metrics),
# asked in this order; the first that has one gives the answer shown.
_READERS = ("answered", "correct")
#: What a record of an output holds for a field its stored row did not have.
_DEFAULTS = {name: TargetOutput.model_fields[name].default for name in ("text", "model", "error")}

#: How a long text enters an entry: ``long(key, text, file name)`` gives the fields to add (the
#: text cut to the page's limit, and where the whole of it is kept).
Long = Callable[[str, str | None, str], dict[str, Any]]


@dataclass(frozen=True)
class Embedded:
    """The embedded observations in their order: their ids, their variants' ids in order of
    first use, and each observation's entry (whose ``variant`` indexes ``variants``)."""

    ids: list[str]
    variants: list[str]
    entries: list[dict[str, Any]]


def cut(text: str | None, limit: int) -> str | None:
    """An error message cut to ``limit`` characters, saying how many more it had."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} more characters)"


def embedded(results: Results, used: Iterable[str], long: Long, *, limit: int) -> Embedded:
    """The entries of the observations ``used`` (by id), in the order the run holds them.

    ``long`` adds an output's text and structured data to its entry (see :data:`Long`);
    ``limit`` is the most characters of an error message an entry keeps.
    """
    run = run_of(results)
    held = run.observations
    points = run.point_measurements
    if (
        isinstance(held, ObservationColumns)
        and held.filed is not None
        and isinstance(points, PointColumns)
        # Only a store's point columns know each point's row, and a store's build each
        # record from the columns' values as they are.
        and points.rows is not None
    ):
        rows = sorted(held.rows_by_id[i] for i in used)
        return _from_columns(results, held, points, rows, long, limit)
    return _from_records(results, frozenset(used), long, limit)


def _entry(
    observation: str,
    target: int,
    variant: int,
    repetition: int,
    status: str,
    output: tuple[str, str | None, str | None, str | None],
    answer: Any,
    correct: float | None,
    long: Long,
    limit: int,
) -> dict[str, Any]:
    """One observation's entry; ``output`` is its text, data as JSON, model and error, and
    ``answer`` the details' answer a reader kept (None: no reader kept one)."""
    text, data, model, error = output
    readable = isinstance(answer, (str, int, float, bool))
    return {
        "id": observation,
        "target": target,
        "variant": variant,
        "repetition": repetition,
        "status": status,
        **long("text", text, f"{observation}.txt"),
        **long("data", data, f"{observation}.json"),
        "model": model,
        "error": cut(error, limit),
        "answer": show_value(answer) if readable else None,
        "correct": correct,
    }


def _data_json(data: Any) -> str | None:
    """Structured data as the page shows it: JSON, one item a line."""
    return None if data is None else json.dumps(data, ensure_ascii=False, indent=1)


def _answer_of(details: Any) -> tuple[bool, Any]:
    """Whether a point's details keep an answer, and that answer."""
    if isinstance(details, dict) and "answer" in details:
        return True, details["answer"]
    return False, None


# -- from records -------------------------------------------------------------------------------
def _from_records(results: Results, used: frozenset[str], long: Long, limit: int) -> Embedded:
    run = run_of(results)
    held = run.observations
    rows = getattr(held, "rows_by_id", None)
    if isinstance(rows, dict) and hasattr(held, "at"):  # held as columns: build only these
        observations = list(held.at(sorted(rows[i] for i in used)))
    else:
        observations = [o for o in held if o.id in used]
    variants = list(dict.fromkeys(o.variant_id for o in observations))
    variant_index = {v: i for i, v in enumerate(variants)}
    targets = list(run.targets)
    entries = []
    for observation in observations:
        answer = None
        for name in _READERS:
            point = run.point(name, observation.id)
            if point is not None:
                found, answer = _answer_of(point.details)
                if found:
                    break
        correct = run.point("correct", observation.id)
        output = observation.output
        entries.append(
            _entry(
                observation.id,
                targets.index(observation.target),
                variant_index[observation.variant_id],
                observation.repetition,
                observation.status,
                (output.text, _data_json(output.data), output.model, output.error),
                answer,
                None if correct is None else correct.value,
                long,
                limit,
            )
        )
    return Embedded([o.id for o in observations], variants, entries)


# -- from columns -------------------------------------------------------------------------------
def _column(column: Categorical, rows: list[int], default: Any = None) -> list[Any]:
    """A categorical column's values at ``rows``; a value the row did not have is the
    record's default, as the store's reader fills it in."""
    values = column.values
    return [default if (v := values[c]) is ABSENT else v for c in column.codes[rows].tolist()]


def _point_values(
    results: Results, points: PointColumns, measure: str, rows: list[int]
) -> tuple[list[int], Sequence[Any]]:
    """For each row, its ``measure`` point's row (-1: none) and the point's value (None where
    it has none), as :meth:`Results.point` would give them."""
    run = run_of(results)
    at = run.point_rows(measure)
    if at is None:
        return [-1] * len(rows), [None] * len(rows)
    found = at[rows]
    safe = found.clip(0)
    present = (found >= 0) & points.has_value[safe]
    values = points.values[safe].tolist()
    return found.tolist(), [v if p else None for v, p in zip(values, present.tolist(), strict=True)]


def _from_columns(
    results: Results,
    held: ObservationColumns,
    points: PointColumns,
    rows: list[int],
    long: Long,
    limit: int,
) -> Embedded:
    run = run_of(results)
    filed = held.filed
    assert filed is not None
    ids = [held.ids[row] for row in rows]
    variant_ids = _column(held.variant, rows)
    variants = list(dict.fromkeys(variant_ids))
    variant_index = {v: i for i, v in enumerate(variants)}
    targets = list(run.targets)
    target_index: dict[str, int] = {}
    texts = _column(filed.outputs["text"], rows, _DEFAULTS["text"])
    models = _column(filed.outputs["model"], rows, _DEFAULTS["model"])
    errors = _column(filed.outputs["error"], rows, _DEFAULTS["error"])
    # A value of the data column is shared by the rows that hold it: written once.
    data = filed.outputs["data"]
    written: dict[int, str | None] = {}
    data_codes = data.codes[rows].tolist()
    for code in dict.fromkeys(data_codes):
        value = data.values[code]
        written[code] = _data_json(None if value is ABSENT else value)
    readers = [_point_values(results, points, name, rows)[0] for name in _READERS]
    _, correct = _point_values(results, points, "correct", rows)
    details = points.details
    statuses = _column(filed.top["status"], rows)
    names = _column(held.target, rows)
    repetitions = held.repetition[rows].tolist()
    entries = []
    for n, observation in enumerate(ids):
        answer = None
        for found in readers:
            if found[n] >= 0:
                kept, answer = _answer_of(details[found[n]])
                if kept:
                    break
        target = names[n]
        if target not in target_index:  # a name the experiment lacks fails as with records
            target_index[target] = targets.index(target)
        entries.append(
            _entry(
                observation,
                target_index[target],
                variant_index[variant_ids[n]],
                repetitions[n],
                statuses[n],
                (texts[n], written[data_codes[n]], models[n], errors[n]),
                answer,
                correct[n],
                long,
                limit,
            )
        )
    return Embedded(ids, variants, entries)
