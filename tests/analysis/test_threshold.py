"""The isotonic fit behind thresholds, and where its crossing of one half is read."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.analysis.threshold import crossing, isotonic


def pool_adjacent_violators(values: list[float], weights: list[float]) -> list[float]:
    """The textbook algorithm (Barlow et al. 1972), written independently for comparison."""
    blocks = [[v * w, w, 1] for v, w in zip(values, weights, strict=True)]
    merged = True
    while merged:
        merged = False
        for i in range(len(blocks) - 1):
            if blocks[i][0] / blocks[i][1] > blocks[i + 1][0] / blocks[i + 1][1] + 1e-15:
                total, weight, size = blocks.pop(i + 1)
                blocks[i] = [blocks[i][0] + total, blocks[i][1] + weight, blocks[i][2] + size]
                merged = True
                break
    return [total / weight for total, weight, size in blocks for _ in range(size)]


def test_out_of_order_shares_with_unequal_weights_are_pooled_by_weight() -> None:
    assert isotonic([0.6, 0.2], [1.0, 3.0]) == pytest.approx([0.3, 0.3])
    assert isotonic([0.8, 0.2, 1.0], [1.0, 3.0, 1.0]) == pytest.approx([0.35, 0.35, 1.0])


def test_three_or_more_cells_merge_into_one_block() -> None:
    assert isotonic([0.9, 0.5, 0.1], [1.0, 1.0, 1.0]) == pytest.approx([0.5, 0.5, 0.5])
    assert isotonic([0.0, 0.9, 0.6, 0.3, 1.0], [1.0, 2.0, 1.0, 1.0, 1.0]) == pytest.approx(
        [0.0, 0.675, 0.675, 0.675, 1.0]
    )
    assert isotonic([], []) == []


@given(
    st.lists(
        st.tuples(st.floats(0, 1), st.floats(0.5, 10)),
        min_size=1,
        max_size=9,
    )
)
def test_isotonic_equals_the_textbook_algorithm(pairs: list[tuple[float, float]]) -> None:
    values = [v for v, _ in pairs]
    weights = [w for _, w in pairs]
    fitted = isotonic(values, weights)
    assert fitted == pytest.approx(pool_adjacent_violators(values, weights), abs=1e-9)
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(fitted))
    # The weighted mean is kept: pooling moves values, never their total.
    assert np.dot(fitted, weights) == pytest.approx(np.dot(values, weights))


LEVELS = [1.0, 2.0, 3.0, 4.0]


def test_a_clean_step_is_read_between_its_two_levels() -> None:
    assert crossing(LEVELS, [0.0, 0.0, 1.0, 1.0], [4, 4, 4, 4]) == (2.5, 2.0, 3.0)
    # Shares part of the way: linear between the bracketing fitted values.
    assert crossing(LEVELS, [0.0, 0.25, 0.75, 1.0], [4, 4, 4, 4]) == pytest.approx((2.5, 2.0, 3.0))
    assert crossing(LEVELS, [0.0, 0.4, 0.6, 1.0], [4, 4, 4, 4]) == pytest.approx((2.5, 2.0, 3.0))


def test_a_share_of_exactly_one_half_is_read_on_its_level() -> None:
    assert crossing(LEVELS[:3], [0.0, 0.5, 1.0], [2, 2, 2]) == (2.0, 1.0, 2.0)


def test_an_answer_that_flips_twice_is_pooled_before_the_crossing() -> None:
    # 0, 1, 0, 1 fits as 0, 1/2, 1/2, 1: the crossing is at the second level.
    assert crossing(LEVELS, [0.0, 1.0, 0.0, 1.0], [3, 3, 3, 3]) == (2.0, 1.0, 2.0)
    # Unequal weights pool differently: 0.8 (1 output) and 0.2 (3 outputs) make 0.35.
    found = crossing(LEVELS[:3], [0.8, 0.2, 1.0], [1, 3, 1])
    assert found is not None
    assert found[1:] == (2.0, 3.0)
    assert found[0] == pytest.approx(2 + (0.5 - 0.35) / (1.0 - 0.35))


def test_levels_without_outputs_are_left_out() -> None:
    assert crossing([1.0, 2.0, 3.0], [0.0, 0.0, 1.0], [2, 0, 2]) == (2.0, 1.0, 3.0)
    assert crossing([1.0, 2.0, 3.0], [0.0, 1.0, 1.0], [0, 0, 5]) is None


@pytest.mark.parametrize(
    "shares",
    [
        [0.0, 0.0, 0.0, 0.0],  # never reaches one half
        [1.0, 1.0, 1.0, 1.0],  # there already at the first level
        [0.6, 0.0, 0.5, 0.4],  # pooled to 0.375 everywhere: never one half
    ],
)
def test_no_crossing(shares: list[float]) -> None:
    assert crossing(LEVELS, shares, [4, 4, 4, 4]) is None
