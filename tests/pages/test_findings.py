"""A report page opens with its findings: every kind said when the report has it (and a
sentence of its own when not), every number a button onto exactly its outputs, the section
before the first table, and the same sentences as the printed summary."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.analysis.aggregates import AxisScore
from modelscape.pages import ReportPage
from modelscape.report import Report
from modelscape.report.findings import KINDS, Finding, findings
from modelscape.results.results import run_of
from tests.pages.conftest import HOSTILE_NAME, Run
from tests.pages.parsing import parse


@dataclass
class Item:
    """One finding as the page shows it: its kind, its text, and its numbers' evidence."""

    kind: str
    text: str = ""
    numbers: list[tuple[int | None, str]] = field(default_factory=list)


class _Findings(HTMLParser):
    """The items of the page's findings list, and where the section and first table start."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[Item] = []
        self.order: list[str] = []  # "findings" and "table", in document order
        self._item: Item | None = None
        self._number: list[Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "section" and attributes.get("id") == "findings":
            self.order.append("findings")
        if tag == "table":
            self.order.append("table")
        if tag == "li" and attributes.get("class") == "finding":
            self._item = Item(attributes.get("data-kind") or "")
        elif self._item is not None and tag in ("button", "span"):
            assert self._number is None, "a number inside a number"
            evidence = attributes.get("data-evidence")
            self._number = [None if evidence is None else int(evidence), ""]

    def handle_data(self, data: str) -> None:
        if self._item is not None:
            self._item.text += data
        if self._number is not None:
            self._number[1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("button", "span") and self._number is not None and self._item is not None:
            self._item.numbers.append((self._number[0], self._number[1]))
            self._number = None
        if tag == "li" and self._item is not None:
            self.items.append(self._item)
            self._item = None


def shown(html: str) -> _Findings:
    reader = _Findings()
    reader.feed(html)
    return reader


def _members(runs: list[int]) -> list[int]:
    return [s + i for s, n in zip(runs[::2], runs[1::2], strict=True) for i in range(n)]


def _kinds(report: Report) -> dict[str, list[Finding]]:
    found: dict[str, list[Finding]] = {kind: [] for kind in KINDS}
    for finding in findings(report):
        found[finding.kind].append(finding)
    return found


# -- each kind when the report has it, and when not -----------------------------------------
def test_every_kind_is_said_in_order_once_or_more(run: Run, failing_run: Run) -> None:
    for report in (run.report, failing_run.report):
        kinds = [f.kind for f in findings(report)]
        assert sorted(set(kinds), key=KINDS.index) == list(KINDS)
        assert kinds == sorted(kinds, key=KINDS.index)


def test_a_candidate_boundary_names_axis_step_excess_and_adjusted_p(run: Run) -> None:
    shift = run.report.scorecard("sycophant").axes[0].shifts[0]
    (finding,) = _kinds(run.report)["boundaries"]
    assert finding.text == (
        f"sycophant: candidate boundary on pressure (invariant axis) at {shift.before} → "
        f"{shift.after}: excess {shift.excess:.2f} [{shift.low:.2f}, {shift.high:.2f}], "
        f"Holm-adjusted p {shift.adjusted_p:.3g}."
    )
    assert [n.measurement_ids for n in finding.numbers] == [shift.measurement_ids] * 2


def _without_shifts(report: Report) -> Report:
    cards = tuple(
        card.model_copy(
            update={
                "axes": tuple(a.model_copy(update={"shifts": ()}) for a in card.axes),
                "invariant_shifts": 0,
            }
        )
        for card in report.scorecards
    )
    return report.model_copy(update={"scorecards": cards})


def test_no_boundary_is_one_sentence_naming_the_targets_tested(run: Run) -> None:
    (finding,) = _kinds(_without_shifts(run.report))["boundaries"]
    assert finding.text == (
        "No candidate boundary: no step of any axis changed the answers of steady and "
        "sycophant beyond run-to-run noise."
    )
    assert finding.numbers == ()


def test_spurious_change_and_departures_of_invariant_axes(run: Run) -> None:
    axis = run.report.scorecard("sycophant").axes[0]
    spurious = _kinds(run.report)["spurious"]
    assert [f.text.split(":")[0] for f in spurious] == ["sycophant"] * (1 + len(axis.departures))
    assert spurious[0].numbers[0].measurement_ids == axis.measurement_ids
    assert f"spurious change {axis.spurious_change:.3f} [" in spurious[0].text
    for finding, departure in zip(spurious[1:], axis.departures, strict=True):
        assert f"answers at {departure.after} departed" in finding.text
        assert finding.numbers[0].measurement_ids == departure.measurement_ids
    steady = run.report.model_copy(
        update={"scorecards": (run.report.scorecard("steady"),), "divergences": ()}
    )
    assert [f.text for f in _kinds(steady)["spurious"]] == [
        "No invariant axis shows spurious change with an interval above zero, and none "
        "departs from its baseline."
    ]


def _role(report: Report, role: str, **update: Any) -> Report:
    def changed(axis: AxisScore) -> AxisScore:
        return axis.model_copy(update={"role": role, **update})

    cards = tuple(
        card.model_copy(update={"axes": tuple(changed(a) for a in card.axes)})
        for card in report.scorecards
    )
    return report.model_copy(update={"scorecards": cards})


def test_missed_change_on_causal_axes(run: Run) -> None:
    assert [f.text for f in _kinds(run.report)["missed"]] == [
        "No axis is causal, so no change of the correct answer can be missed."
    ]
    missed = _role(run.report, "causal", missed_change=0.25, missed_low=0.125, missed_high=0.5)
    found = _kinds(missed)["missed"]
    assert [f.text for f in found] == [
        f"{target}: on the causal axis pressure, answers stayed the same where the correct "
        "answer moved: missed change 0.250 [0.125, 0.500], its interval above zero."
        for target in ("steady", "sycophant")
    ]
    assert (
        found[0].numbers[0].measurement_ids
        == run.report.scorecard("steady").axes[0].measurement_ids
    )
    # On a causal axis an invariant axis's findings are not looked for, and the reverse.
    assert [f.text for f in _kinds(missed)["spurious"]] == [
        "No axis is invariant, so no answer change can be spurious."
    ]
    none = _role(run.report, "causal", missed_change=0.0, missed_low=0.0, missed_high=0.0)
    assert [f.text for f in _kinds(none)["missed"]] == [
        "No causal axis shows missed change with an interval above zero."
    ]


def test_divergence_between_targets_and_a_report_of_one(run: Run) -> None:
    divergence = run.report.divergences[0]
    found = _kinds(run.report)["divergence"]
    if divergence.candidates:
        (finding,) = found
        count, excess, p = finding.numbers
        assert count.text == str(len(divergence.candidates))
        assert set(count.measurement_ids) == {
            i for c in divergence.candidates for i in c.measurement_ids
        }
        largest = max(divergence.candidates, key=lambda c: c.excess or 0.0)
        assert excess.measurement_ids == p.measurement_ids == largest.measurement_ids
    quiet = run.report.model_copy(
        update={"divergences": (divergence.model_copy(update={"candidates": ()}),)}
    )
    assert [f.text for f in _kinds(quiet)["divergence"]] == [
        "sycophant answers like steady within run-to-run noise at every coordinate tested."
    ]
    alone = run.report.model_copy(update={"divergences": ()})
    assert [f.text for f in _kinds(alone)["divergence"]] == [
        "One target only: there is no divergence to measure."
    ]


def test_what_could_not_be_measured_and_why(run: Run, failing_run: Run) -> None:
    assert [f.text for f in _kinds(run.report)["unmeasured"]] == [
        "Every quantity could be measured for every target; no call failed."
    ]
    found = _kinds(failing_run.report)["unmeasured"]
    texts = [f.text for f in found]
    dead = failing_run.report.scorecard("dead")
    first_error = next(
        t.first_error for t in failing_run.report.provenance.targets if t.name == "dead"
    )
    assert texts[0] == (
        f"dead: {dead.failed} calls failed (the next run asks again); first error: {first_error}."
    )
    assert found[0].numbers[0].failed_of == "dead"
    mute = failing_run.report.scorecard("mute")
    for reason in set(mute.undefined.values()) - {"no step changes the correct answer"}:
        assert any(
            t.startswith("mute: ") and t.endswith(f"could not be measured: {reason}.")
            for t in texts
        )
    for divergence in failing_run.report.divergences:
        if divergence.undefined:
            assert (
                f"{divergence.second} against {divergence.first}: divergence could not be "
                f"measured: {divergence.undefined}." in texts
            )


def test_the_power_statement_and_tests_switched_off(run: Run) -> None:
    power = _kinds(run.report)["power"]
    assert power[0].text.startswith(
        "On pressure, the tests of each step could detect an excess of "
    )
    assert power[0].text.endswith(" or more with 80% power; a smaller change may be there unseen.")
    assert set(power[0].numbers[0].measurement_ids) == {
        i
        for card in run.report.scorecards
        if card.group == "all"
        for i in card.axes[0].measurement_ids
    }
    assert power[-1].text.startswith("Between steady and sycophant, the divergence tests could")
    off = run.report.model_copy(
        update={"inference": run.report.inference.model_copy(update={"permutations": 0})}
    )
    kinds = _kinds(_without_shifts(off))
    assert [f.text for f in kinds["boundaries"]] == [
        "No step was tested for a candidate boundary: the permutation tests were off."
    ]
    assert kinds["power"][0].text == (
        "On pressure, the tests of each step have no figure of what they find: no permutation "
        "tests (permutations = 0)."
    )


# -- the page ----------------------------------------------------------------------------------
def test_every_number_opens_exactly_its_outputs(run: Run, failing_run: Run) -> None:
    for made in (run, failing_run):
        html = ReportPage(made.report, made.results).html()
        evidence = parse(html).data("ms-evidence")
        ids = [o["id"] for o in evidence["observations"]]
        items = shown(html).items
        expected = findings(made.report)
        assert [i.kind for i in items] == [f.kind for f in expected]
        for item, finding in zip(items, expected, strict=True):
            assert [text for _, text in item.numbers] == [n.text for n in finding.numbers]
            for (index, _), number in zip(item.numbers, finding.numbers, strict=True):
                assert index is not None, f"{number.text} in {finding.text!r} is no button"
                opened = {ids[i] for i in _members(evidence["sets"][index])}
                if number.failed_of is not None:
                    wanted = {
                        o.id for o in run_of(made.results).failed if o.target == number.failed_of
                    }
                else:
                    wanted = {o.id for o in made.results.trace(number.measurement_ids).observations}
                assert opened == wanted
                assert opened
            if made is failing_run:
                continue  # its reasons and errors quote figures of their own ("answered 0%")
            # Outside its buttons a sentence holds no number (80% is the power's definition).
            words = item.text
            for _, text in item.numbers:
                words = words.replace(text, "", 1)
            assert re.findall(r"\d", words.replace("80% power", "")) == [], words


def test_the_findings_precede_every_table(run: Run, failing_run: Run) -> None:
    for made in (run, failing_run):
        order = shown(ReportPage(made.report, made.results).html()).order
        assert order[0] == "findings"
        assert order.count("findings") == 1
        assert "table" in order


def test_the_summary_says_the_same_sentences(run: Run, failing_run: Run, hostile_run: Run) -> None:
    for made in (run, failing_run, hostile_run):
        lines = made.report.summary().splitlines()
        start = lines.index("findings")
        said = []
        for line in lines[start + 1 :]:
            if not line.startswith("  - "):
                break
            said.append(line[4:])
        page = [i.text for i in shown(ReportPage(made.report, made.results).html()).items]
        assert said == page == [f.text for f in findings(made.report)]
        # The summary opens with them: only the two lines that name the run come first.
        assert start == 3


def test_without_outputs_the_numbers_are_plain(run: Run) -> None:
    items = shown(ReportPage(run.report).html()).items
    assert items
    assert all(index is None for item in items for index, _ in item.numbers)
    assert [i.text for i in items] == [f.text for f in findings(run.report)]


# -- hostile names -----------------------------------------------------------------------------
def _named(report: Report, axis: str, value: str) -> Report:
    def renamed(score: AxisScore) -> AxisScore:
        shifts = tuple(s.model_copy(update={"axis": axis, "after": value}) for s in score.shifts)
        departures = tuple(
            d.model_copy(update={"axis": axis, "after": value}) for d in score.departures
        )
        return score.model_copy(update={"axis": axis, "shifts": shifts, "departures": departures})

    cards = tuple(
        card.model_copy(update={"axes": tuple(renamed(a) for a in card.axes)})
        for card in report.scorecards
    )
    return report.model_copy(update={"scorecards": cards})


HOSTILE = (
    '<script>alert("axis")</script>',
    '"><img src=x onerror=alert(1)>',
    "\u202eevil\u202c \u2066isolated\u2069 \u200fmark",
    "{{ 7 * 7 }} {% raw %}",
    "x" * 100_000,
)


def test_hostile_axis_names_and_values_stay_text(run: Run, hostile_run: Run) -> None:
    for name in HOSTILE:
        report = _named(run.report, name, HOSTILE[(HOSTILE.index(name) + 1) % len(HOSTILE)])
        html = ReportPage(report, run.results).html()
        items = shown(html).items
        assert [i.text for i in items] == [f.text for f in findings(report)]
        assert any(name in i.text for i in items)
        section = html[html.index('<section id="findings"') : html.index("</section>")]
        assert "<script" not in section
        assert "<img" not in section
        assert parse(html).tags.get("img", 0) == 0
    # A hostile target name from a real run: escaped in the findings, said the same in text.
    html = ReportPage(hostile_run.report, hostile_run.results).html()
    items = shown(html).items
    assert any(HOSTILE_NAME in i.text for i in items)
    assert HOSTILE_NAME not in html[html.index('<section id="findings"') :]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.text(min_size=1, max_size=60), value=st.text(max_size=30))
def test_any_axis_name_is_said_verbatim(run: Run, name: str, value: str) -> None:
    report = _named(run.report, name, value)
    items = shown(ReportPage(report).html()).items
    assert [i.text for i in items] == [f.text for f in findings(report)]
