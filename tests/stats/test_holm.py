"""Holm's adjustment against statsmodels, and the permutation-count precondition."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.errors import AnalysisError
from modelscape.stats import Comparison, PermutationCountWarning, check_permutations, holm

p_values = st.lists(
    st.one_of(st.none(), st.floats(0, 1, allow_subnormal=False)), min_size=1, max_size=30
)
#: statsmodels' Holm-adjusted values for fixed inputs (tests/stats/make_references.py made it).
REFERENCE = json.loads((Path(__file__).parent / "references" / "holm.json").read_text("utf-8"))


@pytest.mark.parametrize("row", REFERENCE["rows"], ids=lambda row: f"m={len(row['p_values'])}")
def test_equals_statsmodels(row: dict[str, list[float | None]]) -> None:
    adjusted = holm(row["p_values"])
    assert [a is None for a in adjusted] == [e is None for e in row["adjusted"]]
    np.testing.assert_allclose(
        [a for a in adjusted if a is not None],
        [e for e in row["adjusted"] if e is not None],
        rtol=1e-12,
        atol=1e-15,
    )


def _holm_by_definition(values: list[float | None]) -> list[float | None]:
    """Holm's adjusted p-values computed from the definition, one hypothesis at a time: the
    adjusted value at rank k is max over j <= k of min(1, (m - j + 1) p_(j)) (Holm 1979)."""
    tested = sorted((v, i) for i, v in enumerate(values) if v is not None)
    m = len(tested)
    result: list[float | None] = [None] * len(values)
    for k, (_, index) in enumerate(tested):
        result[index] = max(min(1.0, (m - j) * tested[j][0]) for j in range(k + 1))
    return result


@given(values=p_values)
def test_equals_the_definition(values: list[float | None]) -> None:
    adjusted, expected = holm(values), _holm_by_definition(values)
    assert [a is None for a in adjusted] == [e is None for e in expected]
    for a, e in zip(adjusted, expected, strict=True):
        assert a == (None if e is None else pytest.approx(e, rel=1e-12, abs=1e-15))


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


def test_warns_of_coarse_p_values_without_calling_boundaries_impossible() -> None:
    # m = 10 at alpha = 0.05: P + 1 >= 4000 for precise p-values; P + 1 >= 200 for any boundary.
    too_few = [comparison(0.5, permutations=3998)] * 10
    with pytest.warns(PermutationCountWarning, match="3999"):
        message = check_permutations(too_few, alpha=0.05)
    assert message is not None
    assert "a boundary is still possible" in message
    assert "no boundary can be found" not in message
    with pytest.warns(PermutationCountWarning, match="still possible"):
        check_permutations([comparison(0.5, permutations=199)] * 10, alpha=0.05)


def test_says_when_no_boundary_can_be_found() -> None:
    # 10 Monte-Carlo transitions at alpha 0.05: with P = 198, 10/(P + 1) = 0.0503 > alpha.
    with pytest.warns(PermutationCountWarning) as caught:
        message = check_permutations([comparison(0.5, permutations=198)] * 10, alpha=0.05)
    assert message == str(caught[0].message)
    assert message is not None
    assert message.startswith("no boundary can be found among the 10 of 10 transitions")
    assert "at least 1/199" in message
    assert "use at least 199 permutations for a boundary to be possible" in message
    # Exact p-values in the family leave fewer Monte-Carlo ones for Holm to multiply: with 5
    # exact and 5 Monte-Carlo transitions, 99 permutations make a boundary possible.
    mixed = [comparison(0.5, exact=True, permutations=252)] * 5 + [
        comparison(0.5, permutations=99)
    ] * 5
    with pytest.warns(PermutationCountWarning, match="still possible"):
        check_permutations(mixed, alpha=0.05)
    mixed[-1] = comparison(0.5, permutations=98)
    with pytest.warns(PermutationCountWarning, match="no boundary can be found among the 5 of"):
        check_permutations(mixed, alpha=0.05)


def test_silent_when_enough_exact_or_untested() -> None:
    assert check_permutations([comparison(0.5, permutations=3999)] * 10, alpha=0.05) is None
    exact = [comparison(0.5, exact=True, permutations=252)] * 10
    assert check_permutations(exact, alpha=0.05) is None
    untested = [comparison(None, permutations=0)] * 10 + [comparison(0.5, permutations=399)]
    assert check_permutations(untested, alpha=0.05) is None
    assert check_permutations([], alpha=0.05) is None
    with pytest.raises(AnalysisError, match="alpha"):
        check_permutations([], alpha=0.0)
