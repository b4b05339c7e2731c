"""Case-bootstrap intervals of shares and means, never narrower than a t interval.

The case bootstrap of a mean over few cases is too narrow: a resample of six cases varies
by (C − 1)/C of what a new sample of six would, and its quantiles stand in for a normal
distribution where Student's t belongs. Simulated, BCa's 95% interval of an accuracy over
six cases covered 82–94% of the expectation over cases like these (``benchmarks/coverage.py``,
docs/design/007-honest-numbers.md).

:func:`floored_ratio` keeps the BCa (or percentile) interval and widens each side, where it
falls short, to the t interval built on the cluster-robust standard error of the estimate:
``estimate ± t(C − 2) · se``, ``se² = C/(C − 1) · Σ_c (t_c − R · k_c)² / K²`` for a ratio
R = Σ t_c / Σ k_c of case totals t_c over case sizes k_c (K = Σ k_c; Cameron & Miller 2015).
A mean of per-case values is the ratio with every k_c = 1, and then ``se²`` is s²/C. Where
the bootstrap already reaches further (a skewed sample) its bound stays.

The t quantile has C − 2 degrees of freedom, one fewer than the textbook C − 1: chosen by
simulation, where case values bunch at 0 or 1 (case probabilities from Beta(½, ½), four
answer values, three repetitions) and C − 1 left the interval at 0.90–0.92 over six cases;
with C − 2 it holds 0.93–0.95 there, for 7% more width at six cases and 1% at twelve.
The result is kept within ``bounds`` when the quantity cannot leave them (a share lies in
[0, 1]).

The quantity covered is the expectation over cases like these: a new sample of as many
cases from the same population, each run as often. What it cannot do: when every case
shows the same value (an accuracy of 1 everywhere) nothing varies, and the interval is
[E, E] with a DegenerateIntervalWarning, however likely a rare miss may be.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy.special import stdtrit

from modelscape.errors import AnalysisError
from modelscape.stats.bootstrap import Interval, ratio_interval

__all__ = ["CASES_CHECKED", "floored_mean", "floored_ratio", "ratio_error"]

#: Fewest cases at which ``benchmarks/coverage.py`` checked this interval's coverage (the
#: issue 28 families, from 6 cases); from fewer, the pages say it is unchecked.
CASES_CHECKED = 6


def ratio_error(totals: npt.ArrayLike, sizes: npt.ArrayLike) -> float:
    """Cluster-robust standard error of Σ totals / Σ sizes, one entry per case."""
    t = np.asarray(totals, dtype=np.float64)
    k = np.asarray(sizes, dtype=np.float64)
    cases = t.size
    whole = float(k.sum())
    if cases < 2 or whole <= 0:
        return 0.0
    ratio = float(t.sum()) / whole
    spread = float(np.sum((t - ratio * k) ** 2))
    return float(np.sqrt(cases / (cases - 1) * spread)) / whole


def floored_ratio(
    totals: npt.ArrayLike,
    sizes: npt.ArrayLike,
    *,
    resamples: int,
    confidence: float,
    method: Literal["bca", "percentile"] = "bca",
    rng: np.random.Generator,
    bounds: tuple[float, float] | None = None,
    floor: bool = True,
    where: str = "share",
) -> Interval:
    """Interval of Σ totals / Σ sizes over cases, resampled by case and floored at the t
    interval (see the module's description). Every case needs a positive size; ``floor``
    False gives the case bootstrap alone (for reports made before the floor existed)."""
    t = np.asarray(totals, dtype=np.float64)
    k = np.asarray(sizes, dtype=np.float64)
    if t.ndim != 1 or t.size == 0 or k.shape != t.shape:
        raise AnalysisError(f"{where}: needs one total and one size per case, got {t.size}")
    if (k <= 0).any():
        raise AnalysisError(f"{where}: every case needs a positive size; drop the empty ones")
    if resamples < 1:
        raise AnalysisError(f"{where}: resamples must be >= 1 to draw a distribution")
    cases = t.size
    estimate = float(t.sum() / k.sum())
    interval = ratio_interval(
        t,
        k,
        estimate,
        resamples=resamples,
        confidence=confidence,
        method=method,
        rng=rng,
        where=where,
    )
    error = ratio_error(t, k) if floor else 0.0
    # Rounding of equal case shares leaves an error of a few ulps: that is no spread either.
    if error <= 100 * np.finfo(np.float64).eps * max(abs(estimate), float(np.abs(t / k).max())):
        return interval  # nothing varies between cases: the bootstrap's own (degenerate) answer
    reach = float(stdtrit(max(cases - 2, 1), 1 - (1 - confidence) / 2)) * error
    low, high = min(interval.low, estimate - reach), max(interval.high, estimate + reach)
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Interval(low, high, interval.distribution, warning=interval.warning)


def floored_mean(
    values: npt.ArrayLike,
    *,
    resamples: int,
    confidence: float,
    method: Literal["bca", "percentile"] = "bca",
    rng: np.random.Generator,
    bounds: tuple[float, float] | None = None,
    floor: bool = True,
    where: str = "mean",
) -> Interval:
    """Interval of the mean of per-case ``values`` (equal weight per case), floored at the
    t interval (see the module's description) unless ``floor`` is False."""
    per_case = np.asarray(values, dtype=np.float64)
    return floored_ratio(
        per_case,
        np.ones_like(per_case),
        resamples=resamples,
        confidence=confidence,
        method=method,
        rng=rng,
        bounds=bounds,
        floor=floor,
        where=where,
    )
