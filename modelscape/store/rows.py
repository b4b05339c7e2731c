"""Row helpers of the SQLite store: chunking ids, JSON arrays, and building trusted records."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pydantic import BaseModel, TypeAdapter

from modelscape._model import trusted
from modelscape.execution.target import TargetOutput, Usage
from modelscape.results.records import DifferenceMeasurement, Observation
from modelscape.task.space import Variant

__all__ = [
    "DIFFERENCES",
    "VARIANTS",
    "chunks",
    "compact",
    "json_array",
    "marks",
    "observation_of",
]

_CHUNK = 500


def chunks(ids: Iterable[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    for item in ids:
        batch.append(item)
        if len(batch) == _CHUNK:
            yield batch
            batch = []
    if batch:
        yield batch


def marks(n: int) -> str:
    return ",".join("?" * n)


def json_array(rows: list[Any]) -> str:
    return "[" + ",".join(row[0] for row in rows) + "]"


def compact(records: Sequence[Any]) -> None:
    """Let loaded records share one set of field names, which saves a third of their memory.

    Every record read from the store sets every field, so each would otherwise hold an equal
    set of its own. (Repeated short strings, such as ids and names, are shared already: pydantic
    caches the strings it parses.) The records stay frozen and equal to what was stored.
    """
    if not records:
        return
    fields = set(records[0].__pydantic_fields_set__)
    for record in records:
        object.__setattr__(record, "__pydantic_fields_set__", fields)


VARIANTS = TypeAdapter(list[Variant])


def _defaults(model: type[BaseModel]) -> dict[str, Any]:
    return {
        name: field.get_default(call_default_factory=True)
        for name, field in model.model_fields.items()
        if not field.is_required()
    }


_OUTPUT_DEFAULTS = _defaults(TargetOutput)
_USAGE_DEFAULTS = _defaults(Usage)
_OBSERVATION_DEFAULTS = _defaults(Observation)


def observation_of(data: dict[str, Any]) -> Observation:
    """An observation from its stored JSON, completed with defaults, without validation."""
    output = data["output"]
    usage = output.get("usage")
    if usage is not None:
        usage = trusted(Usage, {**_USAGE_DEFAULTS, **usage})
    data["output"] = trusted(TargetOutput, {**_OUTPUT_DEFAULTS, **output, "usage": usage})
    return trusted(Observation, {**_OBSERVATION_DEFAULTS, **data})


DIFFERENCES = TypeAdapter(list[DifferenceMeasurement])
