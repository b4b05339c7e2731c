"""Shards: a deterministic part of an experiment's observations, for runs split over machines.

Shard ``I/N`` holds the observations whose id, read as a number, leaves remainder ``I - 1``
when divided by ``N``. Observation ids are content hashes of the seed, target, variant and
repetition, so the parts are disjoint, cover the experiment together, are about equal in size,
and do not depend on the order of calls, the concurrency or the machine: rerunning a shard
asks nothing that its store already holds, and the stores of all shards merged
(``modelscape merge``) hold what one run would have stored.

A shard measures what its own observations allow. Pairwise differences whose two sides fell
into different shards are computed after the merge, by running the experiment once more on the
merged store without ``--shard``: every output is then reused and only the missing
measurements are made (no target is called).
"""

from __future__ import annotations

import re

from pydantic import Field, model_validator

from modelscape._model import FrozenModel

__all__ = ["Shard"]

_FORM = re.compile(r"\s*(\d{1,6})\s*/\s*(\d{1,6})\s*")


class Shard(FrozenModel):
    """Part ``index`` of ``count`` (``index`` counts from 1, as ``--shard 1/4`` does)."""

    index: int = Field(ge=1)
    count: int = Field(ge=1, le=100_000)

    @model_validator(mode="after")
    def _within(self) -> Shard:
        if self.index > self.count:
            raise ValueError(f"shard {self.index}/{self.count}: the part must be 1 to {self.count}")
        return self

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"I/N"`` as a shard; a :class:`ValueError` saying what is wrong otherwise."""
        match = _FORM.fullmatch(text)
        if match is None:
            raise ValueError(f"shard {text!r} is not of the form I/N, such as 1/4")
        index, count = int(match[1]), int(match[2])
        if count < 1 or not 1 <= index <= count:
            raise ValueError(f"shard {text!r}: I must be 1 to N and N at least 1, as in 1/4")
        return cls(index=index, count=count)

    def holds(self, observation_id: str) -> bool:
        """Whether the observation with this (hexadecimal) id belongs to this shard."""
        return int(observation_id, 16) % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
