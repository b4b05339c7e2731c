"""The shortcuts of the permutation test and the smoothed interval give the plain algorithm's
numbers bit for bit: same random stream, same sums.

Each plain version below is the straightforward form the module had before the shortcut (draw
every case's labelings, add every case; search one sorted array of all CDFs), kept here as the
reference the fast one must equal exactly, not approximately.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.stats import Inference, smoothed
from modelscape.stats.cases import StackedCases, group_cases, group_transitions
from modelscape.stats.compare import compare, compare_many
from modelscape.stats.permutation import (
    _BLOCK,
    _monte_carlo,
    _prepare,
    permutation_test,
)
from modelscape.stats.smoothed import _COUNTED, _draw


def _plain_monte_carlo(prepared, observed_sum, tolerance, permutations, rng):  # type: ignore[no-untyped-def]
    tabulated = [part for part in prepared if part.table is not None]
    tables = [part.table for part in tabulated]
    counts = np.concatenate([np.full(len(part.observed), part.labelings) for part in tabulated])
    rows = [row for table in tables for row in table]
    high = int(counts[0]) if (counts == counts[0]).all() else counts[:, None]
    hits = 0
    for start in range(0, permutations, _BLOCK):
        draws = min(_BLOCK, permutations - start)
        sums = np.zeros(draws, dtype=np.float64)
        dtype = np.int16 if int(np.max(high)) <= np.iinfo(np.int16).max else np.intp
        chosen = rng.integers(0, high, size=(len(rows), draws), dtype=dtype).astype(np.intp)
        for row, picks in zip(rows, chosen, strict=True):
            sums += row.take(picks)
        hits += int(np.count_nonzero(sums >= observed_sum - tolerance))
    return (1 + hits) / (1 + permutations)


def _binary_cases(draw_answers: list[list[int]], n_a: int) -> list[tuple[np.ndarray, int]]:
    """Cases of 0/1 answers: many alike (a zero matrix), as a report's runs have them."""
    cases = []
    for answers in draw_answers:
        values = np.asarray(answers, dtype=np.float64)
        cases.append(((values[:, None] != values[None, :]).astype(np.float64), n_a))
    return cases


answers = st.lists(
    st.lists(st.sampled_from([0, 0, 0, 1]), min_size=6, max_size=6), min_size=1, max_size=30
)


@given(answers, st.integers(0, 2**32 - 1), st.sampled_from([1, 7, 300, _BLOCK + 5]))
def test_monte_carlo_equals_adding_every_case(
    found: list[list[int]], seed: int, permutations: int
) -> None:
    groups = group_cases(_binary_cases(found, 3), key="t")
    prepared = _prepare(groups, tabulate_all=False)
    observed = 0.0
    for part in prepared:
        for value in part.observed.tolist():
            observed += value
    tolerance = 1e-12
    fast = _monte_carlo(prepared, observed, tolerance, permutations, np.random.default_rng(seed))
    plain = _plain_monte_carlo(
        prepared, observed, tolerance, permutations, np.random.default_rng(seed)
    )
    assert fast == plain


def test_monte_carlo_with_cases_of_different_sizes_equals_the_plain_one() -> None:
    # Two sizes give two label counts, so the bounds differ per row.
    rng = np.random.default_rng(3)
    cases = _binary_cases(rng.integers(0, 2, (12, 6)).tolist(), 3) + _binary_cases(
        rng.integers(0, 2, (9, 5)).tolist(), 2
    )
    cases += [(np.zeros((5, 5)), 2)] * 4  # alike cases last: the draw stops before them
    groups = group_cases(cases, key="t")
    prepared = _prepare(groups, tabulate_all=False)
    observed = float(sum(v for part in prepared for v in part.observed.tolist()))
    fast = _monte_carlo(prepared, observed, 1e-12, 999, np.random.default_rng(8))
    plain = _plain_monte_carlo(prepared, observed, 1e-12, 999, np.random.default_rng(8))
    assert fast == plain


def test_every_case_alike_draws_nothing_and_rejects_nothing() -> None:
    cases = [(np.zeros((6, 6)), 3)] * 40
    result = permutation_test(cases, permutations=500, rng=1)
    assert result.p_value == 1.0
    assert not result.exact


def _plain_draw(probabilities: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    units, size = probabilities.shape
    cumulative = np.cumsum(probabilities, axis=1)
    offsets = np.arange(units, dtype=np.float64)[:, None]
    flat = (cumulative / cumulative[:, -1:] + offsets).ravel()
    found = np.searchsorted(flat, rng.random((resamples, units)) + offsets.T, side="right")
    result: np.ndarray = np.minimum(found - np.arange(units) * size, size - 1)
    return result


def _plain_pick(shifted: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    units, size = shifted.shape
    offsets = np.arange(units, dtype=np.float64)[:, None]
    found = np.searchsorted(shifted.ravel(), rng.random((resamples, units)) + offsets.T, "right")
    result: np.ndarray = np.minimum(found - np.arange(units) * size, size - 1)
    return result


def _plain_noise(groups, resamples, rng):  # type: ignore[no-untyped-def]
    """The smoothed noise with every block tabulated afresh, as it was."""
    total = np.zeros(resamples, dtype=np.float64)
    for group in groups:
        distances, model_a, model_b, varied = smoothed.unit_models(group.stack, group.n_a)
        if not varied.any():
            continue
        distances, model_a, model_b = distances[varied], model_a[varied], model_b[varied]
        expected = smoothed._model_excess(distances, model_a, model_b).sum()
        count, width = model_a.shape
        block = max(1, smoothed._BLOCK_ELEMENTS // (count * width * 2))
        for start in range(0, resamples, block):
            rows = min(block, resamples - start)
            excess = smoothed._tabulated(
                distances, model_a, model_b, group.n_a, group.n_b, rows, rng
            )
            total[start : start + rows] += excess.sum(axis=1) - expected
    return total


def test_noise_tabulated_once_equals_tabulating_every_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(smoothed, "_BLOCK_ELEMENTS", 2000)  # many blocks of resamples
    rng = np.random.default_rng(9)
    cases = _binary_cases((rng.random((40, 8)) < 0.4).astype(int).tolist(), 4)
    groups = group_cases(cases, key="t")
    fast = smoothed._noise(groups, 700, np.random.default_rng(1))
    plain = _plain_noise(groups, 700, np.random.default_rng(1))
    assert fast.tobytes() == plain.tobytes()


@given(
    st.integers(1, 40),
    st.sampled_from([2, 3, 6, 21, _COUNTED + 3]),
    st.integers(1, 50),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_draw_equals_one_search_of_every_cdf(
    units: int, size: int, resamples: int, seed: int, zeros: bool
) -> None:
    rng = np.random.default_rng(seed)
    probabilities = rng.random((units, size)) ** 3
    if zeros:  # impossible count vectors (padding values) have probability 0
        probabilities[:, : size // 2] = 0.0
        probabilities[:, -1] += 1e-300
    fast = _draw(probabilities, resamples, np.random.default_rng(seed + 1))
    plain = _plain_draw(probabilities, resamples, np.random.default_rng(seed + 1))
    np.testing.assert_array_equal(fast, plain)


def test_a_uniform_rounding_into_the_next_unit_keeps_its_own_last_value() -> None:
    # Unit 1's CDF starts at 0 (its first values are impossible), so a uniform of unit 0 that
    # rounds up to exactly 1.0 would land among them in one search of every CDF.
    probabilities = np.array([[0.5, 0.5], [0.0, 1.0]])

    class One:
        def random(self, size: tuple[int, int]) -> np.ndarray:
            return np.full(size, np.nextafter(1.0, 0.0))

    fast = _draw(probabilities, 3, One())  # type: ignore[arg-type]
    plain = _plain_draw(probabilities, 3, One())  # type: ignore[arg-type]
    np.testing.assert_array_equal(fast, plain)
    assert (fast[:, 0] == 1).all()


@pytest.mark.parametrize("interval", ["smoothed", "bca"])
def test_compare_on_many_alike_cases_equals_the_plain_algorithm(
    interval: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(5)
    varied = _binary_cases((rng.random((30, 10)) < 0.3).astype(int).tolist(), 5)
    cases = [(np.zeros((10, 10)), 5)] * 60 + varied + [(np.zeros((10, 10)), 5)] * 7
    inference = Inference(seed=4, interval=interval, permutations=2000, resamples=500)  # type: ignore[arg-type]
    fast = compare(cases, inference=inference, key="k")
    monkeypatch.setattr("modelscape.stats.permutation._monte_carlo", _plain_monte_carlo)
    monkeypatch.setattr("modelscape.stats.smoothed._pick", _plain_pick)
    plain = compare(cases, inference=inference, key="k")
    assert fast == plain
    assert fast.p_value is not None
    assert fast.low is not None
    assert fast.bootstrap_distribution.tobytes() == plain.bootstrap_distribution.tobytes()


def _stacked(cases: list[tuple[np.ndarray, int]]) -> StackedCases:
    """The cases as blocks by size, in the order each size first appears."""
    blocks: dict[tuple[int, int], list[int]] = {}
    for index, (matrix, n_a) in enumerate(cases):
        blocks.setdefault((n_a, matrix.shape[0]), []).append(index)
    return StackedCases(
        [
            (np.asarray(members, dtype=np.intp), n_a, np.stack([cases[i][0] for i in members]))
            for (n_a, _), members in blocks.items()
        ],
        len(cases),
    )


@given(st.lists(st.tuples(st.integers(2, 4), st.integers(2, 4)), min_size=1, max_size=25))
def test_stacked_cases_group_as_the_cases_one_by_one(sizes: list[tuple[int, int]]) -> None:
    rng = np.random.default_rng(len(sizes))
    cases = []
    for n_a, n_b in sizes:
        values = rng.integers(0, 3, n_a + n_b).astype(np.float64)
        cases.append((np.abs(values[:, None] - values[None, :]), n_a))
    items = [("one", cases), ("two", list(reversed(cases)))]
    plain = group_transitions(items)
    stacked = group_transitions([(key, _stacked(found)) for key, found in items])
    assert len(plain) == len(stacked)
    for first, second in zip(plain, stacked, strict=True):
        assert [(g.n_a, g.n_b) for g in first] == [(g.n_a, g.n_b) for g in second]
        for a, b in zip(first, second, strict=True):
            assert a.positions.tolist() == b.positions.tolist()
            assert a.stack.tobytes() == b.stack.tobytes()
            assert a.excess.tobytes() == b.excess.tobytes()
    again = list(_stacked(cases))
    assert [n_a for _, n_a in again] == [n_a for _, n_a in cases]
    assert [m.tobytes() for m, _ in again] == [m.tobytes() for m, _ in cases]


def test_compare_many_of_stacked_cases_equals_of_the_cases() -> None:
    rng = np.random.default_rng(11)
    cases = _binary_cases((rng.random((25, 9)) < 0.3).astype(int).tolist(), 4)
    cases += _binary_cases((rng.random((6, 7)) < 0.5).astype(int).tolist(), 3)
    inference = Inference(seed=2, permutations=3000, resamples=300)
    plain = compare_many([("k", cases)], inference=inference)
    stacked = compare_many([("k", _stacked(cases))], inference=inference)
    assert plain == stacked


def _plain_table_draw(table: smoothed._Tabulated, shape: tuple[int, int, int], resamples, rng):  # type: ignore[no-untyped-def]
    """The redraw as a fancy index of the (units, A, B) table, as it was."""
    picked_a = _plain_pick(table.cdf_a, resamples, rng)
    picked_b = _plain_pick(table.cdf_b, resamples, rng)
    rows = np.arange(shape[0])[None, :]
    return table.values.reshape(shape)[rows, picked_a, picked_b]


@given(st.integers(1, 30), st.integers(2, 4), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_a_flat_take_of_the_table_equals_the_fancy_index(
    units: int, n_a: int, resamples: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    cases = _binary_cases((rng.random((units, n_a + 3)) < 0.4).astype(int).tolist(), n_a)
    (group,) = group_cases(cases, key="t")
    distances, model_a, model_b, _ = smoothed.unit_models(group.stack, group.n_a)
    table = smoothed._Tabulated(distances, model_a, model_b, group.n_a, group.n_b)
    width = model_a.shape[1]
    shape = (
        units,
        len(smoothed._compositions(group.n_a, width)[0]),
        len(smoothed._compositions(group.n_b, width)[0]),
    )
    fast = table.draw(resamples, np.random.default_rng(seed + 1))
    plain = _plain_table_draw(table, shape, resamples, np.random.default_rng(seed + 1))
    assert fast.tobytes() == plain.tobytes()


matrices = st.integers(1, 4).flatmap(
    lambda n: st.lists(
        st.lists(
            st.sampled_from([0.0, 1.0, 2.5, -1.0, -0.0, 1e-300, float("nan"), float("inf")]),
            min_size=n * n,
            max_size=n * n,
        ),
        min_size=1,
        max_size=4,
    ).map(lambda cells: np.asarray(cells, dtype=np.float64).reshape(len(cells), n, n))
)


@given(matrices, st.booleans())
def test_the_exact_check_passes_only_stacks_the_tolerant_checks_pass(
    stack: np.ndarray, symmetrise: bool
) -> None:
    from modelscape.stats import distances

    if symmetrise:  # most generated stacks would fail at once otherwise
        stack = np.triu(stack, 1) + np.triu(stack, 1).transpose(0, 2, 1)
    names = [f"case {i}" for i in range(len(stack))]
    flat = stack.reshape(len(stack), -1)
    if not distances._exact_distances(stack, flat):
        return
    # What the exact check lets through, the tolerant checks (alone) must let through too:
    # an AnalysisError here fails the test.
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(distances, "_exact_distances", lambda *arguments: False)
        distances.check_distances(stack, names)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ((0, 1, float("nan")), "NaN or infinite"),
        ((0, 1, -1.0), "not symmetric"),
        ((1, 1, 0.5), "nonzero diagonal"),
    ],
)
def test_a_stack_that_is_no_distance_is_still_named(
    change: tuple[int, int, float], message: str
) -> None:
    from modelscape.errors import AnalysisError
    from modelscape.stats.distances import check_distances

    stack = np.zeros((3, 4, 4))
    stack[:, 0, 1] = stack[:, 1, 0] = 1.0
    row, column, value = change
    stack[2, row, column] = value
    with pytest.raises(AnalysisError, match=message) as raised:
        check_distances(stack, ["a", "b", "c"])
    assert str(raised.value).startswith("c:")
