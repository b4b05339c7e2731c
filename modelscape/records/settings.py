"""The protocol a run stored with its scenario, and the kind of each measure it ran, typed.

A scenario's answer reader, groups, criterion, seed and description are stored as the
``parameters`` of its :class:`~modelscape._identity.Identity`, and a keyed difference measure
says so in its identity's parameters (written by
:class:`~modelscape.measures.KeyedDifference`). Both formats are part of every experiment id
(a content hash), so they stay as they are; this module is the one place that reads them, and
:meth:`ScenarioSettings.parameters` the one that writes a scenario's. Everything else asks a
:class:`ScenarioSettings` or a :class:`DifferenceSettings`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, get_args

from pydantic import Field, ValidationError

from modelscape._identity import Identity, JsonValue
from modelscape._model import FrozenModel
from modelscape.errors import AnalysisError
from modelscape.measures import Distance
from modelscape.stats.settings import BoundaryCriterion

__all__ = ["ALL", "DifferenceSettings", "ScenarioSettings"]

#: The group that names every case of a run.
ALL = "all"


class ScenarioSettings(FrozenModel):
    """A scenario's protocol as stored with each of its runs.

    Read leniently, as the stored runs of earlier releases need: a setting a run did not store
    takes its default (no answer reader, no groups, the default criterion, seed 0, no
    description).
    """

    repetitions: int | None = None
    seed: int = 0
    #: The identity of the answer reader (rebuilt by :func:`modelscape.answers.answer_of`).
    answer: Identity | None = None
    design: dict[str, JsonValue] | None = None
    groups: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    criterion: BoundaryCriterion = Field(default_factory=BoundaryCriterion)
    description: str = ""

    @classmethod
    def of(
        cls,
        identity: Identity | None,
        *,
        groups: Mapping[str, Sequence[str]] | None = None,
    ) -> ScenarioSettings:
        """The settings stored in a scenario identity (None: a run without a scenario).

        ``groups`` are groups stored apart from the scenario (an experiment record's own);
        they come first, as they always have.
        """
        stored: dict[str, JsonValue] = dict(identity.parameters) if identity is not None else {}
        found: dict[str, tuple[str, ...]] = {g: tuple(c) for g, c in (groups or {}).items()}
        named = stored.get("groups")
        if isinstance(named, dict):
            for name, members in named.items():
                if isinstance(members, list):
                    found.setdefault(name, tuple(str(m) for m in members))
        seed = stored.get("seed")
        repetitions = stored.get("repetitions")
        design = stored.get("design")
        answer = stored.get("answer")
        criterion = stored.get("criterion") or {}
        try:
            return cls(
                repetitions=repetitions if _integer(repetitions) else None,
                seed=seed if _integer(seed) else 0,
                answer=Identity.model_validate(answer) if answer is not None else None,
                design=design if isinstance(design, dict) else None,
                groups=found,
                criterion=BoundaryCriterion.model_validate(criterion),
                description=str(stored.get("description") or ""),
            )
        except ValidationError as error:
            # Only a record changed after it was stored holds such settings: its writer made
            # them from a scenario that had validated them.
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise AnalysisError(
                f"the scenario settings stored with this run cannot be read ({error.title}"
                f"{f' {where}' if where else ''}: {first['msg']}): the store was changed "
                "after the run was stored; restore it from a copy"
            ) from None

    def parameters(self) -> dict[str, JsonValue]:
        """The settings as a scenario identity stores them (the inverse of :meth:`of`)."""
        return {
            "repetitions": self.repetitions,
            "seed": self.seed,
            "answer": None if self.answer is None else self.answer.model_dump(mode="json"),
            "design": self.design,
            "groups": {group: list(cases) for group, cases in self.groups.items()},
            "criterion": self.criterion.model_dump(mode="json"),
            "description": self.description,
        }

    def group_names(self) -> tuple[str, ...]:
        """``all``, then the named groups in their stored order."""
        return (ALL, *self.groups)

    def cases(self, group: str, every: Sequence[str]) -> tuple[str, ...]:
        """The case ids of a group: ``every`` case for ``all``, else the named group's.

        ``every`` is the run's cases, in its order.
        """
        if group == ALL:
            return tuple(every)
        found = self.groups.get(group)
        if found is None:
            raise AnalysisError(f"no group {group!r}; groups: {list(self.group_names())}")
        return found


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class DifferenceSettings(FrozenModel):
    """How a difference measure's values were stored: per pair, or as one key per output.

    A ``keyed`` measure stores a key per output (as a point measurement) and compares two
    outputs by ``distance``; a ``pairwise`` one stores a value per pair of outputs.
    """

    name: str
    kind: Literal["pairwise", "keyed"]
    distance: Distance = "discrete"

    @classmethod
    def of(cls, identity: Identity) -> DifferenceSettings:
        """The kind of a stored difference measure, from its identity."""
        parameters = identity.parameters
        if not parameters.get("keyed"):
            return cls(name=identity.name, kind="pairwise")
        distance = parameters.get("distance", "discrete")
        if distance not in get_args(Distance):  # the distances measures.py defines
            raise AnalysisError(
                f"measure {identity.name!r} was stored with unknown key distance {distance!r}: "
                "use discrete, absolute or euclidean"
            )
        return cls(name=identity.name, kind="keyed", distance=distance)
