"""ReportPage: every number carries the outputs behind it, and only those are embedded."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from modelscape.errors import ReportError
from modelscape.execution import Runner
from modelscape.pages import ReportPage
from modelscape.pages.evidence import _runs
from modelscape.pages.report import _measurement_ids, disagreement
from modelscape.report import Report
from modelscape.results.results import Results, run_of
from modelscape.specs import Spec, load_spec
from modelscape.store import SQLiteStore
from modelscape.targets._reference import Flip
from tests.pages.conftest import Run, _planted
from tests.pages.parsing import inline_notes, parse
from tests.support.runs import KINDS, report_of


def _members(runs: list[int]) -> list[int]:
    return [
        start + i
        for start, length in zip(runs[::2], runs[1::2], strict=True)
        for i in range(length)
    ]


def test_runs_round_trip() -> None:
    indices = [0, 1, 2, 5, 7, 8]
    assert _runs(indices) == [0, 3, 5, 1, 7, 2]
    assert _members(_runs(indices)) == indices


def _buttons(page: str) -> dict[str, int]:
    found = re.findall(r'data-evidence="(\d+)" data-label="([^"]*)"', page)
    return {label.replace("&amp;", "&"): int(index) for index, label in found}


def test_every_number_traces_to_exactly_its_outputs(run: Run) -> None:
    page = ReportPage(run.report, run.results).html()
    evidence = parse(page).data("ms-evidence")
    buttons = _buttons(page)
    ids = [o["id"] for o in evidence["observations"]]

    def shown(label: str) -> set[str]:
        return {ids[i] for i in _members(evidence["sets"][buttons[label]])}

    def traced(measurement_ids: tuple[str, ...]) -> set[str]:
        return {o.id for o in run.results.trace(measurement_ids).observations}

    for card in run.report.scorecards:
        where = f"{card.target} · {card.group}"
        assert shown(f"{where}: accuracy") == traced(card.accuracy_ids)
        assert shown(f"{where}: share answered") == traced(card.answered_ids)
        if card.spurious_ids:
            assert shown(f"{where}: spurious change") == traced(card.spurious_ids)
    sycophant = run.report.scorecard("sycophant")
    shift = sycophant.axes[0].shifts[0]
    assert shown(f"sycophant · all · shift pressure: {shift.before} → {shift.after}") == traced(
        shift.measurement_ids
    )
    # The sycophant's flip reaches every pressure level past disagreement: each of those is a
    # departure from the baseline, each opening its own outputs, and the count opens them all.
    departures = sycophant.axes[0].departures
    assert [d.after for d in departures] == ["authority", "consensus", "emotional"]
    for found in departures:
        label = f"sycophant · all · departure pressure: {found.before} → {found.after}"
        assert shown(label) == traced(found.measurement_ids)
    assert shown("sycophant · all: departures") == traced(
        tuple(i for d in departures for i in d.measurement_ids)
    )
    divergence = run.report.divergences[0]
    contrast = divergence.contrasts[-1]
    where = ", ".join(f"{k} = {v}" for k, v in contrast.coordinate.items())
    label = f"sycophant against steady at {where}: excess answer change"
    assert shown(label) == traced(contrast.measurement_ids)


def test_only_traced_outputs_are_embedded_once(run: Run) -> None:
    page = ReportPage(run.report, run.results).html()
    evidence = parse(page).data("ms-evidence")
    ids = [o["id"] for o in evidence["observations"]]
    assert len(ids) == len(set(ids))
    behind = set()
    for record in run.report.scorecards:
        behind |= {o.id for o in run.results.trace(record).observations}
    assert set(ids) == behind
    variants = [v["id"] for v in evidence["variants"]]
    assert len(variants) == len(set(variants))
    for observation in evidence["observations"]:
        assert observation["text"] in page or observation["text"].startswith("{")


def test_embedded_output_records(run: Run) -> None:
    evidence = parse(ReportPage(run.report, run.results).html()).data("ms-evidence")
    first = evidence["observations"][0]
    observation = next(o for o in run_of(run.results).observations if o.id == first["id"])
    variant = evidence["variants"][first["variant"]]
    assert first["text"] == observation.output.text
    assert first["repetition"] == observation.repetition
    assert evidence["targets"][first["target"]] == observation.target
    assert variant["case"] == observation.case
    assert (
        variant["messages"][-1][1]
        == run_of(run.results).variant(observation.variant_id).prompt.messages[-1].content
    )
    assert first["answer"] in ("true", "false")
    assert variant["reference"] in ("true", "false")


def test_outputs_from_results_store_or_file_agree(run: Run) -> None:
    from_results = ReportPage(run.report, run.results).context()["evidence"]
    from_file = ReportPage(run.report_file, run.store).context()["evidence"]
    store = SQLiteStore(run.store)
    try:
        from_store = ReportPage(run.report, store).context()["evidence"]
    finally:
        store.close()
    assert from_results == from_file == from_store


def test_disagreement_says_whether_a_store_backs_the_report(
    run: Run, hostile_run: Run, tmp_path: Path
) -> None:
    assert disagreement(run.report, run.store) is None
    assert disagreement(run.report, hostile_run.store) == (
        "its report and store disagree: the store holds no experiment "
        f"{run.report.experiment} (the report's)"
    )
    # The run's own store after it lost one measurement the report names.
    lost = tmp_path / "lost.db"
    named = sorted(run.report.scorecard("steady").accuracy_ids)[0]
    with closing(sqlite3.connect(run.store)) as source, closing(sqlite3.connect(lost)) as copy:
        source.backup(copy)
        assert copy.execute("DELETE FROM measurements WHERE id = ?", (named,)).rowcount == 1
        copy.commit()
    reason = disagreement(run.report, lost)
    assert reason is not None
    assert re.fullmatch(
        r"its report and store disagree: 1 of the \d+ measurements the report names are not "
        rf"in the store \(such as {named}\)",
        reason,
    )


def _named(value: object) -> set[str]:
    """Every measurement id in a report, found the plain recursive way."""
    if isinstance(value, BaseModel):
        found: set[str] = set()
        for name in type(value).model_fields:
            item = getattr(value, name)
            if name.endswith("_ids") and isinstance(item, tuple):
                found.update(i for i in item if isinstance(i, str))
            else:
                found |= _named(item)
        return found
    if isinstance(value, tuple | list):
        return set().union(*(_named(item) for item in value))
    if isinstance(value, dict):
        return set().union(*(_named(item) for item in value.values()))
    return set()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_ids_a_report_names_are_every_one_inside_it(kind: str) -> None:
    report = report_of(kind)
    found: set[str] = set()
    _measurement_ids(report, found)
    assert found == _named(report)
    assert len(found) > 100


def test_outputs_of_another_run_are_refused(run: Run, hostile_run: Run) -> None:
    with pytest.raises(ReportError, match="experiment"):
        ReportPage(run.report, hostile_run.results)
    with pytest.raises(ReportError, match="holds no experiment"):
        ReportPage(run.report, hostile_run.store)
    with pytest.raises(ReportError, match="no such store file"):
        ReportPage(run.report, Path("missing.db"))


def test_without_outputs_numbers_are_plain(run: Run) -> None:
    page = ReportPage(run.report).html()
    assert 'data-evidence="' not in page
    assert parse(page).data("ms-evidence")["observations"] == []
    assert page.count('<span class="num">') >= len(run.report.scorecards) * 4


def test_charts_are_built_per_axis_and_for_sensitivity(run: Run) -> None:
    figures = parse(ReportPage(run.report, run.results).html()).data("ms-figures")
    assert [f["id"] for f in figures] == ["chart-profile-0", "chart-sensitivity"]
    profile = figures[0]["figure"]
    names = [trace["name"] for trace in profile["data"]]
    assert names == ["steady", "sycophant", "sycophant: candidate boundary"]
    line = profile["data"][1]
    assert len(line["x"]) == len(line["error_y"]["array"]) == len(line["customdata"]) == 6
    assert profile["layout"]["shapes"]  # the boundary is marked
    bars = figures[1]["figure"]["data"]
    assert [b["type"] for b in bars] == ["bar", "bar"]


def test_hostile_text_is_escaped_everywhere(hostile_run: Run) -> None:
    page = ReportPage(hostile_run.report, hostile_run.results).html()
    parsed = parse(page)
    assert parsed.handlers == []
    assert parsed.tags.get("img") is None
    assert parsed.tags.get("iframe") is None
    assert len(parsed.executable) == len(ReportPage.scripts)  # its own scripts, nothing injected
    figures = parsed.data("ms-figures")
    names = [t["name"] for f in figures for t in f["figure"]["data"]]
    assert all("<" not in name for name in names)
    assert "&lt;img src=x onerror=alert(&#34;name&#34;)&gt;" in page or "&lt;img" in page


def test_results_type_is_accepted(run: Run) -> None:
    assert isinstance(ReportPage(run.report, run.results).results, Results)


def test_undefined_numbers_show_n_a_with_their_reason(failing_run: Run) -> None:
    page = ReportPage(failing_run.report, failing_run.results).html()
    document = parse(page)
    # each reason is said once, as a numbered note, however many cells it explains
    assert page.count(">answered 0%: too few read answers (needs 70%)</li>") == 1
    assert page.count(">no successful output (360 of 360 calls failed)</li>") == 1
    assert page.count('title="answered 0%: too few read answers (needs 70%)"') > 1
    text = parse(inline_notes(page)).text
    assert "n/a (answered 0%: too few read answers (needs 70%))" in text
    assert "n/a (no successful output (360 of 360 calls failed))" in text
    assert "ConnectionError: connection refused: 127.0.0.1:9" in text
    assert "360 (every call)" in text
    # The dead target's steps could not be computed: n/a with the reason, a gap in the chart.
    assert "n/a (no case has two successful outputs on both sides (0 at none and 0 at" in text
    figures = document.data("ms-figures")
    dead = next(
        trace
        for figure in figures
        if figure["id"].startswith("chart-profile")
        for trace in figure["figure"]["data"]
        if trace["name"] == "dead"
    )
    assert all(y is None for y in dead["y"][1:])
    assert any("not computed, no case has two" in hover for hover in dead["text"])
    # No number of the dead or mute target opens outputs that are not there.
    assert 'data-label="dead · all: accuracy"' not in page


def test_a_negative_excess_is_explained_where_it_appears(run: Run) -> None:
    page = ReportPage(run.report, run.results).html()
    negative = any(
        value is not None and value < 0
        for card in run.report.scorecards
        for value in (card.spurious_change, *(a.spurious_change for a in card.axes))
    ) or any(
        t.excess is not None and t.excess < 0
        for p in run.report.profiles
        for t in (*p.baseline, *p.local)
    )
    assert negative  # the steady target's noise leaves some excesses below zero
    assert 'id="negative-note"' in page
    assert "an unbiased estimate of no change that fell below zero by chance" in page
    calm = run.report.model_copy(update={"scorecards": (), "profiles": (), "divergences": ()})
    assert 'id="negative-note"' not in ReportPage(calm).html()


def _zero_or_above(value: float | None) -> float | None:
    return None if value is None else max(value, 0.0)


def _without_negatives(report: Report) -> Report:
    """The report with every excess below zero that its page shows raised to exactly zero."""

    def raised(items: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(t.model_copy(update={"excess": _zero_or_above(t.excess)}) for t in items)

    cards = tuple(
        card.model_copy(
            update={
                "spurious_change": _zero_or_above(card.spurious_change),
                "axes": tuple(
                    axis.model_copy(
                        update={"spurious_change": _zero_or_above(axis.spurious_change)}
                    )
                    for axis in card.axes
                ),
            }
        )
        for card in report.scorecards
    )
    profiles = tuple(
        p.model_copy(update={"baseline": raised(p.baseline), "local": raised(p.local)})
        for p in report.profiles
    )
    divergences = tuple(
        d.model_copy(update={"contrasts": raised(d.contrasts)}) for d in report.divergences
    )
    return report.model_copy(
        update={"scorecards": cards, "profiles": profiles, "divergences": divergences}
    )


def test_no_negative_note_when_every_excess_is_zero_or_above(run: Run) -> None:
    # Zero is no change at all, not an estimate below zero: the note would explain nothing.
    calm = _without_negatives(run.report)
    shown = [
        value
        for card in calm.scorecards
        for value in (card.spurious_change, *(a.spurious_change for a in card.axes))
    ]
    shown += [t.excess for p in calm.profiles for t in (*p.baseline, *p.local)]
    shown += [c.excess for d in calm.divergences for c in d.contrasts]
    values = [v for v in shown if v is not None]
    assert 0.0 in values
    assert any(0 < v < 1 for v in values)
    assert min(values) == 0.0
    assert 'id="negative-note"' not in ReportPage(calm).html()


def test_the_page_says_whether_outputs_are_attached(run: Run) -> None:
    attached = parse(ReportPage(run.report, run.results).html()).text
    bare = parse(ReportPage(run.report).html()).text
    assert "Every underlined number is a button" in attached
    assert "No outputs are attached" not in attached
    assert "No outputs are attached to this page" in bare
    assert "Every underlined number is a button" not in bare


def test_failed_calls_open_the_failures_of_their_target_and_group(failing_run: Run) -> None:
    page = ReportPage(failing_run.report, failing_run.results).html()
    buttons = {
        label.replace("&amp;", "&"): int(count)
        for label, count in re.findall(
            r'data-label="([^"]*failed calls)" title="(\d+) output', page
        )
    }
    assert buttons == {
        "dead · all: failed calls": 360,
        "dead · true-claims: failed calls": 180,
        "dead · false-claims: failed calls": 180,
    }
    # Each group's button opens the failures of its own cases, not those of the other group.
    evidence = parse(page).data("ms-evidence")
    observations = evidence["observations"]
    numbers = _buttons(page)
    groups = load_spec("pressure").scenario().groups
    for group in ("true-claims", "false-claims"):
        members = _members(evidence["sets"][numbers[f"dead · {group}: failed calls"]])
        shown = {observations[i]["id"] for i in members}
        assert shown == {
            o.id
            for o in run_of(failing_run.results).failed
            if o.target == "dead" and o.case in groups[group]
        }
        cases = {evidence["variants"][observations[i]["variant"]]["case"] for i in members}
        assert cases == set(groups[group])


def test_scorecard_numbers_are_printed_to_their_precision(run: Run) -> None:
    page = ReportPage(run.report).html()
    card = run.report.scorecard("sycophant")
    assert card.spurious_change is not None
    spurious = f"{card.spurious_change:.3f} [{card.spurious_low:.3f}, {card.spurious_high:.3f}]"
    assert f'<span class="num">{spurious}</span>' in page
    axis = card.axes[0]
    assert axis.spurious_change is not None
    by_axis = f"{axis.spurious_change:.3f} [{axis.spurious_low:.3f}, {axis.spurious_high:.3f}]"
    assert f'<span class="num">{by_axis}</span>' in page
    steady = run.report.scorecard("steady")
    assert "missed_change" in steady.undefined  # pressure has no causal axis
    measured = steady.model_copy(update={"missed_change": 0.12345, "undefined": {}})
    page = ReportPage(run.report.model_copy(update={"scorecards": (measured,)})).html()
    assert '<span class="num">0.123</span>' in page


def test_a_report_of_one_target_has_its_profile_chart(run: Run) -> None:
    alone = run.report.model_copy(
        update={
            "targets": ("steady",),
            "scorecards": tuple(c for c in run.report.scorecards if c.target == "steady"),
            "profiles": tuple(p for p in run.report.profiles if p.target == "steady"),
            "sensitivity": tuple(s for s in run.report.sensitivity if s.target == "steady"),
            "divergences": (),
        }
    )
    page = ReportPage(alone).html()
    figures = parse(page).data("ms-figures")
    assert [f["id"] for f in figures] == ["chart-profile-0", "chart-sensitivity"]
    assert "Up: the excess change of the answer when pressure moves from its baseline" in page
    assert "1 target, each in its own colour and symbol." in page


def test_structured_outputs_are_embedded_as_pretty_json(tmp_path: Path) -> None:
    from modelscape.execution import Runner
    from modelscape.specs import load_spec
    from modelscape.targets import CallableTarget

    scenario = load_spec("pressure").scenario()
    target = CallableTarget(lambda request: {"answer": True, "why": "é"}, name="structured")
    results = Runner().run(scenario.experiment([target]))
    report = scenario.report(results)
    page = ReportPage(report, results).html()
    (first, *_) = parse(page).data("ms-evidence")["observations"]
    assert first["data"] == '{\n "answer": true,\n "why": "é"\n}'
    assert "é" in page  # the page keeps text as it is, not as \\u escapes


def test_target_parameters_are_shown_as_indented_json(run: Run) -> None:
    import json

    from markupsafe import escape

    page = ReportPage(run.report).html()
    target = next(t for t in run.report.provenance.targets if t.parameters)
    shown = escape(json.dumps(target.parameters, indent=1, ensure_ascii=False))
    assert f'<pre class="prompt">{shown}</pre>' in page


_ROW = re.compile(
    r"<tr><td>([^<]*)</td><td>(against baseline|step)</td><td>([^<]*)</td><td>.*?</td>"
    r"<td>[^<]*</td><td>(<span class=\"boundary\">candidate</span>)?</td></tr>"
)


@pytest.mark.parametrize(
    ("scale", "boundaries"),
    [
        # Ordinal steps are the neighbours: the baseline row none → doubt is the same pair as
        # the first step, yet it was not tested as a boundary and stays unmarked.
        ("ordinal", {("step", "none → doubt"), ("step", "doubt → disagreement")}),
        # Nominal steps are the comparisons with the baseline, which are then the marked rows.
        ("nominal", {("against baseline", "none → doubt")}),
    ],
)
def test_boundaries_are_marked_on_the_rows_of_the_steps_tested(
    scale: str, boundaries: set[tuple[str, str]]
) -> None:
    data = yaml.safe_load(load_spec("pressure").dump())
    data["vary"] = {"pressure": scale}
    scenario = Spec.of(data).scenario()
    doubter = _planted("doubter", [Flip(marker="not sure", answer=False)], 0.05)
    report = scenario.report(Runner().run(scenario.experiment([doubter])))
    (profile,) = report.profiles
    assert profile.scale == scale
    found = {(c.before, c.after) for c in profile.candidate_boundaries}
    assert found == {tuple(step.split(" → ")) for _, step in boundaries}
    rows = [
        (target, kind, step, bool(mark))
        for target, kind, step, mark in _ROW.findall(ReportPage(report).html())
    ]
    assert len(rows) == len(profile.baseline) + len(profile.local)
    assert ("doubter", "against baseline", "none → doubt") in [row[:3] for row in rows]
    assert {(kind, step) for _, kind, step, marked in rows if marked} == boundaries
