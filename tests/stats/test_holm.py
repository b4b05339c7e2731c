"""Holm's adjustment against statsmodels, and the permutation-count precondition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modelscape.errors import AnalysisError
from modelscape.stats import Comparison, PermutationCountWarning, check_permutations, holm

p_values = st.lists(st.floats(0, 1, allow_subnormal=False), min_size=1, max_size=30)


@settings(max_examples=100, deadline=None)
@given(values=p_values)
def test_equals_statsmodels(values: list[float]) -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    _, expected, _, _ = multitest.multipletests(values, method="holm")
    np.testing.assert_allclose(holm(values), expected, rtol=1e-12, atol=1e-15)


def test_known_values() -> None:
    # m = 4, sorted 0.01, 0.02, 0.03, 0.5 → 0.04, 0.06, 0.06, 0.5.
    assert holm([0.03, 0.01, 0.5, 0.02]) == pytest.approx([0.06, 0.04, 0.5, 0.06])


def test_untested_transitions_pass_through_and_do_not_count() -> None:
    assert holm([None, 0.01, None, 0.02]) == pytest.approx([None, 0.02, None, 0.02])
    assert holm([None, None]) == [None, None]
    assert holm([]) == []


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_rejects_values_that_are_not_p_values(bad: float) -> None:
    with pytest.raises(AnalysisError, match=r"\[0, 1\]"):
        holm([0.1, bad])


def comparison(
    p_value: float | None, *, exact: bool = False, permutations: int = 999
) -> Comparison:
    return Comparison(
        key="k",
        excess=0.0,
        per_case=(0.0,),
        low=None,
        high=None,
        p_value=p_value,
        exact=exact,
        permutations=permutations,
    )


def test_warns_when_permutations_are_too_few_for_holm() -> None:
    # m = 10 at alpha = 0.05 needs P + 1 >= 4000.
    too_few = [comparison(0.5, permutations=3998)] * 10
    with pytest.warns(PermutationCountWarning, match="3999"):
        message = check_permutations(too_few, alpha=0.05)
    assert message is not None
    assert "3999" in message


def test_silent_when_enough_exact_or_untested() -> None:
    assert check_permutations([comparison(0.5, permutations=3999)] * 10, alpha=0.05) is None
    exact = [comparison(0.5, exact=True, permutations=252)] * 10
    assert check_permutations(exact, alpha=0.05) is None
    untested = [comparison(None, permutations=0)] * 10 + [comparison(0.5, permutations=399)]
    assert check_permutations(untested, alpha=0.05) is None
    assert check_permutations([], alpha=0.05) is None
    with pytest.raises(AnalysisError, match="alpha"):
        check_permutations([], alpha=0.0)
