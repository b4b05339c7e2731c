"""Content-hash identities: every stored record is named by a hash of its canonical JSON."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import cached_property
from typing import Any, Self, TypeAlias

from pydantic import Field
from pydantic import JsonValue as PydanticJsonValue

from modelscape._model import FrozenModel

__all__ = ["AxisValue", "Identity", "JsonValue", "canonical_json", "content_id"]

#: A value an axis can take, and a label of a lexicon entry: a JSON scalar other than null.
AxisValue: TypeAlias = str | int | float | bool
#: Any JSON value (pydantic's recursive alias, so models can validate it).
JsonValue: TypeAlias = PydanticJsonValue


def _default(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot encode {type(value).__name__} as canonical JSON")


def canonical_json(value: Any) -> str:
    """The one JSON spelling of ``value``: sorted keys, no spaces, UTF-8, no NaN."""
    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
        default=_default,
    )


def content_id(kind: str, value: Any, *, length: int = 16) -> str:
    """A stable id for ``value``: the kind, then a SHA-256 prefix of its canonical JSON."""
    digest = hashlib.sha256(f"{kind}\n{canonical_json(value)}".encode()).hexdigest()
    return digest[:length]


class Identity(FrozenModel):
    """What names a realizer, target, measure or scenario: never credentials, never settings
    that leave behaviour unchanged."""

    kind: str
    name: str
    version: str = "1"
    parameters: dict[str, JsonValue] = Field(default_factory=dict)

    @cached_property
    def id(self) -> str:
        """The content hash of this identity, computed on first use and kept.

        A run reads the ids of its targets and measures once per observation: hashing the
        canonical JSON each time was a hidden cost of every access (docs/design/046).
        """
        return content_id(
            self.kind, {"name": self.name, "version": self.version, "parameters": self.parameters}
        )

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy, whose id is hashed again from its own fields (a kept id would be stale)."""
        copied = super().model_copy(update=update, deep=deep)
        copied.__dict__.pop("id", None)
        return copied

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"
