"""The statistics core: excess change, permutation tests, case bootstrap and Holm, on matrices.

It knows nothing of tasks, targets or stores. A *case* is a symmetric distance matrix D over
one case's outputs at two coordinates, the n_a outputs at a first and then the n_b at b
(n_a, n_b >= 2), passed as the pair ``(D, n_a)``. A *transition* a → b is a list of cases
with a stable string key. The analysis layer turns results into these matrices and reads
back :class:`Comparison` records.

Typical use::

    comparisons = compare_many([(key, cases), ...], inference=Inference())
    check_permutations(comparisons, alpha=criterion.alpha)      # warns if P is too small
    adjusted = holm([c.p_value for c in comparisons])
    boundaries = [criterion.selects(p, c.excess) for p, c in zip(adjusted, comparisons)]

Building blocks, for other statistics over cases:

- :func:`excess_per_case`, :func:`excess_per_cases`, :func:`excess_kernel`: the statistic;
- :func:`permutation_test`: its one-sided permutation p-value (exact when enumerable);
- :func:`bootstrap_distribution`, :func:`bootstrap_interval`, :func:`bootstrap_mean`,
  :func:`cluster_mean`: case bootstrap with BCa or percentile intervals, from any
  distribution and jackknife, of case means or of means over units clustered by case;
- :func:`smoothed_interval`: the default interval of an excess change, which redraws each
  case's outputs from a smoothed model of them (the case bootstrap alone under-covers);
- :func:`random_stream`: the reproducible random generator of a named quantity.

Caveats are emitted as :class:`StatisticsWarning` subclasses and also kept as text.
"""

from modelscape.stats.bootstrap import (
    Interval,
    bootstrap_distribution,
    bootstrap_interval,
    bootstrap_mean,
    cluster_mean,
)
from modelscape.stats.compare import Case, Comparison, compare, compare_many, random_stream
from modelscape.stats.diagnostics import (
    DegenerateIntervalWarning,
    FewCasesWarning,
    PermutationCountWarning,
    StatisticsWarning,
)
from modelscape.stats.excess import excess_kernel, excess_per_case, excess_per_cases
from modelscape.stats.holm import check_permutations, holm
from modelscape.stats.permutation import PermutationResult, permutation_test
from modelscape.stats.settings import BoundaryCriterion, Inference
from modelscape.stats.smoothed import smoothed_interval

__all__ = [
    "BoundaryCriterion",
    "Case",
    "Comparison",
    "DegenerateIntervalWarning",
    "FewCasesWarning",
    "Inference",
    "Interval",
    "PermutationCountWarning",
    "PermutationResult",
    "StatisticsWarning",
    "bootstrap_distribution",
    "bootstrap_interval",
    "bootstrap_mean",
    "check_permutations",
    "cluster_mean",
    "compare",
    "compare_many",
    "excess_kernel",
    "excess_per_case",
    "excess_per_cases",
    "holm",
    "permutation_test",
    "random_stream",
    "smoothed_interval",
]
