"""The two settings records an analysis takes: how to resample, and what counts as a boundary."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from modelscape._model import FrozenModel

__all__ = ["BoundaryCriterion", "Inference"]


class Inference(FrozenModel):
    """How much resampling backs every interval and p-value, and from which seed.

    Every random draw of an analysis comes from a stream derived from ``seed`` and the name of
    the transition being analysed, so the same settings reproduce the same numbers whether a
    transition is analysed alone or among hundreds, in any order. More resamples and
    permutations cost time linearly and buy precision; they never change what is estimated.
    """

    #: Case-bootstrap resamples behind each interval; 0 skips the intervals (bounds are None).
    resamples: int = Field(default=2000, ge=0)
    #: Monte-Carlo permutations per test (or the cap below which labelings are enumerated
    #: exactly); 0 skips the tests, so p-values are None and nothing can be a boundary.
    permutations: int = Field(default=10000, ge=0)
    #: Two-sided coverage of the bootstrap intervals.
    confidence: float = Field(default=0.95, gt=0.0, lt=1.0)
    #: Root of every random stream; non-negative because numpy's SeedSequence needs it so.
    seed: int = Field(default=0, ge=0)
    #: How intervals are made. ``"smoothed"`` (the default) redraws each case's outputs from a
    #: smoothed model of them for an excess change (see :mod:`modelscape.stats.smoothed`;
    #: simulated coverage in docs/design/007-honest-numbers.md); for a mean or share over
    #: cases (accuracy, missed change, thresholds, surfaces) it takes BCa floored at the t
    #: interval over cases (:mod:`modelscape.stats.floored`), and BCa for rank correlations.
    #: ``"bca"`` (bias-corrected and accelerated, Efron 1987) and ``"percentile"`` resample
    #: cases alone, for every interval: ``"bca"`` reproduces reports made before the smoothed
    #: interval existed.
    interval: Literal["smoothed", "bca", "percentile"] = "smoothed"

    @property
    def mean_interval(self) -> Literal["bca", "percentile"]:
        """The case-bootstrap method for a plain mean over cases (not an excess change)."""
        return "percentile" if self.interval == "percentile" else "bca"


class BoundaryCriterion(FrozenModel):
    """Which transitions are reported as candidate boundaries.

    A transition qualifies when its permutation p-value, after Holm's correction for every
    transition tested alongside it, is at most ``alpha`` *and* its estimated excess change is
    larger than ``min_excess``. The second condition keeps tiny but very consistent shifts
    out of the report; ``min_excess`` lives on the squared scale of the excess (for a yes/no
    answer compared with "answers differ", a shift of the yes-probability by δ gives δ², so
    0.04 is about a 20-point shift).
    """

    #: Family-wise error rate allowed over the transitions tested together.
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0)
    #: Smallest excess change worth reporting, on the squared scale.
    min_excess: float = Field(default=0.0, ge=0.0, allow_inf_nan=False)

    def selects(self, adjusted_p: float | None, excess: float | None) -> bool:
        """Whether a transition with this Holm-adjusted p-value and excess is a boundary.

        An untested transition (``adjusted_p`` is None) or one whose excess could not be
        computed (None) is never selected.
        """
        if adjusted_p is None or excess is None:
            return False
        return adjusted_p <= self.alpha and excess > self.min_excess
