"""Compare one transition (a → b) over cases: excess, case-bootstrap interval, permutation p.

Randomness is derived from the settings and the transition's name alone: the permutation and
bootstrap streams of transition ``key`` are children of ``Inference.seed`` whose spawn key is
a hash of ``key`` (numpy's SeedSequence). A transition therefore gets the same numbers alone
or in a batch of hundreds, computed in any order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from modelscape.errors import AnalysisError
from modelscape.stats.bootstrap import bootstrap_mean
from modelscape.stats.cases import CaseGroup, excess_of_groups, group_transitions
from modelscape.stats.excess import FloatArray
from modelscape.stats.permutation import permutation_test_groups
from modelscape.stats.settings import Inference
from modelscape.stats.smoothed import smoothed_interval

__all__ = ["Case", "Comparison", "compare", "compare_many", "random_stream"]

#: One case of a transition: its distance matrix over n_a + n_b outputs (a first), and n_a.
Case = tuple[npt.ArrayLike, int]


@dataclass(frozen=True, slots=True)
class Comparison:
    """Everything the statistics say about one transition a → b.

    ``excess`` is the mean of the per-case excess changes (equal weight per case, never
    clipped at zero); ``low`` and ``high`` bound it (None when ``Inference.resamples`` is 0),
    by the smoothed interval or a case bootstrap as ``Inference.interval`` says; ``p_value``
    is the one-sided permutation p-value (None when ``Inference.permutations`` is 0), exact
    when every joint labeling was enumerated.
    """

    #: The stable name of the transition; it also seeds its random streams.
    key: str
    excess: float
    per_case: tuple[float, ...]
    low: float | None
    high: float | None
    p_value: float | None
    exact: bool
    #: Joint labelings behind the p-value: all of them when exact, else the random draws.
    permutations: int
    #: Caveats raised while computing (also emitted as StatisticsWarning subclasses).
    warnings: tuple[str, ...] = ()
    #: The distribution the interval was read from, one value per resample.
    bootstrap_distribution: FloatArray = field(
        default_factory=lambda: np.empty(0, dtype=np.float64), repr=False, compare=False
    )

    @property
    def cases(self) -> int:
        """How many cases the comparison averages over."""
        return len(self.per_case)


def random_stream(
    inference: Inference, key: str, purpose: Literal["permutation", "bootstrap"] | str
) -> np.random.Generator:
    """The random generator of one purpose for one named quantity, derived from the seed.

    The spawn key is a SHA-256 hash of ``purpose`` and ``key`` (four 32-bit words), so
    streams of different keys are independent children of ``inference.seed`` and each is
    reproducible on its own.
    """
    digest = hashlib.sha256(f"{purpose}\n{key}".encode()).digest()
    words = tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))
    return np.random.default_rng(np.random.SeedSequence(inference.seed, spawn_key=words))


def compare(cases: Sequence[Case], *, inference: Inference, key: str) -> Comparison:
    """Excess change of a transition over its cases, with its interval and permutation p-value.

    ``cases`` holds one (distance matrix, n_a) pair per case; every case needs at least two
    outputs at each coordinate (AnalysisError otherwise). ``key`` names the transition stably
    (for instance "temperature: 0.2 -> 0.4"); it selects the random streams, so equal keys
    under equal settings give equal numbers.
    """
    return compare_many([(key, cases)], inference=inference)[0]


def compare_many(
    items: Sequence[tuple[str, Sequence[Case]]], *, inference: Inference
) -> list[Comparison]:
    """:func:`compare` over a batch of (key, cases) transitions, in the order given.

    Each result equals what :func:`compare` gives for that transition alone: its streams
    depend on its key, not on its position in the batch, and its cases are grouped the same
    way. Input checks run once over the whole batch, which is what keeps profiles of
    hundreds of transitions cheap.
    """
    for key, _ in items:
        if not isinstance(key, str) or not key:
            raise AnalysisError(f"a comparison needs a non-empty string key, got {key!r}")
    grouped = group_transitions(items)
    return [
        _compare_groups(key, groups, len(cases), inference)
        for (key, cases), groups in zip(items, grouped, strict=True)
    ]


def _compare_groups(
    key: str, groups: Sequence[CaseGroup], cases: int, inference: Inference
) -> Comparison:
    per_case = excess_of_groups(groups, cases)
    excess = float(np.mean(per_case))
    notes: list[str] = []
    low: float | None = None
    high: float | None = None
    distribution = np.empty(0, dtype=np.float64)
    if inference.resamples > 0:
        rng = random_stream(inference, key, "bootstrap")
        where = f"transition {key!r}"
        if inference.interval == "smoothed":
            interval = smoothed_interval(
                groups,
                cases,
                resamples=inference.resamples,
                confidence=inference.confidence,
                rng=rng,
                where=where,
            )
        else:
            interval = bootstrap_mean(
                per_case,
                resamples=inference.resamples,
                confidence=inference.confidence,
                method=inference.interval,
                rng=rng,
                where=where,
            )
        low, high, distribution = interval.low, interval.high, interval.distribution
        if interval.warning is not None:
            notes.append(interval.warning)
    test = permutation_test_groups(
        groups,
        permutations=inference.permutations,
        rng=random_stream(inference, key, "permutation"),
    )
    return Comparison(
        key=key,
        excess=excess,
        per_case=tuple(per_case.tolist()),
        low=low,
        high=high,
        p_value=test.p_value,
        exact=test.exact,
        permutations=test.permutations,
        warnings=tuple(notes),
        bootstrap_distribution=distribution,
    )
