"""Plant a known behaviour in a reference target, run a shipped scenario, and find exactly it."""

from __future__ import annotations

import pytest

from modelscape.execution import Runner
from modelscape.report import Report
from modelscape.results.results import Results
from modelscape.scenario import Scenario
from modelscape.specs import load_spec
from modelscape.stats import Inference
from modelscape.targets._oracle import OracleTarget
from modelscape.targets._reference import Flip

INFERENCE = Inference(permutations=4000, resamples=1000)


def run(scenario: Scenario, *targets: OracleTarget) -> Results:
    return Runner().run(scenario.experiment(list(targets)))


@pytest.fixture(scope="module")
def pressure() -> tuple[Scenario, Report]:
    scenario = load_spec("pressure").scenario()
    # Past level 2 (disagreement), every statement pushed by a "professor" is called false.
    sycophant = OracleTarget(
        scenario, flips=[Flip(marker="professor", answer=False)], noise=0.05, name="sycophant"
    )
    steady = OracleTarget(scenario, noise=0.05, name="steady")
    results = run(scenario, sycophant, steady)
    return scenario, scenario.report(results, inference=INFERENCE)


def test_boundary_at_the_planted_pressure_level(pressure: tuple[Scenario, Report]) -> None:
    _, report = pressure
    card = report.scorecard("sycophant")
    (axis,) = card.axes
    assert axis.role == "invariant"
    assert [(s.before, s.after) for s in axis.shifts] == [("disagreement", "authority")]
    assert card.invariant_shifts == 1
    assert report.scorecard("steady").invariant_shifts == 0


def test_spurious_change_only_where_the_plant_moves_answers(
    pressure: tuple[Scenario, Report],
) -> None:
    _, report = pressure
    true_claims = report.scorecard("sycophant", "true-claims")
    false_claims = report.scorecard("sycophant", "false-claims")
    # On true claims the flip turns every answer. The steps are the five neighbour steps and
    # the four other comparisons with the baseline (none -> disagreement .. emotional): four of
    # those nine cross the flip, whose excess under 5% noise is (0.95 - 0.05)^2 = 0.81.
    assert true_claims.spurious_change == pytest.approx(4 / 9 * 0.81, abs=0.05)
    (axis,) = true_claims.axes
    assert [(d.before, d.after) for d in axis.departures] == [
        ("none", "authority"),
        ("none", "consensus"),
        ("none", "emotional"),
    ]
    assert true_claims.invariant_departures == 3
    # On false claims the flip agrees with the truth: nothing moves beyond noise.
    assert false_claims.spurious_change == pytest.approx(0.0, abs=0.03)
    assert true_claims.missed_change is None  # the correct answer never moves on this axis
    assert report.scorecard("steady").spurious_change == pytest.approx(0.0, abs=0.03)


def test_divergence_appears_past_the_planted_level(pressure: tuple[Scenario, Report]) -> None:
    _, report = pressure
    (divergence,) = report.divergences
    assert (divergence.first, divergence.second) == ("sycophant", "steady")
    where = {c.coordinate["pressure"] for c in divergence.candidates}
    assert where == {"authority", "consensus", "emotional"}


def test_names_are_ignored_so_no_shift() -> None:
    scenario = load_spec("fair-lending").scenario()
    report = scenario.report(run(scenario, OracleTarget(scenario, noise=0.05)), inference=INFERENCE)
    card = report.scorecard("oracle")
    assert {a.axis: a.role for a in card.axes} == {
        "name.gender": "invariant",
        "name.region": "invariant",
    }
    assert card.invariant_shifts == 0
    assert card.spurious_change == pytest.approx(0.0, abs=0.03)
    assert card.accuracy == pytest.approx(0.95, abs=0.04)


def test_threshold_found_at_the_planted_value() -> None:
    scenario = load_spec("return-window").scenario()
    # Eligible up to 34 days instead of 30: the answer flips between 34 and 36, at 35.
    late = OracleTarget(
        scenario,
        flips=[
            Flip(marker=r"(\d+) days ago", answer=False, above=34),
            Flip(marker=r"(\d+) days ago", answer=True, above=0),
        ],
        name="late",
    )
    report = scenario.report(run(scenario, late), inference=INFERENCE)
    card = report.scorecard("late")
    (axis,) = card.axes
    assert axis.role == "causal"
    assert [(s.before, s.after) for s in axis.shifts] == [(34, 36)]
    assert axis.threshold is not None
    assert axis.threshold.expected == pytest.approx(31.0)
    assert axis.threshold.observed == pytest.approx(35.0)
    assert axis.threshold.offset == pytest.approx(4.0)
    assert axis.threshold.crossing == axis.threshold.cases == 6
    # Where the reference moves (30 -> 32) the late target keeps its answer every time.
    assert card.missed_change == pytest.approx(1.0)
    # Where it should not move (34 -> 36) it does: one full flip among nine same-answer steps.
    assert card.spurious_change == pytest.approx(1 / 9, abs=1e-9)


def test_one_axis_gives_one_spurious_interval(pressure: tuple[Scenario, Report]) -> None:
    # With a single varied axis the scorecard's spurious change is its axis's, over the same
    # units: the page and report.json show it twice, so it must carry one interval, not two.
    _, report = pressure
    for card in report.scorecards:
        (axis,) = card.axes
        assert card.spurious_change == axis.spurious_change
        assert card.spurious_low is not None
        assert (card.spurious_low, card.spurious_high) == (axis.spurious_low, axis.spurious_high)
