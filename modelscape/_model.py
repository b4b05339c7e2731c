"""The frozen pydantic base shared by everything a user writes or reads back."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["FrozenModel"]


class FrozenModel(BaseModel):
    """An immutable record: unknown keys are errors, values never change after creation."""

    model_config = ConfigDict(frozen=True, extra="forbid")
