"""ReportPage: every number carries the outputs behind it, and only those are embedded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from modelscape.errors import ReportError
from modelscape.pages import ReportPage
from modelscape.pages.evidence import _runs
from modelscape.results.results import Results
from modelscape.store import SQLiteStore
from tests.pages.conftest import Run
from tests.pages.parsing import parse


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
    observation = next(o for o in run.results.observations if o.id == first["id"])
    variant = evidence["variants"][first["variant"]]
    assert first["text"] == observation.output.text
    assert first["repetition"] == observation.repetition
    assert evidence["targets"][first["target"]] == observation.target
    assert variant["case"] == observation.case
    assert (
        variant["messages"][-1][1]
        == run.results.variant(observation.variant_id).prompt.messages[-1].content
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
    assert len(parsed.executable) == 2  # page.js and report.js, nothing injected
    figures = parsed.data("ms-figures")
    names = [t["name"] for f in figures for t in f["figure"]["data"]]
    assert all("<" not in name for name in names)
    assert "&lt;img src=x onerror=alert(&#34;name&#34;)&gt;" in page or "&lt;img" in page


def test_results_type_is_accepted(run: Run) -> None:
    assert isinstance(ReportPage(run.report, run.results).results, Results)


def test_undefined_numbers_show_n_a_with_their_reason(failing_run: Run) -> None:
    page = ReportPage(failing_run.report, failing_run.results).html()
    document = parse(page)
    text = document.text
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
    assert "Excess answer_change along pressure, one line per target" in page


def test_structured_outputs_are_embedded_as_pretty_json(tmp_path: Path) -> None:
    from modelscape.execution import CallableTarget, Runner
    from modelscape.specs import load_spec

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
