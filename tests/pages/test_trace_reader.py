"""The outputs dialog in a real browser: filters, search, paging through thousands of outputs,
the side-by-side comparison of a step, addresses that reopen what was open, and chart clicks."""

from __future__ import annotations

import json
import random
import subprocess
import time
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from modelscape.execution import Runner
from modelscape.pages import ReportPage
from modelscape.pages.scenario import word_diff
from modelscape.results.results import run_of
from modelscape.specs import load_spec
from modelscape.stats import Inference
from modelscape.store import SQLiteStore
from modelscape.targets._reference import Flip, ScriptedTarget
from tests.pages.conftest import Opened, Run, _planted, _run
from tests.support.browsertools import chromium

LOCAL = ("file:", "data:", "blob:")
STEP = "sycophant · step on pressure: doubt → disagreement"

#: Outputs a hostile model might send: markup, a megabyte-sized answer, right-to-left
#: overrides and text, a lone surrogate (stored as U+FFFD) and characters beyond the BMP.
WILD = (
    '<img src=x onerror=alert("img")> {"answer": true}',
    "A" * 50_000 + ' {"answer": false}',
    '\u202e{"answer": true} \u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd',
    '\ud800 {"answer": false} </script><script>alert(1)</script>',
    '\U0001f600\U0001d518 {"answer": true} <!--',
)
WILD_NAME = '<b dir="rtl">\u202ewild</b>'


def _wild(text: str) -> str:
    return WILD[zlib.crc32(text.encode()) % len(WILD)]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One target asked every variant of ``pressure`` 40 times: 2,880 outputs."""
    spec = load_spec("pressure").model_copy(update={"repetitions": 40})
    scenario = spec.scenario()
    folder = tmp_path_factory.mktemp("big")
    store = SQLiteStore(folder / "run.db")
    try:
        target = _planted("sycophant", [Flip(marker="professor", answer=False)], 0.1)
        results = Runner(store=store).run(scenario.experiment([target]))
    finally:
        store.close()
    report = scenario.report(results, inference=Inference(resamples=200, permutations=1999))
    return Run(results, report, folder / "run.db", folder / "report.json")


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A steady target beside one whose every output is hostile text."""
    return _run(
        tmp_path_factory.mktemp("wild"),
        [_planted("steady", [], 0.05), ScriptedTarget(_wild, name=WILD_NAME)],
    )


@pytest.fixture(scope="module")
def browser(big: Run, wild: Run, run: Run) -> Iterator[Any]:
    """The runs are made before the browser starts (see conftest's ``browser``)."""
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def files(big: Run, wild: Run, run: Run, tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("pages")
    return {
        "report": ReportPage(run.report, run.results).save(folder / "r.html"),
        "big": ReportPage(big.report, big.results).save(folder / "big.html"),
        "wild": ReportPage(wild.report, wild.results).save(folder / "wild.html"),
    }


def _offline(opened: Opened) -> None:
    assert opened.errors == []
    assert [url for url in opened.requests if not url.startswith(LOCAL)] == []
    assert opened.dialogs == []


def _click(page: Any, label: str) -> None:
    button = page.locator(f"button[data-label={json.dumps(label, ensure_ascii=False)}]").first
    button.evaluate("b => { const d = b.closest('details'); if (d) d.open = true; }")
    button.click()
    page.wait_for_selector("dialog[open]")


def _rows(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "#outputs-list > li", "rows => rows.map(r => r.dataset.observation)"
        )
    )


def _value(results: Any, observation: Any) -> Any:
    """The pressure an output was asked at."""
    return run_of(results).variant(observation.variant_id).coordinate["pressure"]


def _hash(page: Any) -> str:
    return str(page.evaluate("location.hash"))


def _until(page: Any, expression: str, *, seconds: float = 10.0) -> None:
    """Wait until ``expression`` is true in the page.

    Playwright's ``wait_for_function`` polls by compiling the expression in the page, which the
    report's Content-Security-Policy (no 'unsafe-eval') refuses unless it already holds at the
    first look; ``evaluate`` goes through the debugger protocol, which the policy does not
    govern.
    """
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"still false after {seconds} s: {expression}"
        page.wait_for_timeout(20)


# -- the comparison ----------------------------------------------------------------------------
def test_a_step_compares_its_two_coordinates_side_by_side(
    open_page: Any, files: dict, run: Run
) -> None:
    opened = open_page(files["report"])
    page = opened.page
    _click(page, STEP)
    assert page.text_content("#outputs-title") == STEP
    assert page.locator("#outputs-views").is_visible()
    assert page.get_attribute("#outputs-view-compare", "aria-pressed") == "true"
    assert page.locator("#outputs-list").is_hidden()
    results = run.results
    indexed = run_of(results)
    sections = page.locator("#outputs-compare section.compare-case")
    assert sections.count() == len(indexed.cases)
    checked = 0
    for n in range(sections.count()):
        section = sections.nth(n)
        case = section.get_attribute("data-case")
        sides = section.locator(".compare-side")
        assert sides.count() == 2
        assert sides.nth(0).locator("h4").text_content() == "Before: pressure = doubt"
        assert sides.nth(1).locator("h4").text_content() == "After: pressure = disagreement"
        variants = {
            _value(results, o): indexed.variant(o.variant_id)
            for o in indexed.observations
            if o.target == "sycophant" and o.case == case
        }
        # the words marked are those the scenario page's word diff marks
        left, right = variants["doubt"].prompt, variants["disagreement"].prompt
        segments = word_diff(left.messages[-1].content, right.messages[-1].content)
        assert sides.nth(0).locator("del").all_text_contents() == [
            text for kind, text in segments if kind == "del"
        ]
        assert sides.nth(1).locator("ins").all_text_contents() == [
            text for kind, text in segments if kind == "ins"
        ]
        assert sides.nth(0).locator("ins").count() == sides.nth(1).locator("del").count() == 0
        # the shared system prompt is folded away, and every repetition's answer is listed
        assert sides.nth(0).locator("details.compare-same").count() == 1
        for side, value in ((0, "doubt"), (1, "disagreement")):
            answers = sides.nth(side).locator("ol.compare-answers > li")
            expected = sorted(
                (
                    o
                    for o in indexed.observations
                    if o.target == "sycophant" and o.case == case and _value(results, o) == value
                ),
                key=lambda o: o.repetition,
            )
            assert answers.count() == len(expected) == indexed.settings.repetitions
            ids = answers.evaluate_all("items => items.map(i => i.dataset.observation)")
            assert ids == [o.id for o in expected]
        checked += 1
    assert checked == len(indexed.cases)
    _offline(opened)


def test_an_answer_in_the_comparison_opens_its_raw_output(
    open_page: Any, files: dict, run: Run
) -> None:
    page = open_page(files["report"]).page
    _click(page, STEP)
    item = page.locator("#outputs-compare ol.compare-answers > li").first
    observation_id = item.get_attribute("data-observation")
    item.locator("summary").click()
    observation = next(o for o in run_of(run.results).observations if o.id == observation_id)
    assert item.locator("pre.output-text").text_content() == observation.output.text
    _until(page, f"location.hash.endsWith({json.dumps('&output=' + observation_id)})")
    page.reload()
    page.wait_for_selector("dialog[open]")
    opened = page.eval_on_selector_all(
        "#outputs-list details[open]", "ds => ds.map(d => d.parentElement.dataset.observation)"
    )
    assert opened == [observation_id]


def test_the_view_switch_lists_every_output(open_page: Any, files: dict, run: Run) -> None:
    page = open_page(files["report"]).page
    _click(page, STEP)
    page.click("#outputs-view-list")
    assert page.locator("#outputs-compare").is_hidden()
    assert page.get_attribute("#outputs-view-list", "aria-pressed") == "true"
    assert len(_rows(page)) == 120
    _until(page, "location.hash.endsWith('&view=list')")
    page.click("#outputs-view-compare")
    assert page.locator("#outputs-compare section.compare-case").count() == 12


def test_a_number_that_is_no_step_has_no_comparison(open_page: Any, files: dict) -> None:
    page = open_page(files["report"]).page
    _click(page, "steady · all: accuracy")
    assert page.locator("#outputs-views").is_hidden()
    assert page.locator("#outputs-compare").is_hidden()
    assert len(_rows(page)) == 200


def test_the_javascript_diff_rebuilds_both_texts(open_page: Any, files: dict) -> None:
    """Over random and hostile pairs, the marks never lose or invent a character, and a pair
    far beyond the diff's budget is still marked (its middle as one change)."""
    page = open_page(files["report"]).page
    vocabulary = [
        "the", "The", " ", "  ", "\n", ".", ",", "<b>", "</script>", "&amp;", "\u202e",
        "\u0645\u0631\u062d\u0628\u0627", "\U0001f600", "\u00e9", "e\u0301", "_x_", "42",
        "\ud800", "\udfff", "\t", "\u2028",
    ]  # fmt: skip
    chooser = random.Random(15)
    pairs = []
    for _ in range(300):
        before = "".join(chooser.choices(vocabulary, k=chooser.randint(0, 30)))
        after = list(before)
        for _ in range(chooser.randint(0, 4)):
            at = chooser.randint(0, len(after))
            after[at:at] = chooser.choice(vocabulary)
        pairs.append((before, "".join(after)))
    huge = ("word " * 40_000, "word " * 20_000 + "changed " + "word " * 20_000)
    pairs.append(huge)
    found = page.evaluate(
        """pairs => pairs.map(([a, b]) => {
          const segments = window.modelscapeCompare.diff(a, b);
          const side = (kind) => segments.filter(([k]) => k === "same" || k === kind)
            .map(([, t]) => t).join("");
          return [side("del") === a, side("ins") === b, segments.length];
        })""",
        pairs,
    )
    assert all(left and right for left, right, _ in found)
    assert found[-1][2] >= 2  # the huge pair is marked, not skipped
    simple = page.evaluate(
        "() => window.modelscapeCompare.diff('Xiuying Wang applies.', 'Mariam Hassan applies.')"
    )
    assert simple == [list(s) for s in word_diff("Xiuying Wang applies.", "Mariam Hassan applies.")]


# -- filters, search, paging ---------------------------------------------------------------------
def test_filters_narrow_the_list(open_page: Any, files: dict, run: Run) -> None:
    page = open_page(files["report"]).page
    _click(page, "sycophant · all: accuracy")
    results = run.results
    indexed = run_of(results)
    behind = [o for o in indexed.observations if o.target == "sycophant"]
    assert page.text_content("#outputs-shown") == "Showing 200 of 360 outputs."

    def listed_all() -> list[str]:
        more = page.locator("dialog[open] .dialog-body > button.more")
        while more.count():
            more.click()
        return _rows(page)

    page.select_option("#outputs-verdict", "wrong")
    wrong = {o.id for o in behind if (p := indexed.point("correct", o.id)) and p.value == 0}
    assert wrong
    assert set(listed_all()) == wrong
    assert f"{len(wrong)} outputs that match the filters" in page.text_content("#outputs-shown")
    page.select_option("#outputs-verdict", "")
    case = sorted(indexed.cases)[3]
    page.select_option("#outputs-case", case)
    assert set(listed_all()) == {o.id for o in behind if o.case == case}
    page.select_option("#outputs-coordinate", "pressure = authority")
    assert set(listed_all()) == {
        o.id for o in behind if o.case == case and _value(results, o) == "authority"
    }
    page.select_option("#outputs-repetition", "2")
    (only,) = listed_all()
    assert only == next(
        o.id
        for o in behind
        if o.case == case and _value(results, o) == "authority" and o.repetition == 2
    )
    page.select_option("#outputs-verdict", "failed")
    assert listed_all() == []


def test_search_reads_prompts_and_outputs(open_page: Any, files: dict, wild: Run) -> None:
    opened = open_page(files["wild"])
    page = opened.page
    _click(page, f"{WILD_NAME} · all: accuracy")
    results = wild.results
    indexed = run_of(results)
    behind = [o for o in indexed.observations if o.target == WILD_NAME]

    def listed_all() -> list[str]:
        more = page.locator("dialog[open] .dialog-body > button.more")
        while more.count():
            more.click()
        return _rows(page)

    page.fill("#outputs-search", "ONERROR")  # in outputs only; case does not matter
    assert set(listed_all()) == {o.id for o in behind if "onerror" in o.output.text}
    variant = indexed.variant(behind[0].variant_id)
    word = "professor"  # in the prompts of one coordinate only
    page.fill("#outputs-search", word)
    expected = {
        o.id
        for o in behind
        if word in " ".join(m.content for m in indexed.variant(o.variant_id).prompt.messages)
    }
    assert expected
    assert set(listed_all()) == expected
    case = variant.case
    page.fill("#outputs-search", f"{word} {case}")  # every word must be found
    assert set(listed_all()) == {o.id for o in behind if o.id in expected and o.case == case}
    page.fill("#outputs-search", "")
    assert len(_rows(page)) == 200
    _offline(opened)


def test_thousands_of_outputs_are_paged(open_page: Any, files: dict, big: Run) -> None:
    opened = open_page(files["big"])
    page = opened.page
    _click(page, "sycophant · all: accuracy")
    assert page.text_content("#outputs-count") == "2,880 outputs behind this number"
    assert len(_rows(page)) == 200
    assert page.text_content("#outputs-shown") == "Showing 200 of 2,880 outputs."
    more = page.locator("dialog[open] .dialog-body > button.more")
    assert more.text_content() == "Show 200 more"
    more.click()
    assert len(_rows(page)) == 400
    assert page.text_content("#outputs-shown") == "Showing 400 of 2,880 outputs."
    page.select_option("#outputs-repetition", "37")
    rows = _rows(page)
    assert len(rows) == 72  # 12 cases at 6 coordinates
    assert {o.repetition for o in run_of(big.results).observations if o.id in set(rows)} == {37}
    assert page.locator("dialog[open] .dialog-body > button.more").count() == 0
    page.fill("#outputs-search", "boils")
    assert 0 < len(_rows(page)) < 72
    page.click("#outputs-close")
    # a step of 40 repetitions a side: every answer on both sides of every case
    step = next(p for p in big.report.profiles).local[0]
    _click(page, f"sycophant · step on pressure: {step.before} → {step.after}")
    sides = page.locator("#outputs-compare .compare-side")
    assert sides.count() == 24
    counts = sides.evaluate_all("s => s.map(x => x.querySelectorAll('ol > li').length)")
    assert counts == [40] * 24
    _offline(opened)


# -- addresses -----------------------------------------------------------------------------------
def test_an_address_reopens_a_number_and_history_follows(open_page: Any, files: dict) -> None:
    opened = open_page(files["report"])
    page = opened.page
    _click(page, STEP)
    _until(page, "location.hash !== ''")  # the address is written once the dialog is open
    address = _hash(page)
    assert address.startswith("#evidence=")
    index = address.split("=")[1]
    assert page.locator(f'button[data-evidence="{index}"][data-label="{STEP}"]').count()
    page.go_back()
    _until(page, "!document.getElementById('outputs-dialog').open && location.hash === ''")
    page.go_forward()
    page.wait_for_selector("dialog[open]")
    assert page.text_content("#outputs-title") == STEP
    assert page.locator("#outputs-compare section.compare-case").count() == 12
    page.click("#outputs-close")
    # closing goes back in history, which the browser does after the click returns
    _until(page, "location.hash === ''")
    # a fresh visit to the address opens the same number in the same view
    other = open_page(files["report"])
    other.page.goto("about:blank")
    other.page.goto(files["report"].resolve().as_uri() + address)
    other.page.wait_for_selector("dialog[open]")
    assert other.page.text_content("#outputs-title") == STEP
    assert other.page.locator("#outputs-compare section.compare-case").count() == 12
    other.page.keyboard.press("Escape")
    _until(other.page, "location.hash === ''")
    _offline(opened)
    _offline(other)


def test_a_close_that_arrives_after_the_dialog_reopened_keeps_it_open(
    open_page: Any, files: dict
) -> None:
    # The close event is a task of its own: going back and forward quickly can deliver the close
    # of the earlier dialog after the history has opened it again. That late event must not step
    # back in history and close the dialog the reader is looking at.
    opened = open_page(files["report"])
    page = opened.page
    _click(page, STEP)
    _until(page, "location.hash !== ''")
    address = _hash(page)
    page.evaluate(
        """() => new Promise((done) => {
            const dialog = document.getElementById('outputs-dialog');
            dialog.close();
            dialog.showModal();
            setTimeout(() => setTimeout(done, 50), 0);
        })"""
    )
    page.wait_for_timeout(100)
    assert page.evaluate("document.getElementById('outputs-dialog').open")
    assert _hash(page) == address
    page.click("#outputs-close")
    _until(page, "location.hash === ''")
    _offline(opened)


def test_an_address_reopens_an_output(open_page: Any, files: dict) -> None:
    opened = open_page(files["big"])
    page = opened.page
    _click(page, "sycophant · all: accuracy")
    more = page.locator("dialog[open] .dialog-body > button.more")
    more.click()
    more.click()
    item = page.locator("#outputs-list > li").nth(555)
    observation_id = item.get_attribute("data-observation")
    item.locator("summary").click()
    _until(page, f"location.hash.endsWith({json.dumps('&view=list&output=' + observation_id)})")
    page.reload()
    page.wait_for_selector("dialog[open]")
    opened_ids = page.eval_on_selector_all(
        "#outputs-list details[open]", "ds => ds.map(d => d.parentElement.dataset.observation)"
    )
    assert opened_ids == [observation_id]  # on the third page, shown and opened again
    assert page.locator("#outputs-list details[open] pre.output-text").count() == 1
    _offline(opened)


@pytest.mark.parametrize(
    "address",
    ["#evidence=99999", "#evidence=-1", "#evidence=1e1", "#evidence=", "#evidence=0x1",
     "#evidence=<img src=x onerror=alert(1)>", "#output=1&evidence", "#%00%ff", "#" + "9" * 400,
     "#evidence=0&output=<script>alert(1)</script>", "#evidence=0&view=<b>"],
)  # fmt: skip
def test_a_hostile_address_opens_nothing_it_should_not(
    open_page: Any, files: dict, address: str
) -> None:
    opened = open_page(files["report"])
    page = opened.page
    page.goto(files["report"].resolve().as_uri() + address)  # the hash changes
    page.wait_for_load_state("load")
    assert page.evaluate("document.getElementById('outputs-dialog').open") == address.startswith(
        "#evidence=0&"
    )
    page.reload()  # the page loads with the hash
    page.wait_for_load_state("load")
    assert page.evaluate("document.getElementById('outputs-dialog').open") == address.startswith(
        "#evidence=0&"
    )
    assert page.locator("#outputs-list img, #outputs-list script, #outputs-list b").count() == 0
    _offline(opened)


# -- charts --------------------------------------------------------------------------------------
def test_a_chart_point_titles_the_dialog_with_its_step(
    open_page: Any, files: dict, run: Run
) -> None:
    opened = open_page(files["report"])
    page = opened.page
    page.wait_for_selector("html[data-charts]", state="attached", timeout=15_000)
    profile = next(p for p in run.report.profiles if p.target == "sycophant")
    page.locator("#chart-profile-0").scroll_into_view_if_needed()
    point = page.locator("#chart-profile-0 .scatterlayer .trace").nth(1).locator(".points path")
    box = point.nth(4).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("dialog[open]")
    t = profile.baseline[4]
    assert page.text_content("#outputs-title") == (
        f"sycophant · against baseline on pressure: {t.before} → {t.after}"
    )
    assert page.locator("#outputs-compare section.compare-case").count() == 12
    _until(page, "location.hash.startsWith('#evidence=')")
    title = page.locator("#chart-profile-0 .g-ytitle").text_content()
    assert title == "excess change of the answer"
    _offline(opened)


# -- hostile outputs -----------------------------------------------------------------------------
def test_hostile_outputs_in_the_comparison_stay_text(
    open_page: Any, files: dict, wild: Run
) -> None:
    opened = open_page(files["wild"], width=390, height=844)
    page = opened.page
    page.wait_for_selector("html[data-charts]", state="attached", timeout=15_000)
    scripts = page.locator("script").count()  # with the unpacked plotting bundle
    step = next(p for p in wild.report.profiles if p.target == WILD_NAME).local[0]
    _click(page, f"{WILD_NAME} · step on pressure: {step.before} → {step.after}")
    answers = page.locator("#outputs-compare ol.compare-answers > li summary")
    for n in range(answers.count()):
        answers.nth(n).click()
    shown = page.eval_on_selector_all(
        "#outputs-compare pre.output-text", "pres => pres.map(p => p.textContent)"
    )
    stored = {
        o.output.text[:10_000] for o in run_of(wild.results).observations if o.target == WILD_NAME
    }
    assert shown
    assert set(shown) <= stored
    assert "\ufffd" in "".join(shown) or all("\ud800" not in s for s in WILD[3:4])
    assert any(len(s) == 10_000 for s in shown)  # the huge output, cut
    assert page.locator("#outputs-compare .output-cut").count() >= 1
    # right-to-left text is isolated in its own paragraph, never reordering the page around it
    bidi = page.eval_on_selector_all(
        "#outputs-compare pre.output-text", "ps => ps.map(p => getComputedStyle(p).unicodeBidi)"
    )
    assert set(bidi) == {"plaintext"}
    injected = page.evaluate(
        """() => {
          const bad = [];
          for (const node of document.querySelectorAll("*")) {
            for (const attribute of node.attributes) {
              if (attribute.name.startsWith("on")) bad.push(node.tagName + " " + attribute.name);
            }
          }
          for (const tag of ["img", "iframe", "b", "object", "embed"]) {
            for (const node of document.querySelectorAll(tag)) bad.push(tag);
          }
          return bad;
        }"""
    )
    assert injected == []
    assert page.locator("script").count() == scripts
    width = page.evaluate("document.getElementById('outputs-dialog').scrollWidth")
    assert width <= 390
    _offline(opened)


def test_nu_html_checker_on_hostile_pages(vnu: list[str], files: dict) -> None:
    checked = subprocess.run(
        [*vnu, str(files["wild"]), str(files["big"])], capture_output=True, text=True, timeout=300
    )
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert checked.stderr.strip() == ""


def test_axe_with_the_comparison_and_filters_open(
    open_page: Any, axe_source: str, files: dict
) -> None:
    for scheme in ("light", "dark"):
        opened = open_page(files["report"], width=390, height=844, scheme=scheme)
        page = opened.page
        _click(page, STEP)
        page.locator("#outputs-compare ol.compare-answers > li summary").first.click()
        page.locator("#outputs-compare details.compare-same > summary").first.click()
        page.evaluate(axe_source)
        found = page.evaluate(
            """async () => {
              const result = await axe.run(document, { resultTypes: ["violations"] });
              return result.violations
                .filter(v => v.impact === "serious" || v.impact === "critical")
                .map(v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ")));
            }"""
        )
        assert found == []
        assert opened.errors == []
