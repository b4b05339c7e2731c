"""What a design's tests could have found: power, the minimum detectable excess, the R needed.

"0 shifts" means little without the size of shift the tests would have caught. This module
answers that before any call, from the design alone: C cases, R repetitions per coordinate
on each side of a transition, m transitions tested together under Holm (the family), the
level alpha and the boundary criterion's ``min_excess``.

**The planted change.** A yes/no answer whose chance of "yes" moves, in every case, from
½ − δ/2 to ½ + δ/2, so that the excess change (on the squared scale of STATS.md) is δ².
The answers are compared with "answers differ", as a report compares them.

**The test.** The pipeline's: the one-sided permutation test of the summed excess over cases,
relabeling within each case, at level alpha/m (Holm's first step, which the largest true
change must pass for any boundary to be reported), and an estimated excess above
``min_excess``. With two answer values a case's excess depends only on its counts of "yes"
at a and at b: in units of 1/(R²(R − 1)) it is the whole number

    s = (R − 1)(x_a − x_b)² − x_a(R − x_a) − x_b(R − x_b),

and relabeling a case holds its total T = x_a + x_b fixed, so x_a is hypergeometric.

**How power is computed.**

- R = 2: exactly. Only a case with T = 2 can move the statistic: its excess is 1 when the
  two sides are separated ("yes, yes" against "no, no") and −½ when mixed, and relabeling
  separates it with chance 1/3. The p-value of j separated among k such cases is
  P(Bin(k, 1/3) ≥ j), and power sums the multinomial chances of every (k, j) that rejects.
- R ≥ 3: a normal approximation. The critical value is the permutation distribution's
  (1 − alpha/m) quantile by Cornish–Fisher from its expected variance and third moment
  (Hall 1992, section 2.5); power is the chance that the sum of the cases' excesses passes
  it, normal with the exact mean and variance over the cases' (x_a, x_b), the variance
  including the critical value's own variation through the permutation variance (delta
  method). Every moment is an exact sum over the (R + 1)² outcomes of one case.

Against the exact test (simulated data with exact permutation p-values; tests/stats/test_power.py
and docs/design/038-power.md) the approximation's power was within 0.02 at ten settings of
R = 3 to 10 and 6 to 20 cases whose power lay between 0.03 and 0.7. Near 80% it errs low:
at the minimum detectable excess it quotes, the exact power was 0.80 to 0.87 in seven
settings, so the figure overstates the smallest detectable excess by at most 0.03 there and
never understates it. Fewer than 6 cases were not checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import stats as scipy_stats

from modelscape.errors import AnalysisError
from modelscape.stats.excess import FloatArray

__all__ = [
    "MOST_COMPUTED",
    "MOST_REPETITIONS",
    "POWER",
    "DesignPower",
    "design_power",
    "detectable_excess",
    "power",
    "repetitions_needed",
]

#: The power at which the minimum detectable excess is quoted.
POWER = 0.8
#: The largest number of repetitions :func:`repetitions_needed` looks at, and the most
#: :func:`design_power` computes at: a design with more is given the figure of this many,
#: which its own can only improve on.
MOST_REPETITIONS = 100
#: The most repetitions :func:`power` takes: it enumerates (R + 1)² outcomes of a case.
MOST_COMPUTED = 1000
#: Bisection steps for the minimum detectable excess: the excess lies in [0, 1], so 30
#: halvings leave an error far below the approximation's own.
_BISECTIONS = 30

Kind = Literal["shifts", "departures", "boundaries"]


def _check(cases: int, repetitions: int, family: int, alpha: float) -> None:
    if cases < 1:
        raise AnalysisError(f"power needs at least one case, got cases={cases}")
    if repetitions < 2:
        raise AnalysisError(
            f"power needs at least two repetitions, got repetitions={repetitions}: with one "
            "there is no run-to-run variation to test a change against"
        )
    if family < 1:
        raise AnalysisError(f"a family of tests holds at least one, got family={family}")
    if not 0.0 < alpha < 1.0:
        raise AnalysisError(f"alpha must be inside (0, 1), got {alpha}")


@lru_cache(maxsize=256)
def _null_moments(repetitions: int) -> tuple[FloatArray, FloatArray, FloatArray, int]:
    """Per total T = 0..2R, the permutation mean, variance and third central moment of s;
    and the lattice step of the null sums (the gcd of every gap between a total's scores)."""
    r = repetitions
    means, variances, thirds = (np.zeros(2 * r + 1) for _ in range(3))
    step = 0
    for total in range(2 * r + 1):
        x_a = np.arange(max(0, total - r), min(r, total) + 1).astype(np.float64)
        chances = scipy_stats.hypergeom.pmf(x_a, 2 * r, total, r)
        scores = _scores(r, x_a, total - x_a)
        mean = float(chances @ scores)
        means[total] = mean
        variances[total] = float(chances @ (scores - mean) ** 2)
        thirds[total] = float(chances @ (scores - mean) ** 3)
        for gap in np.diff(np.unique(scores)).astype(np.int64).tolist():
            step = math.gcd(step, gap)
    return means, variances, thirds, step


def _scores(repetitions: int, x_a: FloatArray, x_b: FloatArray) -> FloatArray:
    """A case's excess in units of 1/(R²(R − 1)), from its counts of "yes" at a and b."""
    r = repetitions
    result: FloatArray = (r - 1) * (x_a - x_b) ** 2 - x_a * (r - x_a) - x_b * (r - x_b)
    return result


def _chances(excess: float) -> tuple[float, float]:
    """The chances of "yes" before and after a planted change of this excess."""
    delta = math.sqrt(excess)
    return 0.5 - delta / 2, 0.5 + delta / 2


def _power_two(excess: float, cases: int, level: float, floor: float) -> float:
    """Exact power at R = 2 (module docstring): a sum over (informative, separated) counts."""
    before, after = _chances(excess)
    separated = (before * (1 - after)) ** 2 + ((1 - before) * after) ** 2
    mixed = 4 * before * (1 - before) * after * (1 - after)
    useful = separated + mixed
    if useful <= 0:
        return 0.0
    informative = np.arange(cases + 1)
    # The fewest separated cases among k whose p-value P(Bin(k, 1/3) >= j) is at most the
    # level (isf gives the largest j - 1 with P(X > j - 1) above it), and whose estimated
    # excess (j - (k - j) / 2) / C passes min_excess.
    fewest = scipy_stats.binom.isf(level * (1 + 1e-12), informative, 1 / 3) + 1
    fewest = np.maximum(fewest, np.floor((floor * cases + 0.5 * informative) / 1.5) + 1)
    found = scipy_stats.binom.pmf(informative, cases, useful) * scipy_stats.binom.sf(
        fewest - 1, informative, separated / useful
    )
    return float(min(1.0, np.nansum(found)))


def _power_normal(excess: float, cases: int, repetitions: int, level: float, floor: float) -> float:
    """Approximate power at R >= 3 (module docstring), from exact moments of one case."""
    r = repetitions
    before, after = _chances(excess)
    counts = np.arange(r + 1)
    joint = np.outer(
        scipy_stats.binom.pmf(counts, r, before), scipy_stats.binom.pmf(counts, r, after)
    ).ravel()
    x_a = np.repeat(counts, r + 1).astype(np.float64)
    x_b = np.tile(counts, r + 1).astype(np.float64)
    scores = _scores(r, x_a, x_b)
    totals = (x_a + x_b).astype(np.intp)
    _, variances, thirds, step = _null_moments(r)
    null_variance = cases * float(joint @ variances[totals])
    if null_variance <= 0:
        return 0.0  # no outcome can move the statistic: nothing is ever found
    z = float(scipy_stats.norm.isf(level))
    skew = cases * float(joint @ thirds[totals]) / null_variance**1.5
    # The permutation (1 − level) quantile by Cornish–Fisher, continuity-corrected by half
    # the lattice step of the null sums: p counts the observed sum's own atom.
    critical = math.sqrt(null_variance) * (z + skew * (z * z - 1) / 6) + step / 2
    # The estimated excess must also pass min_excess (on the score scale, summed over cases).
    critical = max(critical, floor * cases * r * r * (r - 1))
    mean = float(joint @ scores)
    centred = scores - mean
    spread = float(joint @ centred**2)
    if spread <= 0:
        return 1.0 if cases * mean >= critical else 0.0
    # P(S >= critical) for the sum S over cases, by its one-term Edgeworth expansion.
    lean = float(joint @ centred**3) / spread**1.5 / math.sqrt(cases)
    u = (critical - cases * mean) / math.sqrt(cases * spread)
    found = scipy_stats.norm.sf(u) + scipy_stats.norm.pdf(u) * lean * (u * u - 1) / 6
    return float(min(1.0, max(0.0, found)))


def power(
    excess: float,
    *,
    cases: int,
    repetitions: int,
    family: int = 1,
    alpha: float = 0.05,
    min_excess: float = 0.0,
) -> float:
    """The chance that the pipeline's test reports a planted change of this excess.

    The change is planted in every case (module docstring); ``family`` is the number of
    transitions tested together under Holm, so the test runs at level alpha/family. Exact at
    two repetitions, a calibrated normal approximation above (error in the module docstring).
    Raises AnalysisError for fewer than two repetitions: power is then undefined.
    """
    _check(cases, repetitions, family, alpha)
    if repetitions > MOST_COMPUTED:
        raise AnalysisError(
            f"power is computed for at most {MOST_COMPUTED:,} repetitions, got "
            f"repetitions={repetitions:,}: it only grows with more"
        )
    if not 0.0 <= excess <= 1.0:
        raise AnalysisError(f"a yes/no answer's excess lies in [0, 1], got excess={excess}")
    level = alpha / family
    if repetitions == 2:
        return _power_two(excess, cases, level, min_excess)
    return _power_normal(excess, cases, repetitions, level, min_excess)


def detectable_excess(
    *,
    cases: int,
    repetitions: int,
    family: int = 1,
    alpha: float = 0.05,
    min_excess: float = 0.0,
    target: float = POWER,
) -> float | None:
    """The smallest planted excess found with at least ``target`` power; None when even a
    complete flip of every case (excess 1) is found less often than that."""

    def at(excess: float) -> float:
        return power(
            excess,
            cases=cases,
            repetitions=repetitions,
            family=family,
            alpha=alpha,
            min_excess=min_excess,
        )

    if at(1.0) < target:
        return None
    low, high = 0.0, 1.0
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        if at(middle) >= target:
            high = middle
        else:
            low = middle
    return high


def repetitions_needed(
    excess: float,
    *,
    cases: int,
    family: int = 1,
    alpha: float = 0.05,
    min_excess: float = 0.0,
    target: float = POWER,
    most: int = MOST_REPETITIONS,
) -> int | None:
    """The fewest repetitions per variant (from 2) that find ``excess`` with ``target``
    power at these cases; None when not even ``most`` do."""
    for repetitions in range(2, most + 1):
        found = power(
            excess,
            cases=cases,
            repetitions=repetitions,
            family=family,
            alpha=alpha,
            min_excess=min_excess,
        )
        if found >= target:
            return repetitions
    return None


@dataclass(frozen=True, slots=True)
class DesignPower:
    """What one family of tests of a design could find: its minimum detectable excess.

    ``detectable`` is the smallest excess found with 80% power (None with ``reason`` when
    there is none: one repetition, tests switched off, or not even a complete flip);
    ``needed`` the repetitions that would find an excess of ``wanted`` (None: not within
    :data:`MOST_REPETITIONS`, or undefined).
    """

    kind: Kind
    cases: int
    repetitions: int
    family: int
    alpha: float
    detectable: float | None
    wanted: float
    needed: int | None
    reason: str | None = None

    @property
    def phrase(self) -> str:
        """The clause a page puts beside "0 shifts": what the tests could have found."""
        if self.detectable is None:
            return f"power n/a: {self.reason}"
        return f"could detect an excess of {self.detectable:.2f} or more with 80% power"

    @property
    def weak(self) -> bool:
        """Whether the design would miss an excess of ``wanted`` more often than 20%."""
        return self.detectable is None or self.detectable > self.wanted


@lru_cache(maxsize=1024)
def design_power(
    kind: Kind,
    *,
    cases: int,
    repetitions: int,
    family: int,
    alpha: float = 0.05,
    min_excess: float = 0.0,
    tested: bool = True,
    wanted: float = 0.3,
) -> DesignPower:
    """The minimum detectable excess of one family, and the R that would find ``wanted``.

    ``tested`` is False when the analysis runs no permutation tests (permutations = 0).
    Above :data:`MOST_REPETITIONS` repetitions the figure is that of 100, an upper bound.
    Cached: a page asks for the same few designs once per scorecard and axis.
    """
    reason: str | None = None
    if not tested:
        reason = "no permutation tests (permutations = 0)"
    elif repetitions < 2:
        reason = f"{repetitions} repetition per variant: no run-to-run variation to test against"
    elif cases < 1:
        reason = "no case to test"
    family = max(family, 1)
    if not tested or cases < 1:
        return DesignPower(kind, cases, repetitions, family, alpha, None, wanted, None, reason)
    # The R that would find ``wanted`` is worth saying even when this design has R = 1.
    needed = repetitions_needed(
        wanted, cases=cases, family=family, alpha=alpha, min_excess=min_excess
    )
    if reason is not None:
        return DesignPower(kind, cases, repetitions, family, alpha, None, wanted, needed, reason)
    detectable = detectable_excess(
        cases=cases,
        repetitions=min(repetitions, MOST_REPETITIONS),
        family=family,
        alpha=alpha,
        min_excess=min_excess,
    )
    if detectable is None:
        reason = "not even a complete flip of every case is found with 80% power"
    return DesignPower(kind, cases, repetitions, family, alpha, detectable, wanted, needed, reason)
