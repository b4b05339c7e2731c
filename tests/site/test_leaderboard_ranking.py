"""The leaderboard's ranking and matrix, against an independent computation.

The mean win rate is checked against average ranks from ``scipy.stats.rankdata`` (on one
scenario a target's win rate is ``(rank - 1) / (n - 1)``), averaged in exact fractions, and the
competition ranking by mean accuracy against a count of strictly higher means (exact fractions
too); ``test_ranking.py`` checks the rank intervals.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy.stats import rankdata

from modelscape.site.catalog import target_kind
from modelscape.site.leaderboard import HEAT_BINS, Matrix, heat, win_rates
from modelscape.site.ranking import minimum_scenarios
from modelscape.site.tables import matrix_table
from tests.site.boards import REFERENCE, catalog_of, summary
from tests.site.sitetools import REPO

#: Accuracies with many ties: sixths, and n/a.
ACCURACY = st.one_of(st.none(), st.integers(0, 6).map(lambda k: k / 6))
TABLE = st.dictionaries(
    st.sampled_from(["s1", "s2", "s3", "s4"]),
    st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), ACCURACY, max_size=5),
    max_size=4,
)


def _expected(table: dict[str, dict[str, float | None]]) -> dict[str, Fraction | None]:
    """Mean win rates the slow way: average ranks per scenario, exact fractions."""
    earned: dict[str, list[Fraction]] = {}
    for by_model in table.values():
        defined = {m: v for m, v in by_model.items() if v is not None}
        if len(defined) < 2:
            continue
        models = sorted(defined)
        ranks = rankdata([defined[m] for m in models], method="average")
        for model, rank in zip(models, ranks, strict=True):
            # average ranks are whole or halves: exact as a fraction of two
            earned.setdefault(model, []).append(
                Fraction(round(2 * (rank - 1)), 2 * (len(models) - 1))
            )
    everyone = {m for by_model in table.values() for m in by_model}
    return {m: (sum(earned[m]) / len(earned[m]) if m in earned else None) for m in everyone}


@given(TABLE)
def test_mean_win_rates_equal_average_ranks(table: dict[str, dict[str, float | None]]) -> None:
    found = win_rates(table)
    expected = _expected(table)
    assert set(found) == set(expected)
    for model, value in expected.items():
        rate = found[model]
        if value is None:
            assert rate.value is None
            assert rate.reason
        else:
            assert rate.value == pytest.approx(float(value), abs=1e-12)
            scenarios = [s for s, row in table.items() if row.get(model) is not None]
            counted = [s for s in scenarios if sum(v is not None for v in table[s].values()) > 1]
            assert rate.scenarios == len(counted)


@given(TABLE)
# Two mean accuracies of 7/36 summed in other orders may differ in their last bit: they tie.
@example(
    {"s1": {"b": 1 / 6, "e": 1 / 3, "a": 0.0}, "s2": {"e": 0.0, "a": 0.0, "b": 1 / 6, "c": 1 / 3}}
)
# b and c share first place (7/12 each), but c's sum is a bit larger in floating point: the
# rows of a shared place follow the names, not the last bit (found by a random run).
@example(
    {
        "s3": {"e": 1 / 6, "c": 5 / 6, "a": None, "d": None, "b": 0.5},
        "s1": {"e": 0.0, "d": None, "b": 2 / 3, "a": 1 / 3, "c": 1 / 3},
    }
)
def test_the_matrix_ranks_by_mean_accuracy_with_shared_places(
    table: dict[str, dict[str, float | None]],
) -> None:
    runs = [summary(f"run-{s}", s, row) for s, row in table.items() if row]
    matrix = Matrix.of(catalog_of(*runs))
    shown = {s: row for s, row in table.items() if row}
    need = minimum_scenarios(len(shown))
    means: dict[str, Fraction | None] = {}
    for model in {m for row in shown.values() for m in row}:
        values = [
            Fraction(v).limit_denominator(6)
            for row in shown.values()
            if (v := row.get(model)) is not None
        ]
        # Exact fractions of sixths: n/a is left out, and too few scenarios leave it unranked.
        means[model] = sum(values, Fraction(0)) / len(values) if len(values) >= need else None
    ranked = [v for v in means.values() if v is not None]
    ranks = {row.model: row.rank for row in matrix.rows}
    for model, value in means.items():
        if value is None:
            assert ranks[model] is None
        else:
            assert ranks[model] == 1 + sum(1 for other in ranked if other > value)
    # Rows in rank order, unranked last, names breaking ties.
    order = [(r.rank is None, r.rank or 0, r.model) for r in matrix.rows if r.rank is not None]
    assert order == sorted(order)
    assert [r.rank is None for r in matrix.rows] == sorted(r.rank is None for r in matrix.rows)


def test_a_small_matrix_by_hand() -> None:
    catalog = catalog_of(
        summary("r1", "alpha", {"a": 0.9, "b": 0.5, "c": 0.5}),
        summary("r2", "beta", {"a": 0.2, "b": 0.8, "d": None}),
    )
    matrix = Matrix.of(catalog)
    rows = {row.model: row for row in matrix.rows}
    # alpha: a beats b and c (1); b and c tie (0.5 each). beta: b beats a; d is n/a.
    assert rows["a"].win_rate.value == pytest.approx((1.0 + 0.0) / 2)
    assert rows["b"].win_rate.value == pytest.approx((0.25 + 1.0) / 2)
    assert rows["c"].win_rate.value == pytest.approx(0.25)
    assert rows["d"].win_rate.value is None
    assert [(r.model, r.rank) for r in matrix.rows] == [("b", 1), ("a", 2), ("c", 3), ("d", None)]
    assert matrix.scenarios == ("alpha", "beta")
    assert set(rows["c"].entries) == {"alpha"}  # not run on beta: no entry, not a zero


def test_the_most_recent_run_of_a_pair_is_the_one_shown() -> None:
    catalog = catalog_of(
        summary("old", "alpha", {"a": 0.1, "b": 0.9}, created="2026-01-01T00:00:00+00:00"),
        summary("new", "alpha", {"a": 0.95}, created="2026-02-01T00:00:00+00:00"),
    )
    rows = {row.model: row for row in Matrix.of(catalog).rows}
    assert rows["a"].entries["alpha"].run.run == "new"
    assert rows["b"].entries["alpha"].run.run == "old"
    assert rows["a"].rank == 1


def test_groups_have_their_own_matrices() -> None:
    catalog = catalog_of(
        summary(
            "r1",
            "alpha",
            {"a": 0.5, "b": 0.6},
            groups={"hard": {"a": 0.9, "b": 0.1}, "easy": {"a": 0.2, "b": 0.3}},
        ),
        summary("r2", "beta", {"a": 0.7, "b": 0.6}, groups={"hard": {"a": 0.1, "b": 0.4}}),
    )
    assert catalog.groups() == ["all", "easy", "hard"]
    hard = Matrix.of(catalog, "hard")
    assert hard.scenarios == ("alpha", "beta")
    assert {r.model: r.win_rate.value for r in hard.rows} == {"a": 0.5, "b": 0.5}
    easy = Matrix.of(catalog, "easy")
    assert easy.scenarios == ("alpha",)
    assert [r.model for r in easy.rows] == ["b", "a"]


@pytest.mark.parametrize(
    ("settings", "kind"),
    [
        ({"kind": "oracle", "scenario": "x"}, "reference"),
        ({"kind": "random", "choices": ["a"]}, "reference"),
        ({"provider": "openai-compatible", "model": "gemma"}, "model"),
        ({"provider": "llama-cpp"}, "model"),
        ({}, "other"),
        ({"kind": "my-own-kind"}, "other"),
        ({"provider": 3}, "other"),
    ],
)
def test_target_kinds_come_from_the_identity(settings: dict[str, object], kind: str) -> None:
    assert target_kind(settings) == kind  # type: ignore[arg-type]


def test_reference_targets_are_marked_in_the_table() -> None:
    catalog = catalog_of(
        summary("r", "alpha", {"oracle": 1.0, "m": 0.5}, settings={"oracle": REFERENCE})
    )
    rows = {row["model"]: row for row in matrix_table(catalog, Matrix.of(catalog))["rows"]}
    assert rows["oracle"]["kind"] == "reference"
    assert rows["oracle"]["provenance"] is None
    assert rows["m"]["kind"] == "model"
    assert rows["m"]["provenance"]["href"] == "models/m.html#provenance"


def test_heat_steps_cover_zero_to_one() -> None:
    assert [heat(k / 20) for k in range(21)] == [k // 2 for k in range(20)] + [9]
    assert heat(None) is None
    assert heat(math.nan) is None
    assert heat(-0.2) == 0
    assert heat(1.5) == HEAT_BINS - 1


def _luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of #rrggbb."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_every_heat_step_has_a_colour_with_readable_text() -> None:
    css = (REPO / "themes" / "default" / "static" / "site.css").read_text(encoding="utf-8")
    steps = re.findall(
        r"\.heat-(\d+) \{ background: (#[0-9a-f]{6}); color: (#[0-9a-f]{6}); \}", css
    )
    assert [int(step) for step, _, _ in steps] == list(range(HEAT_BINS))
    for _, background, text in steps:
        light, dark = sorted([_luminance(background), _luminance(text)], reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5  # WCAG AA for normal text
