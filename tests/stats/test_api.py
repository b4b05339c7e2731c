"""The public names of modelscape.stats are locked here; change them on purpose only."""

from __future__ import annotations

import modelscape.stats


def test_exported_names() -> None:
    assert modelscape.stats.__all__ == [
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
    for name in modelscape.stats.__all__:
        assert getattr(modelscape.stats, name).__doc__, name


def test_warnings_are_user_warnings() -> None:
    assert issubclass(modelscape.stats.StatisticsWarning, UserWarning)
    assert issubclass(
        modelscape.stats.DegenerateIntervalWarning, modelscape.stats.StatisticsWarning
    )
    assert issubclass(modelscape.stats.PermutationCountWarning, modelscape.stats.StatisticsWarning)
    assert issubclass(modelscape.stats.FewCasesWarning, modelscape.stats.StatisticsWarning)
