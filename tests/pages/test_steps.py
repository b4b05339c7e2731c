"""What a report page embeds for its steps and charts: each step's two coordinates, the words
that title a clicked point, the expected change on a causal axis, and no chart without data."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.analysis.aggregates import Transition
from modelscape.pages import ReportPage
from modelscape.pages.charts import has_data, measure_words, profile_figure
from modelscape.pages.evidence import coordinate_text
from modelscape.results.results import run_of
from tests.pages.conftest import Run
from tests.pages.parsing import parse
from tests.support.runs import RUN, copy_run, report_of, results_of


def _members(runs: list[int]) -> list[int]:
    return [
        start + i
        for start, length in zip(runs[::2], runs[1::2], strict=True)
        for i in range(length)
    ]


def _buttons(page: str) -> dict[int, set[str]]:
    """Every label each evidence index has on the page's buttons."""
    found: dict[int, set[str]] = {}
    for index, label in re.findall(r'data-evidence="(\d+)" data-label="([^"]*)"', page):
        found.setdefault(int(index), set()).add(label.replace("&amp;", "&"))
    return found


@pytest.fixture(scope="module")
def causal(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A return-window run of reference targets: ``days`` is a causal axis.

    Read from a copy: opening a store makes SQLite's journal files beside it, and the made run
    is shared by every test."""
    folder = copy_run(RUN, tmp_path_factory.mktemp("causal"))
    results = results_of(RUN, folder)
    return Run(results, report_of(RUN), folder / "store.db", folder / "report.json")


def test_every_step_names_two_coordinates_its_outputs_stand_at(run: Run) -> None:
    page = ReportPage(run.report, run.results)
    evidence = page.context()["evidence"]
    assert len(evidence["steps"]) == len(evidence["sets"])
    coordinates = [v["coordinate"] for v in evidence["variants"]]
    stepped = [i for i, step in enumerate(evidence["steps"]) if step is not None]
    assert stepped
    for index in stepped:
        before, after = evidence["steps"][index]
        assert before != after
        sides: dict[str, set[str]] = {before: set(), after: set()}
        for member in _members(evidence["sets"][index]):
            observation = evidence["observations"][member]
            variant = evidence["variants"][observation["variant"]]
            assert variant["coordinate"] in sides, (index, variant["coordinate"])
            sides[variant["coordinate"]].add(variant["case"])
        # the same cases on both sides: each case can be compared with itself
        assert sides[before] == sides[after] != set()
    assert set(coordinates) >= {s for step in evidence["steps"] if step for s in step}


def test_the_step_of_every_profile_comparison_boundary_and_shift(run: Run) -> None:
    page = ReportPage(run.report, run.results)
    html = page.html()
    evidence = parse(html).data("ms-evidence")
    labels = {label: index for index, found in _buttons(html).items() for label in found}
    for profile in run.report.profiles:
        for t in profile.local:
            index = labels[f"{t.target} · step on {t.axis}: {t.before} → {t.after}"]
            assert evidence["steps"][index] == [coordinate_text(t.first), coordinate_text(t.second)]
        for t in profile.baseline:
            index = labels[f"{t.target} · against baseline on {t.axis}: {t.before} → {t.after}"]
            expected = None if t.first == t.second else [coordinate_text(t.first)]
            step = evidence["steps"][index]
            assert (step if step is None else step[:1]) == expected
    card = run.report.scorecard("sycophant")
    shifts = [shift for axis in card.axes for shift in axis.shifts]
    assert shifts
    for shift in shifts:
        index = labels[f"sycophant · all · shift {shift.axis}: {shift.before} → {shift.after}"]
        assert evidence["steps"][index] == [
            f"{shift.axis} = {shift.before}",
            f"{shift.axis} = {shift.after}",
        ]


def test_each_observation_and_variant_is_embedded_once(run: Run) -> None:
    evidence = ReportPage(run.report, run.results).context()["evidence"]
    ids = [o["id"] for o in evidence["observations"]]
    assert len(ids) == len(set(ids))
    variants = [v["id"] for v in evidence["variants"]]
    assert len(variants) == len(set(variants))


def test_a_clicked_point_is_titled_like_its_number(run: Run) -> None:
    html = ReportPage(run.report, run.results).html()
    buttons = _buttons(html)
    figures = parse(html).data("ms-figures")
    checked = 0
    for entry in figures:
        figure = entry["figure"]
        assert len(figure["labels"]) == len(figure["data"])
        for trace, labels in zip(figure["data"], figure["labels"], strict=True):
            for index, label in zip(trace.get("customdata", []), labels, strict=False):
                if index is None:
                    continue
                if trace["name"].endswith("candidate boundary"):
                    # a boundary has no button of its own: its step's row is marked instead
                    step = label.split("candidate boundary ", 1)[1]
                    assert any(b.endswith(f"step on {step}") for b in buttons[index]), label
                else:
                    assert label in buttons[index], (label, buttons[index])
                checked += 1
    assert checked > 10
    profile = figures[0]["figure"]["labels"][0]
    assert profile[1] == "steady · against baseline on pressure: none → doubt"


def test_axis_titles_are_words() -> None:
    assert measure_words("answer_change") == "the answer"
    assert measure_words("json_field('answer', choices=['a', 'b'])") == 'json field "answer"'
    assert measure_words("module.text_distance(3)") == "text distance"
    assert measure_words("length_ratio") == "length ratio"
    assert measure_words("") == "the output"


@given(st.text(max_size=80))
def test_any_measure_name_reads_as_words(measure: str) -> None:
    """A measure's name comes from a stored run: whatever it is, the title is text with no
    identifier underscores outside quotes, and never empty."""
    words = measure_words(measure)
    assert words
    outside = re.sub(r'"[^"]*"', "", words)
    assert "_" not in outside
    assert "(" not in outside or not re.match(r"^\s*[A-Za-z_][\w.]*\s*\(.*\)\s*$", measure, re.S)


def test_report_charts_have_no_identifier_in_their_titles(run: Run, causal: Run) -> None:
    for made in (run, causal):
        figures = parse(ReportPage(made.report, made.results).html()).data("ms-figures")
        for entry in figures:
            layout = entry["figure"]["layout"]
            for axis in ("xaxis", "yaxis"):
                title = layout[axis]["title"]["text"]
                assert "_" not in title, title
                assert "(" not in title, title


def test_a_causal_axis_draws_the_expected_change(causal: Run) -> None:
    page = ReportPage(causal.report, causal.results)
    context = page.context()
    (section,) = context["profiles"]
    assert section["expected"] is True
    traces = section["figure"]["data"]
    line = traces[-1]
    assert line["name"] == "expected if every answer were correct"
    assert "customdata" not in line  # nothing to open: it is no measurement
    first = next(p for p in causal.report.profiles if p.axis == "days")
    results = causal.results
    indexed = run_of(results)
    # the share of cases whose correct answer differs from the baseline's, counted here apart
    for t, value in zip(first.baseline, line["y"], strict=True):
        flips = [
            indexed.reference(case, t.first) != indexed.reference(case, t.second)
            for case in indexed.cases
        ]
        assert value == pytest.approx(sum(flips) / len(flips))
    assert line["y"][0] == 0
    assert max(line["y"]) > 0
    assert "show the change the correct answers themselves make" in page.html()


def test_an_invariant_axis_draws_no_expected_change(run: Run) -> None:
    (section,) = ReportPage(run.report, run.results).context()["profiles"]
    assert section["expected"] is False
    names = [trace["name"] for trace in section["figure"]["data"]]
    assert "expected if every answer were correct" not in names


def test_without_outputs_no_expected_change_is_guessed(causal: Run) -> None:
    (section,) = ReportPage(causal.report).context()["profiles"]
    assert section["expected"] is False
    assert len(section["figure"]["data"]) == sum(
        1 + bool(p.candidate_boundaries) for p in causal.report.profiles
    )


def test_a_chart_without_data_is_not_drawn(failing_run: Run) -> None:
    dead = [p for p in failing_run.report.profiles if p.target == "dead"]
    assert dead
    assert not has_data(dead)
    alone = failing_run.report.model_copy(
        update={"profiles": tuple(dead), "sensitivity": (), "divergences": ()}
    )
    page = ReportPage(alone, failing_run.results)
    (section,) = page.context()["profiles"]
    assert section["figure"] is None
    assert section["empty"] is True
    html = page.html()
    assert parse(html).data("ms-figures") == []
    assert 'class="chart"' not in html
    text = parse(html).text
    assert "No chart for pressure: none of its comparisons with the baseline" in text


def test_a_figure_with_expected_values_of_zero_draws_none() -> None:
    from modelscape.analysis.aggregates import BehaviorProfile

    points = [
        Transition(
            target="a",
            measure="answer_change",
            axis="tone",
            before="plain",
            after=value,
            first={"tone": "plain"},
            second={"tone": value},
            cases=3,
            excess=0.1,
            between=0.1,
            within=0.0,
            low=None,
            high=None,
            p_value=None,
            adjusted_p=None,
        )
        for value in ("plain", "warm")
    ]
    profile = BehaviorProfile(
        target="a",
        measure="answer_change",
        axis="tone",
        scale="nominal",
        fixed={},
        baseline=tuple(points),
        local=(),
    )
    flat = profile_figure("tone", [profile], [[0, 1]], [[]], expected=[0.0, 0.0])
    assert len(flat["data"]) == 1
    drawn = profile_figure("tone", [profile], [[0, 1]], [[]], expected=[0.0, 0.5])
    assert drawn["data"][-1]["y"] == [0.0, 0.5]
    assert drawn["labels"] == [
        [
            "a · against baseline on tone: plain → plain",
            "a · against baseline on tone: plain → warm",
        ],
        [],
    ]
