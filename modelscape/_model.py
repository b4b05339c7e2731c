"""The frozen pydantic base shared by everything a user writes or reads back."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

__all__ = ["FrozenModel", "trusted"]


class FrozenModel(BaseModel):
    """An immutable record: unknown keys are errors, values never change after creation."""

    model_config = ConfigDict(frozen=True, extra="forbid")


ModelT = TypeVar("ModelT", bound=BaseModel)
_FIELDS: dict[type[BaseModel], set[str]] = {}
_set = object.__setattr__


def trusted(cls: type[ModelT], values: dict[str, Any]) -> ModelT:
    """An instance of ``cls`` from values that modelscape built itself, without validation.

    It is what ``model_construct`` makes when every field is given, at a fraction of its cost:
    the runner and the store build hundreds of thousands of records whose values they made
    themselves, and validating those again would dominate a run's CPU time.
    """
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = set(cls.model_fields)
    instance = object.__new__(cls)
    _set(instance, "__dict__", values)
    _set(instance, "__pydantic_fields_set__", fields)
    _set(instance, "__pydantic_extra__", None)
    _set(instance, "__pydantic_private__", None)
    return instance
